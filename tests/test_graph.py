"""The graph of a vault: exact nodes and edges, walks both ways, supersession, retrieval and export."""

from __future__ import annotations

import doctest
import io
import json
import re

import networkx as nx
import pytest

from workbench.core.views import graph as graph_module
from workbench.core.views.graph import (
    backlinks,
    build_graph,
    context_pack,
    current_successor,
    export,
    inverse_label,
    neighbourhood,
    outgoing,
    supersession_chain,
    supersession_cycles,
)
from workbench.core.vocabulary.model import RefusedError
from workbench.core.vault import Vault

A, B, C, D = "mem-entity-a", "mem-task-b", "mem-decision-c", "mem-note-d"
CHAIN = ["mem-decision-jobs-cron-table", "mem-decision-jobs-celery-redis", "mem-decision-jobs-procrastinate"]
HOSTILE = 'He said "hi" [x] <b> \n{y}'


def links(*pairs: tuple[str, str]) -> str:
    return "[" + ", ".join(f"{{type: {kind}, target: {target}}}" for kind, target in pairs) + "]"


def edges(graph: nx.MultiDiGraph) -> list[tuple[str, str, str]]:
    return sorted((s, t, k) for s, t, k in graph.edges(keys=True))


def open_graph(builder) -> nx.MultiDiGraph:
    return build_graph(Vault.open(builder.root).all_documents)


@pytest.fixture
def star(builder):
    """b depends on a, c is related to b, d explains c: a line a ← b ← c ← d of three link types."""
    builder.add(A)
    builder.add(B, links=links(("depends_on", A)))
    builder.add(C, links=links(("related_to", B)))
    builder.add(D, links=links(("explains", C)))
    return open_graph(builder)


@pytest.fixture
def sample_graph(sample_copy) -> nx.MultiDiGraph:
    return build_graph(Vault.open(sample_copy).all_documents)


# -- building ----------------------------------------------------------------------------------


def test_each_link_is_an_edge_keyed_by_its_type(builder):
    builder.add(A)
    builder.add(B, links=links(("depends_on", A), ("related_to", A)))
    graph = open_graph(builder)
    assert edges(graph) == [(B, A, "depends_on"), (B, A, "related_to")]
    assert graph.edges[B, A, "depends_on"]["type"] == "depends_on"


def test_edges_read_both_ways(builder):
    builder.add(A)
    builder.add(B, links=links(("depends_on", A), ("related_to", A)))
    graph = open_graph(builder)
    assert outgoing(graph, B) == [(A, "depends_on"), (A, "related_to")]
    assert backlinks(graph, A) == [(B, "depends_on"), (B, "related_to")]
    assert backlinks(graph, B) == [] and outgoing(graph, A) == []


def test_valid_documents_are_nodes_with_their_attributes(builder):
    builder.add(A, status="draft")
    graph = open_graph(builder)
    assert dict(graph.nodes[A]) == {
        "title": f"Title of {A}",
        "type": "entity",
        "status": "draft",
        "dangling": False,
        "invalid": False,
    }


def test_supersession_is_one_edge_whether_stated_by_link_field_or_both(builder):
    builder.add(C, status="superseded", superseded_by="[mem-decision-b]")
    builder.add("mem-decision-b", supersedes=f"[{C}]", links=links(("supersedes", C)))
    graph = open_graph(builder)
    assert edges(graph) == [("mem-decision-b", C, "supersedes")]


def test_a_one_sided_superseded_by_still_gives_the_edge(builder):
    builder.add(C, status="superseded", superseded_by="[mem-decision-new]")
    builder.add("mem-decision-new")
    graph = open_graph(builder)
    assert edges(graph) == [("mem-decision-new", C, "supersedes")]


def test_self_links_are_skipped(builder):
    builder.add(A, links=links(("related_to", A)))
    graph = open_graph(builder)
    assert edges(graph) == [] and list(graph.nodes) == [A]


def test_a_missing_target_becomes_a_dangling_placeholder(builder):
    builder.add(A, links=links(("depends_on", "mem-entity-gone")))
    graph = open_graph(builder)
    assert edges(graph) == [(A, "mem-entity-gone", "depends_on")]
    assert dict(graph.nodes["mem-entity-gone"]) == {
        "title": "mem-entity-gone",
        "type": "",
        "status": "",
        "dangling": True,
        "invalid": False,
    }


def test_an_invalid_target_is_a_placeholder_marked_invalid_not_dangling(builder):
    builder.add(A, links=links(("depends_on", B)))
    builder.add(B, status="bogus")
    vault = Vault.open(builder.root)
    assert [d.id for d in vault.documents] == [A]
    graph = build_graph(vault.all_documents)
    assert edges(graph) == [(A, B, "depends_on")]
    assert dict(graph.nodes[B]) == {"title": B, "type": "", "status": "", "dangling": False, "invalid": True}


