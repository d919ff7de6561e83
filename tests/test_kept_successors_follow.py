"""The likeliest successors followed after a change: the work it takes (rows read, decisions
profiled, shortlist members scored) bounded by the change, and the answer the plain pass's
through every kind of change, the kept answer given again only while it still holds."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tests import test_kept_successors as beside
from tests.test_kept_successors import STATUS, _answer, _append, asked_of
from workbench.core.services import kept_successors
from workbench.core.services.kept_conflicts import SUCCESSORS
from workbench.core.services.row_keys import row_of
from workbench.core.views.successors import Decisions, likeliest_among

records, vault = beside.records, beside.vault  # the fixtures of the tests beside: the same records


@dataclass
class Call:
    """One fresh open's pass from what the store kept, beside the plain pass."""

    plain: dict
    found: dict
    kept: kept_successors.KeptDecisions
    read: list[str]  # the keys of the rows read from the store
    lacking: list[str]


def _call(root: Path, dismissed: frozenset = frozenset()) -> Call:
    store, docs, related, lacking, owned = asked_of(root)
    read: list[str] = []

    def rows(keys: list[str]) -> dict[str, bytes]:
        read.extend(keys)
        return store.kept_rows(SUCCESSORS, keys)

    kept = kept_successors.KeptDecisions(rows)
    kept.load(store.kept(SUCCESSORS, "test"))
    found = kept_successors.likeliest_successors(docs, lacking, dismissed, kept, related, owned)
    assert found is not None
    if kept.moved:
        store.keep_with_rows(
            SUCCESSORS, "test", kept.dump(), kept.to_write(), replace=kept.whole, forget=kept.unnamed()
        )
    plain = likeliest_among(Decisions(docs.values()), lacking, dismissed=dismissed)
    return Call(_answer(plain), _answer(found), kept, read, lacking)


def test_nothing_changed_reads_no_row_and_scores_nothing(vault: Path) -> None:
    """No decision changed since the last call: its answer is given again, no row of what was
    kept read, no decision scored, nothing written."""
    first = _call(vault)
    assert first.kept.whole and any(first.plain.values())
    again = _call(vault)
    assert again.found == again.plain
    assert again.read == [] and again.kept.scored == 0 and again.kept.weighed == 0
    assert not again.kept.moved


def test_one_change_reads_and_profiles_in_proportion_to_it(vault: Path) -> None:
    """One decision changed: it alone is profiled, and the rows of decisions read are those of
    the decisions weighed again, not every row of them."""
    first = _call(vault)
    path = sorted(vault.glob("*.md"))[33]
    _append(path, "\nThe retry budget was raised after the outage review.\n")
    call = _call(vault)
    assert call.found == call.plain and not call.kept.whole
    assert call.kept.touched is not None and len(call.kept.touched) == 1
    document_rows = set(call.kept.document_rows) | set(first.kept.document_rows)
    read_rows = document_rows & set(call.read)
    assert len(read_rows) <= 1 + call.kept.weighed + len(call.lacking), len(read_rows)
    assert len(read_rows) * 10 < len({key for key in first.kept.document_rows if key})


def test_a_pair_dismissed_since_is_answered_again(vault: Path) -> None:
    """Nothing changed but a pair dismissed: the kept answer is not for these pairs, so the pass
    is worked out again, and leaves the pair out."""
    first = _call(vault)
    old = next(o for o, few in first.plain.items() if few)
    offered = first.plain[old][0][0]
    dismissed = frozenset({frozenset((old, offered))})
    call = _call(vault, dismissed)
    assert call.found == call.plain
    assert offered not in [s[0] for s in call.found[old]]
    assert call.kept.moved  # the answer for these pairs kept
    assert _call(vault, dismissed).read == []


def _rename(path: Path, name: str) -> Path:
    target = path.with_name(name)
    path.rename(target)
    return target


def test_equal_to_the_plain_pass_through_every_kind_of_change(vault: Path) -> None:
    """Edited, moved, deleted, a new record superseded naming no successor, a status moved either
    way: each call after a change, and the one after it with nothing changed, answers as the
    plain pass."""
    _call(vault)
    files = sorted(vault.glob("*.md"))
    live = [p for p in files if STATUS.search(p.read_text("utf-8"))]
    superseded = re.compile(r"(?im)^([-*\s]*status:\s*)superseded\b")

    def edit() -> None:
        _append(files[40], "\nThe tenant quota moved to the schema registry.\n")

    def move() -> None:
        _rename(files[41], files[41].name.replace(".md", "-moved.md"))

    def delete() -> None:
        files[42].unlink()

    def new_superseded() -> None:
        text = STATUS.sub(r"\1Superseded", live[5].read_text("utf-8"), count=1)
        (vault / "ADR-09998-a-new-record-superseded.md").write_text(text + "\nA new word: zanzibar.\n", "utf-8")

    def retired() -> None:  # a live decision deprecated: it replaces nothing now
        path = live[9]
        path.write_text(STATUS.sub(r"\1Deprecated", path.read_text("utf-8"), count=1), "utf-8")

    def revived() -> None:  # a record superseded without a successor made live again: asked no more
        path = next(p for p in files if p.exists() and superseded.search(p.read_text("utf-8")))
        path.write_text(superseded.sub(r"\1Accepted", path.read_text("utf-8"), count=1), "utf-8")

    for change in (edit, move, delete, new_superseded, retired, revived):
        change()
        call = _call(vault)
        assert call.found == call.plain, change.__name__
        assert call.kept.moved and not call.kept.whole, change.__name__
        again = _call(vault)
        assert again.found == again.plain and again.read == [], change.__name__


def test_an_id_outside_utf8_is_placed_in_a_row() -> None:
    """A file name that is not UTF-8 gives an id holding a lone surrogate: it has a row as any
    other id (the strict encoding of the CRC refused it)."""
    assert 0 <= row_of("ADR-0001-\udcff", kept_successors.DOCUMENT_ROWS) < kept_successors.DOCUMENT_ROWS
    assert row_of("ADR-0001", 1024) == kept_successors.row_of("ADR-0001", 1024)
