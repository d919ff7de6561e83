"""The curator's inbox (`i`): what agents wrote that awaits review, one request at a time.

Each row is one request an agent left (a new draft, a proposed supersession, a merge, a request to
forget), with its author and when; beside it, what the agent wrote as a diff. The keys settle the
highlighted request: `a` accept, `m` merge it into a document and `s` let it supersede one (both
picked by search), `x` archive, `f` forget (its id typed again), `v` revert a merge, `k` keep what an
agent asked to forget. Only the keys that fit the request are offered. The dialog never writes: it
returns the choice, and the main screen previews the change as a diff before writing it. Forget asks
for the id on top of the inbox, so `escape` there comes back here. The list follows the vault while
open: what an agent writes meanwhile appears, what was settled elsewhere goes.

Below the requests, the verdicts agents gave on pairs of decisions (`Judged`), each with its agent,
what it says and why, and beside it the diff accepting it would write: `a` accepts, `r` rejects
(both stand, never asked again), as in the conflicts queue, where they are listed first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, Label, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from ...core import Inbox, Request, Verdict
from ..text import clean, status_badge
from ..widgets.document_picker import DocumentPicker
from ..widgets.search import Searcher
from .confirm_plan import diff_content
from .verdicts import Judged, VerdictChoice, answers_to, said

__all__ = [
    "DIFF_TITLES",
    "InboxChoice",
    "InboxDialog",
    "KIND_LABELS",
    "KIND_STYLES",
    "request_prompt",
    "request_text",
    "verdict_line",
]

KIND_LABELS = {"create": "new draft", "supersede": "proposal", "merge": "merge", "forget": "forget?"}
DIFF_TITLES = {
    "create": "The agent's new document",
    "supersede": "The agent's proposed decision",
    "merge": "What the agent merged",
    "forget": "What forgetting it would remove",
}
KIND_STYLES = {
    "create": "$text-success",
    "supersede": "$text-warning",
    "merge": "$text-accent",
    "forget": "$text-error",
}


@dataclass(frozen=True)
class InboxChoice:
    """The curator's answer to one request: an action of `request.actions`, or `open` its document."""

    request: Request
    action: str
    target: str | None = None
    """The other document of a merge or a supersession."""
    confirm: str | None = None
    """For forget: the id as the curator typed it again."""


def request_prompt(request: Request, new: bool) -> Content:
    """Two lines: what the agent did, who and when; then the document's title and status."""
    when = request.at.replace("T", " ")[5:16]
    return Content.assemble(
        ("● " if new else "  ", "$accent"),
        (KIND_LABELS[request.kind], f"bold {KIND_STYLES[request.kind]}"),
        (f"  {clean(request.agent)} · {when}", "$text 60%"),
        "\n  ",
        clean(request.title),
        "  ",
        status_badge(request.status),
    )


def request_text(request: Request) -> Content:
    """The request in a sentence: who did what, and when."""
    return Content.assemble(
        (clean(request.agent), "bold"),
        f" {clean(request.describe())}",
        (f"  ({request.at.replace('T', ' ')})", "$text 60%"),
    )


def verdict_line(verdict: Verdict, titles: dict[str, str] | None = None) -> Content:
    """Two lines, as a request's: the verdict, who and when; then what it says, by title."""
    when = verdict.local_at.replace("T", " ")[5:16]
    return Content.assemble(
        "  ",
        (f"verdict: {verdict.verdict}", "bold $text-accent"),
        (f"  {clean(verdict.agent)} · {when}", "$text 60%"),
        "\n  ",
        clean(said(verdict, titles or {})),
    )


