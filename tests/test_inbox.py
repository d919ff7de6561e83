"""Agents' writes held for the curator (core/services/inbox.py) and Memory Core's pack for a question
(core/views/retrieval.py), through the Vault facade, on copies of the sample vault."""

from __future__ import annotations

import shutil

import pytest

from workbench import Vault
from workbench.core.services.gate import Draft
from workbench.core.services.inbox import REVIEW_KEY, Agent
from workbench.core.vocabulary.model import RefusedError

CLAUDE = Agent("claude-code", "agent-claude")
CODEX = Agent("codex-cli", "agent-codex")


def note(title: str = "Stripe retries webhooks for three days", body: str = "Seen in the dashboard.\n") -> Draft:
    return Draft("note", title, ["stripe"], [("related_to", "mem-entity-stripe")], body)


@pytest.fixture
def vault(sample_copy) -> Vault:
    return Vault.open(sample_copy)


def log_text(vault: Vault) -> str:
    return (vault.root / "log.md").read_text("utf-8")


# -- agents' writes ----------------------------------------------------------------------------


def test_an_agents_new_document_is_a_draft_naming_the_agent_and_awaiting_review(vault):
    plan = vault.agent_create(note(), CLAUDE)
    doc = vault.get(plan.created_id)
    assert doc.status == "draft"
    assert doc.meta["provenance"] == {"source": "agent-claude", "confidence": "medium", "agent": "claude-code"}
    [entry] = doc.meta[REVIEW_KEY]
    assert entry["action"] == "create" and entry["agent"] == "claude-code"
    assert f"create {doc.id} as a draft (agent claude-code)" in log_text(vault)
    assert vault.problems_for(doc.id) == []


def test_an_agents_merge_is_a_dated_section_and_a_request_on_its_target(vault):
    before = vault.get("mem-entity-stripe")
    vault.agent_merge_into("mem-entity-stripe", Draft("entity", "Retry window", [], [], "Three days."), CODEX)
    after = vault.get("mem-entity-stripe")
    assert after.body.startswith(before.body.rstrip("\n"))
    assert "## " in after.body and "Retry window\n\nThree days.\n" in after.body
    assert after.meta["provenance"] == before.meta["provenance"]  # the document's author is still its author
    assert after.meta[REVIEW_KEY][0] | {"at": ""} == {
        "action": "merge",
        "agent": "codex-cli",
        "at": "",
        "title": "Retry window",
    }
    assert "(agent codex-cli)" in log_text(vault)


def test_an_agents_supersession_is_a_proposal_the_old_decision_stays_active(vault):
    plan = vault.agent_supersede(
        "mem-decision-money-integer-cents",
        Draft("decision", "Store money as Decimal", ["money"], [], "Use Decimal."),
        CLAUDE,
    )
    new = vault.get(plan.created_id)
    assert new.status == "draft" and new.supersedes == []
    assert ("related_to", "mem-decision-money-integer-cents") in [(l.type, l.target) for l in new.links]
    assert new.meta[REVIEW_KEY][0]["target"] == "mem-decision-money-integer-cents"
    assert vault.get("mem-decision-money-integer-cents").status == "active"
    assert [p for p in vault.problems if p.doc_id == new.id] == []


def test_a_request_to_forget_deletes_nothing_and_changes_no_date(vault):
    before = vault.get("mem-note-sentry-healthcheck-noise")
    vault.request_forget(before.id, CLAUDE, "obsolete:\nline two")
    after = vault.get(before.id)
    assert after.body == before.body and after.meta["updated_at"] == before.meta["updated_at"]
    assert after.meta[REVIEW_KEY][0]["reason"] == "obsolete: line two"
    assert vault.request_forget(before.id, CLAUDE).empty  # once is enough


@pytest.mark.parametrize(
    "write",
    [
        lambda v: v.agent_create(note(body="api_key = sk-live-abcdefghijklmnopqrstuvwx\n"), CLAUDE),
        lambda v: v.agent_create(Draft("nope", "A title", [], [("related_to", "mem-entity-stripe")]), CLAUDE),
        lambda v: v.agent_create(Draft("note", "An island", [], []), CLAUDE),
        lambda v: v.agent_create(Draft("note", "Links nowhere", [], [("related_to", "mem-entity-nothing")]), CLAUDE),
        lambda v: v.agent_merge_into("mem-decision-api-fastapi", note(), CLAUDE),
        lambda v: v.agent_merge_into("mem-decision-jobs-celery-redis", note(), CLAUDE),
        lambda v: v.agent_supersede("mem-decision-jobs-celery-redis", Draft("decision", "Jobs again", [], []), CLAUDE),
        lambda v: v.agent_supersede("mem-entity-stripe", Draft("decision", "Not a decision", [], []), CLAUDE),
        lambda v: v.agent_supersede("mem-decision-api-fastapi", Draft("note", "A note", [], []), CLAUDE),
        lambda v: v.request_forget("mem-note-nothing", CLAUDE),
    ],
)
def test_an_agents_write_the_rules_refuse_writes_nothing(vault, write):
    before = {p: p.read_bytes() for p in vault.root.rglob("*.md")}
    with pytest.raises(RefusedError):
        write(vault)
    assert {p: p.read_bytes() for p in vault.root.rglob("*.md")} == before


