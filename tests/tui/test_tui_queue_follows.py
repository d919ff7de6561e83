"""The conflicts queue, open while another process writes the vault, follows it: the same dialog
lists the conflicts as they are now, the entry the person was on kept where it still is."""

from __future__ import annotations

import time
from pathlib import Path

from textual.widgets import Button, OptionList, Static
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


async def test_a_resolution_pressed_while_the_queue_follows_is_the_one_shown(sample_copy: Path):
    async with running(sample_copy, (120, 36)) as (app, pilot):
        dialog = await open_dialog(pilot, "c", ConflictsDialog)
        listing = dialog.query_one("#conflict-list", OptionList)
        last = len(dialog.conflicts) - 1
        listing.highlighted = listing.get_option_index(str(last))
        await pilot.pause()
        await pilot.press("enter")  # to the resolutions of the conflict shown
        shown = dialog.selected
        assert shown is not None and isinstance(app.focused, Button)
        chosen: list = []
        dialog.dismiss = lambda result=None: chosen.append(result)  # what the dialog hands back
        reading = dialog.read_verdicts
        # The verdicts read again in a thread take a moment (the vault's store busy with a write).
        dialog.read_verdicts = lambda: (time.sleep(0.5), reading())[1]
        # The queue found again after another process wrote the vault: the same conflicts, in
        # another order (as `ConflictsSearch.found` hands them over).
        dialog.follow(list(reversed(dialog.conflicts)), dialog.documents)
        await pilot.press("enter")  # the person presses the resolution they are looking at
        await pilot.pause(0.8)
        assert chosen, "nothing chosen"
        assert chosen[0] in shown.resolutions, (chosen[0], shown.ids)


async def test_a_key_while_a_shorter_queue_is_followed_is_no_crash(sample_copy: Path):
    async with running(sample_copy, (120, 36)) as (app, pilot):
        dialog = await open_dialog(pilot, "c", ConflictsDialog)
        listing = dialog.query_one("#conflict-list", OptionList)
        listing.highlighted = listing.get_option_index(str(len(dialog.conflicts) - 1))
        await pilot.pause()
        await pilot.press("enter")  # to the resolutions of the last conflict
        # The queue found again, one conflict left (the others resolved on disk by another process);
        # no verdict file is slow to read here: the list is rebuilt a worker's turn later.
        dialog.follow(dialog.conflicts[:1], dialog.documents)
        await pilot.press("enter")
        await pilot.pause(0.5)
        assert app.return_value is None and app.is_running


async def test_an_empty_queue_following_a_change_says_nothing_was_lost(sample_copy: Path):
    async with running(sample_copy, (120, 36)) as (app, pilot):
        dialog = await open_dialog(pilot, "c", ConflictsDialog)
        dialog.follow([], dialog.documents)  # every conflict resolved on disk: said once, rightly
        await wait_for(pilot, lambda: any("no longer in the queue" in n for n in notes(app)))
        await pilot.pause(0.2)
        said = sum("no longer in the queue" in n for n in notes(app))
        dialog.follow([], dialog.documents)  # the vault changed again; the person is on no conflict
        await pilot.pause(0.5)
        await app.workers.wait_for_complete()
        assert sum("no longer in the queue" in n for n in notes(app)) == said, notes(app)


async def test_the_queue_closed_while_it_follows(sample_copy: Path):
    async with running(sample_copy, (120, 36)) as (app, pilot):
        dialog = await open_dialog(pilot, "c", ConflictsDialog)
        reading = dialog.read_verdicts
        dialog.read_verdicts = lambda: (time.sleep(0.4), reading())[1]
        dialog.follow(list(reversed(dialog.conflicts)), dialog.documents)
        await pilot.press("escape")
        await pilot.pause(0.8)
        assert app.is_running and not isinstance(app.screen, ConflictsDialog)
        await pilot.press("c")
        await pilot.pause(0.8)
        assert sum(isinstance(s, ConflictsDialog) for s in app.screen_stack) == 1


async def test_a_resolution_of_the_entry_kept_acts_after_the_queue_moved_it(sample_copy: Path):
    """The entry the person was on moves to another place in the queue found again: its buttons,
    not made again, still act (and on it)."""
    async with running(sample_copy, (120, 36)) as (app, pilot):
        dialog = await open_dialog(pilot, "c", ConflictsDialog)
        listing = dialog.query_one("#conflict-list", OptionList)
        listing.highlighted = listing.get_option_index(str(len(dialog.conflicts) - 1))
        await pilot.pause()
        await pilot.press("enter")
        shown = dialog.selected
        assert shown is not None and isinstance(app.focused, Button)
        chosen: list = []
        dialog.dismiss = lambda result=None: chosen.append(result)
        dialog.follow(list(reversed(dialog.conflicts)), dialog.documents)
        await wait_for(pilot, lambda: dialog._key() == "0")  # the same conflict, first now
        assert dialog.selected == shown
        dialog.query("#resolutions Button").first().focus()
        await pilot.press("enter")
        await pilot.pause(0.3)
        assert chosen and chosen[0] in shown.resolutions
