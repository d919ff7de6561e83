"""Live reload under churn: how soon what a writer changes on disk reaches a long-lived Vault.

Run: python -m tests.benchmarks.bench_churn [--docs N] [--writes M] [--seconds S] [--seed K]
(default: 1000 documents, 300 writes over 3 seconds)

A generated vault (tests/benchmarks/generate.py) is opened once and watched (`vault.watch`, the
TUI's watcher); as the TUI does, what the open read is then frozen for the cycle collector. A
writer in a process of its own, as an agent is, then makes M changes, evenly spaced over S
seconds: it rewrites a document (its body and sometimes its status), adds a new one, or deletes
one; half the writes are made in place, half through a temporary file renamed over the target, as
agents do. Each write is announced to the benchmark before it is made.

Latency is measured through the watcher's `on_change` callback: after each batch the watcher
applied, every write still pending is compared with the vault (the record's digest against the
SHA-256 of the bytes written, or the record's absence for a delete). A write counts as seen at
the end of the first batch after which the vault holds exactly its bytes. A write overwritten
before any batch showed it is counted apart ("overtaken"): the vault went straight to the newer
version, which is right, but it has no latency of its own. Printed: writes done, latency
p50/p95/max, the batches the watcher made (files per batch, re-read time per batch), the time from
the watcher seeing a batch to its files being in the index, the graph and a search's answer (for
a changed document's title), the time the search box's standing query takes when asked again
after each batch (as the TUI does), how long after the last write the vault matched the disk,
and then whether the long-lived vault equals a fresh `Vault.open` of the folder (ids and digests)
and every file's bytes on disk.
A benchmark, not a test: machines are noisy; run it a few times.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import math
import multiprocessing
import os
import platform
import random
import re
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.benchmarks.generate import TYPES, generate_vault
from workbench import Vault

DIGEST_GONE = None  # what a delete should leave: no record for the path
STANDING_QUERY = "retry worker timeout"  # left in the search box while the writer works


@dataclass
class Write:
    path: str
    digest: str | None  # the bytes written, or DIGEST_GONE for a delete
    kind: str
    started: float
    seen: float | None = None
    overtaken: bool = False


@dataclass
class Tracker:
    """Writes not yet seen in the vault, by path, oldest first; filled by the writer, emptied by
    the watcher's callback."""

    vault: Vault
    lock: threading.Lock = field(default_factory=threading.Lock)
    pending: dict[str, list[Write]] = field(default_factory=dict)
    done: list[Write] = field(default_factory=list)
    batches: list[tuple[int, float]] = field(default_factory=list)  # (paths re-read, seconds)
    overhead: list[float] = field(default_factory=list)  # this callback's own time, taken from the watcher's thread
    followed: list[float] = field(default_factory=list)  # from the watcher's batch to the graph and a search answered
    graph_times: list[float] = field(default_factory=list)
    search_times: list[float] = field(default_factory=list)
    standing_times: list[float] = field(default_factory=list)  # the query left in the search box, asked again

    def expect(self, write: Write) -> None:
        with self.lock:
            self.pending.setdefault(write.path, []).append(write)

    def on_change(self, paths: list[str], seconds: float) -> None:
        now = time.perf_counter()
        self.batches.append((len(paths), seconds))
        self.resolve(now)
        title = next((doc.title for path in paths if (doc := self.vault.document_at(path)) is not None), "") or "note"
        measured = time.perf_counter()
        # What the TUI asks next: the graph as it is now, and a search for a changed document.
        self.vault.graph()
        searched = time.perf_counter()
        self.vault.search(title, 10)
        done = time.perf_counter()
        self.graph_times.append(searched - measured)
        self.search_times.append(done - searched)
        self.followed.append(seconds + done - measured)
        # And what the search pane does after every batch: ask its query again.
        self.vault.search(STANDING_QUERY, 10)
        self.standing_times.append(time.perf_counter() - done)
        self.overhead.append(measured - now)

    def resolve(self, now: float) -> None:
        with self.lock:
            for path in list(self.pending):
                writes = self.pending[path]
                doc = self.vault.document_at(path)
                state = doc.digest if doc is not None else DIGEST_GONE
                # The newest write whose result the vault now holds; every older one is settled with it.
                hit = next((i for i in range(len(writes) - 1, -1, -1) if writes[i].digest == state), None)
                if hit is None:
                    continue
                for index, write in enumerate(writes[: hit + 1]):
                    write.seen = now
                    write.overtaken = index < hit
                    self.done.append(write)
                del writes[: hit + 1]
                if not writes:
                    del self.pending[path]

    def unseen(self) -> int:
        with self.lock:
            return sum(len(w) for w in self.pending.values())


def percentile(values: list[float], share: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(share * (len(values) - 1)))] if values else float("nan")


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_file(path: Path, data: bytes, atomic: bool) -> None:
    if atomic:
        temporary = path.with_name(f".{path.name}.{threading.get_ident()}.tmp")
        temporary.write_bytes(data)
        os.replace(temporary, path)
    else:
        path.write_bytes(data)