def test_an_invalid_document_makes_no_edges_of_its_own(builder):
    builder.add(A)
    builder.add(B, status="bogus", links=links(("depends_on", A)))
    graph = open_graph(builder)
    assert list(graph.nodes) == [A] and edges(graph) == []


# -- neighbourhood -----------------------------------------------------------------------------


def test_neighbourhood_depth_one_follows_links_and_backlinks(star):
    found = neighbourhood(star, B).to_json()
    assert found == {
        "root": B,
        "nodes": [
            {"id": B, "title": f"Title of {B}", "type": "task", "status": "active", "depth": 0},
            {"id": C, "title": f"Title of {C}", "type": "decision", "status": "active", "depth": 1},
            {"id": A, "title": f"Title of {A}", "type": "entity", "status": "active", "depth": 1},
        ],
        "edges": [
            {"source": C, "target": B, "type": "related_to"},
            {"source": B, "target": A, "type": "depends_on"},
        ],
    }


def test_neighbourhood_depth_two_reaches_backlinks_of_backlinks(star):
    found = neighbourhood(star, A, depth=2).to_json()
    assert [(n["id"], n["depth"]) for n in found["nodes"]] == [(A, 0), (B, 1), (C, 2)]
    assert [(e["source"], e["target"], e["type"]) for e in found["edges"]] == [
        (C, B, "related_to"),
        (B, A, "depends_on"),
    ]


def test_neighbourhood_depth_zero_is_the_root_alone(star):
    assert neighbourhood(star, B, depth=0).to_json() == {
        "root": B,
        "nodes": [{"id": B, "title": f"Title of {B}", "type": "task", "status": "active", "depth": 0}],
        "edges": [],
    }


def test_neighbourhood_follows_and_lists_only_the_link_types_asked_for(star):
    found = neighbourhood(star, C, depth=3, link_types=["related_to", "depends_on"]).to_json()
    assert [(n["id"], n["depth"]) for n in found["nodes"]] == [(C, 0), (B, 1), (A, 2)]
    assert [e["type"] for e in found["edges"]] == ["related_to", "depends_on"]


def test_neighbourhood_lists_edges_between_outer_nodes(builder):
    builder.add(A)
    builder.add(B, links=links(("depends_on", A), ("related_to", C)))
    builder.add(C, links=links(("related_to", A)))
    found = neighbourhood(open_graph(builder), A, depth=1).to_json()
    assert [(e["source"], e["target"]) for e in found["edges"]] == [(C, A), (B, C), (B, A)]


def test_neighbourhood_of_an_unknown_root_is_refused(star):
    with pytest.raises(RefusedError):
        neighbourhood(star, "mem-entity-nobody")


def test_a_backlink_reads_by_its_inverse_label():
    assert [inverse_label(t) for t in ("depends_on", "blocked_by", "made_up")] == [
        "depended on by",
        "blocks",
        "made_up (from)",
    ]


def test_backlinks_of_an_unknown_id_are_refused(star):
    with pytest.raises(RefusedError):
        backlinks(star, "mem-entity-nobody")


# -- supersession ------------------------------------------------------------------------------


@pytest.mark.parametrize("doc_id", CHAIN)
def test_the_sample_chain_is_the_same_from_each_of_its_decisions(sample_copy, doc_id):
    assert supersession_chain(Vault.open(sample_copy).graph(), doc_id) == CHAIN


def test_the_sample_supersession_edges_are_exact(sample_graph):
    found = sorted((s, t) for s, t, k in sample_graph.edges(keys=True) if k == "supersedes")
    assert found == [(CHAIN[1], CHAIN[0]), (CHAIN[2], CHAIN[1])]


@pytest.mark.parametrize("doc_id", CHAIN[:2])
def test_the_sample_current_successor_is_the_newest_decision(sample_graph, doc_id):
    assert current_successor(sample_graph, doc_id) == CHAIN[2]


def test_a_document_not_superseded_has_no_current_successor(sample_graph):
    assert current_successor(sample_graph, CHAIN[2]) is None


def test_a_branching_chain_keeps_each_document_after_what_it_replaces(builder):
    builder.add("mem-decision-old-a", status="superseded", superseded_by="[mem-decision-mid]")
    builder.add("mem-decision-old-b", status="superseded", superseded_by="[mem-decision-mid]")
    builder.add(
        "mem-decision-mid",
        status="superseded",
        supersedes="[mem-decision-old-a, mem-decision-old-b]",
        superseded_by="[mem-decision-new]",
    )
    builder.add("mem-decision-new", supersedes="[mem-decision-mid]")
    chain = supersession_chain(open_graph(builder), "mem-decision-old-b")
    assert chain == ["mem-decision-old-b", "mem-decision-mid", "mem-decision-new"]
    assert supersession_chain(open_graph(builder), "mem-decision-new") == [
        "mem-decision-old-a",
        "mem-decision-old-b",
        "mem-decision-mid",
        "mem-decision-new",
    ]


