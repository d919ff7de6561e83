"""The weighing's record keeps its large fields as a base row and the changes since
(`weighing_record`): a change writes a record of a few kilobytes and no base; what is read back is
exactly what was kept, over many changes and the bases written again; a base damaged or missing,
or a record of the older format, is worked out again, never read as kept."""

from __future__ import annotations

import dataclasses
import marshal
import random
from array import array
from pathlib import Path

import pytest
from helpers import copied, harm_rows, weighed_vault, weighing_record

from workbench import Vault
from workbench.core.services import kept_conflicts, weighing
from workbench.core.services.conflicts import find_conflicts
from workbench.core.services.row_keys import key_of
from workbench.core.services.weighing_record import DICT, KEYS, LIST, REBASE, Based, resolved, stored

SIZE = 2400  # about 600 decisions


@pytest.fixture(scope="module")
def shaped(tmp_path_factory) -> Path:
    return weighed_vault(tmp_path_factory, SIZE, seed=17)


@pytest.fixture
def vault_root(shaped, tmp_path) -> Path:
    return copied(shaped, tmp_path)


def _decisions(vault: Vault) -> list[str]:
    return sorted(vault._queue(False).weighing().kept.digests)


def _append(root: Path, vault: Vault, doc_id: str, n: int) -> None:
    path = root / next(d.path for d in vault.documents if d.id == doc_id)
    with path.open("a", encoding="utf-8") as file:
        file.write(f"\nThe cache {n} was warmed before the gateway rollout number {n}.\n")


def _written(vault: Vault) -> dict[str, int]:
    """The vault's store counting the bytes of the weighing's record, and of its bases, written."""
    store, seen = vault.store, {"record": 0, "bases": 0}
    keep_with_rows = store.keep_with_rows

    def counted(name, key, value, rows, replace=False, forget=()):
        if name == kept_conflicts.WEIGHED:
            seen["record"] += len(value)
            version, values = marshal.loads(value)
            named = {v[0] for n, v in zip(_FIELDS, values) if n in weighing.BASED}
            seen["bases"] += sum(len(row) for key, row in rows.items() if key in named)
        return keep_with_rows(name, key, value, rows, replace, forget)

    store.keep_with_rows = counted
    return seen


_FIELDS = [f.name for f in dataclasses.fields(weighing.Kept) if f.init]


def test_one_change_writes_a_record_of_a_few_kilobytes(vault_root):
    """One decision changed: the record written is a few bytes a decision (the code before wrote
    every term's count, every document reachable and every row's key again: 105 bytes a
    decision), and no base is written."""
    vault = Vault.open(vault_root)
    decisions = _decisions(vault)
    _append(vault_root, vault, decisions[40], 1)
    vault = Vault.open(vault_root)
    seen = _written(vault)
    queue = vault._queue(False)
    queue.conflicts()
    assert not queue.weighing().full and queue.weighing().weighed_again
    assert 0 < seen["record"] <= 20 * len(decisions), (seen, len(decisions))
    assert seen["bases"] == 0


def _as_kept(kept: weighing.Kept) -> dict:
    """Its fields as kept (but the duplicates' that stand still, kept apart: `weighing.DRAWN`)."""
    return {name: getattr(kept, name) for name in _FIELDS if name not in weighing.DRAWN}


def test_the_record_read_back_is_the_one_kept_over_many_changes(vault_root):
    """Decisions changed one call after another: after each call, the record read back (the bases
    and the changes since) holds every field exactly as the weighing kept it (the next call follows
    from what this one had, as the code before, which kept the fields whole)."""
    vault = Vault.open(vault_root)
    decisions = _decisions(vault)
    setting = vault._queue(False).setting
    changed = set()
    # As many as a weighing follows before it counts everything again (`weighing.REFRESH_SHARE`).
    for n, doc_id in enumerate(random.Random(3).sample(decisions, int(weighing.REFRESH_SHARE * len(decisions)))):
        _append(vault_root, vault, doc_id, n)
        vault = Vault.open(vault_root)
        queue = vault._queue(False)
        queue.conflicts()
        kept = queue.weighing().kept
        assert not queue.weighing().full
        record = weighing_record(vault, setting)
        assert record is not None
        assert _as_kept(record) == _as_kept(kept), n
        changed |= {name for name, based in record.bases.items() if based.count(based.changes(getattr(record, name)))}
    assert {"frequency", "thresholds", "inverted"} <= changed, changed  # read back from their changes too


