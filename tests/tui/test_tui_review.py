"""The curator's side of the review loop in the TUI: the conflicts queue keeps the resolution you
chose, the gate's candidates read in the order of their scores and page on past three, and verdicts
agents recorded are accepted or rejected from the queue. Pilot tests asserting on the files on disk,
then snapshots."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest
import time_machine

from agent_work import CENTS, DECIMAL, EMAIL, FASTAPI, INVOICES, REDUX, WEBHOOKS, leave_verdicts
from textual.widgets import Button, Input, OptionList, Select, TextArea
from tui_helpers import markdown_files, open_dialog, running, screen_text, settle, wait_for

from workbench.core.services.gate import Candidate
from workbench.core.vault import Vault
from workbench.core.services.verdicts import Verdict
from workbench.tui.app import WorkbenchApp
from workbench.tui.dialogs.confirm_plan import ConfirmPlanDialog
from workbench.tui.dialogs.conflicts import ConflictsDialog
from workbench.tui.dialogs.inbox import InboxDialog
from workbench.tui.dialogs.new_document import (
    CANDIDATES,
    PAGE,
    NewDocumentDialog,
    candidate_group,
    candidate_prompt,
    candidate_text,
)


# -- the queue as you left it ----------------------------------------------------------------------


async def test_no_at_a_preview_returns_to_the_resolution_chosen_not_the_first(sample_copy: Path):
    """`n` at a resolution's preview comes back with that resolution focused: `enter` previews it
    again, never the conflict's first resolution."""
    before = markdown_files(sample_copy)
    async with running(sample_copy, (120, 36)) as (app, pilot):
        dialog = await open_queue(pilot)
        duplicate = next(i for i, c in enumerate(dialog.conflicts) if c.kind == "duplicate")
        dialog.query_one("#conflict-list", OptionList).highlighted = duplicate
        await pilot.pause()
        await pilot.press("enter", "down", "down")  # the third: "merge … into …"
        merge = app.focused
        assert isinstance(merge, Button) and "merge" in str(merge.label)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        first_diff = app.screen.diff
        await pilot.press("n")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConflictsDialog)
        assert dialog.query_one("#conflict-list", OptionList).highlighted == duplicate
        assert isinstance(app.focused, Button) and str(app.focused.label) == str(merge.label)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog) and app.screen.diff == first_diff, "the merge again"
        await pilot.press("n")
        await settle(pilot)
    assert markdown_files(sample_copy) == before


# -- the gate's candidates: in the order of their scores, three at a time ---------------------------


async def pdf_decision_candidates(pilot) -> NewDocumentDialog:
    """The gate on a new decision the sample's decisions and entities are both alike to."""
    dialog = await open_dialog(pilot, "n", NewDocumentDialog)
    dialog.query_one("#type", Select).value = "decision"
    dialog.query_one("#title", Input).value = "Invoices go out as PDF via a job queue"
    dialog.query_one("#tags", Input).value = "billing, jobs"
    dialog.query_one("#body", TextArea).text = "Invoices render to PDF in a background job on Redis.\n"
    dialog.links.append(("related_to", "mem-entity-invoice-model"))
    await pilot.press("ctrl+s")
    await settle(pilot)
    return dialog


def listed(dialog: NewDocumentDialog) -> list[str]:
    """The candidate list's lines as shown: headings and candidates."""
    return [str(option.prompt) for option in dialog.query_one("#candidate-list", OptionList).options]


def scores_in_order(lines: list[str]) -> bool:
    """Within each heading's group, the scores shown never rise."""
    groups: list[list[float]] = [[]]
    for line in lines:
        found = re.match(r"\s*\d+\s+(\d+\.\d\d)\s", line)
        if found is None:
            groups.append([])
        else:
            groups[-1].append(float(found.group(1)))
    return all(group == sorted(group, reverse=True) for group in groups)


