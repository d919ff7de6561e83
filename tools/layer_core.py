"""Move `workbench/core`'s flat modules into one package per layer, and everything that names them.

The core's layers (facade, services, views, index, records, storage, editing, flavours, vocabulary)
lived only in pyproject's `core` import-linter contract and in docs/architecture.md, over one flat
folder. This is the tool that makes them folders. It is written to run on a checkout where other
work has landed since it was written, so it decides nothing by hand-edited diff:

- each module is `git mv`-ed to the package of its layer (`MOVES`, the one place to extend);
- every import that names a moved module is rewritten, absolute or relative, at the top of a
  module or inside a function (`from . import x`, `from .x import y`, `from workbench.core import x`,
  `import workbench.core.x`), and so is every other mention: dotted names in strings and comments
  (monkeypatch targets, `-m` module paths, mock paths), `core/x.py` paths in code and Markdown,
  `".core.x"` relative names given to `importlib`;
- a moved module that finds the core folder by `Path(__file__).parent` looks one folder up, and a
  data file beside the modules moves with the one module that reads it;
- pyproject's `core` contract is regenerated from the folders, and docs/architecture.md's table of
  layers with it;
- `workbench.core.docmerge` stays runnable with `-m`: git clones set up before the move call the
  merge driver by that name.

A module the table does not know stops the run before anything moves, naming it. One that the
`core` contract lists in an unambiguous layer is placed in that layer's package; any other must be
added to `MOVES`. Running it again on a moved tree changes nothing.

    python tools/layer_core.py            # move, rewrite, then format the touched files
    python tools/layer_core.py --dry-run  # only print what would move

Afterwards: `pytest tests/test_architecture.py`, then the suite.
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

# The packages, bottom-up as the layers import, each with what it holds (its docstring and the
# line in docs/architecture.md) and its modules. A module renamed where it would repeat its
# package's name: `storage/storage.py` is the writer, `records/records.py` the record.
PACKAGES: dict[str, tuple[str, list[str]]] = {
    "services": (
        "Services: each curation operation plans a change from the index and returns a `Plan`.",
        [
            "transitions",
            "gate",
            "conflicts",
            "resolving",
            "kept_conflicts",
            "consolidate",
            "references",
            "maintenance",
            "repair",
            "migrate",
            "undo",
            "tiers",
            "inbox",
            "agentwrites",
            "gitsync",
            "recent",
        ],
    ),
    "views": (
        "Derived views: computed from the records, never writing a document (graph, search, meaning).",
        ["graph", "live_graph", "search", "fulltext", "query", "semantic", "similarity", "retrieval", "successors"],
    ),
    "records": (
        "Records: what the index is built from: each file's parsed record and its checks, the walk, "
        "the derived store, loading, the watcher, id ownership, the vault's settings, an edit's bytes.",
        [
            "records",
            "validate",
            "walk",
            "loading",
            "live",
            "ownership",
            "derived_store",
            "store_rows",
            "vaultconfig",
            "rewrite",
        ],
    ),
    "storage": (
        "Storage: bytes on disk, all or nothing: the change writer, its journal, replacing a file, "
        "the lock, reaching files without following a symlink, and the steps where a crash is tested.",
        ["storage", "journal", "filereplace", "crashpoint", "lock", "vaultfs", "changes"],
    ),
    "editing": (
        "Editing: the bytes of a document changed surgically: YAML edits, three-way text and "
        "document merges, and the edits merges share.",
        ["yamledit", "textmerge", "docmerge", "edits"],
    ),
    "vocabulary": (
        "Vocabulary: the words every layer speaks: types, statuses, documents, problems, errors, "
        "reading frontmatter, lifecycles, supersession, reading a file, the drawing port.",
        ["model", "parse", "quickyaml", "presenting", "lifecycle", "supersession", "files"],
    ),
}
RENAMES = {"storage": "writer", "records": "record"}
# Staying at the top: the facade and the index every view and service stands on.
TOP = {"vault", "index"}
# Old module paths kept runnable (`python -m`), with why.
SHIMS = {
    "docmerge": "git clones set up before the core's layers became folders run the merge driver as\n"
    "`python -m workbench.core.docmerge`",
}
# The contract, top to bottom: `|` layers that may not import each other, `:` siblings that may.
LAYERS = ["vault : docmerge", "services", "views", "index", "records", "storage", "editing | flavours", "vocabulary"]
CONTRACT_NAME = "The core imports one way, folder by folder: facade, services, views, index, records, storage, editing and flavours, vocabulary"
LAYER_WORDS = {
    "vault": ("facade", "one-line delegations"),
    "services": ("services", "plan a change from the index"),
    "views": ("views", "derived from the records, never write"),
    "index": ("index", "the records, reading, applying"),
    "records": ("records", "what the index is built from"),
    "storage": ("storage", "bytes on disk, all or nothing"),
    "editing": ("editing", "a document's bytes, edited and merged"),
    "flavours": ("flavours", "one module per vault format"),
    "vocabulary": ("vocabulary", "words every layer speaks"),
}
# A module the old contract names in one of these layers (found by a member) goes to that package.
LAYER_OF_MEMBER = {"transitions": "services", "graph": "views", "model": "vocabulary"}

MOVES: dict[str, str] = {
    module: f"{package}.{RENAMES.get(module, module)}"
    for package, (_, modules) in PACKAGES.items()
    for module in modules
}
CORE = "workbench.core"
TEXT_GLOBS = ("workbench/**/*.py", "tests/**/*.py", "tools/**/*.py", "docs/**/*.md", "*.md", "pyproject.toml")
LEAVE = {"CHANGELOG.md", "tools/layer_core.py"}  # history says what was true then; this file names old homes


def run(*args: str, cwd: Path) -> str:
    return subprocess.run(args, cwd=cwd, check=True, capture_output=True, text=True).stdout


def fail(message: str) -> NoReturn:
    print(f"layer_core: {message}", file=sys.stderr)
    sys.exit(1)


# --- what moves -------------------------------------------------------------------------------


def old_contract_members(pyproject: str) -> dict[str, str]:
    """Module name → package, from the `core` contract's layers in their flat form (before the move)."""
    at = pyproject.find('id = "core"')
    block = re.compile(r"layers = \[(.*?)\n\]", re.S).search(pyproject, at) if at >= 0 else None
    found: dict[str, str] = {}
    if not block:
        return found
    for layer in re.findall(r'"([^"]*)"', block.group(1)):
        names = set(re.split(r"[\s:|]+", layer.strip()))
        for member, package in LAYER_OF_MEMBER.items():
            if member in names:
                found.update(dict.fromkeys(names, package))
    return found


