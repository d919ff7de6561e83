"""A store secret refused (others may read it) is told as a notice when the TUI opens a copied
vault, with the file and how to mend it: the copy's store is built again until it is."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tui_helpers import notes, wait_for

from workbench.core.records import seal
from workbench.core.vault import Vault
from workbench.tui.app import WorkbenchApp


@pytest.fixture
def refused_in_place(sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A vault whose store this user made, then the user's secret made readable by others."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setattr(seal, "_known", {})
    monkeypatch.setattr(seal, "_refused", {})
    Vault.open(sample_copy).index.store.close()
    seal.secret_path().chmod(0o644)
    monkeypatch.setattr(seal, "_known", {})  # as a new process
    return sample_copy


@pytest.fixture
def refused(refused_in_place: Path, tmp_path: Path) -> Path:
    """A copy of that vault: its store is built again, for want of the secret."""
    copy = tmp_path / "copied"
    shutil.copytree(refused_in_place, copy)
    return copy


async def _told_once(vault: Path) -> None:
    app = WorkbenchApp(vault, theme="workbench-dark")
    async with app.run_test(size=(100, 30)) as pilot:
        told = f"chmod 600 {seal.secret_path()}"
        await wait_for(pilot, lambda: any(told in note for note in notes(app)))
        said = [note for note in notes(app) if "secret" in note]
        assert len(said) == 1 and said[0].startswith("Store secret: "), said


async def test_a_refused_secret_is_a_notice_naming_the_file_and_the_fix(refused: Path) -> None:
    await _told_once(refused)


async def test_a_refused_secret_is_a_notice_on_a_warm_open_in_the_vaults_own_folder(refused_in_place: Path) -> None:
    """No copy, so the open asks no seal: the notice is told all the same, as the command line
    tells it, before a copy's store is built again for it."""
    await _told_once(refused_in_place)
