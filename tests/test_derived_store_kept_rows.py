"""The derived store's kept rows: reading, writing and forgetting a few of many big rows reads
about those rows' bytes, not the rows beside them (counted as the bytes the process reads from its
files, `/proc/self/io`); a store of the older form is made anew, its kept results worked out again."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from workbench.core.records.derived_store import DerivedStore

IO = Path("/proc/self/io")
pytestmark = pytest.mark.skipif(not IO.exists(), reason="counts the bytes read in /proc/self/io (Linux)")

ROW = 60_000  # bytes of a row: the size of a block of the conflicts queue at 10,000 decision records
ROWS = 400


def _read_bytes() -> int:
    return int(next(line for line in IO.read_text().splitlines() if line.startswith("rchar:")).split()[1])


def _store_of_big_rows(path: Path) -> list[str]:
    store = DerivedStore(path)
    rows = {f"{n:024x}": os.urandom(ROW) for n in range(ROWS)}
    store.keep_rows("big", rows)
    store.close()
    return sorted(rows)


def _read_by(act) -> int:
    before = _read_bytes()
    act()
    return _read_bytes() - before


def test_a_few_big_rows_read_about_their_own_bytes(tmp_path):
    keys = _store_of_big_rows(tmp_path / "index.sqlite")
    store = DerivedStore(tmp_path / "index.sqlite")  # a connection whose page cache holds none of them
    wanted = keys[::80]  # 5 rows
    found: dict[str, bytes] = {}
    read = _read_by(lambda: found.update(store.kept_rows("big", wanted)))
    assert sorted(found) == wanted and all(len(value) == ROW for value in found.values())
    # The older form (WITHOUT ROWID) read the whole of every row a seek compared its key with:
    # some 3.5 MB here for 0.3 MB asked.
    assert read < 2 * len(wanted) * ROW + 200_000, read
    store.close()


def test_forgetting_and_keeping_a_few_rows_reads_little_beside_them(tmp_path):
    keys = _store_of_big_rows(tmp_path / "index.sqlite")
    store = DerivedStore(tmp_path / "index.sqlite")
    gone = keys[1::80]
    made = {f"{n:024x}": os.urandom(ROW) for n in range(ROWS, ROWS + 5)}
    read = _read_by(lambda: store.keep_with_rows("big", "record", b"names the rows", made, forget=gone))
    # Forgetting a row reads its overflow pages (to free them), no others' rows.
    assert read < 2 * len(gone) * ROW + 300_000, read
    assert sorted(store.kept_rows("big", keys + list(made))) == sorted(set(keys) - set(gone) | set(made))
    assert store.kept("big", "record") == b"names the rows"
    store.close()


def test_a_store_of_the_older_kept_rows_forgets_its_kept_results_and_keeps_its_records(tmp_path):
    path = tmp_path / "index.sqlite"
    store = DerivedStore(path)
    store.keep("answer", "key", "an answer worked out from the rows")
    store.close()
    db = sqlite3.connect(path)
    db.execute("DROP TABLE kept_rows")
    db.execute("CREATE TABLE kept_rows (name TEXT, key TEXT, value BLOB, PRIMARY KEY (name, key)) WITHOUT ROWID")
    db.execute("INSERT INTO kept_rows VALUES ('big', 'k', x'00')")
    db.commit()
    db.close()
    store = DerivedStore(path)
    sql = store.db.execute("SELECT sql FROM sqlite_master WHERE name = 'kept_rows'").fetchone()[0]
    assert "WITHOUT ROWID" not in sql.upper()
    assert store.kept("answer", "key") is None  # worked out again, never read from rows gone
    assert store.kept_rows("big", ["k"]) == {}
    store.keep_rows("big", {"k": b"\x01"})
    assert store.kept_rows("big", ["k"]) == {"k": b"\x01"}
    store.close()


class _Racing(sqlite3.Connection):
    """A connection another process overtakes: right after it first looks for the kept rows'
    table, `overtake` (the other's open) runs to its end."""

    overtake = None

    def execute(self, sql, *args):
        found = super().execute(sql, *args)
        if "sqlite_master" in sql and _Racing.overtake is not None:
            overtake, _Racing.overtake = _Racing.overtake, None
            overtake()
        return found


def test_two_processes_making_the_older_kept_rows_anew_together_lose_neither_the_table_nor_its_rows(tmp_path):
    from workbench.core.records import derived_store

    path = tmp_path / "index.sqlite"
    DerivedStore(path).close()
    db = sqlite3.connect(path)
    db.execute("DROP TABLE kept_rows")
    db.execute("CREATE TABLE kept_rows (name TEXT, key TEXT, value BLOB, PRIMARY KEY (name, key)) WITHOUT ROWID")
    db.commit()
    db.close()
    other: list[DerivedStore] = []

    def the_other_opens_and_keeps_a_row() -> None:
        store = DerivedStore(path)
        store.keep_rows("big", {"k": b"\x01"})
        other.append(store)

    _Racing.overtake = the_other_opens_and_keeps_a_row
    late = sqlite3.connect(path, isolation_level=None, factory=_Racing)
    derived_store._kept_rows_as_now(late)
    late.close()
    assert other, "the other process never ran"
    other[0].close()
    store = DerivedStore(path)
    sql = store.db.execute("SELECT sql FROM sqlite_master WHERE name = 'kept_rows'").fetchone()[0]
    assert "WITHOUT ROWID" not in sql.upper()
    assert store.kept_rows("big", ["k"]) == {"k": b"\x01"}  # the other's row, not dropped with its table
    store.close()
