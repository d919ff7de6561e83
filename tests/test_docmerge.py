"""The document-aware three-way merge git runs for the vault's Markdown files."""

from __future__ import annotations

import datetime as dt
import string
import subprocess
import sys
from textwrap import dedent

from hypothesis import example, given, settings
from hypothesis import strategies as st

from workbench.core.editing.docmerge import CONFLICTS_KEY, MARKERS, body_conflicts, merge_document, resolve_body
from workbench.core.vocabulary.parse import parse_bytes
from workbench.core.editing.yamledit import apply_meta

BASE = dedent("""\
    ---
    schema_version: v1
    id: mem-decision-retry
    type: decision
    title: Retry policy
    status: active
    created_at: 2026-04-01
    updated_at: 2026-04-01
    project: billing
    tags: [payments, retry]
    links:
      - type: depends_on
        target: mem-entity-queue
    supersedes: []
    superseded_by: []
    provenance:
      source: manual
      confidence: high
    ---
    # Retry policy

    Retry three times.

    Back off exponentially.

    Give up after an hour.
    """)


def edit(text: str, *pairs: tuple[str, str]) -> bytes:
    for old, new in pairs:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text.encode()


def meta_of(data: bytes) -> dict:
    parsed = parse_bytes(data)
    assert parsed.meta is not None, parsed.issues
    return parsed.meta


def test_different_keys_and_paragraphs_merge_without_a_question():
    ours = edit(
        BASE,
        ("title: Retry policy", "title: Retry policy for payments"),
        ("Retry three times.", "Retry five times."),
        ("updated_at: 2026-04-01", "updated_at: 2026-05-02"),
    )
    theirs = edit(
        BASE,
        ("confidence: high", "confidence: medium"),
        ("Give up after an hour.", "Give up after a day."),
        ("updated_at: 2026-04-01", "updated_at: 2026-05-01"),
    )
    result = merge_document(BASE.encode(), ours, theirs)
    assert result.clean
    meta = meta_of(result.data)
    assert meta["title"] == "Retry policy for payments"
    assert meta["provenance"] == {"source": "manual", "confidence": "medium"}
    assert meta["updated_at"] == dt.date(2026, 5, 2)
    text = result.data.decode()
    assert "Retry five times." in text and "Give up after a day." in text
    assert merge_document(BASE.encode(), theirs, ours).data.decode().count("\n") == text.count("\n")


def test_lists_are_joined_keeping_additions_and_removals_of_each_side():
    ours = edit(BASE, ("tags: [payments, retry]", "tags: [payments, retry, ops]"))
    theirs = edit(
        BASE,
        ("tags: [payments, retry]", "tags: [payments, backoff]"),
        (
            "    target: mem-entity-queue\n",
            "    target: mem-entity-queue\n  - type: related_to\n    target: mem-note-x\n",
        ),
    )
    result = merge_document(BASE.encode(), ours, theirs)
    assert result.clean
    meta = meta_of(result.data)
    assert meta["tags"] == ["payments", "ops", "backoff"]
    assert meta["links"] == [
        {"type": "depends_on", "target": "mem-entity-queue"},
        {"type": "related_to", "target": "mem-note-x"},
    ]


def test_the_same_key_changed_on_both_sides_keeps_both_values_in_valid_yaml():
    ours = edit(BASE, ("title: Retry policy", "title: 'Retry: ours'"))
    theirs = edit(BASE, ("title: Retry policy", "title: Retry, theirs [draft]"))
    result = merge_document(BASE.encode(), ours, theirs)
    assert [c.key for c in result.conflicts] == ["title"]
    meta = meta_of(result.data)
    assert meta["title"] == "Retry: ours"
    assert meta[CONFLICTS_KEY]["title"] == {
        "reason": "changed on both sides",
        "base": "Retry policy",
        "ours": "Retry: ours",
        "theirs": "Retry, theirs [draft]",
    }
    head = result.data.decode().split("\n---\n")[0]
    assert not any(marker in head for marker in MARKERS)


