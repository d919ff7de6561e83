"""What a page of the review list works out again, in a long-lived process (the MCP server) where
an agent asks page after page and judges each pair between them: the documents are not sorted
again while unchanged, the verdicts file is parsed only where it grew and each verdict's state
read once while the records are unchanged, and the answers stay those worked out from scratch."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import pytest
from helpers import sorts_noted
from test_review import long_vault

from workbench import Vault
from workbench.agents.session import GateSession
from workbench.agents import tools as tools_module
from workbench.agents.tools import MemoryTools
from workbench.core.services import review as review_module
from workbench.core.services import verdicts as verdicts_module
from workbench.core.services.agentwrites import Agent
from workbench.core.vocabulary.model import Document, RefusedError
from workbench.core.services.verdicts import VERDICT_FILE

CENTS, DECIMAL, TAX = (
    "mem-decision-money-integer-cents",
    "mem-decision-money-numeric-decimal",
    "mem-decision-tax-engine-choice",
)


def test_the_documents_are_sorted_once_while_unchanged_and_follow_a_change(sample_copy, monkeypatch):
    vault = Vault.open(sample_copy)
    first = vault.index.documents
    with sorts_noted(monkeypatch) as sizes:
        again = vault.index.documents
    assert again == first and not sizes  # nothing changed: the list kept for this generation, no sort
    again.clear()  # a caller's copy: clearing it leaves the index's own alone
    assert vault.index.documents == first
    note = (sample_copy / "notes" / "mem-note-celery-visibility-timeout.md").read_text()
    (sample_copy / "notes" / "mem-note-zz-late.md").write_text(
        note.replace("id: mem-note-celery-visibility-timeout", "id: mem-note-zz-late")
    )
    vault.refresh()
    assert [d.id for d in vault.index.documents] == sorted([d.id for d in first] + ["mem-note-zz-late"])


def test_the_verdicts_file_is_parsed_where_it_grew_and_states_read_once_while_unchanged(sample_copy, monkeypatch):
    vault = Vault.open(sample_copy)
    vault.judge(CENTS, DECIMAL, "companion", "both stand", "scripted")
    parsed, stated = [], []
    check, state = verdicts_module._check_line, verdicts_module._state
    monkeypatch.setattr(verdicts_module, "_check_line", lambda data: (parsed.append(data["id"]), check(data))[1])
    monkeypatch.setattr(verdicts_module, "_state", lambda *a: (stated.append(a[0].id), state(*a))[1])
    first = vault.verdicts()
    assert len(first) == 1
    parsed.clear(), stated.clear()
    added = vault.judge(CENTS, TAX, "unsure", "", "scripted")
    found = vault.verdicts()
    assert [v.id for v in found] == [first[0].id, added.id]
    assert parsed.count(first[0].id) == 0 and stated == [added.id]  # only the new line and its state
    assert [v.to_json() for v in found] == [v.to_json() for v in Vault.open(sample_copy).verdicts()]


def test_a_verdicts_file_changed_otherwise_than_by_a_line_added_is_read_whole(sample_copy):
    vault = Vault.open(sample_copy)
    one = vault.judge(CENTS, DECIMAL, "companion", "both stand", "scripted")
    two = vault.judge(CENTS, TAX, "replaces", "the newer decides it", "scripted")
    assert [v.id for v in vault.verdicts()] == [one.id, two.id]
    path = sample_copy / VERDICT_FILE
    lines = path.read_text().splitlines()
    path.write_text("{half a line\n" + lines[1] + "\n")  # the first line edited by hand
    found, problems = vault.verdicts(), vault.verdict_problems()
    assert [v.id for v in found] == [two.id] and [p.line for p in problems] == [1]
    path.write_text(lines[1] + "\n" + lines[0])  # reordered, the last line without its end
    assert [v.id for v in vault.verdicts()] == [two.id, one.id]
    with path.open("a") as handle:  # its end comes, and a broken line after it
        handle.write("\n{cut")
    assert [v.id for v in vault.verdicts()] == [two.id, one.id]
    assert [(p.line, "not a verdict" in p.message) for p in vault.verdict_problems()] == [(3, True)]


def test_a_verdicts_state_follows_a_record_changed_on_disk(sample_copy):
    vault = Vault.open(sample_copy)
    verdict = vault.judge(CENTS, DECIMAL, "replaces", "the newer decides it", "scripted")
    assert [v.state for v in vault.verdicts()] == ["open"]
    path = sample_copy / vault.get(CENTS).path
    path.write_text(path.read_text() + "\nA later note.\n")
    vault.refresh()
    assert [(v.id, v.state) for v in vault.verdicts()] == [(verdict.id, "stale")]
    line = json.loads((sample_copy / VERDICT_FILE).read_text())
    assert line["id"] == verdict.id


def _tools(vault: Vault) -> MemoryTools:
    return MemoryTools(
        vault, lambda: Agent("scripted", "agent-claude"), GateSession(vault.state_dir, lambda: "scripted")
    )


def test_the_next_page_is_excerpted_while_the_agent_judges_this_one(builder, monkeypatch):
    long_vault(builder, 16)
    tools = _tools(Vault.open(builder.root))
    first = tools.review(limit=2)
    assert first["cursor"] and tools._ahead is not None
    tools._ahead.join()
    excerpted = []
    pair_of = review_module._pair

    def counted(pair, docs):
        excerpted.append(threading.current_thread().name)
        return pair_of(pair, docs)

    monkeypatch.setattr(review_module, "_pair", counted)
    second = tools.review(limit=2, cursor=first["cursor"])
    tools._ahead.join()  # the page after it, excerpted meanwhile
    assert second["pairs"] and threading.current_thread().name not in excerpted  # every pair was excerpted ahead
    assert excerpted  # the page after it was
    monkeypatch.setattr(review_module, "_SHOWN", {})
    assert _tools(Vault.open(builder.root)).review(limit=2, cursor=first["cursor"]) == second  # as from scratch


def test_a_record_changed_after_its_pair_was_excerpted_ahead_is_shown_as_it_is_now(builder, monkeypatch):
    long_vault(builder, 16)
    vault = Vault.open(builder.root)
    tools = _tools(vault)
    first = tools.review(limit=2)
    tools._ahead.join()
    ahead = review_module.review_page(vault.index, 2, first["cursor"])
    for excerpt in (ahead.pairs[0].older, ahead.pairs[0].newer):
        path = builder.root / excerpt.path
        path.write_text(path.read_text().replace("# Decision", "# Decision, reworded"))
    vault.refresh()
    shown = tools.review(limit=2, cursor=first["cursor"])
    openings = {e["id"]: e["opening"] for p in shown["pairs"] for e in (p["older"], p["newer"])}
    assert ahead.pairs[0].older.id in openings and "reworded" in openings[ahead.pairs[0].older.id]
    monkeypatch.setattr(review_module, "_SHOWN", {})
    assert _tools(Vault.open(builder.root)).review(limit=2, cursor=first["cursor"]) == shown


def test_the_next_page_waits_for_this_ones_answer_to_be_sent_and_for_calls_under_way(builder, monkeypatch):
    """Excerpting ahead while the server encodes and sends the answer, or answers a judgement,
    would hold the interpreter against it: the work waits for the server's word that the answer
    went out, and pauses while a call is under way."""
    long_vault(builder, 16)
    monkeypatch.setattr(tools_module, "AHEAD_WAIT", 60)
    tools = _tools(Vault.open(builder.root))
    excerpted = []
    pair_of = review_module._pair

    def counted(pair, docs):
        if threading.current_thread() is tools._ahead:  # not another test's thread still finishing
            excerpted.append(pair)
        return pair_of(pair, docs)

    monkeypatch.setattr(review_module, "_pair", counted)
    tools.review(limit=2)
    tools._ahead.join(0.5)
    assert tools._ahead.is_alive() and excerpted == []  # waiting for the answer
    with tools.serving():  # a judgement sent right after it, under way
        tools.answered()
        tools._ahead.join(0.5)
        assert tools._ahead.is_alive() and excerpted == []  # the call goes first
    tools._ahead.join(60)
    assert not tools._ahead.is_alive() and len(excerpted) == 2


def test_the_server_freezes_what_the_open_made(sample_copy):
    """The collector's full passes walked every document's objects in a long-lived server (0.1-0.3 s
    each at 10,000 documents, inside whichever call set one off)."""
    script = (
        "import gc, sys\n"
        "from workbench import Vault\n"
        "from workbench.agents import server\n"
        "class Ran:\n"
        "    def run(self, transport):\n"
        "        print(gc.get_freeze_count())\n"
        "server.build_server = lambda *a, **k: Ran()\n"
        "server.serve(Vault.open(sys.argv[1]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(sample_copy)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split()[-1]) > 10_000


def test_accepting_a_replacement_reads_the_supersessions_it_walks_not_every_documents(sample_copy, monkeypatch):
    vault = Vault.open(sample_copy)
    verdict = vault.judge(CENTS, DECIMAL, "replaces", "the newer decides it again", "scripted")
    read = []
    supersedes = Document.supersedes
    monkeypatch.setattr(Document, "supersedes", property(lambda doc: (read.append(doc.id), supersedes.fget(doc))[1]))
    vault.accept_verdict(verdict.id, dry_run=True)
    assert 0 < len(set(read)) <= 3 < len(vault.documents)
    vault.accept_verdict(verdict.id)
    assert vault.get(CENTS).status == "superseded" and CENTS in vault.get(DECIMAL).supersedes
    tax = sample_copy / vault.get(TAX).path  # TAX states it replaces DECIMAL, which stays active
    tax.write_text(tax.read_text().replace("supersedes: []", f"supersedes: [{DECIMAL}]", 1))
    vault.refresh()
    with pytest.raises(RefusedError, match="transitively"):  # a cycle is still found on the way
        vault.supersede(TAX, DECIMAL)