async def test_the_gates_candidates_page_on_three_at_a_time_in_the_order_of_their_scores(sample_copy: Path):
    async with running(sample_copy, (100, 30)) as (app, pilot):
        dialog = await pdf_decision_candidates(pilot)
        total = len(dialog.candidates)
        assert 7 <= total <= CANDIDATES, "more than a page: up to ten asked of the gate"
        pages, seen = [], []
        while True:
            lines = listed(dialog)
            pages.append(lines)
            ids = [option.id for option in dialog.query_one("#candidate-list", OptionList).options if option.id]
            assert len(ids) <= PAGE
            seen.extend(ids)
            if len(seen) == total:
                break
            await pilot.press("right_square_bracket")
            await pilot.pause()
        assert seen == [str(i) for i in range(total)], "each candidate once, in the gate's order"
        # The gate ranks the decisions a new one likely replaces first, whatever the others' scores:
        # a heading says so, and the scores read in order under each heading.
        every_line = [line for page in pages for line in page]
        assert any("likely replaces" in line for line in every_line) and any("Others" in line for line in every_line)
        assert scores_in_order([line for line in every_line if "likely" not in line or re.match(r"\s*\d", line)])
        ranks = [int(re.match(r"\s*(\d+)", line).group(1)) for line in every_line if re.match(r"\s*\d", line)]
        assert ranks == list(range(1, total + 1))
        side = dialog.query_one("#candidate-side")
        assert side.border_title == f"Candidate {total - (total - 1) % PAGE} of {total}", (
            "the page's first beside the draft"
        )
        await pilot.press("left_square_bracket")
        await pilot.pause()
        assert listed(dialog) == pages[-2]
        await pilot.press("m" if dialog.selected.action == "merge" else "s")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog), "a candidate on a later page is chosen as any other"


def test_a_candidates_line_fits_its_width_and_keeps_score_type_and_status():
    long = Candidate("mem-decision-x", "A very long title " * 5, "decision", "deprecated", 0.4242, ["why"], "supersede")
    line = candidate_prompt(12, long, width=60)
    assert line.cell_length <= 60
    assert "0.42" in line.plain and line.plain.endswith("decision · deprecated") and "…" in line.plain
    assert candidate_prompt(1, long).plain.count("A very long title") == 5


def test_headings_follow_the_gates_own_groups():
    likely = Candidate("a", "A", "decision", "active", 0.5, ["r"], "supersede")
    weak = Candidate("b", "B", "decision", "active", 0.1, ["r"], "supersede")
    home = Candidate("c", "C", "entity", "active", 0.9, ["r"], "merge")
    assert candidate_group(likely) and not candidate_group(weak) and not candidate_group(home)


# -- verdicts: the curator confirms what agents judged ---------------------------------------------

# The verdicts are those of the `verdicts` fixture (agent_work.leave_verdicts).
DECISIONS = "decisions/{}.md"


def open_verdicts(root: Path) -> list[str]:
    return [v.id for v in Vault.open(root).verdicts(("open",))]


async def open_queue(pilot) -> ConflictsDialog:
    return await open_dialog(pilot, "c", ConflictsDialog)


