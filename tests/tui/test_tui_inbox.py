"""The curator's inbox in the TUI (`i`): every request agents left, settled one by one by keyboard,
each previewed as a diff first; and an agent writing over MCP while the TUI watches the vault."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import Implementation
from textual.notifications import Notify
from agent_work import CLAUDE, leave_requests
from textual.widgets import OptionList
from tui_helpers import open_dialog, running, screen_text, settle, type_text, wait_for

from workbench import Vault
from workbench.core.services.gate import Draft
from workbench.core.services.inbox import REVIEW_KEY
from workbench.tui.app import WorkbenchApp
from workbench.tui.dialogs.confirm_forget import ConfirmForgetDialog
from workbench.tui.dialogs.confirm_plan import ConfirmPlanDialog
from workbench.tui.dialogs.inbox import InboxDialog
from workbench.tui.screens.main import MainScreen
from workbench.tui.widgets.document_picker import DocumentPicker

ROOT = Path(__file__).resolve().parents[2]
# The requests are those of the `requested` fixture (agent_work.leave_requests).


async def open_inbox(pilot) -> InboxDialog:
    return await open_dialog(pilot, "i", InboxDialog)


async def highlight(pilot, dialog: InboxDialog, kind: str) -> None:
    listing = dialog.query_one("#requests")
    listing.highlighted = next(n for n, r in enumerate(dialog.requests) if r.kind == kind)
    await settle(pilot)


def shown_keys(app) -> set[str]:
    """The keys the footer offers now."""
    return {key for key, active in app.screen.active_bindings.items() if active.enabled}


async def test_i_lists_each_request_with_its_author_and_what_it_wrote(sample_copy, requested):
    async with running(sample_copy, (100, 30), theme="workbench-dark") as (app, pilot):
        dialog = await open_inbox(pilot)
        assert sorted(r.kind for r in dialog.requests) == ["create", "forget", "merge"]
        await highlight(pilot, dialog, "merge")
        text = screen_text(app)
        assert "codex-cli merged “Retry window” into mem-entity-stripe" in text
        assert "+## " in text or "+updated_at" in text
        assert {"a", "v", "o", "escape"} <= shown_keys(app) and not {"m", "s", "x", "k"} & shown_keys(app)
        await highlight(pilot, dialog, "forget")
        assert {"f", "x", "k"} <= shown_keys(app) and "a" not in shown_keys(app)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert Vault.open(sample_copy).inbox().new == []  # what was listed has been seen


async def test_accept_previews_the_change_writes_it_and_returns_to_the_inbox(sample_copy, requested):
    async with running(sample_copy, (100, 30), theme="workbench-dark") as (app, pilot):
        dialog = await open_inbox(pilot)
        await highlight(pilot, dialog, "create")
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog) and "-status: draft" in app.screen.diff
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, InboxDialog) and len(app.screen.requests) == 2)
    doc = Vault.open(sample_copy).get(requested["create"])
    assert doc.status == "active" and REVIEW_KEY not in doc.meta


async def test_merge_into_a_document_picked_by_search(sample_copy, requested):
    async with running(sample_copy, (100, 30), theme="workbench-dark") as (app, pilot):
        dialog = await open_inbox(pilot)
        await highlight(pilot, dialog, "create")
        await pilot.press("m")
        await settle(pilot)
        assert dialog.has_class("-picking") and "a" not in shown_keys(app)
        await type_text(pilot, "stripe webhook flow")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        assert app.screen.dialog_title == f"Merge {requested['create']} into mem-context-stripe-webhook-flow?"
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, InboxDialog) and len(app.screen.requests) == 2)
    vault = Vault.open(sample_copy)
    assert vault.get(requested["create"]).superseded_by == ["mem-context-stripe-webhook-flow"]


async def test_merge_into_offers_only_documents_a_merge_can_go_into(sample_copy, requested):
    """The picker offered decisions, then the core refused them in command-line words."""
    async with running(sample_copy, (100, 30), theme="workbench-dark") as (app, pilot):
        dialog = await open_inbox(pilot)
        await highlight(pilot, dialog, "create")
        await pilot.press("m")
        await settle(pilot)
        await type_text(pilot, "jobs queue decided")
        await settle(pilot)
        await pilot.pause(0.2)
        picker = dialog.query_one("#picker", DocumentPicker)
        offered = [o.id for o in picker.query_one(OptionList).options if o.id]
        assert offered and not [i for i in offered if i.startswith("mem-decision-")], offered
        vault = Vault.open(sample_copy)
        assert all(vault.get(i).status in ("active", "draft") for i in offered)


async def test_the_merge_hint_is_whole_at_80x24(sample_copy, requested):
    async with running(sample_copy, (80, 24), theme="workbench-dark") as (app, pilot):
        dialog = await open_inbox(pilot)
        await highlight(pilot, dialog, "create")
        await pilot.press("m")
        await settle(pilot)
        text = " ".join(line.strip(" █") for line in screen_text(app).splitlines())
        assert "type to search, enter picks, escape goes back" in text


def test_a_decisions_draft_is_never_offered_merge():
    from workbench.core.services.inbox import Request

    decision = Request(
        "mem-decision-x", "decisions/mem-decision-x.md", "create", "a", "2026-01-01", "X", "decision", "draft"
    )
    note = Request("mem-note-x", "notes/mem-note-x.md", "create", "a", "2026-01-01", "X", "note", "draft")
    assert "merge" not in decision.actions and "merge" in note.actions
    assert not note.fits("supersede", "decision", "active") and decision.fits("supersede", "decision", "active")


async def test_escape_leaves_the_picker_then_the_inbox(sample_copy, requested):
    async with running(sample_copy, (100, 30), theme="workbench-dark") as (app, pilot):
        dialog = await open_inbox(pilot)
        await highlight(pilot, dialog, "create")
        await pilot.press("s")
        await settle(pilot)
        assert dialog.has_class("-picking")
        await pilot.press("escape")
        await settle(pilot)
        assert not dialog.has_class("-picking") and app.screen is dialog
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)


async def test_forget_needs_the_id_typed_again_and_says_it_cannot_be_undone(sample_copy, requested):
    doc_id = "mem-note-sentry-healthcheck-noise"
    async with running(sample_copy, (100, 30), theme="workbench-dark") as (app, pilot):
        dialog = await open_inbox(pilot)
        await highlight(pilot, dialog, "forget")
        await pilot.press("f")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmForgetDialog)
        await type_text(pilot, "mem-note-sentry")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmForgetDialog) and "type it exactly" in screen_text(app)
        await pilot.press(*["backspace"] * 20)
        await type_text(pilot, doc_id)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog) and f"--- a/notes/{doc_id}.md" in app.screen.diff
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, InboxDialog) and len(app.screen.requests) == 2)
        assert doc_id not in [r.doc_id for r in app.screen.requests]
    assert not (sample_copy / f"notes/{doc_id}.md").exists()


async def test_the_forget_confirmation_shows_its_buttons_and_escape_goes_back_to_the_inbox(sample_copy, requested):
    async with running(sample_copy, (160, 45), theme="workbench-dark") as (app, pilot):
        dialog = await open_inbox(pilot)
        await highlight(pilot, dialog, "forget")
        await pilot.press("f")
        await settle(pilot)
        confirm = app.screen
        assert isinstance(confirm, ConfirmForgetDialog)
        frame = confirm.query_one("#dialog").region
        for button in confirm.query("Button"):
            assert frame.contains_region(button.region) and button.region.width > 0, (
                str(button.label),
                button.region,
                frame,
            )
        assert "Forget for good" in screen_text(app) and "Keep it" in screen_text(app)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is dialog and dialog.selected.kind == "forget"  # one step back, where it was
        await pilot.press("f")
        await settle(pilot)
        await pilot.click("#keep")
        await settle(pilot)
        assert app.screen is dialog
    assert (sample_copy / "notes/mem-note-sentry-healthcheck-noise.md").exists()


async def test_the_open_inbox_follows_what_agents_write_and_what_is_settled_elsewhere(sample_copy, requested):
    async with running(sample_copy, (100, 30), theme="workbench-dark") as (app, pilot):
        dialog = await open_inbox(pilot)
        await highlight(pilot, dialog, "merge")
        assert len(dialog.requests) == 3
        other = Vault.open(sample_copy)  # another process's vault: an agent, the command line
        other.agent_create(
            Draft("note", "Stripe payouts take two days", [], [("related_to", "mem-entity-stripe")], "x"), CLAUDE
        )
        await wait_for(pilot, lambda: len(dialog.requests) == 4)
        assert "Stripe payouts take two days" in [r.title for r in dialog.requests] and "4 from agents" in str(
            dialog.query_one("#dialog").border_title
        )
        assert dialog.selected.kind == "merge"  # the highlight stays on the request it was on
        other.settle("mem-note-sentry-healthcheck-noise", "keep")
        await wait_for(pilot, lambda: len(dialog.requests) == 3)
        assert "forget" not in [r.kind for r in dialog.requests] and app.screen is dialog


async def test_revert_and_keep(sample_copy):
    before = (sample_copy / "entities/mem-entity-stripe.md").read_bytes()
    leave_requests(sample_copy)
    async with running(sample_copy, (100, 30), theme="workbench-dark") as (app, pilot):
        dialog = await open_inbox(pilot)
        await highlight(pilot, dialog, "merge")
        await pilot.press("v")
        await settle(pilot)
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, InboxDialog) and len(app.screen.requests) == 2)
        await highlight(pilot, app.screen, "forget")
        await pilot.press("k")
        await settle(pilot)
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, InboxDialog) and len(app.screen.requests) == 1)
    assert (sample_copy / "entities/mem-entity-stripe.md").read_bytes() == before
    assert REVIEW_KEY not in Vault.open(sample_copy).get("mem-note-sentry-healthcheck-noise").meta


@pytest.mark.slow
async def test_an_agent_writing_over_mcp_is_seen_by_the_open_workbench(sample_copy):
    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    seen: list = []
    env = {
        "PYTHONPATH": str(ROOT),
        **{k: os.environ[k] for k in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME") if k in os.environ},
    }
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "workbench.cli", "--vault", str(sample_copy), "mcp"], env=env
    )
    async with app.run_test(size=(100, 30), notifications=True, message_hook=seen.append) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: app.screen.watcher is not None and app.screen.watcher.ready.is_set())
        with open(os.devnull, "w") as quiet:
            async with stdio_client(params, errlog=quiet) as (read, write):
                async with ClientSession(
                    read, write, client_info=Implementation(name="claude-code", version="1")
                ) as agent:
                    await agent.initialize()
                    await agent.call_tool("memory_search", {"query": "sendgrid sandbox webhooks"})
                    result = await agent.call_tool(
                        "memory_write",
                        {
                            "type": "note",
                            "title": "SendGrid sandbox mode drops webhooks",
                            "body": "No events in sandbox.",
                            "links": ["related_to:mem-entity-sendgrid"],
                            "decision": "create",
                        },
                    )
                    assert not result.is_error, result.content[0].text
        doc_id = result.structured_content["id"]

        # Taken from the messages, not from the toasts on screen: on a loaded machine a toast can
        # time out before the test looks.
        def toasts():
            return [
                m.notification
                for m in seen
                if isinstance(m, Notify) and m.notification.title == "An agent wrote · i opens the inbox"
            ]

        await wait_for(pilot, toasts)
        toast = toasts()[0]
        assert toast.message.startswith(f"claude-code: wrote a new note, {doc_id}")
        await wait_for(
            pilot, lambda: app.screen.summary is not None and any(d.id == doc_id for d in app.screen.summary.documents)
        )
        await pilot.press("escape", "i")
        await settle(pilot)
        assert isinstance(app.screen, InboxDialog) and [r.doc_id for r in app.screen.requests] == [doc_id]


def frozen_requests(root: Path) -> None:
    """Requests written into the files with fixed times and no history, so the picture never moves."""
    (root / "notes/mem-note-stripe-retry-window.md").write_text(
        """\