def plan_data(root: Path, moved: dict[str, str]) -> dict[str, str]:
    """Data files beside the modules (`confusables.tsv`): each goes with the one moving module that
    names it, so `Path(__file__).with_name(...)` still finds it. Fails when none or several do."""
    core = root / "workbench" / "core"
    files = sorted(p.name for p in core.iterdir() if p.is_file() and p.suffix not in (".py", ".pyc"))
    found, unsure = {}, []
    for name in files:
        readers = [m for m in moved if name in (core / f"{m}.py").read_text("utf-8")]
        if len(readers) == 1:
            found[name] = moved[readers[0]].rpartition(".")[0].replace(".", "/") + "/" + name
        elif any(name in p.read_text("utf-8") for p in core.glob("*.py") if p.stem not in moved):
            continue  # read by a module that stays
        else:
            unsure.append(f"{name} (named by {', '.join(readers) or 'no module'})")
    if unsure:
        fail("data files in workbench/core with no one module to go with: " + "; ".join(unsure) + "; move them by hand")
    return found


def plan_moves(root: Path) -> dict[str, str]:
    """Old module name → new dotted tail under `workbench.core`, for the modules still to move."""
    core = root / "workbench" / "core"
    modules = {p.stem for p in core.glob("*.py")} - {"__init__", *TOP}
    packages = {p.parent.name for p in core.glob("*/__init__.py")} - {"flavours", *PACKAGES}
    by_layer = old_contract_members((root / "pyproject.toml").read_text("utf-8"))
    moves, unknown = {}, sorted(f"{name}/" for name in packages)
    for name in sorted(modules):
        if name in SHIMS and "runpy.run_module(" in (core / f"{name}.py").read_text("utf-8"):
            continue  # the shim this tool left
        target = MOVES.get(name) or (f"{by_layer[name]}.{name}" if name in by_layer else None)
        if target is None:
            unknown.append(name)
            continue
        if (core / (target.replace(".", "/") + ".py")).exists():
            fail(f"{name}.py is in workbench/core and at {target.replace('.', '/')}.py: settle which by hand")
        moves[name] = target
    if unknown:
        fail(
            "modules of workbench/core with no layer package: "
            + ", ".join(sorted(unknown))
            + "\nname each in PACKAGES in tools/layer_core.py (or in a services, views or vocabulary layer of"
            " pyproject's `core` contract), then run again; nothing was moved"
        )
    return moves


