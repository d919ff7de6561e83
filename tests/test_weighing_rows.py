"""What the weighing keeps of each decision and term in rows (`weighing_rows`): after one change it
reads and writes in proportion to the change, not to the vault; the index kept beside the
decisions' facts is the one a pass over them makes; a row damaged or missing gives a full
weighing, never a wrong answer."""

from __future__ import annotations

import dataclasses
import marshal
from collections import Counter
from pathlib import Path

import pytest
from helpers import copied, harm_rows, weighed_vault, weighing_record

from workbench import Vault
from workbench.core.services import kept_conflicts, weighing
from workbench.core.services.conflicts import REVIEW_NEIGHBOURS, find_conflicts
from workbench.core.services.weighing_rows import ASKS, CITES, HOLDS, NEAR

SIZE = 2400  # about 600 decisions


@pytest.fixture(scope="module")
def shaped(tmp_path_factory) -> Path:
    return weighed_vault(tmp_path_factory, SIZE, seed=7)


@pytest.fixture
def vault_root(shaped, tmp_path) -> Path:
    return copied(shaped, tmp_path)


def _decisions(vault: Vault) -> list[str]:
    return sorted(d.id for d in vault.documents if d.type == "decision")


def _append(root: Path, vault: Vault, doc_id: str, words: str) -> None:
    path = root / next(d.path for d in vault.documents if d.id == doc_id)
    with path.open("a", encoding="utf-8") as file:
        file.write(f"\n{words}\n")


def _changed_then_weighed_whole(root: Path, vault: Vault) -> None:
    """One decision changed after what was kept was harmed: the next queue weighs everything, and
    lists what a full count lists."""
    _append(root, vault, _decisions(vault)[40], "The retry budget was raised to 9 attempts after the outage review.")
    vault = Vault.open(root)
    queue = vault._queue(False)
    found = queue.conflicts()
    assert queue.weighing().full
    full = find_conflicts(vault.documents, vault.flavour.native)
    assert sorted((c.kind, tuple(c.ids)) for c in found) == sorted((c.kind, tuple(c.ids)) for c in full)


def _kept_bytes(vault: Vault) -> int:
    """The bytes the weighing keeps: its record and every row."""
    db = vault.store.db
    record = db.execute("SELECT sum(length(value)) FROM kept WHERE name = ?", (kept_conflicts.WEIGHED,)).fetchone()[0]
    rows = db.execute("SELECT sum(length(value)) FROM kept_rows WHERE name = ?", (kept_conflicts.WEIGHED,)).fetchone()[
        0
    ]
    return record + rows


def _counting(vault: Vault) -> Counter:
    """Count the bytes of the weighing's record and rows the vault's store reads and writes."""
    store, seen = vault.store, Counter()
    kept, kept_rows, keep, keep_rows = store.kept, store.kept_rows, store.keep, store.keep_rows
    keep_with_rows = store.keep_with_rows

    def read(name, key):
        found = kept(name, key)
        if name == kept_conflicts.WEIGHED and isinstance(found, bytes):
            seen["read"] += len(found)
        return found

    def read_rows(name, keys):
        found = kept_rows(name, keys)
        if name == kept_conflicts.WEIGHED:
            seen["read"] += sum(map(len, found.values()))
        return found

    def write(name, key, value):
        if name == kept_conflicts.WEIGHED:
            seen["written"] += len(value)
        return keep(name, key, value)

    def write_rows(name, rows, replace=False):
        if name == kept_conflicts.WEIGHED:
            seen["written"] += sum(map(len, rows.values()))
        return keep_rows(name, rows, replace)

    def write_with_rows(name, key, value, rows, replace=False, forget=()):
        if name == kept_conflicts.WEIGHED:
            seen["written"] += len(value) + sum(map(len, rows.values()))
        return keep_with_rows(name, key, value, rows, replace, forget)

    store.kept, store.kept_rows, store.keep, store.keep_rows = read, read_rows, write, write_rows
    store.keep_with_rows = write_with_rows
    return seen


def test_one_change_reads_and_writes_a_small_share_of_what_is_kept(vault_root):
    """One decision's body changed: the weighing reads and writes its record (what every call
    needs) and the rows of the decisions and terms the change touches, not every decision's: here
    it writes a sixth of the bytes it keeps and reads a third (its record, a seventh of them, and
    a few rows); each decision's facts in the record, written whole, it wrote 38% of them."""
    vault = Vault.open(vault_root)
    total = _kept_bytes(vault)
    _append(
        vault_root, vault, _decisions(vault)[40], "The retry budget was raised to 7 attempts after the outage review."
    )
    vault = Vault.open(vault_root)
    seen = _counting(vault)
    queue = vault._queue(False)
    queue.conflicts()
    assert not queue.weighing().full and queue.weighing().weighed_again >= REVIEW_NEIGHBOURS
    assert 0 < seen["written"] < total / 5, (seen, total)
    assert 0 < seen["read"] < total / 2, (seen, total)


