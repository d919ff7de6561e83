"""What the faces ask of the core through `workbench.core`: the facade's methods for what they
once reached past it for (before a vault opens, reading a file, a text's links, git sync, agents'
requests), each on a real vault, checked against what the layer behind it answers."""

from __future__ import annotations

import os
import subprocess
import threading

import pytest

from workbench.core import Agent, Draft, RawLink, RefusedError, Vault, VaultError, context_pack
from workbench.core.views import graph


def test_before_a_vault_opens(tmp_path, sample_copy):
    assert Vault.require_folder(sample_copy) == sample_copy
    with pytest.raises(VaultError, match="no such folder"):
        Vault.require_folder(tmp_path / "nowhere")
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(VaultError, match="not a folder"):
        Vault.require_folder(tmp_path / "a-file")
    assert Vault.looks_like_vault(sample_copy)
    assert not Vault.looks_like_vault(tmp_path)
    assert {"memory-core", "dendron", "adr"} <= set(Vault.flavour_names())
    with Vault.collector_paused():
        import gc

        assert not gc.isenabled()
    assert gc.isenabled()


def test_the_collector_paused_in_two_threads_runs_again_when_the_last_ends():
    # One thread's pause ended while another's went on (an app's watcher walking the vault while
    # it read its queue): the collector was turned back on under the other, whose full
    # collections then walked the queue half decoded (0.15-0.34 s each, at 100,000 documents).
    import gc
    import threading

    first_in, second_out = threading.Event(), threading.Event()

    def other() -> None:
        with Vault.collector_paused():
            first_in.set()
            second_out.wait(10)

    thread = threading.Thread(target=other)
    thread.start()
    assert first_in.wait(10)
    with Vault.collector_paused():
        second_out.set()
        thread.join(10)
        assert not gc.isenabled()  # the other thread's pause is over, this one's is not
    assert gc.isenabled()


def test_an_empty_folder_says_so_and_a_vault_with_documents_says_nothing(tmp_path, sample_copy):
    empty = tmp_path / "empty"
    empty.mkdir()
    note = Vault.open(empty).empty_note()
    assert note is not None and "an empty folder" in note
    assert Vault.open(sample_copy).empty_note() is None


def test_reading_a_file_of_the_vault(sample_copy):
    vault = Vault.open(sample_copy)
    doc = vault.documents[0]
    assert vault.read_file(doc.path) == (sample_copy / doc.path).read_bytes()
    assert vault.read_file("decisions/not-there.md") is None
    os.mkfifo(sample_copy / "notes" / "pipe.md")
    answer: list[object] = []
    reader = threading.Thread(target=lambda: answer.append(_raised(vault.read_file, "notes/pipe.md")), daemon=True)
    reader.start()
    reader.join(10)
    assert not reader.is_alive(), "a pipe in the vault held the read"
    assert isinstance(answer[0], OSError)


def _raised(call, *args):
    try:
        return call(*args)
    except Exception as exc:  # noqa: BLE001 - returned to be looked at
        return exc


def test_the_links_of_a_text_resolve_as_the_graph_resolves_them(sample_copy):
    vault = Vault.open(sample_copy)
    some = vault.documents[0].id
    links = [
        RawLink("related_to", (some,), f"[[{some}]]"),
        RawLink("related_to", ("mem-note-no-such-document",), "[[mem-note-no-such-document]]"),
    ]
    assert vault.resolve_links(links) == [some, None]
    assert vault.resolve_links([]) == []


def test_the_context_pack_and_the_graphs_text_are_the_graphs(sample_copy):
    vault = Vault.open(sample_copy)
    doc_id = next(doc.id for doc in vault.documents if doc.links)
    assert vault.context_pack(doc_id) == context_pack(vault.graph(), doc_id)
    assert vault.export_graph("mermaid", root=doc_id, depth=1) == graph.export(vault.graph(), "mermaid", doc_id, 1)


def test_the_requests_agents_left_in_changed_files(sample_copy):
    vault = Vault.open(sample_copy)
    assert vault.requests_in() == []
    linked = vault.documents[0].id
    draft = Draft(
        type="note",
        title="Webhook retries back off to one hour",
        body="Seen in production.\n",
        links=[("related_to", linked)],
    )
    plan = vault.agent_create(draft, Agent("claude-code", "agent-claude"))
    path = plan.changes[0].path
    [request] = vault.requests_in([path])
    assert request.agent.startswith("claude-code") and request.path == path
    assert vault.requests_in(["notes/elsewhere.md"]) == []
    assert vault.requests_in() == [request]


def test_where_the_vault_keeps_its_own_files(sample_copy):
    vault = Vault.open(sample_copy)
    assert vault.state_dir == sample_copy / ".workbench"
    assert vault.verdicts_path == sample_copy / ".workbench-verdicts.jsonl"


def test_the_gate_refuses_another_formats_vault_through_the_facade(tmp_path):
    adr = tmp_path / "adr"
    (adr / "doc" / "adr").mkdir(parents=True)
    (adr / "doc" / "adr" / "0001-record-architecture-decisions.md").write_text(
        "# 1. Record architecture decisions\n\nDate: 2020-01-01\n\n## Status\n\nAccepted\n"
    )
    vault = Vault.open(adr, flavour="adr")
    with pytest.raises(RefusedError, match="migrate it first"):
        vault.require_native("renaming")
    Vault.open(tmp_path / "adr", flavour="memory-core").require_native("renaming")


def test_sync_through_the_facade(tmp_path, sample_copy):
    vault = Vault.open(sample_copy)
    assert "git" in (vault.not_syncable() or "")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "init", "-q", str(sample_copy)], check=True)
    assert vault.not_syncable() is None
    assert vault.sync_setup()  # what it set up, in words
    assert vault.sync_pending() == []
    assert not vault.sync_merge_in_progress()
