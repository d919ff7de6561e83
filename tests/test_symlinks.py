"""Nothing is written or deleted through a symlink, and nothing waits on a FIFO.

Each test links a part of a vault (`log.md`, a type folder, `.workbench`, `.recovery`) to a folder
beside it, runs the command line as a person would, and compares that folder byte for byte before
and after: 0 bytes changed outside the vault, the command refused in one line (exit 3), and
`check` naming the link."""

from __future__ import annotations

import os

import pytest

from helpers import run_cli
from vault_builders import doc_text

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX only")


def snapshot(folder):
    """Every entry under `folder`: a file's bytes, a link's target, a folder's name."""
    seen = {}
    for here, folders, files in os.walk(folder):
        for name in folders + files:
            path = os.path.join(here, name)
            relative = os.path.relpath(path, folder)
            if os.path.islink(path):
                seen[relative] = ("link", os.readlink(path))
            elif os.path.isfile(path):
                with open(path, "rb") as handle:
                    seen[relative] = ("file", handle.read())
            else:
                seen[relative] = ("folder", None)
    return seen


@pytest.fixture
def outside(tmp_path):
    """A folder beside the vault with files of its own, which nothing may touch."""
    folder = tmp_path / "outside"
    (folder / "notes").mkdir(parents=True)
    (folder / "log.md").write_text("# Someone else's log\n")
    (folder / "keep.txt").write_text("unrelated, and mem-note-a is named here\n")
    (folder / "notes" / "theirs.md").write_text("not a vault note\n")
    return folder


@pytest.fixture
def vault(builder):
    builder.add("mem-entity-core")
    builder.add("mem-note-a", status="draft", links="[{type: related_to, target: mem-entity-core}]")
    run_cli("--vault", str(builder.root), "check")  # its .workbench exists, as in a vault in use
    return builder.root


def refused(result, link: str) -> None:
    assert result.returncode == 3, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert link in result.stderr and "symbolic link" in result.stderr


def reported(root, path: str) -> None:
    result = run_cli("--vault", str(root), "check")
    assert "Traceback" not in result.stderr
    assert f"{path}: warning symlink-ignored" in result.stdout, result.stdout


@pytest.mark.parametrize(
    "where", ["log.md", ".workbench", ".recovery", ".workbench/history", ".workbench/index.sqlite"]
)
def test_links_where_the_store_keeps_its_files_are_reported(vault, outside, where):
    import shutil

    target = vault / where
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    elif target.exists():
        target.unlink()
    os.symlink(outside, target)
    before = snapshot(outside)
    result = run_cli("--vault", str(vault), "check")
    assert (
        f"{where}: warning symlink-ignored: symlinks are never followed; the workbench keeps its own files here"
        in result.stdout
    ), result.stdout
    assert snapshot(outside) == before, "not even the derived store is written through it"


def test_a_fifo_where_the_store_keeps_a_file_is_reported(vault):
    (vault / ".workbench/lock").unlink(missing_ok=True)
    os.mkfifo(vault / ".workbench/lock")
    checked = run_cli("--vault", str(vault), "check", timeout=60)
    assert ".workbench/lock: warning not-a-regular-file" in checked.stdout


def test_a_linked_log_gets_no_line(vault, outside):
    (vault / "log.md").unlink(missing_ok=True)
    os.symlink(outside / "log.md", vault / "log.md")
    before, note = snapshot(outside), (vault / "notes/mem-note-a.md").read_bytes()
    refused(run_cli("--vault", str(vault), "status", "mem-note-a", "active"), "log.md")
    assert snapshot(outside) == before
    assert (vault / "notes/mem-note-a.md").read_bytes() == note
    reported(vault, "log.md")


def test_a_linked_type_folder_receives_no_new_document(vault, outside):
    (vault / "notes/mem-note-a.md").unlink()
    (vault / "notes").rmdir()
    os.symlink(outside / "notes", vault / "notes", target_is_directory=True)
    before = snapshot(outside)
    result = run_cli(
        "--vault",
        str(vault),
        "new",
        "--type",
        "note",
        "--title",
        "A thought of its own",
        "--link",
        "related_to:mem-entity-core",
        "--create",
    )
    refused(result, "notes")
    assert snapshot(outside) == before
    reported(vault, "notes")


