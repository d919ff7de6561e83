"""A new day does not make the derived store's records stale: the first open of a day takes every
unchanged file from the store, as the opens before it did. Only what depends on the day is read
again: a file whose date was "in the future" when it was checked (it may not be any more), every
file of a flavour whose reading follows the day (tiered memory's tiers by age), and every file
checked on a later day than the clock now says."""

from __future__ import annotations

import datetime as dt
import os

from workbench import Vault
from workbench.core import index as index_module
from workbench.core.records import loading
from workbench.core.records.derived_store import DerivedStore
from workbench.core.records.record import build_record
from workbench.core.records.store_rows import StoredDocument

DAY = dt.date(2026, 6, 1)


def record(doc_id: str, updated: str):
    raw = (
        f"---\nschema_version: v1\nid: {doc_id}\ntype: note\ntitle: {doc_id}\nstatus: active\n"
        f"created_at: 2026-01-01\nupdated_at: {updated}\nproject: demo\ntags: []\nlinks: []\n"
        "supersedes: []\nsuperseded_by: []\nprovenance:\n  source: manual\n  confidence: high\n---\nBody.\n"
    ).encode()
    return build_record(f"notes/{doc_id}.md", raw, len(raw), 1, DAY)


def test_rows_checked_on_an_earlier_day_are_loaded_unless_a_date_was_in_the_future(tmp_path):
    store = DerivedStore(tmp_path / "index.sqlite")
    past, future = record("mem-note-past", "2026-05-01"), record("mem-note-future", "2026-06-02")
    assert [p.code for p in future.problems] == ["date-future"] and not past.problems
    store.save([past, future], [], DAY)
    assert set(store.load(DAY)) == {past.path, future.path}
    # The next day: the future date has come, so that row's problem may be gone; the other holds.
    assert set(store.load(DAY + dt.timedelta(days=1))) == {past.path}
    assert set(store.load(DAY + dt.timedelta(days=400))) == {past.path}
    # A clock put back before the day of the check: a date then in the past may be in the future.
    assert set(store.load(DAY - dt.timedelta(days=1))) == set()
    # A flavour whose reading follows the day trusts no row of another day.
    assert set(store.load(DAY + dt.timedelta(days=1), daily=True)) == set()
    assert set(store.load(DAY, daily=True)) == {past.path, future.path}
    store.close()


def test_the_first_open_of_a_new_day_reads_no_unchanged_file_again(builder, monkeypatch):
    for n in range(30):
        builder.add(f"mem-note-n{n}")
    due = dt.date.today() + dt.timedelta(days=1)
    builder.add("mem-note-due", updated=due.isoformat(), created="2026-01-01")
    today = Vault.open(builder.root)
    assert [p.code for p in today.index.problems_at("notes/mem-note-due.md")] == ["date-future"]
    today.index.store.close()
    Vault.open(builder.root).index.store.close()  # a warm open the same day

    day = dt.date.today() + dt.timedelta(days=1)
    monkeypatch.setattr(index_module, "today", lambda: day)
    monkeypatch.setattr(loading, "today", lambda: day)
    vault = Vault.open(builder.root)
    parsed = sorted(r.path for r in vault.index.records if type(r.document) is not StoredDocument)
    assert parsed == ["notes/mem-note-due.md"]  # the one whose date was in the future: read again
    assert vault.index.problems_at("notes/mem-note-due.md") == []  # its date has come
    assert len(vault.documents) == 31
    vault.index.store.close()
    again = Vault.open(builder.root)  # and from then on, from the store again
    assert all(type(r.document) is StoredDocument for r in again.index.records)
    assert again.index.problems_at("notes/mem-note-due.md") == []


def test_tiered_memory_is_read_again_on_a_new_day(tmp_path, monkeypatch):
    root = tmp_path / "tiers"
    (root / "projects").mkdir(parents=True)
    (root / "memory.md").write_text("# Memory\n\nHot things.\n", "utf-8")
    (root / "corrections.md").write_text("# Corrections\n\nFixed things.\n", "utf-8")
    (root / "projects" / "alpha.md").write_text("# Alpha\n\nInherits: global\n", "utf-8")
    Vault.open(root, "tiered").index.store.close()
    assert all(type(r.document) is StoredDocument for r in Vault.open(root, "tiered").index.records)
    day = dt.date.today() + dt.timedelta(days=1)
    monkeypatch.setattr(index_module, "today", lambda: day)
    monkeypatch.setattr(loading, "today", lambda: day)
    assert not any(type(r.document) is StoredDocument for r in Vault.open(root, "tiered").index.records)


def test_a_store_built_again_in_place_is_the_one_the_next_open_reads(sample_copy):
    """A store built again from the records in memory (after a forget, or found damaged) is made
    for the vault's reading of its files, its own status words included: the next open reads it
    rather than building it once more."""
    (sample_copy / ".workbench.yaml").write_text("statuses:\n  Parked: deprecated\n", "utf-8")
    vault = Vault.open(sample_copy)
    vault.index.renew_store()
    vault.index.store.close()
    again = Vault.open(sample_copy)
    assert all(type(r.document) is StoredDocument for r in again.index.records)


def test_a_store_built_again_the_next_day_keeps_no_tier_of_the_day_before(tmp_path, monkeypatch):
    """A tiered vault kept open past midnight, its store built again (a forget, a damaged file):
    the records in memory were read the day before, so the rows made of them must not be trusted
    as today's, or the next open shows yesterday's tiers."""
    root = tmp_path / "tiers"
    root.mkdir()
    (root / "memory.md").write_text("# Memory\n\nHot things.\n", "utf-8")
    alpha = root / "alpha.md"
    alpha.write_text("# Alpha\n\nOld things.\n", "utf-8")
    day = dt.date(2026, 6, 1)
    stamp = dt.datetime.combine(day - dt.timedelta(days=90), dt.time(12)).timestamp()
    os.utime(alpha, (stamp, stamp))  # 90 days old that day: warm; one day later, cold
    monkeypatch.setattr(index_module, "today", lambda: day)
    monkeypatch.setattr(loading, "today", lambda: day)
    vault = Vault.open(root, "tiered")
    assert vault.get("alpha").status == "active"  # warm
    later = day + dt.timedelta(days=1)
    monkeypatch.setattr(index_module, "today", lambda: later)
    monkeypatch.setattr(loading, "today", lambda: later)
    vault.index.renew_store()
    vault.index.store.close()
    assert Vault.open(root, "tiered").get("alpha").status == "archived"  # cold
