"""The derived store keeps its full-text index in step with its rows: a rewritten or removed file's
old words are gone from the index, whether it holds one row or thousands, and a first open that
ended early leaves merging turned back on."""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
import subprocess
import sys
import threading

import pytest
from vault_builders import VaultBuilder

from workbench import Vault

from workbench.core.records.derived_store import FTS_AUTOMERGE, DerivedStore, folder_identity, row_for
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


# -- a first open's full-text index, built behind its rows ------------------------------------------

BUILT_FROM = 40  # rows from which a test open builds its index behind them (2,000 in use)


def notes(builder: VaultBuilder, count: int) -> None:
    for n in range(count):
        builder.add(f"mem-note-n{n}", body=f"Note {n} is about zebra{n} and the shared herd.\n")


def integrity(path, check: bool = True) -> tuple[int, int, int]:
    """(rows not indexed yet, rows in the index, rows of text) read from the file itself; with
    `check`, FTS5's integrity check raises if the index disagrees with its text (as it does while
    rows are not indexed yet)."""
    db = sqlite3.connect(path)
    try:
        if check:
            db.execute("INSERT INTO fts (fts, rank) VALUES ('integrity-check', 1)")
        pending = db.execute("SELECT count(*) FROM pending").fetchone()[0]
        indexed = db.execute("SELECT count(*) FROM fts_docsize").fetchone()[0]
        texts = db.execute("SELECT count(*) FROM texts").fetchone()[0]
        return pending, indexed, texts
    finally:
        db.close()


def test_a_first_open_builds_its_index_behind_the_rows_and_answers_as_a_plain_build(builder, monkeypatch):
    """Built behind the rows (from `STORE_BATCH_MIN` files) or with them (below), the index
    answers every search alike, and is whole once the open's search has been answered."""
    from workbench.core.records import loading

    notes(builder, 130)
    plain = Vault.open(builder.root)
    expected = {n: [hit.id for hit in plain.search(f"zebra{n}", 5)] for n in (0, 64, 129)}
    herd = sorted(hit.id for hit in plain.search("herd", 500))
    plain.index.store.close()
    for leftover in (builder.root / ".workbench").glob("index.sqlite*"):
        leftover.unlink()
    monkeypatch.setattr(loading, "STORE_BATCH_MIN", BUILT_FROM)
    vault = Vault.open(builder.root)
    assert len(vault) == 130
    assert {n: [hit.id for hit in vault.search(f"zebra{n}", 5)] for n in expected} == expected
    assert expected[129] == ["mem-note-n129"]
    assert sorted(hit.id for hit in vault.search("herd", 500)) == herd and len(herd) == 130
    assert not vault.index.store.indexing
    assert integrity(builder.root / ".workbench" / "index.sqlite") == (0, 130, 130)


def built_behind(builder: VaultBuilder, monkeypatch, hash_size: int) -> DerivedStore:
    """The store of a first open of `builder`'s vault that built its index behind the rows, in
    steps of 150 rows, FTS5 gathering `hash_size` bytes of postings before writing a segment."""
    from workbench.core.records import derived_store, loading

    for leftover in (builder.root / ".workbench").glob("index.sqlite*"):
        leftover.unlink()
    monkeypatch.setattr(loading, "STORE_BATCH_MIN", BUILT_FROM)
    monkeypatch.setattr(derived_store, "PENDING_STEP", 150)
    monkeypatch.setattr(derived_store, "FTS_HASH_SIZE", hash_size)
    vault = Vault.open(builder.root)
    assert len(vault) == 600
    return vault.index.store


def test_a_first_opens_index_gathers_each_steps_postings_whole_and_answers_alike(builder, monkeypatch):
    """A first open's build has FTS5 gather a step's postings in memory (`FTS_HASH_SIZE`), where
    its own 1 MB wrote many small segments and merged them again; the store keeps the setting for
    later builds. Built with a hash so small that nearly every row makes a segment of its own,
    the index answers the same: the same rows, scores, counts and snippets."""
    import random

    from workbench.core.records.derived_store import FTS_HASH_SIZE

    rng = random.Random(42)
    words = [f"w{n}" for n in range(300)] + ["herd", "zebra", "running", "runs", "café", "cafe"]
    for n in range(600):
        body = " ".join(rng.choice(words) for _ in range(rng.randint(5, 120)))
        builder.add(f"mem-note-n{n}", body=f"{body}{' and the shared herd' if n % 3 else ''}.\n")
    queries = ['"herd"', "zebra OR w7", '"shared herd"', "run*", "cafe", "w10 NOT w11", "body : w3", "w29*"]
    weights = (10.0, 5.0, 3.0, 2.0, 1.0)

    def answers(store: DerivedStore) -> list:
        found = []
        for query in queries:
            matched = store.match(query, weights, 50)
            found.append((matched, store.count(query), store.snippets(query, [path for path, _ in matched[:5]])))
        return found

    store = built_behind(builder, monkeypatch, FTS_HASH_SIZE)
    assert store.db.execute("SELECT v FROM fts_config WHERE k = 'hashsize'").fetchone() == (FTS_HASH_SIZE,)
    gathered = answers(store)
    store.close()
    assert integrity(builder.root / ".workbench" / "index.sqlite") == (0, 600, 600)
    store = built_behind(builder, monkeypatch, 512)
    small = answers(store)
    store.close()
    assert gathered == small
    assert all(matched for matched, _, _ in gathered) and any(len(matched) == 50 for matched, _, _ in gathered)


