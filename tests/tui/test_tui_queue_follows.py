"""The conflicts queue, open while another process writes the vault, follows it: the same dialog
lists the conflicts as they are now, the entry the person was on kept where it still is."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import OptionList, Static
from tui_helpers import notes, open_dialog, running, screen_text, wait_for

from workbench.tui.dialogs.conflicts import ConflictsDialog, kind_words

CENTS = "decisions/mem-decision-money-integer-cents.md"
DECIMAL = "decisions/mem-decision-money-numeric-decimal.md"


def superseded_on_disk(root: Path) -> None:
    """What an agent writing with plain file I/O does: the older decision superseded by the newer,
    both sides written."""
    cents, decimal = root / CENTS, root / DECIMAL
    cents.write_text(
        cents.read_text()
        .replace("status: active", "status: superseded", 1)
        .replace("superseded_by: []", "superseded_by: [mem-decision-money-numeric-decimal]", 1)
    )
    decimal.write_text(
        decimal.read_text().replace("supersedes: []", "supersedes: [mem-decision-money-integer-cents]", 1)
    )


def highlighted_ids(dialog: ConflictsDialog) -> list[str] | None:
    selected = dialog.selected
    return list(selected.ids) if selected is not None else None


async def _follows(root: Path, pilot, app) -> None:
    dialog = await open_dialog(pilot, "c", ConflictsDialog)
    before = list(dialog.conflicts)
    assert "contradiction" in [c.kind for c in before]
    listing = dialog.query_one("#conflict-list", OptionList)
    stale = next(i for i, c in enumerate(before) if c.kind == "stale-link")
    listing.highlighted = listing.get_option_index(str(stale))
    await pilot.pause()
    kept = highlighted_ids(dialog)
    superseded_on_disk(root)
    await wait_for(pilot, lambda: "contradiction" not in [c.kind for c in dialog.conflicts])
    assert app.screen is dialog, "the same dialog follows; no second one is pushed over it"
    assert sum(isinstance(s, ConflictsDialog) for s in app.screen_stack) == 1
    await wait_for(pilot, lambda: highlighted_ids(dialog) == kept)  # the person's entry kept
    await wait_for(pilot, lambda: f"Conflicts · {len(dialog.conflicts)}" in screen_text(app))
    assert all("contradiction" not in str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count))


async def test_an_open_queue_follows_a_supersession_written_by_another_process(sample_copy: Path):
    async with running(sample_copy, (120, 36)) as (app, pilot):
        await _follows(sample_copy, pilot, app)


async def test_an_open_queue_of_a_large_vault_follows_too(sample_copy: Path, monkeypatch):
    """Above the size where the queue is worked out only when asked, a queue open on the screen is
    asked for: the person is working it."""
    import workbench.tui.screens.conflicts_search as conflicts_search

    monkeypatch.setattr(conflicts_search, "AUTO_CONFLICTS_LIMIT", 10)
    async with running(sample_copy, (120, 36)) as (app, pilot):
        await _follows(sample_copy, pilot, app)


async def test_the_conflict_the_person_was_on_resolved_on_disk_is_said_and_its_resolutions_go(sample_copy: Path):
    async with running(sample_copy, (120, 36)) as (app, pilot):
        dialog = await open_dialog(pilot, "c", ConflictsDialog)
        listing = dialog.query_one("#conflict-list", OptionList)
        contradiction = next(i for i, c in enumerate(dialog.conflicts) if c.kind == "contradiction")
        listing.highlighted = listing.get_option_index(str(contradiction))
        await pilot.pause()
        await pilot.press("enter")  # to its resolutions
        assert app.focused is not None and app.focused.parent is dialog.query_one("#resolutions")
        superseded_on_disk(sample_copy)
        await wait_for(pilot, lambda: "contradiction" not in [c.kind for c in dialog.conflicts])
        await wait_for(pilot, lambda: any("no longer in the queue" in n for n in notes(app)))
        assert app.focused is listing  # not a button of a conflict that is gone
        shown = dialog.selected
        assert shown is not None and dialog.shown == dialog._key()
        await wait_for(pilot, lambda: kind_words(shown.kind) in str(dialog.query_one("#reason", Static).render()))
