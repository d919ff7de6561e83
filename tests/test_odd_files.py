"""Odd file-system objects in a vault: a named pipe, a device, a folder or an unreadable file where
the workbench expects a file, and files named like the workbench's own. Each is a problem naming
its path, never a hang, a traceback or a vault that cannot be opened; and nothing that is not
provably the workbench's is ever removed. Every command runs in a process of its own with a
timeout, so a hang fails the test instead of the suite."""

from __future__ import annotations

import json
import os
import stat
import threading
import time

import pytest

from helpers import run_cli, run_cli_unprivileged, run_killed_at
from workbench import RefusedError, Vault
from workbench.core.vocabulary.model import UnsafePathError

TIMEOUT = 60
NOTE = "notes/mem-note-sendgrid-sandbox-mode.md"
CONCEPT = "concepts/mem-concept-usage-based-billing.md"


def cli(root, *args):
    return run_cli("--vault", str(root), *args, timeout=TIMEOUT)


def problems(result) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for problem in json.loads(result.stdout)["problems"]:
        found.setdefault(problem["path"], set()).add(problem["code"])
    return found


def finishes(call, pipe=None, seconds: float = TIMEOUT):
    """`call()` in a thread of its own, failing the test (not hanging the suite) if it does not
    finish; a reader stuck on `pipe` is then let go by opening the pipe for writing."""
    outcome: dict = {}

    def run():
        try:
            outcome["value"] = call()
        except BaseException as error:  # noqa: BLE001 - handed back to the test
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        for _ in range(20):
            try:
                os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
            except (OSError, TypeError):
                pass
            thread.join(0.1)
        pytest.fail(f"did not finish in {seconds} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def eventually(predicate, seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def make_odd(path, kind: str) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":  # a character device that answers without end, as /dev/zero does
        if os.geteuid() != 0:
            pytest.skip("only root may make a device node")
        os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 5))
    else:
        raise ValueError(kind)


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_pipe_or_a_device_at_a_document_path_is_a_problem_never_read(sample_copy, kind):
    make_odd(sample_copy / "notes" / "mem-note-odd.md", kind)
    result = cli(sample_copy, "check", "--json")
    assert result.returncode == 1, result.stderr
    assert problems(result)["notes/mem-note-odd.md"] == {"not-a-regular-file"}
    assert cli(sample_copy, "show", "mem-note-stripe-test-clocks").returncode == 0
    assert cli(sample_copy, "search", "stripe").returncode == 0
    shown = cli(sample_copy, "show", "mem-note-odd")
    assert shown.returncode == 0 and "not-a-regular-file" in shown.stdout


def test_undo_refuses_when_a_pipe_took_the_files_place(sample_copy):
    assert cli(sample_copy, "status", "mem-concept-usage-based-billing", "archived").returncode == 0
    target = sample_copy / CONCEPT
    target.unlink()
    os.mkfifo(target)
    result = cli(sample_copy, "undo")
    assert result.returncode == 3, result.stderr
    assert "named pipe" in result.stderr and "Traceback" not in result.stderr
    assert stat.S_ISFIFO(os.lstat(target).st_mode)  # left exactly as it was