def test_a_branching_successor_prefers_the_active_document(builder):
    builder.add(C, status="superseded", superseded_by="[mem-decision-x, mem-decision-y]")
    builder.add("mem-decision-x", status="draft", supersedes=f"[{C}]")
    builder.add("mem-decision-y", supersedes=f"[{C}]")
    assert current_successor(open_graph(builder), C) == "mem-decision-y"


@pytest.fixture
def cycle(builder):
    builder.add("mem-decision-p", status="superseded", supersedes="[mem-decision-q]", superseded_by="[mem-decision-q]")
    builder.add("mem-decision-q", status="superseded", supersedes="[mem-decision-p]", superseded_by="[mem-decision-p]")
    builder.add(A)
    return open_graph(builder)


def test_supersession_cycles_are_found_from_their_smallest_id(cycle):
    assert supersession_cycles(cycle) == [["mem-decision-p", "mem-decision-q"]]


def test_the_sample_vault_has_no_supersession_cycle(sample_graph):
    assert supersession_cycles(sample_graph) == []


def test_a_chain_through_a_cycle_ends(cycle):
    assert supersession_chain(cycle, "mem-decision-p") == ["mem-decision-q", "mem-decision-p"]


def test_a_cycle_without_a_way_out_has_no_current_successor(cycle):
    assert current_successor(cycle, "mem-decision-p") is None


# -- context pack ------------------------------------------------------------------------------


def test_a_context_pack_holds_at_most_limit_documents(sample_graph):
    pack = context_pack(sample_graph, "mem-entity-postgres", limit=4)
    assert len(pack) == 4 and pack[0]["id"] == "mem-entity-postgres"


def test_a_context_pack_reads_in_priority_order_active_first(builder):
    builder.add(
        "mem-note-root",
        links=links(
            *(
                ("related_to", t)
                for t in (
                    "mem-note-n",
                    "mem-index-i",
                    "mem-concept-k",
                    "mem-context-x",
                    "mem-decision-d",
                    "mem-task-t",
                    "mem-entity-draft",
                    "mem-entity-e",
                )
            )
        ),
    )
    for doc_id in (
        "mem-note-n",
        "mem-index-i",
        "mem-concept-k",
        "mem-context-x",
        "mem-decision-d",
        "mem-task-t",
        "mem-entity-e",
    ):
        builder.add(doc_id)
    builder.add("mem-entity-draft", status="draft")
    builder.add("mem-entity-far", links=links(("related_to", "mem-note-n")))
    pack = context_pack(open_graph(builder), "mem-note-root", limit=20)
    assert [item["id"] for item in pack] == [
        "mem-note-root",
        "mem-entity-e",
        "mem-entity-far",
        "mem-task-t",
        "mem-decision-d",
        "mem-context-x",
        "mem-concept-k",
        "mem-index-i",
        "mem-note-n",
        "mem-entity-draft",
    ]


def test_a_context_pack_says_how_each_document_was_reached(star):
    assert context_pack(star, A) == [
        {"id": A, "title": f"Title of {A}", "type": "entity", "status": "active", "depth": 0, "via": ""},
        {"id": B, "title": f"Title of {B}", "type": "task", "status": "active", "depth": 1, "via": "depends_on"},
        {"id": C, "title": f"Title of {C}", "type": "decision", "status": "active", "depth": 2, "via": "related_to"},
    ]


def test_a_context_pack_reads_the_current_successor_instead_of_a_superseded_document(sample_graph):
    pack = context_pack(sample_graph, "mem-context-local-dev-setup", depth=1)
    ids = [item["id"] for item in pack]
    assert "mem-decision-jobs-celery-redis" not in ids
    successor = next(item for item in pack if item["id"] == "mem-decision-jobs-procrastinate")
    assert (successor["depth"], successor["via"]) == (1, "depends_on")


def test_a_context_pack_skips_archived_documents_but_walks_through_them(sample_graph):
    pack = context_pack(sample_graph, "mem-task-remove-redis", limit=50)
    ids = [item["id"] for item in pack]
    assert "mem-task-migrate-jobs-to-procrastinate" not in ids  # archived, depth 1
    assert "mem-decision-jobs-procrastinate" in ids  # reached through it, depth 2
    assert all(item["status"] != "archived" for item in pack)


def test_a_context_pack_of_a_placeholder_is_refused(builder):
    builder.add(A, links=links(("depends_on", "mem-entity-gone")))
    with pytest.raises(RefusedError):
        context_pack(open_graph(builder), "mem-entity-gone")