async def test_judged_pairs_come_first_with_verdict_agent_and_reason(sample_copy: Path, verdicts: list[Verdict]):
    before = markdown_files(sample_copy)
    async with running(sample_copy, (120, 36)) as (app, pilot):
        dialog = await open_queue(pilot)
        listing = dialog.query_one("#conflict-list", OptionList)
        ids = [option.id for option in listing.options]
        assert ids[:5] == [None, "v0", "v1", "v2", "v3"], "a heading, then every open verdict"
        assert dialog.selected_verdict == verdicts[0], "the first judged pair is highlighted"
        text = screen_text(app)
        assert "Judged by agents · 4" in text and "Found by the workbench" in text
        assert "claude judged · replaces" in text and "same columns to NUMERIC(12,2)" in text
        # The queue's own entry for the judged pair is folded into the verdict, never listed twice.
        folded = [c for c in dialog.conflicts if set(c.ids) == {CENTS, DECIMAL}]
        assert folded and str(dialog.conflicts.index(folded[0])) not in ids
        answers = [str(b.label) for b in dialog.query("#resolutions Button").results(Button)]
        assert answers == [
            "Accept: supersede, both sides  a",
            "Reject: both stand, not asked again  r",
            "Accept all 2 of claude's, together  A",
        ]
        listing.highlighted = ids.index("v3")  # gpt-judge was unsure: nothing to accept
        await settle(pilot)
        labels = [str(b.label) for b in dialog.query("#resolutions Button").results(Button)]
        assert labels == [
            "“Deduplicate Stripe webhooks by event id” supersedes “Gapless invoice numbers per tenant and year”",
            "“Gapless invoice numbers per tenant and year” supersedes “Deduplicate Stripe webhooks by event id”",
            "Reject: both stand, not asked again  r",
        ], "the person decides: either way, or both stand"
        assert dialog.check_action("answer", ("accept",)) is False
        await pilot.press("a")
        await settle(pilot)
        assert app.screen is dialog, "a does nothing on an unsure verdict"
    assert markdown_files(sample_copy) == before, "no record changes before the curator accepts"


async def test_accepting_a_verdict_writes_both_sides_after_the_preview_and_u_restores_them(
    sample_copy: Path, verdicts: list[Verdict]
):
    before = markdown_files(sample_copy)
    async with running(sample_copy, (120, 36)) as (app, pilot):
        await open_queue(pilot)
        await pilot.press("a")
        await settle(pilot)
        preview = app.screen
        assert isinstance(preview, ConfirmPlanDialog)
        assert "+status: superseded" in preview.diff and DECISIONS.format(DECIMAL) in preview.diff
        assert markdown_files(sample_copy) == before, "the preview writes nothing"
        await pilot.press("y")
        await settle(pilot)
        cents = (sample_copy / DECISIONS.format(CENTS)).read_text()
        decimal = (sample_copy / DECISIONS.format(DECIMAL)).read_text()
        assert "status: superseded" in cents and DECIMAL in cents.split("superseded_by", 1)[1].split("\n")[0]
        assert CENTS in decimal.split("\nsupersedes", 1)[1].split("\n")[0], "both sides written"
        assert verdicts[0].id not in open_verdicts(sample_copy)
        dialog = app.screen
        assert isinstance(dialog, ConflictsDialog), "the queue comes back"
        assert [v.id for v in dialog.verdicts] == [v.id for v in verdicts[1:]]
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("u")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog) and "claude" in app.screen.summary
        await pilot.press("y")
        await settle(pilot)
    after = markdown_files(sample_copy)
    assert after.pop("log.md").startswith(before.pop("log.md")), "the vault's log keeps what happened"
    assert after == before, "undone: every record as it was"
    assert verdicts[0].id in open_verdicts(sample_copy), "and the verdict waits again"


async def test_rejecting_a_verdict_keeps_both_and_no_one_is_asked_again(sample_copy: Path, verdicts: list[Verdict]):
    async with running(sample_copy, (120, 36)) as (app, pilot):
        await open_queue(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog) and "compatible_with" in app.screen.diff
        await pilot.press("y")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConflictsDialog)
        assert verdicts[0].id not in [v.id for v in dialog.verdicts]
        assert not [c for c in dialog.conflicts if set(c.ids) == {CENTS, DECIMAL}], "out of the queue too"
    for doc_id in (CENTS, DECIMAL):
        text = (sample_copy / DECISIONS.format(doc_id)).read_text()
        assert "status: active" in text and "compatible_with" in text
    assert (CENTS, DECIMAL) not in [pair.ids for pair in Vault.open(sample_copy).review_pairs()], "not offered again"


