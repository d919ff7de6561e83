"""Surgical edits of YAML frontmatter: change one key's lines and leave every other byte alone.

PyYAML cannot write back what it read (comments, quoting, flow style and key order are lost), and a
round-trip library still reflows what it does not understand. Frontmatter is small and flat, so the
workbench edits it as text: it finds the lines of one top-level key and rewrites only those, in the
style they already had (flow `[a, b]` stays flow, a block list keeps its indent and the comments of
items that stay). Every edit is checked by parsing the result; `apply_meta` refuses to return text
that does not load back to exactly the values asked for.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from typing import Any

from ..vocabulary.parse import load_yaml

__all__ = [
    "apply_meta",
    "render_frontmatter",
    "EditError",
    "render_scalar",
    "Segment",
    "segments",
    "render_flow",
]

# Characters YAML does not keep as they are inside a quoted scalar: NEL, LINE and PARAGRAPH
# SEPARATOR are line breaks to it (folded to a space on reading), and C0/C1 controls, DEL, a BOM and
# lone surrogates are not printable at all. JSON leaves several of them bare; they are written as
# YAML's escapes, which read back as the very character.
UNSAFE_IN_YAML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")
KEY_LINE = re.compile(r"^(?P<key>[A-Za-z_][A-Za-z0-9_.-]*)(?P<sep>\s*:)(?P<rest>(?:[ \t].*)?)$")
PLAIN_SAFE = re.compile(r"^[A-Za-z0-9_./()@+][A-Za-z0-9 _./,()'@+&-]*$")


class EditError(ValueError):
    """An edit whose result would not read back as intended; nothing is written."""


@dataclass
class Segment:
    key: str | None
    start: int
    end: int  # exclusive


def _line_text(line: str) -> str:
    return line.rstrip("\r\n")


def _is_continuation(text: str) -> bool:
    return text.startswith((" ", "\t", "- ")) or text == "-"


def segments(lines: list[str]) -> list[Segment]:
    """Top-level keys and the lines that carry their values; loose comments are their own segment."""
    result: list[Segment] = []
    current: Segment | None = None
    for index, line in enumerate(lines):
        text = _line_text(line)
        match = KEY_LINE.match(text)
        if match:
            current = Segment(match.group("key"), index, index + 1)
            result.append(current)
        elif current is not None and (not text.strip() or text.lstrip().startswith("#")):
            # Comments and blank lines inside a value (between two links, say) belong to it only
            # if content follows; before the next key they stay where they are.
            continue
        elif current is not None and _is_continuation(text):
            current.end = index + 1
        else:
            current = None
    # Lines between segments that no key claims stay where they are.
    return result


def render_scalar(value: Any, quote: str = "") -> str:
    """One YAML scalar, plain where that reads back the same, quoted otherwise."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    text = str(value)
    if quote == "'" and "\n" not in text and not UNSAFE_IN_YAML.search(text):
        return "'" + text.replace("'", "''") + "'"
    if quote != '"' and text and PLAIN_SAFE.match(text) and not text.endswith(" "):
        import yaml  # loaded by the first value written, not at start

        try:
            if yaml.safe_load(text) == text:
                return text
        except yaml.YAMLError:
            pass
    return UNSAFE_IN_YAML.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(text, ensure_ascii=False))


FLOW_INDICATORS = re.compile(r"[,\[\]{}]")


def render_flow(value: Any, nested: bool = False) -> str:
    """A value in flow style. Inside `[...]` or `{...}` a comma or bracket ends a plain scalar
    (`[a, b, c]` is three tags, not `a` and `b, c`), so such text is quoted there."""
    if isinstance(value, list):
        return "[" + ", ".join(render_flow(item, True) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{render_flow(k, True)}: {render_flow(v, True)}" for k, v in value.items()) + "}"
    if nested and isinstance(value, str) and FLOW_INDICATORS.search(value):
        return render_scalar(value, '"')
    return render_scalar(value)


def _render_block_item(value: Any, indent: str, newline: str) -> list[str]:
    """A block sequence item at `indent` ("  - "), maps spread over lines as agents write them."""
    if isinstance(value, dict) and value:
        lines = []
        pad = indent + "  "
        for number, (key, item) in enumerate(value.items()):
            prefix = f"{indent}- " if number == 0 else pad
            lines.append(f"{prefix}{render_scalar(key)}: {render_flow(item)}{newline}")
        return lines
    return [f"{indent}- {render_flow(value)}{newline}"]


def _render_key(key: str, value: Any, newline: str, style: str = "auto", indent: str = "  ") -> list[str]:
    if isinstance(value, dict) and value and style != "flow":
        lines = [f"{key}:{newline}"]
        for sub_key, sub_value in value.items():
            lines.append(f"{indent}{render_scalar(sub_key)}: {render_flow(sub_value)}{newline}")
        return lines
    if (
        isinstance(value, list)
        and value
        and (style == "block" or (style == "auto" and any(isinstance(v, dict) for v in value)))
    ):
        lines = [f"{key}:{newline}"]
        for item in value:
            lines.extend(_render_block_item(item, indent, newline))
        return lines
    return [f"{key}: {render_flow(value)}{newline}"]


