"""Reading one vault file: bytes to frontmatter and body, tolerant of what careless writers leave.

A file is split, never rewritten, on the way in: the byte-order mark, the line endings and every
byte of the body are kept so that a later write can reproduce them. YAML is loaded with the safe
loader inside limits, so an alias bomb, a huge or deeply nested block, duplicate keys or git
conflict markers become problems rather than hangs, crashes or silent data loss.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from .quickyaml import DECLINED, QuickReader

__all__ = [
    "ParsedFile",
    "parse_bytes",
    "load_yaml",
    "YamlIssue",
    "digest_of",
    "MAX_FILE_BYTES",
    "CONFLICT_MARKER",
    "loose_meta",
    "as_date",
    "value_text",
]

BOM = "\ufeff"
MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_FRONTMATTER_BYTES = 256 * 1024
MAX_FRONTMATTER_LINES = 5000
MAX_YAML_NODES = 20000
MAX_NESTING = 64
DELIMITER = "---"
CONFLICT_MARKER = re.compile(r"^(?:<{7}|={7}|>{7})(?:[ \t]|\r?$)", re.MULTILINE)
_CONFLICT_RUNS = ("<" * 7, "=" * 7, ">" * 7)
# A line that closes the frontmatter: `---` or `...`, then only whitespace (as `str.rstrip` sees it).
_CLOSING_LINE = re.compile(r"^(?:---|\.\.\.)[^\S\n]*$", re.MULTILINE)
# The opening line may carry a YAML comment after the marker (`--- # from the agent`), as YAML allows.
_COMMENTED_OPENING = re.compile(r"---[ \t]+#.*")

_TOP_KEY = re.compile(r"([A-Za-z_][\w.-]*)\s*:")


class _DuplicateKey(Exception):
    def __init__(self, key: str, line: int):
        self.key, self.line = key, line
        super().__init__(f"duplicate key {key!r}")


class _Unusual(Exception):
    """A node the quick construction leaves to PyYAML's own: a merge key, a complex key, a tag
    beyond the plain scalars, lists and mappings."""


_MAP, _SEQ, _STR = "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"


def _number(loader, node):
    """A zero-padded number stays as written: `supersedes: 0161` names record 0161, where YAML 1.1
    would read the octal 113."""
    if _ZERO_PADDED.fullmatch(node.value):
        return node.value
    return loader.construct_yaml_int(node)


def _timestamp(loader, node):
    """A date that is no date (`created: 2021-26-02`) stays text, for the rules to name, rather
    than failing the whole frontmatter."""
    try:
        return loader.construct_yaml_timestamp(node)
    except ValueError:
        return node.value


def _scalar_constructors(safe: type) -> dict[str, Any]:
    """The constructor of each plain scalar tag: PyYAML's own, but for numbers and dates."""
    scalars: dict[str, Any] = {
        f"tag:yaml.org,2002:{name}": getattr(safe, f"construct_yaml_{name}") for name in ("bool", "null", "float")
    }
    scalars["tag:yaml.org,2002:int"] = _number
    scalars["tag:yaml.org,2002:timestamp"] = _timestamp
    return scalars


def _refuse_repeated_keys(key_nodes: list[Any], scalar: Any) -> None:
    """Raise `_DuplicateKey` at the second of two scalar keys with the same tag and text."""
    seen: set[tuple[str, str]] = set()
    for key_node in key_nodes:
        if isinstance(key_node, scalar):
            key = (key_node.tag, key_node.value)
            if key in seen:
                raise _DuplicateKey(key_node.value, key_node.start_mark.line)
            seen.add(key)


