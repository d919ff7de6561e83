"""What a person waits for in the TUI: the first titles after launch, and a document after enter.

Run: python -m tests.benchmarks.bench_tui [VAULT ...] [--generated SIZE ...] [--runs N]
     (default: the bundled sample and generated vaults of 1,000 and 10,000 documents, best of 5)

**First titles.** Each run is a fresh Python, timed from outside from its start to the paints it
reports (not the exit after them, which waits for work the person does not): the first page of
titles painted ("titles": those kept from the last launch, `workbench/tui/first_page.py`, shown
before the vault is read), and the vault's own listing painted ("listing": interpreter start,
imports, the vault read, the blank search; the same paint when no titles were kept). Beside it, in the same run, a bare Textual app
(a header, a line of text and a footer) is timed from start to its first paint: the floor no
Textual program can beat. Both run headless (Textual's own driver with no terminal), so the
figure is the program's work, not the terminal emulator's. Every vault is opened once first in the
TUI, until its summary is read, so the figures are warm (the derived store in place, the first
titles kept), as a person meets them from the second launch on;
and the workbench's modules are compiled first (`.pyc`), as an installed package has them and as
Textual's are (with PYTHONDONTWRITEBYTECODE set, a checkout's every process compiled them again:
about a tenth of a second, timed for the workbench and not for the bare app).

**Opening a document.** In one app (driven by Textual's Pilot), each of the vault's longest
documents is opened in turn, timed from the request to its text painted: "first" when the first
screen of text is on show (what the person waits for), "whole" when the rest of a long document
has been laid out too (which happens while the person is reading).

A benchmark, not a test: machines are noisy, so compare the ratios measured in one run.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import gc
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import workbench
from tests.benchmarks.bench_open import run_python
from tests.benchmarks.generate import generate_vault

RUNS = 5
LONGEST = 12

BARE_SCRIPT = """
from textual.app import App
from textual.widgets import Footer, Header, Static

import time

class Bare(App):
    def compose(self):
        yield Header()
        yield Static("Hello")
        yield Footer()

    def on_mount(self):
        self.call_after_refresh(self.painted)

    def painted(self):
        print(time.time())
        self.exit()

Bare().run(headless=True)
"""

TITLES_SCRIPT = """
import sys
import time
from pathlib import Path
from textual.widgets import OptionList
import workbench.tui.app
from workbench.tui.app import WorkbenchApp

class FirstTitles(WorkbenchApp):
    CSS_PATH = str(Path(workbench.tui.app.__file__).with_name(WorkbenchApp.CSS_PATH))

    def on_mount(self):  # WorkbenchApp.on_mount runs too: Textual calls each class's handler
        self.painted_at = {}
        self.set_interval(0.002, self.check)
        self.set_timer(120, self.give_up)

    def give_up(self):
        notes = "; ".join(note.message for note in self._notifications)
        self.exit(return_code=1, message=f"no titles after two minutes ({notes or 'nothing said'})")

    def check(self):
        try:
            results = self.screen.query_one("#results", OptionList)
        except Exception:
            return
        if results.option_count and results.get_option_at_index(0).id:  # a document, not a placeholder
            # The titles first: those kept from the last launch, or the vault's listing if none were.
            self.call_after_refresh(self.painted, "titles")
            if results.border_subtitle != "loading":  # the vault's own listing
                self.call_after_refresh(self.painted, "listing")

    def painted(self, what):
        self.painted_at.setdefault(what, time.time())
        if "listing" in self.painted_at and (sys.argv[2:] != ["settle"] or self.screen.summary is not None):
            if "said" not in self.painted_at:  # once: the callbacks asked before the exit still come
                self.painted_at["said"] = time.time()
                print(self.painted_at["titles"], self.painted_at["listing"])
            self.exit()

