"""`workbench inbox`: what agents wrote, listed and settled from the command line (real processes)."""

from __future__ import annotations

import json

import pytest

from helpers import run_cli
from workbench import Vault
from workbench.core.services.gate import Draft
from workbench.core.services.inbox import REVIEW_KEY, Agent

CLAUDE = Agent("claude-code", "agent-claude")


@pytest.fixture
def agents_wrote(sample_copy) -> dict[str, str]:
    vault = Vault.open(sample_copy)
    note = Draft(
        "note", "Stripe retries webhooks for three days", ["stripe"], [("related_to", "mem-entity-stripe")], "Seen.\n"
    )
    ids = {
        "create": vault.agent_create(note, CLAUDE).created_id,
        "supersede": vault.agent_supersede(
            "mem-decision-money-integer-cents", Draft("decision", "Money as Decimal", [], [], "x"), CLAUDE
        ).created_id,
    }
    vault.agent_merge_into("mem-entity-stripe", Draft("entity", "Retry window", [], [], "Three days.\n"), CLAUDE)
    vault.request_forget("mem-note-sentry-healthcheck-noise", CLAUDE, "fixed upstream")
    return ids


def inbox(root, *args: str):
    return run_cli("--vault", str(root), "inbox", *args)


def test_an_empty_inbox(sample_copy):
    result = inbox(sample_copy)
    assert result.returncode == 0 and result.stdout == "the inbox is empty\n"
    assert json.loads(inbox(sample_copy, "--json").stdout) == {"reviewed_until": None, "requests": [], "verdicts": []}


def test_the_inbox_lists_each_request_with_its_author_and_the_commands_that_settle_it(sample_copy, agents_wrote):
    result = inbox(sample_copy)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1] == "4 request(s) from agents, 4 new since the last review"
    assert any(
        "claude-code  asked to forget mem-note-sentry-healthcheck-noise: fixed upstream" in line for line in lines
    )
    assert any(
        f"→ workbench inbox accept|merge|supersede|archive|forget {agents_wrote['create']}" in line for line in lines
    )
    assert any("→ workbench inbox accept|revert mem-entity-stripe" in line for line in lines)
    data = json.loads(inbox(sample_copy, "--json", "--diff", "--mark-reviewed").stdout)
    assert {r["kind"] for r in data["requests"]} == {"create", "supersede", "merge", "forget"}
    assert all(r["new"] and r["agent"] == "claude-code" and r["diff"] for r in data["requests"])
    again = json.loads(inbox(sample_copy, "--json").stdout)
    assert again["reviewed_until"] and not any(r["new"] for r in again["requests"])
    text = inbox(sample_copy, "--diff").stdout
    assert "+Three days." in text and "0 new since the last review" in text


def test_settling_from_the_command_line(sample_copy, agents_wrote):
    created, proposal = agents_wrote["create"], agents_wrote["supersede"]
    dry = inbox(sample_copy, "accept", created, "--dry-run")
    assert dry.returncode == 0 and "-status: draft" in dry.stdout and "-  - action: create" in dry.stdout
    assert Vault.open(sample_copy).get(created).status == "draft"
    assert inbox(sample_copy, "accept", created).returncode == 0
    assert inbox(sample_copy, "accept", proposal).returncode == 0
    assert inbox(sample_copy, "revert", "mem-entity-stripe").returncode == 0
    keep = inbox(sample_copy, "keep", "mem-note-sentry-healthcheck-noise")
    said = "inbox: keep mem-note-sentry-healthcheck-noise, declining claude-code's request to forget it"
    assert keep.returncode == 0 and said in keep.stdout  # once read as keeping the request
    vault = Vault.open(sample_copy)
    assert (
        vault.get(created).status == "active" and vault.get("mem-decision-money-integer-cents").status == "superseded"
    )
    assert "Three days." not in vault.get("mem-entity-stripe").body
    assert not any(REVIEW_KEY in doc.meta for doc in vault.documents)
    assert inbox(sample_copy).stdout == "the inbox is empty\n"


def test_merge_supersede_archive_and_forget_from_the_command_line(sample_copy, agents_wrote):
    created, proposal = agents_wrote["create"], agents_wrote["supersede"]
    assert inbox(sample_copy, "merge", created, "--into", "mem-context-stripe-webhook-flow").returncode == 0
    assert inbox(sample_copy, "archive", proposal).returncode == 0
    refused = inbox(sample_copy, "forget", "mem-note-sentry-healthcheck-noise")
    assert refused.returncode == 3 and "typing the id again" in refused.stderr
    done = inbox(
        sample_copy, "forget", "mem-note-sentry-healthcheck-noise", "--confirm", "mem-note-sentry-healthcheck-noise"
    )
    assert done.returncode == 0
    vault = Vault.open(sample_copy)
    assert vault.get(created).status == "superseded" and vault.get(proposal).status == "archived"
    assert "mem-note-sentry-healthcheck-noise" not in vault


@pytest.mark.parametrize(
    "args, code, words",
    [
        (("accept",), 2, "name the document"),
        (("accept", "mem-entity-postgres"), 3, "no request"),
        (("archive", "mem-entity-stripe"), 3, "does not settle"),
        (("merge", "CREATED"), 3, "needs the other"),
        (("supersede", "CREATED", "--replaces", "mem-entity-nothing"), 3, "no document"),
        (("delete", "CREATED"), 2, "invalid choice"),
    ],
)
def test_what_does_not_fit_is_refused_with_a_reason(sample_copy, agents_wrote, args, code, words):
    args = tuple(agents_wrote["create"] if a == "CREATED" else a for a in args)
    result = inbox(sample_copy, *args)
    assert result.returncode == code and words in result.stderr and "Traceback" not in result.stderr


def test_two_merges_into_one_document_print_two_commands_each_settling_its_own(sample_copy, agents_wrote):
    Vault.open(sample_copy).agent_merge_into(
        "mem-entity-stripe", Draft("entity", "Payout window", [], [], "Two days.\n"), CLAUDE
    )
    lines = [line for line in inbox(sample_copy).stdout.splitlines() if "revert mem-entity-stripe" in line]
    assert len(lines) == 2 and lines[0] != lines[1] and all("--at " in line for line in lines)
    newest = lines[1].split("--at ")[1].strip()
    oldest = lines[0].split("--at ")[1].strip()
    refused = inbox(sample_copy, "revert", "mem-entity-stripe", "--at", oldest)
    assert refused.returncode == 3 and "revert the newer merge “Payout window”" in refused.stderr
    assert inbox(sample_copy, "revert", "mem-entity-stripe", "--at", newest).returncode == 0
    assert inbox(sample_copy, "revert", "mem-entity-stripe", "--at", oldest).returncode == 0
    assert "Retry window" not in Vault.open(sample_copy).get("mem-entity-stripe").body
