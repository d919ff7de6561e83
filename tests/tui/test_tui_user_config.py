"""The user's own keys and themes, from their config folder ($XDG_CONFIG_HOME/workbench/): read at
start; a line that cannot apply is named in a warning, and the workbench starts all the same."""

from __future__ import annotations

from pathlib import Path

from tui_helpers import settle

from workbench.tui.app import WorkbenchApp
from workbench.tui.dialogs.keys import KeysDialog
from workbench.tui.dialogs.lifecycle import LifecycleDialog
from workbench.tui.settings import config_dir


def recorded(app: WorkbenchApp) -> list[str]:
    seen: list[str] = []
    original = app.notify

    def notify(message, *args, title="", **kwargs):
        seen.append(f"{title}: {message}")
        return original(message, *args, title=title, **kwargs)

    app.notify = notify
    return seen


def write_config(name: str, text: str) -> Path:
    path = config_dir() / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


async def test_a_user_keymap_moves_a_key_and_the_keys_dialog_shows_it(sample_copy: Path):
    write_config("keymap.toml", '"main.lifecycle" = "L"\n')
    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    seen = recorded(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("L")
        await settle(pilot)
        assert isinstance(app.screen, LifecycleDialog)
        await pilot.press("escape", "question_mark")
        await settle(pilot)
        assert isinstance(app.screen, KeysDialog)
        [lifecycle] = [b for _, bindings in app.screen.groups for b in bindings if b.id == "main.lifecycle"]
        assert lifecycle.key == "L"
    assert not [line for line in seen if line.startswith("Keymap")]


async def test_unknown_actions_clashing_keys_and_a_broken_file_are_named_never_raised(sample_copy: Path):
    write_config("keymap.toml", '"main.lifecycle" = "L"\n"main.frobnicate" = "f"\n"main.edit" = "n"\n"main.raw" = 3\n')
    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    seen = recorded(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        warnings = [line for line in seen if line.startswith("Keymap")]
        assert any('"main.frobnicate"' in line and "no key is called" in line for line in warnings)
        assert any('"main.edit" = "n" clashes with main.new' in line for line in warnings)
        assert any('"main.raw" needs keys as a string' in line for line in warnings)
        assert app._keymap == {"main.lifecycle": "L"}, "the lines that can apply do"
    write_config("keymap.toml", '"main.lifecycle" = \n')
    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    seen = recorded(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert any("keymap.toml: not read" in line and "the default keys apply" in line for line in seen)


async def test_a_theme_in_the_users_themes_folder_can_be_chosen(sample_copy: Path):
    write_config("themes/mine.yaml", "name: mine\nprimary: '#ff8800'\ndark: true\n")
    write_config("themes/broken.yaml", "name: [\n")
    app = WorkbenchApp(sample_copy, theme="mine")
    seen = recorded(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.theme == "mine"
    assert any(line.startswith("Theme: theme broken.yaml not loaded") for line in seen)


async def test_the_palette_names_each_commands_key_as_the_keymap_sets_it(sample_copy: Path):
    write_config("keymap.toml", '"main.lifecycle" = "L"\n')
    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        from workbench.tui.commands import WorkbenchCommands

        provider = WorkbenchCommands(app.screen)
        helps = {title: help_text for title, _, help_text in provider._actions()}
        assert helps["Document: lifecycle…"].endswith("key L")
        assert helps["Document: edit in $EDITOR"].endswith("key e")
        assert helps["Links: one link deeper"].endswith("key + =")


async def test_the_keys_dialog_names_each_keys_id_for_the_keymap(sample_copy: Path):
    app = WorkbenchApp(sample_copy, theme="workbench-dark")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        shown = " ".join(str(label.render()) for label in app.screen.query(".tooltip"))
        assert "(main.lifecycle)" in shown and "(links.filter)" in shown
