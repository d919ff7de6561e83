"""Fuzzing the reader: whatever bytes a file holds, parsing and checking it never raise.

Random bytes, and files built from the pieces careless writers and hostile inputs are made of
(fences, YAML fragments, mixed line endings, byte-order marks, NUL bytes, invalid UTF-8, deep
nesting, anchors and aliases, very long lines, tabs), and Memory Core documents whose values were
swapped for random YAML, go through `parse_bytes` and `build_record`: every fault must come back
as a problem on the file, never as an exception. A last test writes such files into a vault and
drives it through the Python API and the command line.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import re

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from vault_builders import doc_text

from workbench import Vault
from workbench.cli import main
from workbench.core.records.derived_store import row_for
from workbench.core.vocabulary.model import Problem, Severity
from workbench.core.vocabulary.parse import ParsedFile, load_yaml, parse_bytes
from workbench.core.records.record import INVALIDATING, build_record

ON = dt.date(2026, 5, 1)
CODE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")

# -- the pieces files are made of ---------------------------------------------------------------

BOM = b"\xef\xbb\xbf"
NEWLINES = st.sampled_from([b"\n", b"\r\n", b"\r", b"\n\n", b"\r\r\n", b"\n\r"])
FENCES = st.sampled_from(
    [b"---", b"--- ", b"---\t", b"...", b"----", b" ---", b"--- # c", b"--- !!map", b"---\xc2\xa0"]
)
INVALID_UTF8 = st.sampled_from(
    [
        b"\xff",
        b"\xfe\xff",
        b"\xc3",
        b"\xc3(",
        b"\xe2\x82",
        b"\xed\xa0\x80",
        b"\xf4\x90\x80\x80",
        b"\xc0\xaf",
        b"\x80",
        b"\xf8\x88\x80\x80\x80",
    ]
)
FRAGMENTS = [
    "schema_version: v1",
    "id: mem-note-a",
    "id: mem-note-fuzz",
    "id: [x]",
    "id: 12",
    "id: ''",
    "type: note",
    "type: task",
    "title: x",
    "title: null",
    "title: ''",
    "status: active",
    "status: superseded",
    "status: live",
    "created_at: 2026-04-21",
    "created_at: 2026-02-30",
    "updated_at: 0000-01-01",
    "updated_at: 2026-04-21 10:00:00",
    "created_at: 9999-12-31",
    "project: demo",
    "tags: [a, b",
    "tags: {a: 1}",
    "tags:\n  - a\n  -  - b",
    "links: [{type: related_to, target: mem-entity-x}]",
    "links:\n  - type: explains\n    target: ../../etc/passwd",
    "links: [{type: [x], target: {y: z}}]",
    "links: mem-note-b",
    "supersedes: mem-note-b",
    "superseded_by: [mem-note-c, 1]",
    "provenance:\n  source: claude\n  confidence: high",
    "provenance: {source: manual, confidence: [x]}",
    "provenance: [x]",
    "execution_state: weird",
    "execution_state: todo",
    "a: &a [1, 2]",
    "b: *a",
    "c: *missing",
    "<<: *a",
    "d: &d {x: *d}",
    "e: &e [*e]",
    "<<: [*a, *a]",
    "&anchor",
    "? [a, b]\n: c",
    "? |\n  block key\n: v",
    "{a: b}: c",
    "[a]: b",
    "k: v: w",
    "k:\tv",
    "\t- x",
    "- item",
    "-\t-\tx",
    "x: !!binary aGk=",
    "x: !!binary ***",
    "x: !!python/object/apply:os.system ['true']",
    "x: !!set {a, b}",
    "x: !!omap [a]",
    "x: !!bool maybe",
    "x: !!timestamp tomorrow",
    "x: !!int",
    "x: !!float ''",
    "x: !!int +",
    "x: !!str [a]",
    "x: !!map x",
    "x: !custom v",
    "x: 1e999",
    "x: .nan",
    "x: -.inf",
    "x: 0x1F",
    "x: 0o17",
    "x: 1:30:00",
    "x: ~",
    "x: 0b_",
    "x: |\n  block\n  text",
    "x: >-\n  folded",
    "x: |+\n\n",
    "x: 'unterminated",
    'x: "\\x"',
    'x: "\\u0000"',
    "x: '\x00'",
    "%YAML 1.1",
    "%YAML 2.0",
    "%TAG ! tag:x,2000:",
    "# comment",
    "#",
    ":",
    "? ",
    "- ",
    "[",
    "]",
    "{",
    "}",
    "*",
    "&",
    "!",
    "<<<<<<< HEAD",
    "=======",
    ">>>>>>> theirs",
    "\u2028",
    "\x85",
    "\x0c",
    "\x1b[2J",
    "[bold]markup[/]",
]
COUNTS = st.sampled_from([2, 63, 64, 65, 129, 1_000, 40_000]) | st.integers(1, 40_000)
DEEP = st.one_of(
    st.builds(
        lambda unit, count: unit * count,
        st.sampled_from([b"[", b"{", b"[{", b"{a: ", b"- ", b"? ", b"- [", b"  ", b"\t", b"- ? ", b"]"]),
        COUNTS,
    ),
    st.builds(
        lambda unit, count: b"x:\n  " + unit * count + b"y", st.sampled_from([b"- ", b"? ", b"- ? ", b"-\t"]), COUNTS
    ),
)
LONG_LINE = st.builds(
    lambda unit, count: b"x: " + unit * count,
    st.sampled_from([b"a", b"a ", b"\t", b"\\", b"'", b"#"]),
    st.integers(1_000, 300_000),
)


def alias_bomb(levels: int) -> bytes:
    names = "abcdefghij"
    lines = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    lines += [f"{n}: &{n} [" + ", ".join([f"*{p}"] * 9) + "]" for p, n in zip(names, names[1:levels])]
    return "\n".join(lines).encode()


TEXT_PIECES = st.one_of(
    st.sampled_from(FRAGMENTS).map(str.encode),
    FENCES,
    NEWLINES,
    st.text(max_size=40).map(str.encode),
    DEEP,
    LONG_LINE,
    st.integers(1, 9).map(alias_bomb),
)
RAW_PIECES = st.one_of(st.just(BOM), st.just(b"\x00"), INVALID_UTF8, st.binary(max_size=20))
PIECES = st.one_of(TEXT_PIECES, RAW_PIECES)


@st.composite
def structured(draw) -> bytes:
    """A file of pieces: often an opening fence, lines of pieces, a closing fence and a body; in one
    file of four, bytes that are not text (BOMs, NULs, invalid UTF-8) may be anywhere."""
    pieces = PIECES if draw(st.integers(0, 3)) == 3 else TEXT_PIECES
    opening = draw(
        st.sampled_from([b"---\n", b"---\n", BOM + b"---\n", b"---\r\n", BOM + b"---\r\n", b"", b"---\r", b"---"])
    )
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        if draw(st.integers(0, 2)):  # mostly whole lines of YAML, so that the loader gets to see them
            lines.append(
                draw(st.one_of(st.sampled_from(FRAGMENTS).map(str.encode), DEEP, st.integers(1, 9).map(alias_bomb)))
            )
        else:
            lines.append(b"".join(draw(st.lists(pieces, min_size=1, max_size=4))))
        lines.append(draw(NEWLINES))
    closing = draw(
        st.sampled_from([b"\n---\n", b"\n---\n", b"\r\n---\r\n", b"\n...\n", b"\n--- \n", b"\n---", b"---\n", b""])
    )
    body = b"".join(draw(st.lists(pieces, max_size=4)))
    return opening + b"".join(lines) + closing + body


# Random YAML values, rendered as text, for the fields of an otherwise valid document.
SCALARS = st.one_of(
    st.sampled_from(
        [
            "null",
            "~",
            "''",
            '""',
            "true",
            "no",
            "0",
            "-1",
            "1e999",
            ".nan",
            "0x1F",
            "1:30",
            "2026-02-30",
            "2026-04-21",
            "2026-04-21 10:00:00",
            "2026-04-21T10:00:00Z",
            "0001-01-01",
            "9999-12-31",
            "!!binary aGk=",
            "!!set {a, b}",
            "*undefined",
            "&a x",
            "v1",
            "v2",
            "mem-note-a",
            "mem-note-zz",
            "../../etc/passwd",
            "/etc/shadow",
            "draft",
            "active",
            "superseded",
            "archived",
            "manual",
            "claude",
            "high",
            "todo",
            "related_to",
            "supersedes",
            "note",
            "task",
            "decision",
            "'quoted'",
            '"a\\tb"',
            "|-\n  block",
        ]
    ),
    st.text(max_size=20).map(json.dumps),
    st.integers().map(str),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda items: "[" + ", ".join(items) + "]"),
        st.dictionaries(st.sampled_from(["type", "target", "source", "confidence", "id", "a"]), inner, max_size=3).map(
            lambda d: "{" + ", ".join(f"{k}: {v}" for k, v in d.items()) + "}"
        ),
    ),
    max_leaves=6,
)


@st.composite
def mutated_documents(draw) -> bytes:
    """A valid Memory Core document with some values replaced, lines dropped or repeated, endings mixed."""
    doc_id = draw(st.sampled_from(["mem-note-a", "mem-task-b", "mem-decision-c", "mem-entity-d"]))
    extra = "execution_state: todo\n" if doc_id.startswith("mem-task") else ""
    lines = doc_text(doc_id, extra=extra, links="[{type: related_to, target: mem-entity-d}]").splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 5))):
        index = draw(st.integers(1, len(lines) - 3))  # a frontmatter line
        key, sep, _ = lines[index].partition(":")
        action = draw(st.sampled_from(["value", "value", "value", "drop", "repeat", "piece"]))
        if action == "value" and sep:
            lines[index] = f"{key}: {draw(VALUES)}\n"
        elif action == "drop":
            lines[index] = ""
        elif action == "repeat":
            lines[index] = lines[index] * 2
        elif action == "piece":
            lines[index] = draw(st.sampled_from(FRAGMENTS)) + "\n"
    newline = draw(st.sampled_from(["\n", "\r\n", "mixed"]))
    text = "".join(lines)
    if newline == "\r\n":
        text = text.replace("\n", "\r\n")
    elif newline == "mixed":
        text = text.replace("\n", "\r\n", draw(st.integers(1, 6)))
    raw = text.encode("utf-8")
    if draw(st.booleans()):
        raw = BOM + raw
    if draw(st.booleans()):
        at = draw(st.integers(0, len(raw)))
        raw = raw[:at] + draw(PIECES) + raw[at:]
    return raw


FILES = st.one_of(st.binary(max_size=2_000), structured(), mutated_documents())

# -- what must hold of every file ---------------------------------------------------------------


def check_parsed(raw: bytes, parsed: ParsedFile) -> None:
    assert isinstance(parsed, ParsedFile) and parsed.raw is raw
    for issue in parsed.issues:
        assert CODE.fullmatch(issue.code) and isinstance(issue.message, str) and issue.message, issue
        assert issue.line is None or (isinstance(issue.line, int) and issue.line >= 1), issue
    if parsed.meta is not None:
        assert isinstance(parsed.meta, dict) and all(isinstance(k, str) for k in parsed.meta)
        assert parsed.has_frontmatter
        assert {i.code for i in parsed.issues} <= {"nul-bytes", "conflict-markers"}, parsed.issues
    if not parsed.decoded:
        assert parsed.issues, "a file that cannot be decoded says why"
    elif parsed.has_frontmatter and parsed.meta is None:
        assert parsed.issues, "frontmatter that cannot be read says why"
    if parsed.decoded:  # the parts rebuild the file exactly: a later write can keep every byte
        assert parsed.compose(parsed.fm_lines, parsed.body) == raw


def checked_record(path: str, raw: bytes):
    return build_record(path, raw, len(raw), 1, ON)


# -- the parser -----------------------------------------------------------------------------------


@given(st.binary(max_size=4_000))
@settings(max_examples=250, deadline=None)
def test_random_bytes_never_raise(raw):
    check_parsed(raw, parse_bytes(raw))


@given(st.one_of(structured(), mutated_documents()))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
# Found by this test: explicit tags whose constructors fail with errors other than YAMLError.
@example(b"---\nx: !!bool maybe\n---\n")
@example(b"---\nx: !!timestamp tomorrow\n---\n")
@example(b"---\nx: !!int +\n---\n")
@example(b"---\nx: !!float ''\n---\n")
@example(b"---\nx: !!set [a]\n---\n")
# Found by this test: compact block nesting (no indentation, no brackets) overflowed libyaml's stack.
@example(b"---\nx:\n  " + b"- " * 40_000 + b"y\n---\n")
@example(b"---\n" + b"? " * 40_000 + b"y\n---\n")
def test_structured_files_never_raise(raw):
    check_parsed(raw, parse_bytes(raw))


@pytest.mark.parametrize("unit", [b"- ", b"? ", b"- ? "])
def test_compact_block_nesting_is_too_deep_not_a_crash(unit):
    parsed = parse_bytes(b"---\nx:\n  " + unit * 40_000 + b"y\n---\n")
    assert parsed.meta is None and [i.code for i in parsed.issues] == ["yaml-too-deep"]
    shallow = parse_bytes(b"---\nx:\n  " + b"- " * 20 + b"y\n---\n")  # a little nesting is still fine
    assert shallow.issues == [] and shallow.meta is not None


# -- the record builder ---------------------------------------------------------------------------


@given(FILES, st.sampled_from(["notes/mem-note-a.md", "tasks/mem-task-b.md", "mem-decision-c.md", "x/y/z.md"]))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@example(b"---\ntype: [x]\n---\n", "notes/mem-note-a.md")
def test_records_never_raise_and_every_fault_is_a_problem(raw, path):
    parsed = parse_bytes(raw)
    check_parsed(raw, parsed)
    record = checked_record(path, raw)
    doc = record.document
    assert record.path == path and doc.path == path and isinstance(doc.id, str) and doc.id
    assert doc.digest == parsed.digest and isinstance(doc.valid, bool)
    for problem in record.problems:
        assert isinstance(problem, Problem) and problem.path == path and problem.doc_id == doc.id
        assert problem.severity in set(Severity) and CODE.fullmatch(problem.code) and problem.message
    codes = {p.code for p in record.problems}
    assert {i.code for i in parsed.issues} <= codes
    if parsed.issues or parsed.meta is None:
        assert not doc.valid and codes & INVALIDATING
    assert doc.valid == (not codes & INVALIDATING)
    # What the search index, the graph and the screens read of any document.
    assert isinstance(doc.title, str) and isinstance(doc.type, str) and isinstance(doc.status, str)
    assert all(isinstance(t, str) for t in doc.tags) and all(
        isinstance(i, str) for i in doc.supersedes + doc.superseded_by
    )
    assert all(isinstance(link.type, str) and isinstance(link.target, str) for link in doc.links)
    row_for(record, ON)


PROVENANCE = "provenance:\n  source: manual\n  confidence: high\n"


@pytest.mark.parametrize(
    "old, new",
    [
        ("type: note\n", "type: [x]\n"),
        ("status: active\n", "status: {a: 1}\n"),
        (PROVENANCE, "provenance: {source: [x], confidence: high}\n"),
        (PROVENANCE, "provenance: {source: manual, confidence: {a: 1}}\n"),
    ],
)
def test_unhashable_enum_values_are_problems(old, new):
    raw = doc_text("mem-note-a").replace(old, new).encode()
    record = build_record("notes/mem-note-a.md", raw, len(raw), 1, ON)
    assert not record.document.valid


# -- a whole vault of them ------------------------------------------------------------------------


def run_cli_in_process(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


@given(st.lists(FILES, min_size=1, max_size=6))
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
def test_a_vault_of_random_files_opens_checks_and_searches(tmp_path_factory, files):
    root = tmp_path_factory.mktemp("fuzzed")
    (root / "entities").mkdir()
    (root / "entities" / "mem-entity-x.md").write_text(doc_text("mem-entity-x", body="x marks the spot\n"))
    folders = ["notes", "tasks", "decisions", "misc"]
    written = []
    for number, raw in enumerate(files):
        path = f"{folders[number % len(folders)]}/mem-note-fuzz{number}.md"
        (root / path).parent.mkdir(exist_ok=True)
        (root / path).write_bytes(raw)
        written.append(path)
    vault = Vault.open(root)
    problems = vault.problems
    hits = vault.search("x", limit=100)
    warm = Vault.open(root)  # from the derived store this time: the same records
    warm_problems = warm.problems
    paths = {r.path for r in vault.records}
    assert set(written) <= paths
    for record in vault.records:
        if not record.document.valid:  # every invalid file says why
            assert any(p.path == record.path for p in problems), record.path
    assert "mem-entity-x" in [h.id for h in hits]
    assert [(r.path, r.document.id, r.document.valid, r.document.digest) for r in warm.records] == [
        (r.path, r.document.id, r.document.valid, r.document.digest) for r in vault.records
    ]
    assert [p.to_json() for p in warm_problems] == [p.to_json() for p in problems]

    code, out, err = run_cli_in_process("--vault", str(root), "check")
    assert code in (0, 1) and "Traceback" not in out + err
    code, out, err = run_cli_in_process("--vault", str(root), "check", "--json")
    assert code in (0, 1) and json.loads(out)["documents"] == len(vault)
    code, out, err = run_cli_in_process("--vault", str(root), "search", "x", "--limit", "100", "--json")
    assert code == 0 and "mem-entity-x" in [hit["id"] for hit in json.loads(out)]


def _closing_line_by_line(text: str, opening_end: int, limit: int) -> tuple[int, int] | None:
    """The plain reading of where frontmatter closes: the first line, within `limit` lines after the
    opening one, that is `---` or `...` once its trailing whitespace is stripped."""
    position = opening_end
    for _ in range(limit + 1):
        if position >= len(text):
            return None
        end = text.find("\n", position)
        end = len(text) if end < 0 else end + 1
        if text[position:end].rstrip() in ("---", "..."):
            return position, end
        position = end
    return None


_LINES = st.sampled_from(
    ["---", "...", "--- ", "---\t", "---\r", "----", " ---", "...x", "a: b", "", "\x0c", "---\x85", "x\r"]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_LINES, max_size=12), st.booleans())
def test_the_closing_delimiter_is_found_where_a_line_by_line_reading_finds_it(lines, final_newline):
    text = "---\n" + "\n".join(lines) + ("\n" if final_newline and lines else "")
    parsed = parse_bytes(text.encode())
    expected = _closing_line_by_line(text, 4, 5000)
    if expected is None:
        assert not parsed.has_frontmatter and parsed.body == text
    else:
        assert parsed.closing == text[expected[0] : expected[1]]
        assert parsed.opening + parsed.fm_text + parsed.closing + parsed.body == text


class _PyYAMLConstruction(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """The reference: PyYAML's own construction, with the same refusal of a repeated key."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                if (key_node.tag, key_node.value) in seen:
                    raise yaml.YAMLError("duplicate key")
                seen.add((key_node.tag, key_node.value))
        return super().construct_mapping(node, deep=deep)


