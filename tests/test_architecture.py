"""The layers hold: the contracts in pyproject.toml (import-linter, counting every import the
code states), the core never loads the UI, a model import loads no heavy library, and no module
reaches for another module's private names. The lint rules, the formatter and the package's types
are checked here too."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "workbench"
HEAVY = ("textual", "rich", "networkx", "rapidfuzz", "sqlite3", "numpy", "watchfiles", "IPython")


def loaded_by(statement: str, watched: tuple[str, ...]) -> list[str]:
    """The watched top-level packages a fresh interpreter has loaded after `statement`."""
    code = (
        f"import sys; {statement}; print(','.join(sorted({{m.split('.')[0] for m in sys.modules}} & set({watched!r}))))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    return [name for name in result.stdout.strip().split(",") if name]


def test_the_import_contracts_hold():
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports(no_cache=True))",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_the_lint_rules_hold():
    """`ruff check` with the rules `pyproject.toml` selects: unused imports, undefined names and the like."""
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_code_is_formatted():
    """`ruff format --check`: one layout everywhere, so a diff shows what changed and nothing else."""
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--no-cache", "."],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_the_package_type_checks():
    """`mypy` over the whole package (the core and every face) with the settings in
    `pyproject.toml` ([tool.mypy], `check_untyped_defs` on): a None where a value is needed, a
    wrong argument, a name that is not there."""
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_importing_the_model_loads_no_heavy_library():
    assert loaded_by("import workbench.core.vocabulary.model", HEAVY) == []


def test_opening_a_vault_and_searching_loads_neither_the_ui_nor_the_graph():
    sample = ROOT / "sample_vault"
    statement = (
        f"import shutil, tempfile; root = tempfile.mkdtemp() + '/v'; shutil.copytree({str(sample)!r}, root); "
        "from workbench import Vault; Vault.open(root).search('stripe webhook retries', 5)"
    )
    assert loaded_by(statement, ("textual", "rich", "networkx", "watchfiles", "numpy", "IPython")) == []


def test_importing_the_core_loads_no_ui():
    statement = "import workbench, workbench.core.vault, workbench.core.services.repair, workbench.core.views.graph, workbench.core.views.search"
    assert loaded_by(statement, ("textual", "rich", "IPython")) == []


def test_only_the_mcp_server_loads_the_mcp_sdk():
    statement = "import workbench, workbench.cli, workbench.agents.tools, workbench.core.services.inbox, workbench.core.views.retrieval"
    assert loaded_by(statement, ("mcp", "pydantic")) == []
    assert loaded_by("import workbench.agents.server", ("mcp",)) == ["mcp"]


def test_no_module_imports_another_modules_private_name():
    for source in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                private = [
                    alias.name for alias in node.names if alias.name.startswith("_") and not alias.name.startswith("__")
                ]
                assert not private, f"{source.relative_to(ROOT)} imports {private} from {node.module}"


def test_every_modules_all_names_what_it_defines_for_others():
    """`__all__` is true: every name it lists exists, and every public function or class is listed."""
    for source in PACKAGE.rglob("*.py"):
        tree = ast.parse(source.read_text("utf-8"))
        listed = [
            node
            for node in tree.body
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets)
        ]
        if not listed:
            continue
        names = set(ast.literal_eval(listed[0].value))
        defined = {
            node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
        }
        bound = defined | {
            t.id
            for node in tree.body
            if isinstance(node, (ast.Assign, ast.AnnAssign))
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(t, ast.Name)
        }
        bound |= {
            alias.asname or alias.name
            for node in tree.body
            if isinstance(node, (ast.Import, ast.ImportFrom))
            for alias in node.names
        }
        bound |= {
            alias.asname or alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.If)
            for sub in node.body
            if isinstance(sub, (ast.Import, ast.ImportFrom))
            for alias in sub.names
        }
        where = source.relative_to(ROOT)
        assert names <= bound, f"{where}: __all__ lists {sorted(names - bound)}, which it does not define"
        assert {d for d in defined if not d.startswith("_")} <= names, (
            f"{where}: public but not in __all__: {sorted({d for d in defined if not d.startswith('_')} - names)}"
        )


def test_the_public_core_names_each_thing_once_and_from_where_it_lives():
    """`workbench.core` loads each public name from its home on first use (`_HOMES`) and names the
    same imports for a type checker; the two lists must agree, and every name must load."""
    import workbench.core as public

    tree = ast.parse((PACKAGE / "core" / "__init__.py").read_text("utf-8"))
    typed = {
        (("." * sub.level) + (sub.module or ""), alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.If)
        for sub in node.body
        if isinstance(sub, ast.ImportFrom)
        for alias in sub.names
    }
    lazy = {(home, name) for home, names in public._HOMES.items() for name in names}
    assert typed == lazy, f"typed only: {sorted(typed - lazy)}; loaded only: {sorted(lazy - typed)}"
    assert sorted(public.__all__) == sorted(name for _, name in lazy)
    assert len(public.__all__) == len(set(public.__all__))
    for name in public.__all__:
        assert getattr(public, name) is not None, name


def test_importing_the_public_core_loads_nothing_it_is_not_asked_for():
    """`workbench.core` names the whole public core, so importing it must load none of it beyond the drawing
    port the package installs: a face that asks for `Vault` loads the facade's modules, never the
    services' or the graph's."""
    statement = "import sys, workbench.core; print(' '.join(m for m in sys.modules if m.startswith('workbench.core.')))"
    result = subprocess.run([sys.executable, "-c", statement], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert set(result.stdout.split()) <= {"workbench.core.vocabulary", "workbench.core.vocabulary.presenting"}
    assert (
        loaded_by("from workbench.core import Vault, Document, Plan", ("textual", "rich", "networkx", "watchfiles"))
        == []
    )


def test_the_architecture_page_gives_the_write_traces_figures():
    """The page says how far an agent's write wanders as `trace_write` measures it today."""
    result = subprocess.run(
        [sys.executable, "-m", "tests.benchmarks.trace_write"], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    figures = dict(line.split(": ", 1) for line in result.stdout.splitlines() if ": " in line)
    modules, returns = figures["modules entered"], figures["returns into a module still on the stack"]
    page = " ".join((ROOT / "docs" / "architecture.md").read_text().split())
    stated = f"It enters {modules} of the package's modules and returns {returns} time"
    assert stated in page, f"docs/architecture.md should say: {stated}"
