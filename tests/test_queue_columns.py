"""The fields the conflicts queue and the review list ask of every document (type, status, title,
supersessions, links, pairs marked compatible) are kept in the derived store's rows: a call reads
them without decoding any unchanged document's frontmatter, and a change made by plain file I/O
shows in the next queue as a full recompute gives it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from workbench import Vault
from workbench.core.records import store_rows
from workbench.core.records.store_rows import StoredDocument, marked_compatible, read_fields, read_relations
from workbench.core.services.conflicts import find_conflicts

FIELDS = """---
schema_version: v1
id: mem-decision-b
type: decision
title: "Queue \\x1f the invoices, \\u001f"
status: superseded
created_at: 2026-03-05
updated_at: 2026-03-06
project: tern
tags: [billing]
provenance:
  source: agent-claude
  confidence: high
links:
  - type: related_to
    target: mem-entity-c
  - type: depends_on
    target: mem-decision-a
supersedes: [mem-decision-z]
superseded_by: [mem-decision-a]
compatible_with: [mem-decision-y, 7]
---
Invoices wait in a queue.
"""


def meta_unread(doc) -> bool:
    return type(doc.__dict__.get("_meta")) is not dict  # as stored: JSON text, or left in the store (None)


def queue_fields(doc) -> tuple:
    """What the conflicts queue asks of every document."""
    return (doc.type, doc.status, doc.title, doc.supersedes, doc.superseded_by, doc.links, marked_compatible(doc))


def test_a_stored_document_answers_the_queues_fields_from_its_row(builder):
    builder.raw("decisions/mem-decision-b.md", FIELDS)
    builder.add("mem-note-plain", body="No title, no links.\n")
    parsed = {d.id: d for d in Vault.open(builder.root).documents}
    vault = Vault.open(builder.root)
    stored = vault.documents
    assert all(type(d) is StoredDocument and d.__dict__["_fields"] is None for d in stored)  # left in the store
    read_fields(stored, vault.store.fields)  # as the queue reads them: in one query
    for doc in stored:
        fields = queue_fields(doc)
        assert meta_unread(doc), doc.id  # read from the row: the frontmatter is still as stored
        assert fields == queue_fields(parsed[doc.id])
    b = next(d for d in stored if d.id == "mem-decision-b")
    assert (b.type, b.status, b.title, b.supersedes, marked_compatible(b)) == (
        "decision",
        "superseded",
        "Queue \x1f the invoices, \x1f",  # the title may hold the row's separator
        ["mem-decision-z"],
        ["mem-decision-y", "7"],
    )


def test_an_open_for_the_queue_reads_the_fields_with_the_rows(builder):
    """`conflicts` and `review` open the vault with the queue's fields read in the rows' own query:
    every stored document then answers them as the query of their own would have put them in place
    (`read_fields` asks none), one whose row holds none (a type holding the separator) from its
    meta, and the queue is the same."""
    builder.raw("decisions/mem-decision-b.md", FIELDS)
    builder.add("mem-note-plain", body="No title, no links.\n")
    odd = FIELDS.replace("id: mem-decision-b", "id: mem-note-odd").replace("type: decision", 'type: "odd\\x1fkind"')
    builder.raw("notes/mem-note-odd.md", odd)
    parsed = {r.path: r.document for r in Vault.open(builder.root).records}
    plain = Vault.open(builder.root).conflicts_json()
    vault = Vault.open(builder.root, queue_fields=True)
    stored = [r.document for r in vault.records]
    assert all(type(d) is StoredDocument for d in stored)
    asked: list[int] = []
    read_fields(stored, lambda: asked.append(1) or {})
    assert asked == []  # every one read with the rows
    for doc in stored:
        assert queue_fields(doc) == queue_fields(parsed[doc.path]), doc.path
    assert parsed["notes/mem-note-odd.md"].type == "odd\x1fkind"
    assert vault.store.fields()["notes/mem-note-odd.md"][1] is None  # its row holds none
    assert vault.conflicts_json() == plain


def test_a_stored_documents_type_status_and_title_are_plain_attributes_once_read(builder):
    """The queue asks every document's type and status several times: once the row's fields are
    split they sit in the document's own dict, read without a call; a copy without the row's text
    (`dataclasses.replace`) reads them from its frontmatter, as any document does."""
    import dataclasses

    builder.raw("decisions/mem-decision-b.md", FIELDS)
    Vault.open(builder.root)
    vault = Vault.open(builder.root, queue_fields=True)
    doc = vault.get("mem-decision-b")
    assert type(doc) is StoredDocument and "type" not in vars(doc)  # split when first asked
    assert (doc.type, doc.status, doc.title) == ("decision", "superseded", "Queue \x1f the invoices, \x1f")
    assert (vars(doc)["type"], vars(doc)["status"], vars(doc)["title"]) == (doc.type, doc.status, doc.title)
    assert meta_unread(doc)
    copy = dataclasses.replace(doc, body="Another body.\n")
    assert "type" not in vars(copy) and (copy.type, copy.status, copy.title) == (doc.type, doc.status, doc.title)


def test_every_documents_relations_are_parsed_a_piece_at_a_time(builder, monkeypatch):
    # One JSON parse of every document's relations held the interpreter 60-240 ms at 100,000
    # documents (a frozen screen in the TUI beside it): parsed a piece at a time, the same answer.
    for n in range(11):
        builder.add(
            f"mem-decision-d{n}",
            links=f"[{{type: depends_on, target: mem-decision-d{(n + 1) % 11}}}]",
            supersedes=f"[mem-decision-d{n + 1}]" if n % 3 == 0 and n < 10 else "[]",
        )
    builder.add("mem-note-plain")
    parsed = {d.id: (d.supersedes, d.superseded_by, d.links) for d in Vault.open(builder.root).documents}
    stored = Vault.open(builder.root).documents
    read_fields(stored, Vault.open(builder.root).store.fields)
    parses: list[int] = []
    loads = store_rows.json.loads

    class Counted:
        @staticmethod
        def loads(text: str):
            value = loads(text)
            parses.append(len(value) if type(value) is list and text.startswith("[[") else 1)
            return value

    monkeypatch.setattr(store_rows, "RELATIONS_PIECE", 4, raising=False)
    monkeypatch.setattr(store_rows, "json", Counted)
    read_relations(stored)
    assert sum(parses) == 11 and max(parses) <= 4, parses  # every decision's (the note has none), four at most at once
    assert all(type(d.__dict__["_relations"]) is tuple for d in stored if d.type == "decision")  # none left for later
    assert {d.id: (d.supersedes, d.superseded_by, d.links) for d in stored} == parsed


def change(root: Path, relative: str, old: str, new: str) -> None:
    path = root / relative
    text = path.read_text("utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), "utf-8")


EDITS = [
    # the type: a decision made a concept drops out of the decision pairs
    ("decisions/mem-decision-money-numeric-decimal.md", "type: decision", "type: concept"),
    # the status: superseded, naming no successor
    ("decisions/mem-decision-api-fastapi.md", "status: active", "status: superseded"),
    # the supersessions: one side only
    ("decisions/mem-decision-money-integer-cents.md", "superseded_by: []", "superseded_by: [mem-decision-api-fastapi]"),
    # a pair marked compatible in the frontmatter is not listed again
    (
        "entities/mem-entity-postgres.md",
        "\ntype: entity",
        "\ncompatible_with: [mem-entity-postgresql-db]\ntype: entity",
    ),
    # the title: the duplicates compared are drawn from the titles
    ("entities/mem-entity-postgresql-db.md", "title: PostgreSQL DB", "title: Object storage bucket"),
]


@pytest.mark.parametrize("relative, old, new", EDITS, ids=[e[0].split("/")[1][4:-3] + ":" + e[1] for e in EDITS])
def test_a_field_changed_by_plain_file_io_shows_in_the_next_queue(sample_copy, tmp_path, relative, old, new):
    before = Vault.open(sample_copy).conflicts()
    assert Vault.open(sample_copy).kept_conflicts() == before  # kept: the next call reads the rows
    change(sample_copy, relative, old, new)
    after = Vault.open(sample_copy).conflicts()
    fresh = tmp_path / "fresh"
    shutil.copytree(sample_copy, fresh, ignore=shutil.ignore_patterns(".workbench"))
    parsed = Vault.open(fresh).documents
    assert not any(type(d) is StoredDocument for d in parsed)  # parsed from the files, no store
    expected = find_conflicts(parsed, True)
    assert [c.to_json() for c in after] == [c.to_json() for c in expected]
    assert [c.to_json() for c in after] != [c.to_json() for c in before]


def test_a_warm_open_of_decision_records_resolves_their_links_without_reading_bodies(tmp_path):
    """Records read by a flavour have their links resolved again at every open (a record added
    elsewhere may be the one a link names); the resolved copy keeps the meta encoded and the body
    in the store, as `dataclasses.replace` did not (a query for each body)."""
    root = tmp_path / "adrs"
    for number, title, body in (
        (1, "Use PostgreSQL", "We store data in PostgreSQL.\n"),
        (2, "Use Redis for jobs", "Builds on [ADR 1](0001-use-postgresql.md).\n"),
        (3, "Drop Redis", "Supersedes [ADR 2](0002-use-redis-for-jobs.md); see ADR-0001.\n"),
    ):
        path = root / "doc" / "adr" / f"{number:04d}-{title.lower().replace(' ', '-')}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"# {number}. {title}\n\nDate: 2024-0{number}-01\n\n## Status\n\nAccepted\n\n## Context\n\n{body}"
        )
    parsed = Vault.open(root, "adr").documents
    assert any(d.links for d in parsed)
    warm = Vault.open(root, "adr").documents
    assert all(type(d) is StoredDocument and meta_unread(d) and d.__dict__.get("body") is None for d in warm)
    assert [d.view for d in warm] == [d.view for d in parsed]
    assert warm == parsed


def adr_records(root: Path, count: int = 3) -> None:
    """`count` decision records, each superseding the one before it and linking to it, where
    adr-tools keeps them (`doc/adr`: the vault opened at `root` as decision records opens there)."""
    for number in range(1, count + 1):
        before = f"Supersedes [ADR {number - 1}](000{number - 1}-step-{number - 1}.md).\n" if number > 1 else ""
        path = root / "doc" / "adr" / f"000{number}-step-{number}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"# {number}. Step {number}\n\nDate: 2024-01-0{number}\n\n## Status\n\nAccepted\n\n## Context\n\n{before}"
        )


def test_an_open_for_the_queue_leaves_the_views_in_the_store(tmp_path, monkeypatch):
    """The queue's fields say all the queue asks of a view: an open for it leaves every view's
    text in the store, read when first asked for, one query each until many are asked, then every
    one in one query; each the view a plain open decodes, the queue the same."""
    from workbench.core.records import loading

    root = tmp_path / "adrs"
    adr_records(root, 6)
    plain = Vault.open(root, "adr")
    views = {d.path: d.view for d in plain.documents}
    queue = plain.conflicts_json()
    vault = Vault.open(root, "adr", queue_fields=True)
    stored = vault.documents
    assert all(type(d) is StoredDocument and d.__dict__["view"] == "" for d in stored)  # left in the store
    assert vault.conflicts_json() == queue
    queries: list[str] = []
    store = vault.store
    for name in ("view", "views"):
        real = getattr(store, name)
        monkeypatch.setattr(store, name, lambda *a, real=real, name=name: queries.append(name) or real(*a))
    monkeypatch.setattr(loading, "METAS_ONE_BY_ONE", 2)
    assert {d.path: d.view for d in stored} == views
    assert queries == ["view", "view", "views"]  # two one by one, then the rest at once


def test_a_view_left_in_the_store_is_never_another_readings(tmp_path):
    """A view left in the store is read by the path and the digest its document was read with:
    where another process stored the file's new reading since, it is read from the file while the
    file holds the same bytes, and refused (never the new reading's view) once it does not; a
    record replaced in this process keeps its view first."""
    from workbench.core.vocabulary.model import ConflictError

    root = tmp_path / "adrs"
    adr_records(root)
    plain = {d.path: d.view for d in Vault.open(root, "adr").documents}
    held = Vault.open(root, "adr", queue_fields=True)
    first, second = (d for d in sorted(held.documents, key=lambda d: d.path)[:2])
    assert first.__dict__["view"] == "" and second.__dict__["view"] == ""
    path = held.root / first.path  # the records' folder, `doc/adr`
    text = path.read_text("utf-8")
    path.write_text(text.replace("# 1. Step 1", "# 1. Step one"), "utf-8")
    Vault.open(root, "adr")  # another process stores the new reading
    with pytest.raises(ConflictError):
        _ = first.view  # its row and its file hold another reading now
    path.write_text(text, "utf-8")  # the bytes it was read from, back
    assert first.view == plain[first.path]
    other = held.root / second.path
    other.write_text(other.read_text("utf-8").replace("Step 2", "Step two"), "utf-8")
    held.refresh()  # this process replaces the record: the document held keeps its view first
    assert second.__dict__["view"] != "" and second.view == plain[second.path]


def test_a_store_built_again_keeps_the_views_an_open_left_in_the_old_one(tmp_path):
    """Building the derived store again from the records in memory (as a damaged one is) reads
    first every view left in the old store: the new store's rows hold them, and every document
    still gives its view."""
    root = tmp_path / "adrs"
    adr_records(root, 4)
    plain = {d.path: d.view for d in Vault.open(root, "adr").documents}
    vault = Vault.open(root, "adr", queue_fields=True)
    assert all(d.__dict__["view"] == "" for d in vault.documents)
    changed = vault.root / sorted(plain)[0]  # the records' folder, `doc/adr`
    changed.write_text(changed.read_text("utf-8").replace("Accepted", "Deprecated"), "utf-8")  # not seen yet
    vault.index.rebuild_store(vault.store.discard)  # the old store's file deleted
    assert {d.path: d.view for d in vault.documents} == plain  # as read, the file's new bytes not seen yet
    assert {path: view is not None for path, (_, view) in vault.store.views().items()} == dict.fromkeys(plain, True)
    assert Vault.open(root, "adr").get(vault.documents[0].id).view != plain[vault.documents[0].path]
