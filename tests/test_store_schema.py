"""A schema change rebuilds the derived store in place: every table is emptied (the document
vectors and the kept rows too, never read as current), the file stays the one other connections
have open, and a connection still on the old schema can no longer store rows there."""

from __future__ import annotations

import datetime as dt
import os
import sqlite3

from workbench.core.records.derived_store import SCHEMA_TABLES, DerivedStore, row_for
from workbench.core.records.record import build_record

TODAY = dt.date(2026, 6, 1)


def _record(path: str, body: str):
    doc_id = path.rsplit("/", 1)[-1][:-3]
    raw = f"---\nid: {doc_id}\ntitle: {doc_id}\n---\n{body}\n".encode()
    return build_record(path, raw, len(raw), 1, TODAY)


def _filled(path, reading: str) -> DerivedStore:
    store = DerivedStore(path, reading, "1:1")
    store.save_rows([row_for(_record("notes/a.md", "alpha words"), TODAY)])
    store.save_vectors("model", [("digest-a", b"\x01\x02")])
    store.keep("queue", "key", "kept value")
    store.keep_rows("weighed", {"row": b"kept row"})
    return store


def _tables(db: sqlite3.Connection) -> set[str]:
    return {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_a_schema_change_empties_every_table_in_the_same_file(tmp_path):
    path = tmp_path / "index.sqlite"
    old = _filled(path, "memory-core")  # still open, as another process would hold it
    inode = os.stat(path).st_ino
    new = DerivedStore(path, "markdown", "1:1")  # the same path, another schema
    assert new.path == path
    assert os.stat(path).st_ino == inode, "the store's file was replaced under a connection holding it"
    assert new.load(TODAY) == {}
    assert new.vectors("model", ["digest-a"]) == {}
    assert new.kept("queue", "key") is None
    assert new.kept_rows("weighed", ["row"]) == {}
    assert new.count('"alpha"') == 0
    # Every table the store makes is one a schema change drops (a new table must be listed there).
    made = {t for t in _tables(new.db) if not t.startswith(("fts_", "sqlite_"))}
    assert made == set(SCHEMA_TABLES)
    # The old connection sees the same file: the new schema is what it finds there.
    assert old.db.execute("SELECT value FROM info WHERE key = 'schema'").fetchone() == (new.schema,)
    old.close()
    new.close()


def test_a_connection_on_the_old_schema_stores_nothing_in_the_rebuilt_store(tmp_path):
    path = tmp_path / "index.sqlite"
    old = _filled(path, "memory-core")
    new = DerivedStore(path, "markdown", "1:1")
    old.save_rows([row_for(_record("notes/b.md", "beta words"), TODAY)])
    old.save_vectors("model", [("digest-b", b"\x03")])
    assert new.load(TODAY) == {}, "rows read under another schema were taken as current"
    assert new.count('"beta"') == 0
    assert new.vectors("model", ["digest-b"]) == {}
    assert not old.damaged and not new.damaged
    new.save_rows([row_for(_record("notes/c.md", "gamma"), TODAY)])  # the new schema's own rows are kept
    assert set(new.load(TODAY)) == {"notes/c.md"}
    old.close()
    new.close()
