"""The large fields of the weighing's record (`weighing.Kept`) kept as a base and the changes since:
the base a row of its own, written when a full count makes the field or when the changes outgrow
it, and the changes (`Based.changes`) in the record.

At 10,000 decision records the record was 0.97 MB, read and written whole at every change, of it
each term's decision count 0.22 MB, the documents reachable by supersession 0.27 MB, the rows'
keys 0.30 MB and the rows' ids, lengths and least scores 0.21 MB; a change alters a few dozen of
their entries. Kept apart, the record is a few kilobytes, and a change writes the entries it
altered, not the 0.9 MB that stood still; the bases are read as they were written (a row named by
the digest of its bytes never changes under its key, `row_keys`).

Three kinds of field: a dictionary (`DICT`: the changes each key's value, `None` for a key gone),
a list (`LIST`, its base kept as `marshal` gives it; `KEYS`, a list of rows' keys, packed: the
changes each place's value and the list's length), and the bytes of an array (its items' `width`:
the changes each run of bytes that differs, by its offset, and the length).
"""

from __future__ import annotations

import marshal
from collections.abc import Callable
from typing import Any

from .row_keys import checked, packed, unpacked

__all__ = ["DICT", "LIST", "KEYS", "REBASE", "Based", "Tracked", "stored", "resolved"]

DICT = "dict"
LIST = "list"
KEYS = "keys"
# The changes are rebased (the field written whole as a new base) once they hold more than one
# entry in REBASE of the base's: they are read and written at every call, the base only when made.
REBASE = 8
_BLOCK = 512  # items compared at a time where two arrays' bytes differ somewhere


class Based:
    """One large field of the record: its `kind` (DICT, LIST, KEYS, or the width of an array's
    items) and its base as last written (`key`, `value`; "" and None where there is none)."""

    def __init__(self, kind: str | int, key: str = "", value: Any = None):
        self.kind, self.key, self.value = kind, key, value

    def changes(self, now: Any) -> Any:
        """What turns the base into `now`, as the record keeps it."""
        kind, base = self.kind, self.value
        if kind == DICT:
            if type(now) is Tracked and now.base is base:  # the keys set since it was read alone
                changed = {}
                for key, was in now.before.items():
                    value = dict.get(now, key, _NONE)
                    if value != was:
                        changed[key] = None if value is _NONE else value
                return changed
            found = {key: value for key, value in now.items() if base.get(key, _NONE) != value}
            found.update(dict.fromkeys(base.keys() - now.keys()))
            return found
        if kind in (LIST, KEYS):
            found = {}
            shared = min(len(base), len(now))
            for start in range(0, shared, _BLOCK):
                end = min(start + _BLOCK, shared)
                if now[start:end] != base[start:end]:
                    found.update((at, now[at]) for at in range(start, end) if now[at] != base[at])
            found.update((at, now[at]) for at in range(shared, len(now)))
            return len(now), found
        return len(now) // self.width, _runs(base, now, self.width)

    @property
    def width(self) -> int:
        """The bytes of each item of an array's field (1 for the other kinds)."""
        return self.kind if isinstance(self.kind, int) else 1

    def count(self, changes: Any) -> int:
        """How many entries `changes` holds, against how many the base holds (`REBASE`)."""
        kind = self.kind
        if kind == DICT:
            return len(changes)
        length, found = changes
        held = len(found) if kind in (LIST, KEYS) else sum(len(run) for run in found.values()) // self.width
        return held + abs(length - self._length())

    def _length(self) -> int:
        return len(self.value) // self.width

    def outgrown(self, changes: Any) -> bool:
        return self.count(changes) * REBASE > max(self._length(), 64)

    def encoded(self, now: Any) -> bytes:
        """`now` as a base row's bytes."""
        if self.kind == KEYS:
            return packed(now)
        if isinstance(self.kind, int):
            return bytes(now)
        return marshal.dumps(dict(now) if self.kind == DICT else list(now))

    def copied(self, now: Any) -> Any:
        """`now` as a base held apart from it (the field changes in place)."""
        if self.kind == DICT:
            return dict(now)
        return list(now) if self.kind in (LIST, KEYS) else bytes(now)

    def decoded(self, data: bytes) -> Any:
        if self.kind == KEYS:
            return unpacked(data)
        if isinstance(self.kind, int):
            return data
        found = marshal.loads(data)
        if type(found) is not (dict if self.kind == DICT else list):
            raise ValueError("a base of the weighing's record is not what it names")
        return found

    def applied(self, changes: Any) -> Any:
        """The field as the base and `changes` make it."""
        kind, base = self.kind, self.value
        if kind == DICT:
            if type(changes) is not dict:
                raise TypeError("the changes to a field are not a dictionary")
            found = Tracked(base)
            found.track(base, {key: base.get(key, _NONE) for key in changes})
            for key, value in changes.items():
                if value is None:
                    dict.pop(found, key, None)
                else:
                    dict.__setitem__(found, key, value)
            return found
        length, at_places = changes
        if type(length) is not int or type(at_places) is not dict or length < 0:
            raise TypeError("the changes to a field are not a length and places")
        if not all(type(at) is int and at >= 0 for at in at_places):
            raise TypeError("the places of the changes to a field are not places")
        # Past the base's end every entry is a change (`changes`): a length beyond them is a
        # record damaged, not memory to be asked for.
        given = len(at_places) if kind in (LIST, KEYS) else sum(len(r) for r in at_places.values() if type(r) is bytes)
        if length * self.width > len(base) + given:
            raise ValueError("the length of a field is past its base and its changes")
        if kind in (LIST, KEYS):
            items = list(base[:length]) + [None] * (length - len(base))
            for at, value in at_places.items():
                items[at] = value  # an IndexError past the length
            if kind == KEYS and not all(type(key) is str for key in items):
                raise TypeError("the rows' keys are not all keys")
            return items
        width = self.width
        data = bytearray(base[: length * width])
        data.extend(bytes(length * width - len(data)))
        for offset, run in at_places.items():
            if type(run) is not bytes or offset % width or len(run) % width or offset + len(run) > len(data):
                raise ValueError("a run of the changes falls outside the field")
            data[offset : offset + len(run)] = run
        return bytes(data)


