"""The Textual app: themes, the command palette and app-wide keys; everything else is the main screen.

`WorkbenchApp(path)` returns at once: the main screen opens the vault in a worker thread, so the
window appears before a large vault has been read.
"""

from __future__ import annotations

import asyncio
import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

from textual import events, on
from textual.app import App, ScreenStackError
from textual.binding import Binding, BindingType
from textual.command import Provider
from textual.notifications import Notify
from textual.widgets import Input

from .screens.main import MainScreen
from .screens.messages import ConflictsStep
from .settings import load_settings, save_setting
from .themes import BUILTIN_THEMES, VARIABLE_DEFAULTS, load_theme_files, theme_folders
from .first_page import KeptTitle, kept_first_page
from .opening import Opening
from .quiet_collector import LOOK_EVERY, QuietCollector
from .releasing import ReleasingExecutor, release_styles_caches
from .typeahead import TypeAhead, takes_letters
from .user_keymap import keymap_path, load_keymap
from .widgets.dialog_news import DialogNews, dialog_news
from .widgets.search import SearchPane

__all__ = ["SWITCH_INTERVAL", "WorkbenchApp", "screen_first", "warm_up", "workbench_commands"]

SWITCH_INTERVAL = 0.001
"""Seconds a thread may hold the interpreter while another waits for it, while the app runs
(Python's default: 0.005). At 100,000 documents, sessions with it spent less time still over 50 ms
than with the default in 9 pairs of 11, and their longest stills were shorter in 12 of 18
(docs/measurements-speed.md)."""


def __getattr__(name: str):
    """`KEY_GROUPS` is read from every dialog's keys: imported when the keys are first shown, not
    at start (the dialogs' modules are a tenth of the time before the first screen)."""
    if name == "KEY_GROUPS":
        from .keymap import key_groups

        return key_groups(WorkbenchApp.BINDINGS)  # the default keys
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@contextmanager
def screen_first() -> Iterator[None]:
    """The interpreter set for the screen while the app runs. Everything imported by now
    (Textual's and the workbench's modules, their classes and functions) lives as long as the
    program: frozen, the cycle collector no longer walks it at each of its hundred-odd passes
    before the first titles (80-125 ms of a first frame of about a second on a loaded machine,
    against 15-40 ms). And the switch interval is shortened (`SWITCH_INTERVAL`, the one before
    restored after): while a worker runs Python (a large vault's summary, a search), the screen's
    thread lets go of the interpreter at every turn of its event loop (a poll) and waited up to
    the interval (5 ms) each time to have it back, so a frame of a few turns waited tens of
    milliseconds."""
    gc.freeze()
    interval = sys.getswitchinterval()
    sys.setswitchinterval(min(interval, SWITCH_INTERVAL))
    try:
        yield
    finally:
        sys.setswitchinterval(interval)


def workbench_commands() -> type[Provider]:
    """The palette's own commands, imported when the palette first opens (Textual calls this)."""
    from .commands import WorkbenchCommands

    return WorkbenchCommands


def warm_up() -> None:
    """What the first titles did not need, made ready in a thread once they are listed, so that the
    first key pressed after them does not wait for it: the Markdown parser and highlighter, a
    document's reading and links, the flows, the writing of changes, the palette's commands."""
    from . import commands, reading  # noqa: F401
    from .markdown_render import warm_up as make_the_parser
    from .screens import flows, proposing  # noqa: F401

    make_the_parser()


