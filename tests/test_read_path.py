"""Reading does not write: a read of a document the index knows looks at its file's stat (and, where
the stat cannot tell, its bytes), and changes nothing, neither the records, the derived store nor
which file owns an id. Only a change seen (by the walk, the watcher, a read that finds the file
changed, or a write) is read again and its ids settled, with the result a fresh open gives; and a
write still refuses a change it has not seen, however the stat looks."""

from __future__ import annotations

import dataclasses
import os

import pytest
from vault_builders import doc_path, doc_text

from workbench import ConflictError, RefusedError, Vault

DOC = doc_path("mem-note-a")


def same_tick_rewrite(vault: Vault, old: bytes, new: bytes) -> None:
    """Rewrite DOC at the same size, its mtime put back, and leave the index's record as a read in
    the same tick of the file clock would have: this very stat, taken 1 ms after its change time.
    Only the file's bytes can tell the change."""
    path = vault.root / DOC
    before = path.stat()
    data = path.read_bytes()
    assert len(old) == len(new) and old in data
    path.write_bytes(data.replace(old, new))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    now = path.stat()
    record = vault.index._records[DOC]
    record.size, record.mtime_ns, record.ino, record.ctime_ns = (
        now.st_size,
        now.st_mtime_ns,
        now.st_ino,
        now.st_ctime_ns,
    )
    record.seen_ns = now.st_ctime_ns + 1_000_000


def test_reading_documents_just_written_changes_nothing(builder):
    """Files written a moment ago are racily clean (their change time is as recent as the read):
    their bytes are compared, and the records, the store and the ids stay as they are."""
    builder.add("mem-note-a", body="The alpha plan.\n")
    builder.add("mem-note-b", body="The beta plan.\n")
    vault = Vault.open(builder.root)
    generation, version = vault.generation, vault.store.version()
    for _ in range(3):
        assert "alpha" in vault.get("mem-note-a").body
        assert vault.index.source("mem-note-b") == (builder.root / doc_path("mem-note-b")).read_bytes()
    assert (vault.generation, vault.store.version()) == (generation, version)


def test_a_same_tick_rewrite_is_read_by_get(builder):
    builder.add("mem-note-a", body="The alpha plan.\n")
    vault = Vault.open(builder.root)
    vault.get("mem-note-a")
    same_tick_rewrite(vault, b"alpha", b"omega")
    assert "omega" in vault.get("mem-note-a").body
    assert [hit.id for hit in vault.search("omega")] == ["mem-note-a"]


def test_a_write_refuses_a_same_tick_rewrite_it_has_not_read(builder):
    """The stat says nothing and no read came between: the write's own look at the bytes refuses."""
    builder.add("mem-note-a", body="The alpha plan.\n")
    vault = Vault.open(builder.root)
    doc = vault.get("mem-note-a")
    same_tick_rewrite(vault, b"alpha", b"omega")
    with pytest.raises(ConflictError):
        vault.save(dataclasses.replace(doc, body=doc.body + "\nOne more line.\n"))
    assert b"omega" in (builder.root / DOC).read_bytes()
    # The write that found the change tells the records at once: search knows the agent's words.
    assert "omega" in vault.index.document_at(DOC).body
    assert [hit.id for hit in vault.search("omega")] == ["mem-note-a"]


@pytest.mark.parametrize("claimant", ["notes/aa-copy.md", "notes/zz-copy.md"])
def test_ids_taken_by_a_file_changed_beside_the_vault_are_settled_as_an_open_settles_them(builder, claimant):
    """An agent rewrites, with plain file I/O, a file to claim an id another file holds: the read
    that finds it changed settles the ids as a fresh open of the same files does (a read of the
    other id looks at its own file only, and the watcher or the next walk sees this one)."""
    builder.add("mem-note-a", body="The alpha plan.\n")
    builder.raw(claimant, doc_text("mem-note-b", body="A note of its own.\n"))
    vault = Vault.open(builder.root)
    vault.get("mem-note-b")
    (builder.root / claimant).write_text(doc_text("mem-note-a", body="A copy that claims the id.\n"))
    with pytest.raises(RefusedError):
        vault.get("mem-note-b")  # its file claims mem-note-a now
    fresh = Vault.open(builder.root)
    assert vault.index.owners() == fresh.index.owners()
    assert vault.index.paths_of("mem-note-a") == fresh.index.paths_of("mem-note-a") == sorted([DOC, claimant])
    codes = {(p.path, p.code) for p in vault.problems}
    assert codes == {(p.path, p.code) for p in fresh.problems}
    assert (max(DOC, claimant), "id-duplicate") in codes
    assert "mem-note-b" not in vault
