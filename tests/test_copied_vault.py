"""A copied vault's first open takes its store's rows where the copy holds the same files: the
copy's files have other inodes and change times, so no row is trusted on its stat, but a file
with the size, modification time and bytes its row was read from is not parsed again. Any other
file is: bytes changed at the same size and time, a time moved, a file added. Real files, a real
store copied with them (as `cp -a` or a backup does)."""

from __future__ import annotations

import os
import shutil
import time

from workbench import Vault
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
    assert _parsed(vault) == ["notes/mem-note-n3.md", "notes/mem-note-n4.md", "notes/mem-note-n5.md"]
    assert "omega" in vault.get("mem-note-n3").body
    assert [hit.id for hit in vault.search("omega")] == ["mem-note-n3"]
    assert [hit.id for hit in vault.search("gamma")] == ["mem-note-n5"]
    assert "mem-note-n3" not in [hit.id for hit in vault.search("alpha")]
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
