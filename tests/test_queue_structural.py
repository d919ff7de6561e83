"""The queue's structural faults read from the stored rows (`store_rows.relations_of`, the
documents that name no relation skipped) are those the documents' own fields give, one by one,
on a vault holding every kind of fault, on a generated one and on real decision records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import shaped_vault
from workbench import Vault
from workbench.core.records.store_rows import StoredDocument, read_fields, read_relations, relations_of
from workbench.core.services import conflicts
from workbench.core.services.conflicts import Conflict, Resolution, _related_by_supersession, _supersede
from workbench.core.views.successors import likeliest_successors
from workbench.core.vocabulary import supersession
from workbench.core.vocabulary.model import Document, LinkType, Status


def plainly(docs: dict, compatible: frozenset, supersedes: dict) -> list[Conflict]:
    """The structural faults as the documents' fields give them, each document in turn, none
    skipped: what the queue listed before it read the rows."""
    found: list[Conflict] = []
    superseded_by = {i: d.superseded_by for i, d in docs.items()}
    statuses = {i: str(d.status) for i, d in docs.items()}
    lacking = [i for i, s in statuses.items() if s == Status.SUPERSEDED and not superseded_by[i]]
    successors = likeliest_successors(docs.values(), lacking, dismissed=compatible) if lacking else {}
    replaced = any(s == Status.SUPERSEDED for s in statuses.values())
    repair = Resolution("repair", "complete both sides", "check --repair")
    for doc in docs.values():
        status, named = statuses[doc.id], superseded_by[doc.id]
        for old in supersedes[doc.id]:
            if old in docs and doc.id not in superseded_by[old]:
                reason = f"{doc.id} says it supersedes {old}, but {old} does not name it as successor"
                found.append(
                    Conflict("one-sided-supersession", [old, doc.id], reason, [_supersede(old, doc.id), repair])
                )
        for new in named:
            if new in docs and doc.id not in supersedes[new]:
                reason = f"{doc.id} names {new} as successor, but {new} does not say it supersedes it"
                found.append(
                    Conflict("one-sided-supersession", [doc.id, new], reason, [_supersede(doc.id, new), repair])
                )
        if status == Status.SUPERSEDED and not named:
            likeliest = successors.get(doc.id, [])
            found.append(
                Conflict(
                    "superseded-without-successor",
                    [doc.id],
                    f"{doc.id} is superseded but names no successor"
                    + "".join(f"; {s.id} “{s.title}” may be it: {s.why}" for s in likeliest[:1]),
                    [_supersede(doc.id, s.id) for s in likeliest]
                    + [
                        Resolution("supersede", "name another successor", f"supersede {doc.id} NEW_ID"),
                        Resolution("repair", "call it deprecated (outdated, not replaced)", "check --repair"),
                    ],
                )
            )
        if status == Status.ACTIVE and named:
            found.append(
                Conflict(
                    "active-with-successor",
                    [doc.id] + named,
                    f"{doc.id} is active but names successors {', '.join(named)}",
                    [_supersede(doc.id, new) for new in named if new in docs]
                    or [Resolution("repair", "no named successor exists: call it deprecated", "check --repair")],
                )
            )
        existing = sorted(new for new in named if new in docs)
        chained = len(existing) == len(named) and all(
            _related_by_supersession(supersedes, a, b) for i, a in enumerate(existing) for b in existing[i + 1 :]
        )
        if len(named) > 1 and not chained:
            a, b = (existing + [None, None])[:2]
            found.append(
                Conflict(
                    "double-supersession",
                    [doc.id] + sorted(named),
                    f"{doc.id} is superseded by {len(named)} documents: {', '.join(sorted(named))}",
                    [_supersede(a, b), _supersede(b, a), conflicts._compatible(a, b)]
                    if a and b
                    else [
                        Resolution("edit", "a named successor does not exist: edit the list by hand", f"show {doc.id}")
                    ],
                )
            )
        if replaced and status in (Status.ACTIVE, Status.DRAFT):
            for link in doc.links:
                if link.type != LinkType.SUPERSEDES and statuses.get(link.target) == Status.SUPERSEDED:
                    current = supersession.live_end(superseded_by, statuses, link.target)
                    if current and current != doc.id:
                        reason = f"{doc.id} links ({link.type}) to {link.target}, which {current} has replaced"
                        command = f"retarget {doc.id} {link.target} {current}"
                        resolution = Resolution("retarget", f"link {current} instead", command)
                        found.append(Conflict("stale-link", [doc.id, link.target], reason, [resolution]))
    for cycle in supersession.cycles({i: old for i, old in supersedes.items() if old}):
        reason = "supersession goes round in a circle: " + " → ".join(cycle + [cycle[0]])
        resolution = Resolution("edit", "edit one side of the cycle by hand", f"show {cycle[0]}")
        found.append(Conflict("supersession-cycle", cycle, reason, [resolution]))
    return found


def write(root: Path, name: str, status: str = "active", **relations: list) -> None:
    """A decision `mem-decision-NAME`, its relations naming others by their NAME too."""

    def named(value: list) -> list:
        return [
            {**v, "target": f"mem-decision-{v['target']}"} if isinstance(v, dict) else f"mem-decision-{v}"
            for v in value
        ]

    relations = {"supersedes": [], "superseded_by": [], "links": [], **{k: named(v) for k, v in relations.items()}}
    doc_id = f"mem-decision-{name}"
    lines = ["schema_version: v1", f"id: {doc_id}", "type: decision", f"title: {name.replace('-', ' ')} of the cache"]
    lines += [
        f"status: {status}",
        "created_at: 2025-10-20",
        "updated_at: 2026-04-01",
        "project: cache",
        "tags: [cache]",
    ]
    lines += ["provenance:", "  source: manual", "  confidence: medium"]
    lines += [f"{key}: {json.dumps(value)}" for key, value in relations.items()]
    body = f"We keep the cache warm for {doc_id}; the store answers reads while it fills."
    (root / "decisions").mkdir(parents=True, exist_ok=True)
    (root / "decisions" / f"{doc_id}.md").write_text("---\n" + "\n".join(lines) + f"\n---\n{body}\n", "utf-8")


def write_faults(root: Path) -> None:
    """One record or more for each kind of structural fault: one-sided, named-only and double
    supersessions, an active record naming successors, a superseded one lacking any, a chain, a
    cycle."""
    write(root, "one-sided-old")
    write(root, "one-sided-new", supersedes=["one-sided-old"])
    write(root, "names-only-old", "superseded", superseded_by=["names-only-new"])
    write(root, "names-only-new")
    write(root, "lacking", "superseded")
    write(root, "lacking-successor-maybe")
    write(root, "active-named", superseded_by=["names-only-new", "missing-one"])
    write(root, "double", "superseded", superseded_by=["double-a", "double-b"])
    write(root, "double-a", supersedes=["double"])
    write(root, "double-b", supersedes=["double"])
    write(root, "chain", "superseded", superseded_by=["chain-a", "chain-b"])
    write(root, "chain-a", "superseded", supersedes=["chain"], superseded_by=["chain-b"])
    write(root, "chain-b", supersedes=["chain", "chain-a"])
    write(root, "cycle-a", supersedes=["cycle-b"], superseded_by=["cycle-b"])
    write(root, "cycle-b", supersedes=["cycle-a"], superseded_by=["cycle-a"])


@pytest.fixture()
def faulty(tmp_path) -> Path:
    """A vault with each kind of structural fault, and documents beside them that have none."""
    root = tmp_path / "faulty"
    write_faults(root)
    write(
        root,
        "linker",
        links=[{"type": "related_to", "target": "names-only-old"}, {"type": "depends_on", "target": "chain"}],
    )
    write(root, "draft-linker", "draft", links=[{"type": "related_to", "target": "chain-a"}])
    write(root, "quiet-linker", links=[{"type": "related_to", "target": "names-only-new"}])
    for n in range(5):
        write(root, f"quiet-{n}")
    return root


def stored(root: Path, flavour: str | None = None) -> tuple[Vault, list]:
    """A warm open's documents (read back from the store), their fields read as the queue reads them."""
    Vault.open(root, flavour)
    vault = Vault.open(root, flavour)
    documents = vault.documents
    read_fields(documents, vault.store.fields)
    read_relations(documents)
    return vault, documents


