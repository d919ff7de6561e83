"""`workbench follow`: a running process keeps, after each change, the answers to `conflicts --json`
and `review --json` that a fresh process then prints. Real processes on a copy of the sample: the
follower, the fresh command lines, and the usual way's answer to compare them with byte for byte."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path


from workbench.core.services import follower_mark
from workbench.core.services.follower_mark import LOCK, MARK, Mark, awaited, held
from workbench.core.services.kept_answers import Fingerprint

ROOT = Path(__file__).resolve().parent.parent
DECISION = "decisions/mem-decision-money-integer-cents.md"
# The command, then which way it went: the index module is imported only by opening the vault.
SCRIPT = (
    "import sys; from workbench.cli import main; code = main(); "
    "print('opened' if 'workbench.core.index' in sys.modules else 'kept', file=sys.stderr); sys.exit(code)"
)
QUESTIONS = [("conflicts", "--json"), ("review", "--json")]


def asked(vault: Path, *line: str) -> tuple[str, str]:
    """(stdout, "opened" or "kept") of a fresh `workbench --vault VAULT LINE...`."""
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, "--vault", str(vault), *line], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    return result.stdout, result.stderr.strip().splitlines()[-1]


def follow_to_its_end(vault: Path) -> subprocess.CompletedProcess[str]:
    """`workbench follow` of `vault` where it ends at once (another follows it, no vault there)."""
    return subprocess.run(
        [sys.executable, "-m", "workbench.cli", "--vault", str(vault), "follow"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


def write_records(vault: Path, status: str = "Accepted") -> None:
    """Three decision records, the first two alike (a contradiction when both are accepted)."""
    vault.mkdir(exist_ok=True)
    for number, title in enumerate(["Use PostgreSQL for storage", "Use MySQL for storage", "Keep a log"], start=1):
        (vault / f"{number:04d}-{title.lower().replace(' ', '-')}.md").write_text(
            f"# {number}. {title}\n\nDate: 2024-0{number}-01\n\n## Status\n\n{status}\n\n## Context\n\n"
            f"We need to decide how to store invoices. {title} because the team knows it well.\n\n"
            "## Decision\n\nWe will store invoices in one relational database, amounts in integer cents.\n",
            "utf-8",
        )


def worked_out(vault: Path, command: str, *reading: str) -> str:
    """The answer the usual way works out now: the vault opened and the command run, nothing kept
    looked at or kept (`run_command` with no fingerprint), in a process of its own."""
    script = "import sys; from workbench.cli.main import run_command; sys.exit(run_command(sys.argv[1:]))"
    result = subprocess.run(
        [sys.executable, "-c", script, "--vault", str(vault), *reading, command, "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def assert_kept_and_exact(vault: Path, *reading: str) -> None:
    """Both questions answered at once from what the follower kept, byte for byte as worked out."""
    for line in QUESTIONS:
        out, way = asked(vault, *reading, *line)
        assert way == "kept", line
        assert out == worked_out(vault, line[0], *reading), line


def test_follower_keeps_what_a_fresh_process_works_out(sample_copy, following):
    follower = following()
    assert_kept_and_exact(sample_copy)
    decision = sample_copy / DECISION
    # A decision changed; then two files written a moment apart (the second during the first's round);
    # a file removed; a file made invalid. After each, a fresh process asked at once.
    decision.write_text(decision.read_text("utf-8") + "\nAmounts above a million are split.\n", "utf-8")
    assert_kept_and_exact(sample_copy)
    others = sorted((sample_copy / "decisions").glob("*.md"))
    others[0].write_text(others[0].read_text("utf-8") + "\nRevisited.\n", "utf-8")
    time.sleep(0.08)  # past the watcher's settle delay: the follower is at work on the first
    others[1].write_text(others[1].read_text("utf-8") + "\nRevisited too.\n", "utf-8")
    assert_kept_and_exact(sample_copy)
    others[2].unlink()
    assert_kept_and_exact(sample_copy)
    broken = others[3]
    broken.write_text("---\ntitle: [unclosed\n---\nbody\n", "utf-8")
    out, way = asked(sample_copy, "conflicts", "--json")
    assert out == worked_out(sample_copy, "conflicts")
    out, way = asked(sample_copy, "review", "--json")
    assert out == worked_out(sample_copy, "review")
    assert follower.stop() == 0
    assert "stopped after" in follower.lines[-1]
    assert not (sample_copy / ".workbench" / MARK).exists()  # the mark goes with the lock
    assert not held(str(sample_copy / ".workbench"))


def test_one_follower_a_vault_and_a_clear_error_for_no_vault(sample_copy, following, tmp_path):
    first = following()
    second = follow_to_its_end(sample_copy)
    assert second.returncode == 1
    assert "another process follows" in second.stderr and "Traceback" not in second.stderr
    assert first.process.poll() is None
    missing = follow_to_its_end(tmp_path / "nowhere")
    assert missing.returncode == 2
    assert "nowhere" in missing.stderr and "Traceback" not in missing.stderr
    assert first.stop(signal.SIGINT) == 0


def test_a_follower_killed_mid_work_leaves_no_wait_and_no_wrong_answer(sample_copy, following):
    follower = following()
    decision = sample_copy / DECISION
    decision.write_text(decision.read_text("utf-8") + "\nChanged before the kill.\n", "utf-8")
    follower.said("1 file(s) changed", within=60)
    decision.write_text(decision.read_text("utf-8") + "\nChanged again.\n", "utf-8")
    follower.stop(signal.SIGKILL)  # mid-round or about to begin one: its mark is left behind
    place = str(sample_copy / ".workbench")
    assert (Path(place) / MARK).exists() and not held(place)
    for line in QUESTIONS:
        fingerprint = Fingerprint(str(sample_copy), None, _question(line), _face())
        looks = _Looks(fingerprint)
        assert awaited(fingerprint, looks) is None
        assert looks.count == 0  # the lock is let go: not one look at a kept answer, no wait
        out, way = asked(sample_copy, *line)
        assert way == "opened"
        assert out == worked_out(sample_copy, line[0])


def test_a_mark_left_behind_or_a_hung_follower_never_holds_a_process_past_the_bound(
    sample_copy, following, monkeypatch
):
    asked(sample_copy, "conflicts", "--json")  # a store to look in
    place = str(sample_copy / ".workbench")
    question = _question(QUESTIONS[0])
    fingerprint = Fingerprint(str(sample_copy), None, question, _face())
    mark = Mark(place, fingerprint.root, None, fingerprint.code)
    # A mark saying it works on this very state, its lock held by no one: no wait.
    mark.write("working", fingerprint.taken_ns, {"conflicts": fingerprint.digest})
    looks = _Looks(fingerprint)
    assert awaited(fingerprint, looks) is None and looks.count == 0
    # The same mark, its lock held by a process that says it kept the answer but never did (hung,
    # or a store that lost it): waited for to the bound, the answer looked for once.
    monkeypatch.setattr(follower_mark, "WAIT_MOST_S", 0.3)
    assert mark.take()
    try:
        mark.write("working", fingerprint.taken_ns, {"conflicts": fingerprint.digest}, ["conflicts"])
        looks = _Looks(fingerprint)
        started = time.monotonic()
        assert awaited(fingerprint, looks) is None
        assert looks.count == 1
        assert time.monotonic() - started >= 0.3  # it did wait, and ended
        # Done with this state and nothing kept (a doubt): no wait.
        mark.write("idle", fingerprint.taken_ns, {"conflicts": fingerprint.digest})
        looks = _Looks(fingerprint)
        assert awaited(fingerprint, looks) is None and looks.count == 1
        # At work on a walk taken after this one, of another state: no wait.
        mark.write("working", fingerprint.taken_ns + 1, {"conflicts": "another"})
        looks = _Looks(fingerprint)
        assert awaited(fingerprint, looks) is None and looks.count == 0
        # Another flavour named, or another day: not this question's follower.
        Mark(place, fingerprint.root, "adr", fingerprint.code).write("walking")
        looks = _Looks(fingerprint)
        assert awaited(fingerprint, looks) is None and looks.count == 0
    finally:
        mark.release()
    assert not held(place) and not (Path(place) / MARK).exists()
    assert (Path(place) / LOCK).exists()


def test_a_fingerprint_taking_another_ones_walk_is_the_one_its_own_walk_takes(sample_copy):
    asked(sample_copy, "conflicts", "--json")
    first = Fingerprint(str(sample_copy), None, _question(QUESTIONS[0]), _face())
    again = Fingerprint(str(sample_copy), None, _question(QUESTIONS[1]), _face(), walked=first)
    alone = Fingerprint(str(sample_copy), None, _question(QUESTIONS[1]), _face())
    assert again.digest == alone.digest != first.digest


def test_the_follower_takes_a_burst_of_writes_as_one_change(sample_copy, following):
    follower = following()
    before = follower.rounds()
    files = sorted((sample_copy / "decisions").glob("*.md"))[:5]
    for number, path in enumerate(files):  # one agent's write of five files
        path.write_text(path.read_text("utf-8") + f"\nBurst {number}.\n", "utf-8")
    assert_kept_and_exact(sample_copy)
    # Five files, one round; two or three where a loaded machine parts the writes by the settle delay.
    assert follower.rounds() - before <= 3
    assert json.loads(asked(sample_copy, "review", "--json")[0])  # still a page
    assert follower.stop() == 0


class _Looks:
    """`Fingerprint.answer`, counted: how many times a waiting process looked for a kept answer."""

    def __init__(self, fingerprint: Fingerprint):
        self.fingerprint = fingerprint
        self.count = 0

    def __call__(self):
        self.count += 1
        return self.fingerprint.answer()


def _question(line: tuple[str, ...]) -> tuple:
    from workbench.cli.main import QUICK

    return QUICK[line]


def _face() -> list[Path]:
    return sorted((ROOT / "workbench" / "cli").glob("*.py"))


def test_the_lock_is_let_go_with_the_process(sample_copy, following):
    follower = following()
    place = str(sample_copy / ".workbench")
    assert held(place)
    follower.stop(signal.SIGKILL)
    assert not held(place)


def test_a_verdict_and_a_pair_marked_compatible_are_followed(sample_copy, following):
    follower = following()
    page = json.loads(asked(sample_copy, "review", "--json")[0])
    first, second = page["pairs"][0]["older"]["id"], page["pairs"][0]["newer"]["id"]
    line = json.dumps({"older": first, "newer": second, "verdict": "unsure", "agent": "reader"})
    recorded = subprocess.run(
        [sys.executable, "-m", "workbench.cli", "--vault", str(sample_copy), "review", "--verdicts", "-"],
        input=line + "\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert recorded.returncode == 0, recorded.stderr
    assert_kept_and_exact(sample_copy)
    marked = subprocess.run(
        [sys.executable, "-m", "workbench.cli", "--vault", str(sample_copy), "compatible", first, second],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert marked.returncode == 0, marked.stderr
    assert_kept_and_exact(sample_copy)
    assert json.loads(asked(sample_copy, "review", "--json")[0]) != page
    assert follower.stop() == 0


def test_decision_records_followed_with_their_flavour_named(tmp_path, following):
    vault = tmp_path / "records"
    write_records(vault)
    follower = following(vault, "--flavour", "adr")  # its store in the user's cache, not in the folder
    assert not (vault / ".workbench").exists()
    assert_kept_and_exact(vault, "--flavour", "adr")
    changed = vault / "0002-use-mysql-for-storage.md"
    changed.write_text(changed.read_text("utf-8") + "\nWe will store amounts in cents.\n", "utf-8")
    assert_kept_and_exact(vault, "--flavour", "adr")
    assert asked(vault, *QUESTIONS[0])[1] == "opened"  # no flavour named: another question, not waited for
    assert follower.stop() == 0


def test_a_waiting_process_says_its_question_and_the_follower_answers_it_first(sample_copy, following, monkeypatch):
    """Asked at once after a change, a process waits for the follower's round: it says which
    question it waits for, and that one is worked out first (before, the review list always was,
    so one asked for the queue waited for both)."""
    asked(sample_copy, "conflicts", "--json")  # a store to look in
    place = sample_copy / ".workbench"
    fingerprint = Fingerprint(str(sample_copy), None, _question(QUESTIONS[0]), _face())
    mark = Mark(str(place), fingerprint.root, None, fingerprint.code)
    monkeypatch.setattr(follower_mark, "WAIT_MOST_S", 0.2)
    assert mark.take()
    try:
        mark.write("walking")  # a follower about to work: worth waiting for, and told what is waited for
        assert awaited(fingerprint, _Looks(fingerprint)) is None
        assert mark.asked() == {"conflicts"}
    finally:
        mark.release()
    (place / (follower_mark.ASK + "conflicts")).unlink()
    follower = following()
    # The process's file, as it leaves it once the follower's round under way is worth waiting for.
    (place / (follower_mark.ASK + "conflicts")).touch()
    path = sample_copy / DECISION
    path.write_text(path.read_text("utf-8") + "\nAsked for the queue.\n", "utf-8")
    follower.said("(s) changed", 1)
    changed = next(line for line in follower.lines if "(s) changed" in line)
    assert "CPU; conflicts, review)" in changed
    assert not Mark(str(place), "", None, "").asked()  # answered: no one waits for it any longer
    path.write_text(path.read_text("utf-8") + "\nNo one asked.\n", "utf-8")
    follower.said("(s) changed", 2)
    assert "CPU; review, conflicts)" in [line for line in follower.lines if "(s) changed" in line][1]
    assert_kept_and_exact(sample_copy)
    assert follower.stop() == 0


def test_a_follower_past_its_memory_bound_starts_again_in_place_its_lock_kept(sample_copy, following):
    """Past `--memory-most` after a change's round, the follower replaces itself (`exec`): the same
    process, its lock never let go (a second follower is refused meanwhile and after), and it goes
    on keeping exact answers; the round of its new open does not start it again."""
    follower = following(options=("--memory-most", "1"))
    pid = follower.process.pid
    path = sample_copy / DECISION
    path.write_text(path.read_text("utf-8") + "\nPast the bound.\n", "utf-8")
    follower.said("starting again")
    follower.said("watching the vault", 2)
    assert follower.process.poll() is None and follower.process.pid == pid
    assert sum("starting again" in line for line in follower.lines) == 1  # not again for its open
    second = follow_to_its_end(sample_copy)
    assert second.returncode == 1 and "another process follows" in second.stderr
    assert_kept_and_exact(sample_copy)
    path.write_text(path.read_text("utf-8") + "\nAfter the start again.\n", "utf-8")
    follower.said("starting again", 2)
    follower.said("watching the vault", 3)
    assert_kept_and_exact(sample_copy)
    assert follower.stop() == 0
    assert not held(str(sample_copy / ".workbench"))
