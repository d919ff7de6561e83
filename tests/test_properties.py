"""Property tests: reading then writing is the identity, and an edit keeps every unrelated line."""

from __future__ import annotations

import dataclasses
import datetime as dt

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench import Vault
from workbench.core.vocabulary.parse import parse_bytes
from workbench.core.editing.yamledit import apply_meta, segments

slug = st.from_regex(r"[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,2}", fullmatch=True)
words = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=30)
body_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters="\r"), max_size=200
)


@st.composite
def documents(draw):
    """A Memory Core file in one of the many styles agents write, as (bytes, newline)."""
    doc_id = "mem-note-" + draw(slug)
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    tags = draw(st.lists(slug, max_size=4, unique=True))
    tag_style = draw(st.sampled_from(["flow", "block", "indented"]))
    if tag_style == "flow":
        tag_lines = [f"tags: [{', '.join(tags)}]"]
    else:
        pad = "" if tag_style == "block" else "  "
        tag_lines = ["tags:" if tags else "tags: []"] + [
            f"{pad}- {t}" + draw(st.sampled_from(["", "  # c"])) for t in tags
        ]
    title = draw(words)
    quoted = '"' + title.replace("\\", "\\\\").replace('"', '\\"') + '"'
    groups = [
        ["schema_version: v1"],
        [f"id: {doc_id}" + draw(st.sampled_from(["", "   # id"]))],
        ["type: note"],
        [f"title: {quoted}"],
        [f"status: {draw(st.sampled_from(['draft', 'active', 'deprecated', 'archived']))}"],
        ["created_at: 2026-01-02"],
        ["updated_at: " + draw(st.sampled_from(["2026-03-04", "'2026-03-04'"]))],
        ["project: demo"],
        tag_lines,
        ["links: []"],
        ["supersedes: []"],
        ["superseded_by: []"],
        ["provenance:", "  source: manual", "  confidence: " + draw(st.sampled_from(["high", "low"]))],
    ]
    if draw(st.booleans()):
        groups.insert(draw(st.integers(3, len(groups))), ["x-extra: {keep: [1, 2]}  # unknown key"])
    if draw(st.booleans()):
        groups.insert(draw(st.integers(3, len(groups))), ["# a loose comment"])
    lines = [line for group in groups for line in group]
    body = draw(body_text).replace("\n", newline)
    if draw(st.booleans()):
        body += newline + "---" + newline + "after a rule"
    bom = "\ufeff" if draw(st.booleans()) else ""
    text = bom + "---" + newline + newline.join(lines) + newline + "---" + newline + body
    return text.encode("utf-8"), doc_id


@given(documents())
@settings(max_examples=150)
def test_parse_then_compose_is_the_identity(doc):
    raw, _ = doc
    parsed = parse_bytes(raw)
    assert parsed.meta is not None, parsed.issues
    assert parsed.compose(parsed.fm_lines, parsed.body) == raw
    assert apply_meta(parsed.fm_lines, parsed.meta, dict(parsed.meta), parsed.newline) == parsed.fm_lines


edits = st.lists(
    st.one_of(
        st.tuples(st.just("status"), st.sampled_from(["draft", "active", "archived"])),
        st.tuples(st.just("title"), words),
        st.tuples(st.just("add-tag"), slug),
        st.tuples(st.just("drop-tag"), st.integers(0, 5)),
        st.tuples(st.just("link"), slug),
        st.tuples(st.just("confidence"), st.sampled_from(["high", "medium", "low"])),
        st.tuples(st.just("new-key"), words),
    ),
    min_size=1,
    max_size=4,
)


def edit_meta(meta, ops):
    meta = {k: (list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v) for k, v in meta.items()}
    for op, value in ops:
        if op == "status":
            meta["status"] = value
        elif op == "title":
            meta["title"] = value
        elif op == "add-tag" and value not in meta["tags"]:
            meta["tags"].append(value)
        elif op == "drop-tag" and meta["tags"]:
            meta["tags"].pop(value % len(meta["tags"]))
        elif op == "link":
            meta["links"].append({"type": "related_to", "target": "mem-entity-" + value})
        elif op == "confidence":
            meta["provenance"]["confidence"] = value
        elif op == "new-key":
            meta["reviewed_by"] = value
    return meta


@given(documents(), edits)
@settings(max_examples=200)
def test_random_edits_keep_every_unrelated_line(doc, ops):
    raw, _ = doc
    parsed = parse_bytes(raw)
    new_meta = edit_meta(parsed.meta, ops)
    lines = apply_meta(parsed.fm_lines, parsed.meta, new_meta, parsed.newline)
    result = parse_bytes(parsed.compose(lines, parsed.body))
    assert result.meta == new_meta
    assert result.body == parsed.body
    touched = {k for k in new_meta if k not in parsed.meta or new_meta[k] != parsed.meta[k]}
    untouched_lines = []
    for seg in segments(parsed.fm_lines):
        if seg.key not in touched:
            untouched_lines.extend(parsed.fm_lines[seg.start : seg.end])
    remaining = iter(lines)
    for line in untouched_lines:  # each unrelated line is still there, in the same order
        assert any(line == candidate for candidate in remaining), line


@given(documents())
@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_saving_an_unchanged_document_writes_nothing(tmp_path_factory, doc):
    raw, doc_id = doc
    root = tmp_path_factory.mktemp("vault")
    (root / "notes").mkdir()
    path = root / "notes" / f"{doc_id}.md"
    path.write_bytes(raw)
    vault = Vault.open(root)
    document = vault.get(doc_id)
    assert vault.save(dataclasses.replace(document)).empty
    assert path.read_bytes() == raw
    vault.save(dataclasses.replace(document, body=document.body + "!"))
    assert path.read_bytes().endswith((document.body + "!").encode())
    assert vault.get(doc_id).meta["updated_at"] in (dt.date.today(), dt.date.today().isoformat())
