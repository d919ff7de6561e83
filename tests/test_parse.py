"""Reading is tolerant and bounded: odd bytes are kept, hostile YAML becomes a problem, quickly."""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.vocabulary.parse import _ZERO_PADDED, MAX_FILE_BYTES, _quick_reader, load_yaml, parse_bytes
from workbench.core.vocabulary.quickyaml import DECLINED

CORPORA = Path(os.environ.get("WORKBENCH_CORPORA", Path(__file__).resolve().parents[2] / "shared" / "corpora"))


def rebuild(parsed) -> bytes:
    return parsed.compose(parsed.fm_lines, parsed.body)


def test_split_keeps_every_byte():
    raw = "\ufeff---\r\ntitle: x\r\n---\r\nbody\r\n---\r\nnot frontmatter\r\n".encode()
    parsed = parse_bytes(raw)
    assert parsed.bom and parsed.newline == "\r\n"
    assert parsed.meta == {"title": "x"}
    assert parsed.body == "body\r\n---\r\nnot frontmatter\r\n"
    assert rebuild(parsed) == raw


def test_body_without_final_newline_is_kept():
    raw = b"---\ntitle: x\n---\nlast line"
    assert rebuild(parse_bytes(raw)) == raw


def test_a_file_without_frontmatter_is_all_body():
    parsed = parse_bytes(b"# heading\n")
    assert not parsed.has_frontmatter and parsed.body == "# heading\n"


def test_invalid_utf8_is_a_problem_with_its_line():
    parsed = parse_bytes(b"---\ntitle: x\n---\nok\nbad \xc3\x28 here\n")
    assert [i.code for i in parsed.issues] == ["encoding-invalid-utf8"]
    assert parsed.issues[0].line == 5


def test_a_huge_file_is_refused_without_parsing():
    parsed = parse_bytes(b"---\ntitle: x\n---\n" + b"a" * (MAX_FILE_BYTES + 1))
    assert [i.code for i in parsed.issues] == ["file-too-large"]


def test_a_million_line_frontmatter_is_bounded():
    raw = b"---\n" + b"k: v\n" * 1_000_000 + b"---\nbody\n"
    tracemalloc.start()
    parsed = parse_bytes(raw)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert parsed.issues and parsed.issues[0].code in ("frontmatter-unterminated", "frontmatter-too-large")
    assert peak < 200 * 1024 * 1024


def test_alias_bomb_is_reported():
    levels = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for i, name in enumerate("bcdefgh"):
        prev = "abcdefgh"[i]
        levels.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 10) + "]")
    parsed = parse_bytes(("---\n" + "\n".join(levels) + "\n---\n").encode())
    assert [i.code for i in parsed.issues] == ["yaml-too-complex"]


def test_deep_nesting_is_reported():
    assert parse_bytes(b"---\nx: " + b"[" * 100000 + b"\n---\n").issues[0].code == "yaml-too-deep"
    block = "".join("  " * i + f"k{i}:\n" for i in range(300))
    assert parse_bytes(("---\n" + block + "---\n").encode()).issues[0].code == "yaml-too-deep"


def test_unsafe_tags_are_not_constructed():
    parsed = parse_bytes(b"---\nx: !!python/object/apply:os.system ['echo pwned']\n---\n")
    assert parsed.meta is None and parsed.issues[0].code == "yaml-syntax"


def test_duplicate_keys_are_reported_with_their_line():
    parsed = parse_bytes(b"---\nid: a\ntitle: one\ntitle: two\n---\n")
    assert parsed.issues[0].code == "yaml-duplicate-key" and parsed.issues[0].line == 4


def test_conflict_markers_are_found():
    parsed = parse_bytes(b"---\ntitle: x\n---\n<<<<<<< HEAD\na\n=======\nb\n>>>>>>> theirs\n")
    assert parsed.issues[0].code == "conflict-markers" and parsed.issues[0].line == 4


# -- the quick reading of plain frontmatter gives what libyaml gives ------------------------------

