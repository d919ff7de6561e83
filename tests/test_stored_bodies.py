"""A vault opened from its derived store reads each body from the store when it is first asked
for, not at the open; what a caller holds keeps its body when the file changes after."""

from __future__ import annotations

import os
import sqlite3

from tests.benchmarks.generate import generate_vault
from workbench import Vault
from workbench.core.records.loading import FORK_MIN
from workbench.core.records.store_rows import read_bodies
from workbench.core.vocabulary.model import ConflictError

DOC = "notes/mem-note-a.md"


def unread(doc) -> bool:
    return doc.__dict__.get("body") is None


def test_a_warm_open_leaves_the_bodies_in_the_store(builder):
    builder.add("mem-note-a", body="The alpha plan.\n")
    builder.add("mem-note-b", body="The beta plan.\n")
    parsed = {d.id: d.body for d in Vault.open(builder.root).documents}
    vault = Vault.open(builder.root)
    assert all(unread(d) for d in vault.documents)
    assert {d.id: d.body for d in vault.documents} == parsed
    assert not any(unread(d) for d in vault.documents)  # kept once read


def test_a_cold_open_with_workers_leaves_the_bodies_in_the_store(tmp_path):
    root = tmp_path / "vault"
    generate_vault(root, FORK_MIN + 50)
    expected = {}
    for folder, _, names in os.walk(root):
        for name in names:
            text = (root / folder / name).read_text("utf-8")
            expected[name[:-3]] = text.split("\n---\n", 1)[1]
    vault = Vault.open(root)  # one thread here: the workers are forked
    documents = vault.documents
    assert sum(unread(d) for d in documents) > FORK_MIN // 2
    assert {d.id: d.body for d in documents} == expected


def test_a_document_held_keeps_its_body_when_its_file_changes(builder):
    builder.add("mem-note-a", body="The alpha plan.\n")
    Vault.open(builder.root)
    vault = Vault.open(builder.root)
    held = vault.document_at(DOC)
    assert unread(held)
    path = builder.root / DOC
    path.write_text(path.read_text().replace("alpha", "omega"))
    vault.refresh()
    assert "omega" in vault.get("mem-note-a").body
    assert "alpha" in held.body


def test_a_body_is_read_from_the_file_when_the_store_no_longer_has_it(builder):
    builder.add("mem-note-a", body="The alpha plan.\n")
    Vault.open(builder.root)
    vault = Vault.open(builder.root)
    held = vault.document_at(DOC)
    db = sqlite3.connect(builder.root / ".workbench" / "index.sqlite")
    with db:
        db.execute("UPDATE files SET digest = 'another' WHERE path = ?", (DOC,))  # as another process's reading
    db.close()
    assert "alpha" in held.body


def test_a_body_gone_from_the_store_and_the_file_is_refused_by_name(builder):
    builder.add("mem-note-a", body="The alpha plan.\n")
    Vault.open(builder.root)
    held = Vault.open(builder.root).document_at(DOC)
    other = Vault.open(builder.root)  # another process would do the same
    path = builder.root / DOC
    path.write_text(path.read_text().replace("alpha", "omega"))
    other.refresh()  # stores the new reading in place of the one `held` was read with
    try:
        _ = held.body
        refused = None
    except ConflictError as error:
        refused = error
    assert refused is not None and refused.path == DOC and "changed on disk" in str(refused)


def test_a_store_built_again_keeps_every_body(builder):
    builder.add("mem-note-a", body="The alpha plan.\n")
    builder.add("mem-note-b", body="The beta plan.\n")
    Vault.open(builder.root)
    vault = Vault.open(builder.root)
    vault.index.renew_store()
    assert {d.id: d.body.strip() for d in vault.documents} == {
        "mem-note-a": "The alpha plan.",
        "mem-note-b": "The beta plan.",
    }
    assert [hit.id for hit in vault.search("beta")] == ["mem-note-b"]


def test_bodies_read_many_to_a_query_are_the_files_bodies(builder):
    for name in "abcdef":
        builder.add(f"mem-note-{name}", body=f"The {name} plan.\n")
    Vault.open(builder.root)
    documents = Vault.open(builder.root).documents
    db = sqlite3.connect(builder.root / ".workbench" / "index.sqlite")
    with db:  # one reading the store no longer holds: left to be read from its file when asked
        db.execute("UPDATE files SET digest = 'another' WHERE path = ?", ("notes/mem-note-f.md",))
    db.close()
    read_bodies(documents)
    assert [unread(d) for d in documents] == [False] * 5 + [True]
    assert [d.body for d in documents] == [f"The {name} plan.\n" for name in "abcdef"]
