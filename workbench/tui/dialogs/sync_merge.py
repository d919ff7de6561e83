"""Sync (`S`): the vault with its git remote, and a merge that waits for a person, settled key by key.

When `workbench sync` stops, each question is one key of one document (or its body) that both
machines changed. This dialog lists them; the highlighted one is shown side by side, ours, theirs
and the base, and one key answers it (`o`, `t`, `b`; `a` keeps both for a body). Each answer is
written to the document at once (the vault's `sync_settle`, atomic); `s` then commits the merge
and pushes, which is also how a vault with nothing waiting is synced from here. Git runs in a
thread worker; the dialog only shows what the core reports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from ...core import MISSING, SyncConflict, SyncError, value_text
from ..text import clean

if TYPE_CHECKING:
    from ...core import Vault

__all__ = ["SyncDialog", "side_text", "waiting_head"]


def waiting_head(questions: list[SyncConflict]) -> str:
    """What the dialog's status line says is waiting: questions a side answers, and documents a
    killed sync left unmerged, which only `s` can merge (o, t and b do not answer those)."""
    unmerged = sum(1 for q in questions if q.unmerged)
    asked = len(questions) - unmerged
    parts = []
    if asked:
        parts.append(
            f"{asked} question{'s' if asked != 1 else ''} from the merge: o ours, t theirs, b base (a both, for a body)"
        )
    if unmerged:
        parts.append(
            f"{unmerged} document{'s' if unmerged != 1 else ''} not merged yet: s merges "
            f"{'them' if unmerged != 1 else 'it'} key by key, then asks what it cannot"
        )
    return "\n".join(parts)


def side_text(conflict: SyncConflict, side: str) -> str:
    """One side of a question as a person reads it: text as it is, other values as YAML shows them."""
    value = getattr(conflict, side)
    if value is MISSING:
        return "(absent)"
    if conflict.key == "body" or isinstance(value, str):
        return str(value) or "(empty)"
    return value_text(value)


class SyncDialog(ModalScreen[bool]):
    """Dismissed with True when something was written (the vault should be re-read)."""

    DEFAULT_CLASSES = "wb-dialog"

    DEFAULT_CSS = """
    SyncDialog {
        & > #dialog { width: 95%; height: 90%; }
        & #questions { height: 1fr; min-height: 3; }
        & #sides { height: 2fr; }
        & .side { width: 1fr; border: round $panel; padding: 0 1; }
        & #status { height: auto; color: $text-muted; padding: 1 0 0 0; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "settle('ours')", "Ours", id="sync.ours", tooltip="Keep this machine's value"),
        Binding("t", "settle('theirs')", "Theirs", id="sync.theirs", tooltip="Take the other machine's value"),
        Binding("b", "settle('base')", "Base", id="sync.base", tooltip="Go back to the value both started from"),
        Binding(
            "a", "settle('both')", "Both", id="sync.both", tooltip="For a body: keep both sides' lines, ours first"
        ),
        Binding(
            "d",
            "settle('delete')",
            "Delete",
            id="sync.delete",
            tooltip="For a document deleted on one side and changed on the other: delete it",
        ),
        Binding(
            "k",
            "settle('keep')",
            "Keep",
            id="sync.keep",
            tooltip="For a document deleted on one side and changed on the other: keep it, changed",
        ),
        Binding(
            "s",
            "sync",
            "Commit & push",
            id="sync.run",
            tooltip="Commit the vault (and a settled merge), fetch, merge, push",
        ),
        Binding("escape", "close", "Close", id="sync.close", tooltip="Close; answers given so far are already written"),
    ]

    def __init__(self, vault: Vault) -> None:
        super().__init__()
        self.vault = vault
        self.questions: list[SyncConflict] = []
        self.wrote = False
        self.busy = False

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = "Sync"
            yield OptionList(id="questions")
            with Horizontal(id="sides"):
                for side in ("ours", "theirs", "base"):
                    with VerticalScroll(classes="side") as pane:
                        pane.border_title = side
                        yield Static(id=f"side-{side}")
            yield Static("Reading the merge…", id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.read_questions()

    def say(self, text: str) -> None:
        self.query_one("#status", Static).update(Content(clean(text)))

    @work(thread=True, exclusive=True, group="sync")
    def read_questions(self, said: str = "") -> None:
        try:
            questions = self.vault.sync_pending()
            waiting = self.vault.sync_merge_in_progress()
        except SyncError as exc:
            self.app.call_from_thread(self.say, str(exc))
            return
        self.app.call_from_thread(self.show_questions, questions, waiting, said)

    def show_questions(self, questions: list[SyncConflict], waiting: bool, said: str) -> None:
        self.questions = questions
        listing = self.query_one("#questions", OptionList)
        listing.clear_options()
        listing.add_options([Option(Content(clean(f"{q.path} · {q.key} · {q.reason}"))) for q in questions])
        if questions:
            listing.highlighted = 0
            listing.focus()
            head = waiting_head(questions)
        elif waiting:
            head = "Every question is answered: s commits the merge and pushes."
        else:
            head = "No merge is waiting: s syncs now (commit, fetch, merge, push)."
        self.query_one("#dialog").border_title = f"Sync · {len(questions)} waiting" if questions else "Sync"
        self.say(f"{said}\n{head}".strip())
        self.show_sides()

    @on(OptionList.OptionHighlighted, "#questions")
    def show_sides(self) -> None:
        at = self.query_one("#questions", OptionList).highlighted
        question = self.questions[at] if at is not None and at < len(self.questions) else None
        for side in ("ours", "theirs", "base"):
            text = side_text(question, side) if question is not None else ""
            self.query_one(f"#side-{side}", Static).update(Content(clean(text)))

    def action_settle(self, choice: str) -> None:
        at = self.query_one("#questions", OptionList).highlighted
        if self.busy or at is None or at >= len(self.questions):
            return
        question = self.questions[at]
        if question.unmerged:
            self.say(f"{question.path}: not merged yet; s merges it key by key, then asks what it cannot")
            return
        if choice == "both" and question.key != "body":
            self.say(f"{question.key}: both values cannot be kept in one key; choose o, t or b")
            return
        if question.key == "file" and choice not in ("delete", "keep"):
            self.say(f"{question.path}: {question.reason}. k keeps it as changed (from git), d deletes it")
            return
        if question.key != "file" and choice in ("delete", "keep"):
            self.say(f"{question.key}: k and d answer a document deleted on one side; choose o, t or b")
            return
        self.busy = True
        self.settle(question, choice)

    @work(thread=True, exclusive=True, group="sync")
    def settle(self, question: SyncConflict, choice: str) -> None:
        try:
            self.vault.sync_settle(question.path, question.key, choice)
            said = (
                f"{question.path}: {'deleted' if choice == 'delete' else 'kept, as changed'}"
                if question.key == "file"
                else f"{question.path}: {question.key} set to {choice}"
            )
            self.wrote = True
        except (SyncError, OSError, ValueError) as exc:
            said = str(exc)
        finally:
            self.busy = False
        self.read_questions(said)

    def action_sync(self) -> None:
        if self.busy:
            return
        self.busy = True
        self.say("Syncing…")
        self.run_sync()

    @work(thread=True, exclusive=True, group="sync")
    def run_sync(self) -> None:
        try:
            report = self.vault.sync()
            said = "\n".join(report.steps) or "done"
            if report.conflicts or report.supersession:
                said += "\n" + "\n".join(c.describe() for c in [*report.conflicts, *report.supersession])
            self.wrote = True
        except (SyncError, OSError) as exc:
            said = str(exc)
        finally:
            self.busy = False
        self.read_questions(said)

    def action_close(self) -> None:
        self.dismiss(self.wrote)