_NONE = object()


class Tracked(dict):
    """A dictionary field as read (`Based.applied`): it holds, for each key set or deleted since
    it was read, the value the base holds (`before`; `_NONE` for none), so that its changes since
    the base are worked out from those keys alone, not by comparing every entry (13,062 terms at
    10,000 decision records)."""

    base: Any = None
    before: dict

    def track(self, base: Any, before: dict | None = None) -> None:
        """Follow the keys set from now on against `base` (`before`: those changed already)."""
        self.base, self.before = base, {} if before is None else before

    def _touch(self, key: Any) -> None:
        before = getattr(self, "before", None)
        if before is not None and key not in before:
            before[key] = dict.get(self, key, _NONE)  # not changed yet: the base's value

    def __setitem__(self, key: Any, value: Any) -> None:
        self._touch(key)
        dict.__setitem__(self, key, value)

    def __delitem__(self, key: Any) -> None:
        self._touch(key)
        dict.__delitem__(self, key)

    def pop(self, key: Any, *default: Any) -> Any:
        self._touch(key)
        return dict.pop(self, key, *default)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        self._touch(key)
        return dict.setdefault(self, key, default)

    def update(self, *args: Any, **more: Any) -> None:
        for key, value in dict(*args, **more).items():
            self[key] = value

    def popitem(self) -> tuple[Any, Any]:
        raise TypeError("a tracked field is changed key by key")

    def clear(self) -> None:
        raise TypeError("a tracked field is changed key by key")


def _runs(base: bytes, now: bytes, width: int) -> dict[int, bytes]:
    """The runs of `now`'s bytes that differ from `base`'s (or lie past its end), by offset, each a
    whole number of items: compared a block at a time, the blocks alike skipped."""
    found: dict[int, bytes] = {}
    block = _BLOCK * width
    shared = min(len(base), len(now))
    for start in range(0, shared, block):
        end = min(start + block, shared)
        if base[start:end] == now[start:end]:
            continue
        at = start
        while at < end:
            if base[at : at + width] != now[at : at + width]:
                first = at
                while at < end and base[at : at + width] != now[at : at + width]:
                    at += width
                found[first] = now[first:at]
            else:
                at += width
    if len(now) > shared:
        found[shared] = now[shared:]
    return found


def stored(based: Based, now: Any, rebase: bool, add: Callable[[bytes], str]) -> tuple[str, Any]:
    """(the base's key, the changes) to keep for a field's value `now`: a new base written through
    `add` (which gives its key) where `rebase` is asked, there is none, or the changes outgrew it."""
    if not rebase and based.value is not None:
        changes = based.changes(now)
        if not based.outgrown(changes):
            return based.key, changes
    data = based.encoded(now)
    based.key, based.value = add(data), based.copied(now)
    if type(now) is Tracked:
        now.track(based.value)
    return based.key, based.changes(now)


def resolved(
    kinds: dict[str, str | int], found: dict[str, Any], read: Callable[[list[str]], dict[str, bytes]]
) -> dict[str, Based]:
    """Each field of `kinds` put in place in `found` (as kept: a base's key and the changes since)
    from its base read through `read` (in one query) and checked; their bases, by field. A base
    missing or damaged, or a field not kept so, is a `ValueError` or `TypeError`: everything is
    worked out again."""
    forms = {}
    for name in kinds:
        form = found[name]
        if type(form) is not tuple or len(form) != 2 or type(form[0]) is not str or not form[0]:
            raise TypeError(f"the weighing's {name} is not kept as a base and changes")
        forms[name] = form
    rows = checked(read(sorted({key for key, _ in forms.values()})))
    bases = {}
    for name, (key, changes) in forms.items():
        if key not in rows:
            raise ValueError(f"the base of the weighing's {name} is missing or damaged")
        based = Based(kinds[name], key)
        based.value = based.decoded(rows[key])
        found[name] = based.applied(changes)
        bases[name] = based
    return bases
