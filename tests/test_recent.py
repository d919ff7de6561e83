"""What changed lately (`workbench recent`, `memory_recent`): newest first, from the change log and
the documents' own dates, with who when the log says it; bounded; only documents that exist."""

from __future__ import annotations

import datetime as dt
import json

from helpers import run_cli
from mcp_client import connected, files

from workbench import Vault
from workbench.core.services import recent

NOW = dt.datetime(2026, 12, 1, 12, 0)


def test_the_newest_log_line_names_the_change_and_who(builder):
    builder.add("mem-note-a", updated="2026-11-20")
    builder.add("mem-note-b", updated="2026-11-29")
    builder.add("mem-note-old", updated="2025-01-01")
    builder.raw(
        "log.md",
        "# Log\n\n"
        "- 2026-11-21 create mem-note-a (agent-claude)\n"
        "- 2026-11-30 09:15 merge “x” into mem-note-a (agent claude-code)\n"
        "- 2026-11-30 10:00 forget mem-note-gone (manual, Ana)\n"
        "a line that is not a change\n",
    )
    vault = Vault.open(builder.root)
    changes = vault.recent(7, now=NOW)
    assert [c.doc.id for c in changes] == ["mem-note-a", "mem-note-b"]  # mem-note-old too old, mem-note-gone gone
    first, second = (c.to_json() for c in changes)
    assert first["when"] == "2026-11-30T09:15" and first["what"] == "merge “x” into mem-note-a (agent claude-code)"
    assert first["by"] == "agent claude-code"
    assert second["when"] == "2026-11-29T00:00" and second["what"] == "updated" and second["by"] is None
    assert [c.doc.id for c in vault.recent(2, now=NOW)] == ["mem-note-a"]


def test_a_date_newer_than_the_log_wins(builder):
    builder.add("mem-note-a", updated="2026-11-30")
    builder.raw("log.md", "- 2026-11-25 10:00 create mem-note-a (agent-codex)\n")
    (change,) = Vault.open(builder.root).recent(30, now=NOW)
    assert (change.what, change.by) == ("updated", None)


def test_only_the_end_of_a_long_log_is_read(tmp_path, monkeypatch):
    log = tmp_path / "log.md"
    log.write_text("- 2026-11-01 create mem-note-first\n" + "x" * 5000 + "\n- 2026-11-02 create mem-note-last\n")
    monkeypatch.setattr(recent, "LOG_TAIL", 1000)
    assert [line.text for line in recent.log_lines(log)] == ["create mem-note-last"]
    assert recent.log_lines(tmp_path / "none.md") == []


def test_the_command_prints_newest_first_and_json(sample_copy):
    assert (
        run_cli("--vault", str(sample_copy), "status", "mem-note-flaky-pdf-snapshot-fonts", "archived").returncode == 0
    )
    shown = run_cli("--vault", str(sample_copy), "recent", "--limit", "1")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert "mem-note-flaky-pdf-snapshot-fonts" in lines[0] and "draft → archived" in lines[1]
    data = json.loads(run_cli("--vault", str(sample_copy), "recent", "--days", "3650", "--limit", "5", "--json").stdout)
    assert len(data["changes"]) == 5 and data["more"] > 0
    assert data["changes"][0]["id"] == "mem-note-flaky-pdf-snapshot-fonts"
    whens = [c["when"] for c in data["changes"]]
    assert whens == sorted(whens, reverse=True)
    refused = run_cli("--vault", str(sample_copy), "recent", "--days", "0")
    assert refused.returncode == 2 and "Traceback" not in refused.stderr


async def test_an_agent_sees_its_own_write_awaiting_review_and_cannot_change_what_it_only_listed(sample_copy):
    async with connected(sample_copy) as agent:
        await agent.call("memory_search", query="stripe payouts business day")
        note = {"type": "note", "title": "Stripe payouts arrive on the second business day"}
        written = await agent.call("memory_write", **note, links=["related_to:mem-entity-stripe"], decision="create")
        answer = await agent.call("memory_recent", days=2, limit=1)
        assert answer["count"] == 1 and answer["more"] >= 0
        (change,) = answer["changes"]
        assert change["id"] == written["id"] and change["awaiting_review"]
        assert change["by"] == "agent claude-code" and change["what"].startswith(f"create {written['id']}")
        listed = (await agent.call("memory_recent", days=366, limit=50))["changes"]
        assert len(listed) == 50
        other = next(c["id"] for c in listed if c["type"] == "entity" and c["id"] != "mem-entity-stripe")
        before = files(sample_copy)
        refused = await agent.refused(
            "memory_write", type="entity", title="x", body="y", decision=f"merge_into:{other}"
        )
        assert "search" in refused or "read" in refused
        assert files(sample_copy) == before
        for wrong in (0, 400):
            said = await agent.refused("memory_recent", days=wrong)
            assert "argument days" in said and "366" in said, said


def test_the_tools_answer_stays_within_the_read_limit_whole(builder):
    """Fifty long entries would pass 45,000 characters: the last ones are left for a narrower ask."""
    from workbench.agents.text import answer_text
    from workbench.agents.tools import READ_CHARACTERS, MemoryTools

    ids = [f"mem-note-{'long-words-' * 17}{n}" for n in range(50)]
    today = dt.date.today().isoformat()
    for doc_id in ids:
        builder.add(doc_id, updated=today)
    who = "agent " + "a" * 110
    builder.raw("log.md", "".join(f"- {today} 00:00 merge “{'x' * 200}” into {i} ({who})\n" for i in ids))
    tools = MemoryTools(Vault.open(builder.root), lambda: None)
    answer = tools.recent(366, 50)
    assert len(answer_text(answer)) <= READ_CHARACTERS
    assert 0 < answer["count"] < 50 and answer["count"] + answer["more"] == 50
    assert "fewer days" in answer["next"] and answer["changes"][0]["by"] == who