# --- rewriting --------------------------------------------------------------------------------


@dataclass
class Place:
    """A Python file's module name before the move and after it."""

    old: str
    new: str
    package: bool


def module_of(relative: Path) -> tuple[str, bool]:
    parts = list(relative.with_suffix("").parts)
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def new_name(dotted: str, moved: dict[str, str]) -> str:
    """`workbench.core.storage.x` → `workbench.core.storage.writer.x`, for a module that moved."""
    if not dotted.startswith(CORE + "."):
        return dotted
    head, _, rest = dotted[len(CORE) + 1 :].partition(".")
    if head not in moved:
        return dotted
    return f"{CORE}.{moved[head]}" + (f".{rest}" if rest else "")


def absolute(place_package: str, level: int, module: str | None) -> str:
    base = place_package.split(".")
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def relative(from_package: str, target: str) -> str:
    here, there = from_package.split("."), target.split(".")
    common = 0
    while common < min(len(here), len(there)) and here[common] == there[common]:
        common += 1
    return "." * (len(here) - common + 1) + ".".join(there[common:])


def rewrite_import(node: ast.ImportFrom, place: Place, moved: dict[str, str]) -> list[tuple[str, list[ast.alias]]]:
    """The statement's new form: one `(module text, names)` per source module, or [] when unchanged."""
    old_package = place.old if place.package else place.old.rpartition(".")[0]
    new_package = place.new if place.package else place.new.rpartition(".")[0]
    target = absolute(old_package, node.level, node.module) if node.level else (node.module or "")
    if not node.level and not (target == CORE or target.startswith(CORE + ".")):
        return []
    groups: dict[str, list[ast.alias]] = {}
    for alias in node.names:
        whole = f"{target}.{alias.name}"
        if alias.name != "*" and new_name(whole, moved) != whole:
            parent, _, base = new_name(whole, moved).rpartition(".")
            groups.setdefault(parent, []).append(
                ast.alias(base, alias.asname or (alias.name if base != alias.name else None))
            )
        else:
            groups.setdefault(new_name(target, moved), []).append(alias)
    written = [(relative(new_package, module) if node.level else module, names) for module, names in groups.items()]
    if len(written) == 1 and written[0][0] == "." * node.level + (node.module or "") and written[0][1] == node.names:
        return []
    return written


def import_text(module: str, names: list[ast.alias]) -> str:
    listed = ", ".join(a.name + (f" as {a.asname}" if a.asname and a.asname != a.name else "") for a in names)
    return f"from {module} import {listed}"


def text_pattern(moved: dict[str, str]) -> tuple[re.Pattern[str], Callable[[re.Match[str]], str]]:
    """One pattern for every mention, so that no replacement is read again by another."""
    names = "|".join(sorted(map(re.escape, moved), key=len, reverse=True))
    pattern = re.compile(
        # `from workbench.core import x` in a string of code (a child process's script)
        r"(?<![\w.])from (?P<head>workbench\.core|\.core) import (?P<names>\w+(?: as \w+)?(?:, \w+(?: as \w+)?)*)"
        rf"|(?<![\w.])(?P<dotted>workbench\.core|\.core|core)\.(?P<module>{names})(?![\w])"
        rf"|(?<![\w.])(?P<folder>(?:workbench/)?core/)(?P<file>{names})\.py\b"
    )

    def replace(match: re.Match[str]) -> str:
        if match.group("dotted"):
            return f"{match.group('dotted')}.{moved[match.group('module')]}"
        if match.group("folder"):
            return f"{match.group('folder')}{moved[match.group('file')].replace('.', '/')}.py"
        groups: dict[str, list[str]] = {}
        for item in match.group("names").split(", "):
            name, _, alias = item.partition(" as ")
            parent, _, base = new_name(f"{CORE}.{name}", moved).rpartition(".")
            bound = alias or (name if base != name else "")
            groups.setdefault(parent[len(CORE) :], []).append(base + (f" as {bound}" if bound else ""))
        head = match.group("head")
        return "; ".join(f"from {head}{module} import {', '.join(names)}" for module, names in groups.items())

    return pattern, replace


