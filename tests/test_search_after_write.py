"""Search in a process that writes: what the first search after a write looks at is what the write
changed, and its answers are a full look's (a vault opened afresh)."""

from __future__ import annotations

import random

import pytest
from vault_builders import doc_path, doc_text

from workbench import Vault
from workbench.core.records.record import Record
from workbench.core.views import search

NOTES = 40


def _note(builder, n: int, body: str = "", doc_id: str | None = None) -> str:
    """Note `n` (claiming `doc_id`, its own by default) written by plain file I/O; its path."""
    path = doc_path(f"mem-note-w{n}")
    third = "alpha" if n % 3 == 0 else ""  # in 14 of the 40 notes
    text = doc_text(doc_id or f"mem-note-w{n}", body=f"ledger refund w{n} {third} {body}\n")
    builder.raw(path, text)
    return path


def _vault(builder) -> Vault:
    for n in range(NOTES):
        _note(builder, n)
    return Vault.open(builder.root)


@pytest.fixture
def looked_at(monkeypatch) -> list[str]:
    """The paths of the records whose document is read, as they are read (the slot wrapped)."""
    slot = Record.__dict__["document"]
    looked: list[str] = []

    def read(record: Record):
        looked.append(record.path)
        return slot.__get__(record, Record)

    monkeypatch.setattr(Record, "document", property(read, slot.__set__))
    return looked


def _full_look(vault: Vault) -> bool:
    return any(record.document.valid is not True for record in vault.index.records)


def test_after_a_write_only_the_files_it_changed_are_looked_at_for_an_invalid_document(builder, looked_at):
    """The first look after an open reads every record; after a watcher's batch, the files of the
    batch alone (and those claiming the ids it touched): a look at all 10,000 was 1.2-1.4 ms of
    the first search after each write."""
    vault = _vault(builder)
    looked_at.clear()
    assert vault.index.any_invalid() is False
    assert len(looked_at) >= NOTES  # the first look: every record
    written = _note(builder, 3, "grown")
    vault.refresh_paths([written])
    looked_at.clear()
    assert vault.index.any_invalid() is False
    assert looked_at == []  # followed by the batch itself
    looked_at.clear()
    vault.search("alpha", 10)
    assert len(set(looked_at)) <= 14  # the search's candidates, not every record


def test_invalid_documents_written_fixed_duplicated_and_removed_are_followed_as_a_full_look(builder):
    """Notes broken, mended, given another's id (a duplicate: invalid), their id's owner removed
    (the duplicate valid again), written by plain file I/O and told to the index a batch at a time,
    or seen by a walk: after each, the index's answer is a full look's, and a search's invalid
    matches are those of a vault opened afresh."""
    rng = random.Random(11)
    vault = _vault(builder)
    present = set(range(NOTES))
    for step in range(60):
        n = rng.randrange(NOTES + 5)
        kind = rng.choice(["broken", "mended", "duplicate", "removed", "mended"])
        path = doc_path(f"mem-note-w{n}")
        if kind == "broken":
            builder.raw(path, "---\ntitle: [ledger\n---\nledger broken\n")
        elif kind == "duplicate":
            _note(builder, n, "twin", doc_id=f"mem-note-w{rng.randrange(NOTES)}")
        elif kind == "removed" and n in present:
            (builder.root / path).unlink()
        else:
            _note(builder, n)
        if kind == "removed":
            present.discard(n)
        else:
            present.add(n)
        if step % 10 == 9:
            vault.index.refresh()  # a walk: looked at whole again
        else:
            vault.refresh_paths([path])
        assert vault.index.any_invalid() == _full_look(vault), step
        found = vault.search("ledger", 10)
        afresh = Vault.open(builder.root).search("ledger", 10)
        assert [(h.id, h.path, h.problem) for h in found.also_invalid] == [
            (h.id, h.path, h.problem) for h in afresh.also_invalid
        ], step
        assert [(h.id, h.score) for h in found] == [(h.id, h.score) for h in afresh], step


def test_a_file_made_invalid_behind_the_index_is_seen_by_the_next_look(builder):
    """A file broken by plain file I/O and never told to the index is seen once the index looks at
    the disk (a walk, or asking for the document), as is a removed one."""
    vault = _vault(builder)
    assert vault.index.any_invalid() is False
    builder.raw(doc_path("mem-note-w5"), "---\ntitle: [ledger\n---\nledger broken\n")
    vault.index.refresh()
    assert vault.index.any_invalid() is True
    assert [h.id for h in vault.search("ledger", 10).also_invalid] == ["mem-note-w5"]
    (builder.root / doc_path("mem-note-w5")).unlink()
    vault.index.refresh()
    assert vault.index.any_invalid() is False
    assert vault.search("ledger", 10).also_invalid == []