def test_the_watcher_reports_a_pipe_that_appears_and_goes_on(sample_copy):
    vault = Vault.open(sample_copy)
    pipe = sample_copy / "notes" / "mem-note-odd.md"
    with vault.watch() as watcher:
        assert watcher.ready.wait(10)
        os.mkfifo(pipe)
        assert finishes(lambda: eventually(lambda: any(p.code == "not-a-regular-file" for p in vault.problems)), pipe)
        assert [p.path for p in vault.problems if p.code == "not-a-regular-file"] == ["notes/mem-note-odd.md"]
        (sample_copy / "notes" / "mem-note-late.md").write_text(
            (sample_copy / NOTE).read_text().replace("mem-note-sendgrid-sandbox-mode", "mem-note-late")
        )
        assert finishes(lambda: eventually(lambda: "mem-note-late" in vault), pipe)  # not stuck on the pipe


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_log_md_that_is_not_a_file_never_stops_reading(sample_copy, kind):
    log = sample_copy / "log.md"
    log.unlink()
    os.mkfifo(log) if kind == "fifo" else log.mkdir()
    for args in (
        ("check",),
        ("show", "mem-note-stripe-test-clocks"),
        ("search", "stripe"),
        ("history",),
        ("links", "mem-entity-stripe"),
        ("stale",),
        ("conflicts",),
    ):
        result = cli(sample_copy, *args)
        # Every change is refused while log.md is not a file: `check` says so as an error.
        assert result.returncode == (1 if args == ("check",) else 0), (args, result.stderr)
    assert "writes-blocked" in cli(sample_copy, "check").stdout


def test_a_markdown_vault_whose_log_md_is_a_pipe_opens(tmp_path):
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nSee [[b]].\n")
    (root / "b.md").write_text("# B\n")
    os.mkfifo(root / "log.md")  # flavour detection reads the first lines of the top-level files
    result = cli(root, "check", "--json")
    assert result.returncode == 1 and problems(result)["log.md"] == {"not-a-regular-file"}


def test_a_change_finished_by_recovery_opens_even_when_log_md_became_a_folder(sample_copy):
    code = f"from workbench import Vault; Vault.open({str(sample_copy)!r}).set_status('mem-concept-usage-based-billing', 'archived')"
    killed = run_killed_at("committed", code, timeout=TIMEOUT)
    assert killed.returncode == 137
    (sample_copy / "log.md").unlink()
    (sample_copy / "log.md").mkdir()
    result = cli(sample_copy, "check")
    assert result.returncode == 1 and "writes-blocked" in result.stdout, result.stderr  # the log is still in the way
    assert "finished the interrupted change" in result.stderr and "log could not be written" in result.stderr
    assert Vault.open(sample_copy).get("mem-concept-usage-based-billing").status == "archived"
    assert not list((sample_copy / ".workbench" / "journal").glob("*.json"))


def test_an_unreadable_file_is_one_problem_and_every_other_command_works(sample_copy):
    (sample_copy / NOTE).chmod(0)
    try:
        checked = run_cli_unprivileged("--vault", str(sample_copy), "check", "--json")
        searched = run_cli_unprivileged("--vault", str(sample_copy), "search", "stripe")
        shown = run_cli_unprivileged("--vault", str(sample_copy), "show", "mem-note-stripe-test-clocks")
        changed = run_cli_unprivileged(
            "--vault", str(sample_copy), "status", "mem-concept-usage-based-billing", "archived"
        )
    finally:
        (sample_copy / NOTE).chmod(0o644)
    assert checked.returncode == 1, checked.stderr
    assert problems(checked)[NOTE] == {"unreadable"}
    assert searched.returncode == 0 and shown.returncode == 0 and changed.returncode == 0, changed.stderr
    # Readable again, it is read again: a permission moves neither its size nor its time.
    assert "mem-note-sendgrid-sandbox-mode" in Vault.open(sample_copy).ids()


def test_an_unreadable_folder_is_named_not_silently_dropped(sample_copy):
    (sample_copy / "notes").chmod(0)
    try:
        checked = run_cli_unprivileged("--vault", str(sample_copy), "check", "--json")
    finally:
        (sample_copy / "notes").chmod(0o755)
    assert checked.returncode == 1, checked.stderr
    assert "unreadable" in problems(checked)["notes"]