def _as_written_if_octal(loader, node):
    if re.fullmatch(r"[-+]?0[0-7_]+", node.value):
        return node.value
    return yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)


def _as_written_if_no_date(loader, node):
    try:
        return yaml.constructor.SafeConstructor.construct_yaml_timestamp(loader, node)
    except ValueError:
        return node.value


# Two departures from YAML 1.1 on purpose: `0161` is the text a person wrote (a record number, not
# the octal 113), and a date that is no date (`2026-02-30`) is text for the rules to name.
_PyYAMLConstruction.add_constructor("tag:yaml.org,2002:int", _as_written_if_octal)
_PyYAMLConstruction.add_constructor("tag:yaml.org,2002:timestamp", _as_written_if_no_date)


_SHAPES = [
    "base: &b {x: 1, y: [a, b]}\nchild:\n  <<: *b\n  y: 2",
    "a: &a [1, 2]\nb: *a\nc: *a",
    "d: &d {x: *d}",
    "e: &e [*e, 1]",
    "outer:\n  inner: {k: 1, k: 2}",
    "a: 1\na: 2",
    "? [a, b]\n: c",
    "x: !!set {a, b}",
    "x: !!omap [{a: 1}]",
    "x: !!binary aGk=",
    "when: 2026-04-21T10:00:00Z",
    "n: .nan\ni: 0o17\nj: 1_000\nk: 1:30\nf: 1e3",
    "s: !!str 12\nb: !!bool yes\nz: ~",
    "list:\n  - a\n  - {b: [c, {d: e}]}\n  - - f",
    "t: &t 2026-01-01\nu: *t",
    "'1': a\n1: b",
    "null: x\n~: y",
]


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(
            st.sampled_from(FRAGMENTS),
            st.sampled_from(_SHAPES),
            st.tuples(st.sampled_from(["a", "b", "id", "tags"]), VALUES).map(lambda kv: f"{kv[0]}: {kv[1]}"),
        ),
        max_size=6,
    )
)
def test_frontmatter_loads_to_what_pyyaml_itself_builds(lines):
    """The quick construction of plain frontmatter gives exactly PyYAML's values (types, shared
    aliases, recursion included), and fails where PyYAML fails."""
    text = "\n".join(lines)
    value, issue = load_yaml(text)
    try:
        expected, failed = yaml.load(text, Loader=_PyYAMLConstruction), False  # noqa: S506 - a safe loader
    except Exception:  # noqa: BLE001 - any failure of PyYAML's is what ours must match
        expected, failed = None, True
    if issue is not None and issue.code in ("yaml-too-deep", "yaml-too-complex", "frontmatter-too-large"):
        return  # refused before or after PyYAML on purpose
    assert (issue is not None) == failed, (text, issue, expected)
    if not failed:
        assert repr(value) == repr(expected) and _types(value) == _types(expected)


def _types(value, seen=None):
    seen = set() if seen is None else seen
    if id(value) in seen:
        return "recursive"
    if isinstance(value, dict):
        seen.add(id(value))
        return {repr(k): (type(k).__name__, _types(v, seen)) for k, v in value.items()}
    if isinstance(value, list):
        seen.add(id(value))
        return [_types(v, seen) for v in value]
    return type(value).__name__