@functools.cache
def _strict_loader() -> type:
    """The loader, made when the first frontmatter is parsed rather than at import: PyYAML was a
    tenth of the imports before the first titles, and opening a vault whose derived store is in
    place parses no file."""
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    scalars = _scalar_constructors(yaml.constructor.SafeConstructor)

    class StrictLoader(base):  # type: ignore[misc, valid-type]
        """The safe loader, refusing a mapping that names one key twice (YAML would keep the last).

        Frontmatter is mappings of plain scalars and lists, and PyYAML's general construction (state
        per node, generators for every list and mapping) cost a quarter of loading it. Such documents
        are built here directly, with the same constructors for each scalar; anything else (merge
        keys, complex keys, other tags) is built by PyYAML as before."""

        def construct_document(self, node):  # noqa: D102 - PyYAML hook
            try:
                return self._build(node, {})
            except _Unusual:
                return super().construct_document(node)

        def _build(self, node, built: dict[int, Any]) -> Any:
            known = built.get(id(node), built)  # an alias is the node itself: built once, shared
            if known is not built:
                return known
            tag = node.tag
            if tag == _STR and type(node) is yaml.ScalarNode:
                return node.value
            if tag == _MAP and type(node) is yaml.MappingNode:
                return self._build_mapping(node, built)
            if tag == _SEQ and type(node) is yaml.SequenceNode:
                sequence: list[Any] = []
                built[id(node)] = sequence
                sequence.extend([self._build(item, built) for item in node.value])
                return sequence
            construct = scalars.get(tag)
            if construct is None or type(node) is not yaml.ScalarNode:
                raise _Unusual
            value = built[id(node)] = construct(self, node)
            return value

        def _build_mapping(self, node, built: dict[int, Any]) -> dict[Any, Any]:
            keys = [key_node for key_node, _ in node.value]
            if any(type(key_node) is not yaml.ScalarNode or key_node.tag == _MERGE for key_node in keys):
                raise _Unusual
            _refuse_repeated_keys(keys, yaml.ScalarNode)  # every key first, as PyYAML's construct_mapping does
            mapping: dict[Any, Any] = {}
            built[id(node)] = mapping
            for key_node, value_node in node.value:
                mapping[self._build(key_node, built)] = self._build(value_node, built)
            return mapping

        def construct_mapping(self, node, deep=False):  # noqa: D102 - PyYAML hook
            _refuse_repeated_keys([key_node for key_node, _ in node.value], yaml.ScalarNode)
            return super().construct_mapping(node, deep=deep)

    for tag in ("int", "timestamp"):
        StrictLoader.add_constructor(f"tag:yaml.org,2002:{tag}", scalars[f"tag:yaml.org,2002:{tag}"])
    return StrictLoader


_ZERO_PADDED = re.compile(r"[-+]?0[0-7_]+")  # what YAML 1.1 resolves as an octal int


@functools.cache
def _quick_reader() -> QuickReader:
    return QuickReader(_strict_loader())


_LOOSE_KEY = re.compile(r"^([A-Za-z][\w-]*(?: [\w-]+)?)[ \t]*:[ \t]*(.*?)\s*$")


def loose_meta(fm_lines: list[str]) -> dict[str, str]:
    """What a frontmatter that is not valid YAML plainly says: each top-level `key: value` line,
    the value as text without its quotes (the first of a key kept). For reading only: such a
    frontmatter is never written back."""
    found: dict[str, str] = {}
    for line in fm_lines:
        match = _LOOSE_KEY.match(line)
        if match:
            value = match.group(2)
            if len(value) > 1 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            found.setdefault(match.group(1), value)
    return found


@dataclass(frozen=True)
class YamlIssue:
    code: str
    message: str
    line: int | None = None  # 0-based within the YAML text


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# Block collections nest by indentation, or compactly on one line (`- - - x`, `? ? x`), where each
# indicator counts as indentation; libyaml's composer recurses once per level either way.
_DEEP_INDENT = re.compile(r"^(?:[ \t]|[-?:](?=[ \t])){%d,}\S" % (MAX_NESTING * 4 + 1), re.MULTILINE)


def _nesting_too_deep(text: str) -> bool:
    """A cheap guard before libyaml, whose composer recurses once per level."""
    if _DEEP_INDENT.search(text):
        return True
    if text.count("[") + text.count("{") <= MAX_NESTING:
        return False
    depth = 0
    for char in text:
        if char in "[{":
            depth += 1
            if depth > MAX_NESTING:
                return True
        elif char in "]}":
            depth = max(0, depth - 1)
    return False