def test_rows_given_while_a_step_is_indexed_are_held_and_stored_with_the_next(tmp_path, monkeypatch):
    """While the build's thread indexes a step, rows given to `save` are held, not waited for (the
    open goes on taking the workers' chunks); they are stored with the next rows, or when the
    build ends, and every row is indexed once."""
    from workbench.core.records import derived_store

    monkeypatch.setattr(derived_store, "PENDING_STEP", 50)
    entered, gate = threading.Event(), threading.Event()
    index = derived_store._index_pending

    def held(db, most):
        entered.set()
        gate.wait()
        return index(db, most)

    monkeypatch.setattr(derived_store, "_index_pending", held)
    path = tmp_path / "index.sqlite"
    store = DerivedStore(path)
    rows = [row_for(record(f"notes/n{i}.md", f"herd word{i}"), TODAY) for i in range(300)]
    try:
        with store.building(300) as save:
            save(rows[:100])
            assert entered.wait(10)  # a step under way, holding the connection
            giving = threading.Thread(target=lambda: (save(rows[100:200]), save(rows[200:250])))
            giving.start()
            giving.join(10)
            assert not giving.is_alive()  # returned at once, the step still under way
            assert len(store._build.held) == 150
            assert integrity(path, check=False) == (100, 0, 100)  # only the first rows are stored yet
            gate.set()
            save(rows[250:])
    finally:
        gate.set()
    assert len(paths_matching(store, "herd")) == 300
    assert paths_matching(store, "word249") == {"notes/n249.md"}
    store.close()
    assert integrity(path) == (0, 300, 300)


def held_index_build(builder: VaultBuilder, monkeypatch) -> threading.Event:
    """130 notes whose first open builds its index behind the rows, held back until the event
    returned is set."""
    from workbench.core.records import derived_store, loading

    notes(builder, 130)
    monkeypatch.setattr(loading, "STORE_BATCH_MIN", BUILT_FROM)
    gate = threading.Event()
    run = derived_store._IndexBuild._run

    def held(self):
        gate.wait()
        run(self)

    monkeypatch.setattr(derived_store._IndexBuild, "_run", held)
    return gate


def test_a_search_asked_while_the_index_is_built_waits_for_the_whole_index(builder, monkeypatch):
    """The open returns with every record while the index is still built; a search asked then
    waits for it, and is answered from the whole index: never from part of it."""
    gate = held_index_build(builder, monkeypatch)
    vault = Vault.open(builder.root)
    try:
        assert len(vault) == 130 and vault.index.store.indexing  # the records are here, the index is not
        answers: list[list[str]] = []
        asking = threading.Thread(target=lambda: answers.append([h.id for h in vault.search("zebra129", 5)]))
        asking.start()
        asking.join(0.5)
        assert asking.is_alive() and not answers  # waiting, not answering from what is indexed so far
    finally:
        gate.set()
    asking.join()
    assert answers == [["mem-note-n129"]]
    assert len(vault.search("herd", 500)) == 130


KILLED_BUILD = """
import sys, time
from workbench.core.records import derived_store, loading
from workbench import Vault

loading.STORE_BATCH_MIN = 40
derived_store.PENDING_STEP = 30
index = derived_store._index_pending
steps = []

def step(db, most):
    steps.append(most)
    if len(steps) == 3:  # two steps committed, the third under way: killed here
        print("indexing", flush=True)
        time.sleep(120)
    return index(db, most)

derived_store._index_pending = step
Vault.open(sys.argv[1])
"""


def test_a_process_killed_while_its_index_is_built_leaves_a_store_the_next_open_completes(builder):
    """A real process, killed (SIGKILL) in the middle of building a first open's index: the file
    it leaves says which rows are not indexed yet, and the next open indexes them before it
    answers anything: every note found, FTS5's own check passing."""
    notes(builder, 130)
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_BUILD, str(builder.root)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "indexing"
    finally:
        child.kill()
        child.wait()
    store = builder.root / ".workbench" / "index.sqlite"
    pending, indexed, texts = integrity(store, check=False)
    assert pending and 0 < indexed < texts and pending == texts - indexed  # left half built, and saying so
    vault = Vault.open(builder.root)
    assert len(vault) == 130
    assert all([hit.id for hit in vault.search(f"zebra{n}", 5)] == [f"mem-note-n{n}"] for n in range(130))
    vault.index.store.close()
    assert integrity(store) == (0, texts, texts)


def test_rows_another_process_has_not_indexed_yet_are_indexed_by_whoever_asks_first(builder, monkeypatch):
    """A first open's rows, stored and not yet indexed (its indexing held back), seen through a
    second connection as another process sees them: a file stored again there is unlisted, not
    told to the index it never reached; a search there indexes the rest first and finds them; the
    first open's own indexing then finds nothing left, and no row is indexed twice."""
    gate = held_index_build(builder, monkeypatch)
    path = builder.root / ".workbench" / "index.sqlite"
    other = DerivedStore(path, "memory-core", folder_identity(builder.root))  # as another process has it open
    first = Vault.open(builder.root)
    assert other.schema == first.index.store.schema
    assert integrity(path, check=False) == (130, 0, 130)
    try:
        rewritten = build_record(
            "notes/mem-note-n5.md", b"---\nid: mem-note-n5\n---\nNote five, rewritten.\n", 40, 1, TODAY
        )
        other.save_rows([row_for(rewritten, TODAY)])
        assert [path for path, _ in other.match('"rewritten"', (1.0,) * 5, 5)] == ["notes/mem-note-n5.md"]
        assert {p for p, _ in other.match('"zebra129"', (1.0,) * 5, 5)} == {"notes/mem-note-n129.md"}
        assert integrity(path) == (0, 130, 130)
    finally:
        gate.set()
        other.close()
    assert [hit.id for hit in first.search("zebra64", 5)] == ["mem-note-n64"]
    first.index.store.close()
    assert integrity(path) == (0, 130, 130)
