"""The core never sees the UI: importing it must not load textual or rich."""

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parent.parent / "workbench" / "core"
UI_MODULES = ("textual", "rich", "IPython", "workbench.tui", "workbench.cli")


def test_importing_the_core_loads_no_ui():
    code = (
        "import sys, workbench, workbench.core.vault, workbench.core.repair;"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('textual', 'rich', 'IPython') or m.startswith('workbench.tui')];"
        "print(','.join(bad)); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, f"the core loaded UI modules: {result.stdout}{result.stderr}"


def test_core_sources_import_nothing_from_the_faces():
    for source in CORE.rglob("*.py"):
        tree = ast.parse(source.read_text("utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [("." * node.level) + node.module]
            for name in names:
                assert not name.lstrip(".").startswith(("textual", "rich", "IPython", "tui", "cli")), f"{source.name} imports {name}"
                assert not name.startswith(("..tui", "..cli", "workbench.tui", "workbench.cli")), f"{source.name} imports {name}"
