"""The graph a long-lived vault keeps in step, change by change, is the graph a fresh build gives,
and a graph handed out never changes under its reader."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from helpers import graph_shape
from vault_builders import doc_path, doc_text

from workbench.core.graph import build_graph
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
