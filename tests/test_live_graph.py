"""The graph a long-lived vault keeps in step, change by change, is the graph a fresh build gives,
and a graph handed out never changes under its reader."""

from __future__ import annotations

import random
import threading

from hypothesis import given, settings
from hypothesis import strategies as st
from helpers import graph_shape, sorts_noted
from vault_builders import doc_path, doc_text

from workbench.core.views import live_graph
from workbench.core.vocabulary import sorting
from workbench.core.views.graph import build_graph
from workbench.core.vault import Vault

IDS = ["mem-entity-a", "mem-task-b", "mem-decision-c", "mem-note-d", "mem-decision-e"]
KINDS = ["related_to", "depends_on", "explains", "supersedes"]


def write(root, doc_id: str, text: str) -> str:
    path = root / doc_path(doc_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return doc_path(doc_id)


def random_text(rng: random.Random, doc_id: str) -> str:
    others = [i for i in IDS + ["mem-note-missing"] if rng.random() < 0.4]
    pairs = ", ".join(f"{{type: {rng.choice(KINDS)}, target: {t}}}" for t in others)
    older = [t for t in IDS if t != doc_id and rng.random() < 0.2]
    newer = [t for t in IDS if t != doc_id and rng.random() < 0.2]
    status = "superseded" if newer else rng.choice(["active", "draft", "deprecated"])
    if rng.random() < 0.15:
        return doc_text(doc_id).replace("type:", "type: [broken")  # an invalid file: a placeholder if named
    return doc_text(
        doc_id,
        status=status,
        links=f"[{pairs}]",
        supersedes=str(older).replace("'", ""),
        superseded_by=str(newer).replace("'", ""),
        extra=f"note: {rng.random()}\n",
    )


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_the_kept_graph_equals_a_fresh_build_after_every_change(tmp_path_factory, seed):
    rng = random.Random(seed)
    root = tmp_path_factory.mktemp("vault")
    for doc_id in IDS[:3]:
        write(root, doc_id, random_text(rng, doc_id))
    vault = Vault.open(root)
    assert graph_shape(vault.graph()) == graph_shape(build_graph(vault.all_documents))
    for _ in range(12):
        doc_id = rng.choice(IDS)
        path = root / doc_path(doc_id)
        if path.exists() and rng.random() < 0.25:
            path.unlink()
            changed = str(path.relative_to(root))
        else:
            changed = write(root, doc_id, random_text(rng, doc_id))
        vault.refresh_paths([changed])
        assert graph_shape(vault.graph()) == graph_shape(build_graph(Vault.open(root).all_documents)), (
            f"after changing {changed}"
        )


def test_a_graph_handed_out_stays_as_it_was(tmp_path):
    write(tmp_path, "mem-entity-a", doc_text("mem-entity-a"))
    write(tmp_path, "mem-task-b", doc_text("mem-task-b", links="[{type: depends_on, target: mem-entity-a}]"))
    vault = Vault.open(tmp_path)
    before = vault.graph()
    assert vault.graph() is before  # nothing changed: the same snapshot
    changed = write(tmp_path, "mem-task-b", doc_text("mem-task-b", links="[{type: explains, target: mem-note-gone}]"))
    vault.refresh_paths([changed])
    after = vault.graph()
    assert after is not before
    assert sorted(before.edges(keys=True)) == [("mem-task-b", "mem-entity-a", "depends_on")]
    assert sorted(after.edges(keys=True)) == [("mem-task-b", "mem-note-gone", "explains")]
    assert after.nodes["mem-note-gone"]["dangling"] and "mem-note-gone" not in before


def test_a_search_and_a_change_go_on_while_the_graph_is_worked_out(tmp_path, monkeypatch):
    """The graph's first build takes seconds on a large vault; a search typed meanwhile, or a
    change the watcher brings in, must not wait for it, and the change is in the next graph."""
    for doc_id in IDS[:3]:
        write(tmp_path, doc_id, doc_text(doc_id, links="[{type: related_to, target: mem-entity-a}]"))
    vault = Vault.open(tmp_path)
    building, go_on = threading.Event(), threading.Event()
    edges_of = live_graph.stated_edges

    def held(doc):  # the build stops at its first document until the test lets it go on
        building.set()
        go_on.wait(20)
        return edges_of(doc)

    monkeypatch.setattr(live_graph, "stated_edges", held)
    graphs: list = []
    builder = threading.Thread(target=lambda: graphs.append(vault.graph()))
    builder.start()
    try:
        assert building.wait(10)
        answered: list = []
        asker = threading.Thread(target=lambda: answered.append([h.id for h in vault.search("body", 10)]))
        asker.start()
        asker.join(5)
        assert answered and sorted(answered[0]) == sorted(IDS[:3])
        changed = write(tmp_path, IDS[3], doc_text(IDS[3], links="[{type: explains, target: mem-task-b}]"))
        vault.refresh_paths([changed])
        assert IDS[3] in vault
    finally:
        go_on.set()
        builder.join(20)
    monkeypatch.undo()
    assert graphs and IDS[3] not in graphs[0]  # worked out from the vault as it was when asked
    assert (IDS[3], "mem-task-b", "explains") in vault.graph().edges(keys=True)
    assert graph_shape(vault.graph()) == graph_shape(build_graph(vault.all_documents))


def test_the_first_sync_never_sorts_more_than_a_piece_in_one_call(tmp_path, monkeypatch):
    """`sorted` holds the interpreter for the whole call: every id of a large vault sorted at once
    kept the TUI's screen still (0.1-0.3 s at 100,000 documents). The ids are sorted in pieces of
    at most `PIECE` and merged, and the graph is the one a fresh build gives."""
    for n in range(60):
        target = f"mem-note-{(n * 7) % 60:03d}"
        write(
            tmp_path,
            f"mem-note-{n:03d}",
            f"---\nid: mem-note-{n:03d}\ntype: note\nstatus: active\ntitle: N {n}\nlinks: [{{type: related_to, target: {target}}}]\n---\nbody\n",
        )
    vault = Vault.open(tmp_path)
    with sorts_noted(monkeypatch) as sizes:
        kept = live_graph.LiveGraph().sync(vault.index)
    assert sizes and max(sizes) <= 16
    assert graph_shape(kept) == graph_shape(build_graph(vault.documents))
    monkeypatch.setattr(sorting, "PIECE", 10**9)
    whole = live_graph.LiveGraph().sync(vault.index)  # every id sorted in one call, as before
    assert list(kept.nodes(data=True)) == list(whole.nodes(data=True))  # in the same order too
    assert list(kept.edges(keys=True, data=True)) == list(whole.edges(keys=True, data=True))
