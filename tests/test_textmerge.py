"""The three-way merge that carries a person's edits onto a newer version of a merged text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from workbench.core.editing.textmerge import merge3


def lines(prefix: str, count: int) -> list[str]:
    return [f"{prefix}{n}\n" for n in range(count)]


@st.composite
def two_edits(draw, apart: bool):
    """A base text and two replacements of line ranges, separated by at least one unchanged line
    when `apart`, overlapping otherwise."""
    size = draw(st.integers(3, 30))
    base = lines("base ", size)
    start_a = draw(st.integers(0, size - 3 if apart else size - 1))
    end_a = draw(st.integers(start_a, size - 2 if apart else size - 1))
    if apart:
        start_b = draw(st.integers(end_a + 1, size - 1))
    else:
        start_b = draw(st.integers(start_a, end_a))
    end_b = draw(st.integers(start_b + (0 if apart else 1), size)) if start_b < size else size
    ours = draw(st.integers(0 if apart else 1, 4))
    theirs = draw(st.integers(0 if apart else 1, 4))
    return base, (start_a, end_a, lines("ours ", ours)), (start_b, end_b, lines("theirs ", theirs))


def replaced(base: list[str], *edits) -> str:
    text = list(base)
    for start, end, new in sorted(edits, key=lambda e: -e[0]):
        text[start:end] = new
    return "".join(text)


@given(two_edits(apart=True))
def test_edits_to_different_lines_are_both_kept(case):
    base, mine, other = case
    expected = replaced(base, mine, other)
    assert merge3("".join(base), replaced(base, mine), replaced(base, other)) == expected
    assert merge3("".join(base), replaced(base, other), replaced(base, mine)) == expected


@given(two_edits(apart=False))
def test_different_edits_to_the_same_lines_are_refused(case):
    base, mine, other = case
    assert merge3("".join(base), replaced(base, mine), replaced(base, other)) is None


@given(st.text(), st.text())
def test_a_side_that_changed_nothing_gives_the_other(base, other):
    assert merge3(base, base, other) == other
    assert merge3(base, other, base) == other
    assert merge3(base, other, other) == other


def test_an_added_line_and_a_changed_line_elsewhere():
    base = "# Title\n\nFirst paragraph.\n\nSecond paragraph.\n"
    person = base + "\nPinned TZ=UTC in CI.\n"
    agent = base.replace("First paragraph.", "First paragraph, reviewed.")
    assert (
        merge3(base, person, agent)
        == "# Title\n\nFirst paragraph, reviewed.\n\nSecond paragraph.\n\nPinned TZ=UTC in CI.\n"
    )
