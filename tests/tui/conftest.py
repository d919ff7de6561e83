"""Fixtures for the TUI tests: a scratch copy of the sample vault for each test.

Opening a vault writes `.workbench/` into it, so every test works on its own copy.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "sample_vault"


@pytest.fixture
def vault_path(tmp_path: Path) -> Path:
    target = tmp_path / "vault"
    shutil.copytree(SAMPLE, target, ignore=shutil.ignore_patterns(".workbench"))
    return target
