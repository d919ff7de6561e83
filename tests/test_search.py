"""Search: the query language, lifecycle-aware ranking and what it refuses to show by default."""

from __future__ import annotations

from workbench import Vault


def ids(hits):
    return [h.id for h in hits]


def test_an_exact_id_comes_first(sample_copy):
    assert ids(Vault.open(sample_copy).search("mem-entity-postgres", 3))[0] == "mem-entity-postgres"


def test_filters_narrow_and_exclude(sample_copy):
    vault = Vault.open(sample_copy)
    decisions = vault.search("type:decision tag:money", 10)
    assert set(ids(decisions)) == {"mem-decision-money-integer-cents", "mem-decision-money-numeric-decimal"}
    assert all(h.status != "archived" for h in vault.search("redis -status:archived", 10))
    assert all(h.type == "task" for h in vault.search("is:stale type:task", 10)) or vault.search("is:stale type:task", 10) == []


def test_typos_and_prefixes_still_find_the_document(sample_copy):
    vault = Vault.open(sample_copy)
    assert "mem-entity-postgres" in ids(vault.search("postgress", 3))
    assert "mem-entity-stripe" in ids(vault.search("stri", 5))


def test_a_superseded_document_sits_below_its_successor(sample_copy):
    hits = ids(Vault.open(sample_copy).search("background jobs celery redis", 10))
    assert hits.index("mem-decision-jobs-procrastinate") < hits.index("mem-decision-jobs-celery-redis")


def test_invalid_documents_only_on_request(sample_copy):
    (sample_copy / "notes" / "mem-note-broken.md").write_text("---\ntitle: [zebra\n---\nzebra zebra\n")
    vault = Vault.open(sample_copy)
    assert "mem-note-broken" not in ids(vault.search("zebra", 10))
    assert ids(vault.search("zebra is:invalid", 10)) == ["mem-note-broken"]


def test_hostile_query_syntax_is_not_an_error(sample_copy):
    vault = Vault.open(sample_copy)
    for query in ['"unterminated', 'AND OR NOT', '*', 'title:"x', '-', 'NEAR(a b)', "'; DROP TABLE files; --"]:
        vault.search(query, 5)  # answers (possibly nothing), never raises