def _too_many_nodes(value: Any) -> bool:
    """Whether walking `value` visits more than MAX_YAML_NODES nodes: how an alias bomb shows."""
    stack, count = [value], 0
    while stack:
        item = stack.pop()
        count += 1
        if count > MAX_YAML_NODES:
            return True
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def load_yaml(text: str, quick: bool = True) -> tuple[Any, YamlIssue | None]:
    """Load YAML safely and within limits; never raises for bad input. Plain frontmatter is read
    without libyaml (`quickyaml`), to the same values; `quick=False` always asks libyaml."""
    # A character is at most four bytes: most texts are measured without being encoded.
    if len(text) * 4 > MAX_FRONTMATTER_BYTES and len(text.encode("utf-8", "surrogatepass")) > MAX_FRONTMATTER_BYTES:
        return None, YamlIssue(
            "frontmatter-too-large", f"frontmatter is larger than {MAX_FRONTMATTER_BYTES // 1024} KiB"
        )
    if _nesting_too_deep(text):
        return None, YamlIssue("yaml-too-deep", f"frontmatter nests deeper than {MAX_NESTING} levels")
    value = _quick_reader().read(text) if quick else DECLINED
    if value is not DECLINED:
        return value, None
    import yaml

    try:
        value = yaml.load(text, Loader=_strict_loader())  # noqa: S506 - a subclass of the safe loader
    except _DuplicateKey as exc:
        return None, YamlIssue("yaml-duplicate-key", f"key {exc.key!r} appears more than once", exc.line)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or str(exc)
        return None, YamlIssue("yaml-syntax", f"YAML syntax error: {problem}", mark.line if mark else None)
    except (yaml.YAMLError, RecursionError, ValueError, OverflowError) as exc:
        return None, YamlIssue("yaml-syntax", f"YAML error: {exc}".splitlines()[0])
    except Exception as exc:  # noqa: BLE001 - PyYAML's constructors fail so on a value unfit for its tag (`!!bool maybe`)
        return None, YamlIssue(
            "yaml-syntax", f"YAML error: a value does not fit its explicit tag ({type(exc).__name__})"
        )
    if "*" in text and _too_many_nodes(value):  # only aliases can make a small text expand
        return None, YamlIssue(
            "yaml-too-complex", f"frontmatter expands to more than {MAX_YAML_NODES} values (an alias bomb?)"
        )
    return value, None


@dataclass
class ParsedFile:
    """A file split into its parts so that `head + body` (with the BOM) rebuilds it exactly."""

    raw: bytes
    bom: bool = False
    newline: str = "\n"
    text: str = ""
    fm_lines: list[str] = field(default_factory=list)  # frontmatter lines with their endings
    opening: str = ""  # the opening delimiter line, with its ending
    closing: str = ""  # the closing delimiter line, with its ending
    body: str = ""
    meta: dict[str, Any] | None = None
    issues: list[YamlIssue] = field(default_factory=list)  # lines here are 1-based in the file
    decoded: bool = True
    _key_lines: dict[str, int] | None = field(default=None, repr=False)

    @property
    def has_frontmatter(self) -> bool:
        return bool(self.opening)

    @property
    def fm_text(self) -> str:
        return "".join(self.fm_lines)

    @property
    def digest(self) -> str:
        return digest_of(self.raw)

    def key_line(self, key: str) -> int | None:
        """The 1-based file line of a top-level key, for problems that point at it."""
        if self._key_lines is None:
            self._key_lines = {}
            for index, line in enumerate(self.fm_lines):
                match = _TOP_KEY.match(line)
                if match:
                    self._key_lines.setdefault(match.group(1), index + 2)
        return self._key_lines.get(key)

    def compose(self, fm_lines: list[str], body: str) -> bytes:
        text = self.opening + "".join(fm_lines) + self.closing + body
        return ((BOM if self.bom else "") + text).encode("utf-8")


def _first_bad_utf8_line(raw: bytes, error: UnicodeDecodeError) -> int:
    return raw.count(b"\n", 0, error.start) + 1