def test_an_agent_is_named_safely_and_only_with_an_agents_source():
    assert Agent("evil\nname: [x]\x1b[31m" + "x" * 100, "agent-codex").name.startswith("evil-name-")
    assert len(Agent("y" * 500, "agent-claude").name) <= 64
    assert Agent("", "agent-claude").name == "unknown-agent"
    with pytest.raises(RefusedError):
        Agent("me", "manual")


# -- the inbox ---------------------------------------------------------------------------------


def fill(vault: Vault) -> dict[str, str]:
    created = vault.agent_create(note(), CLAUDE).created_id
    proposal = vault.agent_supersede(
        "mem-decision-money-integer-cents", Draft("decision", "Store money as Decimal", [], [], "x"), CODEX
    ).created_id
    vault.agent_merge_into("mem-entity-stripe", Draft("entity", "Retry window", [], [], "Three days."), CLAUDE)
    vault.request_forget("mem-note-sentry-healthcheck-noise", CODEX, "obsolete")
    return {
        "create": created,
        "supersede": proposal,
        "merge": "mem-entity-stripe",
        "forget": "mem-note-sentry-healthcheck-noise",
    }


def test_the_inbox_is_every_request_in_the_files_and_survives_losing_the_derived_state(vault, sample_copy):
    ids = fill(vault)
    inbox = vault.inbox()
    assert sorted((r.kind, r.doc_id, r.agent) for r in inbox.requests) == sorted(
        [
            ("create", ids["create"], "claude-code"),
            ("supersede", ids["supersede"], "codex-cli"),
            ("merge", "mem-entity-stripe", "claude-code"),
            ("forget", ids["forget"], "codex-cli"),
        ]
    )
    assert len(inbox.new) == 4
    vault.mark_inbox_reviewed(inbox.newest)
    assert vault.inbox().new == []
    shutil.rmtree(sample_copy / ".workbench")
    again = Vault.open(sample_copy).inbox()
    assert [r.to_json() for r in again.requests] == [r.to_json() for r in inbox.requests]
    assert len(again.new) == 4  # the cursor was derived state: everything is new again, nothing is lost


def test_an_empty_inbox_and_the_sample_vaults_own_agent_drafts(vault):
    assert len(vault.inbox()) == 0  # only what came through the agents' gate waits in it


def test_each_request_shows_its_diff_from_the_history_or_from_the_files(vault, sample_copy):
    ids = fill(vault)
    by_kind = {r.kind: r for r in vault.inbox().requests}
    assert "+## " in vault.inbox_diff(by_kind["merge"]) and "-updated_at" in vault.inbox_diff(by_kind["merge"])
    assert vault.inbox_diff(by_kind["create"]).startswith("--- /dev/null")
    assert "+++ /dev/null" in vault.inbox_diff(by_kind["forget"])  # what forgetting it would remove
    shutil.rmtree(sample_copy / ".workbench")
    fresh = Vault.open(sample_copy)
    by_kind = {r.kind: r for r in fresh.inbox().requests}
    merged = fresh.inbox_diff(by_kind["merge"])
    assert merged.splitlines()[2:] == ["+## " + merged.split("+## ")[1].splitlines()[0], "+", "+Three days."]
    assert fresh.inbox_diff(by_kind["supersede"]).startswith(
        "--- /dev/null\n+++ b/" + f"decisions/{ids['supersede']}.md"
    )


def requests_on(vault: Vault, doc_id: str) -> list:
    return vault.get(doc_id).meta.get(REVIEW_KEY, [])


def test_accepting_a_draft_makes_it_active_and_settles_it_in_one_change(vault):
    ids = fill(vault)
    plan = vault.settle(ids["create"], "accept")
    assert plan.paths == [f"notes/{ids['create']}.md"]
    doc = vault.get(ids["create"])
    assert doc.status == "active" and REVIEW_KEY not in doc.meta
    assert "inbox: accept claude-code's new" in log_text(vault)
    vault.undo()
    assert vault.get(ids["create"]).status == "draft" and requests_on(vault, ids["create"])