def _index_rebuilt(kept: weighing.Kept) -> dict[str, dict[str, int]]:
    """The index a pass over every decision's facts makes."""
    index: dict[str, dict[str, int]] = {}
    for doc_id in kept.digests:
        for at, term in enumerate(kept.asked.get(doc_id, ())):
            index.setdefault(ASKS + term, {})[doc_id] = at
        few = ([kept.top[doc_id]] if doc_id in kept.top else []) + kept.near.get(doc_id, [])
        for _, other in few:
            index.setdefault(NEAR + other, {})[doc_id] = 1
        for handle in kept.handles.get(doc_id, ()):
            index.setdefault(HOLDS + handle, {})[doc_id] = 1
        for handle in kept.mentions.get(doc_id, ()):
            index.setdefault(CITES + handle, {})[doc_id] = 1
    return index


def test_what_is_kept_after_changes_is_what_a_pass_over_every_decision_makes(vault_root):
    """After changes of several kinds (a body, two at once, a decision removed, one added), the
    index, the thresholds, the lengths and the term counts kept are those worked out from every
    decision's facts as they are."""
    vault = Vault.open(vault_root)
    ids = _decisions(vault)
    steps = [
        lambda: _append(vault_root, vault, ids[10], "Latency budget and cache eviction."),
        lambda: (_append(vault_root, vault, ids[20], "Queue depth."), _append(vault_root, vault, ids[30], "Retry.")),
        lambda: (vault_root / next(d.path for d in vault.documents if d.id == ids[50])).unlink(),
        lambda: (vault_root / "decisions" / "added-again.md").write_text(
            (vault_root / next(d.path for d in vault.documents if d.id == ids[60]))
            .read_text("utf-8")
            .replace(f"id: {ids[60]}", f"id: {ids[60]}-again", 1),
            "utf-8",
        ),
    ]
    for n, step in enumerate(steps):
        step()
        vault = Vault.open(vault_root)
        queue = vault._queue(False)
        queue.conflicts()
        pairs = queue.weighing()
        assert not pairs.full, n
        vault = Vault.open(vault_root)
        kept = vault._queue(False).weighing().kept  # as read back from the store
        assert dict(kept.facts.index.every()) == _index_rebuilt(kept), n
        for doc_id in kept.digests:
            few = ([kept.top[doc_id]] if doc_id in kept.top else []) + kept.near.get(doc_id, [])
            limit = few[-1][0] if len(few) >= REVIEW_NEIGHBOURS else float("-inf")
            assert kept.limits[kept.positions[doc_id]] == limit, (n, doc_id)
        words = Counter(term for doc_id in kept.digests for term in kept.words[doc_id])
        assert kept.frequency == dict(words), n
        assert kept.length_total == sum(kept.lengths[doc_id] for doc_id in kept.digests), n
        assert set(kept.positions) == set(kept.digests), n


@pytest.mark.parametrize("which", ["texts", "documents", "inverted", "base"])
@pytest.mark.parametrize("harm", ["damaged", "readable", "missing"])
def test_a_row_damaged_or_missing_is_worked_out_again(vault_root, which, harm):
    """Every row of one kind the record names damaged (bytes that are not a row, or a row that
    reads well but is not the one kept: its key no longer digests its bytes) or deleted: the
    change that reads one weighs everything again, and the queue is what a full count gives."""
    vault = Vault.open(vault_root)
    queue = vault._queue(False)
    record = weighing_record(vault, queue.setting)
    assert record is not None
    keys = [key for key in getattr(record, which) if key]
    harm_rows(vault, keys, harm)
    _changed_then_weighed_whole(vault_root, vault)


def test_a_decision_moved_is_weighed_by_its_new_name(vault_root: Path) -> None:
    """A decision's file moved, its bytes the same: the handles its new file name gives it are
    those a later citation is drawn by, as in a full count."""
    vault = Vault.open(vault_root)
    vault._queue(False).conflicts()
    docs = {d.id: d for d in vault.documents}
    a, b = [doc_id for doc_id in _decisions(vault) if docs[doc_id].status == "active"][5:301:295]
    old = vault_root / docs[a].path
    old.rename(old.with_name("adr-0777-moved-record.md"))
    Vault.open(vault_root)._queue(False).conflicts()  # the move followed, nothing else changed
    with (vault_root / docs[b].path).open("a", encoding="utf-8") as file:
        file.write("\nThis follows adr-0777-moved-record.\n")
    kept = set(Vault.open(vault_root)._queue(False).weighing().kept_pairs())
    full = set(Vault.open(vault_root)._queue(True).weighing().kept_pairs())
    cited = {pair for pair in full if set(pair) == {a, b}}
    assert cited and cited <= kept


def test_a_record_with_a_field_of_another_kind_is_worked_out_again(vault_root: Path) -> None:
    """The record reads well but the changes to one of its arrays since its base are kept as a
    number: a full weighing, never an error."""
    vault = Vault.open(vault_root)
    queue = vault._queue(False)
    queue.conflicts()
    version, values = marshal.loads(vault.store.kept(kept_conflicts.WEIGHED, queue.setting))
    at = [f.name for f in dataclasses.fields(weighing.Kept) if f.init].index("thresholds")
    values = (*values[:at], (values[at][0], 5), *values[at + 1 :])
    vault.store.keep(kept_conflicts.WEIGHED, queue.setting, marshal.dumps((version, values)))
    assert weighing_record(vault, queue.setting) is None
    _changed_then_weighed_whole(vault_root, vault)