def test_a_nested_key_conflict_is_named_by_its_path():
    ours = edit(BASE, ("confidence: high", "confidence: low"))
    theirs = edit(BASE, ("confidence: high", "confidence: medium"))
    result = merge_document(BASE.encode(), ours, theirs)
    assert [c.key for c in result.conflicts] == ["provenance.confidence"]


def test_the_same_lines_changed_on_both_sides_are_marked_in_the_body_only():
    ours = edit(BASE, ("Back off exponentially.", "Back off linearly."), ("tags: [payments, retry]", "tags: [x]"))
    theirs = edit(BASE, ("Back off exponentially.", "Back off with jitter."))
    result = merge_document(BASE.encode(), ours, theirs)
    assert [c.key for c in result.conflicts] == ["body"]
    parsed = parse_bytes(result.data)
    assert parsed.meta is not None and parsed.meta["tags"] == ["x"]
    assert not any(marker in parsed.fm_text for marker in MARKERS)
    assert body_conflicts(parsed.body) == [
        ("Back off linearly.\n", "Back off exponentially.\n", "Back off with jitter.\n")
    ]
    assert "Back off with jitter.\n" in resolve_body(parsed.body, "theirs")
    both = resolve_body(parsed.body, "both")
    assert "Back off linearly.\nBack off with jitter.\n" in both and not any(m in both for m in MARKERS)


def test_a_supersession_on_one_side_and_an_edit_on_the_other_goes_to_a_person():
    ours = edit(
        BASE, ("status: active", "status: superseded"), ("superseded_by: []", "superseded_by: [mem-decision-retry-v2]")
    )
    theirs = edit(BASE, ("Retry three times.", "Retry four times."))
    result = merge_document(BASE.encode(), ours, theirs)
    assert [c.key for c in result.conflicts] == ["body"]
    meta = meta_of(result.data)
    assert meta["status"] == "superseded" and meta["superseded_by"] == ["mem-decision-retry-v2"]
    assert body_conflicts(parse_bytes(result.data).body) == [
        ("Retry three times.\n", "Retry three times.\n", "Retry four times.\n")
    ]


def test_both_sides_adding_the_same_document_differently_is_merged_from_nothing():
    ours = edit(BASE, ("tags: [payments, retry]", "tags: [a]"))
    theirs = edit(BASE, ("tags: [payments, retry]", "tags: [b]"))
    result = merge_document(None, ours, theirs)
    assert result.clean and meta_of(result.data)["tags"] == ["a", "b"]


def test_a_list_item_with_a_comma_is_written_quoted_in_flow_style():
    lines = apply_meta(["tags: [a]\n"], {"tags": ["a"]}, {"tags": ["a", "b, c", "[x]"]})
    assert lines == ['tags: [a, "b, c", "[x]"]\n']