@pytest.mark.parametrize("which", ["frequency", "reach", "rows", "thresholds", "documents"])
@pytest.mark.parametrize("harm", ["damaged", "readable", "missing"])
def test_a_base_damaged_or_missing_is_worked_out_again(vault_root, which, harm):
    """A field's base damaged (bytes that are not its row), replaced by a row that reads well but is
    not the one kept, or deleted: the record is not read, everything is weighed again, and the
    queue is what a full count lists."""
    vault = Vault.open(vault_root)
    decisions = _decisions(vault)
    queue = vault._queue(False)
    record = weighing_record(vault, queue.setting)
    assert record is not None
    key = record.bases[which].key
    harm_rows(vault, [key], harm)
    assert weighing_record(vault, queue.setting) is None
    _append(vault_root, vault, decisions[7], 2)
    vault = Vault.open(vault_root)
    queue = vault._queue(False)
    found = queue.conflicts()
    assert queue.weighing().full
    assert found == find_conflicts(vault.documents, vault.flavour.native)
    assert weighing_record(vault, queue.setting) is not None


def test_a_record_of_the_older_format_is_worked_out_again_and_upgraded(vault_root):
    """A record as the code before kept it (the format before, its fields whole): not read; the
    next call weighs everything again, lists what a full count lists, and keeps the record as
    this code does."""
    vault = Vault.open(vault_root)
    decisions = _decisions(vault)
    queue = vault._queue(False)
    record = weighing_record(vault, queue.setting)
    assert record is not None
    older = tuple(dict(value) if isinstance(value, dict) else value for value in map(record.__getattribute__, _FIELDS))
    vault.store.keep(kept_conflicts.WEIGHED, queue.setting, marshal.dumps((weighing.FORMAT - 1, older)))
    assert weighing_record(vault, queue.setting) is None
    _append(vault_root, vault, decisions[9], 3)
    vault = Vault.open(vault_root)
    queue = vault._queue(False)
    assert queue.conflicts() == find_conflicts(vault.documents, vault.flavour.native)
    assert queue.weighing().full
    version, _ = marshal.loads(vault.store.kept(kept_conflicts.WEIGHED, queue.setting))
    assert version == weighing.FORMAT
    assert weighing_record(vault, queue.setting) is not None


# -- one field, its base and changes ------------------------------------------------------------


class _Store:
    """Rows kept by key, as the store keeps them (`DerivedStore.kept_rows`)."""

    def __init__(self):
        self.rows: dict[str, bytes] = {}

    def add(self, value: bytes) -> str:
        key = key_of(value)
        self.rows[key] = value
        return key

    def read(self, keys: list[str]) -> dict[str, bytes]:
        return {key: self.rows[key] for key in keys if key in self.rows}


def _edited(kind, value, rng: random.Random):
    """`value` with a few of its entries changed, added or taken away, as a call changes them."""
    if kind == DICT:
        for key in rng.sample(sorted(value), 3):
            if rng.random() < 0.3:
                del value[key]
            else:
                value[key] = value[key] + 1
        value[f"new-{rng.random()}"] = 1
        value.pop("missing", None)
        value.setdefault("also-new", 5)
        return value
    if kind in (LIST, KEYS):
        for at in rng.sample(range(len(value)), 3):
            value[at] = "" if rng.random() < 0.3 else key_of(str(rng.random()).encode())
        return value + [key_of(b"appended")] if rng.random() < 0.5 else value[:-1]
    items = array("d" if kind == 8 else "i")
    items.frombytes(value)
    for at in rng.sample(range(len(items)), 3):
        items[at] = rng.randint(0, 99)
    items.append(7)
    return items.tobytes()


