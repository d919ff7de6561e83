"""A copied vault's first open takes its store's rows where the copy holds the same files: the
copy's files have other inodes and change times, so no row is trusted on its stat, but a file
with the size, modification time and bytes its row was read from is not parsed again (in Memory
Core, which reads no file's time, whatever its time: a copy that kept no times, `cp -r`). Any
other file is: bytes changed at the same size and time, a time moved where the flavour reads
file times, a file added. Real files, a real store copied with them (as `cp -a` or a backup
does)."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import time

import pytest

from workbench import Vault
from workbench.core.records import seal
from workbench.core.records.record import UNKNOWN_INO
from workbench.core.records.store_rows import StoredDocument

N = 20  # few: parsed in this process, so a parsed record is a `Document`, a stored one not


def _vault(builder):
    for n in range(N):
        builder.add(f"mem-note-n{n}", body=f"The note number {n} about alpha.\n")
    Vault.open(builder.root).index.store.close()
    time.sleep(0.15)  # past the racy window: the rows are trusted on their stat in their own folder
    again = Vault.open(builder.root)
    assert all(type(r.document) is StoredDocument for r in again.index.records)
    again.index.store.close()
    return builder.root


def _parsed(vault: Vault) -> list[str]:
    return sorted(r.path for r in vault.index.records if type(r.document) is not StoredDocument)


def _same_size_and_time(path, old: bytes, new: bytes) -> None:
    before = path.stat()
    path.write_bytes(path.read_bytes().replace(old, new))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size and path.stat().st_mtime_ns == before.st_mtime_ns


def test_a_copy_opens_from_its_store_without_parsing_its_files(builder, tmp_path):
    root = _vault(builder)
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)  # copy2: modification times kept, the store's file too
    vault = Vault.open(copy)
    assert _parsed(vault) == [], "files whose bytes the store holds were parsed again"
    assert [hit.id for hit in vault.search("number 7")][:1] == ["mem-note-n7"]
    vault.index.store.close()
    time.sleep(0.15)
    again = Vault.open(copy)  # each row now has its copied file's stat: trusted on it
    assert _parsed(again) == []
    assert all(r.ino == (copy / r.path).stat().st_ino for r in again.index.records)
    again.index.store.close()


def test_a_copy_parses_every_file_whose_bytes_or_time_differ(builder, tmp_path):
    root = _vault(builder)
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    _same_size_and_time(copy / "notes/mem-note-n3.md", b"alpha", b"omega")  # what the stat cannot see
    touched = copy / "notes/mem-note-n4.md"
    os.utime(touched, ns=(touched.stat().st_atime_ns, touched.stat().st_mtime_ns + 1_000_000_000))
    builder_file = copy / "notes/mem-note-n5.md"
    builder_file.write_bytes(builder_file.read_bytes().replace(b"alpha", b"gamma plus"))  # another size
    vault = Vault.open(copy)
    # n4's time moved, its bytes the same: Memory Core reads no file's time, so its row holds.
    assert _parsed(vault) == ["notes/mem-note-n3.md", "notes/mem-note-n5.md"]
    assert "omega" in vault.get("mem-note-n3").body
    assert [hit.id for hit in vault.search("omega")] == ["mem-note-n3"]
    assert [hit.id for hit in vault.search("gamma")] == ["mem-note-n5"]
    assert "mem-note-n3" not in [hit.id for hit in vault.search("alpha")]
    vault.index.store.close()


def _times_moved(folder, seconds: int) -> None:
    """Every file's modification time moved, as a copy that keeps no times (`cp -r`) leaves them."""
    for path in folder.rglob("*.md"):
        before = path.stat()
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + seconds * 1_000_000_000))


def test_a_copy_that_kept_no_times_opens_from_its_store(builder, tmp_path):
    """Memory Core reads a file's bytes alone: in a copy made without its times, a row whose file
    holds the bytes it was read from is taken (what parsing them gives), and the copy's times are
    kept with it, so the next open trusts each row on its stat."""
    root = _vault(builder)
    copy = tmp_path / "copy"
    shutil.copytree(root, copy, copy_function=shutil.copy)  # as `cp -r`: the times are the copy's own
    _times_moved(copy, 86_400 * 3)  # past any tick of the clock: other days, too
    _same_size_and_time(copy / "notes/mem-note-n3.md", b"alpha", b"omega")
    vault = Vault.open(copy)
    assert _parsed(vault) == ["notes/mem-note-n3.md"], "files whose bytes the store holds were parsed again"
    assert all(r.mtime_ns == (copy / r.path).stat().st_mtime_ns for r in vault.index.records)
    fresh = tmp_path / "fresh"  # the same files parsed from nothing
    shutil.copytree(copy, fresh, ignore=shutil.ignore_patterns(".workbench"))
    parsed = Vault.open(fresh)
    for doc in parsed.index.documents:
        taken = vault.get(doc.id)
        assert (taken.meta, taken.body, taken.digest, taken.valid) == (doc.meta, doc.body, doc.digest, doc.valid)
        assert vault.problems_for(doc.id) == parsed.problems_for(doc.id)
    assert "omega" in vault.get("mem-note-n3").body
    vault.index.store.close()
    parsed.index.store.close()
    time.sleep(0.15)
    again = Vault.open(copy)  # the copy's times were kept with the rows: each trusted on its stat
    assert _parsed(again) == []
    again.index.store.close()


