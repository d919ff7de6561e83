"""The derived store never serves what is not on disk: a file changed at the same size with its
modification time put back, a vault folder replaced by another at the same path, a change made in
the same tick of the file clock as the read before it. Each is read again, not taken from the store."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import sqlite3
import time

from workbench import Vault
from workbench.core.records.derived_store import DerivedStore, StoredDocument, row_for
from workbench.core.records.record import UNKNOWN_INO, build_record

DOC = "notes/mem-note-a.md"


def rewrite_keeping_size_and_mtime(path, old: bytes, new: bytes) -> None:
    """What `rsync -a`, a backup restore or `touch -r` leave: other bytes, the same size and mtime."""
    assert len(old) == len(new)
    before = path.stat()
    data = path.read_bytes()
    assert old in data
    path.write_bytes(data.replace(old, new))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size and path.stat().st_mtime_ns == before.st_mtime_ns


def opened_from_the_store(root):
    vault = Vault.open(root)
    vault.get("mem-note-a")
    return vault


def test_a_same_size_edit_with_its_mtime_put_back_is_read_again(builder):
    builder.add("mem-note-a", body="The alpha plan.\n")
    time.sleep(0.15)  # past the racy window: the store's record is trusted on its stat alone
    Vault.open(builder.root)
    assert isinstance(Vault.open(builder.root).get("mem-note-a"), StoredDocument)  # the store serves it
    rewrite_keeping_size_and_mtime(builder.root / DOC, b"alpha", b"omega")
    rewrite_keeping_size_and_mtime(builder.root / DOC, b"status: active", b"status: ACTIVE")
    vault = Vault.open(builder.root)
    assert vault.index.source("mem-note-a") == (builder.root / DOC).read_bytes()
    assert [hit.id for hit in vault.search("omega")] == []  # invalid now: found only with is:invalid
    assert [hit.id for hit in vault.search("omega is:invalid")] == ["mem-note-a"]
    assert [hit.id for hit in vault.search("alpha is:invalid")] == []
    assert "status-invalid" in {p.code for p in vault.problems_for("mem-note-a")}


def test_a_vault_replaced_at_the_same_path_is_read_as_another_vault(builder, tmp_path):
    """A copy of the vault, its store included, edited at the same sizes and mtimes, restored over
    the original: every file is another inode, the folder another folder."""
    builder.add("mem-note-a", body="The alpha plan.\n")
    time.sleep(0.15)
    Vault.open(builder.root).search("alpha")
    copy = tmp_path / "backup"
    shutil.copytree(builder.root, copy)  # copy2: mtimes kept, the store's file too
    rewrite_keeping_size_and_mtime(copy / DOC, b"alpha", b"omega")
    shutil.rmtree(builder.root)
    os.rename(copy, builder.root)
    vault = Vault.open(builder.root)
    assert "omega" in vault.get("mem-note-a").body
    assert [hit.id for hit in vault.search("omega")] == ["mem-note-a"]
    assert [hit.id for hit in vault.search("alpha")] == []


def test_the_store_of_another_folder_is_not_trusted_on_its_stat(tmp_path):
    """Its rows come back with no inode a file can have: only the bytes can tell (`still_clean`)."""
    on = dt.date(2026, 6, 1)
    raw = b"---\nid: a\ntitle: a\n---\nalpha\n"
    first = DerivedStore(tmp_path / "index.sqlite", "memory-core", "2049:100")
    first.save_rows([row_for(build_record("notes/a.md", raw, len(raw), 1, on, ino=7, ctime_ns=5), on)])
    first.close()
    assert DerivedStore(tmp_path / "index.sqlite", "memory-core", "2049:100").load(on)["notes/a.md"].ino == 7
    moved = DerivedStore(tmp_path / "index.sqlite", "memory-core", "2049:101").load(on)
    assert moved["notes/a.md"].ino == UNKNOWN_INO
    # Back in the first folder, the rows are still unknown: the other folder may have changed them.
    assert DerivedStore(tmp_path / "index.sqlite", "memory-core", "2049:100").load(on)["notes/a.md"].ino == UNKNOWN_INO


def plant_stamp(root, **columns) -> None:
    """Set the store's row for DOC as if the file had been read at another moment."""
    db = sqlite3.connect(root / ".workbench" / "index.sqlite")
    body = columns.pop("body", None)
    with db:
        db.execute(
            f"UPDATE files SET {', '.join(f'{k} = ?' for k in columns)} WHERE path = ?", (*columns.values(), DOC)
        )
        if body is not None:  # the text lives beside the row, under its rowid
            db.execute("UPDATE texts SET body = ? WHERE rowid = (SELECT rowid FROM files WHERE path = ?)", (body, DOC))
    db.close()


def test_a_change_in_the_same_tick_as_the_read_is_read_again(builder):
    """The stat of a file changed in the tick of the file clock in which it was read before keeps
    every number (ctime included): such a record is never trusted on its stat, as git does."""
    builder.add("mem-note-a", body="The alpha plan.\n")
    Vault.open(builder.root)
    rewrite_keeping_size_and_mtime(builder.root / DOC, b"alpha", b"omega")
    now = (builder.root / DOC).stat()
    # The row as a read in the same tick would have left it: this very stat, read 1 ms after.
    plant_stamp(builder.root, ino=now.st_ino, ctime_ns=now.st_ctime_ns, seen_ns=now.st_ctime_ns + 1_000_000)
    assert "omega" in Vault.open(builder.root).get("mem-note-a").body


def test_a_record_read_well_after_its_last_change_is_trusted(builder):
    """The other side: a stat that cannot be ambiguous keeps the stored record (no file is read)."""
    builder.add("mem-note-a", body="The alpha plan.\n")
    Vault.open(builder.root)
    now = (builder.root / DOC).stat()
    plant_stamp(
        builder.root,
        ino=now.st_ino,
        ctime_ns=now.st_ctime_ns,
        seen_ns=now.st_ctime_ns + 1_000_000_000,
        body="stored text",
    )
    assert Vault.open(builder.root).get("mem-note-a").body == "stored text"