def writer(root: Path, ids: list[str], announce, writes: int, seconds: float, seed: int) -> tuple[float, float]:
    """Make `writes` changes evenly over `seconds`; returns when it began and when the last write was made. Before
    each write, `announce(path, digest, kind)` tells the tracker what is coming and returns the
    function to call with the moment the write begins."""
    rng = random.Random(seed)
    live = list(ids)
    path_of = {doc_id: f"{TYPES[doc_id.split('-')[1]]}/{doc_id}.md" for doc_id in ids}
    interval = seconds / max(writes, 1)
    start = time.perf_counter()
    last = start
    for number in range(writes):
        delay = start + number * interval - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        kind = rng.choices(["rewrite", "add", "delete"], [6, 2.5, 1.5])[0]
        atomic = rng.random() < 0.5
        if kind == "rewrite" or (kind == "delete" and len(live) < 10):
            kind = "rewrite"
            doc_id = rng.choice(live)
            full = root / path_of[doc_id]
            data = full.read_bytes() + f"\nRevised by the churn writer, write {number}.\n".encode()
            if rng.random() < 0.3:
                data = re.sub(
                    rb"\nstatus: \w+\n",
                    b"\nstatus: " + rng.choice([b"active", b"deprecated", b"archived"]) + b"\n",
                    data,
                    count=1,
                )
            began = announce(path_of[doc_id], digest(data), kind)
            began(time.perf_counter())
            write_file(full, data, atomic)
        elif kind == "add":
            model = root / path_of[rng.choice(live)]
            old_id = model.stem
            doc_type = old_id.split("-")[1]
            doc_id = f"mem-{doc_type}-churn-added-{number}"
            data = model.read_bytes().replace(old_id.encode(), doc_id.encode())
            path_of[doc_id] = f"{TYPES[doc_type]}/{doc_id}.md"
            began = announce(path_of[doc_id], digest(data), kind)
            began(time.perf_counter())
            write_file(root / path_of[doc_id], data, atomic)
            live.append(doc_id)
        else:
            doc_id = live.pop(rng.randrange(len(live)))
            began = announce(path_of[doc_id], DIGEST_GONE, kind)
            began(time.perf_counter())
            (root / path_of[doc_id]).unlink()
        last = time.perf_counter()
    return start, last


def writer_process(connection, root: Path, ids: list[str], writes: int, seconds: float, seed: int) -> None:
    """The writer in a process of its own, as an agent is: each write is announced to the
    benchmark and made once it has been noted, so that the vault cannot show it before it is
    expected; the moment it began follows (perf_counter is the system's monotonic clock)."""

    def announce(path: str, data_digest: str | None, kind: str):
        connection.send(("expect", path, data_digest, kind))
        connection.recv()
        return lambda moment: connection.send(("began", moment))

    connection.send(("done", writer(root, ids, announce, writes, seconds, seed)))


def relay(connection, tracker: Tracker) -> tuple[float, float]:
    """The benchmark's side of `writer_process`: note each write announced; returns when the
    writer began and when it made its last write."""
    current: Write | None = None
    while True:
        message = connection.recv()
        if message[0] == "expect":
            _, path, data_digest, kind = message
            current = Write(path, data_digest, kind, math.nan)
            tracker.expect(current)
            connection.send("noted")
        elif message[0] == "began":
            assert current is not None
            current.started = message[1]
        else:
            return message[1]


