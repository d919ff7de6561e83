"""Undo and redo as a stack of named steps, on real files: undo takes the newest step and then the
one before it, each named with its place and time (and, when so, that it came before this
session); redo re-applies the step undone last and never overwrites a file changed since; a new
change clears the redo stack; a crash at any write step of an undo or a redo leaves the files
and the stack agreeing."""

from __future__ import annotations

import datetime as dt
import json
import shutil

import pytest

from helpers import run_cli, run_killed_at
from workbench import Vault
from workbench.core.vocabulary.model import RefusedError
from workbench.core.services.undo import Stack, Step

A, B, C = "mem-concept-idempotent-money-movement", "mem-concept-tenant-isolation-rls", "mem-concept-tern-product-vision"


def status_of(vault_root, doc_id: str) -> str:
    return Vault.open(vault_root).get(doc_id).status


def three_changes(root) -> Vault:
    vault = Vault.open(root)
    for doc_id in (A, B, C):
        vault.set_status(doc_id, "deprecated")
    return vault


def test_undo_takes_the_newest_step_then_the_one_before_it_each_named(sample_copy):
    vault = three_changes(sample_copy)
    first = vault.undo()
    assert first.summary.startswith(f"undo 1 of 3: status {C}: active → deprecated (")
    assert first.summary.endswith(" today)"), "made in this session: no word about earlier ones"
    second = vault.undo(dry_run=True)
    assert second.summary.startswith(f"undo 2 of 3: status {B}: active → deprecated")
    vault.undo()
    assert (status_of(sample_copy, A), status_of(sample_copy, B), status_of(sample_copy, C)) == (
        "deprecated",
        "active",
        "active",
    )
    stack = vault.undo_stack()
    assert [s.summary for s in stack.done] == [f"status {A}: active → deprecated"]
    assert [s.summary for s in stack.undone] == [f"status {B}: active → deprecated", f"status {C}: active → deprecated"]
    log = (sample_copy / "log.md").read_text()
    assert log.index(f"undo status {C}") < log.index(f"undo status {B}"), "each undo is logged, in order"


def test_redo_reapplies_the_step_undone_last_and_undo_takes_it_again(sample_copy):
    vault = three_changes(sample_copy)
    path = sample_copy / vault.get(C).path
    changed = path.read_bytes()
    vault.undo()
    vault.undo()
    redone = vault.redo()
    assert redone.applied and redone.summary.startswith(f"redo 2 of 3: status {B}")
    assert status_of(sample_copy, B) == "deprecated" and status_of(sample_copy, C) == "active"
    assert vault.redo().summary.startswith(f"redo 1 of 3: status {C}")
    assert path.read_bytes() == changed, "byte for byte what the step wrote"
    with pytest.raises(RefusedError, match="nothing to redo"):
        vault.redo()
    assert vault.undo(dry_run=True).summary.startswith(f"undo 1 of 3: status {C}"), (
        "the redone step is the newest again"
    )
    log = (sample_copy / "log.md").read_text()
    assert f"redo status {B}: active → deprecated" in log and f"redo status {C}: active → deprecated" in log


def test_redo_is_refused_when_a_file_changed_since_the_undo_by_plain_file_io(sample_copy):
    vault = three_changes(sample_copy)
    vault.undo()
    path = sample_copy / vault.get(C).path
    with open(path, "a", encoding="utf-8") as handle:  # an agent appends, outside the workbench
        handle.write("\nAn agent's line.\n")
    agents = path.read_bytes()
    with pytest.raises(RefusedError, match=rf"cannot redo .*{vault.get(C).path} has changed since it was undone"):
        vault.redo(dry_run=True)
    with pytest.raises(RefusedError, match="has changed since it was undone"):
        vault.redo()
    assert path.read_bytes() == agents
    assert [s.summary for s in vault.undo_stack().undone] == [f"status {C}: active → deprecated"], (
        "still there to redo once put back"
    )


def test_a_file_changed_between_the_redo_preview_and_the_redo_is_never_overwritten(sample_copy):
    vault = three_changes(sample_copy)
    vault.undo()
    assert vault.redo(dry_run=True).changes, "the preview"
    path = sample_copy / vault.get(C).path
    path.write_bytes(path.read_bytes() + b"\nlate\n")
    late = path.read_bytes()
    with pytest.raises(RefusedError, match="has changed since it was undone"):
        vault.redo()
    assert path.read_bytes() == late


def test_a_new_change_after_an_undo_clears_the_redo_stack(sample_copy):
    vault = three_changes(sample_copy)
    vault.undo()
    vault.set_status(A, "archived")
    with pytest.raises(RefusedError, match="nothing to redo: only a step undone since the last new change"):
        vault.redo()
    assert vault.undo_stack().undone == ()
    kept = list((sample_copy / ".workbench" / "history" / "undone").glob("*.json"))
    assert len(kept) == 1, "the cleared step is kept where forget finds it, never redone"
    assert vault.undo(dry_run=True).summary.startswith(f"undo 1 of 3: status {A}: deprecated → archived")


