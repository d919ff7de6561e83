"""The main screen's guided flows: lifecycle, undo, edit, problems, conflicts, the write gate,
consolidation and the inbox of what agents wrote. Each opens its dialog and turns the answer into a
`Proposal`, which the main screen previews as a diff and writes only once confirmed. Kept apart
from the routing in `main.py`: a flow asks the screen only what `FlowHost` (`host.py`) names. The
sync dialog (`S`) is opened from here too.

Cancelling a preview goes back one step (`Proposal.back`): to the dialog, as the person left it.

Not every vault format can take every change: a Dendron note has no status, and only Memory Core
carries the write gate's fields. `flavour_refusal` asks the vault's flavour what it can write
(`native`, `has_status`, `writes_supersession`), and the core itself for the words of a refusal
and the way out (migrating), so a flow the format cannot finish is dimmed in the footer and says
why when pressed, before anyone works for it.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from ...core import RefusedError, Status, read_file
from ..proposal import Proposal, created_id, redo_exactly, undo_exactly
from ..reading import read_view
from ..summary import summarise
from .editor import run_editor
from .messages import DocumentRead, VaultRead
from .proposing import notice_order
from .queue_flow import answer_verdict, open_queue

if TYPE_CHECKING:
    from ...core import Resolution
    from ..reading import DocumentView
    from ..summary import VaultSummary
    from ..dialogs.verdicts import VerdictChoice
    from ..dialogs.lifecycle import LifecycleChoice
    from .host import FlowHost

__all__ = [
    "GuidedFlows",
    "flavour_refusal",
    "gate_proposal",
    "repair_one_plan",
    "resolution_refusal",
    "settle_title",
]

NATIVE_ONLY = {"new_document": "the write gate", "consolidate": "consolidation", "inbox": "settling an agent's request"}
"""The guided flows that write Memory Core's own fields, by action, named as the core names them."""

RESOLUTIONS_NATIVE_ONLY = {  # "compatible" is not one: another format's vault keeps it in its settings file
    "retarget": "retargeting a link",
    "merge": "merging documents",
}
"""The conflicts' resolutions (by their command's verb) that write Memory Core's own fields."""

EDIT_NOTICE_LINES = 5
"""The problems an edit's notice names; the problems list (`p`) has them all."""


def _native_refusal(vault, what: str) -> str | None:
    """The core's own refusal of `what` in this vault's format (with the way out), or None."""
    try:
        vault.require_native(what)
    except RefusedError as exc:
        return str(exc)
    return None


def flavour_refusal(vault, action: str) -> str | None:
    """Why this vault's format cannot carry out the guided flow `action` at all, or None."""
    flavour = vault.flavour
    if action == "lifecycle":
        if flavour.native or flavour.has_status or flavour.writes_supersession:
            return None
        return _native_refusal(vault, f"a lifecycle ({flavour.label} notes have no status)")
    if action in NATIVE_ONLY:
        return _native_refusal(vault, NATIVE_ONLY[action])
    return None


def resolution_refusal(vault) -> Callable[[Resolution], str | None]:
    """Why this vault's format cannot carry out a conflict's resolution (None when it can)."""
    flavour = vault.flavour

    def refusal(resolution: Resolution) -> str | None:
        verb = resolution.command.split(" ", 1)[0]
        if verb == "supersede" and not (flavour.native or flavour.writes_supersession):
            return _native_refusal(vault, "supersession")
        if verb in RESOLUTIONS_NATIVE_ONLY:
            return _native_refusal(vault, RESOLUTIONS_NATIVE_ONLY[verb])
        return None

    return refusal


def repair_one_plan(vault, path: str):
    """The repair of one file (a dry run); when nothing in it can be repaired, the plan says so."""
    report = vault.repair(dry_run=True, paths=[path])
    if report.plan.empty:
        report.plan.summary = f"{path}: nothing in it can be repaired automatically; enter opens it, e edits it"
    return report.plan