def test_folders_named_like_the_workbenchs_own_files_never_stop_an_open(sample_copy):
    temp_folder = sample_copy / "notes" / ".mem-note-x.md.wb-0123456789ab.tmp"
    temp_folder.mkdir()
    journal_folder = sample_copy / ".workbench" / "journal" / "20260101T000000.000000000-abcdef12.json"
    journal_folder.mkdir(parents=True)
    history_pipe = sample_copy / ".workbench" / "history" / "20260101T000000.000000000-abcdef12.json"
    history_pipe.parent.mkdir(parents=True)
    os.mkfifo(history_pipe)
    for args in (("check",), ("history",), ("undo", "--dry-run")):
        result = cli(sample_copy, *args)
        assert result.returncode in (0, 3) and "Traceback" not in result.stderr, (args, result.stderr)
    assert cli(sample_copy, "check").returncode == 0
    assert temp_folder.is_dir() and journal_folder.is_dir() and stat.S_ISFIFO(os.lstat(history_pipe).st_mode)


def test_a_persons_file_named_like_a_temporary_file_is_never_removed(sample_copy):
    mine = sample_copy / "notes" / ".mem-note-draft.md.wb-0123456789ab.tmp"
    mine.write_text("my own notes, whatever the name\n")
    assert cli(sample_copy, "check").returncode == 0
    assert mine.read_text() == "my own notes, whatever the name\n"
    # A crash leaves a journal and the workbench's own temporary file: recovery removes that one only.
    code = f"from workbench import Vault; Vault.open({str(sample_copy)!r}).set_status('mem-concept-usage-based-billing', 'archived')"
    killed = run_killed_at("before-rename:2", code, timeout=TIMEOUT)
    assert killed.returncode == 137
    ours = [p for p in (sample_copy / "concepts").iterdir() if p.name.endswith(".tmp")]
    assert len(ours) == 1
    result = cli(sample_copy, "check")
    assert result.returncode == 0 and "rolled back" in result.stderr
    assert not ours[0].exists()
    assert mine.read_text() == "my own notes, whatever the name\n"


def test_api_reads_of_an_odd_file_refuse_with_its_path(sample_copy):
    vault = Vault.open(sample_copy)
    target = sample_copy / CONCEPT
    target.unlink()
    os.mkfifo(target)
    doc = finishes(
        lambda: vault.get("mem-concept-usage-based-billing"), target
    )  # re-read: now a record with the problem
    assert not doc.valid
    assert [p.code for p in vault.problems_for(doc.id)] == ["not-a-regular-file"]
    with pytest.raises(RefusedError):
        vault.set_status(doc.id, "archived")


def test_a_log_that_is_a_folder_is_an_error_in_check(builder):
    """Every write is refused while log.md is not a file: check must say so, not call the vault clean."""
    builder.add("mem-note-a")
    (builder.root / "log.md").mkdir()
    vault = Vault.open(builder.root)
    blocked = [p for p in vault.problems if p.code == "writes-blocked"]
    assert [(p.path, str(p.severity)) for p in blocked] == [("log.md", "error")]
    assert "a folder" in blocked[0].message
    with pytest.raises(UnsafePathError):
        vault.set_status("mem-note-a", "archived")
    from workbench.cli import main

    assert main(["--vault", str(builder.root), "check"]) == 1


def test_a_file_name_cannot_forge_a_line_of_check(builder):
    """A name holding a line break (or a Unicode line separator) is printed escaped: each problem
    stays one line, and no line of the report is one the name wrote."""
    builder.add("mem-note-a")
    forged = "x.md: error fake-code: all is well\nnotes/y"
    builder.raw(f"notes/{forged}.md", "---\ntitle: forged\n---\nBody.\n")
    builder.raw("notes/sep\u2028arator.md", "---\ntitle: other\n---\nBody.\n")
    result = run_cli("--vault", str(builder.root), "check")
    lines = result.stdout.splitlines()
    assert not any(line.startswith("notes/y") or line.startswith("arator") for line in lines)
    assert (
        "notes/x.md: error fake-code: all is well\\x0anotes/y.md:1: error field-missing: required field 'id' is missing"
        in lines
    )
    assert any(line.startswith("notes/sep\\u2028arator.md:1: error") for line in lines)
    assert all("\t" not in line for line in lines)