async def test_one_agents_replacements_are_accepted_together_with_one_preview(
    sample_copy: Path, verdicts: list[Verdict]
):
    async with running(sample_copy, (120, 36)) as (app, pilot):
        await open_queue(pilot)
        await pilot.press("A")
        await settle(pilot)
        preview = app.screen
        assert isinstance(preview, ConfirmPlanDialog)
        for doc_id in (CENTS, DECIMAL, REDUX, FASTAPI):
            assert DECISIONS.format(doc_id) in preview.diff
        assert EMAIL not in preview.diff, "the companion verdict is not a replacement"
        await pilot.press("y")
        await settle(pilot)
    for old in (CENTS, REDUX):
        assert "status: superseded" in (sample_copy / DECISIONS.format(old)).read_text()
    vault = Vault.open(sample_copy)
    assert [v.agent for v in vault.verdicts(("open",))] == ["claude", "gpt-judge"]
    vault.undo()  # one change: one undo takes both back
    assert "status: active" in (sample_copy / DECISIONS.format(CENTS)).read_text()
    assert "status: deprecated" in (sample_copy / DECISIONS.format(REDUX)).read_text()


async def test_a_companion_verdict_is_answered_otherwise_with_a_supersession(
    sample_copy: Path, verdicts: list[Verdict]
):
    """Rejecting a companion verdict would write what accepting it writes (both stand): instead the
    person may say one replaces the other, either way; `n` at that preview comes back to it."""
    async with running(sample_copy, (120, 36)) as (app, pilot):
        dialog = await open_queue(pilot)
        listing = dialog.query_one("#conflict-list", OptionList)
        listing.highlighted = [option.id for option in listing.options].index("v1")
        await settle(pilot)
        assert dialog.check_action("answer", ("reject",)) is False
        labels = [str(b.label) for b in dialog.query("#resolutions Button").results(Button)]
        assert labels[0] == "Accept: both stand  a" and labels[1].startswith(
            "“Render invoice PDFs with WeasyPrint” supersedes"
        )
        await pilot.press("enter", "down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog) and "+status: superseded" in app.screen.diff
        await pilot.press("n")
        await settle(pilot)
        assert app.screen.selected_verdict == verdicts[1] and str(app.focused.label) == labels[1]
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert verdicts[1].id not in [v.id for v in app.screen.verdicts]
    assert "status: superseded" in (sample_copy / DECISIONS.format(EMAIL)).read_text()
    states = {v.id: v.state for v in Vault.open(sample_copy).verdicts()}
    assert states[verdicts[1].id] == "rejected", "the agent's companion verdict, answered otherwise"


async def test_no_at_a_verdicts_preview_returns_to_that_answer(sample_copy: Path, verdicts: list[Verdict]):
    before = markdown_files(sample_copy)
    async with running(sample_copy, (120, 36)) as (app, pilot):
        dialog = await open_queue(pilot)
        listing = dialog.query_one("#conflict-list", OptionList)
        listing.highlighted = [option.id for option in listing.options].index("v2")
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog)
        await pilot.press("n")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConflictsDialog) and dialog.selected_verdict == verdicts[2]
        assert isinstance(app.focused, Button) and app.focused.name == "reject"
    assert markdown_files(sample_copy) == before


async def test_each_candidate_is_shown_with_its_excerpt_beside_the_draft(sample_copy: Path):
    async with running(sample_copy, (120, 45)) as (app, pilot):
        dialog = await pdf_decision_candidates(pilot)
        listing = dialog.query_one("#candidate-list", OptionList)
        pdf = next(i for i, o in enumerate(listing.options) if o.id and "WeasyPrint" in str(o.prompt))
        listing.highlighted = pdf
        await pilot.pause()
        assert dialog.selected.excerpt is not None, "the gate gave its excerpt"
        shown = str(dialog.query_one("#candidate-text").render())
        assert "decision · ● active · 2026-05-20" in shown, "status and date"
        assert "Where it matches the draft" in shown and "in a job on the `pdf` queue" in shown
        assert "How it opens" in shown and "Jinja2 HTML templates" in shown