---
schema_version: v1
id: mem-note-stripe-retry-window
type: note
title: Stripe retries failed webhooks for three days
status: draft
created_at: 2026-11-30
updated_at: 2026-11-30
project: tern
tags: [stripe, webhooks]
links:
  - type: related_to
    target: mem-entity-stripe
supersedes: []
superseded_by: []
provenance:
  source: agent-claude
  confidence: medium
  agent: claude-code
awaiting_review:
  - action: create
    agent: claude-code
    at: "2026-11-30T09:15:00"
---
# Stripe retries failed webhooks for three days

Seen in the dashboard: a failed delivery is retried with exponential backoff for up to three
days, so the handler must stay idempotent for that long.
""",
        "utf-8",
    )
    path = root / "notes/mem-note-sentry-healthcheck-noise.md"
    text = path.read_text("utf-8")
    head, rest = text[4:].split("\n---\n", 1)
    path.write_text(
        "---\n"
        + head
        + """
awaiting_review:
  - action: forget
    agent: codex-cli
    at: "2026-11-30T10:02:00"
    reason: the SDK filters health checks now
---
"""
        + rest,
        "utf-8",
    )


def test_the_inbox_on_a_small_terminal(snap_compare, sample_copy: Path):
    frozen_requests(sample_copy)

    async def inbox(pilot):
        await settle(pilot)
        await pilot.press("escape", "i")
        await settle(pilot)

    assert snap_compare(WorkbenchApp(sample_copy, theme="workbench-dark"), terminal_size=(80, 24), run_before=inbox)
