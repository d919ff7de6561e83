"""The cycle collector's pause is one for the process: blocks on two threads pause it at once, and
it is back on only once the last of them is out, whichever leaves first, and only if it was on."""

from __future__ import annotations

import gc
import threading

import pytest

from workbench import Vault
from workbench.core.records import loading
from workbench.core.services import kept_conflicts


@pytest.fixture(autouse=True)
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def _paused_on_a_thread(pause, entered: threading.Event, leave: threading.Event, seen: list) -> threading.Thread:
    def run() -> None:
        with pause():
            entered.set()
            leave.wait(10)
            seen.append(gc.isenabled())  # as this block leaves

    thread = threading.Thread(target=run)
    thread.start()
    assert entered.wait(10)
    return thread


@pytest.mark.parametrize("first_out", ["first in", "last in"])
@pytest.mark.parametrize(
    "pauses",
    [(Vault.collector_paused, Vault.collector_paused), (loading.collector_paused, kept_conflicts.collector_paused)],
    ids=["facade", "open and queue"],
)
def test_two_threads_pause_the_collector_and_the_last_out_resumes_it(pauses, first_out):
    events = [(threading.Event(), threading.Event()) for _ in pauses]
    seen: list[list[bool]] = [[], []]
    threads = []
    for n, pause in enumerate(pauses):
        threads.append(_paused_on_a_thread(pause, *events[n], seen[n]))
        assert not gc.isenabled()
    order = [0, 1] if first_out == "first in" else [1, 0]
    events[order[0]][1].set()
    threads[order[0]].join(10)
    assert not gc.isenabled(), "one thread's block turned the collector on while another was inside"
    events[order[1]][1].set()
    threads[order[1]].join(10)
    assert seen == [[False], [False]]
    assert gc.isenabled(), "the collector stayed off after both blocks left"


def test_a_collector_turned_off_before_stays_off():
    gc.disable()
    entered, leave = threading.Event(), threading.Event()
    thread = _paused_on_a_thread(Vault.collector_paused, entered, leave, [])
    with Vault.collector_paused():
        pass
    leave.set()
    thread.join(10)
    assert not gc.isenabled()
    gc.enable()


def test_many_threads_at_once_leave_it_as_they_found_it():
    start = threading.Barrier(8)
    on_inside: list[bool] = []

    def run() -> None:
        start.wait(10)
        for _ in range(2000):
            with loading.collector_paused():
                if gc.isenabled():
                    on_inside.append(True)

    threads = [threading.Thread(target=run) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not on_inside, "the collector was on inside a block"
    assert gc.isenabled()