def disk_digests(root: Path) -> dict[str, str]:
    out = {}
    for path in root.rglob("*.md"):
        relative = path.relative_to(root)
        if not any(part.startswith(".") for part in relative.parts) and relative.as_posix() not in (
            "log.md",
            "README.md",
        ):
            out[relative.as_posix()] = digest(path.read_bytes())
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks.bench_churn", description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=1000, help="documents in the generated vault (default 1000)")
    parser.add_argument("--writes", type=int, default=300, help="changes the writer makes (default 300)")
    parser.add_argument("--seconds", type=float, default=3.0, help="over how long (default 3)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--settle", type=float, default=60.0, help="how long to wait for the vault to catch up (default 60)"
    )
    args = parser.parse_args(argv)

    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    print(
        f"machine: {platform.machine()} {platform.system()} {platform.release()}, {os.cpu_count()} cpus ({cores} usable), "
        f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}"
    )
    print(
        "method: a long-lived Vault and its watcher; a writer process rewrites/adds/deletes (half in place, half by rename);"
    )
    print("        latency = from the write to the end of the first watcher batch after which the vault held its bytes")

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "vault"
        ids = generate_vault(root, args.docs)
        started = time.perf_counter()
        vault = Vault.open(root)
        vault.graph()  # as the TUI's first summary does
        vault.search("note", 10)
        vault.search(STANDING_QUERY, 10)
        gc.freeze()  # as the TUI does once a vault is read: the collector need never walk it again
        print(f"vault: {len(vault)} documents, opened cold in {time.perf_counter() - started:.2f} s")
        tracker = Tracker(vault)
        watcher = vault.watch(tracker.on_change)
        try:
            if not watcher.ready.wait(30):
                print("the watcher did not start", file=sys.stderr)
                return 2
            context = multiprocessing.get_context("spawn")
            ours, theirs = context.Pipe()
            process = context.Process(
                target=writer_process, args=(theirs, root, ids, args.writes, args.seconds, args.seed)
            )
            process.start()
            began, last_write = relay(ours, tracker)
            process.join()
            wrote_for = last_write - began
            deadline = time.perf_counter() + args.settle
            on_disk = disk_digests(root)
            caught_up = None
            while time.perf_counter() < deadline:
                if {r.path: r.document.digest for r in vault.records} == on_disk:
                    caught_up = time.perf_counter() - last_write
                    break
                time.sleep(0.02)
            tracker.resolve(time.perf_counter())  # what a sweep (not a batch) brought in
        finally:
            watcher.stop()

        kinds = {kind: sum(1 for w in tracker.done if w.kind == kind) for kind in ("rewrite", "add", "delete")}
        seen = [w for w in tracker.done if not w.overtaken]
        overtaken = [w for w in tracker.done if w.overtaken]
        latencies = [(w.seen - w.started) * 1000 for w in seen]
        print(
            f"writes: {args.writes} done in {wrote_for:.2f} s ({args.writes / max(wrote_for, 1e-9):.0f}/s): "
            f"{kinds['rewrite']} rewrites, {kinds['add']} adds, {kinds['delete']} deletes (as settled)"
        )
        print(
            f"latency: p50 {percentile(latencies, 0.5):.0f} ms, p95 {percentile(latencies, 0.95):.0f} ms, "
            f"max {max(latencies, default=float('nan')):.0f} ms over {len(latencies)} writes; "
            f"{len(overtaken)} overtaken by a newer write to the same file before a batch showed them; "
            f"{tracker.unseen()} never seen"
        )
        sizes = [n for n, _ in tracker.batches]
        reread = [s * 1000 for _, s in tracker.batches]
        if sizes:
            print(
                f"watcher: {len(sizes)} batches for {args.writes} writes, files per batch mean {statistics.mean(sizes):.1f} / max {max(sizes)}, "
                f"re-read per batch p50 {percentile(reread, 0.5):.1f} ms / max {max(reread):.1f} ms; "
                f"measuring cost {statistics.mean(tracker.overhead) * 1000:.1f} ms per batch"
            )
        if tracker.followed:
            followed = [s * 1000 for s in tracker.followed]
            print(
                f"from the watcher seeing a batch to its files in the index, the graph (`vault.graph()`) and a search: "
                f"p50 {percentile(followed, 0.5):.1f} ms, p95 {percentile(followed, 0.95):.1f} ms, max {max(followed):.1f} ms"
                f" (p95 of each: re-read {percentile(reread, 0.95):.1f} ms, graph {percentile([g * 1000 for g in tracker.graph_times], 0.95):.1f} ms,"
                f" search {percentile([q * 1000 for q in tracker.search_times], 0.95):.1f} ms)"
            )
            standing = [q * 1000 for q in tracker.standing_times]
            print(
                f"the search box's query ({STANDING_QUERY!r}) asked again after each batch: "
                f"p50 {percentile(standing, 0.5):.1f} ms, p95 {percentile(standing, 0.95):.1f} ms"
            )
        caught = (
            f"{caught_up * 1000:.0f} ms after the last write"
            if caught_up is not None
            else f"NOT within {args.settle:.0f} s"
        )
        print(f"caught up: {caught}")

        fresh = Vault.open(root)
        long_lived = {r.document.id: (r.path, r.document.digest) for r in vault.records}
        reopened = {r.document.id: (r.path, r.document.digest) for r in fresh.records}
        mismatched_ids = set(long_lived) ^ set(reopened)
        mismatched_digests = {i for i in set(long_lived) & set(reopened) if long_lived[i] != reopened[i]}
        on_disk = disk_digests(root)
        stale = {r.path for r in vault.records if on_disk.get(r.path) != r.document.digest} | (
            set(on_disk) - {r.path for r in vault.records}
        )
        mismatches = len(mismatched_ids) + len(mismatched_digests)
        print(
            f"fresh open: {len(fresh)} documents, ids {'equal' if not mismatched_ids else 'DIFFER'}, "
            f"digests {'equal' if not mismatched_digests else 'DIFFER'}; files whose bytes differ from the long-lived vault: {len(stale)}"
        )
        print(f"mismatches: {mismatches + len(stale)}")
        for doc_id in sorted(mismatched_ids | mismatched_digests)[:10]:
            print(f"  {doc_id}: long-lived {long_lived.get(doc_id)} / fresh {reopened.get(doc_id)}")
        return 0 if mismatches + len(stale) == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
