"""Reading plain frontmatter without libyaml, to exactly the values libyaml and PyYAML give.

Most frontmatter is top-level `key: value` lines, flow lists of plain words, block lists of small
mappings (a document's links) and one level of mapping (its provenance). Such text is read here
line by line, each plain scalar resolved and built by the loader's own resolver and constructors
(YAML 1.1's `yes`, octal-looking numbers, dates that are no dates, as the strict loader of `parse`
reads them); anything else, from a comment after a value to a quoted escape, an anchor, a
duplicate key or a multi-line scalar, is declined (`DECLINED`) and goes to libyaml as before.
Reading the YAML was most of what a first open costs per file beyond reading the file;
`tests/test_parse.py` holds the two readers to the same values, type for type, on generated
frontmatter and on every corpus.
"""

from __future__ import annotations

import functools
import re
from typing import Any

__all__ = ["DECLINED", "QuickReader"]

DECLINED: Any = object()  # what `QuickReader.read` answers for text it leaves to libyaml
_UNKNOWN: Any = object()  # a value not among those already resolved

_TEXT = "tag:yaml.org,2002:str"
_TYPES = frozenset(f"tag:yaml.org,2002:{name}" for name in ("bool", "null", "float", "int", "timestamp"))
_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?\Z")
_ITEM = re.compile(r"( *)- +(.*)\Z")
# What YAML reads otherwise than as text in a line: anything but printable characters (libyaml
# refuses them), its own line breaks (NEL, LS, PS) and a byte-order mark. Its ranges beyond ASCII
# take milliseconds to compile, in every process that imports this: compiled when first asked,
# and ASCII text (most frontmatter) asked with the same class's ASCII part alone.
_ODD_TEXT = "[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
_ODD_ASCII = re.compile("[^\n\x20-\x7e]")


@functools.cache
def _odd() -> re.Pattern[str]:
    return re.compile(_ODD_TEXT)


_PLAIN_START = frozenset("-?:,[]{}#&*!|>'\"%@`")
_FLOW_ODD = frozenset(",[]{}#:'\"")
_FLOW_ODD_FOUND = re.compile("[" + re.escape("".join(sorted(_FLOW_ODD))) + "]").search
_KNOWN_MOST = 4096


