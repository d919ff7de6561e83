"""The vault: one object that reads a vault and writes it without losing a byte.

Everything that shows or changes a vault (the TUI, the CLI, notebooks, agents' scripts) goes
through this facade, and it decides nothing itself: each method is one call into the layer that
owns the behaviour. Reading and applying changes belong to the index (`index.py`); the graph,
search, meaning and a question's context pack (`retrieval`) are derived views; each curation
service (`transitions`, `gate`, `conflicts`, `consolidate`, `references`, `maintenance`, `repair`,
`undo`, `tiers` for tiered memory, `inbox` for what agents write and the curator settles, `review`
and `verdicts` for pairs a reader judges and the curator confirms) plans
a change from the index, and the facade applies it, or returns it unapplied for a dry run
(`Plan.diff()` shows it).

The facade is this class and its parts, one module each, so that none grows past reading: its base
(`vault_base.py`: opening, what the vault is, `apply`), the review list and verdicts
(`vault_review.py`), the curator's inbox (`vault_inbox.py`) and git sync (`vault_sync.py`).

Each service is imported by the first method that needs it: a process that opens a vault and
answers one search (an agent's, a command's) loads neither the curation services nor rapidfuzz,
networkx or watchfiles.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .vocabulary import presenting
from .storage.changes import Plan
from .vocabulary.model import Document, Problems, Status
from .vault_base import serialized
from .vault_inbox import InboxMethods
from .vault_review import ReviewMethods
from .vault_sync import SyncMethods

if TYPE_CHECKING:
    import os

    import networkx as nx

    from .services.conflicts import Conflicts
    from .services.consolidate import Group
    from .services.gate import Candidate, Draft
    from .services.kept_answers import Fingerprint
    from .views.graph import Neighbourhood
    from .services.agentwrites import Agent
    from .records.live import VaultWatcher
    from .services.migrate import MigrationReport
    from .services.recent import Changes
    from .records.record import Record
    from .services.repair import RepairReport
    from .views.retrieval import QuestionPack
    from .views.search import Hit, SearchResults
    from .services.undo import Stack as UndoStack
    from .flavours.base import RawLink

__all__ = ["Vault", "serialized"]


class Vault(ReviewMethods, InboxMethods, SyncMethods):
    """A vault on disk, of any flavour. Open it with `Vault.open(path)`.

    One Vault may be shared between threads: every method runs under its index's mutex, except
    those that compute on a snapshot (search, conflicts, problems) so that a person typing never
    waits for them. Between processes, the vault lock and the check that a file is unchanged since
    it was read keep writes safe.
    """

    # -- reading -------------------------------------------------------------------------------

    @property
    def records(self) -> list[Record]:
        return self.index.records

    @property
    def documents(self) -> list[Document]:
        """Every valid document, ordered by id."""
        return self.index.documents

    @property
    def all_documents(self) -> list[Document]:
        """Every file's document, valid or not, in path order."""
        return [record.document for record in self.index.records]

    def ids(self) -> list[str]:
        return self.index.ids()

    def get(self, doc_id: str) -> Document:
        """The document as it is on disk now; RefusedError if no file has that id."""
        return self.index.get(doc_id)

    def document_at(self, path: str) -> Document | None:
        """What was last read from `path` (relative to the root), without looking at the disk."""
        return self.index.document_at(path)

    def source(self, doc_id: str) -> bytes:
        """The document's file as it is on disk now, byte for byte."""
        return self.index.source(doc_id)

    def record(self, doc_id: str) -> Record:
        return self.index.record(doc_id)

    @property
    def problems(self) -> Problems:
        """Every problem in the vault: per file, across files, and symlinks that were skipped."""
        return self.index.problems

    def problems_for(self, doc_id: str) -> Problems:
        return self.index.problems_for(doc_id)

    def reading_moved(self, given: str | os.PathLike[str], flavour: str | None = None) -> bool:
        """Whether an open of `given` now would read it otherwise (`VaultIndex.reading_moved`)."""
        return self.index.reading_moved(given, flavour)

    def refresh(self, listed: dict[str, list[os.DirEntry]] | None = None) -> None:
        """Re-read whatever changed on disk since the last look (a walk and a stat per file);
        `listed`: the folders as a walk just listed them (`Fingerprint.listing`), not listed again."""
        self.index.refresh(listed)

    def refresh_paths(self, paths: list[str]) -> None:
        """Re-read just these files (the watcher's batches)."""
        self.index.refresh_paths(paths)

    def watch(self, on_change: Callable[[list[str], float], None] | None = None) -> VaultWatcher:
        """Start a watcher that keeps this vault in line with the disk; stop it when done."""
        return self.index.watch(on_change)

    def history(self, limit: int = 20) -> list[dict[str, Any]]:
        """Recent changes made through the workbench, newest first."""
        return self.index.history(limit)

    def post(self, doc_id: str):
        """The document as a `frontmatter.Post` (python-frontmatter): its frontmatter as parsed
        and its body. A copy to read or hand on; writing goes through `save` or the gate."""
        import frontmatter

        post = frontmatter.Post(self.get(doc_id).body)
        post.metadata.update(self.get(doc_id).meta)  # not as keywords: a key named `handler` is Post's own
        return post

    def to_pandas(self):
        """One row per file as a pandas DataFrame; needs pandas, which the workbench does not."""
        return presenting.frame(presenting.document_rows(self))

    # -- derived views -------------------------------------------------------------------------

    def search(self, query: str, limit: int = 10) -> SearchResults:
        """Documents for a query in the search language (see `workbench.core.views.search`), best first;
        `QueryError` for a filter that cannot match as written (`type:decsion`)."""
        from .views import search

        return search.find(self.index, query, limit)

    @serialized
    def snippets(self, query: str, hits: Iterable[Hit]) -> dict[str, str]:
        """{hit id: the words around what the query matched in it}, matches between \x02 and \x03."""
        from .views import search

        return search.snippets(self.index, query, hits)

    def graph(self) -> nx.MultiDiGraph:
        """The typed-link graph as the vault is now (see graph.py): kept in step with the files as
        they change, and a snapshot of its own that nothing changes once it is returned. Worked out
        without holding the vault's mutex (`LiveGraph.sync`): searches go on meanwhile."""
        with self.index.mutex:
            if self._graph is None:
                from .views.live_graph import LiveGraph  # networkx: loaded by the first caller that wants a graph

                self._graph = LiveGraph()
            live = self._graph
        return live.sync(self.index)

    def neighbourhood(
        self, doc_id: str, depth: int = 1, link_types: Iterable[str] | str | None = None
    ) -> Neighbourhood:
        """The documents within `depth` links of `doc_id`, both ways; a notebook draws it in Mermaid."""
        from .views.graph import neighbourhood

        return neighbourhood(self.graph(), doc_id, depth, link_types)

    def context_for(self, question: str, limit: int = 10, depth: int = 2) -> QuestionPack:
        """Memory Core's pack for a question: the documents to read (from its best hits, `depth` links
        out, at most `limit`, by reading priority) and their constraints, decisions and questions."""
        from .views import retrieval

        return retrieval.question_pack(self.index, self.graph(), question, limit, depth)

    def conflicts(self, full: bool = False, progress: Callable[[str, int, int], object] | None = None) -> Conflicts:
        """Computed on a snapshot of the documents, without holding the vault's mutex meanwhile:
        on a large vault this takes seconds, and searches must not wait for it. Kept in the
        derived store under a digest of everything it is worked out from (`kept_conflicts`), so
        an unchanged vault answers at once, in this process or the next, and a changed one weighs
        again only the pairs its changes touch (`weighing`); `full` works everything out again.
        `progress(pass, done, total)` is told how far the weighing's long passes have gone
        ("weighing pairs", 1000, 75000)."""
        return self._queue(full, progress).conflicts()

    def kept_conflicts(self) -> Conflicts | None:
        """`conflicts()` if it is kept for the vault as it is now, else None, at the cost of a
        digest of the documents: nothing is worked out."""
        return self._queue().kept_conflicts()

    def conflicts_json(self, full: bool = False, unchanged: Fingerprint | None = None) -> str:
        """`conflicts()` as JSON text (`{"conflicts": [...]}`, indented), as the CLI prints it;
        kept beside the queue, so an unchanged vault's is read, not worked out or encoded again.
        `unchanged`: the fingerprint taken before this vault was opened, under which the answer
        is kept for the next process that takes the same (`kept_answers`)."""
        return self._conflicts_printed(full, unchanged, lambda asked: asked.printed())

    def conflicts_printed(self, full: bool = False, unchanged: Fingerprint | None = None) -> list[bytes | memoryview]:
        """`conflicts_json()` in pieces of UTF-8 to write one after the other: the queue's kept
        blocks as read, none decoded or joined (24 MB at 10,000 decision records)."""
        return self._conflicts_printed(full, unchanged, lambda asked: asked.printed_pieces())

    def _conflicts_printed(self, full: bool, unchanged: Fingerprint | None, printed: Callable[[Any], Any]) -> Any:
        asked = self._queue(full)
        text = printed(asked)
        if unchanged is not None:
            from .services import kept_answers

            kept_answers.keep(self.index, unchanged, ("conflicts", full), key=asked.key)
        return text

    def _queue(self, full: bool = False, progress: Callable[[str, int, int], object] | None = None):
        from .services import kept_conflicts
        from .records.record import today

        flavour, compatible = self.index.flavour, self.index.config.compatible
        return kept_conflicts.Asked(
            self.documents,
            flavour.reading,
            flavour.native,
            self.store,
            today(),
            compatible,
            full,
            progress,
            owned=self.index.owners,
        )

    def consolidation_groups(self) -> list[Group]:
        from .services import consolidate

        return consolidate.consolidation_groups(self.documents)

    def stale(self, days: int = 90) -> list[tuple[Document, int]]:
        from .services import maintenance

        return maintenance.stale_documents(self.documents, days)

    def recent(self, days: int = 7, now=None) -> Changes:
        """The documents changed in the last `days` days, newest first, each with the change log's
        latest line about it (`recent.py`)."""
        from .services import recent

        return recent.recent_changes(self.documents, recent.log_lines(self.index.log_path), days, now)

    def gate(self, draft: Draft, limit: int = 3) -> list[Candidate]:
        """The write gate's 1-3 canonical candidates for new knowledge; writes nothing."""
        from .services import gate

        # A large vault weighs a short list from the full-text index (a small one, every document).
        shortlist = gate.fts_shortlist(self.store, self.document_at) if self.store is not None else None
        return gate.candidates(self.documents, draft, limit, shortlist)

    def new_id(self, doc_type: str, title: str) -> str:
        """The id a new document of this type and title would get: unique among ids and files."""
        from .services.gate import new_id_for

        return new_id_for(self.index, doc_type, title)

    def migrate(self, out: str | os.PathLike[str], project: str | None = None) -> MigrationReport:
        """Write this vault as a Memory Core vault into `out`, a new or empty folder; this one is left as it is."""
        from .services.migrate import migrate

        return migrate(self.index, out, project)

    @serialized
    def candidates(self, draft: Draft, limit: int = 3, room: int | None = None) -> list[Candidate]:
        """The gate's candidates (1-10) for a reader: each with its excerpt (title, status as the
        file states it, date or number, the opening of its body, the passage that matched), in the
        gate's order, all within the read budget (`room` characters, 45,000 by default)."""
        from .services import review
        from .views.excerpts import READ_CHARACTERS, READ_DOCUMENTS

        if not 1 <= limit <= READ_DOCUMENTS:
            from .vocabulary.model import RefusedError

            raise RefusedError(f"candidates must be between 1 and {READ_DOCUMENTS}, not {limit}")
        found = self.gate(draft, limit)
        return review.excerpted_candidates(self.index, draft, found, room or READ_CHARACTERS)

    @serialized
    def merged_body(self, into_id: str, note_ids: list[str]) -> str:
        from .services import consolidate

        return consolidate.merged_body(self.index, into_id, note_ids)

    # -- changing: each plans in its service and is applied (`VaultBase.apply`) or only shown ----

    @serialized
    def save(self, doc: Document, dry_run: bool = False, override: bool = False) -> Plan:
        """Write `doc` (a changed copy of what `get` returned). Raises ConflictError, writing nothing,
        if the file changed on disk since `doc` was read. Writes no byte when nothing changed. A
        superseded document's text is refused without `override`."""
        from .services import transitions

        return self.apply(transitions.plan_save(self.index, doc, override), dry_run)

    @serialized
    def hand_edit(self, path: str, read: bytes, written: bytes, dry_run: bool = False) -> Plan:
        """Write what a person saved in their own editor (`written`, edited from `read`) to the file
        at `path`, as a step that undo takes back; a file changed meanwhile gets the edit carried
        onto its new version, or ConflictError where both changed the same lines."""
        from .services import transitions

        return self.apply(transitions.plan_hand_edit(self.index, path, read, written), dry_run)

    @serialized
    def set_status(self, doc_id: str, status: str, dry_run: bool = False) -> Plan:
        """Move a document along its lifecycle; the same status again changes nothing."""
        from .services import transitions

        return self.apply(transitions.plan_status(self.index, doc_id, status), dry_run)

    @serialized
    def set_execution_state(self, doc_id: str, state: str, dry_run: bool = False) -> Plan:
        """A task's execution state, kept apart from its lifecycle status."""
        from .services import transitions

        return self.apply(transitions.plan_execution_state(self.index, doc_id, state), dry_run)

    @serialized
    def supersede(self, old_id: str, new_id: str, dry_run: bool = False) -> Plan:
        """`new_id` replaces `old_id`: both sides and the `supersedes` link, written together."""
        from .services import transitions

        return self.apply(transitions.plan_supersede(self.index, old_id, new_id), dry_run)

    @serialized
    def merge_into(self, target_id: str, draft: Draft, dry_run: bool = False) -> Plan:
        from .services import gate

        self.index.require_native("the write gate")
        return self.apply(gate.plan_merge(self.index, target_id, draft), dry_run)

    @serialized
    def create(self, draft: Draft, dry_run: bool = False, status: str = Status.ACTIVE.value) -> Plan:
        from .services import gate

        self.index.require_native("the write gate")
        return self.apply(gate.plan_create(self.index, draft, status), dry_run)

    @serialized
    def create_superseding(self, old_id: str, draft: Draft, dry_run: bool = False) -> Plan:
        from .services import gate

        self.index.require_native("the write gate")
        return self.apply(gate.plan_create_superseding(self.index, old_id, draft), dry_run)

    @serialized
    def mark_compatible(self, a_id: str, b_id: str, dry_run: bool = False) -> Plan:
        from .services import resolving

        return self.apply(resolving.plan_compatible(self.index, a_id, b_id), dry_run)

    @serialized
    def retarget(self, source_id: str, old_target: str, new_target: str | None = None, dry_run: bool = False) -> Plan:
        from .services import resolving

        self.index.require_native("retargeting a link")
        return self.apply(resolving.plan_retarget(self.index, source_id, old_target, new_target), dry_run)

    @serialized
    def merge(self, source_id: str, target_id: str, dry_run: bool = False) -> Plan:
        from .services import resolving

        self.index.require_native("merging documents")
        return self.apply(resolving.plan_merge_documents(self.index, source_id, target_id), dry_run)

    @serialized
    def consolidate(
        self,
        into_id: str,
        note_ids: list[str],
        dry_run: bool = False,
        body: str | None = None,
        edited_from: str | None = None,
    ) -> Plan:
        """Fold the notes into `into_id`; `body` replaces the merged text, as a person edited it
        from `edited_from` (their edits are carried onto the files as they are now)."""
        from .services import consolidate

        self.index.require_native("consolidation")
        return self.apply(consolidate.plan_consolidate(self.index, into_id, note_ids, body, edited_from), dry_run)

    @serialized
    def rename(self, old_id: str, new_id: str, dry_run: bool = False) -> Plan:
        from .services import references

        self.index.require_native("renaming")
        return self.apply(references.plan_rename(self.index, old_id, new_id), dry_run)

    @serialized
    def forget(self, doc_id: str, confirm: str, dry_run: bool = False) -> Plan:
        """Delete a document and every trace of it. The one change that cannot be undone."""
        from .services import references

        return references.forget(self.index, doc_id, confirm, dry_run)

    @serialized
    def undo(self, dry_run: bool = False) -> Plan:
        """Revert the newest step of the undo stack, if every file it touched is still as it left them."""
        from .services import undo

        return undo.undo(self.index, dry_run)

    @serialized
    def redo(self, dry_run: bool = False) -> Plan:
        """Re-apply the step undone last, if every file it touched is still as the undo left them."""
        from .services import undo

        return undo.redo(self.index, dry_run)

    @serialized
    def undo_stack(self) -> UndoStack:
        """The steps undo and redo take, each named, with the position between them."""
        from .services import undo

        return undo.stack(self.index)

    # -- tiered memory (its Memory Operations document): its own operations on its plain Markdown files ----------------

    @serialized
    def correct(self, text: str, kind: str = "preference", context: str = "", dry_run: bool = False) -> Plan:
        """Log a correction; the same one the third time becomes a confirmed rule in memory.md."""
        from .services import tiers

        return self.apply(tiers.plan_correction(self.index, text, kind, context), dry_run)

    @serialized
    def move_entry(self, words: str, to: str, dry_run: bool = False) -> Plan:
        """Move the entry that says `words` to `hot`, `cold` or a namespace file."""
        from .services import tiers

        return self.apply(tiers.plan_move(self.index, words, to), dry_run)

    @serialized
    def forget_entries(self, words: str, confirm: str, dry_run: bool = False) -> Plan:
        """Remove every entry that says `words` from every tier."""
        from .services import tiers

        return tiers.forget(self.index, words, confirm, dry_run)

    @serialized
    def update_line_counts(self, dry_run: bool = False) -> Plan:
        from .services import tiers

        return self.apply(tiers.plan_line_counts(self.index), dry_run)

    # -- agents' writes (agentwrites.py; the curator's inbox is `vault_inbox.py`) ------------------

    @serialized
    def agent_create(self, draft: Draft, agent: Agent, dry_run: bool = False) -> Plan:
        """An agent's new document: a draft naming the agent, awaiting the curator's review; refused
        when one of its type and title exists, checked and written under the vault's lock."""
        from .services import agentwrites

        self.index.require_native("an agent's write")
        with self.index.lock:
            return self.apply(agentwrites.plan_agent_create(self.index, draft, agent), dry_run)

    @serialized
    def agent_merge_into(self, target_id: str, draft: Draft, agent: Agent, dry_run: bool = False) -> Plan:
        from .services import agentwrites

        self.index.require_native("an agent's write")
        return self.apply(agentwrites.plan_agent_merge(self.index, target_id, draft, agent), dry_run)

    @serialized
    def agent_supersede(self, old_id: str, draft: Draft, agent: Agent, dry_run: bool = False) -> Plan:
        """An agent's new decision proposed to replace `old_id`; `old_id` changes only when accepted."""
        from .services import agentwrites

        self.index.require_native("an agent's write")
        with self.index.lock:
            return self.apply(agentwrites.plan_agent_supersede(self.index, old_id, draft, agent), dry_run)

    @serialized
    def request_forget(self, doc_id: str, agent: Agent, reason: str = "", dry_run: bool = False) -> Plan:
        """An agent asks for a document to be forgotten; nothing is deleted."""
        from .services import agentwrites

        return self.apply(agentwrites.plan_forget_request(self.index, doc_id, agent, reason), dry_run)

    def regenerate_index(self, dry_run: bool = False) -> Plan:
        from .services import maintenance

        if self.flavour.listing is not None:
            return self.apply(maintenance.plan_listing(self.index), dry_run)
        self.index.require_native("the generated index")
        return self.apply(maintenance.plan_index(self.index), dry_run)

    @serialized
    def repair(self, dry_run: bool = False, paths: Iterable[str] | None = None) -> RepairReport:
        """`check --repair`: deterministic repairs (one change), then the index's generated
        sections (another), so each can be undone on its own. `paths` limits it to those files."""
        from .services import repair

        return repair.repair(self.index, dry_run, paths)

    # -- what else a face asks of the vault --------------------------------------------------------

    @property
    def state_dir(self) -> Path:
        """The folder of the workbench's own files for this vault (`.workbench/` or one in the cache)."""
        return self.index.state_dir

    def empty_note(self) -> str | None:
        """What a vault with no documents is, in words (an empty folder is a new vault), else None."""
        from .records.walk import no_documents_note

        return None if self.index.records else no_documents_note(self.root)

    def require_native(self, what: str) -> None:
        """Refuse `what`, with the way out, when it writes Memory Core's own fields and this vault is
        of another format."""
        self.index.require_native(what)

    def read_file(self, path: str) -> bytes | None:
        """The bytes of the file at `path` (relative to the root) as they are now, None when there is
        none; `UnreadableFile` (an OSError) for a pipe, a device or a file that cannot be read, which
        is never opened to block."""
        from .vocabulary.files import read_file

        return read_file(self.root / path)

    def resolve_links(self, links: Iterable[RawLink]) -> list[str | None]:
        """The id each link written in a text names, resolved by the vault's flavour as the graph
        resolves it (a Dendron `[[a.b]]`, an Obsidian file name, a Memory Core id); None where no
        document of the vault has it."""
        from .flavours.base import Ids, View

        links = list(links)
        if not links:
            return []
        ids = Ids(self.ids())
        targets: list[str | None] = []
        for link in links:
            resolved = self.flavour.resolve(View(title="", type="", status="", raw_links=(link,)), ids).links
            targets.append(resolved[0].target if resolved and resolved[0].target in ids.exact else None)
        return targets

    def context_pack(self, doc_id: str, depth: int = 2, limit: int = 10) -> list[dict[str, Any]]:
        """What to read about `doc_id`: the documents `depth` typed links out, by reading priority."""
        from .views.graph import context_pack

        return context_pack(self.graph(), doc_id, depth, limit)

    def export_graph(self, fmt: str, root: str | None = None, depth: int | None = None) -> str:
        """The graph (or `root`'s neighbourhood to `depth`) as json, dot, mermaid or graphml text."""
        from .views.graph import export

        return export(self.graph(), fmt, root=root, depth=depth)
