"""The reference pages cannot drift from the code: every command and option the parser knows is in
docs/cli.md (and every command there is one the parser knows), and every key the bindings hold is
in docs/keys.md. A new option or key fails here until its line is written."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from textual.keys import format_key

from workbench.cli.parser import build_parser

ROOT = Path(__file__).resolve().parent.parent


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def long_options(parser: argparse.ArgumentParser) -> list[str]:
    return [o for a in parser._actions for o in a.option_strings if o.startswith("--") and o != "--help"]


def command_rows(page: str) -> list[str]:
    """The rows of the tables under `## Commands`."""
    section = page.split("\n## Commands", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| `")]


def rows_of(command: str, rows: list[str]) -> list[str]:
    return [row for row in rows if re.search(rf"(^\| |` / )`{re.escape(command)}\b", row)]


def test_every_command_and_option_is_in_the_cli_reference():
    page = (ROOT / "docs" / "cli.md").read_text("utf-8")
    rows = command_rows(page)
    prose = "\n".join(line for line in page.splitlines() if not line.startswith("|"))
    parser = build_parser()
    missing = [f"global option {o}" for o in long_options(parser) if o not in page]
    for name, command in subcommands(parser).items():
        mine = rows_of(name, rows)
        if not mine:
            missing.append(f"command {name}")
            continue
        missing += [f"{name} {o}" for o in long_options(command) if not any(o in r for r in mine) and o not in prose]
        missing += [f"{name} {sub}" for sub in subcommands(command) if not any(sub in r for r in mine)]
    assert not missing, f"docs/cli.md does not name: {', '.join(missing)}"


def test_every_command_the_cli_reference_names_exists():
    rows = command_rows((ROOT / "docs" / "cli.md").read_text("utf-8"))
    known = set(subcommands(build_parser()))
    named = {re.match(r"\| `([a-z-]+)", row).group(1) for row in rows}  # type: ignore[union-attr]
    assert named <= known, f"docs/cli.md names commands the parser does not know: {sorted(named - known)}"


def test_every_key_is_on_the_keys_page():
    from workbench.tui.app import WorkbenchApp
    from workbench.tui.keymap import key_groups

    page = (ROOT / "docs" / "keys.md").read_text("utf-8")
    written: set[str] = set()
    for code in re.findall(r"`([^`\n]+)`", page):
        written |= {code.strip(), *re.split(r"[\s/,]+", code.strip())}
    missing = []
    for title, bindings in key_groups(WorkbenchApp.BINDINGS):
        for binding in bindings:
            for key in (k.strip() for k in binding.key.split(",")):
                if not {key, format_key(key), key.upper()} & written:
                    missing.append(f"{key} ({binding.description or binding.action}, {title})")
    assert not missing, f"docs/keys.md does not name: {', '.join(missing)}"
