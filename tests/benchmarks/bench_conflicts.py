"""Does the conflicts queue find what a person would? And does the write gate offer it?

Run: python -m tests.benchmarks.bench_conflicts [COLLECTION ...] [--misses]
(default: every ADR collection under the public corpora: `adr-collection/*` and `adr-ai-agents`)

Real decision records say when one replaces another. Each collection is copied, migrated to Memory
Core, and then stripped of every statement of supersession: the `supersedes` / `superseded_by`
fields and links, `superseded` statuses (made active), and the body lines that say supersedes,
superseded by, replaced by or deprecated in favour of. What is left is two active decisions on one
subject, as two agents writing weeks apart would leave them. The truth is what the files stated
before stripping: each (older, newer) pair of decisions that then stands as two active decisions
(one the collection also calls deprecated, proposed or rejected is no contradiction to find).

Printed per collection and pooled:
- the queue: recall (true pairs listed as contradictions), precision (listed pairs that are true),
  precision of the top 10 (the queue is ranked, most likely first), and whether the suggested
  direction (newer supersedes older) is right for the pairs found;
- the gate: for each pair, the newer decision removed and written again through the gate (its
  title, body and links); the share of pairs whose older decision is among the top three offered,
  with supersede suggested.

The corpora are found under $WORKBENCH_CORPORA (default: `shared/corpora` next to the
repository); a missing one is skipped with a message. Nothing is keyed to a collection: the same
figures are measured on collections that are not here.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from workbench import Vault
from workbench.core.gate import Draft
from workbench.core.migrate import migrate
from workbench.core.model import DocType, LinkType, Status
from workbench.core.parse import parse_bytes
from workbench.core.yamledit import apply_meta

CORPORA = Path(os.environ.get("WORKBENCH_CORPORA", Path(__file__).resolve().parents[3] / "shared" / "corpora"))
SUPERSESSION_LINE = re.compile(r"supersed|replaced by|replaced with|deprecated in favou?r of", re.IGNORECASE)


@dataclass
class Figures:
    name: str
    truth: set[tuple[str, str]] = field(default_factory=set)  # (older, newer)
    listed: list[tuple[str, str]] = field(default_factory=list)  # as the queue ranks them: (supersedes from, to)
    gate_hits: int = 0
    misses: list[str] = field(default_factory=list)

    @property
    def found(self) -> set[frozenset[str]]:
        return {frozenset(pair) for pair in self.listed} & {frozenset(pair) for pair in self.truth}

    @property
    def recall(self) -> float:
        return len(self.found) / len(self.truth) if self.truth else 0.0

    @property
    def precision(self) -> float:
        return len(self.found) / len(self.listed) if self.listed else 0.0

    @property
    def top10(self) -> float:
        top = self.listed[:10]
        return sum(1 for pair in top if frozenset(pair) in self.found) / len(top) if top else 0.0

    @property
    def directed(self) -> int:
        """Pairs found whose suggested direction is right: the older superseded by the newer."""
        return sum(1 for pair in self.listed if pair in self.truth)

    @property
    def gate(self) -> float:
        return self.gate_hits / len(self.truth) if self.truth else 0.0


def collections(names: list[str]) -> list[Path]:
    found = sorted(p for p in (CORPORA / "adr-collection").glob("*") if p.is_dir()) + [CORPORA / "adr-ai-agents"]
    if names:
        found = [p for p in found if p.name in names]
    return [p for p in found if p.is_dir()]


def migrated(source: Path, scratch: Path) -> Path:
    copy = scratch / "source"
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("SOURCE.md", "LICENSE*", ".workbench"))
    out = scratch / "memory"
    migrate(Vault.open(copy), out)
    return out


def truth_of(vault: Vault) -> set[tuple[str, str]]:
    decisions = {d.id for d in vault.documents if d.type == DocType.DECISION}
    pairs = set()
    for doc in vault.documents:
        pairs |= {(old, doc.id) for old in doc.supersedes}
        pairs |= {(doc.id, new) for new in doc.superseded_by}
    return {(old, new) for old, new in pairs if old in decisions and new in decisions and old != new}


def strip(root: Path) -> None:
    """Remove every statement of supersession from the files, leaving the rest as it was."""
    for path in sorted(root.rglob("*.md")):
        parsed = parse_bytes(path.read_bytes())
        if parsed.meta is None:
            continue
        meta = dict(parsed.meta)
        if meta.get("supersedes"):
            meta["supersedes"] = []
        if meta.get("superseded_by"):
            meta["superseded_by"] = []
        if meta.get("status") == Status.SUPERSEDED:
            meta["status"] = Status.ACTIVE.value
        if isinstance(meta.get("links"), list):
            meta["links"] = [l for l in meta["links"] if not (isinstance(l, dict) and l.get("type") == LinkType.SUPERSEDES)]
        body = "".join(line for line in parsed.body.splitlines(keepends=True) if not SUPERSESSION_LINE.search(line))
        lines = apply_meta(parsed.fm_lines, parsed.meta, meta, parsed.newline)
        path.write_bytes(parsed.compose(lines, body))


def measure(source: Path, scratch: Path) -> Figures:
    root = migrated(source, scratch)
    stated = truth_of(Vault.open(root))
    strip(root)
    vault = Vault.open(root)
    active = {d.id for d in vault.documents if d.status == Status.ACTIVE}
    figures = Figures(source.name, {(older, newer) for older, newer in stated if older in active and newer in active})
    for conflict in vault.conflicts():
        if conflict.kind == "contradiction":
            older, newer = conflict.ids  # the queue names the older first, the one it suggests is replaced
            figures.listed.append((older, newer))
    by_id = {d.id: d for d in vault.documents}
    for older, newer in sorted(figures.truth):
        doc = by_id[newer]
        others = [d for d in vault.documents if d.id != newer]
        links = [(l.type, l.target) for l in doc.links if l.type != LinkType.SUPERSEDES and l.target in by_id and l.target != newer]
        offered = vault_gate(others, Draft(DocType.DECISION.value, doc.title, list(doc.tags), links, doc.body))
        top = [c.id for c in offered if c.action == "supersede"]
        if older in top:
            figures.gate_hits += 1
        else:
            figures.misses.append(f"gate: {by_id[newer].title!r} did not offer {by_id[older].title!r}; offered {[c.title for c in offered]}")
    found = figures.found
    for older, newer in sorted(figures.truth):
        if frozenset((older, newer)) not in found:
            figures.misses.append(f"queue: {by_id[older].title!r} then {by_id[newer].title!r}")
    return figures


def vault_gate(documents, draft: Draft):
    from workbench.core.gate import candidates

    return candidates(documents, draft, 3)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="collections to measure (default: all)")
    parser.add_argument("--misses", action="store_true", help="list the pairs the queue or the gate missed")
    args = parser.parse_args(argv)
    chosen = collections(args.names)
    if not chosen:
        print(f"no ADR collection under {CORPORA}; nothing measured")
        return 0
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for number, source in enumerate(chosen):
            folder = Path(scratch) / str(number)
            folder.mkdir()
            rows.append(measure(source, folder))
    print(f"{'collection':<40} {'pairs':>5} {'listed':>6} {'recall':>6} {'prec':>5} {'p@10':>5} {'dir':>5} {'gate@3':>6}")
    for row in rows:
        print(f"{row.name:<40} {len(row.truth):>5} {len(row.listed):>6} {row.recall:>6.2f} {row.precision:>5.2f} {row.top10:>5.2f} "
              f"{row.directed:>2}/{len(row.found):<2} {row.gate:>6.2f}")
    truth = sum(len(r.truth) for r in rows)
    found = sum(len(r.found) for r in rows)
    listed = sum(len(r.listed) for r in rows)
    top = [pair in r.found for r in rows for pair in [frozenset(p) for p in r.listed[:10]]]
    print(f"{'pooled':<40} {truth:>5} {listed:>6} {found / truth if truth else 0:>6.2f} {found / listed if listed else 0:>5.2f} "
          f"{sum(top) / len(top) if top else 0:>5.2f} {sum(r.directed for r in rows):>2}/{found:<2} "
          f"{sum(r.gate_hits for r in rows) / truth if truth else 0:>6.2f}")
    if args.misses:
        for row in rows:
            for miss in row.misses:
                print(f"  {row.name}: {miss}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