class InboxDialog(ModalScreen[InboxChoice | VerdictChoice | None]):
    """Settle agents' requests by keyboard; returns the choice (the main screen previews it) or None."""

    DEFAULT_CLASSES = "wb-dialog"

    DEFAULT_CSS = """
    InboxDialog {
        & > #dialog {
            width: 120;
            height: 90%;
        }
        & #requests { height: auto; max-height: 40%; border: round $border-blurred; }
        & #requests:focus { border: round $border; }
        & #what { height: auto; padding: 0 1; }
        & #diff-scroll { height: 1fr; border: round $border-blurred; border-title-color: $text-muted; }
        & #picking { display: none; height: auto; }
        & #picking Label { padding: 0 1; width: 1fr; }  /* wrapped, never cut at the edge */
        &.-picking #picking { display: block; }
        &.-picking #diff-scroll { display: none; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "a",
            "settle('accept')",
            "Accept",
            id="inbox.accept",
            tooltip="Accept it: a draft becomes active, a proposal supersedes its decision, a merge stays",
        ),
        Binding(
            "m",
            "pick('merge')",
            "Merge into…",
            id="inbox.merge",
            tooltip="Merge the draft into another document, picked by search",
        ),
        Binding(
            "s",
            "pick('supersede')",
            "Supersede…",
            id="inbox.supersede",
            tooltip="Let the draft supersede another document, picked by search",
        ),
        Binding(
            "x", "settle('archive')", "Archive", id="inbox.archive", tooltip="Archive it: out of use, kept as history"
        ),
        Binding(
            "f",
            "settle('forget')",
            "Forget…",
            id="inbox.forget",
            tooltip="Forget it for good, once its id is typed again; cannot be undone",
        ),
        Binding(
            "v",
            "settle('revert')",
            "Revert",
            id="inbox.revert",
            tooltip="Undo the agent's merge, if nothing changed the document since",
        ),
        Binding(
            "k",
            "settle('keep')",
            "Keep",
            id="inbox.keep",
            tooltip="Keep what the agent asked to forget; only the request goes",
        ),
        Binding(
            "r",
            "reject",
            "Reject",
            id="inbox.reject",
            tooltip="A verdict: both records stand, kept as compatible; no one is asked about the pair again",
        ),
        Binding("o", "settle('open')", "Open", id="inbox.open", tooltip="Open the document in the viewer (enter too)"),
        Binding(
            "escape",
            "close",
            "Close",
            id="inbox.close",
            tooltip="Back to the main screen (or out of picking a document)",
        ),
    ]

    def __init__(
        self,
        inbox: Inbox,
        diff: Callable[[Request], str],
        searcher: Searcher | None = None,
        reload: Callable[[], Inbox] | None = None,
        generation: Callable[[], int] | None = None,
        judged: Judged | None = None,
    ) -> None:
        super().__init__()
        self.inbox = inbox
        self.judged = judged or Judged()
        """The open verdicts of agents, listed below the requests."""
        self._verdict_diffs: dict[str, str] = {}
        self.reload = reload
        """The inbox read again (in a worker), when `generation` says the vault changed."""
        self.generation = generation
        self._generation: int | None = generation() if generation is not None else 0
        self.requests = list(inbox.requests)
        self.diff = diff
        """What the agent wrote for a request, as a diff (read in a worker: it may look at the history)."""
        self.searcher = searcher
        self._diffs: dict[int, str] = {}
        self._picking: str | None = None

    def _title(self) -> str:
        verdicts = f" · {len(self.judged.verdicts)} verdicts" if self.judged.verdicts else ""
        return f"Inbox · {len(self.requests)} from agents, {len(self.inbox.new)} new{verdicts}"

    def _options(self) -> list[Option]:
        """The requests (ids their numbers), then the verdicts under a heading (ids `v` and a number)."""
        verdicts = []
        if self.judged.verdicts:
            titles = dict(self.judged.titles)
            heading = f"Verdicts on pairs of decisions · {len(self.judged.verdicts)}"
            verdicts = [Option(Content.styled(heading, "bold $text 60%"), disabled=True)]
            verdicts += [Option(verdict_line(v, titles), id=f"v{n}") for n, v in enumerate(self.judged.verdicts)]
        if self.requests:
            requests = [Option(request_prompt(r, self.inbox.is_new(r)), id=str(n)) for n, r in enumerate(self.requests)]
            return requests + verdicts
        if verdicts:
            return verdicts
        return [
            Option(
                Content.styled(
                    "Nothing waits for review: agents have written nothing you have not settled.", "$text-success"
                ),
                disabled=True,
            )
        ]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = self._title()
            yield OptionList(*self._options(), id="requests")
            yield Static(id="what")
            with VerticalScroll(id="diff-scroll") as scroll:
                scroll.border_title = "What the agent wrote"
                yield Static(id="diff")
            with Vertical(id="picking"):
                yield Label("", id="picking-label")
                yield DocumentPicker(self.searcher, limit=5, id="picker")
        yield Footer()

    def on_mount(self) -> None:
        listing = self.query_one("#requests", OptionList)
        listing.focus()
        if self.requests or self.judged.verdicts:
            listing.highlighted = self._first()
        if self.reload is not None and self.generation is not None:
            self.set_interval(0.5, self._follow)

    def _follow(self) -> None:
        """Read the inbox again when the vault changed (an agent wrote, a request was settled)."""
        now = self.generation() if self.generation is not None else 0
        if now != self._generation and self._picking is None:
            self._generation = now
            self._reread()

    @work(thread=True, exclusive=True, group="inbox-reread")
    def _reread(self) -> None:
        assert self.reload is not None
        try:
            inbox = self.reload()
            judged = self.judged.reload() if self.judged.reload is not None else None
        except Exception:  # noqa: BLE001 - the list shown stays; the next poll tries again
            self.app.call_from_thread(self._read_again)
            return
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self.show_inbox, inbox, judged)

    def _read_again(self) -> None:
        """A reading that failed (the vault busy mid-change, say) is tried again at the next poll."""
        self._generation = None

    def _first(self) -> int:
        """The list's first entry that can be chosen (a heading cannot)."""
        listing = self.query_one("#requests", OptionList)
        return next((i for i in range(listing.option_count) if listing.get_option_at_index(i).id is not None), 0)

    def show_inbox(self, inbox: Inbox, judged: Judged | None = None) -> None:
        """List `inbox` (and `judged`) instead, keeping the highlighted entry where it is still listed."""
        same_verdicts = judged is None or judged.verdicts == self.judged.verdicts
        if (
            list(inbox.requests) == self.requests
            and inbox.reviewed_until == self.inbox.reviewed_until
            and same_verdicts
        ):
            return
        chosen, verdict = self.selected, self.selected_verdict
        if judged is not None:
            self.judged, self._verdict_diffs = judged, {}
        self.inbox, self.requests, self._diffs = inbox, list(inbox.requests), {}
        listing = self.query_one("#requests", OptionList)
        listing.clear_options()
        listing.add_options(self._options())
        self.query_one("#dialog", Vertical).border_title = self._title()
        keep = [
            n
            for n, r in enumerate(self.requests)
            if chosen is not None and (r.doc_id, r.at) == (chosen.doc_id, chosen.at)
        ]
        kept = [f"v{n}" for n, v in enumerate(self.judged.verdicts) if verdict is not None and v.id == verdict.id]
        if keep or kept:
            wanted = str(keep[0]) if keep else kept[0]
            listing.highlighted = next(
                i for i in range(listing.option_count) if listing.get_option_at_index(i).id == wanted
            )
        elif self.requests or self.judged.verdicts:
            listing.highlighted = self._first()
        else:
            self.query_one("#what", Static).update("")
            self.query_one("#diff", Static).update("")
        self.refresh_bindings()

    def _key(self) -> str | None:
        """The highlighted entry's id (None before the list is there, or after it has gone)."""
        listings = self.query("#requests").results(OptionList)
        listing = next(listings, None)
        if listing is None:
            return None
        index = listing.highlighted
        if index is None or index >= listing.option_count:
            return None
        return listing.get_option_at_index(index).id

    @property
    def selected(self) -> Request | None:
        key = self._key()
        return self.requests[int(key)] if key is not None and key.isdigit() and self.requests else None

    @property
    def selected_verdict(self) -> Verdict | None:
        key = self._key()
        return self.judged.verdicts[int(key[1:])] if key is not None and key.startswith("v") else None

    @on(OptionList.OptionHighlighted, "#requests")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option.id is None:
            return
        if event.option.id.startswith("v"):
            self._show_verdict(self.judged.verdicts[int(event.option.id[1:])])
            return
        index = int(event.option.id)
        request = self.requests[index]
        self.query_one("#what", Static).update(request_text(request))
        self.query_one("#diff-scroll", VerticalScroll).border_title = DIFF_TITLES[request.kind]
        self.refresh_bindings()
        if index in self._diffs:
            self._show_diff(index, self._diffs[index])
        else:
            self.query_one("#diff", Static).update(Content.styled("reading…", "italic $text 60%"))
            self._load_diff(index, request)

    @work(thread=True, exclusive=True, group="inbox-diff")
    def _load_diff(self, index: int, request: Request) -> None:
        try:
            text = self.diff(request)
        except Exception as exc:  # noqa: BLE001 - the document may be gone meanwhile: say so
            text = f"# cannot show it: {exc}\n"
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show_diff, index, text)

    def _show_verdict(self, verdict: Verdict) -> None:
        """The verdict in a sentence with the agent's reason, and what answering it writes."""
        self.query_one("#what", Static).update(
            Content.assemble(
                (clean(verdict.agent), "bold"),
                f": {clean(said(verdict, dict(self.judged.titles)))}",
                (f"  ({verdict.local_at.replace('T', ' ')[:16]})", "$text 60%"),
                "\n",
                (clean(verdict.reason) or "(no reason given)", "italic"),
            )
        )
        scroll = self.query_one("#diff-scroll", VerticalScroll)
        scroll.border_title = "What rejecting it writes" if verdict.verdict == "unsure" else "What accepting it writes"
        self.refresh_bindings()
        if verdict.id in self._verdict_diffs:
            self._show_verdict_diff(verdict, self._verdict_diffs[verdict.id])
        elif self.judged.diff is not None:
            self.query_one("#diff", Static).update(Content.styled("reading…", "italic $text 60%"))
            self._load_verdict_diff(verdict)

    @work(thread=True, exclusive=True, group="inbox-diff")
    def _load_verdict_diff(self, verdict: Verdict) -> None:
        assert self.judged.diff is not None
        try:
            text = self.judged.diff(verdict)
        except Exception as exc:  # noqa: BLE001 - a record may have changed meanwhile: say so
            text = f"# cannot show it: {exc}\n"
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show_verdict_diff, verdict, text)

    def _show_verdict_diff(self, verdict: Verdict, text: str) -> None:
        self._verdict_diffs[verdict.id] = text
        if self.selected_verdict == verdict:
            self.query_one("#diff", Static).update(diff_content(text))
            self.query_one("#diff-scroll", VerticalScroll).scroll_home(animate=False)

    def _show_diff(self, index: int, text: str) -> None:
        self._diffs[index] = text
        if self.selected is self.requests[index]:
            self.query_one("#diff", Static).update(diff_content(text))
            self.query_one("#diff-scroll", VerticalScroll).scroll_home(animate=False)

    @on(OptionList.OptionSelected, "#requests")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_settle("open")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer only what settles the highlighted request or verdict (and nothing while a
        document is picked)."""
        if action not in ("settle", "pick", "reject"):
            return True
        verdict = self.selected_verdict
        if action == "reject":
            return verdict is not None and self._picking is None and "reject" in answers_to(verdict)
        if verdict is not None and action in ("settle", "pick"):
            if self._picking is not None or action == "pick":
                return False
            return parameters[0] == "open" or (parameters[0] == "accept" and "accept" in answers_to(verdict))
        if action in ("settle", "pick"):
            request = self.selected
            if request is None or self._picking is not None:
                return False
            return parameters[0] == "open" or parameters[0] in request.actions
        return True

    def action_reject(self) -> None:
        verdict = self.selected_verdict
        if verdict is not None and "reject" in answers_to(verdict):
            self.dismiss(VerdictChoice("reject", verdict))

    def action_settle(self, action: str) -> None:
        verdict = self.selected_verdict
        if verdict is not None:
            if action == "open" or (action == "accept" and "accept" in answers_to(verdict)):
                self.dismiss(VerdictChoice(action, verdict))
            return
        request = self.selected
        if request is None or not (action == "open" or action in request.actions):
            return
        if action != "forget":
            self.dismiss(InboxChoice(request, action))
            return

        def typed(confirm: str | None) -> None:
            if confirm == request.doc_id:
                self.dismiss(InboxChoice(request, action, confirm=confirm))

        from .confirm_forget import ConfirmForgetDialog

        self.app.push_screen(ConfirmForgetDialog(request.doc_id, request.title), typed)

    def action_pick(self, action: str) -> None:
        request = self.selected
        if request is None or action not in request.actions:
            return
        self._picking = action
        what = (
            f"Merge {request.doc_id} into…" if action == "merge" else f"Which document does {request.doc_id} supersede?"
        )
        self.query_one("#picking-label", Label).update(
            Content.assemble((clean(what), "bold"), ("  type to search, enter picks, escape goes back", "$text 60%"))
        )
        picker = self.query_one("#picker", DocumentPicker)
        picker.exclude = frozenset({request.doc_id})
        picker.accept = lambda hit: request.fits(action, hit.type, hit.status)  # only what the core will take
        picker.clear()
        self.add_class("-picking")
        self.refresh_bindings()
        picker.focus_input()

    @on(DocumentPicker.Picked, "#picker")
    def _picked(self, event: DocumentPicker.Picked) -> None:
        event.stop()
        request, action = self.selected, self._picking
        if request is not None and action is not None:
            self.dismiss(InboxChoice(request, action, event.doc_id))

    def action_close(self) -> None:
        if self._picking is not None:
            self._picking = None
            self.remove_class("-picking")
            self.refresh_bindings()
            self.query_one("#requests", OptionList).focus()
            return
        self.dismiss(None)