def test_accepting_a_proposal_supersedes_its_decision(vault):
    ids = fill(vault)
    vault.settle(ids["supersede"], "accept")
    new, old = vault.get(ids["supersede"]), vault.get("mem-decision-money-integer-cents")
    assert (new.status, old.status) == ("active", "superseded")
    assert old.superseded_by == [new.id] and new.supersedes == ["mem-decision-money-integer-cents"]
    assert REVIEW_KEY not in new.meta
    assert not [p for p in vault.problems if p.doc_id in (new.id, old.id) and p.severity == "error"]


def test_archiving_a_proposal_declines_it(vault):
    ids = fill(vault)
    vault.settle(ids["supersede"], "archive")
    assert vault.get(ids["supersede"]).status == "archived"
    assert vault.get("mem-decision-money-integer-cents").status == "active"


def test_merging_a_draft_into_another_document_and_letting_it_supersede_one(vault):
    ids = fill(vault)
    vault.settle(ids["create"], "merge", target="mem-entity-stripe")
    draft = vault.get(ids["create"])
    assert (
        draft.status == "superseded" and draft.superseded_by == ["mem-entity-stripe"] and REVIEW_KEY not in draft.meta
    )
    other = vault.agent_create(note("Stripe webhook notes, take two"), CLAUDE).created_id
    vault.settle(other, "supersede", target=ids["create"])
    assert vault.get(other).status == "active"


def test_a_merge_is_accepted_as_it_is_or_reverted_exactly(vault):
    before = (vault.root / "entities/mem-entity-stripe.md").read_bytes()
    fill(vault)
    plan = vault.settle("mem-entity-stripe", "revert")
    assert (vault.root / "entities/mem-entity-stripe.md").read_bytes() == before
    assert "revert claude-code's merge “Retry window”" in plan.summary
    vault.agent_merge_into("mem-entity-stripe", Draft("entity", "Another", [], [], "More."), CLAUDE)
    vault.settle("mem-entity-stripe", "accept")
    after = vault.get("mem-entity-stripe")
    assert "More." in after.body and REVIEW_KEY not in after.meta


def test_two_merges_into_one_document_are_reverted_newest_first_each_on_its_own(vault):
    path = vault.root / "entities/mem-entity-stripe.md"
    before = path.read_bytes()
    vault.agent_merge_into("mem-entity-stripe", Draft("entity", "Retry window", [], [], "Three days.\n"), CLAUDE)
    middle = path.read_bytes()
    vault.agent_merge_into("mem-entity-stripe", Draft("entity", "Payout window", [], [], "Two days.\n"), CODEX)
    first, second = vault.inbox().for_document("mem-entity-stripe")
    assert first.at != second.at and (first.note, second.note) == ("Retry window", "Payout window")
    with pytest.raises(RefusedError, match="revert the newer merge “Payout window”.*first"):
        vault.settle("mem-entity-stripe", "revert", at=first.at)
    assert "Payout window" in vault.settle("mem-entity-stripe", "revert").summary  # the newest, unnamed
    assert path.read_bytes() == middle
    assert "Retry window" in vault.settle("mem-entity-stripe", "revert", at=first.at).summary
    assert path.read_bytes() == before and vault.inbox().requests == ()


def test_a_merge_changed_since_is_not_reverted(vault):
    fill(vault)
    doc = vault.get("mem-entity-stripe")
    vault.save(doc.__class__(doc.id, doc.path, doc.meta, doc.body + "\nA person's line.\n", doc.digest))
    with pytest.raises(RefusedError, match="changed since"):
        vault.settle("mem-entity-stripe", "revert")


def test_a_request_to_forget_is_kept_archived_or_carried_out_with_the_id_typed_again(vault):
    ids = fill(vault)
    doc_id = ids["forget"]
    vault.settle(doc_id, "keep")
    assert REVIEW_KEY not in vault.get(doc_id).meta and vault.get(doc_id).status == "active"
    vault.request_forget(doc_id, CODEX, "really")
    with pytest.raises(RefusedError, match="typing the id again"):
        vault.settle(doc_id, "forget", confirm="mem-note-other")
    assert doc_id in vault
    vault.settle(doc_id, "forget", confirm=doc_id)
    assert doc_id not in vault and doc_id not in log_text(vault)


def test_forgetting_from_the_inbox_keeps_what_the_curator_has_seen(vault):
    ids = fill(vault)
    vault.mark_inbox_reviewed(vault.inbox().newest)
    vault.settle(ids["forget"], "forget", confirm=ids["forget"])  # forget drops every derived state
    assert vault.inbox().new == [] and len(vault.inbox()) == 3