class WorkbenchApp(App[None]):
    """Curate a memory vault by keyboard. `run()` returns when the person quits (exit status 0)."""

    CSS_PATH = "app.tcss"
    TITLE = "workbench"
    COMMANDS = App.COMMANDS | {workbench_commands}
    BINDINGS: ClassVar[list[BindingType]] = [
        # `?` and `q` are the main screen's, first in its footer; these work inside a text box too.
        Binding(
            "f1",
            "show_keys",
            "Keys",
            key_display="F1",
            show=False,
            id="app.keys",
            tooltip="List every key and what it does, even from inside a text box",
        ),
    ]

    def __init__(self, vault_path: Path, theme: str | None = None, flavour: str | None = None) -> None:
        super().__init__()
        self.vault_path = Path(vault_path)
        self.flavour = flavour
        for each in BUILTIN_THEMES:
            self.register_theme(each)
        self.own_themes: set[str] = {each.name for each in BUILTIN_THEMES}
        """The workbench's themes and the theme files': what the palette offers (Textual's own are
        registered too, but lack the workbench's colours, and docs/keys.md names these)."""
        self._theme_errors: list[str] = []
        self._theme_files_read = False
        self._warmed = False
        self._remember_theme = theme is None  # an explicit theme (tests, snapshots) is not a choice to keep
        wanted = theme or load_settings().get("theme") or "workbench-dark"
        if wanted not in self.available_themes:
            self.read_theme_files()
        self.theme = wanted if wanted in self.available_themes else "workbench-dark"
        self.user_keymap = load_keymap(keymap_path())
        """The user's keymap file as read (its keys apply once checked, at mount)."""
        self.opening: Opening | None = None
        """The vault being opened since `run` began (`opening.py`), when no titles were kept for it."""
        self.kept_titles: list[KeptTitle] = []
        """The titles kept from the last launch, on show while the vault is read (`first_page.py`)."""
        self.typeahead = TypeAhead(self, opens=("search-input", "results", "links"))
        """Keys sent in one burst wait for the keys before them (`typeahead.py`)."""
        release_styles_caches()
        self.quiet_collector = QuietCollector()
        """Full collections of the cycle collector in pauses, not in frames (`quiet_collector.py`)."""

    def run(self, *args: Any, **kwargs: Any) -> None:
        """Run until the person quits, the interpreter set for the screen (`screen_first`)."""
        with screen_first():
            return super().run(*args, **kwargs)

    def read_theme_files(self) -> None:
        """Register the themes of the theme files, once. They are read at start only when the theme
        asked for is one of them, else once the first titles are on screen: reading them (PyYAML)
        was a twentieth of the time to the first titles, for a choice made later, in the palette."""
        if self._theme_files_read:
            return
        self._theme_files_read = True
        files = load_theme_files(theme_folders())
        for each in files.themes:
            self.register_theme(each)
            self.own_themes.add(each.name)
        self._theme_errors = files.errors
        if self.is_running:
            self._say_theme_errors()

    def _say_theme_errors(self) -> None:
        for error in self._theme_errors:
            self.notify(error, title="Theme", severity="warning", markup=False)

    def watch_theme(self, theme: str) -> None:
        """A theme chosen from the palette is the theme of the next run too."""
        if self._remember_theme and self.is_running:
            save_setting("theme", theme)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(VARIABLE_DEFAULTS)

    def on_load(self) -> None:
        """The app runs. With titles kept from the last launch, the first frame shows them and the
        vault is opened after it (opening it meanwhile would take the interpreter from the frame);
        without, the vault is opened now, beside Textual's start, not once the screen is up.
        Thread workers run in a `ReleasingExecutor`: a finished one keeps no dialog alive."""
        asyncio.get_running_loop().set_default_executor(ReleasingExecutor(thread_name_prefix="workbench-worker"))
        self.kept_titles = kept_first_page(self.vault_path, self.flavour)
        if not self.kept_titles:
            self.opening = Opening(self.vault_path, self.flavour)

    def on_mount(self) -> None:
        self.push_screen(MainScreen(self.vault_path, self.flavour, self.opening, self.kept_titles))
        self._say_theme_errors()
        self._apply_user_keymap()

    def on_unmount(self) -> None:
        self.quiet_collector.stop()

    def _collect_if_quiet(self) -> None:
        self.quiet_collector.look(self.screen_stack)

    def _apply_user_keymap(self) -> None:
        """The user's keys, those that can apply; a warning for each line that cannot. (Checking
        needs every dialog's keys, so it is done only when there is a keymap.)"""
        warnings = list(self.user_keymap.warnings)
        if self.user_keymap.keys:
            from .keymap import key_groups
            from .user_keymap import check_keymap

            groups = key_groups(self.BINDINGS)
            places = [("the main screen", [*groups[0][1], *groups[1][1]]), *groups[2:]]
            usable, problems = check_keymap(self.user_keymap.keys, places)
            warnings += problems
            self.set_keymap(usable)
        for warning in warnings:
            self.notify(warning, title="Keymap", severity="warning", markup=False, timeout=15)

    async def on_event(self, event: events.Event) -> None:
        """Each key from the terminal is handed on only once the keys before it are done
        (`TypeAhead`): Textual hands it to the focused widget, and the bindings act once it has
        come back up to the app. A key or click also tells the quiet collector the person may be
        waiting."""
        if isinstance(event, (events.Key, events.MouseDown, events.MouseScrollDown, events.MouseScrollUp)):
            self.quiet_collector.touched()
        if not isinstance(event, events.Key) or event.is_forwarded:
            await super().on_event(event)
            return
        if self.typeahead.take(event):
            return
        wait = self.typeahead.before(event)
        handed_to = self.focused or self.screen
        await super().on_event(event)
        if wait is not None:
            # Not handed on: a priority binding (or escape out of a maximised pane) acted at once.
            self.typeahead.hold(event, wait, handed_to if event.is_forwarded else None)

    def on_notify(self, event: Notify) -> None:
        """A notice while a dialog is open is said in the band above it; its toast (Textual's, which
        follows) is hidden on a dialog's screen and shows once the dialog closes, if still due.

        A notice can come once no screen is left: a worker's, posted as the app is shut down from
        outside its message loop (Textual's `run_test` closes the screens while the app still
        handles messages). It has nowhere to be said, as Textual's own handler finds too."""
        try:
            screen = self.screen
        except ScreenStackError:
            return
        news = dialog_news(screen)
        if news is not None:
            news.show(event.notification)

    def clear_notifications(self) -> None:
        """Every notice goes, those said above a dialog too."""
        super().clear_notifications()
        for screen in self.screen_stack:
            for news in screen.query(DialogNews):
                news.clear()

    def on_key(self, event: events.Key) -> None:
        """A letter that comes this far while a text box has the focus was sent before the focus
        reached the box: typed in one burst after `/` (or pasted as keys), it went to the pane
        focused before. A box takes every letter it is sent, so this one goes into the box rather
        than being lost.

        In a dialog, `?` (outside a text box) and `F1` list the dialog's own keys: a dialog is
        modal, so the app's bindings do not reach it, and no dialog binds either key."""
        box = self.focused
        asks = event.key == "f1" or (event.key == "question_mark" and not takes_letters(box))
        if asks and self._dialog_keys():
            event.stop()
            event.prevent_default()  # else the keys dialog, now on top, takes `?` as its own close key
            return
        if isinstance(box, Input) and event.is_printable and event.character:
            event.stop()
            box.insert_text_at_cursor(event.character)

    @on(ConflictsStep)
    def _conflicts_step(self, message: ConflictsStep) -> None:
        """The step the queue's process has started, said in the main screen's header (the message
        comes up from the main screen, under any dialog on top of it)."""
        from .widgets.vault_header import VaultHeader

        for screen in self.screen_stack:
            for header in screen.query(VaultHeader):
                header.looking_step = message.step

    @on(SearchPane.Listed)
    def _titles_listed(self) -> None:
        self.read_theme_files()
        if not self._warmed:
            self._warmed = True
            self.run_worker(warm_up, thread=True, group="warm-up", exit_on_error=False)
            # Once the first titles are on screen: a collection before them would delay them.
            self.quiet_collector.start()
            self.set_interval(LOOK_EVERY, self._collect_if_quiet)

    def search_themes(self) -> None:
        """The palette's theme list: the workbench's own themes and the theme files, whole even
        before the first titles (the files are read first)."""
        from textual.command import CommandPalette

        from .themes import OwnThemes

        self.read_theme_files()
        self.push_screen(CommandPalette(providers=[OwnThemes], placeholder="Search for themes…"))

    async def action_quit(self) -> None:
        from .dialogs.discard import DiscardDialog, unsaved_work  # needed by the quit only, not at start

        if (what := unsaved_work(self.screen)) and not isinstance(self.screen, DiscardDialog):
            self.push_screen(DiscardDialog(what), lambda discard: self.exit(return_code=0) if discard else None)
            return
        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                screen.stop_watching()
        self.exit(return_code=0)

    def action_show_keys(self) -> None:
        from .dialogs.keys import KeysDialog
        from .keymap import key_groups

        if not isinstance(self.screen, KeysDialog):
            self.push_screen(KeysDialog(key_groups(self.BINDINGS, self._keymap)))

    def _dialog_keys(self) -> bool:
        """List the keys of the dialog on top, if one is (not the keys dialog itself)."""
        from .dialogs.keys import KeysDialog
        from .keymap import dialog_key_groups

        screen = self.screen
        if not screen.has_class("wb-dialog") or isinstance(screen, KeysDialog):
            return False
        title, groups = dialog_key_groups(screen, self._keymap)
        self.push_screen(KeysDialog(groups, title=f"Keys: {title}"))
        return True