FirstTitles(Path(sys.argv[1]), theme="workbench-dark").run(headless=True)
"""


def until_painted(script: str, *args: str) -> list[float]:
    """Seconds from starting a fresh interpreter on `script` to each paint it reports (the times of
    day it prints): what the person waits for, not the exit after it."""
    started = time.time()
    return [float(at) - started for at in run_python(script, *args)[1].split()]


def first_titles(vault: Path, runs: int) -> tuple[float, float, float]:
    """Best of `runs` for the bare app, for the workbench's first titles and for the vault's own
    listing (the same paint when no titles were kept), taken in turn."""
    # The derived store in place and the first titles kept (`tui/first_page.py`): a warm start,
    # as a person meets it from the second launch on.
    run_python(TITLES_SCRIPT, str(vault), "settle")
    bare, titles, listing = [], [], []
    for _ in range(runs):
        bare.append(until_painted(BARE_SCRIPT)[-1])
        ours = until_painted(TITLES_SCRIPT, str(vault))
        titles.append(ours[0])
        listing.append(ours[1])
    return min(bare), min(titles), min(listing)


async def open_documents(vault: Path) -> list[tuple[float, float, int, str]]:
    """(first paint, whole, body length, id) for each of the longest documents, opened in turn.

    The first paint is the moment the screen is drawn with the new text's first lines in it: the
    body is asked for those lines while the frame is being drawn, and the frame is written at once
    (headless, to no terminal). What follows it (the footer's keys for the focused viewer, the rest
    of a long text) is in "whole"."""
    from tests.tui.tui_helpers import settle
    from workbench.tui.app import WorkbenchApp
    from workbench.tui.widgets.body import Body
    from workbench.tui.widgets.viewer import DocumentViewer

    drawn: list[float] = []
    shown_once = asyncio.Event()
    draw_line, show = Body.render_line, Body.show

    def timed_line(body: Body, y: int):
        if not drawn:
            drawn.append(time.perf_counter())
            shown_once.set()
        return draw_line(body, y)

    def timed_show(body: Body, *args, **kwargs):
        drawn.clear()  # from here on, the lines drawn are the new text's
        return show(body, *args, **kwargs)

    app = WorkbenchApp(vault, theme="workbench-dark")
    rows = []
    Body.render_line, Body.show = timed_line, timed_show  # type: ignore[method-assign]
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            screen = app.screen
            longest = sorted(screen.summary.documents, key=lambda doc: -len(doc.body))[:LONGEST]
            viewer = screen.query_one(DocumentViewer)
            for doc in longest:
                shown_once.clear()
                start = time.perf_counter()
                screen.open_document(doc.id)
                drawn.append(start)  # a mark: cleared when the new text is given to the body
                # Wait as the app does, idle until the frame: polling here would keep the event loop
                # busy and starve the thread that reads the document (a convoy on the interpreter lock).
                await asyncio.wait_for(shown_once.wait(), 60)
                assert viewer.view is not None and viewer.view.document.id == doc.id
                first = drawn[0] - start
                await settle(pilot)
                rows.append((first, time.perf_counter() - start, len(doc.body), doc.id))
    finally:
        Body.render_line, Body.show = draw_line, show  # type: ignore[method-assign]
    return rows


STALL = 0.05
"""Seconds without a tick after which the sampler takes the threads' stacks: a stall begins."""
SAMPLE = 0.005
"""Seconds between the sampler's looks at the last tick (and, in a stall, at every thread's stack)."""
CPU_EVERY = 4
"""Outside a stall, the sampler reads the threads' CPU at every `CPU_EVERY`th look: the reading a
stall's CPU is counted from, at most `CPU_EVERY * SAMPLE` before it began."""
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _thread_cpu() -> dict[str, float]:
    """CPU seconds each live thread of this process has had, by its name (Linux: read from /proc,
    in clock ticks of 10 ms; empty elsewhere)."""
    out: dict[str, float] = {}
    for thread in threading.enumerate():
        try:
            fields = Path(f"/proc/self/task/{thread.native_id}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        out[f"{thread.name} ({thread.native_id})"] = (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS
    return out


def _stack(frame, depth: int = 18) -> str:
    """A thread's stack, innermost call last, one `file:line function` a line (the standard
    library's and the site packages' paths cut to their module)."""
    lines = []
    for summary in traceback.extract_stack(frame)[-depth:]:
        name = summary.filename
        for marker in ("site-packages/", "/lib/python", "/workbench/", "/tests/"):
            if marker in name:
                name = name.split(marker, 1)[1]
                break
        lines.append(f"{name}:{summary.lineno} {summary.name}")
    return "\n".join(lines)


@dataclass
class Stall:
    """The event loop not ticking for longer than `STALL`: when, how long, and what every thread was
    doing meanwhile (stacks counted over the samples; the CPU each had from the
    sampler's last reading before it to its end; the collections of the garbage collector in it)."""

    began: float
    ended: float = 0.0
    stacks: dict[str, Counter[str]] = field(default_factory=dict)
    cpu_at_start: dict[str, float] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)
    collections: list[tuple[float, float, int, str]] = field(default_factory=list)
    sampled: bool = True
    """False: the sampler could not look while it lasted (one call held the interpreter throughout,
    or the machine ran none of the process's threads); its stacks are those right after."""

    @property
    def seconds(self) -> float:
        return self.ended - self.began

    def report(self, origin: float, main: str) -> str:
        """The stall in words: the busiest threads' CPU and their commonest stacks; the loop's
        thread's (`main`) always."""
        busy = sorted(self.cpu.items(), key=lambda item: -item[1])
        said = [
            f"still {self.seconds * 1000:.0f} ms from {self.began - origin:.2f} s;"
            " CPU (from a little before): "
            + (", ".join(f"{name} {cpu * 1000:.0f} ms" for name, cpu in busy if cpu) or "none")
            + (
                ""
                if self.sampled
                else "; not sampled while still (a call held the interpreter, or the machine ran no thread"
                " of the process: the CPU says which), the stacks right after"
            )
        ]
        for began, seconds, generation, thread in self.collections:
            said.append(f"  collection of generation {generation}: {seconds * 1000:.0f} ms in {thread}")
        shown = [name for name, cpu in busy if cpu][:2]
        if main not in shown:
            shown.insert(0, main)
        for name in shown:
            stacks = self.stacks.get(name)
            if not stacks:
                continue
            stack, count = stacks.most_common(1)[0]
            said.append(f"  {name}, {count} of {sum(stacks.values())} samples:")
            said += [f"    {line}" for line in stack.splitlines()]
        return "\n".join(said)