def _start(kind):
    if kind == DICT:
        return {f"term-{n}": n for n in range(500)}
    if kind in (LIST, KEYS):
        return [key_of(str(n).encode()) if n % 5 else "" for n in range(500)]
    return (array("d" if kind == 8 else "i", range(500))).tobytes()


@pytest.mark.parametrize("kind", [DICT, LIST, KEYS, 8, 4])
def test_a_field_read_back_is_the_field_kept_through_changes_and_new_bases(kind):
    """A field kept, read back, changed and kept again, many times over: each read gives exactly
    the field kept, the changes the record holds stay a few entries for a few changed, and a new
    base is written once they outgrow the base (`REBASE`)."""
    store, rng = _Store(), random.Random(str(kind))
    now = _start(kind)
    based = Based(kind)
    form = stored(based, now, False, store.add)
    keys = {form[0]}
    for n in range(60):
        found = {"field": form}
        bases = resolved({"field": kind}, found, store.read)
        assert found["field"] == now, n
        now = _edited(kind, found["field"], rng)
        form = stored(bases["field"], now, False, store.add)
        assert bases["field"].count(form[1]) * REBASE <= max(500, 64) * 1.1 or form[0] not in keys, n
        keys.add(form[0])
    assert len(keys) > 1  # the changes outgrew a base, and a new one was written
    found = {"field": form}
    resolved({"field": kind}, found, store.read)
    assert found["field"] == now


@pytest.mark.parametrize("kind", [LIST, KEYS, 8, 4])
def test_a_length_past_the_base_and_its_changes_is_refused_not_allocated(kind):
    """A record damaged yet still read whole (a length of 2**40 entries): refused as damaged, which
    `weighing.load` answers with a count from nothing, not a `MemoryError` asking for it."""
    store = _Store()
    form = stored(Based(kind), _start(kind), False, store.add)
    bases = resolved({"field": kind}, {"field": form}, store.read)
    with pytest.raises(ValueError):
        bases["field"].applied((2**40, {}))
    assert bases["field"].applied((500, {})) == _start(kind)


def test_a_dictionary_set_back_to_its_base_holds_no_change():
    """A key set, then set back to the value its base holds (a decision's terms counted out and in
    again): no change kept for it."""
    store = _Store()
    now = {"a": 1, "b": 2}
    form = stored(Based(DICT), now, False, store.add)
    found = {"field": form}
    based = resolved({"field": DICT}, found, store.read)["field"]
    field = found["field"]
    field["a"] = 5
    del field["b"]
    field["a"] = 1
    field["b"] = 2
    field["c"] = 3
    assert based.changes(field) == {"c": 3}
    assert based.changes(dict(field)) == {"c": 3}  # a plain dictionary: compared entry by entry


def test_a_claim_removed_rewrites_the_rows_of_its_digests_alone(vault_root, monkeypatch):
    """The claims' digests followed through a removal as through an edit: the set of what changed
    that `since` told is not widened in place, where the rows' keeper would read the removed
    document's digest, fail, and make every row of them anew (`Digests.of`)."""
    from workbench.core.services import weighing_rows
    from workbench.core.services.weighing import CLAIM_TYPES

    vault = Vault.open(vault_root)
    claims = [d for d in vault.documents if d.type in CLAIM_TYPES and d.type != "decision" and d.status == "active"]
    made: list[int] = []
    plain = weighing_rows.Digests.of.__func__
    monkeypatch.setattr(
        weighing_rows.Digests,
        "of",
        classmethod(lambda cls, rows, found: (made.append(len(found)), plain(cls, rows, found))[1]),
    )
    (vault_root / claims[3].path).unlink()
    after = Vault.open(vault_root)
    after._queue(False).conflicts()
    assert made == []
    kept, full = after._queue(False).conflicts(), after._queue(True).conflicts()
    # the same conflicts; their reasons' figures may stand by the rarities kept (docs/conflicts.md)
    assert [(c.kind, c.ids) for c in kept] == [(c.kind, c.ids) for c in full]
