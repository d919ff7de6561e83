"""What a change costs, and whether an agent writing beside it loses anything.

Run: python -m tests.benchmarks.bench_write [--changes N] [--appends M]
(default: 200 changes of each kind, 600 appends; --appends 0 times the changes only)

On a scratch copy of the bundled sample vault, one process times N changes of two kinds, each in
full (`Vault.save` and `Vault.rename` as a script calls them: plan, lock, journal, write, check,
log, history): a one-file save of a body, and a rename that moves a document and rewrites the
documents that mention it (three to five files). Printed: p50 and p95 per change, in ms.

Then, in a vault of two documents (where changes are quickest, so most of them race the agent), an
agent in a process of its own appends M numbered lines to one document with plain file I/O, in
bursts (0 to 8 ms apart), while this process saves that document and renames the document it
links to (a three-file change), as fast as it can, retrying on ConflictError. Printed: appends
made, appends missing from the file afterwards (lost), changes made, changes refused. Run against
older code (another checkout on PYTHONPATH) to compare. A benchmark, not a test: machines are noisy.
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.helpers import APPENDING_AGENT, SAMPLE
from workbench import Vault
from workbench.core.vocabulary.model import WorkbenchError

TARGET = "mem-note-stripe-test-clocks"  # a note that links to the entity renamed below
RENAMED = ("mem-entity-stripe", "mem-entity-stripe-api")


def scratch() -> Path:
    root = Path(tempfile.mkdtemp(prefix="bench-write-")) / "vault"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".workbench"))
    return root


def percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"p50 {statistics.median(ordered) * 1000:6.2f} ms   p95 {p95 * 1000:6.2f} ms"


def timed_changes(count: int) -> None:
    root = scratch()
    vault = Vault.open(root)
    saves, renames = [], []
    names = list(RENAMED)
    for number in range(count):
        doc = vault.get(TARGET)
        started = time.perf_counter()
        vault.save(dataclasses.replace(doc, body=doc.body + f"line {number}\n"))
        saves.append(time.perf_counter() - started)
        started = time.perf_counter()
        plan = vault.rename(names[0], names[1])
        renames.append(time.perf_counter() - started)
        names.reverse()
    print(f"save (1 file)              {percentiles(saves)}   over {count}")
    print(f"rename ({len(plan.paths)} files)           {percentiles(renames)}   over {count}")
    shutil.rmtree(root.parent)


def two_documents() -> Path:
    root = Path(tempfile.mkdtemp(prefix="bench-write-")) / "vault"
    for folder, doc_id, links in (
        ("entities", "mem-entity-hub", "[]"),
        ("notes", "mem-note-target", "[{type: related_to, target: mem-entity-hub}]"),
    ):
        (root / folder).mkdir(parents=True)
        (root / folder / f"{doc_id}.md").write_text(
            f"---\nschema_version: v1\nid: {doc_id}\ntype: {doc_id.split('-')[1]}\ntitle: {doc_id}\nstatus: active\n"
            f"created_at: 2026-04-21\nupdated_at: 2026-04-21\nproject: demo\ntags: [core]\nlinks: {links}\n"
            "supersedes: []\nsuperseded_by: []\nprovenance:\n  source: manual\n  confidence: high\n---\nStart.\n"
        )
    return root


def racing_agent(appends: int) -> None:
    root = two_documents()
    vault = Vault.open(root)
    target, names = "mem-note-target", ["mem-entity-hub", "mem-entity-hub-two"]
    path = root / vault.get(target).path
    agent = subprocess.Popen(
        [sys.executable, "-c", APPENDING_AGENT, str(path), str(appends)], stdout=subprocess.PIPE, text=True
    )
    assert agent.stdout is not None and agent.stdout.readline().strip() == "ready"
    made = refused = 0
    number = 0
    while agent.poll() is None:
        number += 1
        try:
            if number % 2:
                doc = vault.get(target)
                vault.save(dataclasses.replace(doc, body=doc.body + f"ours-{number}\n"))
            else:
                vault.rename(names[0], names[1])
                names.reverse()
            made += 1
        except WorkbenchError:  # ConflictError; older code could also fail to read back what it wrote
            refused += 1
    agent.wait()
    text = path.read_text("utf-8")
    lost = sum(1 for n in range(appends) if text.count(f"agent-{n}\n") != 1)
    print(f"racing agent: {appends} appends, {lost} lost; {made} changes made, {refused} refused")
    shutil.rmtree(root.parent)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=200)
    parser.add_argument("--appends", type=int, default=600)
    args = parser.parse_args()
    timed_changes(args.changes)
    if args.appends:
        racing_agent(args.appends)


if __name__ == "__main__":
    main()