class QuickReader:
    """Plain frontmatter read with the resolver and scalar constructors of `loader` (a PyYAML
    loader class). A scalar whose first character starts none of YAML's implicit types (a title,
    an id, most words) is text without asking; the values of the others (dates, numbers, `yes`)
    are kept by their text, as they repeat from file to file and each is immutable."""

    def __init__(self, loader: type) -> None:
        import yaml

        self._node = yaml.ScalarNode
        self._loader = loader("")  # the resolver and constructors need an instance, not its input
        resolvers = self._loader.yaml_implicit_resolvers
        typed = None not in resolvers and not self._loader.yaml_path_resolvers
        self._typed_starts = frozenset(resolvers) if typed else None
        # The first characters after which a value is not text as it stands (YAML's indicators,
        # quotes, and the starts of its typed scalars); None where any character may start a
        # typed scalar, and every value then takes the scalar's calls.
        self._not_text_starts = _PLAIN_START | self._typed_starts if self._typed_starts is not None else None
        self._known: dict[str, Any] = {}
        self._text_keys: set[str] = set()  # keys known to be plain text, which repeat from file to file

    def read(self, text: str) -> Any:
        """The mapping `text` holds, or `DECLINED`."""
        if "\t" in text or "\r" in text or (_ODD_ASCII if text.isascii() else _odd()).search(text):
            return DECLINED
        found: dict[str, Any] = {}
        lines = text.split("\n")
        at, count = 0, len(lines)
        match_key = _KEY.match
        while at < count:
            line = lines[at]
            at += 1
            matched = match_key(line)
            if matched is None:  # a blank line or a comment, or nothing read here
                stripped = line.strip(" ")
                if not stripped or stripped[0] == "#":
                    continue
                return DECLINED
            key = matched.group(1)
            if key in found or (key not in self._text_keys and not self._text_key(key)):  # `on:`, `null:`
                return DECLINED
            rest = (matched.group(2) or "").rstrip(" ")
            if rest:
                if at < count and lines[at][:1] == " " and lines[at].strip(" "):
                    return DECLINED  # a value continued on the next line
                value = self._value(rest)
            else:  # a block list or mapping below the key, or nothing
                block = []
                while at < count and (lines[at][:1] in (" ", "-") or not lines[at].strip(" ")):
                    below = lines[at].strip(" ")
                    if below and below[0] != "#":
                        block.append(lines[at])
                    at += 1
                if not block:
                    value = None
                elif _ITEM.match(block[0]):
                    value = self._list(block)
                else:
                    value = self._mapping(block)
            if value is DECLINED:
                return DECLINED
            found[key] = value
        return found if found else DECLINED

    def _text_key(self, key: str) -> bool:
        """Whether a plain key is text (`on:` and `null:` are not), remembered when it is."""
        if self._resolved(key) != key:
            return False
        if len(self._text_keys) < _KNOWN_MOST:
            self._text_keys.add(key)
        return True

    def _resolved(self, text: str) -> Any:
        """A plain scalar as YAML 1.1 types it."""
        if self._typed_starts is not None and text[0] not in self._typed_starts:
            return text
        found = self._known.get(text, DECLINED)
        if found is not DECLINED:
            return found
        tag = self._loader.resolve(self._node, text, (True, False))
        if tag == _TEXT:
            found = text
        elif tag in _TYPES:
            try:
                found = self._loader.yaml_constructors[tag](self._loader, self._node(tag, text))
            except Exception:  # noqa: BLE001 - a value its type refuses (`0b_`): libyaml's reading names the fault
                found = DECLINED
        if len(self._known) < _KNOWN_MOST:
            self._known[text] = found
        return found

    def _scalar(self, text: str, flow: bool = False) -> Any:
        """One scalar, already stripped of spaces: plain, or quoted without escapes."""
        first = text[0]
        if first == "'":
            inner = text[1:-1]
            if len(text) < 2 or text[-1] != "'" or "'" in inner.replace("''", "") or flow:
                return DECLINED
            return inner.replace("''", "'")
        if first == '"':
            inner = text[1:-1]
            if len(text) < 2 or text[-1] != '"' or '"' in inner or "\\" in inner or flow:
                return DECLINED
            return inner
        if first in _PLAIN_START or ": " in text or " #" in text or text[-1] == ":":
            return DECLINED
        if flow and any(c in _FLOW_ODD for c in text):
            return DECLINED
        return self._resolved(text)

    def _value(self, text: str) -> Any:
        """The value after `key: ` on one line: a scalar, a flow list of plain scalars, `{}`."""
        # Most values are text as they stand, or a date or a word seen in an earlier file: what
        # `_scalar` would answer, without its calls (what `_known` holds passed its checks).
        not_text_starts = self._not_text_starts
        if (
            not_text_starts is not None
            and text[0] not in not_text_starts
            and ": " not in text
            and " #" not in text
            and text[-1] != ":"
        ):
            return text
        known = self._known.get(text, _UNKNOWN)
        if known is not _UNKNOWN:
            return known
        if text[0] == "[":
            if text[-1] != "]":
                return DECLINED
            inner = text[1:-1].strip(" ")
            if not inner:
                return []
            values = []
            for item in inner.split(","):
                item = item.strip(" ")
                if not item:
                    return DECLINED
                # A word is text as it stands (as `_scalar` finds, without its call).
                if not_text_starts is None or item[0] in not_text_starts or _FLOW_ODD_FOUND(item):
                    item = self._scalar(item, flow=True)
                    if item is DECLINED:
                        return DECLINED
                values.append(item)
            return values
        if text[0] == "{":
            return {} if text == "{}" else DECLINED
        return self._scalar(text)

    def _key(self, line: str, seen: dict) -> tuple[str, str] | None:
        """(key, the value's text) of a `key: value` line whose key is plain text not seen before."""
        match = _KEY.match(line)
        if match is None:
            return None
        key = match.group(1)
        if key in seen or (key not in self._text_keys and not self._text_key(key)):  # `on:`, `null:`
            return None
        return key, (match.group(2) or "").rstrip(" ")

    def _list(self, lines: list[str]) -> Any:
        """A block list: `- value` items, or `- key: value` items continued by `key: value` lines."""
        items: list[Any] = []
        dash = ""
        mapping: dict[str, Any] | None = None
        for number, line in enumerate(lines):
            item = _ITEM.match(line)
            if item is not None:
                if number == 0:
                    dash = item.group(1)
                if item.group(1) != dash or line[len(dash) + 1 : len(dash) + 3] == "  ":
                    return DECLINED
                rest = item.group(2).rstrip(" ")
                mapping = None
                pair = self._key(rest, {})
                if pair is None:
                    value = self._value(rest) if rest else DECLINED
                    if value is DECLINED:
                        return DECLINED
                    items.append(value)
                    continue
                mapping = {}
                items.append(mapping)
            elif mapping is not None and line.startswith(dash + "  ") and line[len(dash) + 2] != " ":
                pair = self._key(line[len(dash) + 2 :], mapping)
            else:
                return DECLINED
            if pair is None or not pair[1] or (value := self._value(pair[1])) is DECLINED:
                return DECLINED
            mapping[pair[0]] = value
        return items

    def _mapping(self, lines: list[str]) -> Any:
        """A block mapping below a key: `key: value` lines, each indented alike."""
        indent = len(lines[0]) - len(lines[0].lstrip(" "))
        found: dict[str, Any] = {}
        for line in lines:
            if not indent or line[:indent].strip(" ") or line[indent] == " ":
                return DECLINED
            pair = self._key(line[indent:], found)
            if pair is None or not pair[1] or (value := self._value(pair[1])) is DECLINED:
                return DECLINED
            found[pair[0]] = value
        return found
