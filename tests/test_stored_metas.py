"""A vault opened from its derived store leaves each document's meta there, read when first asked
for by the path and digest the document was read with: never another reading's meta, and refused
by name where that reading is gone from the store and from the file."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys

import pytest

from tests.benchmarks.generate import generate_vault
from workbench import Vault
from workbench.core.records import loading
from workbench.core.records.record import today
from workbench.core.vocabulary.model import ConflictError

DOC = "notes/mem-note-a.md"


def unread(doc) -> bool:
    return doc.__dict__.get("_meta") is None


def tagged(builder, names: str = "ab") -> None:
    for name in names:
        builder.add(f"mem-note-{name}", tags=[f"tag-{name}"], body=f"The {name} plan.\n")


def retag(builder, path: str, old: str, new: str) -> None:
    file = builder.root / path
    file.write_text(file.read_text().replace(old, new))


def test_a_warm_open_leaves_the_metas_in_the_store_and_reads_those_of_a_cold_open(builder):
    tagged(builder, "abcd")
    cold = {d.id: d.meta for d in Vault.open(builder.root).documents}
    vault = Vault.open(builder.root)
    assert all(unread(d) for d in vault.documents)
    assert {d.id: d.meta for d in vault.documents} == cold
    assert [hit.title for hit in vault.search("plan")] == [hit.title for hit in Vault.open(builder.root).search("plan")]
    assert not any(unread(d) for d in vault.documents)  # kept once read


def test_a_document_held_keeps_its_meta_when_its_file_changes(builder):
    tagged(builder)
    Vault.open(builder.root)
    vault = Vault.open(builder.root)
    held = vault.document_at(DOC)
    assert unread(held)
    retag(builder, DOC, "tag-a", "tag-z")
    vault.refresh()  # stores the new reading in place of the one `held` was read with
    assert vault.get("mem-note-a").tags == ["tag-z"]
    assert held.tags == ["tag-a"]


def test_a_meta_is_read_from_the_file_when_the_store_no_longer_has_it(builder):
    tagged(builder)
    Vault.open(builder.root)
    held = Vault.open(builder.root).document_at(DOC)
    db = sqlite3.connect(builder.root / ".workbench" / "index.sqlite")
    with db:
        db.execute("UPDATE files SET digest = 'another' WHERE path = ?", (DOC,))  # as another process's reading
    db.close()
    assert held.tags == ["tag-a"]


CHANGE_AND_STORE = """
import sys
from pathlib import Path
from workbench import Vault
root, path = Path(sys.argv[1]), sys.argv[2]
file = root / path
file.write_text(file.read_text().replace("tag-a", "tag-z"))
Vault.open(root)  # this process stores the file's new reading in place of the old one
"""


def test_a_meta_gone_from_the_store_and_the_file_is_refused_by_name_never_another_readings(builder):
    tagged(builder)
    Vault.open(builder.root)
    held = Vault.open(builder.root).document_at(DOC)
    ran = subprocess.run(
        [sys.executable, "-c", CHANGE_AND_STORE, str(builder.root), DOC], capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0, ran.stderr
    with pytest.raises(ConflictError) as refused:
        _ = held.meta
    assert refused.value.path == DOC and "changed on disk" in str(refused.value)
    assert unread(held)  # nothing was taken for its meta


def test_many_metas_are_read_in_one_query_each_the_readings_own(builder, monkeypatch):
    monkeypatch.setattr(loading, "METAS_ONE_BY_ONE", 2)
    tagged(builder, "abcdef")
    Vault.open(builder.root)
    vault = Vault.open(builder.root)
    asked: list[str] = []
    store = vault.index.store
    one, every = store.meta, store.metas
    monkeypatch.setattr(store, "meta", lambda path, digest: asked.append(path) or one(path, digest))
    monkeypatch.setattr(store, "metas", lambda: asked.append("every") or every())
    documents = vault.documents
    assert [d.tags for d in documents[:4]] == [["tag-a"], ["tag-b"], ["tag-c"], ["tag-d"]]
    assert asked == ["notes/mem-note-a.md", "notes/mem-note-b.md", "every"]
    # A file changed after the metas were read in one: its new reading is read, not the old one kept.
    retag(builder, "notes/mem-note-e.md", "tag-e", "tag-y")
    vault.refresh()
    assert vault.get("mem-note-e").tags == ["tag-y"]
    assert documents[4].tags == ["tag-e"]  # the document held, as it was read
    assert vault.get("mem-note-f").tags == ["tag-f"]


def test_a_meta_asked_after_the_store_was_built_again_is_the_documents(builder):
    tagged(builder)
    Vault.open(builder.root)
    vault = Vault.open(builder.root)
    held = vault.document_at(DOC)
    vault.index.renew_store()
    assert held.tags == ["tag-a"]
    assert json.loads(json.dumps(vault.get("mem-note-b").meta, default=str))["tags"] == ["tag-b"]


def test_records_loaded_without_a_body_source_hold_their_meta_and_body(builder):
    tagged(builder)
    vault = Vault.open(builder.root)
    loaded = vault.index.store.load(today())
    assert {path: (r.document.meta, r.document.body) for path, r in loaded.items()} == {
        d.path: (d.meta, d.body) for d in vault.documents
    }


def reading(vault) -> dict:
    """Everything a vault says of each document and file, and of a search."""
    documents = {
        r.path: (d.id, d.valid, d.meta, d.body, d.title, d.type, d.status, d.tags, d.links, d.supersedes, d.updated)
        for r in vault.records
        for d in [r.document]
    }
    problems = sorted((p.path, p.code, p.message) for p in vault.problems)
    hits = [(h.id, h.title, round(h.score, 9)) for h in vault.search("invoice retry", 20)]
    return {"documents": documents, "problems": problems, "hits": hits, "owners": vault.index.owners()}


def test_a_warm_open_says_what_a_cold_open_says_also_after_changes_by_another_process(tmp_path):
    root = tmp_path / "vault"
    generate_vault(root, 300)
    (root / "notes" / "broken.md").write_text("---\nid: [unclosed\n---\nA file that does not parse.\n")
    Vault.open(root)  # the store is built
    warm = Vault.open(root)
    assert all(unread(r.document) for r in warm.index.records if r.document.valid)
    assert reading(warm) == reading(cold_open(root, tmp_path / "cold"))
    some = sorted(root.glob("notes/*.md"))[:3]
    ran = subprocess.run(
        [sys.executable, "-c", CHANGE_SOME, str(root), *map(str, some)], capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0, ran.stderr
    warm = Vault.open(root)
    assert reading(warm) == reading(cold_open(root, tmp_path / "cold-after"))


CHANGE_SOME = """
import sys
from pathlib import Path
from workbench import Vault
for name in sys.argv[2:]:
    file = Path(name)
    file.write_text(file.read_text().replace("tags: [", "tags: [changed, ", 1) + "An invoice retry added.\\n")
Vault.open(sys.argv[1])  # this process stores the new readings
"""


def cold_open(root, copy):
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".workbench"))
    return Vault.open(copy)
