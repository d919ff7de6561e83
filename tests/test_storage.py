"""The vault lock, atomic writes, and crashes at every step of a two-file change."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time

import pytest

from workbench import Vault
from workbench.core.storage.writer import LockTimeout, VaultLock, write_atomic


def test_write_atomic_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "a.md"
    target.write_text("old")
    write_atomic(target, b"new")
    assert target.read_bytes() == b"new"
    assert [p.name for p in tmp_path.iterdir()] == ["a.md"]


def test_lock_of_a_dead_process_is_taken_over_at_once(tmp_path):
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    state = tmp_path / ".workbench"
    state.mkdir()
    (state / "lock").write_text(json.dumps({"pid": child.pid, "host": socket.gethostname(), "nonce": "x"}))
    lock = VaultLock(state, wait=0.5)
    started = time.monotonic()
    with lock:
        assert json.loads((state / "lock").read_text())["pid"] == os.getpid()
    assert time.monotonic() - started < 0.5
    assert not (state / "lock").exists()


def test_a_stale_lock_is_removed(tmp_path):
    state = tmp_path / ".workbench"
    state.mkdir()
    (state / "lock").write_text(json.dumps({"pid": os.getppid(), "host": socket.gethostname(), "nonce": "x"}))
    old = time.time() - 31
    os.utime(state / "lock", (old, old))
    with VaultLock(state, wait=0.5):
        assert json.loads((state / "lock").read_text())["pid"] == os.getpid()


def test_a_live_holder_is_waited_for_then_reported(tmp_path):
    state = tmp_path / ".workbench"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys,time; from pathlib import Path; from workbench.core.storage.writer import VaultLock;"
            "l=VaultLock(Path(sys.argv[1])); l.acquire(); print('held', flush=True); time.sleep(30)",
            str(state),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(LockTimeout, match=str(holder.pid)):
            VaultLock(state, wait=0.3).acquire()
        holder.kill()
        holder.wait()
        with VaultLock(state, wait=0.3):  # the holder died: taken over at once
            pass
    finally:
        holder.kill()
        holder.wait()


def test_a_live_holder_that_releases_is_waited_for(tmp_path):
    state = tmp_path / ".workbench"
    first = VaultLock(state)
    first.acquire()
    got = []

    def second():
        with VaultLock(state, wait=5):
            got.append(time.monotonic())

    thread = threading.Thread(target=second)
    thread.start()
    time.sleep(0.2)
    released = time.monotonic()
    first.release()
    thread.join(5)
    assert got and got[0] >= released


SUPERSEDE = (
    "import sys; from workbench import Vault; Vault.open(sys.argv[1]).supersede('mem-decision-old', 'mem-decision-new')"
)
CRASH_POINTS = [
    "journal-written",
    "before-rename:1",
    "file-written:1",
    "before-rename:2",
    "file-written:2",
    "committed",
    "logged",
    "cleaned",
]


@pytest.mark.parametrize("point", CRASH_POINTS)
def test_a_supersession_killed_at_any_step_leaves_the_vault_consistent(builder, point):
    builder.add("mem-decision-old")
    builder.add("mem-decision-new", status="draft")
    Vault.open(builder.root)
    old_path, new_path = builder.root / "decisions/mem-decision-old.md", builder.root / "decisions/mem-decision-new.md"
    before = (old_path.read_bytes(), new_path.read_bytes())
    result = subprocess.run(
        [sys.executable, "-c", SUPERSEDE, str(builder.root)], env={**os.environ, "WORKBENCH_CRASH_AT": point}
    )
    assert result.returncode == 137, "the crash point was not reached"

    vault = Vault.open(builder.root)
    after = (old_path.read_bytes(), new_path.read_bytes())
    old, new = vault.get("mem-decision-old"), vault.get("mem-decision-new")
    if after == before:
        assert old.status == "active" and new.status == "draft"
    else:
        assert old.status == "superseded" and new.supersedes == ["mem-decision-old"]
        assert after[0] != before[0] and after[1] != before[1], "half a supersession survived"
        assert (builder.root / "log.md").read_text().count("supersede mem-decision-old") == 1
    assert vault.problems == []
    leftovers = [p for p in builder.root.rglob("*") if p.name.endswith(".tmp")]
    assert leftovers == []
    assert list((builder.root / ".workbench" / "journal").glob("*.json")) == []
    assert vault.recovery_notes or point in ("cleaned",)


def test_a_crash_before_the_commit_rolls_back_and_one_after_rolls_forward(builder):
    builder.add("mem-decision-old")
    builder.add("mem-decision-new")
    for point, superseded in (("file-written:2", False), ("committed", True)):
        Vault.open(builder.root)
        subprocess.run(
            [sys.executable, "-c", SUPERSEDE, str(builder.root)], env={**os.environ, "WORKBENCH_CRASH_AT": point}
        )
        vault = Vault.open(builder.root)
        assert (vault.get("mem-decision-old").status == "superseded") is superseded


def test_a_write_that_reads_back_wrong_is_retried_once(builder, monkeypatch):
    from workbench.core.storage import filereplace

    builder.add("mem-note-a", status="draft")
    vault = Vault.open(builder.root)
    documents = []
    real = filereplace.write_all

    def flaky(fd, data):
        if data.startswith(b"---"):
            documents.append(data)
            data = data[:-1] if len(documents) == 1 else data
        real(fd, data)

    monkeypatch.setattr(filereplace, "write_all", flaky)
    vault.set_status("mem-note-a", "active")
    assert vault.get("mem-note-a").status == "active"
    assert len(documents) == 2


def test_a_write_that_fails_verification_twice_is_rolled_back(builder, monkeypatch):
    from workbench.core.storage import filereplace

    builder.add("mem-decision-old")
    builder.add("mem-decision-new")
    vault = Vault.open(builder.root)
    before = {p.name: p.read_bytes() for p in (builder.root / "decisions").iterdir()}
    real = filereplace.write_all

    def corrupting(fd, data):
        real(
            fd, data.replace(b"status: superseded", b"status: supersedXd") if b"id: mem-decision-old" in data else data
        )

    monkeypatch.setattr(filereplace, "write_all", corrupting)
    with pytest.raises(filereplace.WriteError, match="mem-decision-old.md"):
        vault.supersede("mem-decision-old", "mem-decision-new")
    monkeypatch.setattr(filereplace, "write_all", real)
    assert {p.name: p.read_bytes() for p in (builder.root / "decisions").iterdir()} == before
    assert list((builder.root / ".workbench" / "journal").glob("*.json")) == []


def test_a_disk_error_writing_one_file_of_many_leaves_every_file_and_no_temporary_file(builder, monkeypatch):
    """The new versions of a change's files are written in several threads at once: one of them
    failing (a full disk) fails the change with every file as it was and none of the others'
    temporary files left behind."""
    import errno

    from workbench.core.storage import filereplace

    builder.add("mem-decision-old")
    builder.add("mem-decision-new")
    vault = Vault.open(builder.root)
    before = {p.name: p.read_bytes() for p in (builder.root / "decisions").iterdir()}
    real = filereplace.write_all

    def full(fd, data):
        if b"id: mem-decision-new" in data:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(fd, data)

    monkeypatch.setattr(filereplace, "write_all", full)
    with pytest.raises(OSError, match="No space"):
        vault.supersede("mem-decision-old", "mem-decision-new")
    monkeypatch.setattr(filereplace, "write_all", real)
    assert {p.name: p.read_bytes() for p in (builder.root / "decisions").iterdir()} == before
    assert list((builder.root / ".workbench" / "journal").glob("*.json")) == []


def test_undo_takes_the_last_change_even_as_the_second_turns(builder, monkeypatch):
    import time as clock

    builder.add("mem-note-a")
    builder.add("mem-note-b")
    vault = Vault.open(builder.root)
    # Changes 0.3 s apart: every few, the second turns between two of them.
    readings = iter(range(1_796_040_000_100_000_000, 1_796_040_100_000_000_000, 300_000_000))
    monkeypatch.setattr(clock, "time_ns", lambda: next(readings))
    for _ in range(5):
        vault.set_status("mem-note-a", "deprecated")
        vault.set_status("mem-note-b", "deprecated")
        vault.undo()
        assert (vault.get("mem-note-a").status, vault.get("mem-note-b").status) == ("deprecated", "active")
        vault.undo()
        assert vault.get("mem-note-a").status == "active"
