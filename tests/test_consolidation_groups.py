"""Consolidation's proposals (`consolidation_groups`) against the plain reading of SPEC §1."""

from __future__ import annotations

import random

import pytest
from vault_builders import doc_text

from workbench import Vault
from workbench.core.services.consolidate import LIVE, Group, consolidation_groups
from workbench.core.services.gate import CANONICAL_TYPES
from workbench.core.vocabulary.model import DocType

TAGS = ["core", "build", "pdf", "fonts", "ci", "db"]
STATUSES = ["draft", "active", "active", "deprecated", "archived"]


def plain_groups(documents, minimum: int = 3) -> list[Group]:
    """The proposals as the rule reads: 3+ live notes sharing a tag or linking one live canonical
    document; a tag group suggests the canonical document most of its notes link to (the last
    id on a tie), else the first canonical document carrying the tag, and is left out when a link
    group holds the same notes. Every question asked of every document, as plainly as it reads."""
    documents = list(documents)
    notes = [d for d in documents if d.type == DocType.NOTE and d.status in LIVE]
    canonical = [d for d in documents if d.type in CANONICAL_TYPES and d.status in LIVE]
    canonical_ids = {d.id for d in canonical}
    groups: list[Group] = []
    targets = sorted({l.target for n in notes for l in n.links if l.target in canonical_ids})
    for target in targets:
        ids = [n.id for n in notes if any(l.target == target for l in n.links)]
        if len(ids) >= minimum:
            groups.append(Group("link", target, sorted(ids), target))
    for tag in sorted({t for n in notes for t in n.tags}):
        ids = [n.id for n in notes for t in n.tags if t == tag]
        if len(ids) < minimum:
            continue
        counts = {
            t: sum(1 for i in ids if i in {n.id for n in notes if any(l.target == t for l in n.links)}) for t in targets
        }
        best = max(counts, key=lambda t: (counts[t], t)) if counts and max(counts.values()) else None
        if best is None:
            tagged = sorted(d.id for d in canonical if tag in d.tags)
            best = tagged[0] if tagged else None
        if not any(g.reason == "link" and set(g.notes) == set(ids) for g in groups):
            groups.append(Group("tag", tag, sorted(ids), best))
    groups.sort(key=lambda g: (-len(g.notes), g.reason, g.key))
    return groups


def random_vault(root, rng: random.Random) -> None:
    canonical = [f"mem-{kind}-{n}" for kind in ("entity", "context", "decision") for n in range(4)]
    notes = [f"mem-note-{n}" for n in range(30)]
    for doc_id in canonical + notes:
        tags = rng.sample(TAGS, rng.randint(0, 3))
        links = [t for t in canonical if t != doc_id and rng.random() < (0.35 if doc_id in notes else 0.1)]
        text = doc_text(
            doc_id,
            status=rng.choice(STATUSES),
            tags="[" + ", ".join(tags) + "]",
            links="[" + ", ".join(f"{{type: related_to, target: {t}}}" for t in links) + "]",
        )
        folder = "notes" if doc_id in notes else "entities"
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / f"{doc_id}.md").write_text(text)
    # Two files claiming one note's id: a duplicate, whose links count for the id it claims.
    (root / "notes" / "mem-note-0-copy.md").write_text(
        doc_text("mem-note-0", tags="[core, pdf]", links="[{type: related_to, target: mem-entity-0}]")
    )


@pytest.mark.parametrize("seed", range(12))
def test_the_groups_are_the_plain_rules(tmp_path, seed):
    random_vault(tmp_path, random.Random(seed))
    documents = list(Vault.open(tmp_path).documents)
    expected = plain_groups(documents)
    assert expected, "the draw proposes nothing: the comparison would prove little"
    assert consolidation_groups(documents) == expected
    assert consolidation_groups(documents, minimum=5) == plain_groups(documents, minimum=5)