class GuidedFlows:
    """The actions behind `l`, `u`, `U`, `H`, `e`, `p`, `c`, `n`, `o`, `i` and `S`, on the screen `host`."""

    def __init__(self, host: FlowHost) -> None:
        self.host = host

    def refusal(self, action: str) -> str | None:
        """Why the open vault's format cannot carry out the flow `action` (None when it can)."""
        return flavour_refusal(self.host.vault, action) if self.host.vault is not None else None

    def lifecycle(self) -> None:
        from ..dialogs.lifecycle import LifecycleDialog  # the dialogs: imported when first shown, not at start

        view = self.host.current
        if view is None or self.host.vault is None:
            return
        doc_id = view.document.id
        read = {view.document.path: view.raw}  # the version the person decides on

        def chosen(choice: LifecycleChoice | None) -> None:
            if choice is None:
                return
            back = self.lifecycle
            if choice.field == "execution_state":
                self.host.propose(
                    Proposal(
                        "Change the execution state?",
                        lambda vault: vault.set_execution_state(doc_id, choice.value, dry_run=True),
                        read=read,
                        back=back,
                    )
                )
            elif choice.field == "successor":
                self.host.propose(
                    Proposal(
                        "Supersede it?",
                        lambda vault: vault.supersede(doc_id, choice.value, dry_run=True),
                        read=read,
                        back=back,
                    )
                )
            else:
                self.host.propose(
                    Proposal(
                        "Change the status?",
                        lambda vault: vault.set_status(doc_id, choice.value, dry_run=True),
                        read=read,
                        back=back,
                    )
                )

        flavour = self.host.vault.flavour
        searcher = self.host.vault.search if flavour.native or flavour.writes_supersession else None
        words: dict[str, str] = {
            status: word for status in Status if (word := flavour.status_word(status)) and word.lower() != status
        }
        self.host.app.push_screen(
            LifecycleDialog(view.document, searcher, statuses=flavour.has_status, states=flavour.native, words=words),
            chosen,
        )

    def undo(self) -> None:
        self.host.propose(
            Proposal(
                "Undo this step?", lambda vault: vault.undo(dry_run=True), undo_exactly, written="Undone (U redoes it)"
            )
        )

    def redo(self) -> None:
        self.host.propose(
            Proposal(
                "Redo this step?",
                lambda vault: vault.redo(dry_run=True),
                redo_exactly,
                written="Redone (u undoes it again)",
            )
        )

    def undo_history(self) -> None:
        if self.host.vault is not None:
            self.host.run_worker(
                self._read_undo_stack,
                thread=True,
                exclusive=True,
                group="vault-read",
                description="read the undo stack",
            )

    def _read_undo_stack(self) -> None:
        """The stack as it is on disk now, then the list of its steps; `u` or `U` there acts."""
        from ..dialogs.undo_history import UndoHistoryDialog

        assert self.host.vault is not None
        try:
            stack = self.host.vault.undo_stack()
        except Exception as exc:  # noqa: BLE001
            self.host.report(exc, "The undo history could not be read")
            return

        def chosen(verb: str | None) -> None:
            if verb == "undo":
                self.undo()
            elif verb == "redo":
                self.redo()

        self.host.app.call_from_thread(self.host.app.push_screen, UndoHistoryDialog(stack), chosen)

    def edit(self) -> None:
        """The person's editor on a copy of the file; what they save is then previewed and written
        as a step like any other (so `u` takes it back), and never over an agent's write made
        while they edited: that is carried along, or both versions are shown."""
        view = self.host.current
        if view is None or self.host.vault is None:
            return
        doc_path, doc_id = view.document.path, view.document.id
        read = self.host.vault.read_file(doc_path)
        if read is None:
            self.host.notify(f"{doc_path} is not on disk any more", title="Nothing to edit", severity="warning")
            return
        copy = Path(tempfile.mkdtemp(prefix="workbench-edit-")) / PurePosixPath(doc_path).name
        copy.write_bytes(read)
        failure = run_editor(self.host.app, copy)
        written = read_file(copy) if failure is None else None  # the editor's copy, outside the vault
        if written is None or written == read:
            shutil.rmtree(copy.parent, ignore_errors=True)
            if failure is not None:
                self.host.notify(failure, title="The editor did not start", severity="error", markup=False, timeout=10)
            else:
                self.host.notify(f"{doc_path}: nothing changed, nothing written", title="Edit", markup=False)
            return

        def written_then() -> None:
            shutil.rmtree(copy.parent, ignore_errors=True)
            # The summary the write just made (its `VaultRead` came before this): every problem
            # the edit left, here and in the files that link to it, already worked out.
            summary = self.host.summary
            # A group of its own, not "vault-read": a read started there meanwhile (the watcher's
            # report of this very write, another document opened) cancels the reads before it, and
            # this check, cancelled before its thread began, never said what it found.
            self.host.run_worker(
                partial(self._after_edit, doc_id, doc_path, summary),
                thread=True,
                group="edit-check",
                description="check an edited file",
            )

        def kept() -> None:
            self.host.notify(
                f"Not written. Your text is kept in {copy}", title="Edit cancelled", markup=False, timeout=15
            )

        self.host.propose(
            Proposal(
                "Write your edit?",
                lambda vault: vault.hand_edit(doc_path, read, written, dry_run=True),
                then=written_then,
                read={doc_path: read},
                back=kept,
                unsaved=f"your edit of {doc_path}",
            )
        )

    def _after_edit(self, doc_id: str, doc_path: str, summary: VaultSummary | None) -> None:
        """Say what the checks think of the edited file now, a secret it holds first: from the
        summary the write made (not the whole vault again: seconds at 100,000 documents), the
        file's problems looked up alone; those it left in other files were said with the write.
        Found by its path: an edit may have changed its id."""
        assert self.host.vault is not None
        try:
            if summary is None:  # no summary made since the vault was read: the whole check, once
                summary = summarise(self.host.vault, self.host.vault_path)
                self.host.post_message(VaultRead(summary))
            doc_id = summary.path_ids.get(doc_path, doc_id)
            view = read_view(self.host.vault, summary.graph, doc_id, self.host.graph_depth, self.host.graph_filter)
        except Exception as exc:  # noqa: BLE001
            self.host.report(exc, "Cannot re-read it")
            return
        self.host.app.call_from_thread(self._show_edited, view)
        problems = notice_order(view.problems)
        if problems:
            lines = "\n".join(f"{p.severity}: {p.message}" for p in problems[:EDIT_NOTICE_LINES])
            more = (
                f"\n… and {len(problems) - EDIT_NOTICE_LINES} more: p lists them"
                if len(problems) > EDIT_NOTICE_LINES
                else ""
            )
            self.host.app.call_from_thread(
                self.host.notify,
                lines + more,
                title=f"{len(problems)} problem(s) after editing",
                severity="warning",
                markup=False,
                timeout=10,
            )
        else:
            self.host.app.call_from_thread(
                self.host.notify, view.document.path, title="Checked: no problems", markup=False
            )

    def _show_edited(self, view: DocumentView) -> None:
        """The edited document as re-read, in the viewer, if it is still the one on show (the
        person may have opened another meanwhile: the check is said, their choice is kept). Told
        by its path: the edit may have changed its id."""
        current = self.host.current
        if current is not None and current.document.path == view.document.path:
            self.host.post_message(DocumentRead(view, remember=False, focus="viewer"))

    def problems(self, at: str | None = None) -> None:
        """The problems list, at the first problem of the file `at` when given (back from its repair)."""
        from ..dialogs.problems import ProblemsDialog, ProblemsResult

        if self.host.summary is None:
            return

        def chosen(result: ProblemsResult | None) -> None:
            if result is None:
                return
            if result.doc_id is not None:
                self.host.open_document(result.doc_id, focus="viewer")
            elif result.repair and result.path is not None:
                path = result.path
                self.host.propose(
                    Proposal(
                        f"Repair {path}?",
                        lambda vault: repair_one_plan(vault, path),
                        then=self.problems,
                        back=lambda: self.problems(at=path),
                    )
                )
            elif result.repair:
                self.host.propose(
                    Proposal(
                        "Repair the vault?",
                        lambda vault: vault.repair(dry_run=True).plan,
                        then=self.problems,
                        back=self.problems,
                    )
                )

        self.host.app.push_screen(ProblemsDialog(self.host.summary.problems, self._path_ids(), at=at), chosen)

    def _path_ids(self) -> dict[str, str]:
        assert self.host.summary is not None
        return self.host.summary.path_ids

    def conflicts(self, at: int = 0, resolution: Resolution | VerdictChoice | None = None) -> None:
        """The queue, its `at`-th conflict highlighted and `resolution` focused (where a
        cancelled preview left it): `queue_flow.open_queue`."""
        vault = self.host.vault
        open_queue(self.host, resolution_refusal(vault) if vault is not None else None, at, resolution)

    def new_document(self, draft=None) -> None:
        """The write gate; with a `draft`, back at its candidates (a cancelled preview)."""
        from ..dialogs.new_document import CANDIDATES, GateChoice, NewDocumentDialog

        if self.host.vault is None:
            return

        def chosen(choice: GateChoice | None) -> None:
            if choice is not None:
                self.host.propose(gate_proposal(choice, back=lambda: self.new_document(choice.draft)))

        dialog = NewDocumentDialog(
            self.host.vault.search,
            partial(self.host.vault.candidates, limit=CANDIDATES),
            self._read_document,
            check=self._check_gate_choice,
            draft=draft,
        )
        self.host.app.push_screen(dialog, chosen)

    def _check_gate_choice(self, choice) -> None:
        """Run in the gate's worker: the choice's dry run, so a refusal is said while the draft is
        still open (and nothing the person typed is lost)."""
        assert self.host.vault is not None
        gate_proposal(choice).plan(self.host.vault)

    def _read_document(self, doc_id: str):
        """A document and its file's bytes, read together (in a dialog's worker)."""
        assert self.host.vault is not None
        raw = self.host.vault.source(doc_id)
        return self.host.vault.get(doc_id), raw

    def consolidate(self) -> None:
        if self.host.vault is None:
            return
        self.host.run_worker(
            self._find_groups, thread=True, exclusive=True, group="vault-read", description="find groups of notes"
        )

    def _find_groups(self) -> None:
        from ..dialogs.consolidate import ConsolidateDialog  # noqa: F401  (imported here, off the UI thread, before it is shown)

        assert self.host.vault is not None
        try:
            groups = self.host.vault.consolidation_groups()
            titles = {doc.id: doc.title for doc in self.host.vault.documents}
        except Exception as exc:  # noqa: BLE001
            self.host.report(exc)
            return
        self.host.app.call_from_thread(self._show_groups, groups, titles)

    def _merged_text(self, into: str, notes: Sequence[str]):
        """Run in the dialog's worker: refuse what cannot be consolidated before anyone edits the
        text, then read the files (first, so a change made meanwhile is caught later) and merge."""
        from ..dialogs.consolidate import MergedText

        vault = self.host.vault
        assert vault is not None
        vault.consolidate(into, list(notes), dry_run=True)
        read = {vault.get(doc_id).path: vault.source(doc_id) for doc_id in (into, *notes)}
        return MergedText(vault.merged_body(into, list(notes)), read)

    def _show_groups(self, groups, titles, resume=None) -> None:
        """The consolidation dialog; with `resume`, back at the merged text a cancelled preview left."""
        from ..dialogs.consolidate import ConsolidateChoice, ConsolidateDialog

        if self.host.vault is None:
            return

        def chosen(choice: ConsolidateChoice | None) -> None:
            if choice is None:
                return
            into, notes, body, edited_from = choice.into, list(choice.notes), choice.body, choice.edited_from
            edited = " (the text as edited)" if body is not None else ""
            # A redo on files changed meanwhile carries the person's edits onto the new merged text.
            self.host.propose(
                Proposal(
                    f"Consolidate {len(notes)} notes into {into}{edited}?",
                    lambda vault: vault.consolidate(into, notes, dry_run=True, body=body, edited_from=edited_from),
                    open_after=lambda plan: into,
                    read=choice.read,
                    back=lambda: self._show_groups(groups, titles, choice),
                    unsaved="the merged text as you edited it" if body is not None else None,
                )
            )

        dialog = ConsolidateDialog(groups, titles, self.host.vault.search, merged_text=self._merged_text, resume=resume)
        self.host.app.push_screen(dialog, chosen)

    def sync(self) -> None:
        """The sync dialog; what a pull writes reaches the panes through the vault's watcher."""
        from ..dialogs.sync_merge import SyncDialog

        if self.host.vault is None:
            return
        why = self.host.vault.not_syncable()
        if why is not None:  # an empty merge dialog would say nothing
            self.host.notify(why, title="Nothing to sync", severity="warning", markup=False, timeout=10)
            return
        self.host.app.push_screen(SyncDialog(self.host.vault))

    def inbox(self) -> None:
        if self.host.vault is None:
            return
        self.host.run_worker(
            self._read_inbox, thread=True, exclusive=True, group="vault-inbox", description="read the inbox"
        )

    def _read_inbox(self) -> None:
        from ..dialogs.inbox import InboxDialog
        from ..dialogs.verdicts import judged_in, moved_on

        assert self.host.vault is not None
        try:
            inbox = self.host.vault.inbox()
            judged = judged_in(self.host.vault)
        except Exception as exc:  # noqa: BLE001
            self.host.report(exc, "The inbox could not be read")
            return
        vault = self.host.vault
        dialog = InboxDialog(
            inbox,
            vault.inbox_diff,
            vault.search,
            reload=vault.inbox,
            generation=moved_on(vault),
            judged=judged,
        )
        self.host.app.call_from_thread(self._show_inbox, dialog)

    def _show_inbox(self, dialog) -> None:
        from ..dialogs.verdicts import VerdictChoice

        def chosen(choice) -> None:
            newest = dialog.inbox.newest  # the list as it was last shown: it follows the vault while open
            if newest is not None:
                # What was listed has been seen, settled or not.
                self.host.run_worker(
                    partial(self._mark_reviewed, newest), thread=True, group="inbox-cursor", description="mark seen"
                )
            if choice is None:
                return
            if isinstance(choice, VerdictChoice):  # an answer to an agent's verdict
                answer_verdict(self.host, choice, then=self.inbox, back=self.inbox)
                return
            request, action, target = choice.request, choice.action, choice.target
            doc_id = request.doc_id
            if action == "open":
                self.host.open_document(doc_id, focus="viewer")
            elif action == "forget" and choice.confirm == doc_id:
                self._forget(doc_id, choice.confirm)  # the id typed again on top of the inbox
            elif action == "forget":
                self._confirm_forget(doc_id, request.title)
            else:
                self.host.propose(
                    Proposal(
                        settle_title(choice),
                        lambda vault: vault.settle(doc_id, action, target=target, at=request.at, dry_run=True),
                        open_after=lambda plan: doc_id,
                        then=self.inbox,
                        back=self.inbox,
                    )
                )

        self.host.app.push_screen(dialog, chosen)

    def _mark_reviewed(self, until: str) -> None:
        assert self.host.vault is not None
        try:
            self.host.vault.mark_inbox_reviewed(until)
        except OSError as exc:
            self.host.report(exc, "The inbox could not remember what you saw")

    def _confirm_forget(self, doc_id: str, title: str) -> None:
        from ..dialogs.confirm_forget import ConfirmForgetDialog

        def typed(confirm: str | None) -> None:
            if confirm == doc_id:
                self._forget(doc_id, confirm)

        self.host.app.push_screen(ConfirmForgetDialog(doc_id, title), typed)

    def _forget(self, doc_id: str, confirm: str) -> None:
        self.host.propose(
            Proposal(
                f"Forget {doc_id} for good?",
                lambda vault: vault.settle(doc_id, "forget", confirm=confirm, dry_run=True),
                apply=lambda vault, plan: vault.settle(doc_id, "forget", confirm=confirm),
                then=self.inbox,
                back=self.inbox,
                written="Forgotten (this cannot be undone)",
            )
        )


