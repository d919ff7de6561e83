"""Every key of the workbench, grouped by where it acts: what the keys dialog (`?`) lists.

Read from the bindings themselves, so the list cannot drift from what the keys do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from textual.binding import Binding, BindingType
from textual.screen import Screen

from .dialogs.confirm_forget import ConfirmForgetDialog
from .dialogs.confirm_plan import ConfirmPlanDialog
from .dialogs.conflicts import ConflictsDialog
from .dialogs.consolidate import ConsolidateDialog
from .dialogs.external_change import ExternalChangeDialog
from .dialogs.inbox import InboxDialog
from .dialogs.keys import KeyGroup
from .dialogs.new_document import NewDocumentDialog
from .dialogs.problems import ProblemsDialog
from .dialogs.sync_merge import SyncDialog
from .dialogs.undo_history import UndoHistoryDialog
from .screens.main import MainScreen
from .widgets.document_picker import DocumentPicker
from .widgets.link_pane import LinkPane
from .widgets.search import SearchInput, SearchPane
from .user_keymap import remapped
from .widgets.viewer import DocumentViewer

__all__ = ["dialog_key_groups", "key_groups"]

LISTS = (
    "Lists and dialogs",
    [
        Binding("up,down", "", "Move", tooltip="Move the highlight; disabled entries are skipped"),
        Binding("enter", "", "Choose", tooltip="Open the highlighted document or link; pick a transition"),
        Binding("tab", "", "Next pane", tooltip="Move the focus to the next pane or list"),
        Binding("escape", "", "Close", tooltip="Close a dialog without changing anything"),
    ],
)
"""The keys every list and dialog answers to (Textual's own)."""


def key_groups(app_bindings: Sequence[BindingType], keymap: Mapping[str, str] | None = None) -> list[KeyGroup]:
    """Every key, by where it acts, with the keys the user's `keymap` gives them; `app_bindings`
    are the app's own (passed in: the app imports this module, not the other way round)."""
    groups = _default_groups(app_bindings)
    return [(title, remapped(bindings, keymap)) for title, bindings in groups] if keymap else groups


def _bindings(given: Sequence[BindingType]) -> list[Binding]:
    """A class's BINDINGS as `Binding`s (Textual also takes a `(key, action, description)` tuple)."""
    return [b if isinstance(b, Binding) else Binding(*b) for b in given]


def _default_groups(app_bindings: Sequence[BindingType]) -> list[KeyGroup]:
    return [
        (
            "Everywhere (? and q outside a text box)",
            [
                *(b for b in _bindings(MainScreen.BINDINGS) if b.id in ("main.keys", "main.quit")),
                *_bindings(app_bindings),
                Binding("ctrl+p", "command_palette", "Palette", tooltip="Every action, and every document by title"),
                Binding("ctrl+q", "quit", "Quit", tooltip="Quit, even from inside a text box"),
            ],
        ),
        (
            "Main screen (outside the search box)",
            [b for b in _bindings(MainScreen.BINDINGS) if b.id not in ("main.keys", "main.quit")],
        ),
        ("Search box", _bindings([*SearchInput.BINDINGS, *SearchPane.BINDINGS])),
        ("Document (the viewer)", _bindings(DocumentViewer.BINDINGS)),
        ("Links pane (g); from elsewhere these keys bring it into view", _bindings(LinkPane.BINDINGS)),
        ("Problems (p)", _bindings(ProblemsDialog.BINDINGS)),
        ("Conflicts (c)", _bindings(ConflictsDialog.BINDINGS)),
        ("New document: the write gate (n)", _bindings(NewDocumentDialog.BINDINGS)),
        ("Consolidation (o)", _bindings(ConsolidateDialog.BINDINGS)),
        ("Inbox: what agents wrote (i)", _bindings(InboxDialog.BINDINGS)),
        ("Forget, the id typed again", _bindings(ConfirmForgetDialog.BINDINGS)),
        ("Undo history (H)", _bindings(UndoHistoryDialog.BINDINGS)),
        ("Sync with git (S)", _bindings(SyncDialog.BINDINGS)),
        ("Change preview", _bindings(ConfirmPlanDialog.BINDINGS)),
        ("Changed on disk meanwhile", _bindings(ExternalChangeDialog.BINDINGS)),
        ("Picking a document by search (in dialogs)", _bindings(DocumentPicker.BINDINGS)),
        LISTS,
    ]


def _dialog_titles() -> list[tuple[type[Screen], str]]:
    """The title of each dialog's keys, as the keys dialog (`?` on the main screen) names them."""
    return [
        (ProblemsDialog, "Problems (p)"),
        (ConflictsDialog, "Conflicts (c)"),
        (NewDocumentDialog, "New document: the write gate (n)"),
        (ConsolidateDialog, "Consolidation (o)"),
        (InboxDialog, "Inbox: what agents wrote (i)"),
        (ConfirmForgetDialog, "Forget, the id typed again"),
        (UndoHistoryDialog, "Undo history (H)"),
        (SyncDialog, "Sync with git (S)"),
        (ConfirmPlanDialog, "Change preview"),
        (ExternalChangeDialog, "Changed on disk meanwhile"),
    ]


def dialog_key_groups(dialog: Screen, keymap: Mapping[str, str] | None = None) -> tuple[str, list[KeyGroup]]:
    """The keys of the open `dialog` alone (what `?` or `F1` lists there), with its title: its own
    bindings, a document picker's if it holds one, the keys of every list, and `?`/`F1` and
    `ctrl+q` themselves."""
    title = next((name for kind, name in _dialog_titles() if isinstance(dialog, kind)), "")
    if not title:
        frame = dialog.query("#dialog")
        title = str(frame.first().border_title or "") if frame else ""
    title = title or "this dialog"
    own = [b for b in type(dialog).BINDINGS if isinstance(b, Binding)]
    groups: list[KeyGroup] = [(title, own)] if own else []
    if dialog.query(DocumentPicker):
        groups.append(("Picking a document by search", _bindings(DocumentPicker.BINDINGS)))
    groups.append(LISTS)
    groups.append(
        (
            "Everywhere",
            [
                Binding("question_mark,f1", "", "Keys", tooltip="This list (`F1` inside a text box)"),
                Binding("ctrl+q", "quit", "Quit", tooltip="Quit; a dialog holding typed text asks first"),
            ],
        )
    )
    return title, [(name, remapped(bindings, keymap)) for name, bindings in groups] if keymap else groups
