"""A three-way merge of one vault document that understands frontmatter: git's merge for `*.md`.

Git merges text line by line, so two machines that each changed a document's frontmatter end with
conflict markers inside the YAML: the file no longer parses and the document drops out of the
vault. This merge takes the document apart instead:

- frontmatter key by key: a key changed on one side is taken from that side; lists (tags, links,
  supersedes) are joined, keeping what either side added and dropping what either side removed;
  mappings (provenance) are merged key by key in turn; `updated_at` takes the later date;
- the body line by line (`textmerge.hunks`, the same three-way walk the rest of the store uses);
- a document superseded on one side whose text was edited on the other is a question for a
  person, never settled silently: the edit may belong in the successor instead.

What it cannot settle it keeps, both ways, and says so: a key both sides set to different values
keeps our value in place and all three (`base`, `ours`, `theirs`) under the `sync_conflicts` key,
so the YAML stays valid and the document stays in the vault; body lines both sides changed are
written between conflict markers in the body, never in the frontmatter. Every result is parsed
before it is returned. Git runs this module as the merge driver (`python -m
workbench.core.editing.docmerge %O %A %B %P`); `gitsync` calls `merge_document` in-process.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..vocabulary.model import CONFLICTS_KEY
from ..vocabulary.parse import ParsedFile, as_date, parse_bytes, value_text
from .textmerge import hunks
from .yamledit import EditError, apply_meta

__all__ = [
    "CONFLICTS_KEY",
    "MARKERS",
    "KeyConflict",
    "DocMerge",
    "merge_document",
    "merge_meta",
    "body_conflicts",
    "resolve_body",
    "main",
]

OURS, BASE, SPLIT, THEIRS = "<<<<<<< ours", "||||||| base", "=======", ">>>>>>> theirs"
MARKERS = (OURS, BASE, SPLIT, THEIRS)
LATER_WINS = frozenset({"updated_at"})


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


@dataclass(frozen=True)
class KeyConflict:
    """One thing a person must settle in one document: a frontmatter key (dotted for a nested
    one, `provenance.confidence`) or `body`."""

    key: str
    reason: str
    base: Any = MISSING
    ours: Any = MISSING
    theirs: Any = MISSING

    def describe(self) -> str:
        if self.key == "body":
            return f"body: {self.reason}"
        shown = (value_text(v) if v is not MISSING else "absent" for v in (self.ours, self.theirs))
        return f"{self.key}: {self.reason} (ours {next(shown)}, theirs {next(shown)})"


@dataclass(frozen=True)
class DocMerge:
    data: bytes
    conflicts: tuple[KeyConflict, ...] = ()

    @property
    def clean(self) -> bool:
        return not self.conflicts


def _canon(value: Any) -> str:
    """A text equal for equal YAML values and different across types (`1`, `true`, `"1"`)."""
    try:
        return json.dumps(value, sort_keys=True, default=lambda v: f"<{type(v).__name__}:{v}>")
    except TypeError:  # mixed key types in a nested mapping
        return repr(value)


def _same(a: Any, b: Any) -> bool:
    if a is MISSING or b is MISSING:
        return a is b
    return _canon(a) == _canon(b)


def _join_lists(base: list, ours: list, theirs: list) -> list:
    """Both sides' additions kept, both sides' removals made, in our order then theirs."""
    base_set = {_canon(v) for v in base}
    ours_set, theirs_set = {_canon(v) for v in ours}, {_canon(v) for v in theirs}
    joined, seen = [], set()
    for item in ours:
        key = _canon(item)
        if key in seen or (key in base_set and key not in theirs_set):
            continue
        seen.add(key)
        joined.append(item)
    for item in theirs:
        key = _canon(item)
        if key in seen or key in base_set and key not in ours_set:
            continue
        seen.add(key)
        joined.append(item)
    return joined


def _later(ours: Any, theirs: Any) -> Any:
    mine, other = as_date(ours), as_date(theirs)
    if mine is None or other is None:
        return MISSING
    return ours if mine >= other else theirs


def _key_order(ours: dict, theirs: dict) -> list[str]:
    """Our keys in our order, each key only theirs have placed after its predecessor there."""
    order = list(ours)
    previous = None
    for key in theirs:
        if key not in order:
            at = order.index(previous) + 1 if previous in order else len(order)
            order.insert(at, key)
        previous = key
    return order


def merge_meta(base: dict, ours: dict, theirs: dict, prefix: str = "") -> tuple[dict, list[KeyConflict]]:
    """The frontmatter mappings merged key by key, and what stays for a person (our value kept)."""
    merged: dict[str, Any] = {}
    conflicts: list[KeyConflict] = []
    for key in _key_order(ours, theirs):
        was, mine, other = base.get(key, MISSING), ours.get(key, MISSING), theirs.get(key, MISSING)
        path = prefix + str(key)
        value = _merge_value(path, was, mine, other, conflicts)
        if value is not MISSING:
            merged[key] = value
    return merged, conflicts


def _merge_value(path: str, was: Any, mine: Any, other: Any, conflicts: list[KeyConflict]) -> Any:
    if _same(mine, other) or _same(other, was):
        return mine
    if _same(mine, was):
        return other
    if path in LATER_WINS:
        later = _later(mine, other)
        if later is not MISSING:
            return later
    if isinstance(mine, list) and isinstance(other, list) and (was is MISSING or isinstance(was, list)):
        return _join_lists([] if was is MISSING else was, mine, other)
    if isinstance(mine, dict) and isinstance(other, dict) and (was is MISSING or isinstance(was, dict)):
        value, inner = merge_meta({} if was is MISSING else was, mine, other, prefix=path + ".")
        conflicts.extend(inner)
        return value
    if mine is MISSING or other is MISSING:
        reason = "removed on one side, changed on the other"
        conflicts.append(KeyConflict(path, reason, was, mine, other))
        return other if mine is MISSING else mine  # kept: a removal never loses the other's edit
    conflicts.append(KeyConflict(path, "changed on both sides", was, mine, other))
    return mine


def _superseded(meta: dict, base: dict) -> bool:
    """Whether this side superseded the document (its status or its successors changed so)."""
    became = meta.get("status") == "superseded" and base.get("status") != "superseded"
    gained = isinstance(meta.get("superseded_by"), list) and any(
        _canon(v) not in {_canon(w) for w in base.get("superseded_by") or []} for v in meta["superseded_by"]
    )
    return became or gained


def _line(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def _merge_body(base: str, ours: str, theirs: str, hold: str) -> tuple[str, int]:
    """The body merged; `hold` ("ours" or "theirs") names a side whose every change is held for a
    person as if both had changed it. Returns the text and how many places are marked."""
    if not hold and (ours == base or ours == theirs):
        return theirs, 0
    if not hold and theirs == base:
        return ours, 0
    out: list[str] = []
    marked = 0
    for hunk in hunks(base, ours, theirs):
        held = hold and getattr(hunk, hold) != hunk.base
        if not hunk.conflict and not held:
            out += hunk.merged
            continue
        marked += 1
        if out:
            out[-1] = _line(out[-1])
        out.append(OURS + "\n")
        out += [_line(line) for line in hunk.ours]
        out.append(BASE + "\n")
        out += [_line(line) for line in hunk.base]
        out.append(SPLIT + "\n")
        out += [_line(line) for line in hunk.theirs]
        out.append(THEIRS + "\n")
    return "".join(out), marked


def _places(count: int) -> str:
    return f"{count} place" if count == 1 else f"{count} places"


def _record(conflicts: list[KeyConflict], existing: Any) -> dict:
    record = dict(existing) if isinstance(existing, dict) else {}
    for conflict in conflicts:
        entry: dict[str, Any] = {"reason": conflict.reason}
        for side in ("base", "ours", "theirs"):
            value = getattr(conflict, side)
            if value is not MISSING:
                entry[side] = value
        record[conflict.key] = entry
    return record


def _text_merge(base: ParsedFile, ours: ParsedFile, theirs: ParsedFile, data: bytes) -> DocMerge:
    """A file that is not a document on every side (no frontmatter, or broken YAML): lines only.
    Where both changed the same lines of a file with a frontmatter block, markers could land in
    it, so ours is kept whole and theirs stays in git for a person."""
    text, marked = _merge_body(base.text, ours.text, theirs.text, "")
    if not marked:
        return DocMerge(text.encode("utf-8"))
    if ours.has_frontmatter or theirs.has_frontmatter or (ours.text + theirs.text).startswith("---"):
        return DocMerge(
            data,
            (
                KeyConflict(
                    "file",
                    "broken frontmatter on one side and both changed it: ours kept, "
                    "theirs is in git (`git show MERGE_HEAD:PATH`)",
                ),
            ),
        )
    return DocMerge(
        text.encode("utf-8"),
        (KeyConflict("body", f"both sides changed the same lines ({_places(marked)}, marked in the text)"),),
    )


def merge_document(base: bytes | None, ours: bytes, theirs: bytes) -> DocMerge:
    """Merge two versions of a document from their common ancestor (None when both added it)."""
    if ours == theirs or base == theirs:
        return DocMerge(ours)
    if base == ours:
        return DocMerge(theirs)
    old, mine, other = parse_bytes(base or b""), parse_bytes(ours), parse_bytes(theirs)
    if not (mine.decoded and other.decoded and old.decoded):
        return DocMerge(ours, (KeyConflict("file", "not UTF-8 text: ours kept, theirs is in git"),))
    if mine.meta is None or other.meta is None:
        return _text_merge(old, mine, other, ours)
    base_meta = old.meta if old.meta is not None else {}
    base_body = old.body if old.meta is not None else ("" if base is None else old.text)
    meta, conflicts = merge_meta(base_meta, mine.meta, other.meta)
    hold = ""
    if _superseded(mine.meta, base_meta) and other.body != base_body:
        hold = "theirs"
    elif _superseded(other.meta, base_meta) and mine.body != base_body:
        hold = "ours"
    body, marked = _merge_body(base_body, mine.body, other.body, hold)
    if hold:
        conflicts.append(
            KeyConflict(
                "body",
                "superseded on one side, its text edited on the other: keep the edit, or move it to the successor",
            )
        )
    elif marked:
        conflicts.append(
            KeyConflict("body", f"both sides changed the same lines ({_places(marked)}, marked in the text)")
        )
    if conflicts:
        meta[CONFLICTS_KEY] = _record(conflicts, meta.get(CONFLICTS_KEY))
    try:
        lines = apply_meta(mine.fm_lines, mine.meta, meta, mine.newline)
    except EditError:
        return DocMerge(ours, (KeyConflict("frontmatter", "could not be written back: ours kept, theirs is in git"),))
    data = mine.compose(lines, body)
    check = parse_bytes(data)
    if check.meta is None:  # never expected: apply_meta reads its result back
        return DocMerge(ours, (KeyConflict("frontmatter", "could not be written back: ours kept, theirs is in git"),))
    return DocMerge(data, tuple(conflicts))


def _walk_marked(body: str) -> Iterator[str | dict[str, list[str]]]:
    """The body's lines outside the marked places, and each place as its ours, base and theirs
    lines; an unclosed place comes back as the lines it holds, markers included (never guessed)."""
    parts: dict[str, list[str]] | None = None
    opened: list[str] = []
    side = ""
    for line in body.splitlines(keepends=True):
        bare = line.rstrip("\r\n")
        if bare == OURS:
            parts, side, opened = {"ours": [], "base": [], "theirs": []}, "ours", [line]
        elif parts is not None and bare in (BASE, SPLIT):
            side = "base" if bare == BASE else "theirs"
            opened.append(line)
        elif parts is not None and bare == THEIRS:
            yield parts
            parts = None
        elif parts is not None:
            parts[side].append(line)
            opened.append(line)
        else:
            yield line
    if parts is not None:
        yield from opened


def body_conflicts(body: str) -> list[tuple[str, str, str]]:
    """The marked places of a body: (ours, base, theirs) texts of each."""
    return [
        ("".join(item["ours"]), "".join(item["base"]), "".join(item["theirs"]))
        for item in _walk_marked(body)
        if isinstance(item, dict)
    ]


def resolve_body(body: str, choice: str) -> str:
    """The body with every marked place settled: `ours`, `theirs`, `base`, or `both` (ours then
    theirs, each kept whole)."""
    if choice not in ("ours", "theirs", "base", "both"):
        raise ValueError(f"unknown choice {choice!r}")
    out: list[str] = []
    for item in _walk_marked(body):
        if isinstance(item, str):
            out.append(item)
        else:
            out += item["ours"] + item["theirs"] if choice == "both" else item[choice]
    return "".join(out)


def _read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def main(argv: list[str] | None = None) -> int:
    """git's merge driver: `%O %A %B [%P]`; the result goes to %A; 0 merged, 1 left for a person."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 3:
        print("usage: python -m workbench.core.editing.docmerge BASE CURRENT OTHER [PATH]", file=sys.stderr)
        return 2
    name = args[3] if len(args) > 3 else args[1]
    try:
        result = merge_document(_read(args[0]) or None, _read(args[1]), _read(args[2]))
        if result.data != _read(args[1]):
            with open(args[1], "wb") as handle:
                handle.write(result.data)
    except Exception as exc:  # noqa: BLE001 - git keeps both sides; say why and leave ours as it was
        print(
            f"workbench merge: {name}: not merged ({type(exc).__name__}: {exc}); ours kept, theirs is in git",
            file=sys.stderr,
        )
        return 1
    for conflict in result.conflicts:
        print(f"workbench merge: {name}: {conflict.describe()}", file=sys.stderr)
    return 0 if result.clean else 1


if __name__ == "__main__":
    raise SystemExit(main())