def test_the_hits_facts_are_read_again_after_a_write_for_the_documents_it_changed_alone(builder, monkeypatch):
    """A hit's title, type, status and tags are read from the store once and kept across writes but
    for the documents a write touched: a title changed by the write shows, and the others are not
    read again (every hit's were, after each write)."""
    vault = _vault(builder)
    first = vault.search("ledger refund", 10)
    read: list[str] = []
    shown = vault.store.shown

    def counted(paths):
        paths = list(paths)
        read.extend(paths)
        return shown(paths)

    monkeypatch.setattr(vault.store, "shown", counted)
    written = first[0]
    text = doc_text(written.id, body="ledger refund again\n").replace(
        f"title: Title of {written.id}", "title: Ledger renamed"
    )
    builder.raw(written.path, text)
    vault.refresh_paths([written.path])
    after = vault.search("ledger refund", 10)
    assert set(read) <= {written.path}  # (one document waiting is not read from the store)
    assert {h.id: h.title for h in after}[written.id] == "Ledger renamed"
    afresh = Vault.open(builder.root).search("ledger refund", 10)
    assert [(h.id, h.title, h.type, h.status) for h in after] == [(h.id, h.title, h.type, h.status) for h in afresh]
    # A rare word's kept rows caught up restate the new row's score with older statistics, a last bit apart.
    assert [h.score for h in after] == pytest.approx([h.score for h in afresh], rel=1e-12)
    views = search._views(vault.index)
    assert views.generation == vault.index.generation


def test_a_write_makes_ready_what_the_next_search_would_do_first(builder, monkeypatch):
    """In a process that has searched, a batch of the index patches the kept lists for the index
    now and follows the lookups, in the writing thread: the search after it finds them ready. An
    index that never searched is left as it is. Pages are a vault opened afresh's."""
    from workbench.core.views import word_lists

    monkeypatch.setattr(word_lists.WordLists, "_keep", lambda self: None)  # no thread keeping lists here
    vault = _vault(builder)
    assert vault.index.after_change == []  # nothing to make ready before a search
    vault.search("ledger", 10)
    refreshed: list[tuple[int, int]] = []
    refresh = word_lists.WordLists.refresh
    monkeypatch.setattr(
        word_lists.WordLists, "refresh", lambda self, version: (refreshed.append(version), refresh(self, version))[1]
    )
    for n in (3, 7):
        _note(builder, n, "grown again")
        vault.refresh_paths([doc_path(f"mem-note-w{n}")])
        ready = list(refreshed)
        assert ready and ready[-1] == vault.store.version()  # brought to the index now by the write
        found = [(h.id, h.score) for h in vault.search("ledger refund", 10)]
        assert search._views(vault.index).generation == vault.index.generation
        assert all(version == ready[-1] for version in refreshed[len(ready) :])  # nothing new to read
        afresh = [(h.id, h.score) for h in Vault.open(builder.root).search("ledger refund", 10)]
        assert [i for i, _ in found] == [i for i, _ in afresh]
        assert [s for _, s in found] == pytest.approx([s for _, s in afresh], rel=1e-12)


def test_a_fault_making_the_next_search_ready_never_fails_the_write(builder, monkeypatch):
    """The write has landed when the index makes the next search ready: a fault there (a store
    that cannot be read at that moment) forgets what search kept, and the search after it makes
    it again and finds the written text."""
    vault = _vault(builder)
    vault.search("ledger", 10)

    def broken(self, index):
        raise OSError("the store could not be read")

    monkeypatch.setattr(search._Views, "follow", broken)
    written = _note(builder, 5, "zeppelin")
    vault.refresh_paths([written])  # raised the OSError before
    monkeypatch.undo()
    assert [h.id for h in vault.search("zeppelin", 10)] == ["mem-note-w5"]


def test_an_id_claimed_twice_leaves_its_owner_among_the_documents_search_may_return(builder):
    """Where a later file claims an id a valid document owns, the claimant is invalid: the owner
    is still the one matched despite typos, not hidden behind the claimant."""
    builder.raw("notes/a-owner.md", doc_text("mem-note-zeppelin", body="The airship budget.\n"))
    builder.raw("notes/b-claimant.md", doc_text("mem-note-zeppelin", body="A second claim.\n"))
    vault = Vault.open(builder.root)
    owner = vault.index.owner_document("mem-note-zeppelin")
    assert owner is not None and owner.valid and owner.path == "notes/a-owner.md"
    assert search._views(vault.index).valid["mem-note-zeppelin"].path == "notes/a-owner.md"
    assert [h.path for h in vault.search("zepelin", 10)][:1] == ["notes/a-owner.md"]