def test_a_request_reads_as_a_sentence_after_its_agent(vault):
    fill(vault)
    said = {r.kind: f"{r.agent} {r.describe()}" for r in vault.inbox().requests}
    assert said["create"].startswith("claude-code wrote a new note, mem-note-")
    assert said["supersede"] == (
        "codex-cli proposed a new decision, mem-decision-store-money-as-decimal, "
        "to supersede mem-decision-money-integer-cents"
    )
    assert said["forget"] == "codex-cli asked to forget mem-note-sentry-healthcheck-noise: obsolete"


def test_a_draft_is_forgotten_from_the_inbox_too(vault):
    ids = fill(vault)
    vault.settle(ids["create"], "forget", confirm=ids["create"])
    assert ids["create"] not in vault


@pytest.mark.parametrize(
    "doc_id, action, target, why",
    [
        ("mem-entity-postgres", "accept", None, "no request"),
        ("mem-entity-stripe", "archive", None, "does not settle"),
        ("mem-note-sentry-healthcheck-noise", "accept", None, "does not settle"),
        ("CREATED", "merge", None, "needs the other"),
        ("CREATED", "supersede", "mem-entity-nothing", "no document"),
    ],
)
def test_settling_what_does_not_fit_is_refused(vault, doc_id, action, target, why):
    ids = fill(vault)
    doc_id = ids["create"] if doc_id == "CREATED" else doc_id
    with pytest.raises(RefusedError, match=why):
        vault.settle(doc_id, action, target=target)
    assert len(vault.inbox()) == 4


def test_a_request_settled_elsewhere_is_still_settled_from_the_inbox(vault):
    ids = fill(vault)
    vault.set_status(ids["create"], "active")  # the curator used the lifecycle (l) instead
    plan = vault.settle(ids["create"], "accept")
    assert "already active" in plan.summary or plan.paths == [f"notes/{ids['create']}.md"]
    assert REVIEW_KEY not in vault.get(ids["create"]).meta


# -- a question's pack -------------------------------------------------------------------------


def test_a_questions_pack_starts_from_its_best_hits_and_reads_in_priority_order(vault, monkeypatch):
    from workbench.core.views import semantic

    # The pack as full text finds it, whether or not the `[meaning]` extra is installed here.
    monkeypatch.setattr(semantic, "model", lambda: None)
    pack = vault.context_for("how do we retry failed stripe webhooks?")
    assert pack.start[0]["id"] == "mem-decision-stripe-webhook-dedup"
    assert len(pack.documents) == 10
    types = [d["type"] for d in pack.documents]
    order = ["entity", "task", "decision", "context", "concept", "index", "note"]
    assert [order.index(t) for t in types] == sorted(order.index(t) for t in types)
    assert all(d["depth"] <= 2 for d in pack.documents)
    assert {"id", "text"} <= set(pack.constraints[0]) and all(c["id"] in pack.ids for c in pack.constraints)
    assert any("must answer within 10 s" in c["text"] for c in pack.constraints)
    assert [d["id"] for d in pack.latest_decisions] == [
        "mem-decision-jobs-procrastinate",
        "mem-decision-stripe-webhook-dedup",
    ]


def test_a_pack_never_holds_a_superseded_or_archived_document(vault):
    pack = vault.context_for("background jobs celery redis queue")
    statuses = {d["id"]: d["status"] for d in pack.documents}
    assert "superseded" not in statuses.values() and "archived" not in statuses.values()
    assert "mem-decision-jobs-procrastinate" in statuses


def test_a_pack_quotes_the_open_questions_and_blocked_tasks(vault):
    pack = vault.context_for("usage based billing open questions")
    texts = [q["text"] for q in pack.open_questions]
    assert any(t.endswith("?") for t in texts)
    assert any(t.startswith("blocked: ") for t in texts)


def test_a_question_that_matches_nothing_starts_from_the_vault_index(vault):
    pack = vault.context_for("zzzz qqqq")
    assert [s["id"] for s in pack.start] == ["mem-index-vault"]
    assert "mem-index-vault" in pack.ids


def test_at_most_two_hints_beyond_the_pack_each_by_its_own_metadata(vault):
    pack = vault.context_for("flaky tests pdf fonts playwright datepicker")
    assert 1 <= len(pack.hints) <= 2
    for hint in pack.hints:
        assert hint["id"] not in pack.ids and set(hint) == {"id", "title", "type", "status", "why"}
        assert hint["why"].startswith("its title, tags or id share: ")
