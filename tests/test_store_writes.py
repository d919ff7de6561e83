"""What the derived store writes for a kept value replaced: the new value's pages, not the old
value's again. A SQLite build whose default is to zero every page a deletion frees (Debian's)
wrote a replaced value of megabytes twice more (as zeros, in the write-ahead log and then in the
file): one `conflicts --json` after a change at 10,000 decision records wrote 154 MB for that."""

from __future__ import annotations

import os
from pathlib import Path

from workbench.core.records.derived_store import DerivedStore

BIG = 4 * 1024 * 1024  # a kept value of 4 MB: some 512 pages of 8 KB


def _wal_bytes(path: Path) -> int:
    wal = path.with_name(path.name + "-wal")
    return wal.stat().st_size if wal.exists() else 0


def _emptied_wal(store: DerivedStore) -> None:
    """The log copied into the file and cut to nothing, so that its size is what comes after."""
    busy, _, _ = store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    assert busy == 0


def test_a_replaced_kept_value_writes_none_of_its_old_pages_again(tmp_path):
    path = tmp_path / "index.sqlite"
    store = DerivedStore(path, "memory-core", "1:1")
    try:
        store.keep("queue", "first", os.urandom(BIG))
        store.keep_rows("weighed", {f"row{n}": os.urandom(BIG // 64) for n in range(64)})
        _emptied_wal(store)
        store.keep("queue", "second", b"small")  # the 4 MB value's pages freed
        store.keep_rows("weighed", {"other": b"small"}, replace=True)  # and the 64 rows' pages
        written = _wal_bytes(path)
        assert written < BIG // 8, f"{written} bytes in the write-ahead log for two small values"
        assert store.db.execute("SELECT value FROM kept WHERE name = 'queue'").fetchone() == (b"small",)
    finally:
        store.close()
