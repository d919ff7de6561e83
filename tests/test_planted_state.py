"""Records planted under `.workbench/` never take a write out of the vault.

A journal or an undo record names the files it changes. One written by someone else may name
`../x`, `/abs/x` or a path through a symlink; `check` (which finishes or rolls back an interrupted
change on open) and `undo` must then write nothing anywhere: the record is set aside under
`.workbench/refused/`, named in the vault's notes, and the vault still opens."""

from __future__ import annotations

import base64
import json
import os

import pytest

from helpers import run_cli
from test_symlinks import snapshot

from workbench import Vault

VICTIM = b"a file outside the vault, which must keep its bytes\n"
PLANTED = b"bytes an attacker wants written\n"


def record(path: str, state: str = "prepared", name: str = "20990101T000000.000000000-planted") -> dict:
    """A change record that says `path` went from PLANTED to VICTIM: rolling it back, or undoing
    it, would write PLANTED over the file at `path`."""
    encode = lambda data: base64.b64encode(data).decode("ascii")  # noqa: E731
    return {
        "id": name,
        "summary": "a planted change",
        "time": 4_070_908_800.0,
        "state": state,
        "log": [],
        "files": [{"path": path, "before": encode(PLANTED), "after": encode(VICTIM)}],
    }


@pytest.fixture
def setting(builder, tmp_path):
    builder.add("mem-entity-core")
    Vault.open(builder.root)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.md").write_bytes(VICTIM)
    return builder.root, outside


def plant(root, folder: str, data: dict, name: str = "20990101T000000.000000000-planted.json"):
    target = root / ".workbench" / folder
    target.mkdir(parents=True, exist_ok=True)
    (target / name).write_text(json.dumps(data))
    return target / name


def paths_to_victim(root, outside):
    return {
        "dot-dot": os.path.relpath(outside / "victim.md", root),
        "absolute": str(outside / "victim.md"),
        "through a link": "linked/victim.md",
    }


@pytest.mark.parametrize("kind", ["dot-dot", "absolute", "through a link"])
def test_a_planted_journal_writes_nothing_on_check(setting, kind):
    root, outside = setting
    os.symlink(outside, root / "linked", target_is_directory=True)
    planted = plant(root, "journal", record(paths_to_victim(root, outside)[kind]))
    before = snapshot(outside)
    result = run_cli("--vault", str(root), "check")
    assert "Traceback" not in result.stderr
    assert snapshot(outside) == before
    assert not planted.exists()
    assert (root / ".workbench/refused" / planted.name).exists()
    assert f"set aside .workbench/journal/{planted.name}" in result.stderr
    vault = Vault.open(root)  # opens, with nothing left to recover
    assert "mem-entity-core" in vault


@pytest.mark.parametrize("kind", ["dot-dot", "absolute", "through a link"])
def test_a_planted_undo_record_writes_nothing(setting, kind):
    root, outside = setting
    os.symlink(outside, root / "linked", target_is_directory=True)
    planted = plant(root, "history", record(paths_to_victim(root, outside)[kind], "committed"))
    before = snapshot(outside)
    result = run_cli("--vault", str(root), "undo")
    assert result.returncode == 3, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and "nothing to undo" in result.stderr
    assert f"set aside .workbench/history/{planted.name}" in result.stderr
    assert snapshot(outside) == before
    assert (root / ".workbench/refused" / planted.name).exists()


def test_a_planted_undo_record_does_not_hide_the_real_last_change(setting):
    root, outside = setting
    vault = Vault.open(root)
    vault.set_status("mem-entity-core", "deprecated")
    plant(root, "history", record(os.path.relpath(outside / "victim.md", root), "committed"))
    before = snapshot(outside)
    result = run_cli("--vault", str(root), "undo")
    assert result.returncode == 0, result.stderr
    assert "set aside" in result.stderr
    assert Vault.open(root).get("mem-entity-core").status == "active"
    assert snapshot(outside) == before


@pytest.mark.parametrize("path", [".workbench/lock", "notes/../../victim.md", "./notes/x.md", "", None, 7])
def test_records_with_paths_no_change_can_have_are_set_aside(setting, path):
    root, outside = setting
    planted = plant(root, "journal", record(path))
    vault = Vault.open(root)
    assert any(planted.name in note and "set aside" in note for note in vault.recovery_notes), vault.recovery_notes
    assert not planted.exists()
    assert snapshot(outside) == {"victim.md": ("file", VICTIM)}


def test_a_journal_that_is_a_symlink_or_a_fifo_is_not_read(setting):
    root, outside = setting
    (root / ".workbench/journal").mkdir(parents=True, exist_ok=True)
    (outside / "record.json").write_text(json.dumps(record("notes/x.md")))
    os.symlink(outside / "record.json", root / ".workbench/journal/linked.json")
    os.mkfifo(root / ".workbench/journal/fifo.json")
    before = snapshot(outside)
    result = run_cli("--vault", str(root), "check", timeout=60)
    assert "Traceback" not in result.stderr
    assert "set aside .workbench/journal/fifo.json" in result.stderr
    assert "set aside .workbench/journal/linked.json" in result.stderr
    assert snapshot(outside) == before