def test_a_flavour_that_reads_file_times_parses_a_copy_whose_times_moved(tmp_path):
    """OKF dates a note that states no timestamp by its file's time (its store kept in the vault,
    copied with it): in a copy that kept no times, every such file is parsed again, and reads its
    own time, not the one its row was read with."""
    root = tmp_path / "bundle"
    root.mkdir()
    for n in range(6):
        (root / f"note-{n}.md").write_text(f"---\ntype: note\n---\n# Note {n}\n\nAbout alpha, {n}.\n", "utf-8")
    Vault.open(root, flavour="okf").index.store.close()
    assert (root / ".workbench" / "index.sqlite").is_file()
    copy = tmp_path / "copy"
    shutil.copytree(root, copy, copy_function=shutil.copy)
    _times_moved(copy, -86_400 * 400)
    vault = Vault.open(copy, flavour="okf")
    assert len(_parsed(vault)) == 6
    for doc in vault.index.documents:
        assert doc.updated == dt.date.fromtimestamp((copy / doc.path).stat().st_mtime), doc.path
    vault.index.store.close()


def test_a_copy_opened_but_not_walked_to_the_end_trusts_no_row_on_its_stat(builder, tmp_path):
    """The rows are made this folder's in one transaction with their inodes made unknown: a process
    that stopped right after (before the walk checked any file) leaves nothing trusted on a stat."""
    from workbench.core.records.derived_store import DerivedStore
    from workbench.core.vocabulary.files import folder_identity

    root = _vault(builder)
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    store = DerivedStore(copy / ".workbench" / "index.sqlite", "memory-core", folder_identity(copy))
    assert {ino for (ino,) in store.db.execute("SELECT ino FROM files")} == {UNKNOWN_INO}
    store.close()
    _same_size_and_time(copy / "notes/mem-note-n9.md", b"alpha", b"omega")
    vault = Vault.open(copy)
    assert _parsed(vault) == ["notes/mem-note-n9.md"]
    assert "omega" in vault.get("mem-note-n9").body
    vault.index.store.close()


# -- whose store: a copy reuses only a store this user's workbench made (`seal`) ---------------------

KEY = "AKIAIOSFODNN7EXAMPLE"  # a credential the checks find: a crafted row would hide it


def _forge(store_file, path: str, **columns) -> None:
    """Alter one row of a store as a hostile author of a shared vault would: its digest kept, so
    the row still matches its file's bytes, only what it says of the file changed."""
    db = sqlite3.connect(store_file)
    with db:
        db.execute(
            f"UPDATE files SET {', '.join(f'{k} = ?' for k in columns)} WHERE path = ?", (*columns.values(), path)
        )
        assert db.total_changes == 1
    db.close()


def _with_a_credential(builder):
    builder.add("mem-note-key", body=f"The deploy key is {KEY} for now.\n")
    root = _vault(builder)
    opened = Vault.open(root)
    assert [p.code for p in opened.problems_for("mem-note-key")], "the credential is found in the file"
    opened.index.store.close()
    return root


def test_a_crafted_store_in_a_copied_vault_is_not_trusted(builder, tmp_path, monkeypatch):
    """A vault received from someone else, its store made by their workbench, then rows forged:
    digests kept as the real files', meta and problems changed. The copy shows what the files
    hold, the credential warning included, not what the rows say."""
    user_state = os.environ["XDG_STATE_HOME"]
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "author-state"))
    root = _with_a_credential(builder)
    copy = tmp_path / "received"
    shutil.copytree(root, copy)
    store_file = copy / ".workbench" / "index.sqlite"
    db = sqlite3.connect(store_file)
    (meta,) = db.execute("SELECT meta FROM files WHERE path = 'notes/mem-note-n3.md'").fetchone()
    db.close()
    forged = json.loads(meta)
    forged["title"] = "A title the file does not hold"
    _forge(store_file, "notes/mem-note-n3.md", meta=json.dumps(forged))
    _forge(store_file, "notes/mem-note-key.md", problems=None, valid=1)
    monkeypatch.setenv("XDG_STATE_HOME", user_state)
    vault = Vault.open(copy)
    assert vault.get("mem-note-n3").title == "Title of mem-note-n3"
    assert [p.code for p in vault.problems_for("mem-note-key")], "the forged row hid the credential"
    assert len(_parsed(vault)) == N + 1, "a store this user did not make was read"
    vault.index.store.close()


