"""The problems list (`p`): every problem the checks found, with a way to the file and to repair.

Each row reads `path:line  severity  code  message`, the severity in its colour, errors first (in
the order the checks gave them, as are the warnings after them). `enter` returns the document to
open; `f` asks for the repair of the highlighted problem's file only, `r` for the repair of the
whole vault; the main screen previews either as a diff before writing. The dialog itself never
writes. The list follows the vault while open: a file mended or broken elsewhere comes and goes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, OptionList, Static
from textual.widgets.option_list import Option

from ...core import Problem, Severity
from .paging import MORE, PAGE, more_option
from ..text import clean

if TYPE_CHECKING:
    from ..summary import VaultSummary

__all__ = ["PAGE", "ProblemsDialog", "ProblemsResult", "problem_prompt"]

"""Problems listed at once; a last row lists the next as many. Every problem of a large vault made
into a row at once (8,266 warnings at 100,000 documents) held the screen 3.4 s as the list opened."""


@dataclass(frozen=True)
class ProblemsResult:
    """Either a document to open, or the request to repair the vault (only `path`, when given)."""

    doc_id: str | None = None
    repair: bool = False
    path: str | None = None


def problem_prompt(problem: Problem) -> Content:
    error = problem.severity == Severity.ERROR
    where = f"{problem.path}:{problem.line}" if problem.line else problem.path
    return Content.assemble(
        (clean(where), "bold"),
        "  ",
        ("✖ error" if error else "⚠ warning", "$text-error" if error else "$text-warning"),
        "  ",
        (clean(problem.code), "$text-accent"),
        "\n",
        (clean(problem.message), "$text 60%"),
    )


class ProblemsDialog(ModalScreen[ProblemsResult | None]):
    """Pick a problem to open its document; `f` previews the repair of its file, `r` of everything."""

    DEFAULT_CLASSES = "wb-dialog"

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]

    DEFAULT_CSS = """
    ProblemsDialog {
        & > #dialog {
            width: 110;
            height: 90%;
        }
        & OptionList { height: 1fr; border: round $border-blurred; }
        & OptionList:focus { border: round $border; }
        & #buttons { height: auto; align-horizontal: right; }
        & Button { margin: 0 0 0 2; }
        & #hint { color: $text-muted; width: 1fr; height: 1; text-wrap: nowrap; text-overflow: ellipsis; }
        &.-narrow #hint { display: none; }  /* the buttons need the room */
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "f",
            "repair_file",
            "Repair file",
            id="problems.repair_file",
            tooltip="Preview the repair of the highlighted problem's file only as a diff, then write it",
        ),
        Binding(
            "r",
            "repair",
            "Repair all",
            id="problems.repair",
            tooltip="Preview the deterministic repair of the vault as a diff, then write it",
        ),
        Binding("escape", "close", "Close", id="problems.close", tooltip="Back to the main screen"),
    ]

    def __init__(self, problems: Sequence[Problem], path_ids: Mapping[str, str], at: str | None = None) -> None:
        super().__init__()
        # Errors first: one error among hundreds of warnings is what the person came for.
        self.problems = sorted(problems, key=lambda p: p.severity != Severity.ERROR)
        """What the list shows, errors first; it follows the vault while the dialog is open."""
        self.path_ids = path_ids
        """Each valid document's path and id, for problems that do not name their document."""
        self.at = at
        """The file whose first problem is highlighted at the start (the one a repair was asked for)."""
        first = next((i for i, p in enumerate(self.problems) if p.path == at), 0) if at is not None else 0
        self.shown = self._reaching(first)
        """How many of the problems the list has rows for (a page more each time the last row is chosen)."""
        self._listed = False
        """Whether the list has had its first rows (they come a frame after the dialog's)."""

    @staticmethod
    def _reaching(index: int) -> int:
        """The rows listed so that the problem at `index` has one: whole pages."""
        return (index // PAGE + 1) * PAGE

    def _title(self) -> str:
        errors = sum(1 for p in self.problems if p.severity == Severity.ERROR)
        return f"Problems · {errors} error(s), {len(self.problems) - errors} warning(s)"

    def _options(self, start: int = 0) -> list[Option]:
        """The rows from the `start`-th problem to the last one listed, then the row that lists
        more, if any are left."""
        if not self.problems:
            return [
                Option(Content.styled("No problems: the vault passes every check.", "$text-success"), disabled=True)
            ]
        options = [Option(problem_prompt(p), id=f"{i}") for i, p in enumerate(self.problems[start : self.shown], start)]
        left = len(self.problems) - self.shown
        if left > 0:
            options.append(more_option(left))
        return options

    def _list_more(self) -> None:
        """The next page of problems listed in place of the row that asked for them."""
        listing = self.query_one(OptionList)
        start, self.shown = self.shown, self.shown + PAGE
        listing.remove_option(MORE)
        listing.add_options(self._options(start))
        listing.highlighted = start

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = self._title()
            yield OptionList(id="problem-list")  # its rows come a frame later (`_first_listed`)
            with Horizontal(id="buttons"):
                yield Static("enter opens the file", id="hint")
                yield Button(
                    "Repair this file  f", id="repair-file", variant="primary", compact=True, disabled=not self.problems
                )
                yield Button("Repair all  r", id="repair", compact=True)
                yield Button("Close", id="close", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        if not self.query("#problem-list"):  # closed in the same burst of keys as `p`
            return
        self.query_one(OptionList).focus()
        # A frame at a time: the dialog's frame (the main screen dimmed under it drawn again),
        # then its rows. Made, laid out and drawn in one turn they held the screen for 80-85 ms
        # of CPU at 100,000 documents (8,266 warnings, a page of rows of two lines each).
        self.call_after_refresh(self._first_listed)

    def _first_listed(self) -> None:
        """The first rows listed, the problem asked for (`at`) highlighted; nothing once the dialog
        has closed (a key in the same burst as `p`)."""
        if self._listed or not self.query("#problem-list"):
            return
        self._listed = True
        listing = self.query_one(OptionList)
        listing.add_options(self._options())
        index = next((i for i, p in enumerate(self.problems) if p.path == self.at), 0)
        if self.problems:
            listing.highlighted = index

    def follow_summary(self, summary: VaultSummary) -> None:
        """The vault was read again (a file changed on disk, a repair elsewhere): list its problems
        now, the highlighted one kept where it is still listed, as the inbox follows the vault."""
        problems = sorted(summary.problems, key=lambda p: p.severity != Severity.ERROR)
        if problems == self.problems:
            return
        chosen = self.selected
        self.problems = problems
        if not self.query("#problem-list"):  # not composed yet (or closed): its rows will list these
            self.path_ids = summary.path_ids
            return
        if chosen in problems:
            self.shown = max(self.shown, self._reaching(problems.index(chosen)))
        self.path_ids = summary.path_ids
        self.query_one("#dialog", Vertical).border_title = self._title()
        self.query_one("#repair-file", Button).disabled = not problems
        self.refresh_bindings()
        if not self._listed:  # its first rows are yet to come: they will list these
            return
        listing = self.query_one(OptionList)
        listing.clear_options()
        listing.add_options(self._options())
        if problems:
            listing.highlighted = problems.index(chosen) if chosen in problems else 0

    @property
    def selected(self) -> Problem | None:
        listing = self.query("#problem-list")
        index = listing.first(OptionList).highlighted if listing else None
        return self.problems[index] if index is not None and index < min(self.shown, len(self.problems)) else None

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id == MORE:
            self._list_more()
            return
        problem = self.problems[int(event.option.id or 0)]
        doc_id = problem.doc_id or self.path_ids.get(problem.path)
        if doc_id is None:
            self.notify(f"{problem.path} is not a document that can be opened", markup=False, severity="warning")
            return
        self.dismiss(ProblemsResult(doc_id=doc_id))

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "repair":
            self.action_repair()
        elif event.button.id == "repair-file":
            self.action_repair_file()
        else:
            self.action_close()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "repair_file":
            return bool(self.problems)
        return True

    def action_repair(self) -> None:
        self.dismiss(ProblemsResult(repair=True))

    def action_repair_file(self) -> None:
        problem = self.selected
        if problem is not None:
            self.dismiss(ProblemsResult(repair=True, path=problem.path))

    def action_close(self) -> None:
        self.dismiss(None)