def test_a_linked_type_folder_receives_no_repair_move(vault, outside):
    (vault / "notes/mem-note-a.md").unlink()
    (vault / "notes").rmdir()
    os.symlink(outside / "notes", vault / "notes", target_is_directory=True)
    # A valid note in the wrong folder, with a repairable fault: repair would move it into notes/.
    (vault / "concepts").mkdir()
    (vault / "concepts/mem-note-misplaced.md").write_text(
        doc_text("mem-note-misplaced", links="[{type: related_to, target: mem-entity-core}]").replace(
            "source: manual", "source: claude"
        )
    )
    before, misplaced = snapshot(outside), (vault / "concepts/mem-note-misplaced.md").read_bytes()
    refused(run_cli("--vault", str(vault), "check", "--repair"), "notes")
    assert snapshot(outside) == before
    assert (vault / "concepts/mem-note-misplaced.md").read_bytes() == misplaced
    assert not (vault / ".recovery").exists(), "not even the backup was written"


def test_a_linked_state_folder_loses_nothing_to_forget(vault, outside):
    import shutil

    shutil.rmtree(vault / ".workbench")
    os.symlink(outside, vault / ".workbench", target_is_directory=True)
    before = snapshot(outside)
    refused(run_cli("--vault", str(vault), "forget", "mem-note-a", "--confirm", "mem-note-a"), ".workbench")
    refused(run_cli("--vault", str(vault), "status", "mem-note-a", "active"), ".workbench")
    assert snapshot(outside) == before, "nothing written there, not even the derived store"
    assert (vault / "notes/mem-note-a.md").exists()
    reported(vault, ".workbench")


def test_a_linked_recovery_folder_loses_nothing_to_forget(vault, outside):
    os.symlink(outside, vault / ".recovery", target_is_directory=True)
    before = snapshot(outside)
    refused(run_cli("--vault", str(vault), "forget", "mem-note-a", "--confirm", "mem-note-a"), ".recovery")
    assert snapshot(outside) == before
    assert (vault / "notes/mem-note-a.md").exists()
    reported(vault, ".recovery")


def test_a_linked_recovery_folder_receives_no_backup(vault, outside):
    os.symlink(outside, vault / ".recovery", target_is_directory=True)
    (vault / "notes/mem-note-b.md").write_text(
        doc_text("mem-note-b", links="[{type: related_to, target: mem-entity-core}]").replace(
            "source: manual", "source: claude"
        )
    )
    before = snapshot(outside)
    refused(run_cli("--vault", str(vault), "check", "--repair"), ".recovery")
    assert snapshot(outside) == before


def test_links_inside_the_state_folder_are_refused_and_reported(vault, outside):
    history = vault / ".workbench" / "history"
    if history.exists():
        import shutil

        shutil.rmtree(history)
    os.symlink(outside, history, target_is_directory=True)
    before = snapshot(outside)
    refused(run_cli("--vault", str(vault), "status", "mem-note-a", "active"), ".workbench/history")
    assert snapshot(outside) == before
    reported(vault, ".workbench/history")


def test_a_fifo_log_does_not_hang_a_write(vault):
    (vault / "log.md").unlink(missing_ok=True)
    os.mkfifo(vault / "log.md")
    note = (vault / "notes/mem-note-a.md").read_bytes()
    result = run_cli("--vault", str(vault), "status", "mem-note-a", "active", timeout=60)
    assert result.returncode == 3 and "Traceback" not in result.stderr, result.stderr
    assert "log.md is not a regular file (a named pipe" in result.stderr
    assert (vault / "notes/mem-note-a.md").read_bytes() == note
    checked = run_cli("--vault", str(vault), "check", timeout=60)
    assert "log.md: warning not-a-regular-file" in checked.stdout


def test_a_fifo_document_does_not_hang_a_read(vault):
    os.mkfifo(vault / "notes/mem-note-fifo.md")
    checked = run_cli("--vault", str(vault), "check", timeout=60)
    assert (
        "notes/mem-note-fifo.md: error not-a-regular-file" in checked.stdout
    )  # seen as a broken document, never opened
