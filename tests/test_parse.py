"""Reading is tolerant and bounded: odd bytes are kept, hostile YAML becomes a problem, quickly."""

from __future__ import annotations

import tracemalloc

from workbench.core.parse import MAX_FILE_BYTES, parse_bytes


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