def test_a_step_from_an_earlier_session_says_so(sample_copy):
    three_changes(sample_copy)
    later = Vault.open(sample_copy)  # a new session on the same folder
    later.set_status(A, "archived")
    assert later.undo().summary.endswith(" today)"), "this session's own step"
    earlier = later.undo(dry_run=True)
    assert earlier.summary.startswith(f"undo 2 of 4: status {C}") and earlier.summary.endswith(
        "; made before this session started)"
    )
    later.undo()
    assert later.redo(dry_run=True).summary.endswith("; made before this session started)")


def test_a_step_another_process_made_during_this_session_says_so(sample_copy):
    ours = Vault.open(sample_copy)
    Vault.open(sample_copy).set_status(A, "deprecated")  # another writer, after ours opened
    assert ours.undo(dry_run=True).summary.endswith("; made by another process during this session)")


def test_when_a_step_was_made_reads_plainly():
    now = dt.datetime(2026, 12, 1, 9, 30)
    opened = dt.datetime(2026, 12, 1, 9, 0).timestamp()

    def when(made: dt.datetime) -> str:
        step = Step("x", "s", made.timestamp(), ("a.md",), False, made_here=True)
        return Stack((step,), (), opened).when(step, now)

    assert when(dt.datetime(2026, 12, 1, 9, 10)) == "09:10 today"
    assert (
        when(dt.datetime(2026, 11, 30, 16, 10)) == "from yesterday, 2026-11-30 16:10; made before this session started"
    )
    assert when(dt.datetime(2026, 11, 2, 8, 5)) == "from 2026-11-02 08:05; made before this session started"


def tree(root) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*.md")
        if ".workbench" not in p.parts and p.name != "log.md"
    }


def stack_names(root) -> tuple[list[str], list[str]]:
    stack = Vault.open(root).undo_stack()
    return [s.summary for s in stack.done], [s.summary for s in stack.undone]


@pytest.mark.slow
@pytest.mark.parametrize("verb", ["undo", "redo"])
def test_an_undo_or_redo_killed_at_any_step_leaves_files_and_stack_agreeing(sample_copy, tmp_path, verb):
    vault = three_changes(sample_copy)
    if verb == "redo":
        vault.undo()
    before, stack_before = tree(sample_copy), stack_names(sample_copy)
    done = tmp_path / "done"
    shutil.copytree(sample_copy, done)
    getattr(Vault.open(done), verb)()
    after, stack_after = tree(done), stack_names(done)
    assert after != before and stack_after != stack_before
    crashed = 0
    for step in (
        "journal-written",
        "file-written",
        "before-rename:1",
        "before-rename:2",
        "committed",
        "logged",
        "cleaned",
    ):
        trial = tmp_path / f"trial-{step.replace(':', '-')}"
        shutil.copytree(sample_copy, trial)
        script = f"import sys; from workbench import Vault; Vault.open(sys.argv[1]).{verb}()"
        result = run_killed_at(step, script, str(trial), timeout=None)
        if result.returncode != 137:
            continue
        crashed += 1
        names = stack_names(trial)  # opening recovers
        state = (tree(trial), names)
        assert state in ((before, stack_before), (after, stack_after)), f"{verb} killed at {step}"
        assert not list((trial / ".workbench" / "journal").glob("*.json")), step
    assert crashed >= 4


def test_cli_redo_history_and_dry_runs(sample_copy):
    root = str(sample_copy)
    three_changes(sample_copy)
    assert run_cli("--vault", root, "undo").returncode == 0
    listed = run_cli("--vault", root, "history")
    lines = listed.stdout.splitlines()
    assert f"status {C}: active → deprecated" in lines[0] and "undone: `workbench redo` re-applies it" in lines[0]
    assert lines[1].startswith("▶") and f"status {B}" in lines[1] and "reverts this next" in lines[1]
    data = json.loads(run_cli("--vault", root, "history", "--json").stdout)["changes"]
    assert [(c["number"], c["undone"]) for c in data] == [(1, True), (2, False), (3, False)]
    before = tree(sample_copy)
    dry = run_cli("--vault", root, "redo", "--dry-run")
    assert (
        dry.returncode == 0
        and dry.stdout.startswith(f"# redo 1 of 3: status {C}")
        and "\n+status: deprecated" in dry.stdout
    )
    assert tree(sample_copy) == before
    done = run_cli("--vault", root, "redo")
    assert done.returncode == 0 and f"next: undo 1 of 3: status {C}" in done.stdout
    assert status_of(sample_copy, C) == "deprecated"
    refused = run_cli("--vault", root, "redo")
    assert refused.returncode == 3 and "nothing to redo" in refused.stderr and "Traceback" not in refused.stderr
