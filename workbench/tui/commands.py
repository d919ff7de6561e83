"""The command palette (`ctrl+p`): every action of the workbench, and every document by title.

Titles are namespaced (`Document: …`, `Navigate: …`, `Open: <title>`) as posting does, so typing
a namespace narrows the list. Document titles are vault text: they are highlighted on a `Content`
built from the plain title, never through `Matcher.highlight`, which would parse them as markup.
"""

from __future__ import annotations

import asyncio
import heapq
import threading
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.fuzzy import FuzzySearch
from textual.markup import escape

from .palette_titles import PaletteTitles
from .screens.main import MainScreen

if TYPE_CHECKING:
    from ..core import Document

__all__ = ["ACTIONS", "DOCUMENT_HITS", "WorkbenchCommands", "best_documents"]

DOCUMENT_HITS = 40
"""The most `Open: <title>` hits one search offers: the best by score. Every title of a large vault
matched a letter of `Open:` (100,000 hits at the first key, each made into a line of the list on
the screen's thread: the palette stood still for a minute)."""

# (palette title, action on the main screen, help)
ACTIONS: tuple[tuple[str, str, str], ...] = (
    ("Search: focus the search box", "focus_search", "Type to search: words, typos, type:decision tag:money"),
    (
        "Document: lifecycle…",
        "lifecycle",
        "Change the status (or a task's execution state), with a diff before writing",
    ),
    ("Document: edit in $EDITOR", "edit", "Edit the file in your editor, then re-read and check it"),
    ("Document: toggle raw source", "toggle_raw", "Show the file's YAML and Markdown source, or the rendered document"),
    ("Document: open the successor", "successor", "Jump to the document that supersedes this one"),
    ("Vault: undo the last change", "undo", "Show the newest step, named, as a diff, then revert it"),
    (
        "Vault: redo the step undone last",
        "redo",
        "Show it as a diff, then re-apply it, if its files are as the undo left them",
    ),
    ("Vault: undo history…", "undo_history", "Every step undo and redo take, newest first, the position marked"),
    ("Vault: problems and repair…", "problems", "Every problem; open its file; repair with a preview"),
    ("Vault: conflicts queue…", "conflicts", "Contradictions, duplicates and stale links with their resolutions"),
    (
        "Vault: new document (write gate)…",
        "new_document",
        "Draft new knowledge; merge, supersede or create, with a diff first",
    ),
    ("Vault: consolidate notes…", "consolidate", "Fold groups of related notes into their canonical document"),
    (
        "Vault: inbox of what agents wrote…",
        "inbox",
        "Review agents' drafts, merges, proposals and requests to forget, one by one",
    ),
    (
        "Vault: sync with git…",
        "sync",
        "Commit, fetch, merge document by document, push; settle a waiting merge key by key",
    ),
    ("Navigate: back", "back", "The previously opened document"),
    ("Navigate: forward", "forward", "Forward again after going back"),
    ("Navigate: links pane", "focus_links", "Outgoing links and backlinks of this document"),
    ("Links: one link deeper", "links('deeper')", "List documents one more link away (up to 4)"),
    ("Links: one link shallower", "links('shallower')", "List documents one link less far away"),
    ("Links: filter by link type", "links('filter')", "Only one link type; again for the next, then all"),
    ("Links: context pack", "links('pack')", "What an agent reads about this document, in reading order"),
    ("View: maximise the pane", "maximise", "The focused pane takes the whole window (m; escape gives it back)"),
    ("View: restore the panes", "restore", "Show every pane again"),
    ("Workbench: keys", "app.show_keys", "Every key and what it does"),
    ("Workbench: quit", "app.quit", "Leave the workbench"),
)


class WorkbenchCommands(Provider):
    """Actions that apply now, plus `Open: <title>` for each valid document when searching."""

    def _main(self) -> MainScreen | None:
        """The main screen the palette was opened over; over a dialog, no actions apply."""
        return self.screen if isinstance(self.screen, MainScreen) else None

    def _key_of(self, action: str) -> str | None:
        """The key of the main screen that does `action` (as the user's keymap sets it), shown."""
        for binding in MainScreen.BINDINGS:
            if isinstance(binding, Binding) and binding.action == action:
                keys = self.app._keymap.get(binding.id, binding.key) if binding.id else binding.key
                return " ".join(self.app.get_key_display(Binding(key.strip(), "")) for key in keys.split(","))
        return None

    def _actions(self) -> list[tuple[str, Callable[[], object], str]]:
        """Each action that applies now, its help ending with its key, so the palette teaches it."""
        main = self._main()
        if main is None:
            return []
        found: list[tuple[str, Callable[[], object], str]] = []
        for title, action, help_text in ACTIONS:
            if action.startswith("app.") or main.check_action(action, ()):
                key = self._key_of(action)
                found.append(
                    (title, partial(main.run_action, action), f"{help_text}  ·  key {key}" if key else help_text)
                )
        return found

    def _highlight(self, query: str, text: str) -> Content:
        content = Content(text)
        score, offsets = self.matcher(query).fuzzy_search.match(query, text)
        if score:
            for offset in offsets:
                if not text[offset].isspace():
                    content = content.stylize("bold underline", offset, offset + 1)
        return content

    async def discover(self) -> Hits:
        for title, callback, help_text in self._actions():
            yield DiscoveryHit(Content(title), callback, text=title, help=escape(help_text))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, callback, help_text in self._actions():
            if (score := matcher.match(title)) > 0:
                yield Hit(score, self._highlight(query, title), callback, text=title, help=escape(help_text))
        main = self._main()
        if main is None or main.summary is None:
            return
        summary = main.summary
        # Matched in a thread: the screen answers keys meanwhile, and a search the next key
        # supersedes (Textual cancels it here) stops its thread at its next look.
        stop = threading.Event()
        try:
            found = await asyncio.to_thread(  # the texts too, made there the first time
                lambda: best_documents(
                    summary.documents, summary.open_texts, query, stop, titles=summary.palette_titles
                )
            )
        finally:
            stop.set()
        for score, doc, text in found:
            yield Hit(
                score * 0.9,
                self._highlight(query, text),
                partial(main.open_document, doc.id, focus="viewer"),
                text=text,
                help=escape(f"{doc.type} · {doc.status} · {doc.id}"),
            )


def best_documents(
    documents: Sequence[Document],
    texts: Sequence[str],
    query: str,
    stop: threading.Event | None = None,
    most: int = DOCUMENT_HITS,
    titles: PaletteTitles | None = None,
) -> list[tuple[float, Document, str]]:
    """(score, document, its text) of the `most` documents whose text (`Open: <title>`) matches
    `query` best, as the palette's matcher scores them, best first (ties in the vault's order);
    empty once `stop` is set. The matcher scores only the texts `titles` (made from `texts` if not
    given) picks as likeliest, at most `RANK_MOST` (`palette_titles.py`): every text holding the
    query's letters in order when no more do."""
    titles = titles if titles is not None else PaletteTitles(texts)
    picked = titles.candidates(query, stop)
    if picked is None:
        return []
    fuzzy = FuzzySearch(cache_size=64)  # one of its own: the screen's matcher is in use meanwhile
    best: list[tuple[float, int, str]] = []  # a heap: (score, -index, text), the worst first
    for index in picked:
        text = texts[index]
        score = fuzzy.match(query, text)[0]
        if score > 0:
            item = (score, -index, text)
            if len(best) < most:
                heapq.heappush(best, item)
            elif item > best[0]:
                heapq.heapreplace(best, item)
    return [(score, documents[-index], text) for score, index, text in sorted(best, reverse=True)]