class StallSampler(threading.Thread):
    """Watches the ticks of the event loop from a thread of its own: once it has not ticked for
    `STALL` seconds, it samples every thread's stack (`sys._current_frames`) every `SAMPLE` seconds
    until the next tick, so that each stall names what held the loop. A thread that holds the
    interpreter in one C call lets no sample be taken until it returns: the CPU each thread had
    (from /proc) names it then, and the stacks taken right after say where it came back to."""

    def __init__(self) -> None:
        super().__init__(name="stall sampler", daemon=True)
        self.last = 0.0
        """When the loop last ticked (0: not yet; the start-up before the first tick is no stall)."""
        self.stalls: list[Stall] = []
        self._done = threading.Event()
        self._resumed: dict[float, float] = {}
        """The first tick after each stall, by the tick it followed."""
        self._collecting: dict[int, float] = {}
        self._collections: list[tuple[float, float, int, str]] = []

    def tick(self) -> None:
        """Called by the event loop at every tick."""
        now = time.perf_counter()
        if self.last and now - self.last > STALL:
            self._resumed[self.last] = now  # the sampler may look only some ticks later
        self.last = now

    def _collected(self, phase: str, info: dict) -> None:
        ident = threading.get_ident()
        if phase == "start":
            self._collecting[ident] = time.perf_counter()
        elif (began := self._collecting.pop(ident, None)) is not None:
            seconds = time.perf_counter() - began
            if seconds > 0.01:
                self._collections.append((began, seconds, info["generation"], threading.current_thread().name))

    def __enter__(self) -> StallSampler:
        gc.callbacks.append(self._collected)
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self.join()
        gc.callbacks.remove(self._collected)

    def _stacks(self, stall: Stall) -> None:
        """One sample of every thread's stack (but the sampler's own) into `stall`."""
        names = {thread.ident: f"{thread.name} ({thread.native_id})" for thread in threading.enumerate()}
        for ident, frame in sys._current_frames().items():
            if ident != self.ident:
                stall.stacks.setdefault(names.get(ident, str(ident)), Counter())[_stack(frame)] += 1

    def _close(self, stall: Stall) -> None:
        now = _thread_cpu()
        stall.cpu = {name: now[name] - stall.cpu_at_start.get(name, 0.0) for name in now}
        stall.collections = [c for c in self._collections if stall.began <= c[0] < stall.ended]
        self.stalls.append(stall)

    def run(self) -> None:
        stall: Stall | None = None
        cpu, looks = _thread_cpu(), 0
        closed: set[float] = set()
        """The ticks after which a stall was recorded (the keys of `_resumed` dealt with)."""
        while not self._done.wait(SAMPLE):
            last = self.last
            if stall is not None and last > stall.began:  # it ticked: the stall is over
                stall.ended = self._resumed.get(stall.began, last)
                self._close(stall)
                closed.add(stall.began)
                stall = None
            # A stall the sampler never saw while it lasted: a call that never let go of the
            # interpreter kept this thread out too, and the loop ticked before it looked.
            for began, ended in list(self._resumed.items()):
                if began not in closed and (stall is None or began != stall.began):
                    closed.add(began)
                    missed = Stall(began=began, ended=ended, cpu_at_start=cpu, sampled=False)
                    self._stacks(missed)
                    self._close(missed)
            if not last or time.perf_counter() - last <= STALL:
                looks += 1
                if looks % CPU_EVERY == 0:  # the threads' CPU, a little before any stall begins
                    cpu = _thread_cpu()
                continue
            if stall is None:
                stall = Stall(began=last, cpu_at_start=cpu)
            self._stacks(stall)


