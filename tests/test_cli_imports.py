"""What a process of the command line imports: the command it runs, not the others. A process
answers one command, and each module of another (the parser's grammar of every command, the
documents' commands, the agents' server and git's) was imported for nothing by every call of the
conflicts queue or the review list after a change. Real processes on a real vault."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OTHERS = ("workbench.cli.parser", "workbench.cli.documents", "workbench.cli.connections")
SCRIPT = (
    "import sys; from workbench.cli import main; code = main(); "
    f"print(sorted(m for m in {OTHERS!r} if m in sys.modules), file=sys.stderr); sys.exit(code)"
)


def _imported(vault: Path, *args: str) -> tuple[str, list[str]]:
    """(stdout, which of OTHERS were imported) of `workbench --vault VAULT ARGS...`."""
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, "--vault", str(vault), *args], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    return result.stdout, ast.literal_eval(result.stderr.strip().splitlines()[-1])


@pytest.mark.parametrize("command", ["conflicts", "review"])
def test_the_queue_and_the_review_list_after_a_change_import_no_other_command(sample_copy, command):
    _imported(sample_copy, command, "--json")  # its answer kept
    decision = next(p for p in sorted(sample_copy.rglob("*.md")) if "type: decision" in p.read_text("utf-8"))
    with decision.open("a", encoding="utf-8") as file:
        file.write("\nOne sentence more.\n")
    printed, imported = _imported(sample_copy, command, "--json")
    assert imported == []
    assert printed.startswith("{")


def test_another_command_imports_its_own_module_and_the_parser(sample_copy):
    printed, imported = _imported(sample_copy, "show", "--json", "mem-decision-money-integer-cents")
    assert imported == ["workbench.cli.documents", "workbench.cli.parser"]
    assert "mem-decision-money-integer-cents" in printed
