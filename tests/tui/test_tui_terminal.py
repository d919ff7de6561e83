"""The workbench in a real terminal (tmux): what only a terminal shows, such as handing it over
to an editor and taking it back, and what the shell sees when the workbench exits."""

from __future__ import annotations

import pytest
from terminal import Terminal, needs_tmux, terminal_env

pytestmark = needs_tmux


@pytest.fixture
def terminals():
    opened: list[Terminal] = []

    def open_terminal(*args, **kwargs) -> Terminal:
        opened.append(Terminal(*args, **kwargs))
        return opened[-1]

    yield open_terminal
    for each in opened:
        each.close()


def test_an_editor_that_does_not_start_gives_the_screen_back_and_says_why(terminals, sample_copy, tmp_path):
    env = terminal_env(tmp_path / "config", EDITOR="no-such-editor-here")
    term = terminals(["--vault", str(sample_copy)], env)
    term.open_first()
    term.send("e")
    shown = term.wait_for(lambda text: "did not start" in text)
    assert "no-such-editor-here" in shown
    assert "mem-index-vault" in shown  # the workbench is back on screen, not a blank terminal
    term.send("q")
    assert term.exit_status() == 0


@pytest.mark.parametrize("what", ["missing", "file"])
def test_a_vault_that_is_not_a_folder_is_refused_before_the_workbench_opens(terminals, tmp_path, what):
    given = tmp_path / "no" / "such" / "folder"
    if what == "file":
        given = tmp_path / "notes.md"
        given.write_text("# not a vault\n")
    term = terminals(["--vault", str(given)], terminal_env(tmp_path / "config"))
    assert term.exit_status() == 2  # as `check` does: a usage error, no key needed to leave
    shown = term.screen()
    assert f"workbench: {given}: {'no such folder' if what == 'missing' else 'not a folder'}" in shown
    assert "Traceback" not in shown and "Search" not in shown
