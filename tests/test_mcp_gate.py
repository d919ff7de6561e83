"""The write gate as every real client meets it, through the SDK's client and a real server process:

- a stateless client, which starts a new server for every call, can follow the gate's advice
  (search, then create; search, read, then merge), and another agent's searches do not count;
- titles in every script are words to the gate and get real ids; a title with no letter is refused;
- ten clients creating one title at once: exactly one document, nine answers naming it.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from mcp_client import connected, files, once

from workbench import Vault
from workbench.agents.session import GateSession
from workbench.core.vocabulary.model import RefusedError

LINK = ["related_to:mem-entity-stripe"]


async def test_a_stateless_client_searches_then_creates_each_call_its_own_server(sample_copy):
    note = {
        "type": "note",
        "title": "Stripe payouts arrive on the second business day",
        "body": "Seen in the dashboard.",
        "links": LINK,
    }
    assert "search for duplicates" in await once(sample_copy, "memory_write", **note, decision="create", refused=True)
    found = await once(sample_copy, "memory_search", query="stripe payouts business day")
    assert found["count"] >= 1
    written = await once(sample_copy, "memory_write", **note, decision="create")
    assert written["written"] and written["id"] == "mem-note-stripe-payouts-arrive-on-the-second-business-day"
    assert Vault.open(sample_copy).get(written["id"]).meta["provenance"]["agent"] == "claude-code"


async def test_a_stateless_client_searches_reads_then_merges(sample_copy):
    merge = {
        "type": "entity",
        "title": "Stripe payout schedule",
        "body": "Payouts arrive two business days later.",
        "decision": "merge_into:mem-entity-stripe",
    }
    await once(sample_copy, "memory_search", query="stripe payout schedule")
    assert "has not been read" in await once(sample_copy, "memory_write", **merge, refused=True)
    assert (await once(sample_copy, "memory_read", ids="mem-entity-stripe"))["documents"][0]["read_whole"]
    written = await once(sample_copy, "memory_write", **merge)
    assert written["id"] == "mem-entity-stripe"
    assert "Payouts arrive two business days later." in Vault.open(sample_copy).get("mem-entity-stripe").body


async def test_one_agents_searches_do_not_let_another_write(sample_copy):
    note = {"type": "note", "title": "Stripe payouts arrive on the second business day", "links": LINK}
    await once(sample_copy, "memory_search", "claude-code", query="stripe payouts business day")
    await once(sample_copy, "memory_read", "claude-code", ids="mem-entity-stripe")
    assert "search for duplicates" in await once(
        sample_copy, "memory_write", "codex-cli", **note, decision="create", refused=True
    )
    await once(sample_copy, "memory_search", "codex-cli", query="kubernetes pods")
    why = await once(
        sample_copy,
        "memory_write",
        "codex-cli",
        type="entity",
        title="Kubernetes pods",
        decision="merge_into:mem-entity-stripe",
        refused=True,
    )
    assert "not been returned by a search" in why
    # `--agent` names the agent whatever its client calls itself: its evidence is its own.
    await once(
        sample_copy,
        "memory_search",
        "langchain",
        "--agent",
        "researcher",
        "--source",
        "agent-claude",
        query="stripe payouts business day",
    )
    written = await once(
        sample_copy,
        "memory_write",
        "mcp",
        "--agent",
        "researcher",
        "--source",
        "agent-claude",
        **note,
        decision="create",
    )
    assert Vault.open(sample_copy).get(written["id"]).meta["provenance"]["agent"] == "researcher (mcp)"
    assert [r.agent for r in Vault.open(sample_copy).inbox().requests] == ["researcher (mcp)"]


def test_what_an_agent_searched_counts_for_a_window_then_lapses(sample_copy):
    now = [1_000_000.0]
    vault = Vault.open(sample_copy)
    session = GateSession(vault.index.state_dir, lambda: "claude-code", window=600, clock=lambda: now[0])
    session.searched("stripe payouts", ["mem-entity-stripe"])
    later = GateSession(vault.index.state_dir, lambda: "claude-code", window=600, clock=lambda: now[0])  # a new process
    later.require_duplicate_search("note", "Stripe payouts")
    now[0] += 601
    try:
        later.require_duplicate_search("note", "Stripe payouts")
    except RefusedError as exc:
        assert "search for duplicates" in str(exc)
    else:
        raise AssertionError("a search older than the window still counted")


def test_a_search_in_the_singular_counts_for_a_title_in_the_plural(sample_copy):
    """The search stems `pdfs` to `pdf`; the rule did not, and refused a title the search had found."""
    vault = Vault.open(sample_copy)
    session = GateSession(vault.index.state_dir, lambda: "claude-code")
    session.searched("invoice pdf", [])
    session.require_duplicate_search("note", "Invoices as PDFs")
    session.searched("retries policy", [])
    session.require_duplicate_search("note", "Retry policies")  # `retries` and `retry` fold alike


def test_torn_or_foreign_evidence_is_read_as_none(sample_copy):
    vault = Vault.open(sample_copy)
    session = GateSession(vault.index.state_dir, lambda: "claude-code")
    session.searched("stripe payouts", [])
    [kept] = (vault.index.state_dir / "agents").glob("*.json")
    kept.write_text('{"agent": "claude-code", "searches": [{"words": ', "utf-8")
    fresh = GateSession(vault.index.state_dir, lambda: "claude-code")
    try:
        fresh.require_duplicate_search("note", "Stripe payouts")
    except RefusedError:
        pass
    else:
        raise AssertionError("torn evidence counted")
    fresh.searched("stripe payouts", [])
    fresh.require_duplicate_search("note", "Stripe payouts")


@pytest.mark.slow
def test_an_agents_evidence_stays_the_same_size_however_many_writes_it_makes(tmp_path):
    """An agent that searches, writes and reads thousands of times within one window: its evidence
    file stops growing (what it writes on each call is bounded), while the latest evidence counts."""
    now = [1_000_000.0]
    session = GateSession(tmp_path / ".workbench", lambda: "claude-code", clock=lambda: now[0])
    sizes = {}
    for n in range(1, 501):
        now[0] += 0.5  # 250 s in all: every piece of evidence is inside the window
        session.searched(f"retry policy number {n}", [f"mem-note-hit-{n}-{k}" for k in range(10)])
        session.wrote(f"mem-note-written-{n}", "d" * 64, 500)
        session.read(f"mem-note-hit-{n}-0", "e" * 64, 0, 100, 100)
        if n in (150, 500):
            [kept] = (tmp_path / ".workbench" / "agents").glob("*.json")
            sizes[n] = kept.stat().st_size
    assert sizes[500] <= sizes[150] * 1.05, sizes
    assert sizes[500] < 100_000, sizes
    session.require_duplicate_search("note", "Retry policy number 500")
    session.require_read("mem-note-hit-500-0", "e" * 64, "merge into it")
    session.require_read("mem-note-written-500", "d" * 64, "merge into it")


# -- titles in every script ----------------------------------------------------------------------

SCRIPTS = [
    (
        "Політика повторних спроб для вебхуків",
        "політика повторних спроб",
        "mem-note-politika-povtornikh-sprob-dlya-vebkhukiv",
    ),
    (
        "Webhook-Wiederholungen für Zahlungsanbieter",
        "webhook wiederholungen fur zahlungsanbieter",
        "mem-note-webhook-wiederholungen-fur-zahlungsanbieter",
    ),
    ("重试策略 for Stripe", "重试策略 stripe", "mem-note-zhong-shi-ce-lue-for-stripe"),
    ("Ελληνικά σημειώματα", "ελληνικα σημειωματα", "mem-note-ellinika-simeiomata"),
]


async def test_titles_in_four_scripts_need_their_own_search_and_get_real_ids(sample_copy):
    async with connected(sample_copy) as agent:
        await agent.call("memory_search", query="unrelated words about kubernetes")
        for title, query, expected in SCRIPTS:
            note = {"type": "note", "title": title, "body": "Text.", "links": LINK}
            assert "search for duplicates" in await agent.refused("memory_write", **note, decision="create"), title
            await agent.call("memory_search", query=query)
            written = await agent.call("memory_write", **note, decision="create")
            assert written["id"] == expected
    vault = Vault.open(sample_copy)
    assert [vault.get(expected).title for _, _, expected in SCRIPTS] == [title for title, _, _ in SCRIPTS]


async def test_a_title_with_no_letter_is_refused_with_why(sample_copy):
    before = files(sample_copy)
    async with connected(sample_copy) as agent:
        await agent.call("memory_search", query="anything at all")
        for title in ("---", "🚀🔥", "?!", "— … —"):
            for decision in ("propose", "create"):
                why = await agent.refused("memory_write", type="note", title=title, links=LINK, decision=decision)
                assert "no letter or digit" in why, (title, why)
        # An emoji beside words is not a word, and not part of the id.
        await agent.call("memory_search", query="launch checklist")
        written = await agent.call(
            "memory_write", type="note", title="🚀 Launch checklist", links=LINK, decision="create"
        )
        assert written["id"] == "mem-note-launch-checklist"
    assert set(files(sample_copy)) - set(before) == {"notes/mem-note-launch-checklist.md"}


# -- concurrency ---------------------------------------------------------------------------------


async def test_ten_clients_creating_one_title_at_once_make_one_document(sample_copy):
    note = {"type": "note", "title": "Stripe disputes close after sixty days", "body": "From the docs.", "links": LINK}
    start = asyncio.Event()

    async def client(number: int) -> tuple[bool, str]:
        async with connected(sample_copy, f"claude-code-{number}") as agent:
            await agent.call("memory_write", **note)  # propose: each its own duplicate search
            await start.wait()
            result = await agent.session.call_tool("memory_write", {**note, "decision": "create"})
            return result.is_error, result.content[0].text

    tasks = [asyncio.create_task(client(n)) for n in range(10)]
    deadline = time.monotonic() + 120
    while (
        not (sample_copy / ".workbench/agents").exists()
        or len(list((sample_copy / ".workbench/agents").glob("*.json"))) < 10
    ):
        assert time.monotonic() < deadline
        await asyncio.sleep(0.1)
    start.set()
    answers = await asyncio.gather(*tasks)
    written = [text for failed, text in answers if not failed]
    refused = [text for failed, text in answers if failed]
    assert len(written) == 1 and len(refused) == 9, answers
    for text in refused:
        assert "already exists: mem-note-stripe-disputes-close-after-sixty-days" in text, text
    vault = Vault.open(sample_copy)
    assert [d.id for d in vault.documents if d.title == note["title"]] == [
        "mem-note-stripe-disputes-close-after-sixty-days"
    ]


async def test_the_loser_is_told_which_document_to_merge_into_and_may_read_it(sample_copy):
    note = {"type": "note", "title": "Stripe disputes close after sixty days", "body": "From the docs.", "links": LINK}
    await once(sample_copy, "memory_write", "claude-code", **note)
    await once(sample_copy, "memory_write", "claude-code", **note, decision="create")
    await once(sample_copy, "memory_write", "codex-cli", **note)
    why = await once(
        sample_copy,
        "memory_write",
        "codex-cli",
        **{**note, "title": "stripe DISPUTES close, after sixty days!"},
        decision="create",
        refused=True,
    )
    assert "already exists: mem-note-stripe-disputes-close-after-sixty-days (draft)" in why
    assert "merge_into:mem-note-stripe-disputes-close-after-sixty-days" in why
    await once(sample_copy, "memory_read", "codex-cli", ids="mem-note-stripe-disputes-close-after-sixty-days")
    merged = await once(
        sample_copy,
        "memory_write",
        "codex-cli",
        **note,
        decision="merge_into:mem-note-stripe-disputes-close-after-sixty-days",
    )
    assert merged["written"]


TWINS = [
    "Stripe dis\u200dputes close after sixty days",  # a zero-width joiner inside a word
    "Stripe dis\u00adputes close after sixty days",  # a soft hyphen
    "Stripe dis\u2060putes close after sixty days",  # a word joiner
    "\U0001d412tripe disputes close after sixty days",  # a mathematical bold S
    "Str\u0456pe disputes close \u0430fter sixty days",  # Cyrillic і and а
    "Stripe disputes close \u0391fter sixty days",  # a Greek capital alpha
]


async def test_a_title_that_reads_the_same_is_the_same_title_to_the_check_and_the_ranking(sample_copy):
    note = {"type": "note", "title": "Stripe disputes close after sixty days", "body": "From the docs.", "links": LINK}
    cjk = {"type": "note", "title": "重试策略 说明", "body": "说明。", "links": LINK}
    async with connected(sample_copy) as agent:
        await agent.call("memory_search", query="stripe disputes sixty days")
        original = (await agent.call("memory_write", **note, decision="create"))["id"]
        await agent.call("memory_search", query="重试策略")
        cjk_id = (await agent.call("memory_write", **cjk, decision="create"))["id"]
        for title, wanted, draft in [
            *((t, original, note) for t in TWINS),
            ("重试 策略说明", cjk_id, cjk),  # a space inside a CJK run
            ("重 试策略说明", cjk_id, cjk),
        ]:
            proposed = await agent.call("memory_write", **{**draft, "title": title})
            assert proposed["candidates"][0]["id"] == wanted, (title, proposed["candidates"][:2])
            why = await agent.refused("memory_write", **{**draft, "title": title}, decision="create")
            assert f"already exists: {wanted}" in why, (title, why)
    vault = Vault.open(sample_copy)
    assert [d.id for d in vault.documents if "disputes" in d.id] == [original]