def in_queue_order(found: list[Conflict]) -> list[Conflict]:
    """The faults as the queue lists them (`queue_parts` orders by kind, rank and ids)."""
    return sorted(found, key=lambda c: (conflicts.order_of(c), c.rank, c.ids))


def assert_structural_as_plainly(vault: Vault, documents: list) -> int:
    docs = {d.id: d for d in documents}
    compatible = vault.index.config.compatible
    fast = in_queue_order(conflicts._structural(docs, compatible, {i: relations_of(d)[0] for i, d in docs.items()}))
    plain = in_queue_order(plainly(docs, compatible, {i: d.supersedes for i, d in docs.items()}))
    assert [(c.kind, c.ids, c.reason, [r.command for r in c.resolutions]) for c in fast] == [
        (c.kind, c.ids, c.reason, [r.command for r in c.resolutions]) for c in plain
    ]
    assert [c.to_json() for c in fast] == [c.to_json() for c in plain]
    return len(fast)


def assert_relations_as_fields(documents: list) -> None:
    for doc in documents:
        supersedes, superseded_by, links = relations_of(doc)
        assert list(supersedes) == doc.supersedes
        assert list(superseded_by) == doc.superseded_by
        assert [tuple(link) for link in links] == [(link.type, link.target) for link in doc.links]