STEPS = (
    "first titles",
    "typed",
    "listed",
    "shown",
    "loaded",
    "watching",
    "palette",
    "palette's titles",
    "palette closed",
    "problems",
    "problems closed",
    "queue",
    "queue closed",
    "queue again",
    "queue again closed",
)
"""The session's steps, each ended by its mark, in order."""

SAID = 0.1
"""Stalls longer than this many seconds are told with their stacks (the goal: never still longer)."""
TICK = 0.01
"""Seconds between the ticks the session asks the event loop for: a gap between two is how long
it could not answer (a key, a repaint)."""
TYPING = 0.05
"""Seconds between two keys typed: a fast typist's pace."""
AFTER = 0.5
"""Seconds the session goes on ticking once the watcher is ready, before the app's exit."""


async def session(root: Path, target: str, title: str, told: float = SAID) -> tuple[dict[str, float], list[str]]:
    """A person's first seconds, driven by Textual's Pilot in this process: the first titles, then
    a document's whole title typed key by key from the moment they show (the vault perhaps still
    being read; keys posted `TYPING` apart, as the terminal would, not waiting for each to be
    handled as Pilot's `press` does), enter on it once it is listed, the rest of the load (the summary: every
    problem, the graph), and the watcher's start ("watching": it has caught up with the disk, a walk
    of the vault); then the palette asked for the title's first word until it offers documents,
    and the problems list opened and closed. Seconds to each, from the app's start, and "still": the longest gap between
    ticks asked for every `TICK`, from the start to `AFTER` seconds after the problems list closed, with "its CPU": the
    CPU time the whole process had in that gap (every thread's), and "screen CPU": its event
    loop's thread's, the screen's own work (a layout, a collection it set off). On a machine other work keeps
    busy, a gap the process hardly ran in was the machine's, not the app's; and "still on CPU" is
    the longest of any gap's CPU time (each at most its wall time): what the app itself held the
    screen for, at most, on a machine of its own; "screen on CPU" the same of the screen's thread
    alone: its own longest turn, the rest of a gap being other threads' (the interpreter is one). With them, each stall longer than `SAID` in
    words: what every thread was doing in it (`StallSampler`); `told`: told from how long, in seconds.
    And the full collections of the cycle collector on the screen's thread: how many, how many of
    them the app ran itself in a pause (`quiet_collector.py`), the longest and all of them in the
    thread's CPU time, which the machine's load does not stretch as it does a gap's wall time."""
    from textual import events
    from textual.command import CommandPalette
    from textual.keys import _character_to_key
    from textual.widgets import OptionList

    from tests.tui.tui_helpers import result_ids
    from workbench.tui.app import WorkbenchApp, screen_first
    from workbench.tui.dialogs.conflicts import ConflictsDialog
    from workbench.tui.dialogs.problems import ProblemsDialog
    from workbench.tui.widgets.viewer import DocumentViewer

    ticks: list[tuple[float, float, float]] = []  # (wall, the process's CPU, this thread's CPU) at each tick
    marks: dict[str, float] = {}
    start = time.perf_counter()
    app = WorkbenchApp(root, theme="workbench-dark")

    def palette_lines() -> list[str]:
        try:
            return [str(option.prompt).split("\n")[0] for option in app.screen.query_one("CommandList").options]
        except Exception:
            return []

    def listed() -> list[str]:
        try:
            app.screen.query_one("#results", OptionList)
        except Exception:
            return []
        return [doc_id for doc_id in result_ids(app)[:10] if doc_id]

    async def until(condition, name: str) -> None:
        while not condition():
            await asyncio.sleep(0.005)
        marks[name] = time.perf_counter() - start

    until_loaded: list[tuple[float, float, float]] = []

    async def steps(pilot) -> None:
        await until(listed, "first titles")
        await pilot.press("slash")
        typed = time.perf_counter()
        for key in title:  # as a person types, a key every TYPING seconds: not waiting for the app
            app.post_message(events.Key(key if key.isalnum() else _character_to_key(key), key))
            await asyncio.sleep(TYPING)
        marks["typed"] = time.perf_counter() - start
        await until(lambda: target in listed(), "listed")
        marks["listed after the first key"] = time.perf_counter() - typed
        app.screen.query_one("#results", OptionList).highlighted = listed().index(target)
        app.screen.query_one("#results", OptionList).action_select()
        viewer = app.screen.query_one(DocumentViewer)
        await until(lambda: viewer.view is not None and viewer.view.document.id == target, "shown")
        await until(lambda: app.screen.summary is not None, "loaded")
        # Then the watcher's start: its first look at the vault (a walk of every file) is work too.
        await until(lambda: app.screen.watcher is not None and app.screen.watcher.ready.is_set(), "watching")
        # What a person goes on to: the palette, asked for a word of the title (it matched every
        # document on the screen's thread: a minute still at 100,000), and the problems list
        # (every problem a row at once: 3.4 s still).
        await pilot.press("ctrl+p")
        await until(lambda: isinstance(app.screen, CommandPalette), "palette")
        await pilot.press(*[ch for ch in title.split()[0].lower() if ch.isalnum()])
        await until(lambda: any(line.startswith("Open: ") for line in palette_lines()), "palette's titles")
        await pilot.press("escape")
        await until(lambda: not isinstance(app.screen, CommandPalette), "palette closed")

        async def dialog(key: str, kind: type, what: str) -> None:
            """A dialog opened by its key, left open a moment, closed."""
            await pilot.press(key)
            await until(lambda: isinstance(app.screen, kind) and app.screen.is_mounted, what)
            await asyncio.sleep(AFTER)
            await pilot.press("escape")
            await until(lambda: not isinstance(app.screen, kind), f"{what} closed")
            await asyncio.sleep(AFTER)

        await dialog("p", ProblemsDialog, "problems")
        # The conflicts queue (`c`): read from the derived store when it is kept for the vault as
        # it is (worked out whole otherwise: minutes at 100,000 documents), then listed; asked a
        # second time once closed (the answer already in hand).
        await dialog("c", ConflictsDialog, "queue")
        await dialog("c", ConflictsDialog, "queue again")
        ticks.append((time.perf_counter(), time.process_time(), time.thread_time()))
        until_loaded[:] = ticks  # not the app's exit after it, which goes on ticking as it waits for threads

    full: list[float] = []
    """The CPU of each full collection of the cycle collector on the screen's thread (its own CPU
    clock: a figure the machine's load does not stretch)."""
    full_at: list[float] = []
    """When each began, in seconds from the start."""
    began: list[float] = []

    def collected(phase: str, info: dict) -> None:
        if info["generation"] != 2 or threading.current_thread() is not threading.main_thread():
            return
        if phase == "start":
            began[:] = [time.thread_time()]
            full_at.append(time.perf_counter() - start)
        elif began:
            full.append(time.thread_time() - began.pop())

    def tick() -> None:
        sampler.tick()
        ticks.append((time.perf_counter(), time.process_time(), time.thread_time()))

    gc.callbacks.append(collected)
    try:
        with StallSampler() as sampler, screen_first():  # the interpreter set as `WorkbenchApp.run` sets it
            async with app.run_test(size=(120, 40)) as pilot:
                app.set_interval(TICK, tick)
                await steps(pilot)
    finally:
        gc.callbacks.remove(collected)
    marks["full collections"] = len(full)
    marks["their longest CPU"] = max(full, default=0.0)
    marks["their CPU"] = sum(full)
    quiet = getattr(app, "quiet_collector", None)
    marks["in pauses"] = quiet.collections if quiet is not None else 0
    collections = ", ".join(f"{at:.2f} s {cpu * 1000:.0f} ms" for at, cpu in zip(full_at, full))
    gaps = [(b[0] - a[0], a[0], b[1] - a[1], b[2] - a[2]) for a, b in zip(until_loaded, until_loaded[1:])]
    gap, at, cpu, screens = max(gaps, default=(0.0, start, 0.0, 0.0))
    marks["still from"] = at - start  # when the longest gap began: where to look in a profile
    marks["still"] = gap
    marks["its CPU"] = cpu
    marks["screen CPU"] = screens
    marks["still on CPU"] = max((min(wall, used) for wall, _, used, _ in gaps), default=0.0)
    marks["screen on CPU"] = max((min(wall, used) for wall, _, _, used in gaps), default=0.0)
    loaded = until_loaded[-1][0] if until_loaded else start
    main = f"{threading.main_thread().name} ({threading.main_thread().native_id})"
    stalls = sorted(sampler.stalls, key=lambda stall: stall.began)
    said = [stall.report(start, main) for stall in stalls if stall.began < loaded and stall.seconds > told]
    # Every gap longer than `told`, with what the process and the screen's thread ran in it: the
    # stalls' reports above name the threads, these say which were the screen's own turns.
    long_gaps = [
        f"{began - start:.2f} s: {wall * 1000:.0f} ms (process {used * 1000:.0f}, screen {own * 1000:.0f})"
        for wall, began, used, own in gaps
        if wall > told
    ]
    # The screen's longest turn in each step, told by the step's mark that ends it (a gap ending
    # between "palette closed" and "problems" is the problems list's opening, not the palette's close).
    steps = sorted((at, name) for name, at in marks.items() if name in STEPS)
    by_step: dict[str, float] = {}
    for wall, began, _, own in gaps:
        ended = began + wall - start
        name = next((name for at, name in steps if ended <= at), "after")
        by_step[name] = max(by_step.get(name, 0.0), min(wall, own))
    if by_step:
        said.insert(
            0,
            "the screen's longest turn by step (each to its mark, CPU ms): "
            + ", ".join(f"{name} {own * 1000:.0f}" for name, own in by_step.items()),
        )
    if collections:
        said.insert(0, f"full collections on the screen's thread (from the start, its CPU): {collections}")
    if long_gaps:
        said.insert(
            0,
            "gaps over the told (from the start: wall, CPU of the process, of the screen's thread, ms): "
            + "; ".join(long_gaps),
        )
    return marks, said