def test_git_runs_the_module_as_its_merge_driver(tmp_path):
    ours = edit(BASE, ("title: Retry policy", "title: Ours"))
    theirs = edit(BASE, ("title: Retry policy", "title: Theirs"))
    for name, data in (("base", BASE.encode()), ("ours", ours), ("theirs", theirs)):
        (tmp_path / name).write_bytes(data)
    done = subprocess.run(
        [sys.executable, "-m", "workbench.core.editing.docmerge", "base", "ours", "theirs", "decisions/x.md"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert "decisions/x.md: title: changed on both sides" in done.stderr
    assert meta_of((tmp_path / "ours").read_bytes())[CONFLICTS_KEY]["title"]["theirs"] == "Theirs"


# The property: random pairs of edits, each side's bytes kept, the YAML always valid.

TEXT = (
    st.text(alphabet=string.ascii_letters + string.digits + " :#,'\"[]{}-&*!|>%@`é", min_size=1, max_size=20)
    .map(str.strip)
    .filter(bool)
)
EDITS = st.one_of(
    st.tuples(st.just("title"), TEXT),
    st.tuples(st.just("tag+"), TEXT),
    st.tuples(st.just("tag-"), st.sampled_from(["payments", "retry"])),
    st.tuples(st.just("status"), st.sampled_from(["draft", "deprecated", "archived"])),
    st.tuples(st.just("updated"), st.dates(dt.date(2026, 4, 2), dt.date(2027, 1, 1))),
    st.tuples(st.just("confidence"), st.sampled_from(["low", "medium"])),
    st.tuples(st.just("extra"), TEXT),
    st.tuples(st.just("line"), st.tuples(st.integers(0, 8), TEXT)),
    st.tuples(st.just("append"), TEXT),
)


def apply_edits(edits: list) -> tuple[bytes, list[str], dict]:
    """One side's document after `edits`, the body lines it added and the keys it set."""
    parsed = parse_bytes(BASE.encode())
    meta = dict(parsed.meta)
    body = parsed.body.splitlines(keepends=True)
    added: list[str] = []
    for kind, value in edits:
        if kind == "title":
            meta["title"] = value
        elif kind == "tag+":
            meta["tags"] = [*meta["tags"], value] if value not in meta["tags"] else meta["tags"]
        elif kind == "tag-":
            meta["tags"] = [t for t in meta["tags"] if t != value]
        elif kind == "status":
            meta["status"] = value
        elif kind == "updated":
            meta["updated_at"] = value
        elif kind == "confidence":
            meta["provenance"] = {**meta["provenance"], "confidence": value}
        elif kind == "extra":
            meta["note"] = value
        elif kind == "line":
            at, text = value
            body[min(at, len(body)) : :] = [text + "\n", *body[min(at, len(body)) :]]
            added.append(text + "\n")
        elif kind == "append":
            body.append(value + "\n")
            added.append(value + "\n")
    lines = apply_meta(parsed.fm_lines, parsed.meta, meta, parsed.newline)
    return parsed.compose(lines, "".join(body)), added, meta


def kept(meta: dict, record: dict, key: str, side: str, value) -> bool:
    here = meta
    for part in key.split("."):
        here = here.get(part) if isinstance(here, dict) else None
    return here == value or (key in record and record[key].get(side) == value)


@settings(max_examples=150, deadline=None)
@given(st.lists(EDITS, max_size=5), st.lists(EDITS, max_size=5))
@example([], [("title", "||||||| base")])
def test_random_edit_pairs_lose_no_side_and_never_break_the_yaml(ours_edits, theirs_edits):
    base_meta = parse_bytes(BASE.encode()).meta
    sides = {"ours": apply_edits(ours_edits), "theirs": apply_edits(theirs_edits)}
    result = merge_document(BASE.encode(), sides["ours"][0], sides["theirs"][0])
    merged = parse_bytes(result.data)
    assert merged.meta is not None, merged.issues
    # A marker starts a line; a title that reads "||||||| base" is a side's value, kept quoted.
    assert not any(line.startswith(MARKERS) for line in merged.fm_text.splitlines())
    record = merged.meta.get(CONFLICTS_KEY, {})
    body_lines = set(merged.body.splitlines(keepends=True))
    dates = [sides[s][2]["updated_at"] for s in sides]
    assert merged.meta["updated_at"] == max(dates)
    for side, (_, added, meta) in sides.items():
        assert all(line in body_lines for line in added), (side, added)
        for tag in meta["tags"]:
            assert tag in merged.meta["tags"] or tag in base_meta["tags"]
        for key in ("title", "status", "note", "provenance.confidence"):
            value = meta.get(key) if "." not in key else meta["provenance"]["confidence"]
            was = base_meta.get(key) if "." not in key else base_meta["provenance"]["confidence"]
            if value != was:
                assert kept(merged.meta, record, key, side, value), (side, key, value)
    assert {c.key for c in result.conflicts} == set(record)


def test_an_unclosed_marked_place_is_kept_as_it_is_rather_than_guessed():
    body = "before\n<<<<<<< ours\nmine\n=======\ntheirs\n"
    assert resolve_body(body, "theirs") == body
    assert body_conflicts(body) == []