def gate_proposal(choice, back: Callable[[], object] | None = None) -> Proposal:
    """The write gate's choice (merge, supersede or create) as a change to preview."""
    draft, target = choice.draft, choice.target
    unsaved = "the draft"
    if choice.action == "merge" and target:
        return Proposal(
            f"Merge into {target}?",
            lambda vault: vault.merge_into(target, draft, dry_run=True),
            open_after=lambda plan: target,
            read=choice.read,
            back=back,
            unsaved=unsaved,
        )
    if choice.action == "supersede" and target:
        return Proposal(
            f"Create it, superseding {target}?",
            lambda vault: vault.create_superseding(target, draft, dry_run=True),
            open_after=created_id,
            read=choice.read,
            back=back,
            unsaved=unsaved,
        )
    return Proposal(
        "Create this document?",
        lambda vault: vault.create(draft, dry_run=True),
        open_after=created_id,
        back=back,
        unsaved=unsaved,
    )


def settle_title(choice) -> str:
    """The change preview's question for an inbox choice."""
    request, target = choice.request, choice.target
    doc_id, agent = request.doc_id, request.agent
    return {
        "accept": {
            "create": f"Accept {doc_id}: draft → active?",
            "supersede": f"Accept: {doc_id} supersedes {request.target}?",
            "merge": f"Keep {agent}'s merge into {doc_id}?",
        }.get(request.kind, f"Accept {doc_id}?"),
        "merge": f"Merge {doc_id} into {target}?",
        "supersede": f"{doc_id} supersedes {target}?",
        "archive": f"Archive {doc_id}?",
        "revert": f"Revert {agent}'s merge into {doc_id}?",
        "keep": f"Keep {doc_id}, declining {agent}'s request to forget it?",
    }.get(choice.action, f"{choice.action} {doc_id}?")