def main(vaults: list[Path], generated: list[int], runs: int) -> None:
    compileall.compile_dir(Path(workbench.__file__).parent, quiet=1)
    print(
        f"{'vault':<28} {'docs':>6} {'bare':>7} {'titles':>7} {'x':>5} {'listing':>7} {'x':>5}"
        "   open p50/max first, max whole (ms)"
    )
    with tempfile.TemporaryDirectory() as scratch:
        targets = []
        for vault in vaults:
            copy = Path(scratch) / vault.name
            shutil.copytree(vault, copy)
            targets.append((vault.name, copy))
        for size in generated:
            root = Path(scratch) / f"generated-{size}"
            generate_vault(root, size)
            targets.append((f"generated {size}", root))
        for name, root in targets:
            bare, ours, listing = first_titles(root, runs)
            rows = asyncio.run(open_documents(root))
            firsts = [row[0] * 1000 for row in rows]
            wholes = [row[1] * 1000 for row in rows]
            docs = sum(1 for _ in root.rglob("*.md"))
            print(
                f"{name:<28} {docs:>6} {bare:>6.2f}s {ours:>6.2f}s {ours / bare:>5.2f} {listing:>6.2f}s {listing / bare:>5.2f}"
                f"   {statistics.median(firsts):>5.0f} / {max(firsts):>5.0f}, {max(wholes):>5.0f}"
            )
            sys.stdout.flush()


