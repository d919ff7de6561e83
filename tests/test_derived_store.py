"""The derived store keeps its full-text index in step with its rows: a rewritten or removed file's
old words are gone from the index, whether it holds one row or thousands, and a first open that
ended early leaves merging turned back on."""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
import subprocess

import pytest
from vault_builders import VaultBuilder

from workbench import Vault

from workbench.core.records.derived_store import FTS_AUTOMERGE, DerivedStore, row_for
from workbench.core.records.record import build_record

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
    store.db.execute(
        "INSERT INTO fts (fts, rank) VALUES ('integrity-check', 1)"
    )  # raises if the index disagrees with the rows
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
    store.db.execute(
        "UPDATE texts SET body = 'omega' WHERE rowid = (SELECT rowid FROM files WHERE path = 'notes/a.md')"
    )
    try:
        store.db.execute("INSERT INTO fts (fts, rank) VALUES ('integrity-check', 1)")
        failed = False
    except sqlite3.DatabaseError:
        failed = True
    assert failed
    store.close()


@pytest.fixture
def small_disk(tmp_path):
    """A real file system of 2 MB (tmpfs), mounted for the test: needs root."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if (
        os.geteuid() != 0
        or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)], capture_output=True
        ).returncode
    ):
        pytest.skip("mounting a small file system needs root")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_a_store_build_that_runs_out_of_disk_leaves_no_file_behind(small_disk):
    """The vault fits on the disk, its store does not: no -wal (or half-built store) is left to keep
    the disk full, and the vault still opens and searches, from a store in memory."""
    root = small_disk / "vault"
    builder = VaultBuilder(root)
    words = " ".join(f"word{n}" for n in range(700))
    for n in range(150):
        builder.add(f"mem-note-n{n}", body=f"Note {n} about zebras. {words}\n")
    free = os.statvfs(small_disk)
    assert free.f_bavail * free.f_frsize < 900_000  # less than the documents' text: the store cannot fit
    vault = Vault.open(root)
    assert len(vault) == 150
    assert len(vault.search("zebras", limit=500)) == 150
    state = sorted(p.name for p in (root / ".workbench").iterdir())
    assert not [name for name in state if name.startswith("index.sqlite")], state
