"""The vault lock belongs to a live process however long it pauses, and to no one once it is gone.

The holder here is a real process, stopped (SIGSTOP) in the middle of a change, after its journal
is written and before its file is: another process must wait for it or give up cleanly, never take
the lock over; once the holder goes on (SIGCONT), both changes are in the file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from workbench import Vault
from workbench.core.storage.writer import LockTimeout, VaultLock

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="POSIX only")

HOLDER = textwrap.dedent(
    """
    import dataclasses, os, signal, sys
    from workbench import Vault
    from workbench.core.storage import crashpoint

    def pause_here(step):
        if step == "journal-written":
            os.kill(os.getpid(), signal.SIGSTOP)  # a holder paused mid-change, as a debugger or ^Z would

    vault = Vault.open(sys.argv[1])
    crashpoint.crash_point = pause_here
    doc = vault.get("mem-note-a")
    vault.save(dataclasses.replace(doc, body=doc.body + "written by the paused holder\\n"))
    print("saved", flush=True)
    """
)

WRITER = textwrap.dedent(
    """
    import dataclasses, sys
    from workbench import ConflictError, Vault
    from workbench.core.storage.writer import LockTimeout
    vault = Vault.open(sys.argv[1])
    vault.index.lock.wait = float(sys.argv[2])
    while True:
        doc = vault.get("mem-note-a")
        try:
            vault.save(dataclasses.replace(doc, body=doc.body + "written by the other writer\\n"))
        except ConflictError:
            continue
        except LockTimeout as exc:
            print(f"timeout: {exc}", flush=True)
            raise SystemExit(4)
        print("saved", flush=True)
        break
    """
)


def start(code, *args):
    return subprocess.Popen(
        [sys.executable, "-c", code, *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def stopped(process) -> None:
    """Wait until `process` has stopped itself."""
    _, status = os.waitpid(process.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status), status


def test_a_paused_holder_keeps_the_lock_and_no_change_is_lost(builder):
    builder.add("mem-note-a", body="Start.\n")
    Vault.open(builder.root)
    path = builder.root / "notes/mem-note-a.md"
    holder = start(HOLDER, builder.root)
    try:
        stopped(holder)
        before = path.read_bytes()
        # As if it had been paused for a minute: a lock judged by its age would now be "stale".
        long_ago = time.time() - 60
        os.utime(builder.root / ".workbench/lock", (long_ago, long_ago))

        impatient = start(WRITER, builder.root, 0.5)
        out, err = impatient.communicate(timeout=60)
        assert impatient.returncode == 4, out + err
        assert f"locked by process {holder.pid}" in out
        assert path.read_bytes() == before, "the other writer wrote nothing"
        assert list((builder.root / ".workbench/journal").glob("*.json")), "the holder's journal was left to it"

        patient = start(WRITER, builder.root, 30)
        time.sleep(1.0)
        assert patient.poll() is None, "it waits for the paused holder"
        assert path.read_bytes() == before
        os.kill(holder.pid, signal.SIGCONT)
        assert holder.wait(timeout=60) == 0, holder.stderr.read()
        out, err = patient.communicate(timeout=60)
        assert patient.returncode == 0, out + err
    finally:
        if holder.poll() is None:
            os.kill(holder.pid, signal.SIGCONT)
            holder.kill()
            holder.wait()
    text = path.read_text()
    assert text.count("written by the paused holder\n") == 1
    assert text.count("written by the other writer\n") == 1
    assert Vault.open(builder.root).problems == []


def test_a_holder_killed_mid_change_frees_the_lock_at_once(builder):
    """The kernel lets go of a dead holder's lock: the next writer neither waits nor needs the
    lock file's contents, and the half-done change is rolled back first."""
    builder.add("mem-note-a", body="Start.\n")
    Vault.open(builder.root)
    path = builder.root / "notes/mem-note-a.md"
    holder = start(HOLDER, builder.root)
    stopped(holder)
    holder.kill()
    holder.wait()
    assert (builder.root / ".workbench/lock").exists()
    writer = start(WRITER, builder.root, 0.5)
    out, err = writer.communicate(timeout=60)
    assert writer.returncode == 0, out + err
    assert path.read_text().endswith("Start.\nwritten by the other writer\n")
    assert not list((builder.root / ".workbench/journal").glob("*.json"))


@pytest.mark.parametrize("contents", [b"", b"garbage, not json", b'{"pid": 1, "host": "elsewhere"}', b"\x00" * 64])
def test_a_lock_file_nobody_holds_is_taken_at_once(tmp_path, contents):
    state = tmp_path / ".workbench"
    state.mkdir()
    (state / "lock").write_bytes(contents)
    with VaultLock(state, wait=0.5):
        pass


def test_a_live_holder_is_named_when_the_wait_ends(tmp_path):
    state = tmp_path / ".workbench"
    with VaultLock(state):
        other = VaultLock(state, wait=0.2)
        with pytest.raises(LockTimeout, match=f"locked by process {os.getpid()} on "):
            other.acquire()