def parse_bytes(raw: bytes) -> ParsedFile:
    """Split a file's bytes; every difficulty becomes an issue on the result, never an exception."""
    parsed = ParsedFile(raw=raw)
    if len(raw) > MAX_FILE_BYTES:
        parsed.decoded = False
        parsed.issues.append(
            YamlIssue(
                "file-too-large",
                f"file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB, too large to be a memory document",
            )
        )
        return parsed
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        parsed.decoded = False
        parsed.text = raw.decode("utf-8", "replace")
        parsed.issues.append(
            YamlIssue("encoding-invalid-utf8", f"invalid UTF-8 at byte {exc.start}", _first_bad_utf8_line(raw, exc))
        )
        return parsed
    if text.startswith(BOM):
        parsed.bom, text = True, text[1:]
    parsed.text = text
    if "\x00" in text:
        parsed.issues.append(
            YamlIssue("nul-bytes", "file contains NUL bytes", text.count("\n", 0, text.index("\x00")) + 1)
        )
    first_end = text.find("\n")
    parsed.newline = "\r\n" if first_end > 0 and text[first_end - 1] == "\r" else "\n"
    # `in` is far quicker than the scan, and one character (found by `memchr`) quicker still.
    marker = CONFLICT_MARKER.search(text) if any(m[0] in text and m in text for m in _CONFLICT_RUNS) else None
    if marker:
        line = text.count("\n", 0, marker.start()) + 1
        parsed.issues.append(
            YamlIssue("conflict-markers", "git conflict marker: the file holds an unresolved merge", line)
        )
    opening_end = len(text) if first_end < 0 else first_end + 1
    first = text[:opening_end].rstrip("\r\n")
    if first.rstrip() != DELIMITER and not _COMMENTED_OPENING.fullmatch(first):
        parsed.body = text
        return parsed
    # The closing delimiter: the first such line after the opening one, within the line limit.
    found = _CLOSING_LINE.search(text, opening_end)
    closing = None
    if found and text.count("\n", opening_end, found.start()) <= MAX_FRONTMATTER_LINES:
        end = text.find("\n", found.start())
        closing = (found.start(), len(text) if end < 0 else end + 1)
    if closing is None:
        parsed.body = text
        lines_after = text.count("\n", opening_end) + (not text.endswith("\n"))
        limit = " within the first %d lines" % MAX_FRONTMATTER_LINES if lines_after > MAX_FRONTMATTER_LINES + 1 else ""
        parsed.issues.append(
            YamlIssue("frontmatter-unterminated", f"frontmatter opened on line 1 is never closed{limit}", 1)
        )
        return parsed
    parsed.opening = text[:opening_end]
    fm_text = text[opening_end : closing[0]]  # what `fm_text` joins its lines back to
    parsed.fm_lines = fm_text.splitlines(keepends=True)
    parsed.closing = text[closing[0] : closing[1]]
    parsed.body = text[closing[1] :]
    value, issue = load_yaml(fm_text)
    if issue:
        where = issue.line + 2 if issue.line is not None else None
        parsed.issues.append(YamlIssue(issue.code, issue.message, where))
        return parsed
    if value is None:
        value = {}
    if not isinstance(value, dict):
        parsed.issues.append(
            YamlIssue("frontmatter-not-mapping", f"frontmatter is a {type(value).__name__}, not a mapping of keys", 2)
        )
        return parsed
    parsed.meta = {str(k): v for k, v in value.items()}
    return parsed


def as_date(value: Any) -> dt.date | None:
    """A frontmatter date: a YAML date or a string of the form YYYY-MM-DD."""
    if isinstance(value, dt.datetime):
        return None
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            return None
    return None


def value_text(value: Any) -> str:
    """A frontmatter value as a message shows it: text quoted, a date or time in ISO form, never
    a Python repr (`datetime.datetime(...)` means nothing to the person reading it)."""
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if value is None:
        return "empty"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(value_text(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key}: {value_text(item)}" for key, item in value.items()) + "}"
    return str(value)
