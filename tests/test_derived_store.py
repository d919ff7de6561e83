"""The derived store keeps its full-text index in step with its rows: a rewritten or removed file's
old words are gone from the index, whether it holds one row or thousands, and a first open that
ended early leaves merging turned back on."""

from __future__ import annotations

import datetime as dt
import sqlite3

from workbench.core.cache import FTS_AUTOMERGE, DerivedStore, row_for
from workbench.core.records import build_record

TODAY = dt.date(2026, 6, 1)


def record(path: str, body: str):
    doc_id = path.rsplit("/", 1)[-1][:-3]
    raw = f"---\nid: {doc_id}\ntitle: {doc_id}\n---\n{body}\n".encode()
    return build_record(path, raw, len(raw), 1, TODAY)


def paths_matching(store: DerivedStore, word: str) -> set[str]:
    found = store.postings(f'"{word}"', None) or {}
    return {path for path, _ in store.rows(found).values()}


def test_rewriting_and_removing_rows_keeps_the_index_in_step(tmp_path):
    store = DerivedStore(tmp_path / "index.sqlite")
    many = [row_for(record(f"notes/n{i}.md", f"common word{i}"), TODAY) for i in range(1200)]
    store.save_rows(many)
    assert len(paths_matching(store, "common")) == 1200
    store.save_rows([row_for(record("notes/n7.md", "rewritten"), TODAY)])
    assert paths_matching(store, "word7") == set()
    assert paths_matching(store, "rewritten") == {"notes/n7.md"}
    store.save_rows([row_for(record(f"notes/n{i}.md", "again"), TODAY) for i in range(600)], removed=["notes/n1100.md"])
    assert len(paths_matching(store, "again")) == 600
    assert len(paths_matching(store, "common")) == 1200 - 600 - 1
    store.db.execute("INSERT INTO fts (fts, rank) VALUES ('integrity-check', 1)")  # raises if the index disagrees with the rows
    store.close()


def test_a_bulk_store_turns_merging_back_on_even_when_cut_short(tmp_path):
    path = tmp_path / "index.sqlite"
    store = DerivedStore(path)
    with store.bulk():
        store.save_rows([row_for(record("notes/a.md", "alpha"), TODAY)])
        assert store.db.execute("SELECT v FROM fts_config WHERE k = 'automerge'").fetchone() == (0,)
    assert store.db.execute("SELECT v FROM fts_config WHERE k = 'automerge'").fetchone() == (FTS_AUTOMERGE,)
    store.db.execute("INSERT INTO fts (fts, rank) VALUES ('automerge', 0)")  # as if the process died inside bulk()
    store.close()
    reopened = DerivedStore(path)
    assert reopened.db.execute("SELECT v FROM fts_config WHERE k = 'automerge'").fetchone() == (FTS_AUTOMERGE,)
    assert paths_matching(reopened, "alpha") == {"notes/a.md"}
    reopened.close()


def test_integrity_check_fails_when_the_index_disagrees_with_its_rows(tmp_path):
    """The check used above can fail: a row changed behind the index's back is caught."""
    store = DerivedStore(tmp_path / "index.sqlite")
    store.save_rows([row_for(record("notes/a.md", "alpha"), TODAY)])
    store.db.execute("UPDATE files SET body = 'omega' WHERE path = 'notes/a.md'")
    try:
        store.db.execute("INSERT INTO fts (fts, rank) VALUES ('integrity-check', 1)")
        failed = False
    except sqlite3.DatabaseError:
        failed = True
    assert failed
    store.close()
