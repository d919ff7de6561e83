"""The command palette's `Open: <title>` hits on a vault of many documents: the best few, matched
off the screen's thread, the same documents the palette's matcher ranks first."""

from __future__ import annotations

import random
import threading
import time

from textual.command import CommandPalette
from textual.fuzzy import FuzzySearch, Matcher
from tui_helpers import settle, type_text, wait_for

from workbench.tui.app import WorkbenchApp
from workbench.tui.commands import DOCUMENT_HITS, best_documents
from workbench.tui.palette_titles import BLOCK, RANK_MOST, PaletteTitles
from workbench.tui.widgets.viewer import DocumentViewer


async def until(pilot, condition, seconds: float = 30.0) -> None:
    """Wait for `condition` alone, not for the app's workers too (the conflicts queue's, say)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await pilot.pause(0.02)


def listed(app: WorkbenchApp) -> list[str]:
    return [str(option.prompt).split("\n")[0] for option in app.screen.query_one("CommandList").options]


async def test_the_palette_offers_the_best_titles_not_every_document(builder):
    # Every title matched a letter of `Open:`: on a large vault each key made a line for every
    # document on the screen's thread, and the palette stood still for a minute.
    for n in range(DOCUMENT_HITS + 30):
        builder.add(f"mem-note-paper-{n}")
    builder.add("mem-note-payments")
    app = WorkbenchApp(builder.root)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: app.screen.summary is not None)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await type_text(pilot, "p")
        await pilot.pause(0.5)
        opened = [line for line in listed(app) if line.startswith("Open: ")]
        assert len(opened) == DOCUMENT_HITS, len(opened)
        await type_text(pilot, "aym")
        await wait_for(pilot, lambda: any("payments" in line for line in listed(app)))
        assert [line for line in listed(app) if line.startswith("Open: ")][0] == "Open: Title of mem-note-payments"
        await pilot.press("enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, CommandPalette))
        viewer = app.screen.query_one(DocumentViewer)
        await wait_for(pilot, lambda: viewer.view is not None and viewer.view.document.id == "mem-note-payments")


class Titled:
    def __init__(self, doc_id: str) -> None:
        self.id = doc_id


def test_the_best_documents_are_those_the_palettes_matcher_ranks_first():
    rng = random.Random(3)
    words = ["payment", "paper", "queue", "api", "yaml", "open", "péage", "Straße", "x.y", "a*b"]
    texts = [f"Open: {' '.join(rng.choices(words, k=rng.randint(1, 4)))} {n}" for n in range(600)]
    documents = [Titled(f"doc-{n}") for n in range(len(texts))]
    for query in ["p", "pay", "opn", "ST", "a*", "x.y", "é", "zzz", "open: q", "ym 1"]:
        matcher = Matcher(query)
        scored = [(matcher.match(text), -n) for n, text in enumerate(texts)]
        expected = [(score, -minus) for score, minus in sorted(scored, reverse=True) if score > 0][:5]
        found = best_documents(documents, texts, query, most=5)
        assert [(score, int(doc.id.split("-")[1])) for score, doc, _ in found] == expected, query
        assert all(texts[int(doc.id.split("-")[1])] == text for _, doc, text in found)


def test_a_search_the_next_key_superseded_stops():
    stop = threading.Event()
    stop.set()
    texts = [f"Open: paper {n}" for n in range(2000)]
    assert best_documents([Titled(str(n)) for n in range(2000)], texts, "p", stop) == []


def full_ranking(texts: list[str], query: str, most: int) -> list[tuple[float, int]]:
    """(score, index) of the `most` best texts as the palette's matcher ranks every one."""
    matcher = Matcher(query)
    scored = [(matcher.match(text), -n) for n, text in enumerate(texts)]
    return [(score, -minus) for score, minus in sorted(scored, reverse=True) if score > 0][:most]


def many_titles(count: int) -> list[str]:
    rng = random.Random(5)
    words = ["payment", "paper", "queue", "api", "timeout", "monitor", "refund", "Straße", "x.y", "cache", "retry"]
    return [f"Open: {' '.join(rng.choices(words, k=rng.randint(1, 5)))} {n}" for n in range(count)]


def test_a_large_vaults_titles_are_scored_a_few_hundred_at_most(monkeypatch):
    # At 100,000 documents the matcher scored every title holding the query's letters in order
    # (most of them, for a short word): about ten seconds before the palette listed any.
    texts = many_titles(20_000)
    documents = [Titled(f"doc-{n}") for n in range(len(texts))]
    scored = []
    match = FuzzySearch.match
    monkeypatch.setattr(FuzzySearch, "match", lambda self, query, text: scored.append(text) or match(self, query, text))
    for query in ["p", "pay", "ue", "tmo", "rfd", "e r"]:
        scored.clear()
        found = best_documents(documents, texts, query)
        assert len(found) == DOCUMENT_HITS
        assert len(scored) <= RANK_MOST, (query, len(scored))


def test_a_large_vaults_best_titles_are_the_full_rankings():
    """Exactly the full ranking's whenever enough titles hold the query whole; else its best score."""
    texts = many_titles(6_000)
    documents = [Titled(f"doc-{n}") for n in range(len(texts))]
    titles = PaletteTitles(texts)
    for query in ["p", "pay", "ue", "ay", "o", "open", "ch", "x.y", "1", "tmo", "rfd", "e r", "zzz", "é"]:
        expected = full_ranking(texts, query, DOCUMENT_HITS)
        found = [
            (score, int(doc.id.split("-")[1]))
            for score, doc, _ in best_documents(documents, texts, query, titles=titles)
        ]
        held_whole = sum(query.lower() in text.lower() for text in texts)
        if held_whole >= DOCUMENT_HITS:
            assert found == expected, query
        else:
            assert found[:1] == expected[:1] or found[0][0] == expected[0][0], query
            assert len(found) == len(expected), query


def test_a_search_stops_between_blocks_of_titles():
    stop = threading.Event()
    titles = PaletteTitles(many_titles(3 * BLOCK))
    assert titles.candidates("rfd", stop) is not None
    stop.set()
    assert titles.candidates("rfd", stop) is None


async def test_the_palette_scores_a_few_hundred_titles_of_a_vault_of_more(builder, monkeypatch):
    # Each key scored every title holding its letters: at 100,000 documents, seconds a key.
    for n in range(1_000):
        builder.add(f"mem-note-paper-{n}")
    scored: list[str] = []
    match = FuzzySearch.match

    def counted(self, query: str, text: str):
        if text.startswith("Open: "):
            scored.append(text)
        return match(self, query, text)

    monkeypatch.setattr(FuzzySearch, "match", counted)
    app = WorkbenchApp(builder.root)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.screen.summary is not None)
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette))
        scored.clear()
        await type_text(pilot, "p")
        await until(pilot, lambda: len([line for line in listed(app) if line.startswith("Open: ")]) == DOCUMENT_HITS)
        await pilot.pause(0.2)
        # The titles ranked, then the page shown highlighted (the palette's own matcher).
        assert len(scored) <= RANK_MOST + DOCUMENT_HITS, len(scored)