def test_a_context_pack_accepts_the_vault_itself(sample_copy, sample_graph):
    vault = Vault.open(sample_copy)
    assert context_pack(vault.graph(), "mem-entity-redis") == context_pack(sample_graph, "mem-entity-redis")


# -- export ------------------------------------------------------------------------------------


@pytest.fixture
def hostile(builder):
    """A document titled by an agent with quotes, brackets, markup and a newline, and a dangling link."""
    path = builder.add(A, links=links(("depends_on", "mem-entity-gone")))
    title = HOSTILE.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    path.write_text(path.read_text().replace(f"title: Title of {A}", f'title: "{title}"'))
    builder.add(B, links=links(("depends_on", A)))
    graph = open_graph(builder)
    assert graph.nodes[A]["title"] == HOSTILE
    return graph


def unescaped_quotes(line: str) -> int:
    return len(re.findall(r'"', re.sub(r'\\[\\"]', "", line)))


def test_json_export_has_the_exact_shape(star):
    data = json.loads(export(star, "json"))
    assert data["nodes"][0] == {
        "id": C,
        "title": f"Title of {C}",
        "type": "decision",
        "status": "active",
        "dangling": False,
    }
    assert [n["id"] for n in data["nodes"]] == [C, A, D, B]
    assert data["edges"] == [
        {"source": C, "target": B, "type": "related_to"},
        {"source": D, "target": C, "type": "explains"},
        {"source": B, "target": A, "type": "depends_on"},
    ]


def test_json_export_keeps_a_hostile_title(hostile):
    data = json.loads(export(hostile, "json"))
    assert data["nodes"][0] == {"id": A, "title": HOSTILE, "type": "entity", "status": "active", "dangling": False}
    assert data["nodes"][1] == {
        "id": "mem-entity-gone",
        "title": "mem-entity-gone",
        "type": "",
        "status": "",
        "dangling": True,
    }


def test_graphml_export_parses_back_with_a_hostile_title(hostile):
    parsed = nx.read_graphml(io.BytesIO(export(hostile, "graphml").encode("utf-8")), force_multigraph=True)
    assert parsed.nodes[A]["title"] == HOSTILE
    assert parsed.nodes["mem-entity-gone"]["dangling"] is True
    assert sorted((s, t, d["type"]) for s, t, d in parsed.edges(data=True)) == [
        (A, "mem-entity-gone", "depends_on"),
        (B, A, "depends_on"),
    ]


def test_dot_export_escapes_a_hostile_title(hostile):
    text = export(hostile, "dot")
    lines = text.splitlines()
    assert lines[0] == "digraph vault {" and lines[-1] == "}"
    assert all(unescaped_quotes(line) % 2 == 0 for line in lines)
    assert f'  "{A}" [label="He said \\"hi\\" [x] <b> \\n{{y}}"];' in lines
    assert '  "mem-entity-gone" [label="mem-entity-gone", style=dashed];' in lines
    assert f'  "{B}" -> "{A}" [label="depends_on"];' in lines


def test_mermaid_export_escapes_a_hostile_title(hostile):
    lines = export(hostile, "mermaid").splitlines()
    assert lines[0] == "graph LR"
    node = next(line for line in lines if line.strip().startswith(f"{A}["))
    label = node.strip()[len(A) + 2 : -2]  # between `["` and `"]`
    assert not set(label) & set('"[]<>{}\n')
    assert f"  {B} -->|depends_on| {A}" in lines
    assert any(line.strip().startswith("class ") and "mem-entity-gone" in line for line in lines)
    assert all(unescaped_quotes(line) in (0, 2) for line in lines)


def test_mermaid_export_gives_an_unsafe_dangling_id_a_safe_stand_in(builder):
    builder.add(A, links=links(("related_to", '"end [x]"')))
    lines = export(open_graph(builder), "mermaid").splitlines()
    edge = next(line for line in lines if "-->" in line)
    assert re.fullmatch(rf"  {A} -->\|related_to\| n_[0-9a-f]{{12}}", edge)


def test_export_of_a_root_keeps_only_its_neighbourhood(star):
    data = json.loads(export(star, "json", root=A))
    assert [n["id"] for n in data["nodes"]] == [A, B]
    assert json.loads(export(star, "json", root=A, depth=2))["edges"] == [
        {"source": C, "target": B, "type": "related_to"},
        {"source": B, "target": A, "type": "depends_on"},
    ]


def test_an_unknown_export_format_is_refused(star):
    with pytest.raises(RefusedError):
        export(star, "svg")


def test_the_docstring_examples_run():
    assert doctest.testmod(graph_module).failed == 0