def render_frontmatter(meta: dict[str, Any], newline: str = "\n") -> list[str]:
    """Fresh frontmatter lines for a new or rebuilt document: tags in flow style, links in block."""
    lines: list[str] = []
    for key, value in meta.items():
        style = "flow" if key == "tags" else "auto"
        lines.extend(_render_key(key, value, newline, style))
    return lines


def _split_comment(rest: str) -> tuple[str, str]:
    """Split the text after `key:` into its value and a trailing ` # comment`."""
    stripped = rest.lstrip()
    lead = rest[: len(rest) - len(stripped)]
    if stripped[:1] in ("'", '"'):
        quote = stripped[0]
        index = 1
        while index < len(stripped):
            if stripped[index] == "\\" and quote == '"':
                index += 2
                continue
            if stripped[index] == quote:
                if quote == "'" and stripped[index + 1 : index + 2] == "'":
                    index += 2
                    continue
                break
            index += 1
        value_end = index + 1
    else:
        match = re.search(r"\s+#", stripped)
        value_end = match.start() if match else len(stripped)
    return lead + stripped[:value_end], stripped[value_end:]


def _item_chunks(lines: list[str]) -> tuple[str, list[list[str]]] | None:
    """Split a block sequence's lines into items; None when the lines are not a simple sequence."""
    first = next(
        (_line_text(l) for l in lines if _line_text(l).strip() and not _line_text(l).lstrip().startswith("#")), None
    )
    if first is None or not first.lstrip().startswith("-"):
        return None
    indent = first[: len(first) - len(first.lstrip())]
    chunks: list[list[str]] = []
    for line in lines:
        text = _line_text(line)
        if (
            text.startswith(indent + "-")
            and not text.startswith(indent + "- " + " ")
            and len(text) - len(text.lstrip()) == len(indent)
        ):
            chunks.append([line])
        elif chunks:
            chunks[-1].append(line)
        else:
            return None
    return indent, chunks


