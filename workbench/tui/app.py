"""The Textual app: themes, the command palette and app-wide keys; everything else is the main screen.

`WorkbenchApp(path)` returns at once: the main screen opens the vault in a worker thread, so the
window appears before a large vault has been read.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from .commands import WorkbenchCommands
from .dialogs.confirm_forget import ConfirmForgetDialog
from .dialogs.confirm_plan import ConfirmPlanDialog
from .dialogs.conflicts import ConflictsDialog
from .dialogs.consolidate import ConsolidateDialog
from .dialogs.discard import DiscardDialog, unsaved_work
from .dialogs.external_change import ExternalChangeDialog
from .dialogs.inbox import InboxDialog
from .dialogs.keys import KeyGroup, KeysDialog
from .dialogs.new_document import NewDocumentDialog
from .dialogs.problems import ProblemsDialog
from .dialogs.undo_history import UndoHistoryDialog
from .screens.main import MainScreen
from .settings import load_settings, save_setting
from .themes import BUILTIN_THEMES, VARIABLE_DEFAULTS, load_theme_files, theme_folders
from .widgets.document_picker import DocumentPicker
from .widgets.link_pane import LinkPane
from .widgets.search import SearchInput, SearchPane

__all__ = ["WorkbenchApp"]


class WorkbenchApp(App[None]):
    """Curate a memory vault by keyboard. `run()` returns when the person quits (exit status 0)."""

    CSS_PATH = "app.tcss"
    TITLE = "workbench"
    COMMANDS = App.COMMANDS | {WorkbenchCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        # `?` and `q` are the main screen's, first in its footer; these work inside a text box too.
        Binding("f1", "show_keys", "Keys", key_display="F1", show=False, id="app.keys",
                tooltip="List every key and what it does, even from inside a text box"),
    ]

    def __init__(self, vault_path: Path, theme: str | None = None, flavour: str | None = None) -> None:
        super().__init__()
        self.vault_path = Path(vault_path)
        self.flavour = flavour
        files = load_theme_files(theme_folders())
        for each in (*BUILTIN_THEMES, *files.themes):
            self.register_theme(each)
        self._theme_errors = files.errors
        self._remember_theme = theme is None  # an explicit theme (tests, snapshots) is not a choice to keep
        wanted = theme or load_settings().get("theme") or "workbench-dark"
        self.theme = wanted if wanted in self.available_themes else "workbench-dark"

    def watch_theme(self, theme: str) -> None:
        """A theme chosen from the palette is the theme of the next run too."""
        if self._remember_theme and self.is_running:
            save_setting("theme", theme)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(VARIABLE_DEFAULTS)

    def on_mount(self) -> None:
        self.push_screen(MainScreen(self.vault_path, self.flavour))
        for error in self._theme_errors:
            self.notify(error, title="Theme", severity="warning", markup=False)

    def action_quit(self) -> None:
        if (what := unsaved_work(self.screen)) and not isinstance(self.screen, DiscardDialog):
            self.push_screen(DiscardDialog(what), lambda discard: self.exit(return_code=0) if discard else None)
            return
        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                screen.stop_watching()
        self.exit(return_code=0)

    def action_show_keys(self) -> None:
        if not isinstance(self.screen, KeysDialog):
            self.push_screen(KeysDialog(KEY_GROUPS))


KEY_GROUPS: list[KeyGroup] = [
    ("Everywhere (? and q outside a text box)", [
        *(b for b in MainScreen.BINDINGS if isinstance(b, Binding) and b.id in ("main.keys", "main.quit")),
        *WorkbenchApp.BINDINGS,
        Binding("ctrl+p", "command_palette", "Palette", tooltip="Every action, and every document by title"),
        Binding("ctrl+q", "quit", "Quit", tooltip="Quit, even from inside a text box"),
    ]),
    ("Main screen (outside the search box)",
     [b for b in MainScreen.BINDINGS if isinstance(b, Binding) and b.id not in ("main.keys", "main.quit")]),
    ("Search box", [*SearchInput.BINDINGS, *SearchPane.BINDINGS]),
    ("Links pane (g); from elsewhere these keys bring it into view", LinkPane.BINDINGS),
    ("Problems (p)", ProblemsDialog.BINDINGS),
    ("Conflicts (c)", ConflictsDialog.BINDINGS),
    ("New document: the write gate (n)", NewDocumentDialog.BINDINGS),
    ("Consolidation (o)", ConsolidateDialog.BINDINGS),
    ("Inbox: what agents wrote (i)", InboxDialog.BINDINGS),
    ("Forget, the id typed again", ConfirmForgetDialog.BINDINGS),
    ("Undo history (H)", UndoHistoryDialog.BINDINGS),
    ("Change preview", ConfirmPlanDialog.BINDINGS),
    ("Changed on disk meanwhile", ExternalChangeDialog.BINDINGS),
    ("Picking a document by search (in dialogs)", DocumentPicker.BINDINGS),
    ("Lists and dialogs", [
        Binding("up,down", "", "Move", tooltip="Move the highlight; disabled entries are skipped"),
        Binding("enter", "", "Choose", tooltip="Open the highlighted document or link; pick a transition"),
        Binding("tab", "", "Next pane", tooltip="Move the focus to the next pane or list"),
        Binding("escape", "", "Close", tooltip="Close a dialog without changing anything"),
    ]),
]