def test_every_kind_of_fault_from_the_rows_as_from_the_fields(faulty):
    vault, documents = stored(faulty)
    assert all(type(d) is StoredDocument for d in documents)
    assert_relations_as_fields(documents)
    kinds = {
        c.kind
        for c in conflicts._structural(
            {d.id: d for d in documents}, frozenset(), {d.id: d.supersedes for d in documents}
        )
    }
    assert kinds == {
        "one-sided-supersession",
        "superseded-without-successor",
        "active-with-successor",
        "double-supersession",
        "stale-link",
        "supersession-cycle",
    }
    assert assert_structural_as_plainly(vault, documents) > 6
    # and from documents that are not the store's (their fields decoded from the meta)
    plain = [Document(d.id, d.path, d.meta, d.body, d.digest, d.valid, d.view) for d in documents]
    assert assert_structural_as_plainly(vault, plain) > 6


def test_a_generated_vault_from_the_rows_as_from_the_fields(tmp_path_factory):
    vault, documents = stored(shaped_vault(tmp_path_factory, 600, seed=11))
    assert_relations_as_fields(documents)
    assert assert_structural_as_plainly(vault, documents) > 10


def test_decision_records_read_together_as_one_by_one(tmp_path_factory):
    """A flavour's documents keep their links resolved beside their view: `read_relations`
    decodes them in one parse, equal to each decoded when asked."""
    from tests.test_corpora import corpus

    root = corpus("adr-collection/shopware-shopware", tmp_path_factory)
    Vault.open(root, "adr")
    one_by_one = Vault.open(root, "adr").documents
    expected = [relations_of(d) for d in one_by_one]
    vault, documents = stored(root, "adr")
    together = [d for d in documents if "_kept_relations" in d.__dict__]
    assert len(together) > 100  # decoded in `read_relations`, before any was asked
    assert [relations_of(d) for d in documents] == expected
    assert_relations_as_fields(documents)
    assert assert_structural_as_plainly(vault, documents) > 0