def test_a_store_sealed_under_another_users_secret_is_built_again(builder, tmp_path, monkeypatch):
    root = _vault(builder)
    copy = tmp_path / "theirs"
    shutil.copytree(root, copy)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "another-user-state"))
    vault = Vault.open(copy)
    assert len(_parsed(vault)) == N
    vault.index.store.close()
    again = tmp_path / "theirs-copied-again"  # the store built here is this user's: a copy reuses it
    shutil.copytree(copy, again)
    reopened = Vault.open(again)
    assert _parsed(reopened) == []
    reopened.index.store.close()


def test_a_store_made_before_stores_were_sealed_is_built_again_in_a_copy(builder, tmp_path):
    root = _vault(builder)
    db = sqlite3.connect(root / ".workbench" / "index.sqlite")
    with db:
        db.execute("DELETE FROM info WHERE key IN ('origin', 'seal')")
    db.close()
    warm = Vault.open(root)  # in its own folder the store is read as before: no seal asked
    assert _parsed(warm) == []
    warm.index.store.close()
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    vault = Vault.open(copy)
    assert len(_parsed(vault)) == N
    vault.index.store.close()


@pytest.mark.parametrize(
    "origin, sealed",
    [("x", 7), ("x", b"\x00" * 64), ("x", "\u00e9" * 64), (3, "0" * 64), ("", "")],
    ids=["a number", "bytes", "text of no seal", "a number for an origin", "empty"],
)
def test_a_seal_of_any_other_kind_builds_the_copy_again(builder, tmp_path, origin, sealed):
    """A crafted `info` table (a number, bytes or text no seal has) is no seal, and no error."""
    root = _vault(builder)
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    db = sqlite3.connect(copy / ".workbench" / "index.sqlite")
    with db:
        db.execute("UPDATE info SET value = ? WHERE key = 'origin'", (origin,))
        db.execute("UPDATE info SET value = ? WHERE key = 'seal'", (sealed,))
    db.close()
    vault = Vault.open(copy)
    assert len(_parsed(vault)) == N
    vault.index.store.close()


def test_no_secret_to_be_had_builds_a_copy_again_and_fails_nothing(builder, tmp_path, monkeypatch):
    """A file where the state folder should be: no secret can be made or read there. The vault
    opens, its own store is reused, and a copy is built again from its files."""
    blocked = tmp_path / "state-is-a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocked))
    root = _vault(builder)
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    vault = Vault.open(copy)
    assert len(_parsed(vault)) == N
    assert [hit.id for hit in vault.search("number 7")][:1] == ["mem-note-n7"]
    vault.index.store.close()
    time.sleep(0.15)
    warm = Vault.open(copy)
    assert _parsed(warm) == []
    warm.index.store.close()


def test_a_secret_others_can_read_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    path = seal.secret_path()
    assert seal.seal_of("origin", "schema") is not None
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    monkeypatch.setattr(seal, "_known", {})  # as a new process: reads the file again
    path.chmod(0o644)
    assert seal.user_secret() is None
    assert not seal.verifies("origin", "schema", "0" * 64)


def test_processes_making_the_secret_at_once_agree_on_one(tmp_path):
    """Each writes its own secret and links it into place; all but one link fails, and every
    process then reads the one that is there."""
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    start = time.time() + 3.0  # every process imported by then: they ask at once
    script = (
        "import time\n"
        "from workbench.core.records import seal\n"
        f"time.sleep(max(0, {start} - time.time()))\n"
        "print(seal.user_secret().hex())\n"
    )
    runs = [subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE) for _ in range(6)]
    secrets = {run.communicate(timeout=60)[0].strip() for run in runs}
    assert all(run.returncode == 0 for run in runs)
    assert len(secrets) == 1 and len(next(iter(secrets))) == 64
    assert sorted(p.name for p in (tmp_path / "state" / "workbench").iterdir()) == ["store-secret"]


def test_a_warm_open_never_asks_for_the_secret(builder, tmp_path, monkeypatch):
    """The seal is looked at only in another folder: a warm open of the vault's own store reads
    no secret, and makes none when it is gone."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    root = _vault(builder)
    path = seal.secret_path()
    assert path.exists() and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    path.unlink()
    monkeypatch.setattr(seal, "_known", {})  # as a new process
    vault = Vault.open(root)
    assert _parsed(vault) == []
    vault.index.store.close()
    assert not path.exists()
