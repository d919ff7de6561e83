"""The blank listing (every document, the most recently updated first) is what a person sees at
every launch, so it is made without reading every document's meta: the derived store keeps each
document's date beside it. These tests hold that shortcut to the same answer as the long way,
also after an agent changes a date behind the vault's back."""

from __future__ import annotations

from pathlib import Path

import pytest

from vault_builders import VaultBuilder, doc_path, doc_text
from workbench.core.records.derived_store import StoredDocument
from workbench.core.vault import Vault

DAYS = 40


@pytest.fixture
def dated(builder: VaultBuilder) -> Path:
    """Notes updated on forty different days, note 0 the oldest."""
    for n in range(DAYS):
        builder.add(f"mem-note-day-{n:02d}", updated=f"2026-03-{1 + n % 28:02d}" if n < 28 else f"2026-04-{n - 27:02d}")
    return builder.root


def listed(vault: Vault, limit: int = 10) -> list[str]:
    return [hit.id for hit in vault.search("", limit)]


def newest_first(count: int) -> list[str]:
    return [f"mem-note-day-{n:02d}" for n in range(DAYS - 1, DAYS - 1 - count, -1)]


def test_a_warm_open_lists_the_newest_documents_reading_only_their_meta(dated, monkeypatch):
    Vault.open(dated)  # the derived store is written
    asked: set[str] = set()
    read = StoredDocument.meta.fget

    def counted(doc):
        asked.add(doc.id)
        return read(doc)

    monkeypatch.setattr(StoredDocument, "meta", property(counted, StoredDocument.meta.fset))
    vault = Vault.open(dated)
    assert all(isinstance(doc, StoredDocument) for doc in vault.documents)
    assert listed(vault, 5) == newest_first(5)
    assert asked <= set(newest_first(5))


def test_the_listing_follows_a_date_an_agent_changed_on_disk(dated):
    Vault.open(dated)
    vault = Vault.open(dated)  # warm: the dates come from the store
    oldest = "mem-note-day-00"
    (dated / doc_path(oldest)).write_text(doc_text(oldest, updated="2026-05-01"))
    vault.refresh()
    assert listed(vault, 3) == [oldest, *newest_first(2)]
    assert listed(Vault.open(dated), 3) == [oldest, *newest_first(2)]  # and the store kept it


def test_a_short_listing_is_the_top_of_the_whole_one(dated):
    Vault.open(dated)
    vault = Vault.open(dated)
    assert listed(vault, 7) == listed(vault, 100)[:7] == newest_first(7)


def test_a_superseded_document_kept_in_the_listing_sits_under_its_successor(builder):
    builder.add("mem-decision-old", status="superseded", superseded_by="[mem-decision-new]", updated="2026-04-10")
    builder.add("mem-decision-new", supersedes="[mem-decision-old]", updated="2026-04-01")
    for n in range(20):
        builder.add(f"mem-note-filler-{n:02d}", updated="2026-03-01")
    Vault.open(builder.root)
    vault = Vault.open(builder.root)
    assert listed(vault, 3)[:2] == ["mem-decision-new", "mem-decision-old"]


def test_a_dendron_vault_lists_its_most_recently_updated_notes_first(builder):
    for name, updated in (
        ("alpha", 1767225600000),
        ("beta", 1775001600000),
        ("gamma", 1772323200000),
    ):  # 2026-01-01, 04-01, 03-01
        builder.raw(
            f"{name}.md",
            f"---\nid: {name}0000000000000000000\ntitle: {name.title()}\ndesc: ''\n"
            f"updated: {updated}\ncreated: 1767225600000\n---\nA note.\n",
        )
    Vault.open(builder.root, flavour="dendron")
    vault = Vault.open(builder.root, flavour="dendron")
    assert [hit.title for hit in vault.search("", 10)] == ["Beta", "Gamma", "Alpha"]
