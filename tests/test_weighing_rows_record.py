"""The weighing's record holds what every call needs, a few dozen bytes a decision: each decision's
digest, date and the rows' keys are in rows read and written for the decisions a change touches;
the pairs' rows read after a change are those holding the pairs touched, one a pair; a row of the
digests damaged or missing gives a full count, never a wrong answer."""

from __future__ import annotations

import marshal
from pathlib import Path

import pytest
from helpers import copied, harm_rows, rows_asked, weighed_vault, weighing_record

from workbench import Vault
from workbench.core.services import kept_conflicts
from workbench.core.services.conflicts import find_conflicts

SIZE = 2400  # about 600 decisions


@pytest.fixture(scope="module")
def shaped(tmp_path_factory) -> Path:
    return weighed_vault(tmp_path_factory, SIZE, seed=11)


@pytest.fixture
def vault_root(shaped, tmp_path) -> Path:
    return copied(shaped, tmp_path)


def _decisions(vault: Vault) -> list[str]:
    """The decisions weighed (of a status a pair may involve)."""
    return sorted(vault._queue(False).weighing().kept.digests)


def _append(root: Path, vault: Vault, doc_id: str, attempts: int) -> None:
    path = root / next(d.path for d in vault.documents if d.id == doc_id)
    with path.open("a", encoding="utf-8") as file:
        file.write(f"\nThe retry budget was raised to {attempts} attempts after the outage review.\n")


def _record_bytes(vault: Vault) -> tuple[Vault, dict[str, int]]:
    """The vault's store counting the bytes of the weighing's record read and written."""
    store, seen = vault.store, {"read": 0, "written": 0}
    kept, keep_with_rows = store.kept, store.keep_with_rows

    def read(name, key):
        found = kept(name, key)
        if name == kept_conflicts.WEIGHED and isinstance(found, bytes):
            seen["read"] += len(found)
        return found

    def write_with_rows(name, key, value, rows, replace=False, forget=()):
        if name == kept_conflicts.WEIGHED:
            seen["written"] += len(value)
        return keep_with_rows(name, key, value, rows, replace, forget)

    store.kept, store.keep_with_rows = read, write_with_rows
    return vault, seen


def test_one_change_reads_and_writes_the_rows_of_its_own_digests(vault_root):
    """One decision changed: of the rows holding the decisions' and the duplicates' digests (kept
    out of the record, which read and wrote them all at every change), the change reads and
    writes the one holding its own of each."""
    vault = Vault.open(vault_root)
    _append(vault_root, vault, _decisions(vault)[40], 7)
    vault, seen = _record_bytes(Vault.open(vault_root))
    queue = vault._queue(False)
    record = weighing_record(vault, queue.setting)
    assert record is not None
    asked = rows_asked(vault, set(record.digest_rows[1]) | set(record.claim_rows[1]))
    queue.conflicts()
    assert not queue.weighing().full
    assert 0 < len(asked) <= 2, len(asked)
    after = weighing_record(vault, queue.setting)
    assert after is not None
    assert 0 < len(set(after.digest_rows[1]) - set(record.digest_rows[1])) <= 1
    assert 0 < seen["read"] and 0 < seen["written"]


def test_a_change_reads_one_row_for_each_pair_it_touches(vault_root):
    """The pairs a change weighs again, drops or follows are read from the one row their index
    says holds each (not both halves, nor a row for each pair named the other way round, which
    is never kept): at most one row of the pairs a pair touched."""
    vault = Vault.open(vault_root)
    _append(vault_root, vault, _decisions(vault)[60], 5)
    vault = Vault.open(vault_root)
    queue = vault._queue(False)
    record = weighing_record(vault, queue.setting)
    assert record is not None
    asked = rows_asked(vault, set(record.pair_rows))
    queue.conflicts()
    pairs = queue.weighing()
    assert not pairs.full
    # Each pair weighed again is read from one row (before: both halves, and two more for it
    # named the other way round by the queue's follow).
    assert 0 < len(set(asked)) <= 1.5 * pairs.weighed_again, (len(set(asked)), pairs.weighed_again)


def _harmed(vault: Vault, keys: list[str], harm: str) -> None:
    harm_rows(vault, keys, harm, marshal.dumps(([], []), 2))


@pytest.mark.parametrize("which", ["digest_rows", "claim_rows"])
@pytest.mark.parametrize("harm", ["damaged", "readable", "missing"])
def test_a_row_of_the_digests_damaged_or_missing_is_worked_out_again(vault_root, which, harm):
    """Every row of the decisions' (or the duplicates') digests damaged, replaced by one that reads
    well but is not the row kept, or deleted: the next change works out again what they told, and
    the queue is what a full count gives."""
    vault = Vault.open(vault_root)
    queue = vault._queue(False)
    record = weighing_record(vault, queue.setting)
    assert record is not None
    _append(vault_root, vault, _decisions(vault)[80], 9)
    _harmed(vault, [key for key in getattr(record, which)[1] if key], harm)
    vault = Vault.open(vault_root)
    queue = vault._queue(False)
    found = queue.conflicts()
    pairs = queue.weighing()
    if which == "digest_rows":
        assert pairs.full
    full = find_conflicts(vault.documents, vault.flavour.native)
    assert sorted((c.kind, tuple(c.ids)) for c in found) == sorted((c.kind, tuple(c.ids)) for c in full)


@pytest.mark.parametrize("odd", ["x\ny", "n\0m", "line\nand\0nul", "\udcff"])
def test_an_id_holding_a_line_break_or_a_nul_is_read_back_whole_from_its_digests_row(odd):
    """An id is a file's name in some flavours, and a file's name may hold a line break: a change
    to that decision is that decision's alone, and no id that never was is said removed."""
    from workbench.core.services.weighing import Rows
    from workbench.core.services.weighing_rows import Digests

    store: dict[str, bytes] = {}
    ids = {f"d{n}": f"h{n}" for n in range(200)} | {odd: "h-odd"}
    made = Digests.of(Rows(lambda keys: {k: store[k] for k in keys if k in store}), ids)
    kept = made.keep()
    store.update(made.rows.written)
    for name in (odd, "d7"):
        now = dict(ids) | {name: "changed"}
        again = Digests(Rows(lambda keys: {k: store[k] for k in keys if k in store}), kept)
        assert again.since(now) == ({name}, set())
