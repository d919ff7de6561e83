"""What the cycle collector walks while the app runs: a closed dialog is freed, not kept by
Textual (`workbench/tui/releasing.py`), and full collections come in pauses, not in frames
(`workbench/tui/quiet_collector.py`)."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

from tui_helpers import open_dialog, running, settle

from workbench.tui.dialogs.conflicts import ConflictsDialog
from workbench.tui.dialogs.problems import ProblemsDialog
from workbench.tui.quiet_collector import FULL_EVERY, DUE_EVERY, QUIET, QuietCollector


async def test_a_closed_dialog_and_every_line_it_drew_are_freed(sample_copy: Path):
    """The queue's dialog runs a thread worker (the agents' verdicts) and draws lines (Textual's
    `StylesCache` of each widget): once closed, nothing holds it or them. Before, the pool thread
    that ran the worker kept it as its active worker, and Textual's `get_inner_outer` cache kept
    each widget's lines."""
    async with running(sample_copy, (120, 36)) as (app, pilot):
        held = []
        for key, kind in (("c", ConflictsDialog), ("p", ProblemsDialog), ("c", ConflictsDialog)):
            dialog = await open_dialog(pilot, key, kind)
            await pilot.pause(0.2)  # drawn, its workers finished
            held.append(weakref.ref(dialog))
            held += [weakref.ref(widget._styles_cache) for widget in dialog.walk_children()]
            del dialog
            await pilot.press("escape")
            await settle(pilot)
            assert not isinstance(app.screen, kind)
        await pilot.pause(0.1)
        gc.collect()
        alive = [ref() for ref in held if ref() is not None]
        assert not alive, f"{len(alive)} of {len(held)} alive, e.g. {alive[0]!r}"


async def test_a_full_collection_runs_in_the_pause_after_a_dialog_closes(sample_copy: Path):
    async with running(sample_copy, (100, 30)) as (app, pilot):
        assert gc.get_threshold()[2] == FULL_EVERY, "Python's own full collections rarer while it runs"
        await open_dialog(pilot, "p", ProblemsDialog)
        before = app.quiet_collector.collections
        await pilot.press("escape")
        await settle(pilot)
        await pilot.pause(QUIET + 0.5)
        assert app.quiet_collector.collections == before + 1
        await pilot.pause(QUIET + 0.5)
        assert app.quiet_collector.collections == before + 1, "once: nothing new is due"
    assert gc.get_threshold()[2] != FULL_EVERY, "Python's thresholds back once the app ends"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_collection_waits_for_a_pause_in_the_keys_and_for_a_reason():
    clock = Clock()
    collector = QuietCollector(clock)
    main, dialog = object(), object()
    assert not collector.look([main, dialog])
    collector.touched()
    assert not collector.look([main]), "a screen closed, but a key just came"
    clock.now += QUIET / 2
    assert not collector.look([main])
    clock.now += QUIET
    gc.collect()  # nothing counted towards a full collection by Python
    assert collector.look([main]), "quiet, and a screen closed since the last"
    clock.now += QUIET
    assert not collector.look([main]), "nothing closed since"
    assert collector.collections == 1


def test_a_collection_is_due_too_after_many_younger_ones(monkeypatch):
    clock = Clock()
    collector = QuietCollector(clock)
    clock.now += QUIET
    counts = iter([(0, DUE_EVERY - 1, DUE_EVERY - 1), (0, 0, DUE_EVERY)])
    monkeypatch.setattr(gc, "get_count", lambda: next(counts))
    assert not collector.look([])
    assert collector.look([])


def test_the_thresholds_are_pythons_again_after_stop():
    before = gc.get_threshold()
    collector = QuietCollector()
    collector.start()
    try:
        assert gc.get_threshold() == (before[0], before[1], FULL_EVERY)
        collector.start()  # twice: the first thresholds are still the ones restored
    finally:
        collector.stop()
    assert gc.get_threshold() == before
