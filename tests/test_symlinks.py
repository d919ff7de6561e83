"""Links and special files where the store keeps its own files are reported, and nothing waits on
a FIFO.

Each test links a part of a vault (`log.md`, `.workbench`, `.recovery`...) to a folder beside it,
runs `check` as a person would, and compares that folder byte for byte before and after."""

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


@pytest.mark.parametrize("where", ["log.md", ".workbench", ".recovery", ".workbench/history", ".workbench/index.sqlite"])
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
    assert f"{where}: warning symlink-ignored: symlinks are never followed; the workbench keeps its own files here" in result.stdout, result.stdout
    assert snapshot(outside) == before, "not even the derived store is written through it"


def test_a_fifo_where_the_store_keeps_a_file_is_reported(vault):
    (vault / ".workbench/lock").unlink(missing_ok=True)
    os.mkfifo(vault / ".workbench/lock")
    checked = run_cli("--vault", str(vault), "check", timeout=60)
    assert ".workbench/lock: warning not-a-regular-file" in checked.stdout


def test_a_fifo_document_does_not_hang_a_read(vault):
    os.mkfifo(vault / "notes/mem-note-fifo.md")
    checked = run_cli("--vault", str(vault), "check", timeout=60)
    assert "notes/mem-note-fifo.md: warning not-a-regular-file" in checked.stdout
