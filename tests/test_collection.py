"""The test folders collected together in one call (`pytest tests/ tests/tui/`), as each is alone:
`tests/tui` has a conftest of its own beside `tests/conftest.py`, and pytest 8 collects only the
inner folder when a folder and one inside it are both given."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _collect(*args: str) -> tuple[int, str]:
    """(the number of tests collected, pytest's output) of `pytest --collect-only ARGS` run in a
    process of its own from the checkout."""
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-o", "addopts=", "-q", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    found = re.search(r"^(\d+) tests? collected", run.stdout, re.M)
    assert found, run.stdout[-3000:]
    return int(found.group(1)), run.stdout


def test_a_test_of_each_folder_collected_in_one_call() -> None:
    """A test importing the sample's path beside the TUI's conftest: once an ImportError, the
    module named `conftest` being the TUI's."""
    alone = _collect("tests/test_kept_links.py")[0] + _collect("tests/tui/test_tui_palette.py")[0]
    assert _collect("tests/test_kept_links.py", "tests/tui/test_tui_palette.py")[0] == alone


@pytest.mark.slow
def test_both_folders_given_collect_every_test() -> None:
    everything = _collect("tests")[0]
    assert everything > _collect("tests/tui")[0] > 0
    assert _collect("tests/", "tests/tui/")[0] == everything
    assert _collect("tests/tui/", "tests/")[0] == everything
