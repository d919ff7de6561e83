"""`workbench follow` against what a vault's life brings: its settings or its kind changed under it,
its folders that cannot be watched, a full disk, a state folder unpacked with strange files in it.
Each answer a fresh process prints must be the one it would work out itself."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.test_following import QUESTIONS, ROOT, asked, worked_out, write_records

DECISION = "decisions/mem-decision-money-integer-cents.md"


def _in_process(vault: Path):
    """A follower of `vault` in this process (opened, not yet following) and the lines it says."""
    from workbench.cli.main import QUICK, open_vault
    from workbench.core import Follower

    lines: list[str] = []
    face = sorted((ROOT / "workbench" / "cli").glob("*.py"))
    follower = Follower(str(vault), None, list(QUICK.values()), face, lines.append)
    assert follower.open(lambda listed: open_vault(str(vault), None, "conflicts", listed))
    return follower, lines


def test_status_words_changed_in_the_settings_are_followed(tmp_path, following):
    vault = tmp_path / "records"
    write_records(vault, "Parked")
    settings = vault / ".workbench.yaml"
    settings.write_text("statuses:\n  parked: draft\n", "utf-8")
    follower = following(vault, "--flavour", "adr")
    settings.write_text("statuses:\n  parked: archived\n", "utf-8")
    follower.said("opened again")
    for line in QUESTIONS:
        out, way = asked(vault, "--flavour", "adr", *line)
        assert out == worked_out(vault, line[0], "--flavour", "adr"), (line, way)
    assert follower.stop() == 0


def test_a_flavour_a_fresh_open_would_detect_now_is_followed(tmp_path, following):
    """No flavour named: a fresh open detects it from the files. A folder that held one note when
    the follower opened it, then an agent's decision records: read as decision records."""
    vault = tmp_path / "records"
    vault.mkdir()
    (vault / "note.md").write_text("# A note\n\nNothing decided here.\n", "utf-8")
    follower = following(vault)
    write_records(vault)
    (vault / "note.md").unlink()
    follower.said("opened again")
    time.sleep(1)
    for line in QUESTIONS:
        out, way = asked(vault, *line)
        assert out == worked_out(vault, line[0]), (line, way)
    assert follower.stop() == 0


def test_a_watch_that_cannot_be_set_up_is_said_and_ends_the_follower(sample_copy, monkeypatch):
    """inotify's watch limit reached: the follower says so and ends, not holding the lock with
    nothing heard."""
    import watchfiles

    follower, lines = _in_process(sample_copy)

    def no_watch(*args, **kwargs):
        raise OSError(28, "OS file watch limit reached")
        yield  # a generator, as `watch` is

    monkeypatch.setattr(watchfiles, "watch", no_watch)
    runner = threading.Thread(target=follower.follow, daemon=True)
    runner.start()
    runner.join(10)
    try:
        assert not runner.is_alive(), lines
        assert follower.failed and "limit" in follower.failed
    finally:
        follower.stop()
        runner.join(5)
        follower.close()


def test_a_round_failing_on_a_full_disk_is_said_and_the_next_change_followed(sample_copy):
    follower, lines = _in_process(sample_copy)
    assert follower.mark is not None
    full = threading.Event()
    write = follower.mark.write

    def written(*args, **kwargs):
        if full.is_set():
            raise OSError(28, "No space left on device")
        return write(*args, **kwargs)

    follower.mark.write = written  # type: ignore[method-assign]
    runner = threading.Thread(target=follower.follow, daemon=True)
    runner.start()
    try:
        assert follower.ready.wait(10)
        decision = sample_copy / DECISION
        full.set()
        decision.write_text(decision.read_text("utf-8") + "\nWritten on a full disk.\n", "utf-8")
        deadline = time.monotonic() + 20
        while not any("a round failed" in line for line in lines):
            assert time.monotonic() < deadline and runner.is_alive(), lines
            time.sleep(0.05)
        full.clear()  # room again: the next change is followed
        decision.write_text(decision.read_text("utf-8") + "\nRoom again.\n", "utf-8")
        while not any("answers kept" in line and "changed" in line for line in lines):
            assert time.monotonic() < deadline and runner.is_alive(), lines
            time.sleep(0.05)
    finally:
        follower.stop()
        runner.join(5)
        follower.close()


def test_a_mark_that_is_not_a_regular_file_never_holds_a_fresh_process(sample_copy):
    """A vault unpacked from an archive (tar keeps FIFOs, git symlinks) with a follower's files in
    its state folder: a FIFO named as the mark, a link to an endless file as the lock."""
    asked(sample_copy, "conflicts", "--json")  # a store to look in
    place = sample_copy / ".workbench"
    (place / "follower.lock").touch()
    os.mkfifo(place / "follower.json")
    decision = sample_copy / DECISION
    for round_ in range(2):
        decision.write_text(decision.read_text("utf-8") + f"\nChanged {round_}.\n", "utf-8")  # nothing kept
        try:
            result = subprocess.run(
                [sys.executable, "-m", "workbench.cli", "--vault", str(sample_copy), "conflicts", "--json"],
                capture_output=True,
                timeout=20,  # the stated bound is 5 s of waiting
                cwd=ROOT,
            )
        except subprocess.TimeoutExpired:
            raise AssertionError("a fresh `conflicts --json` waits for ever on what the state folder holds") from None
        assert result.returncode == 0, result.stderr
        (place / "follower.json").unlink()
        (place / "follower.lock").unlink()
        (place / "follower.json").symlink_to("/dev/zero")
        (place / "follower.lock").symlink_to("/dev/zero")


def test_a_lock_file_left_in_another_state_folder_hides_no_live_follower(tmp_path):
    """A command line looks in each state folder a vault may keep its store in; a lock file left
    in the first (a follower of another flavour, ended) must not hide the live one in the second."""
    import datetime as dt
    from types import SimpleNamespace

    from workbench.core.services.follower_mark import LOCK, Mark, awaited

    left, live = tmp_path / "left", tmp_path / "live"
    left.mkdir()
    live.mkdir()
    (left / LOCK).touch()
    asking = SimpleNamespace(
        root=str(tmp_path),
        flavour="adr",
        code="code",
        day=dt.date.today(),
        command="conflicts",
        digest="state",
        taken_ns=time.time_ns(),
        places=[str(left), str(live)],
    )
    mark = Mark(str(live), asking.root, "adr", "code")
    assert mark.take()
    try:
        mark.write("working", asking.taken_ns, {"conflicts": "state"}, ["conflicts"])
        assert awaited(asking, lambda: "the kept answer") == "the kept answer"
    finally:
        mark.release()