def a_titled_document(root: Path, rng: random.Random) -> tuple[str, str]:
    """(id, title) of a document of `root` drawn at random, read from its frontmatter's lines (a
    generated vault writes both plainly), without opening the vault in this process."""
    paths = sorted(root.rglob("*.md"))
    while True:
        head = rng.choice(paths).read_text("utf-8").split("\n---", 1)[0]
        found = dict(re.findall(r"^(id|title): *(.+)$", head, re.M))
        if "id" in found and "title" in found:
            return found["id"].strip("'\""), found["title"].strip("'\"")


def sessions(vaults: list[Path], runs: int, cold: bool = False, told: float = SAID) -> None:
    """`session` on each vault (opened once before, in a process of its own, so it is warm), once a
    run, each a fresh app in this process; prints each run's marks, and its stalls longer than
    `told` seconds. `cold`: each session starts with the vault's derived store removed (the first open of a
    vault: the titles kept from the last launch stay, as they do when a store is made again)."""
    rng = random.Random(7)
    for root in vaults:
        run_python(TITLES_SCRIPT, str(root), "settle")
        for _ in range(runs):
            target, title = a_titled_document(root, rng)
            if cold:
                shutil.rmtree(root / ".workbench", ignore_errors=True)
            marks, stalls = asyncio.run(session(root, target, title, told))
            stills = ("still", "its CPU", "screen CPU", "still on CPU", "screen on CPU")
            stills += ("full collections", "their longest CPU", "their CPU", "in pauses")
            said = ", ".join(f"{name} {seconds:.2f} s" for name, seconds in marks.items() if name not in stills)
            print(
                f"{root.name}{' (cold)' if cold else ''}: {said}; longest still {marks['still'] * 1000:.0f} ms"
                f" (the process ran {marks['its CPU'] * 1000:.0f} ms of it, the screen's thread"
                f" {marks['screen CPU'] * 1000:.0f} ms);"
                f" longest still on CPU {marks['still on CPU'] * 1000:.0f} ms"
                f" (the screen's thread's longest turn {marks['screen on CPU'] * 1000:.0f} ms);"
                f" full collections on the screen's thread {marks['full collections']:.0f}"
                f" ({marks['in pauses']:.0f} of them the app's own, in pauses), the longest"
                f" {marks['their longest CPU'] * 1000:.0f} ms of its CPU, {marks['their CPU'] * 1000:.0f} ms in all",
                flush=True,
            )
            for stall in stalls:
                print(stall, flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vaults", nargs="*", type=Path)
    parser.add_argument("--generated", nargs="*", type=int)
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--session", action="store_true", help="only `session`, on the vaults as they are")
    parser.add_argument(
        "--cold", action="store_true", help="with --session: remove each vault's derived store before each session"
    )
    parser.add_argument(
        "--told",
        type=float,
        default=SAID * 1000,
        help="with --session: the stalls told, from how many ms (default %(default)s)",
    )
    args = parser.parse_args()
    if args.session:
        sessions(args.vaults, args.runs, args.cold, args.told / 1000)
        raise SystemExit
    sample = Path(__file__).resolve().parents[2] / "sample_vault"
    main(
        args.vaults or ([] if args.generated else [sample]),
        args.generated if args.generated is not None else [1000, 10000],
        args.runs,
    )
