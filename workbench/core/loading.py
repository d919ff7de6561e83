"""Reading many files at once: on a cold open, parsing and checking run in worker processes.

Parsing YAML and checking the rules is pure CPU, and a vault of thousands of files is opened
cold whenever `.workbench/` is new or deleted. Worker processes (started by a fork server, so a
threaded TUI is never forked) parse chunks of files and hand back finished records and the rows
for the derived store; the parent stores each chunk while the workers parse the next. Small batches,
one-core machines and any trouble with the pool fall back to parsing in this process.
"""

from __future__ import annotations

import datetime as dt
import multiprocessing
import os
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from .cache import row_for
from .records import Record, build_record, read_document

__all__ = ["parse_files", "PARALLEL_MIN"]

PARALLEL_MIN = 400
CHUNK = 250
Item = tuple[str, int, int]  # path, size, mtime_ns


def _parse_chunk(root: str, items: list[Item], on: dt.date, with_rows: bool) -> list[tuple[Record, tuple | None]]:
    out = []
    for path, size, mtime_ns in items:
        raw = read_document(Path(root) / path)
        if raw is None:
            continue
        record = build_record(path, raw, size, mtime_ns, on)
        out.append((record, row_for(record, on) if with_rows else None))
    return out


def _workers() -> int:
    try:
        return min(len(os.sched_getaffinity(0)), 4)
    except AttributeError:  # pragma: no cover - not Linux
        return min(os.cpu_count() or 1, 4)


def _main_is_importable() -> bool:
    """Worker processes re-import `__main__`; a REPL or a script piped on stdin has none to import."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    return path is None and getattr(main, "__spec__", None) is not None or (path is not None and os.path.isfile(path))


def parse_files(root: Path, items: list[Item], on: dt.date, with_rows: bool) -> Iterator[list[tuple[Record, tuple | None]]]:
    """Chunks of (record, store row) for the files in `items`, as they are ready."""
    workers = _workers()
    if len(items) < PARALLEL_MIN or workers < 2 or os.environ.get("WORKBENCH_SERIAL") or not _main_is_importable():
        yield _parse_chunk(str(root), items, on, with_rows)
        return
    chunks = [items[i : i + CHUNK] for i in range(0, len(items), CHUNK)]
    done = 0
    try:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["workbench.core.loading"])
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            futures = [pool.submit(_parse_chunk, str(root), chunk, on, with_rows) for chunk in chunks]
            for future in futures:
                yield future.result()
                done += 1
    except (OSError, RuntimeError, ImportError, EOFError) as exc:  # no process pool here: do it ourselves
        if isinstance(exc, GeneratorExit):
            raise
        for chunk in chunks[done:]:
            yield _parse_chunk(str(root), chunk, on, with_rows)