def test_a_candidates_excerpt_gives_the_status_as_the_file_states_it_and_its_number():
    from workbench.core.views.excerpts import Excerpt

    excerpt = Excerpt(
        "adr-0007",
        "Use Kafka",
        "decision",
        "Superseded by ADR-0012",
        "2021-03-04",
        7,
        "doc/adr/0007.md",
        "We will use Kafka for events." * 3,
        "Kafka carries every event.",
        4_000,
        "digest",
        opening_cut=True,
    )
    candidate = Candidate("adr-0007", "Use Kafka", "decision", "superseded", 0.9, ["cites it"], "supersede", excerpt)
    shown = candidate_text(candidate, None).plain
    assert "“Superseded by ADR-0012” · 2021-03-04 · No. 7" in shown
    assert "Kafka carries every event." in shown and "more characters" in shown


async def test_the_inbox_lists_verdicts_with_what_accepting_writes_and_settles_them(
    sample_copy: Path, verdicts: list[Verdict]
):
    before = markdown_files(sample_copy)
    async with running(sample_copy, (120, 36)) as (app, pilot):
        dialog = await open_dialog(pilot, "i", InboxDialog)
        assert dialog.selected_verdict == verdicts[0]
        text = screen_text(app)
        assert "Verdicts on pairs of decisions · 4" in text and "verdict: replaces" in text
        assert "same columns to NUMERIC(12,2)" in text, "the agent's reason"
        assert "What accepting it writes" in text and "+status: superseded" in text
        listing = dialog.query_one("#requests", OptionList)
        listing.highlighted = [option.id for option in listing.options].index("v3")  # unsure
        await settle(pilot)
        assert dialog.check_action("settle", ("accept",)) is False and dialog.check_action("reject", ()) is True
        assert "What rejecting it writes" in screen_text(app)
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmPlanDialog) and "compatible_with" in app.screen.diff
        assert markdown_files(sample_copy) == before
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, InboxDialog), "the inbox again"
        assert [v.id for v in app.screen.judged.verdicts] == [v.id for v in verdicts[:3]]
    for doc_id in (INVOICES, WEBHOOKS):
        assert "compatible_with" in (sample_copy / DECISIONS.format(doc_id)).read_text()


# -- snapshots: one theme (the layouts are new; the themes' colours are held by the others) --------

SIZES = [(80, 24), (120, 36)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_the_queue_with_judged_pairs(snap_compare, sample_copy: Path, size: tuple[int, int]):
    with time_machine.travel(dt.datetime(2026, 12, 1, 12, 0), tick=False):
        leave_verdicts(sample_copy)  # the verdicts' time is shown

    async def queue(pilot):
        await open_queue(pilot)

    assert snap_compare(WorkbenchApp(sample_copy, theme="workbench-dark"), terminal_size=size, run_before=queue)


@pytest.mark.parametrize("size", [(80, 24), (100, 30)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_the_gates_second_page_of_candidates(snap_compare, sample_copy: Path, size: tuple[int, int]):
    async def second_page(pilot):
        dialog = await pdf_decision_candidates(pilot)
        for box in dialog.query("Input, TextArea"):
            box.cursor_blink = False
        await pilot.press("right_square_bracket")
        await settle(pilot)

    assert snap_compare(WorkbenchApp(sample_copy, theme="workbench-dark"), terminal_size=size, run_before=second_page)


async def test_a_verdict_given_while_the_inbox_is_open_appears_in_it(sample_copy: Path):
    """An agent judging over MCP while the curator reads the inbox: the inbox follows the vault."""
    async with running(sample_copy, (120, 36)) as (app, pilot):
        dialog = await open_dialog(pilot, "i", InboxDialog)
        assert not dialog.judged.verdicts
        given = Vault.open(sample_copy).judge(CENTS, DECIMAL, "replaces", "Same columns, decided again.", "claude")
        await wait_for(pilot, lambda: [v.id for v in dialog.judged.verdicts] == [given.id])
        # the list is filled before the screen is drawn again: the heading follows on a later turn
        await wait_for(pilot, lambda: "Verdicts on pairs of decisions · 1" in screen_text(app))