def rewrite_text(text: str, moved: dict[str, str]) -> str:
    """Every dotted name or path of a moved module: in strings, comments, Markdown and TOML."""
    pattern, replace = text_pattern(moved)
    return pattern.sub(replace, text)


def offsets(text: str) -> list[int]:
    starts, total = [0], 0
    for line in text.splitlines(keepends=True):
        total += len(line)
        starts.append(total)
    return starts


def rewrite_python(text: str, place: Place, moved: dict[str, str], where: str) -> str:
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        fail(f"{where} does not parse ({error}); nothing of it was rewritten")
    lines = offsets(text)
    edits: list[tuple[int, int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        groups = rewrite_import(node, place, moved)
        if not groups:
            continue
        start = lines[node.lineno - 1] + node.col_offset
        end = lines[node.end_lineno - 1] + node.end_col_offset  # type: ignore[operator]
        if len(groups) == 1 and groups[0][1] == node.names:  # only the module: keep the names' layout
            statement = re.sub(r"^from\s+\S+", f"from {groups[0][0]}", text[start:end], count=1)
        else:
            statement = ("\n" + " " * node.col_offset).join(import_text(module, names) for module, names in groups)
        edits.append((start, end, statement))
    edits.sort()
    pieces = rewrite_text_pieces(text, moved, [(start, end) for start, end, _ in edits])
    out = pieces[0] + "".join(new + piece for (_, _, new), piece in zip(edits, pieces[1:]))
    if place.old != place.new and place.old.startswith(CORE + ".") and place.old.count(".") == 2:
        out = re.sub(r"Path\(__file__\)\.parent(?!\.parent)", "Path(__file__).parent.parent", out)
    return out


def rewrite_text_pieces(text: str, moved: dict[str, str], skip: list[tuple[int, int]]) -> list[str]:
    """The text between the skipped spans, each piece rewritten; one more piece than spans."""
    pieces, at = [], 0
    for start, end in sorted(skip):
        pieces.append(rewrite_text(text[at:start], moved))
        at = end
    pieces.append(rewrite_text(text[at:], moved))
    return pieces


# --- the contract and the architecture page ----------------------------------------------------


def contract_layers() -> str:
    rows = "\n".join(f'    "{layer}",' for layer in LAYERS)
    return f"layers = [\n{rows}\n]"


def rewrite_contract(pyproject: str) -> str:
    at = pyproject.find('id = "core"')
    block = re.compile(r"layers = \[.*?\n\]", re.S).search(pyproject, at) if at >= 0 else None
    if block is None:
        fail('pyproject.toml has no contract with id = "core" and a layers list')
    head = re.sub(
        r'\nname = "[^"\n]*"', lambda _: f'\nname = "{CONTRACT_NAME}"', pyproject[at : block.start()], count=1
    )
    return pyproject[:at] + head + contract_layers() + pyproject[block.end() :]


def layers_table(core: Path) -> str:
    """docs/architecture.md's table of the core's layers, drawn from the folders."""
    rows = [
        f"{'faces':<13}{'cli → tui | notebook | agents':<32}(may import anything below)",
        f"{'samples':<13}{'samples.py':<32}the sample's scratch copy",
    ]
    for name in ["vault", "services", "views", "index", "records", "storage", "editing", "flavours", "vocabulary"]:
        word, what = LAYER_WORDS[name]
        folder = core / name
        if not folder.is_dir():
            rows.append(f"{word:<13}{'core/' + name + '.py':<32}{what}")
            continue
        rows.append(f"{word:<13}{'core/' + name + '/':<32}{what}")
        line = " " * 13
        for module in sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__"):
            if len(line) + len(module) > 96:
                rows.append(line.rstrip())
                line = " " * 13
            line += module + " "
        rows.append(line.rstrip())
    return "\n".join(rows)


MARK = "<!-- the table below is drawn from the folders by tools/layer_core.py -->"


# The page's prose about the layers that changed, as it read before the move and after it. Matched
# whatever the line breaks; a paragraph edited since is left as it is, and named.
PROSE = [
    (
        "(`supersession`); the edits merges share (`edits`: joining a section, uniting tags and links, "
        "slugs); the one way",
        "(`supersession`); the one way",
    ),
    (
        "- **Storage** owns bytes and files. The `ChangeWriter` (`storage`) applies a change all or "
        "nothing and recovers after a crash; it holds the vault's `Journal` (`journal`: the change in "
        "flight, the history, the redo stack and the log) and replaces each file through `filereplace` "
        "(checked at the moment of the swap, put back when the change is refused), with named steps "
        "where tests stop the process (`crashpoint`). A change's value types, `FileChange` and `Plan`, "
        "are in `changes`. Then the vault lock (`lock`), reaching files without following a symlink "
        "(`vaultfs`: every write and delete goes through it), a file's parsed `Record` and its checks "
        "(`records`, `validate`), the bytes of an edit to one document (`rewrite`), which file owns which "
        "id (`ownership`), the walk and where a vault's state lives (`walk`), the derived SQLite store "
        "(`derived_store`), reading many files and bringing the records in line with a walk "
        "(`loading`), the watcher (`live`).",
        "- **Editing** (`editing/`) changes a document's bytes surgically: a frontmatter edit that\n"
        "  rewrites only the lines it changes (`yamledit`), the three-way merges of text (`textmerge`)\n"
        "  and of a whole document (`docmerge`, git's merge driver), and the edits merges share (`edits`:\n"
        "  joining a section, uniting tags and links, slugs). It imports only the vocabulary.\n"
        "- **Storage** (`storage/`) owns bytes on disk. The `ChangeWriter` (`writer`) applies a change\n"
        "  all or nothing and recovers after a crash; it holds the vault's `Journal` (`journal`: the change\n"
        "  in flight, the history, the redo stack and the log) and replaces each file through\n"
        "  `filereplace` (checked at the moment of the swap, put back when the change is refused), with\n"
        "  named steps where tests stop the process (`crashpoint`). A change's value types, `FileChange`\n"
        "  and `Plan`, are in `changes`; the vault lock in `lock`; `vaultfs` reaches files without\n"
        "  following a symlink (every write and delete goes through it).\n"
        "- **Records** (`records/`) are what the index is built from: a file's parsed `Record` and its\n"
        "  checks (`record`, `validate`), the bytes of an edit to one document (`rewrite`), which file\n"
        "  owns which id (`ownership`), the walk and where a vault's state lives (`walk`), the derived\n"
        "  SQLite store (`derived_store`, `store_rows`), reading many files and bringing the records in\n"
        "  line with a walk (`loading`), the watcher (`live`) and the vault's own settings (`vaultconfig`).",
    ),
]


# CONTRIBUTING.md's advice on a new core module, once the layers are folders.
CONTRIBUTING_PROSE = [
    (
        "- **A new module of `workbench/core`**: the `core` contract is exhaustive, so name the module in "
        "the layer it belongs to, and say so in [docs/architecture.md](docs/architecture.md#layout).",
        "- **A new module of `workbench/core`**: put it in the folder of the layer it belongs to\n"
        "  (`services/`, `views/`, `records/`, `storage/`, `editing/`, `flavours/`, `vocabulary/`); the\n"
        "  `core` contract is exhaustive over the folders, so a module left at the top of the core fails it.\n"
        "  `python tools/layer_core.py` draws the table of [docs/architecture.md](docs/architecture.md#layout)\n"
        "  from the folders again.",
    ),
]


def rewrite_prose(page: str, prose: list[tuple[str, str]] = PROSE, where: str = "docs/architecture.md") -> str:
    for before, after in prose:
        if after in page:
            continue
        loose = re.compile(r"\s+".join(map(re.escape, before.split())))
        found = loose.search(page)
        if found:
            page = page[: found.start()] + after + page[found.end() :]
        else:
            print(f"layer_core: {where} no longer says {before[:60]!r}...; update it by hand")
    return page


def rewrite_architecture(page: str, core: Path) -> str:
    page = rewrite_prose(page)
    table = f"{MARK}\n```\n{layers_table(core)}\n```"
    if MARK in page:
        return re.sub(re.escape(MARK) + r"\n```\n.*?\n```", lambda _: table, page, count=1, flags=re.S)
    block = re.search(r"```\nfaces .*?\n```", page, re.S)
    if not block:
        print("layer_core: docs/architecture.md has no table of layers starting `faces`; add the table by hand")
        return page
    return page[: block.start()] + table + page[block.end() :]


# --- the run ----------------------------------------------------------------------------------


def shim_text(name: str, target: str) -> str:
    return (
        f'"""The old address of `{CORE}.{target}`, kept runnable:\n{SHIMS[name]}."""\n\n'
        "import runpy\n\n"
        'if __name__ == "__main__":\n'
        f'    runpy.run_module("{CORE}.{target}", run_name="__main__", alter_sys=True)\n'
    )


def move(root: Path, moved: dict[str, str], data: dict[str, str], files: list[Path]) -> dict[Path, Place]:
    """`git mv` each module and data file; each Python file's module name before and after. `files`
    is updated in place to the new paths, with the new packages' `__init__.py`."""
    core = root / "workbench" / "core"
    places = {}
    for path in files:
        if path.suffix == ".py" and path.is_relative_to(root / "workbench"):
            old, package = module_of(path.relative_to(root))
            places[path] = Place(old, old, package)
    for name, target in moved.items():
        old_path, new_path = core / f"{name}.py", core / (target.replace(".", "/") + ".py")
        package_dir = new_path.parent
        if not (package_dir / "__init__.py").exists():
            package_dir.mkdir(exist_ok=True)
            (package_dir / "__init__.py").write_text(f'"""{PACKAGES[package_dir.name][0]}"""\n', "utf-8")
            run("git", "add", str(package_dir / "__init__.py"), cwd=root)
        run("git", "mv", str(old_path), str(new_path), cwd=root)
        place = places.pop(old_path)
        places[new_path] = Place(place.old, f"{CORE}.{target}", False)
        files[files.index(old_path)] = new_path
    files += [p for p in (core / package / "__init__.py" for package in PACKAGES) if p.exists() and p not in files]
    for name, target in data.items():
        run("git", "mv", str(core / name), str(core / target), cwd=root)
    return places


def rewrite(root: Path, path: Path, places: dict[Path, Place], moved: dict[str, str]) -> bool:
    """Rewrite one file's mentions of the moved modules (and the contract, the pages); whether it changed."""
    text = path.read_text("utf-8")
    where = str(path.relative_to(root))
    if not moved:
        new = text  # nothing moved: only the contract and the pages are drawn again
    elif path.suffix == ".py":
        module = ".".join(path.relative_to(root).with_suffix("").parts)
        new = rewrite_python(text, places.get(path) or Place(module, module, False), moved, where)
    else:
        new = rewrite_text(text, moved)
    if path.name == "pyproject.toml":
        new = rewrite_contract(new)
    if where == "docs/architecture.md":
        new = rewrite_architecture(new, root / "workbench" / "core")
    if where == "CONTRIBUTING.md":
        new = rewrite_prose(new, CONTRIBUTING_PROSE, where)
    if new != text:
        path.write_text(new, "utf-8")
    return new != text


def main(argv: list[str] | None = None) -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--dry-run", action="store_true", help="print the moves, change nothing")
    options.add_argument("--allow-dirty", action="store_true", help="run on a work tree with uncommitted changes")
    args = options.parse_args(argv)
    root = Path(run("git", "rev-parse", "--show-toplevel", cwd=Path.cwd()).strip())
    core = root / "workbench" / "core"
    moved = plan_moves(root)
    data = plan_data(root, moved)
    for name, target in sorted(moved.items()):
        print(f"  core/{name}.py -> core/{target.replace('.', '/')}.py")
    for name, target in sorted(data.items()):
        print(f"  core/{name} -> core/{target}")
    if args.dry_run:
        return 0
    if run("git", "status", "--porcelain", "--untracked-files=no", cwd=root).strip() and not args.allow_dirty:
        fail("the work tree has uncommitted changes; commit or stash them first (or --allow-dirty)")

    files = sorted({p for glob in TEXT_GLOBS for p in root.glob(glob) if p.is_file()} - {root / p for p in LEAVE})
    files = [p for p in files if ".venv" not in p.parts and "node_modules" not in p.parts]
    places = move(root, moved, data, files)
    touched = [path for path in files if rewrite(root, path, places, moved)]
    for name, why in SHIMS.items():
        shim = core / f"{name}.py"
        if name in moved or not shim.exists():
            shim.write_text(shim_text(name, MOVES[name]), "utf-8")
            run("git", "add", str(shim), cwd=root)
    python = [str(p) for p in touched if p.suffix == ".py"]
    if python:
        subprocess.run([sys.executable, "-m", "ruff", "format", "--quiet", *python], cwd=root, check=False)
    print(f"moved {len(moved)} modules; rewrote {len(touched)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