KEYS = ["title", "id", "a-b", "_x", "Key2", "tags", "links", "status", "type", "target"]
ODD_KEYS = ["on", "yes", "null", "x.y", "<<", "1", "a b", "Yes", "NULL", "~", "0x1", "1e3", "2026-01-01", "1:20", "="]
# Values the quick reading takes (each resolved as YAML 1.1 would: bools, octal-looking numbers,
# dates that are no dates...) and values it must leave to libyaml (comments, escapes, anchors,
# block scalars, YAML's own line breaks); the test mixes them.
PLAIN = [
    "v1",
    "Invoice retry 12",
    "yes",
    "No",
    "on",
    "OFF",
    "true",
    "~",
    "null",
    "NULL",
    "0161",
    "0o7",
    "017",
    "1_000",
    "12",
    "1.5",
    ".inf",
    "-.INF",
    ".nan",
    "+1",
    "1e3",
    "1.0e+3",
    "0x1F",
    "2026-03-01",
    "2026-13-45",
    "2026-03-01 10:00:00",
    "2026-03-01T10:00:00Z",
    "a#b",
    "a:b",
    "C#",
    "'q''s'",
    "''",
    '"dq"',
    '""',
    "[a, b]",
    "[]",
    "[ ]",
    "{}",
    "[a b,  c ]",
    "[yes, 2026-03-01, 0161, ~, 1.5]",
    "http://x/y",
    "é日本",
    "a  b",
    "=",
    "1:20",
    "190:20:30.15",
    "0b1010",
    "-0x1F",
    "+.inf",
    "Yes",
    "yES",
    "NO",
    "Off",
    "y",
    "n",
    "2026-3-1",
    "2026-03-01 10:00",
    "2026-03-01t10:00:00.5-05:00",
    "2001-12-14 21:59:43.10 -5",
    "1_0.5",
    "0.",
    "._",
    "~x",
    "null x",
    "...",
    "a,b",
    "a]b",
    "a}b",
    "x: ",
    "ä:b",
]
ODD = [
    "-1",
    "a: b",
    "a #b",
    "x:",
    "'bad'x'",
    "'a' # c",
    '"a\\nb"',
    '"say "x""',
    "[a, 'b']",
    "{a: 1}",
    "[a, b,]",
    "[a:b]",
    "[a, [b]]",
    "[a] b",
    "[a: b]",
    "[x, a #b]",
    "[a'b]",
    '[a"b]',
    "[a}b]",
    "[a{b, c]",
    "[x, y:]",
    "a\u2028b",
    "x\u0085",
    "a\x7fb",
    "&anchor x",
    "*alias",
    "!tag x",
    "!!str 12",
    "|",
    ">-",
    "-x",
    "- x",
    "?x",
    "<<",
    "%x",
    "@x",
    "`x`",
    "a\tb",
]


@st.composite
def keys(draw) -> str:
    return draw(st.sampled_from(ODD_KEYS)) if draw(st.integers(0, 12)) == 0 else draw(st.sampled_from(KEYS))


@st.composite
def scalars(draw) -> str:
    return draw(st.sampled_from(ODD)) if draw(st.integers(0, 12)) == 0 else draw(st.sampled_from(PLAIN))


