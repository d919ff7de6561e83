"""The problems of one document (`problems_for`, what `show` prints) are those the whole vault's
check finds at its file, worked out from the documents its rules can depend on alone; and the
whole check and the graph read what they need from the store, not from every document's meta."""

from __future__ import annotations

import random

import pytest

from test_corpora import corpus
from vault_builders import VaultBuilder
from workbench import Vault


def _key(p):
    return (p.line or 0, p.code, p.message)


def assert_each_as_whole(vault: Vault) -> int:
    """Every document's `problems_for` equals the whole check's problems at its file; returns how
    many problems across files were compared."""
    assert vault.index._relation_problems is None  # the per-document path, not the whole check filtered
    ids = sorted({r.document.id for r in vault.records} | {"mem-note-nobody-has-this"})
    each = {doc_id: list(vault.problems_for(doc_id)) for doc_id in ids}
    assert vault.index._relation_problems is None or any(
        p.code == "supersession-cycle" for p in vault.problems
    )  # only a document on a cycle asks the whole check
    whole = list(vault.problems)
    compared = 0
    for doc_id in ids:
        path = vault.index._ownership.by_id.get(doc_id)
        expected = sorted((p for p in whole if path is not None and p.path == path), key=_key)
        assert each[doc_id] == expected, doc_id
        compared += sum(1 for p in expected if p.doc_id)
    return compared


def test_sample_vault(sample_copy):
    assert assert_each_as_whole(Vault.open(sample_copy)) > 0


def test_planted_faults(builder: VaultBuilder):
    b = builder
    b.add("mem-decision-old", status="superseded", superseded_by="[mem-decision-mid]")
    b.add(
        "mem-decision-mid",
        status="superseded",
        supersedes="[mem-decision-old]",
        superseded_by="[mem-decision-new]",
        links="[{type: supersedes, target: mem-decision-old}]",
    )
    b.add(
        "mem-decision-new",
        supersedes="[mem-decision-mid]",
        links="[{type: supersedes, target: mem-decision-mid}]",
    )
    # stale links, one through a chain of successors, one from the end of the chain
    b.add(
        "mem-note-reader",
        links="[{type: related_to, target: mem-decision-old}, {type: explains, target: mem-decision-mid}]",
    )
    # dangling targets and supersessions, one-sided in both directions
    b.add("mem-note-lost", links="[{type: related_to, target: mem-note-missing}]", superseded_by="[mem-note-ghost]")
    b.add(
        "mem-decision-claims",
        supersedes="[mem-decision-quiet]",
        links="[{type: supersedes, target: mem-decision-quiet}]",
    )
    b.add("mem-decision-quiet")
    b.add("mem-decision-named", status="superseded", superseded_by="[mem-decision-silent]")
    b.add("mem-decision-silent")
    # a field and its link disagreeing
    b.add("mem-decision-half", supersedes="[mem-decision-quiet]")
    # a cycle of three, a self-supersession, and a document leading into the cycle
    b.add("mem-decision-c1", supersedes="[mem-decision-c2]", superseded_by="[mem-decision-c3]")
    b.add("mem-decision-c2", supersedes="[mem-decision-c3]", superseded_by="[mem-decision-c1]")
    b.add("mem-decision-c3", supersedes="[mem-decision-c1]", superseded_by="[mem-decision-c2]")
    b.add("mem-decision-self", supersedes="[mem-decision-self]")
    b.add("mem-decision-into", supersedes="[mem-decision-c1]")
    # an invalid document (linked: not dangling) and two files claiming one id
    b.raw("notes/mem-note-broken.md", "---\nid: mem-note-broken\ntype: note\n---\nno title\n")
    b.add("mem-note-links-broken", links="[{type: related_to, target: mem-note-broken}]")
    b.add("mem-note-twin")
    b.raw("notes/mem-note-twin-copy.md", (b.root / "notes/mem-note-twin.md").read_text())
    assert assert_each_as_whole(Vault.open(b.root)) >= 10


@pytest.mark.parametrize("seed", range(6))
def test_generated_vaults(tmp_path, seed):
    """Random vaults of links and supersessions among a few dozen ids, some of them with no file."""
    rng = random.Random(seed)
    b = VaultBuilder(tmp_path / "vault")
    ids = [f"mem-{rng.choice(['decision', 'note', 'concept'])}-d{n}" for n in range(40)]
    named = ids + [f"mem-note-missing{n}" for n in range(4)]

    def some(k: int) -> list[str]:
        return rng.sample(named, rng.randint(0, k))

    for doc_id in ids:
        supersedes, superseded_by = some(2), some(2)
        links = [(rng.choice(["related_to", "explains", "depends_on"]), t) for t in some(3)]
        if rng.random() < 0.7:  # Memory Core's link restating each supersession, mostly
            links += [("supersedes", t) for t in supersedes]
        b.add(
            doc_id,
            status=rng.choice(["active", "active", "draft", "superseded", "deprecated"]),
            supersedes="[" + ", ".join(supersedes) + "]",
            superseded_by="[" + ", ".join(superseded_by) + "]",
            links="[" + ", ".join(f"{{type: {k}, target: {t}}}" for k, t in links) + "]",
        )
    assert assert_each_as_whole(Vault.open(b.root)) > 0


def test_adr_corpus_read_with_its_flavour(tmp_path_factory):
    root = corpus("adr-collection/alphagov-forms", tmp_path_factory)
    vault = Vault.open(root)
    assert vault.flavour.name == "adr"
    assert assert_each_as_whole(vault) > 0


def _decoded(vault: Vault) -> list[str]:
    """The documents read back from the store whose meta has been decoded."""
    return [r.path for r in vault.records if type(r.document.__dict__.get("_meta")) is dict]


@pytest.fixture
def warm(builder: VaultBuilder) -> VaultBuilder:
    """A vault of linked and superseded documents, opened once so that a store holds it."""
    for n in range(30):
        builder.add(
            f"mem-note-n{n}",
            links=f"[{{type: related_to, target: mem-note-n{(n + 1) % 30}}}, {{type: explains, target: mem-decision-old}}]",
        )
    builder.add("mem-decision-old", status="superseded", superseded_by="[mem-decision-new]")
    builder.add(
        "mem-decision-new",
        supersedes="[mem-decision-old]",
        links="[{type: supersedes, target: mem-decision-old}]",
    )
    Vault.open(builder.root)
    return builder


def test_one_documents_problems_check_its_neighbours_only(warm):
    vault = Vault.open(warm.root)
    assert _decoded(vault) == []
    found = vault.problems_for("mem-note-n3")
    assert [p.code for p in found] == ["link-to-superseded"]
    assert vault.index._relation_problems is None  # the whole vault was not checked
    assert len(_decoded(vault)) <= 4  # the document and those it names, not all 32


def test_whole_check_reads_the_stores_fields(warm):
    vault = Vault.open(warm.root)
    assert sum(p.code == "link-to-superseded" for p in vault.problems) == 30
    assert _decoded(vault) == []


def test_first_graph_reads_the_stores_fields(warm):
    other = Vault.open(warm.root)
    graph = other.graph()
    assert graph.number_of_edges() == 30 * 2 + 1  # the supersession: one edge, stated three times
    assert _decoded(other) == []