def _edit_block_list(key_line: str, body: list[str], old: list[Any], new: list[Any], newline: str) -> list[str] | None:
    """Keep the lines of items that stay (with their comments), drop removed ones, and write new or
    changed ones where they stand, in the list's own indent: the old and new lists are aligned as
    sequences, so changing the first link never rewrites the second."""
    split = _item_chunks(body)
    if split is None:
        return None
    indent, chunks = split
    if len(chunks) != len(old):
        return None
    if not new:
        return [key_line.rstrip("\r\n").rstrip() + " []" + newline]
    kept: list[str] = []
    import difflib  # here: a process that edits no list need not import it

    matcher = difflib.SequenceMatcher(a=[_identity(v) for v in old], b=[_identity(v) for v in new], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for chunk in chunks[i1:i2]:
                kept.extend(chunk)
            continue
        for offset, value in enumerate(new[j1:j2]):
            edited = (
                _edit_item(chunks[i1 + offset], old[i1 + offset], value)
                if tag == "replace" and i1 + offset < i2
                else None
            )
            kept.extend(edited if edited is not None else _render_block_item(value, indent, newline))
    return [key_line] + kept


def _identity(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _edit_item(chunk: list[str], old: Any, new: Any) -> list[str] | None:
    """A mapping item whose keys stay and whose changed values are plain scalars on their own
    lines (`target: x  # why`): those values rewritten in place, every other byte (comments,
    quoting of the rest) kept. None when it is not that simple."""
    if not (isinstance(old, dict) and isinstance(new, dict)) or list(old) != list(new):
        return None
    lines = list(chunk)
    for key in (k for k in new if new[k] != old[k]):
        if isinstance(new[key], (dict, list)) or isinstance(old[key], (dict, list)):
            return None
        for number, line in enumerate(lines):
            text = _line_text(line)
            lead = len(text) - len(text.lstrip(" -")) if number == 0 else len(text) - len(text.lstrip())
            match = KEY_LINE.match(text[lead:])
            if match is None or match.group("key") != str(key):
                continue
            value_text, comment = _split_comment(match.group("rest"))
            inline = value_text.strip()
            if not inline or inline[0] in "|>&*![{":
                return None
            quote = inline[0] if inline[0] in "'\"" else ""
            rendered = render_scalar(new[key], quote)
            lines[number] = (
                f"{text[:lead]}{match.group('key')}{match.group('sep')} {rendered}{comment}{line[len(text) :]}"
            )
            break
        else:
            return None
    return lines


def _rewrite_segment(lines: list[str], segment: Segment, key: str, old: Any, new: Any, newline: str) -> list[str]:
    first = lines[segment.start]
    match = KEY_LINE.match(_line_text(first))
    assert match is not None
    value_text, comment = _split_comment(match.group("rest"))
    ending = first[len(_line_text(first)) :] or newline
    inline = value_text.strip()
    body = lines[segment.start + 1 : segment.end]
    prefix = match.group("key") + match.group("sep")
    if inline and inline[0] not in "|>&*!":
        # The value sits on the key's line: keep it there, in the same style, with its comment.
        if isinstance(new, (list, dict)) and new and (inline[0] not in "[{" or inline in ("[]", "{}")):
            return _render_key(key, new, newline)
        quote = inline[0] if inline[0] in "'\"" else ""
        rendered = render_flow(new) if isinstance(new, (list, dict)) else render_scalar(new, quote)
        return [f"{prefix} {rendered}{comment}{ending}"]
    if not inline and isinstance(old, list) and isinstance(new, list):
        edited = _edit_block_list(first, body, old, new, newline)
        if edited is not None:
            return edited
        indent = "  "
        split = _item_chunks(body)
        if split:
            indent = split[0]
        return _render_key(key, new, newline, "block", indent) if new else [f"{prefix} []{ending}"]
    if not inline and isinstance(old, dict) and isinstance(new, dict):
        return _edit_block_map(first, body, old, new, newline) or _render_key(key, new, newline)
    return _render_key(key, new, newline)


def _edit_block_map(key_line: str, body: list[str], old: dict, new: dict, newline: str) -> list[str] | None:
    """A nested mapping such as provenance: edit its own keys the same way, one level down."""
    texts = [_line_text(l) for l in body if _line_text(l).strip()]
    if not texts:
        return None
    indent = texts[0][: len(texts[0]) - len(texts[0].lstrip())]
    if not indent:
        return None
    dedented = [line[len(indent) :] if line.startswith(indent) else line for line in body]
    try:
        edited = _apply(dedented, old, new, newline)
    except EditError:
        return None
    return [key_line] + [indent + line if _line_text(line).strip() else line for line in edited]


def _insert_position(lines: list[str], segs: list[Segment], order: list[str], key: str) -> int:
    """Just after the nearest preceding key (in the wanted order) that the file already has."""
    by_key = {s.key: s for s in segs}
    position = order.index(key) if key in order else len(order)
    for previous in reversed(order[:position]):
        if previous in by_key:
            return by_key[previous].end
    for following in order[position + 1 :]:
        if following in by_key:
            return by_key[following].start
    return segs[-1].end if segs else len(lines)


def _apply(lines: list[str], old_meta: dict[str, Any], new_meta: dict[str, Any], newline: str) -> list[str]:
    lines = list(lines)
    order = list(new_meta.keys())
    for key in [k for k in old_meta if k not in new_meta]:
        seg = next((s for s in segments(lines) if s.key == key), None)
        if seg is None:
            raise EditError(f"cannot find the lines of key {key!r}")
        del lines[seg.start : seg.end]
    for key, value in new_meta.items():
        if key in old_meta and _same(old_meta[key], value):
            continue
        segs = segments(lines)
        seg = next((s for s in segs if s.key == key), None)
        if seg is None and key in old_meta:
            raise EditError(f"cannot find the lines of key {key!r}")
        if seg is None:
            at = _insert_position(lines, segs, order, key)
            if at > 0 and not lines[at - 1].endswith("\n"):
                lines[at - 1] += newline
            lines[at:at] = _render_key(key, value, newline, "flow" if key == "tags" else "auto")
        else:
            lines[seg.start : seg.end] = _rewrite_segment(lines, seg, key, old_meta[key], value, newline)
    return lines


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b if not isinstance(a, (list, dict)) else a == b


def apply_meta(lines: list[str], old_meta: dict[str, Any], new_meta: dict[str, Any], newline: str = "\n") -> list[str]:
    """Rewrite frontmatter lines from `old_meta` to `new_meta`, touching only the keys that differ.

    >>> apply_meta(["status: draft  # why\\n", "tags: [a]\\n"], {"status": "draft", "tags": ["a"]},
    ...            {"status": "active", "tags": ["a"]})
    ['status: active  # why\\n', 'tags: [a]\\n']
    """
    edited = _apply(lines, old_meta, new_meta, newline)
    loaded, issue = load_yaml("".join(edited))
    if issue is None and _normalised(loaded or {}) == _normalised(new_meta):
        return edited
    # The surgical edit did not read back as intended: rebuild just the keys that differ.
    fallback = list(lines)
    for key in old_meta:
        if key not in new_meta or not _same(old_meta[key], new_meta[key]):
            seg = next((s for s in segments(fallback) if s.key == key), None)
            if seg:
                replacement = _render_key(key, new_meta[key], newline) if key in new_meta else []
                fallback[seg.start : seg.end] = replacement
    for key, value in new_meta.items():
        if key not in old_meta:
            segs = segments(fallback)
            at = _insert_position(fallback, segs, list(new_meta), key)
            fallback[at:at] = _render_key(key, value, newline)
    loaded, issue = load_yaml("".join(fallback))
    if issue is None and _normalised(loaded or {}) == _normalised(new_meta):
        return fallback
    raise EditError("the edited frontmatter does not read back as intended; nothing was written")


def _normalised(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _normalised(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalised(v) for v in value]
    if isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    return value