def _same(a, b) -> bool:
    """Equal and of the same types all the way down (True == 1 and 1.0 == 1 in Python)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b or (a != a and b != b)  # NaN is itself


def _line(draw_key: str, value: str) -> str:
    return f"{draw_key}: {value}" if value else f"{draw_key}:"


@st.composite
def frontmatters(draw) -> str:
    lines = []
    unique = iter(range(1000))  # a key drawn twice is mostly made another; a duplicate now and then

    def key() -> str:
        name = draw(keys())
        return name if name in ODD_KEYS or draw(st.integers(0, 12)) == 0 else f"{name}{next(unique)}"

    for _ in range(draw(st.integers(1, 6))):
        shape = draw(st.sampled_from(["scalar"] * 6 + ["list", "items", "mapping", "odd"]))
        if shape == "scalar":
            lines.append(_line(key(), draw(scalars())))
        elif shape == "odd":
            odd = ["# a comment", "", "  ", "  continued", "- loose", "key :x", "key:x", "  # indented"]
            lines.append(draw(st.sampled_from(odd)))
        else:
            lines.append(f"{key()}:")
            dash = draw(st.sampled_from(["", "  ", "    ", " "]))
            for _ in range(draw(st.integers(0, 3))):
                if shape == "list":
                    lines.append(f"{dash}{draw(st.sampled_from(['- '] * 6 + ['-  ', '-']))}{draw(scalars())}")
                elif shape == "items":
                    bullet = draw(st.sampled_from(["- "] * 6 + ["-  ", "-"]))
                    lines.append(f"{dash}{bullet}{_line(key(), draw(scalars()))}")
                    for _ in range(draw(st.integers(0, 2))):
                        indent = draw(st.sampled_from([dash + "  "] * 6 + [dash + "   ", dash + " ", dash]))
                        lines.append(indent + _line(key(), draw(scalars())))
                else:
                    indent = draw(st.sampled_from(["  "] * 6 + ["    ", "", " "]))
                    lines.append(indent + _line(key(), draw(scalars())))
                if draw(st.integers(0, 5)) == 0:
                    lines.append(draw(st.sampled_from(["", "  # note", "#", "   "])))
    return "\n".join(lines) + "\n"


@settings(max_examples=3000, deadline=None)
@given(frontmatters())
def test_quick_reading_gives_what_libyaml_gives(text):
    quick, quick_issue = load_yaml(text)
    full, full_issue = load_yaml(text, quick=False)
    assert (quick_issue is None) == (full_issue is None)
    if full_issue is None:
        assert _same(quick, full)
    else:
        assert quick_issue == full_issue


def _compare_frontmatters(folder: Path) -> int:
    """How many files under `folder` have frontmatter, each read the same by the quick reader and libyaml."""
    compared = 0
    for path in sorted(folder.rglob("*.md")):
        parsed = parse_bytes(path.read_bytes())
        if not parsed.has_frontmatter:
            continue
        quick, full = load_yaml(parsed.fm_text), load_yaml(parsed.fm_text, quick=False)
        assert _same(quick[0], full[0]) and quick[1] == full[1], path
        compared += 1
    return compared


def test_every_sample_frontmatter_reads_as_libyaml_reads_it():
    assert _compare_frontmatters(Path(__file__).resolve().parents[1] / "sample_vault") > 50


def test_every_corpus_frontmatter_reads_as_libyaml_reads_it():
    if not CORPORA.is_dir():
        pytest.skip(f"no corpora under {CORPORA} (set WORKBENCH_CORPORA to the folder holding them)")
    assert _compare_frontmatters(CORPORA) > 1000


# -- and what PyYAML's own safe loader gives, but where the workbench reads otherwise on purpose ----


def _as_the_safe_loader_reads(quick, safe) -> bool:
    """`quick` (the quick reading) equal, type for type, to `safe` (`yaml.load` with libyaml's safe
    loader), but for what the workbench reads otherwise on purpose: a zero-padded number stays as
    written (`supersedes: 0161` names record 0161) where YAML 1.1 reads an octal int."""
    if type(quick) is str and type(safe) is int and _ZERO_PADDED.fullmatch(quick):
        return int(quick.replace("_", ""), 8) == safe
    if type(quick) is not type(safe):
        return False
    if isinstance(quick, dict):
        return list(quick) == list(safe) and all(_as_the_safe_loader_reads(quick[k], safe[k]) for k in quick)
    if isinstance(quick, list):
        return len(quick) == len(safe) and all(_as_the_safe_loader_reads(x, y) for x, y in zip(quick, safe))
    return quick == safe or (quick != quick and safe != safe)


def _quick_against_the_safe_loader(text: str) -> bool:
    """Whether the quick reader took `text` (not every text is), and if it did, read it as the safe
    loader does. A text the safe loader refuses (a date that is no date, which the workbench keeps as
    text) is left to the test against the workbench's own libyaml reading above."""
    quick = _quick_reader().read(text)
    if quick is DECLINED:
        return False
    try:
        safe = yaml.load(text, Loader=yaml.CSafeLoader)  # noqa: S506 - the safe loader
    except (yaml.YAMLError, ValueError):
        return False
    assert _as_the_safe_loader_reads(quick, safe), text
    return True


@settings(max_examples=3000, deadline=None)
@given(frontmatters())
def test_quick_reading_gives_what_the_safe_loader_gives(text):
    _quick_against_the_safe_loader(text)


def test_quick_reading_of_every_sample_and_corpus_frontmatter_is_the_safe_loaders():
    folders = [Path(__file__).resolve().parents[1] / "sample_vault"] + ([CORPORA] if CORPORA.is_dir() else [])
    taken = 0
    for folder in folders:
        for path in sorted(folder.rglob("*.md")):
            parsed = parse_bytes(path.read_bytes())
            if parsed.has_frontmatter:
                taken += _quick_against_the_safe_loader(parsed.fm_text)
    assert taken > (1000 if CORPORA.is_dir() else 50)
