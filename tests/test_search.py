"""Search: the query language, lifecycle-aware ranking and what it refuses to show by default."""

from __future__ import annotations

import re
import subprocess
import sys
from types import SimpleNamespace

import pytest
from helpers import run_cli
from vault_builders import doc_path, doc_text

from workbench import QueryError, Vault
from workbench.core.records import derived_store
from workbench.core.views import fulltext, search, semantic, word_lists


def ids(hits):
    return [h.id for h in hits]


@pytest.fixture(autouse=True)
def _no_kept_lists(monkeypatch):
    """No test here keeps the common words' lists unless it says so (`_lists_from`): a thread
    keeping them beside its searches would change which reads it sees (never an answer)."""
    monkeypatch.setattr(word_lists, "LISTS_FROM", 10**9)


def test_an_exact_id_comes_first(sample_copy):
    assert ids(Vault.open(sample_copy).search("mem-entity-postgres", 3))[0] == "mem-entity-postgres"


def test_filters_narrow_and_exclude(sample_copy):
    vault = Vault.open(sample_copy)
    decisions = vault.search("type:decision tag:money", 10)
    assert set(ids(decisions)) == {"mem-decision-money-integer-cents", "mem-decision-money-numeric-decimal"}
    assert all(h.status != "archived" for h in vault.search("redis -status:archived", 10))
    assert (
        all(h.type == "task" for h in vault.search("is:stale type:task", 10))
        or vault.search("is:stale type:task", 10) == []
    )


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
    for query in ['"unterminated', "AND OR NOT", "*", 'title:"x', "-", "NEAR(a b)", "'; DROP TABLE files; --"]:
        vault.search(query, 5)  # answers (possibly nothing), never raises


# -- ranking --------------------------------------------------------------------------------------

FILLER = (
    "The quarterly report lists meetings, hiring plans, office moves, budget lines and vendor reviews. " * 12
).strip()


def _write(builder, doc_id: str, title: str, body: str, **fields) -> None:
    text = doc_text(doc_id, body=body + "\n", **fields).replace(f"title: Title of {doc_id}\n", f"title: {title}\n")
    builder.raw(doc_path(doc_id), text)


def _others(builder, count: int = 6) -> None:
    """Unrelated documents, so that word rarity means something."""
    topics = [
        "invoice layout",
        "office plants",
        "holiday calendar",
        "printer toner",
        "parking spaces",
        "coffee machine",
        "team lunch",
        "desk booking",
    ]
    for n in range(count):
        _write(
            builder,
            f"mem-note-other-{n}",
            topics[n % len(topics)].capitalize(),
            f"Notes about the {topics[n % len(topics)]}.",
        )


def test_a_document_about_the_question_beats_one_that_merely_has_every_word(builder):
    _others(builder)
    _write(
        builder,
        "mem-note-weekly-digest",
        "Weekly digest",
        f"{FILLER} Also: a stripe webhook failed, its retries ran, and a signature was rotated. {FILLER}",
    )
    _write(
        builder,
        "mem-note-webhook-retries",
        "Webhook retries",
        "Stripe webhooks that fail are retried with exponential backoff; webhook retries stop after three days.",
    )
    hits = ids(Vault.open(builder.root).search("stripe webhook retries signature", 5))
    assert hits[0] == "mem-note-webhook-retries"
    assert "mem-note-weekly-digest" in hits  # still found: it has every word


def test_a_document_without_one_of_the_words_is_found_when_many_have_them_all(builder):
    # Documents with every word first, the others only to fill up, buried the best answer here.
    for n in range(25):
        _write(
            builder,
            f"mem-note-minutes-{n}",
            f"Minutes {n}",
            f"{FILLER} We talked about the deploy, a review and a checklist. {FILLER}",
        )
    _write(
        builder,
        "mem-context-release-checklist",
        "Deploy checklist",
        "The checklist for every deploy: tag, migrate, deploy, watch the checklist.",
    )
    assert ids(Vault.open(builder.root).search("deploy review checklist", 5))[0] == "mem-context-release-checklist"


def test_question_words_do_not_rank(builder):
    _others(builder)
    _write(builder, "mem-note-faq", "Questions", "How do I rotate my keys? I lost my keys once; my team helped me.")
    _write(builder, "mem-note-routine", "Security routine", "Rotate the keys every year; old keys are revoked.")
    vault = Vault.open(builder.root)
    # "how do I ... my" says nothing about the subject: the two are alike on "rotate" and "keys",
    # and the shorter one wins.
    assert ids(vault.search("how do I rotate my keys", 5))[0] == "mem-note-routine"
    # A query of nothing but such words still searches for them.
    assert ids(vault.search("how do I", 5))[0] == "mem-note-faq"


def test_a_long_document_mentioning_a_word_ranks_below_a_short_one_about_it(builder):
    _others(builder)
    _write(
        builder,
        "mem-note-handbook",
        "Handbook",
        f"{FILLER} Vacuum runs nightly. {FILLER} The vacuum log is kept. {FILLER}",
    )
    _write(builder, "mem-note-vacuum", "Maintenance", "Autovacuum thresholds: vacuum the big tables nightly.")
    assert ids(Vault.open(builder.root).search("when does vacuum run on the tables", 5))[0] == "mem-note-vacuum"


def test_bm25_uses_its_own_saturation_not_fts5s(builder, without_meaning):
    """FTS5's bm25() (k1 = 1.2) is undone to recover each row's term frequency; the score then
    saturates with fulltext.K1: same length, three hits against one."""
    for n, body in enumerate(["zebra aa bb cc", "zebra zebra zebra cc", "dd ee ff gg"]):
        _write(builder, f"mem-note-doc-{'xyz'[n]}", f"Doc {'xyz'[n]}", body)
    hits = Vault.open(builder.root).search("zebra alpha beta gamma", 5)  # more than a typed query: plain BM25
    assert ids(hits) == ["mem-note-doc-y", "mem-note-doc-x"]
    expected = (3 * (fulltext.K1 + 1) / (3 + fulltext.K1)) / (1 * (fulltext.K1 + 1) / (1 + fulltext.K1))
    assert abs(hits[0].score / hits[1].score - expected) < 1e-6


def _near_and_apart(builder) -> None:
    """Two notes with the same words, as many of each, and as long: one says "merge conflicts",
    the other has the two words far apart. Alone, BM25 ties them (and the id puts "apart" first)."""
    _others(builder)
    _write(builder, "mem-note-near", "Note one", "merge conflicts aa bb cc dd ee ff gg hh")
    _write(builder, "mem-note-apart", "Note two", "merge aa bb cc dd ee ff gg hh conflicts")


def test_in_a_question_neighbouring_words_said_together_rank_first(builder, without_meaning, monkeypatch):
    _near_and_apart(builder)
    vault = Vault.open(builder.root)
    assert ids(vault.search("why do merge conflicts keep happening", 5)) == ["mem-note-near", "mem-note-apart"]
    monkeypatch.setattr(fulltext, "NEAR_WEIGHT", 0.0)
    assert ids(vault.search("why do merge conflicts keep showing", 5)) == ["mem-note-apart", "mem-note-near"]


def test_a_typed_query_does_not_ask_for_neighbours():
    def pairs(text: str) -> list[str]:
        return [t.expression for t in fulltext.query_terms(search.parse_query(text)) if t.expression.startswith("NEAR")]

    assert pairs("merge conflicts often") == []  # as long as a query being typed
    assert pairs("merge conflicts often again later") == [
        f'NEAR("merge" "conflicts", {fulltext.NEAR_WINDOW})',
        f'NEAR("conflicts" "often", {fulltext.NEAR_WINDOW})',
        f'NEAR("often" "later", {fulltext.NEAR_WINDOW})',
    ]


def test_neighbours_are_content_words_and_not_common_ones(builder, without_meaning):
    terms = [t.expression for t in fulltext.query_terms(search.parse_query("why did the cache expire so soon"))]
    assert [t for t in terms if "NEAR" in t] == [
        f'NEAR("cache" "expire", {fulltext.NEAR_WINDOW})',
        f'NEAR("expire" "soon", {fulltext.NEAR_WINDOW})',
    ]
    # A word in nearly every document is left out of the ranking, and so is any pair with it.
    for n in range(12):
        _write(builder, f"mem-note-cache-{n}", f"Cache {n}", f"The cache holds entry {n}.")
    _write(builder, "mem-note-expiry", "Expiry", "Entries in the cache expire soon after a deploy.")
    vault = Vault.open(builder.root)
    asked: list[str] = []
    real = vault.store.postings
    vault.store.postings = lambda expression, weights: asked.append(expression) or real(expression, weights)
    assert ids(vault.search("why did the cache expire so soon", 5))[0] == "mem-note-expiry"
    assert f'NEAR("expire" "soon", {fulltext.NEAR_WINDOW})' in asked and not [e for e in asked if '"cache"' in e]


def test_a_pair_said_together_does_not_outweigh_another_of_the_questions_words(builder, without_meaning):
    _others(builder)
    _write(builder, "mem-note-together", "Note one", "merge conflicts aa bb cc dd ee ff gg hh")
    _write(builder, "mem-note-rebase", "Note two", "merge aa bb cc dd rebase ee ff gg conflicts")
    hits = ids(Vault.open(builder.root).search("why do merge conflicts happen after a rebase", 5))
    assert hits == ["mem-note-rebase", "mem-note-together"]


def test_a_phrase_must_appear_and_a_minus_word_must_not(builder):
    _others(builder)
    _write(builder, "mem-note-rls", "Tenant isolation", "Row level security keeps tenants apart.")
    _write(builder, "mem-note-levels", "Log levels", "Every row of the log has a level; security events are logged.")
    _write(builder, "mem-note-rls-old", "Old isolation", "Row level security, first attempt with views.")
    vault = Vault.open(builder.root)
    assert set(ids(vault.search('"row level" security tenants', 10))) == {"mem-note-rls", "mem-note-rls-old"}
    assert ids(vault.search('"row level" security tenants -views', 10)) == ["mem-note-rls"]
    assert "mem-note-levels" in ids(vault.search("row level security tenants", 10))


def test_a_superseded_document_is_placed_just_below_its_successor_however_far_it_ranked(builder):
    _others(builder)
    _write(
        builder,
        "mem-decision-queue-new",
        "Background jobs on the Postgres queue",
        "Background jobs run on the Postgres queue; jobs are retried by the queue.",
        supersedes="[mem-decision-queue-old]",
    )
    _write(
        builder,
        "mem-decision-queue-old",
        "Celery and Redis",
        f"{FILLER} We ran jobs on Celery. {FILLER}",
        status="superseded",
        superseded_by="[mem-decision-queue-new]",
    )
    for n in range(4):
        _write(builder, f"mem-note-jobs-{n}", f"Jobs note {n}", f"Background jobs and the queue: note {n} about jobs.")
    hits = ids(Vault.open(builder.root).search("which queue runs the background jobs", 10))
    assert hits.index("mem-decision-queue-old") == hits.index("mem-decision-queue-new") + 1


def test_supersession_in_a_circle_loses_no_document(builder):
    _write(
        builder, "mem-decision-alpha", "Alpha zebra", "zebra", status="superseded", superseded_by="[mem-decision-beta]"
    )
    _write(
        builder,
        "mem-decision-beta",
        "Beta zebra",
        "zebra zebra",
        status="superseded",
        superseded_by="[mem-decision-alpha]",
    )
    assert sorted(ids(Vault.open(builder.root).search("zebra", 10))) == ["mem-decision-alpha", "mem-decision-beta"]


def test_a_narrow_filter_finds_a_match_far_down_the_ranking(builder):
    for n in range(max(250, fulltext.EXACT_BATCH + 20)):
        _write(builder, f"mem-note-zebra-{n}", f"Zebra {n}", "Zebra zebra zebra.")
    _write(builder, "mem-task-fence", "Mend the fence", f"{FILLER} A zebra was seen. {FILLER}")
    assert ids(Vault.open(builder.root).search("zebra type:task", 5)) == ["mem-task-fence"]


def test_search_sees_changes_to_the_vault(builder):
    _others(builder)
    vault = Vault.open(builder.root)
    assert ids(vault.search("quokka", 5)) == []
    assert ids(vault.search("parking", 5)) == ["mem-note-other-4"]
    _write(builder, "mem-note-quokka", "Quokka", "A quokka visited the parking spaces.")
    (builder.root / "notes" / "mem-note-other-4.md").unlink()
    vault.refresh()
    assert ids(vault.search("quokka", 5)) == ["mem-note-quokka"]
    assert ids(vault.search("parking", 5)) == ["mem-note-quokka"]


CHURN_WORDS = "queue invoice retry webhook ledger refund tenant export cache token audit schema".split()


def _churned_note(rng, n: int) -> tuple[str, str, str]:
    words = [rng.choice(CHURN_WORDS) for _ in range(rng.randint(3, 40))]
    return f"mem-note-churn-{n}", " ".join(words[:2]).capitalize(), " ".join(words)


@pytest.mark.parametrize("seed", range(4))
def test_kept_results_catch_up_with_a_watchers_writes_and_score_as_if_asked_afresh(builder, seed, monkeypatch):
    import random

    rng = random.Random(seed)
    for n in range(30):
        _write(builder, *_churned_note(rng, n))
    vault = Vault.open(builder.root)
    queries = [
        "queue retry",
        "webhook ledger refund tenant",
        "invoice",
        "token -audit",
        '"tenant export" cache',
        "schema type:note",
    ]
    caught_up = []
    asked = vault.store.postings
    monkeypatch.setattr(vault.store, "postings", lambda *a, **k: (caught_up.append(k.get("among")), asked(*a, **k))[1])
    for query in queries:
        vault.search(query, 20)
    made = 30
    for _ in range(8):
        paths = []
        for _ in range(rng.randint(1, 3)):  # rewrite, add or delete a note, as an agent would
            choice = rng.random()
            doc_id, title, body = _churned_note(rng, rng.randrange(made) if choice < 0.6 else made)
            made += choice >= 0.6
            path = builder.root / doc_path(doc_id)
            if choice < 0.15 and path.exists():
                path.unlink()
            else:
                _write(builder, doc_id, title, body)
            paths.append(path.relative_to(builder.root).as_posix())
        vault.refresh_paths(paths)
        for query in queries:
            kept = [(hit.id, hit.score) for hit in vault.search(query, 20)]
            held = fulltext.KEPT.pop(vault.index)
            fresh = [(hit.id, hit.score) for hit in vault.search(query, 20)]
            fulltext.KEPT[vault.index] = held
            assert [i for i, _ in kept] == [i for i, _ in fresh], query
            assert [s for _, s in kept] == pytest.approx([s for _, s in fresh], rel=1e-9), query
    assert any(caught_up), "kept results were brought up to date, not asked for again"


def _damage(store_file, at_page: int = 3, pages: int = 5) -> None:
    """Overwrite pages in the middle of a closed store, as a failing disk or a stray write would."""
    with open(store_file, "r+b") as handle:
        handle.seek(8192 * at_page)
        handle.write(bytes(range(256)) * (32 * pages))


QUERIES = ("invoice", "stripe webhook", "when are we allowed to ship to production", "type:decision postgres")


def test_a_store_damaged_on_disk_is_built_again_and_searches_answer_as_before(sample_copy):
    vault = Vault.open(sample_copy)
    before = {q: ids(vault.search(q, 10)) for q in QUERIES}
    assert all(before.values())
    vault.store.close()
    _damage(sample_copy / ".workbench" / "index.sqlite")

    reopened = Vault.open(sample_copy)
    assert {q: ids(reopened.search(q, 10)) for q in QUERIES} == before
    assert not reopened.store.damaged
    assert reopened.store.db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    reopened.store.close()
    assert {q: ids(Vault.open(sample_copy).search(q, 10)) for q in QUERIES} == before  # and it was written back


def test_a_query_that_fts5_rejects_is_not_taken_for_damage(sample_copy):
    vault = Vault.open(sample_copy)
    assert vault.store.postings('"unclosed', search.FIELD_WEIGHTS) is None
    assert vault.store.count("NEAR(") is None
    assert not vault.store.damaged


def test_the_store_reports_fts5s_row_sizes_and_totals(builder):
    for n, body in enumerate(["one two three", "one two three four five"]):
        _write(builder, f"mem-note-size-{n}", f"Size {n}", body)
    store = Vault.open(builder.root).store
    rows, average = store.totals()
    assert rows == 2
    by_path = {path: size for path, size in store.rows(store.postings('"one"', search.FIELD_WEIGHTS)).values()}
    sizes = [by_path[f"notes/mem-note-size-{n}.md"] for n in range(2)]
    assert sizes[1] - sizes[0] == 2  # two more body words, everything else alike
    assert average == sum(sizes) / 2
    assert derived_store._varints(bytes([0x05, 0x82, 0x2C])) == [5, 300]


# -- meaning --------------------------------------------------------------------------------------


@pytest.fixture
def without_meaning(monkeypatch):
    """Full text alone, whether or not the embedding package is installed."""
    monkeypatch.setattr(semantic, "model", lambda: None)


class _WordTokenizer:
    """Each known word one token; unknown words none."""

    def __init__(self, vocabulary: list[str]):
        self.ids = {word: n for n, word in enumerate(vocabulary)}

    def encode_batch(self, texts, add_special_tokens=False):
        return [
            SimpleNamespace(ids=[self.ids[w] for w in re.findall(r"\w+", t.lower()) if w in self.ids]) for t in texts
        ]


@pytest.fixture
def tiny_meaning(monkeypatch):
    """A model of a few words in which "huge" and "large" mean the same and nothing else does."""
    np = pytest.importorskip("numpy")
    words = [
        "huge",
        "large",
        "file",
        "files",
        "read",
        "part",
        "cat",
        "food",
        "plants",
        "office",
        "notes",
        "about",
        "the",
    ]
    embedding = np.eye(len(words), dtype=np.float32)
    embedding[words.index("huge")] = embedding[words.index("large")]
    fake = semantic.Model(embedding, _WordTokenizer(words))
    monkeypatch.setattr(semantic, "model", lambda: fake)
    return fake


def _vocabulary_mismatch(builder) -> None:
    _others(builder)
    _write(builder, "mem-note-offsets", "Offsets", "Load a slice of a large log with an offset.")
    _write(builder, "mem-note-cats", "Cats", "Cat food for the office cat.")
    _write(builder, "mem-note-sizes", "Sizes", "Large, medium or small: pick a size.")


QUESTION = "skim through a huge thing quickly"  # no word of it in any document; "huge" means "large"


def test_a_question_finds_the_document_that_says_it_in_other_words(builder, tiny_meaning):
    _vocabulary_mismatch(builder)
    vault = Vault.open(builder.root)
    assert set(ids(vault.search(QUESTION, 5))[:2]) == {"mem-note-offsets", "mem-note-sizes"}
    assert search._related(search._meaning(vault.index), search.parse_query(QUESTION)) == {
        "large": pytest.approx(search.NEIGHBOUR_WEIGHT)
    }


def test_without_the_model_a_question_is_full_text_alone(builder, without_meaning):
    _vocabulary_mismatch(builder)
    assert ids(Vault.open(builder.root).search(QUESTION, 5)) == []


def test_a_typed_query_does_not_use_meaning(builder, tiny_meaning, monkeypatch):
    _vocabulary_mismatch(builder)
    vault = Vault.open(builder.root)
    monkeypatch.setattr(search, "_meaning", lambda vault: pytest.fail("meaning asked for a typed query"))
    assert ids(vault.search("huge thing", 5)) == []


def test_meaning_respects_filters_phrases_and_minus_words(builder, tiny_meaning):
    _vocabulary_mismatch(builder)
    vault = Vault.open(builder.root)
    assert ids(vault.search(QUESTION + " -large", 10)) == []
    assert ids(vault.search(QUESTION + ' "office cat"', 10)) == ["mem-note-cats"]
    assert ids(vault.search(QUESTION + " type:task", 10)) == []


def test_document_vectors_are_kept_across_changes_by_digest(builder, tiny_meaning, monkeypatch):
    _vocabulary_mismatch(builder)
    vault = Vault.open(builder.root)
    first = search._meaning(vault.index)
    assert search._meaning(vault.index) is first  # same records: same index
    _write(builder, "mem-note-new", "New", "About huge plants.")
    vault.refresh()
    encoded: list[str] = []
    real = tiny_meaning.encode
    monkeypatch.setattr(tiny_meaning, "encode", lambda texts: encoded.extend(texts) or real(texts))
    second = search._meaning(vault.index)
    assert second is not first and "mem-note-new" in second.ids
    assert [t for t in encoded if "plants" in t and "huge" in t] and len(encoded) == 1  # only the new one


def test_an_index_brought_up_to_date_equals_one_built_afresh(builder, tiny_meaning, monkeypatch):
    np = pytest.importorskip("numpy")
    _vocabulary_mismatch(builder)
    tiny_meaning.name = "tiny"
    vault = Vault.open(builder.root)
    first = search._meaning(vault.index)
    first._words()  # the vault's words encoded once
    _write(builder, "mem-note-new", "New", "About huge plants and large files.")
    _write(builder, "mem-note-cats", "Cats", "Notes about the office plants.")
    (builder.root / "notes" / "mem-note-sizes.md").unlink()
    vault.refresh()
    encoded: list[str] = []
    real = tiny_meaning.encode
    monkeypatch.setattr(tiny_meaning, "encode", lambda texts: encoded.extend(texts) or real(texts))
    caught_up = search._meaning(vault.index)
    caught_up._words()
    words_encoded = [text for text in encoded if "\n" not in text]
    assert words_encoded and set(words_encoded) <= set(caught_up.words) - set(first.words), "only new words are encoded"
    del semantic.KEPT[vault.index]
    fresh = search._meaning(vault.index)
    assert caught_up.frequency == fresh.frequency and caught_up.words == fresh.words
    assert caught_up.ids == fresh.ids and np.allclose(caught_up.matrix, fresh.matrix)
    assert np.allclose(caught_up._words(), fresh._words())
    assert caught_up.neighbours("huge", 2, 0.5) == fresh.neighbours("huge", 2, 0.5)
    stored = {d for (d,) in vault.store.db.execute("SELECT digest FROM vectors WHERE model = 'tiny'")}
    assert stored == {r.document.digest for r in vault.records}, "the vectors of contents gone are forgotten"


def test_encoding_a_vault_for_a_question_does_not_hold_the_vault(builder, tiny_meaning, monkeypatch):
    """The first question encodes every document (seconds on a large vault): meanwhile a title
    typed elsewhere, the watcher and the person's changes must go on."""
    import threading

    _vocabulary_mismatch(builder)
    vault = Vault.open(builder.root)
    started, release = threading.Event(), threading.Event()
    real = tiny_meaning.encode

    def slow(texts):
        if any("\n" in text for text in texts):  # documents, not the question
            started.set()
            assert release.wait(10), "the vault was held while encoding"
        return real(texts)

    monkeypatch.setattr(tiny_meaning, "encode", slow)
    answered: list = []
    asking = threading.Thread(target=lambda: answered.append(ids(vault.search(QUESTION, 5))))
    asking.start()
    assert started.wait(10)
    assert ids(vault.search("cats", 5)) == ["mem-note-cats"]  # a title typed meanwhile
    release.set()
    asking.join(10)
    assert answered and set(answered[0][:2]) == {"mem-note-offsets", "mem-note-sizes"}


def test_document_vectors_outlive_the_process_in_the_derived_store(builder, tiny_meaning, monkeypatch):
    """A later open (another process) encodes only what changed since; another model's vectors are
    not taken for its own."""
    _vocabulary_mismatch(builder)
    tiny_meaning.name = "tiny"
    first = Vault.open(builder.root)
    assert search._meaning(first.index) is not None
    stored = first.store.db.execute("SELECT count(*) FROM vectors WHERE model = 'tiny'").fetchone()[0]
    assert stored == len(first.records)
    first.store.close()
    _write(builder, "mem-note-new", "New", "About huge plants.")
    encoded: list[str] = []
    real = tiny_meaning.encode
    monkeypatch.setattr(tiny_meaning, "encode", lambda texts: encoded.extend(texts) or real(texts))
    again = Vault.open(builder.root)
    index = search._meaning(again.index)
    assert len(encoded) == 1 and "plants" in encoded[0]  # only the new document
    assert index.matrix.shape[0] == len(again.records)
    with_stored = ids(again.search(QUESTION, 5))
    tiny_meaning.name = "another"
    encoded.clear()
    fresh = Vault.open(builder.root)
    assert ids(fresh.search(QUESTION, 5)) == with_stored  # read back, the vectors rank as encoded ones do
    assert len([t for t in encoded if "\n" in t]) == len(again.records)  # documents, not words: encoded anew


def test_the_packaged_embeddings_load_without_a_download():
    if semantic.model() is None:
        pytest.skip("the embedding package is not installed")
    model = semantic.model()
    huge, large, cat = model.encode(["a huge file", "a large file", "cat food"])
    assert float(huge @ large) > 0.6 > float(huge @ cat)


def test_a_pasted_command_flag_is_a_word_not_an_exclusion(sample_copy):
    query = search.parse_query("why does wc -c disagree with git --force -redis")
    assert "c" in query.words and "force" in query.words
    assert query.excluded_words == ["redis"]
    vault = Vault.open(sample_copy)
    # A note saying "a" is not dropped because a question pasted `declare -A`.
    assert ids(vault.search("postgres -a", 5)) == ids(vault.search("postgres a", 5))
    assert "mem-entity-postgres" in ids(vault.search("postgres -a", 5))


def test_a_filter_that_cannot_match_as_written_is_refused_with_what_it_could_be(sample_copy):
    vault = Vault.open(sample_copy)
    for query, said in [
        ("updated:>2026-13-01", "not a date"),
        ("created:last-week", "not a date"),
        ("type:decsion", "types: concept, context, decision"),
        ("-status:archivd", "statuses: active, archived"),
        ("is:stael", "invalid, valid, dangling, orphan, stale"),
        ("from:mem-nothing-here", "no document has this id"),
    ]:
        with pytest.raises(QueryError, match=said):
            vault.search(f"postgres {query}")
    with pytest.raises(QueryError) as both:
        vault.search("type:decsion updated:2026-02-30")
    assert "type:decsion" in str(both.value) and "updated:2026-02-30" in str(both.value)


def test_every_value_the_format_or_the_vault_uses_is_a_filter_that_may_match_nothing(builder):
    _write(builder, "mem-note-lone", "Lone note", "Only a note here.")
    vault = Vault.open(builder.root)
    for query in (
        "type:task",
        "status:superseded",
        "is:deprecated",
        "is:orphan",
        "-is:stale",
        "updated:<=2020-01-01",
        "links:mem-gone",
    ):
        assert isinstance(vault.search(query), list), query  # no such documents, but a fair question


def test_a_hit_says_why_it_matched_with_the_words_around_the_querys(sample_copy):
    vault = Vault.open(sample_copy)
    hits = vault.search("deduplicate webhooks", 5)
    around = vault.snippets("deduplicate webhooks", hits)
    assert hits[0].id == "mem-decision-stripe-webhook-dedup" and "\x02" in around[hits[0].id]
    marked = [part.lower() for text in around.values() for part in text.split("\x02")[1:]]
    assert marked and all(part.split("\x03")[0].startswith(("dedup", "webhook")) for part in marked)
    assert vault.snippets("type:decision", vault.search("type:decision", 3)) == {}  # filters alone: nothing to show


def test_active_documents_come_before_an_archived_one_that_says_the_same_words(sample_copy):
    """The lifecycle orders what search finds: a note put away ranks below the live documents on
    its subject, not third among them."""
    vault = Vault.open(sample_copy)
    vault.set_status("mem-note-flaky-webhook-signature-clock-skew", "archived")
    found = vault.search("stripe webhook", 8)
    statuses = [hit.status for hit in found]
    assert "archived" not in statuses[:5], [(h.id, h.status) for h in found]


def test_a_document_with_frontmatter_errors_is_found_by_its_words_with_its_problem(builder):
    """Not a hit (SPEC: invalid documents are not returned by default searches), but named apart,
    with what makes it invalid: the document a curator must repair is found by its own words."""
    builder.add("mem-entity-sound")
    builder.raw(
        "notes/mem-note-broken.md",
        "---\nid: mem-note-broken\ntype: note\ntitle: Quokka migration notes\n---\nQuokkas move at dusk.\n",
    )
    vault = Vault.open(builder.root)
    results = vault.search("quokka migration")
    assert list(results) == []
    assert [(hit.id, hit.valid) for hit in results.also_invalid] == [("mem-note-broken", False)]
    assert "field-missing" in results.also_invalid[0].problem
    assert [hit.problem.split(":")[0] for hit in vault.search("quokka is:invalid")] == ["field-missing"]
    assert vault.search("sound").also_invalid == []
    shown = run_cli("--vault", str(builder.root), "search", "quokka", "migration")
    assert shown.returncode == 0 and "no documents match" not in shown.stdout
    assert "mem-note-broken  notes/mem-note-broken.md: field-missing: required field" in shown.stdout


def test_a_title_that_holds_every_word_ranks_first_whatever_its_status_and_the_lifecycle_breaks_ties(sample_copy):
    """An archived document titled with the words typed is what was asked for: it ranked fifth for
    `postgres upgrade`, under a Stripe upgrade sharing one word. Between two such titles the live
    one comes first."""
    vault = Vault.open(sample_copy)
    assert ids(vault.search("postgres upgrade", 5))[0] == "mem-task-postgres-16-upgrade"
    assert ids(vault.search("invoice editor", 5))[0] == "mem-concept-offline-invoice-editor"
    found = ids(vault.search("celery workers", 5))
    assert found[0] == "mem-context-celery-operations"
    twin = sample_copy / "contexts" / "mem-context-celery-operations-now.md"
    twin.write_text(
        (sample_copy / "contexts" / "mem-context-celery-operations.md")
        .read_text()
        .replace("id: mem-context-celery-operations", "id: mem-context-celery-operations-now")
        .replace("status: archived", "status: active")
    )
    vault.refresh()
    assert ids(vault.search("celery workers", 5))[:2] == [
        "mem-context-celery-operations-now",
        "mem-context-celery-operations",
    ]


def test_the_invalid_documents_a_search_names_are_looked_for_among_the_invalid_rows_alone(builder, monkeypatch):
    """Naming the invalid documents that match read every matching row, batch after batch, until
    the last said no (a common word in 10,000 copied notes: a second a search). Only the invalid
    documents' rows are read now, and the same one is named."""
    for n in range(400):
        _write(builder, f"mem-note-ledger-{n}", f"Ledger note {n}", "The ledger balances at the end of the day.")
    builder.raw(
        "notes/mem-note-broken.md",
        "---\nid: mem-note-broken\ntype: note\ntitle: Ledger migration\n---\nThe ledger moves at dusk.\n",
    )
    vault = Vault.open(builder.root)
    asked: list[int] = []
    rows = derived_store.DerivedStore.rows

    def counted(self, rowids):
        rowids = list(rowids)
        asked.append(len(rowids))
        return rows(self, rowids)

    monkeypatch.setattr(derived_store.DerivedStore, "rows", counted)
    results = vault.search("ledger")
    assert [hit.id for hit in results.also_invalid] == ["mem-note-broken"]
    assert len(results) == 10
    assert sum(asked) < 200, asked  # the hits' batch and the invalid one's row, not all 401 rows


def test_titles_matched_despite_typos_are_read_from_the_store_not_decoded_from_every_meta(sample_copy):
    """Decoding every document's meta for its title took seconds at 100,000 documents, and the
    dicts it left alive made the cycle collector walk them again and again, each pass holding the
    interpreter (and the TUI's screen). The store's rows have each reading's title."""
    from workbench.core.records.store_rows import StoredDocument

    Vault.open(sample_copy)  # the derived store written: the next open reads its rows
    vault = Vault.open(sample_copy)
    docs = [r.document for r in vault.records]
    assert all(type(doc) is StoredDocument for doc in docs)
    assert "mem-entity-postgres" in ids(vault.search("postgress", 10))  # a typo: matched by title
    decoded = [doc for doc in docs if type(doc.__dict__["_meta"]) is dict]
    assert len(decoded) <= 10 + 3  # the hits' own, not every document's
    assert search._views(vault.index).titles == {doc.id: doc.title.lower() for doc in docs if doc.valid}


def test_a_title_changed_on_disk_is_matched_despite_typos_by_its_new_words(sample_copy):
    vault = Vault.open(sample_copy)
    assert "mem-entity-stripe" in ids(vault.search("stripe", 10))
    path = sample_copy / doc_path("mem-entity-stripe")
    path.write_text(path.read_text("utf-8").replace("title: Stripe", "title: Quokka Ledger Gateway", 1), "utf-8")
    vault.refresh()
    assert "mem-entity-stripe" in ids(vault.search("quoka ledger", 10))


def test_typo_matching_in_pieces_answers_as_one_call_over_every_title(sample_copy, monkeypatch):
    """rapidfuzz holds the interpreter while it runs (0.1-0.3 s over 100,000 titles): it is asked
    a few thousand titles at a time, with the same answer as one call."""
    from rapidfuzz import fuzz, process

    titles = search._views(Vault.open(sample_copy).index).titles
    monkeypatch.setattr(search, "TYPO_CHUNK", 3)
    for typed in ["postgress", "stri", "e", "money", "redis cache", "jobs", "zzzz"]:
        whole = process.extract(typed, titles, scorer=fuzz.partial_ratio, limit=20, score_cutoff=80, processor=None)
        assert search._typo_matches(typed, titles) == [(doc_id, ratio) for _, ratio, doc_id in whole], typed


def _zipf_notes(builder, rng, count: int) -> None:
    """Notes whose words are drawn by frequency, a few near copies among them: common words in
    most notes, rare ones in a few, ties between copies."""
    words = CHURN_WORDS + [f"w{n}x" for n in range(60)]
    weights = [1 / (rank + 1) ** 1.1 for rank in range(len(words))]
    for n in range(count):
        body = " ".join(rng.choices(words, weights, k=rng.randint(5, 60)))
        title = " ".join(rng.choices(words, weights, k=rng.randint(1, 4))).capitalize()
        for copy in range(1 + (n % 7 == 0)):  # every seventh twice, word for word
            _write(builder, f"mem-note-zipf-{n}-{copy}", title, body, tags=f"[{rng.choice(words)}]")


def _full_reading(monkeypatch):
    """Search as it reads every row of every term: what the bounded reading must equal."""
    monkeypatch.setattr(fulltext, "_bounded", lambda *a, **k: None)


@pytest.mark.parametrize("seed", range(3))
def test_common_words_read_for_the_candidates_alone_rank_as_a_full_reading(builder, seed, monkeypatch):
    """A common word's rows are read only for the other words' rows (and its own best), when a
    bound shows no other row can reach a batch: the scores and the order are those of reading
    every row, for common words alone, beside rare ones, excluded words, filters and a write."""
    import random

    rng = random.Random(seed)
    _zipf_notes(builder, rng, 260)
    monkeypatch.setattr(fulltext, "LAZY_FROM", 25)  # a vault of hundreds, not of thousands
    vault = Vault.open(builder.root)
    words = CHURN_WORDS + [f"w{n}x" for n in range(60)]
    queries = ["queue", "queue invoice", "retry w5x", "w1x w2x w3x", "queue -invoice", "invoice type:note"]
    queries += [" ".join(rng.sample(words, rng.randint(1, 3))) for _ in range(40)]
    answered = []
    bounded = fulltext._bounded
    monkeypatch.setattr(fulltext, "_bounded", lambda *a, **k: (answered.append(found := bounded(*a, **k)), found)[1])

    def both(query: str, afresh: bool) -> None:
        found = [(hit.id, hit.score) for hit in vault.search(query, 10)]
        held = fulltext.KEPT.pop(vault.index) if afresh else None  # no common word kept whole
        with monkeypatch.context() as full:
            _full_reading(full)
            expected = [(hit.id, hit.score) for hit in vault.search(query, 10)]
        if held is not None:
            fulltext.KEPT[vault.index] = held
        assert found == expected, query

    for query in queries:
        both(query, afresh=True)
    _write(builder, "mem-note-zipf-new", "Queue retry", "queue queue retry invoice w4x")
    vault.refresh_paths([doc_path("mem-note-zipf-new")])
    for query in queries[:12]:  # with the same rows kept: kept rows caught up score a hair apart from fresh ones
        both(query, afresh=False)
    assert sum(found is not None for found in answered) >= 5, "the bound answered queries with a common word"


def test_a_common_word_answered_by_the_bound_is_not_read_whole(builder, monkeypatch):
    import random

    _zipf_notes(builder, random.Random(7), 260)
    monkeypatch.setattr(fulltext, "LAZY_FROM", 25)
    vault = Vault.open(builder.root)
    assert vault.store.count("queue") > 25
    read_whole = []
    asked = vault.store.postings
    monkeypatch.setattr(vault.store, "postings", lambda e, *a, **k: (read_whole.append(e), asked(e, *a, **k))[1])
    assert vault.search("queue", 10)
    assert "queue" not in read_whole
    assert not fulltext.kept_postings(vault.index).holds("queue", True)


def test_a_common_words_kept_best_rows_are_asked_again_after_a_write(builder, monkeypatch):
    """A common word's best rows by FTS5's score are kept between searches, and asked again after
    a write: a note written to be among the word's best is among them, as FTS5 ranks them now."""
    import random

    _zipf_notes(builder, random.Random(3), 260)
    monkeypatch.setattr(fulltext, "LAZY_FROM", 25)
    monkeypatch.setattr(fulltext, "BEST_ROWS", 30)
    vault = Vault.open(builder.root)
    asked = []
    best = vault.store.best_postings
    monkeypatch.setattr(vault.store, "best_postings", lambda e, *a, **k: (asked.append(e), best(e, *a, **k))[1])
    first = [(hit.id, hit.score) for hit in vault.search("retry w5x", 10)]
    assert asked and [(hit.id, hit.score) for hit in vault.search("retry w5x", 10)] == first
    # "retry" is in most notes (FTS5 gives it no weight: bounded apart), "w5x" ranked by FTS5, once:
    # the second search read its best rows kept
    assert asked == ['"w5x"']
    kept = fulltext.kept_postings(vault.index).best('"w5x"', 30)
    assert len(asked) == 1
    _write(builder, "mem-note-zipf-new", "Retry w5x", "retry w5x retry w5x retry")
    vault.refresh_paths([doc_path("mem-note-zipf-new")])
    now = fulltext.kept_postings(vault.index).best('"w5x"', 30)
    assert len(asked) == 2
    assert now == best('"w5x"', fulltext.FIELD_WEIGHTS, 30) != kept
    assert vault.store.rowids([doc_path("mem-note-zipf-new")]) <= set(now)
    found = [(hit.id, hit.score) for hit in vault.search("retry w5x", 10)]
    fulltext.KEPT.pop(vault.index)
    with monkeypatch.context() as full:
        _full_reading(full)
        expected = [(hit.id, hit.score) for hit in vault.search("retry w5x", 10)]
    # kept rows caught up with the write score a hair apart from rows read afresh
    assert [doc_id for doc_id, _ in found] == [doc_id for doc_id, _ in expected]
    assert [score for _, score in found] == pytest.approx([score for _, score in expected], rel=1e-12)


def test_hits_show_their_type_status_and_title_without_decoding_a_meta(sample_copy):
    """What a hit shows and ranking reads (type, status, title, tags) is read from the stored
    rows of the candidates in one query: decoding each one's meta or view (a decision record's,
    0.05-0.2 ms) was made at every hit shown the first time."""
    from workbench.core.records.store_rows import StoredDocument

    Vault.open(sample_copy)  # the derived store written: the next open reads its rows
    vault = Vault.open(sample_copy)
    docs = {r.document.id: r.document for r in vault.records}
    assert all(type(doc) is StoredDocument for doc in docs.values())
    hits = vault.search("postgres", 10) + vault.search("stripe payments", 10) + vault.search("redis", 10)
    assert len(hits) > 10
    assert not [doc.id for doc in docs.values() if type(doc.__dict__["_meta"]) is dict]
    fresh = {r.document.id: r.document for r in Vault.open(sample_copy).records}
    for hit in hits:
        doc = fresh[hit.id]
        assert (hit.title, hit.type, hit.status, hit.superseded_by) == (
            doc.title,
            doc.type,
            doc.status,
            doc.superseded_by,
        )
        assert (
            search._views(vault.index).facts(docs[hit.id]).haystack
            == (doc.title + " " + doc.id + " " + " ".join(doc.tags)).lower()
        )


def test_several_common_words_are_ranked_together_by_fts5_once(builder, monkeypatch):
    """Two or three common words beside nothing rarer: their best rows are asked of FTS5 as one
    OR-ed query, ranked once as a bare search ranks them (each ranked apart, and every row of each
    read again when the bound did not hold, was up to three times FTS5's work), no word read whole,
    and the answer is a full reading's, before and after a write."""
    import itertools
    import random

    _zipf_notes(builder, random.Random(11), 260)
    monkeypatch.setattr(fulltext, "LAZY_FROM", 25)
    monkeypatch.setattr(fulltext, "BEST_ROWS", 60)  # a vault of hundreds: more than a batch of best rows
    vault = Vault.open(builder.root)
    rows_total = vault.store.totals()[0]
    words = CHURN_WORDS + [f"w{n}x" for n in range(60)]
    common = [word for word in words if 25 < vault.store.count(f'"{word}"') < rows_total // 3][:8]
    assert len(common) == 8
    best_asked, read_whole = [], []
    best, whole = vault.store.best_postings, vault.store.postings
    monkeypatch.setattr(vault.store, "best_postings", lambda e, *a, **k: (best_asked.append(e), best(e, *a, **k))[1])
    monkeypatch.setattr(vault.store, "postings", lambda e, *a, **k: (read_whole.append(e), whole(e, *a, **k))[1])

    def full(query: str) -> list[tuple[str, float]]:
        held = fulltext.KEPT.pop(vault.index)
        with monkeypatch.context() as reading:
            _full_reading(reading)
            expected = [(hit.id, hit.score) for hit in vault.search(query, 10)]
        fulltext.KEPT[vault.index] = held
        return expected

    together = []
    for size in (2, 3):
        for chosen in itertools.combinations(common, size):
            query = " ".join(chosen)
            best_asked.clear()
            read_whole.clear()
            fulltext.KEPT.pop(vault.index, None)  # no word kept whole from an earlier query
            found = [(hit.id, hit.score) for hit in vault.search(query, 10)]
            either, both = (" OR ".join(f'"{word}"' for word in chosen), " AND ".join(f'"{word}"' for word in chosen))
            # never a word apart; two that weigh alike: the rows holding both first
            assert best_asked in ([either], [both], [both, either]) if size == 2 else best_asked == [either], query
            if not [e for e in read_whole if e.strip('"') in chosen]:
                together.append(chosen)
            assert found == full(query), query
    assert len(together) >= 10 and any(len(chosen) == 3 for chosen in together), together
    chosen = next(chosen for chosen in together if len(chosen) == 3)
    query = " ".join(chosen)
    vault.search(query, 10)  # the best rows kept from before the write
    best_asked.clear()
    _write(builder, "mem-note-zipf-new", chosen[0].capitalize(), " ".join(chosen * 3))
    vault.refresh_paths([doc_path("mem-note-zipf-new")])
    found = [(hit.id, hit.score) for hit in vault.search(query, 10)]
    assert best_asked == [" OR ".join(f'"{word}"' for word in chosen)]  # asked again after the write
    assert "mem-note-zipf-new" in [doc_id for doc_id, _ in found]
    assert found == full(query)


def test_two_common_words_are_ranked_by_fts5_over_the_rows_holding_both(builder, monkeypatch):
    """Two common words with more rows than the best asked: FTS5 ranks only the rows holding
    both (half the rows of the two, or fewer, scored; a row holding one is bounded, below), and
    every page is a full reading's, also after a write."""
    import itertools
    import random

    _zipf_notes(builder, random.Random(13), 800)
    monkeypatch.setattr(fulltext, "LAZY_FROM", 60)
    monkeypatch.setattr(fulltext, "BEST_ROWS", 100)
    vault = Vault.open(builder.root)
    rows_total = vault.store.totals()[0]
    words = CHURN_WORDS + [f"w{n}x" for n in range(60)]
    common = [word for word in words if 60 < vault.store.count(f'"{word}"') < rows_total // 3]
    asked = []
    best = vault.store.best_postings
    monkeypatch.setattr(vault.store, "best_postings", lambda e, *a, **k: (asked.append(e), best(e, *a, **k))[1])

    def both(query: str, limit: int = 10) -> list[tuple[str, float]]:
        fulltext.KEPT.pop(vault.index, None)
        asked.clear()
        found = [(hit.id, hit.score) for hit in vault.search(query, limit)]
        with monkeypatch.context() as reading:
            _full_reading(reading)
            assert found == [(hit.id, hit.score) for hit in vault.search(query, limit)], query
        return found

    pairs = [
        pair
        for pair in itertools.combinations(common, 2)
        if fulltext.BEST_ROWS < sum(map(vault.store.count, (f'"{w}"' for w in pair)))
    ]
    joined = []
    for first, second in pairs[:40]:
        both(f"{first} {second}")
        assert asked in (
            [f'"{first}" OR "{second}"'],
            [f'"{first}" AND "{second}"'],
            [f'"{first}" AND "{second}"', f'"{first}" OR "{second}"'],
        )
        if asked == [f'"{first}" AND "{second}"']:
            joined.append((first, second))
    assert len(joined) >= 3, joined  # answered from the rows holding both alone
    first, second = joined[0]
    fulltext.KEPT.pop(vault.index, None)
    _write(builder, "mem-note-zipf-new", f"{first} {second}".capitalize(), f"{first} {second} " * 3)
    vault.refresh_paths([doc_path("mem-note-zipf-new")])
    assert "mem-note-zipf-new" in [doc_id for doc_id, _ in both(f"{first} {second}")]  # after a write
    # Another process writes a note holding both and brings the store in line: the best rows are
    # asked again (not the ones kept from before), and the note is found once this vault reads it.
    vault.search(f"{first} {second}", 10)
    script = (
        "import sys; from pathlib import Path; from workbench import Vault;"
        "root = Path(sys.argv[1]); Vault.open(root).refresh_paths([sys.argv[2]])"
    )
    _write(builder, "mem-note-zipf-other", f"{second} {first}".capitalize(), f"{second} {first} " * 4)
    other = subprocess.run([sys.executable, "-c", script, str(builder.root), doc_path("mem-note-zipf-other")])
    assert other.returncode == 0
    asked.clear()
    found = [(hit.id, hit.score) for hit in vault.search(f"{first} {second}", 10)]
    assert asked and asked[0] == f'"{first}" AND "{second}"'  # asked again: the store changed
    fulltext.KEPT.pop(vault.index, None)
    with monkeypatch.context() as reading:
        _full_reading(reading)
        assert found == [(hit.id, hit.score) for hit in vault.search(f"{first} {second}", 10)]
    vault.refresh_paths([doc_path("mem-note-zipf-other")])
    assert "mem-note-zipf-other" in [doc_id for doc_id, _ in both(f"{first} {second}")]


@pytest.mark.parametrize("seed", range(5))
def test_a_row_holding_one_of_two_common_words_is_bounded_by_that_words_most(seed):
    """Where only the rows holding both of two common words were ranked, a row holding one of
    them, whatever its score (up to the most FTS5 gives it), adds no more than `_reach` says,
    however low the least of the best rows (none left outside them: 0)."""
    import random

    rng = random.Random(seed)
    term = fulltext.Term('"w"', 1.0)
    listed = [(term, rng.uniform(0.1, 5.0), rng.uniform(0.01, 3.0), 30.0, None, True) for _ in range(2)]
    least = rng.choice([0.0, rng.uniform(0.0, 1.0)])
    reach = fulltext._reach(listed, fulltext._Ranked([0, 1], least, {}, fulltext._alone(listed, [0, 1])))
    for _ in range(500):
        _, weight, fts_idf, _, _, _ = listed[rng.randrange(2)]
        score = fts_idf * (fulltext.FTS_K1 + 1) * rng.random() ** 0.2  # up to its most
        assert weight / fts_idf * score <= reach * (1 + 1e-9)


@pytest.mark.parametrize("seed", range(5))
def test_the_reach_of_rows_outside_the_common_words_best_bounds_every_such_row(seed):
    """Rows whose FTS5 scores for the common words add up to at most the least of their best:
    what each such row can add to its estimate is never above `_reach`, whatever its scores."""
    import random

    rng = random.Random(seed)
    term = fulltext.Term('"w"', 1.0)
    listed = []
    for _ in range(rng.randint(1, 4)):
        fts_idf = rng.choice([1e-6, rng.uniform(0.01, 3.0)])
        listed.append((term, rng.uniform(0.1, 5.0), fts_idf, 30.0, None, True))
    lone = (term, rng.uniform(0.1, 5.0), 0.8, 30.0, None, True)  # a common word outside the union
    listed.append(lone)
    union = list(range(len(listed) - 1))
    least = rng.uniform(0.0, sum(listed[at][2] * (fulltext.FTS_K1 + 1) for at in union))
    reach = fulltext._reach(listed, fulltext._Ranked(union, least, {}, 0.0))
    for _ in range(2000):
        caps = [listed[at][2] * (fulltext.FTS_K1 + 1) for at in union]
        shares = [rng.random() ** rng.choice([0.2, 1, 5]) for _ in union]
        scale = min([least / sum(shares)] + [cap / share for cap, share in zip(caps, shares, strict=True) if share])
        scores = [share * scale * rng.uniform(0.9, 1.0) for share in shares]
        estimate = sum(listed[at][1] / listed[at][2] * score for at, score in zip(union, scores, strict=True))
        estimate += lone[1] / lone[2] * rng.uniform(0, lone[2] * (fulltext.FTS_K1 + 1))
        assert estimate <= reach * (1 + 1e-9)


def test_only_the_candidates_that_can_be_in_the_first_batch_are_read_for_the_common_words(builder, monkeypatch):
    """Where a batch's worth of candidates is known to be above the rest by bounds on their
    estimates, the common words are read for those candidates alone: fewer rows asked of FTS5
    (here a tenth fewer: two common words' candidates are already the rows holding both), and
    the answer a full reading's, score for score and in order, also after a write."""
    import random

    rng = random.Random(5)
    _zipf_notes(builder, rng, 800)  # enough rows for best rows batches deep, as at 10,000
    monkeypatch.setattr(fulltext, "LAZY_FROM", 60)
    monkeypatch.setattr(fulltext, "BEST_ROWS", 400)
    vault = Vault.open(builder.root)
    words = CHURN_WORDS + [f"w{n}x" for n in range(60)]
    queries = [" ".join(rng.sample(words[:20], rng.randint(2, 3))) for _ in range(30)]
    queries += [" ".join(rng.sample(words, rng.randint(1, 3))) for _ in range(30)]
    asked: list[int] = []
    within = vault.store.postings_within
    monkeypatch.setattr(
        vault.store, "postings_within", lambda e, w, rowids: (asked.append(len(rowids)), within(e, w, rowids))[1]
    )

    def answered(query: str, prune_from: int) -> tuple[list[tuple[str, float]], int]:
        fulltext.KEPT.pop(vault.index, None)  # nothing kept from the query before
        asked.clear()
        with monkeypatch.context() as pruned:
            pruned.setattr(fulltext, "PRUNE_FROM", prune_from)
            found = [(hit.id, hit.score) for hit in vault.search(query, 10)]
        return found, sum(asked)

    def full(query: str) -> list[tuple[str, float]]:
        with monkeypatch.context() as reading:
            _full_reading(reading)
            return [(hit.id, hit.score) for hit in vault.search(query, 10)]

    pruned_rows = whole_rows = 0
    for query in queries:
        found, rows = answered(query, fulltext.PRUNE_FROM)
        every, rows_every = answered(query, 10**9)  # every candidate read for the common words
        assert found == every == full(query), query
        pruned_rows += rows
        whole_rows += rows_every
    assert pruned_rows < 0.95 * whole_rows, (pruned_rows, whole_rows)
    _write(builder, "mem-note-zipf-new", "Queue retry", "queue queue retry invoice w4x")
    vault.refresh_paths([doc_path("mem-note-zipf-new")])
    for query in queries[:15]:
        found, _ = answered(query, fulltext.PRUNE_FROM)
        assert found == full(query), query


def test_rows_sizes_are_read_once_and_after_a_write_only_the_rows_it_changed(builder, monkeypatch):
    """A row's path and size, which exact scoring needs, are kept between searches (a common
    word's best rows are scored again and again). After this process's write only the rows it
    wrote are read (a row keeps its path and size under its rowid); after another process's,
    every row asked is read again. Either way a document grown by a write scores as a vault
    opened afresh scores it. Forgetting every row at each write fails the first count."""
    for n in range(12):
        _write(builder, f"mem-note-size-{n}", f"Ledger {n}", "ledger refund " * (n + 1))
    vault = Vault.open(builder.root)
    read: list[list[int]] = []
    postings_rows = fulltext.Postings.rows
    monkeypatch.setattr(fulltext.Postings, "rows", lambda self, r: (read.append(list(r)), postings_rows(self, r))[1])
    rows = derived_store.DerivedStore.rows
    from_store: list[list[int]] = []
    monkeypatch.setattr(
        derived_store.DerivedStore, "rows", lambda self, r: (from_store.append(list(r)), rows(self, r))[1]
    )
    first = [(hit.id, hit.score) for hit in vault.search("ledger refund", 10)]
    assert from_store and sum(map(len, from_store)) >= 10
    from_store.clear()
    assert [(hit.id, hit.score) for hit in vault.search("ledger refund", 10)] == first
    assert sum(map(len, from_store)) == 0  # every row's size kept

    def searched_after(written: Vault, doc_id: str, words: int) -> tuple[list, set[int], list[int]]:
        """The page after `written` wrote, the rows it asked sizes of, and the rows read again."""
        _write(builder, doc_id, doc_id.title(), "ledger refund " + "padding words " * words)
        written.refresh_paths([doc_path(doc_id)])
        read.clear()
        from_store.clear()
        found = [(hit.id, hit.score) for hit in vault.search("ledger refund", 10)]
        asked = {rowid for rowids in read for rowid in rowids}
        read_again = [rowid for rowids in from_store for rowid in rowids]
        afresh = [(hit.id, hit.score) for hit in Vault.open(builder.root).search("ledger refund", 10)]
        # Rows kept from before the write and caught up score a hair apart from rows read afresh
        # (the 16th digit); a stale size would move a score far more.
        assert [doc_id for doc_id, _ in found] == [doc_id for doc_id, _ in afresh]
        assert [score for _, score in found] == pytest.approx([score for _, score in afresh], rel=1e-12)
        return found, asked, read_again

    after, asked, read_again = searched_after(vault, "mem-note-size-0", 40)
    assert after != first
    written = vault.store.rowids([doc_path("mem-note-size-0")])
    assert len(asked) >= 10 and written <= asked  # the rows scored, the new one among them...
    assert read_again and set(read_again) == written  # ...and of them the new one alone read again
    other = Vault.open(builder.root)  # another connection: what it wrote is not known here
    _, asked, read_again = searched_after(other, "mem-note-size-1", 30)
    assert len(asked) >= 10 and set(read_again) >= asked  # every row asked read again


def test_a_list_of_rows_is_read_alike_as_one_json_parameter_or_a_placeholder_each(sample_copy):
    """The store binds a list of rows as one JSON array (one statement prepared once, whatever
    the number of rows); where SQLite reads no JSON, a placeholder for each: the same rows."""
    vault = Vault.open(sample_copy)
    store = vault.store
    rowids = sorted(store.rowids(doc.path for doc in vault.documents))
    paths = [doc.path for doc in vault.documents] + ["no/such/file.md", 'odd "quoted" ünïcode.md']
    assert len(rowids) > 10
    expression = fulltext.fts_term("postgres", False)

    def read() -> tuple:
        return (
            store.rows(rowids + [10**9]),
            store.shown(paths),
            store.postings_within(expression, fulltext.FIELD_WEIGHTS, rowids),
            store.postings_within(expression, None, rowids[: len(rowids) // 2]),
        )

    as_json = read()
    assert as_json[0] and as_json[1] and as_json[2] and set(as_json[0]) == set(rowids)
    store._json_lists = False
    assert read() == as_json


# -- each common word's rows kept in the store -----------------------------------------------------


def _lists_from(monkeypatch, rows: int) -> None:
    """Keep the lists of words in more than `rows` rows (a vault of hundreds, not of thousands),
    as soon as a search asks."""
    monkeypatch.setattr(word_lists, "LISTS_FROM", rows)
    monkeypatch.setattr(word_lists, "SETTLE", 0.0)


def _lists_kept(vault) -> word_lists.WordLists:
    """Search once (which starts keeping the lists for the index as it is), wait for them, and
    search again (which finds them the index's)."""
    vault.search("queue", 10)
    fulltext.kept_postings(vault.index).lists.wait()
    lists = fulltext.kept_postings(vault.index).lists
    assert lists.usable
    return lists


def _zipf_vault_with_lists(builder, monkeypatch, rng):
    """260 notes of words drawn by frequency, opened, their common words' lists kept."""
    _zipf_notes(builder, rng, 260)
    _lists_from(monkeypatch, 25)
    monkeypatch.setattr(fulltext, "LAZY_FROM", 25)
    vault = Vault.open(builder.root)
    _lists_kept(vault)
    return vault


def _as_fts5_reads(vault, monkeypatch, query: str) -> list[tuple[str, float]]:
    """The page a full reading gives, every term's rows asked of FTS5 (no list read)."""
    held = fulltext.KEPT.pop(vault.index, None)
    with monkeypatch.context() as reading:
        _full_reading(reading)
        reading.setattr(word_lists.WordLists, "refresh", lambda self, version: setattr(self, "usable", False))
        expected = [(hit.id, hit.score) for hit in vault.search(query, 10)]
    fulltext.KEPT.pop(vault.index, None)
    if held is not None:
        fulltext.KEPT[vault.index] = held
    return expected


def test_a_common_words_kept_list_is_its_fts5_rows_in_order_bit_for_bit(builder, monkeypatch):
    """Each word's list holds the rows FTS5 matches, in its order, with the very scores it gives
    them (`DerivedStore.postings`), for a word however it is typed ("Queues" reads "queue")."""
    import random

    _zipf_notes(builder, random.Random(5), 260)
    _lists_from(monkeypatch, 25)
    vault = Vault.open(builder.root)
    lists = _lists_kept(vault)
    words = CHURN_WORDS + [f"w{n}x" for n in range(60)]
    common = [w for w in words if vault.store.count(f'"{w}"') > 25]
    assert len(common) >= 10
    for word in common + ["Queues", "QUEUE"]:
        expression = f'"{word}"'
        kept = lists.rows(expression)
        asked = vault.store.postings(expression, fulltext.FIELD_WEIGHTS)
        assert kept is not None and list(kept.items()) == list(asked.items()), word
        assert lists.count(expression) == vault.store.count(expression)
    assert lists.rows('"w59x"') is None  # in too few rows: asked of FTS5
    assert lists.rows('"queue retry"') is None  # a phrase: asked of FTS5


@pytest.mark.parametrize("seed", range(2))
def test_searches_reading_the_kept_lists_rank_as_a_full_reading_of_fts5_before_and_after_a_write(
    builder, seed, monkeypatch
):
    """Common words read from the kept lists, not scored by FTS5: every page is the one a full
    reading of FTS5's rows gives, score for score; after a write the lists (kept for the index as
    it was) are read patched, the same rows and scores as FTS5's now, until kept again."""
    import random

    rng = random.Random(seed)
    vault = _zipf_vault_with_lists(builder, monkeypatch, rng)
    words = CHURN_WORDS + [f"w{n}x" for n in range(60)]
    queries = ["queue", "queue invoice", "retry w5x", "w1x w2x w3x", "queue -invoice", "invoice type:note"]
    queries += [" ".join(rng.sample(words, rng.randint(1, 3))) for _ in range(30)]
    asked: list[str] = []
    whole = vault.store.postings
    monkeypatch.setattr(vault.store, "postings", lambda e, *a, **k: (asked.append(e), whole(e, *a, **k))[1])
    for query in queries:
        fulltext.KEPT.pop(vault.index, None)  # a fresh process's: nothing kept but the store's lists
        asked.clear()
        found = [(hit.id, hit.score) for hit in vault.search(query, 10)]
        assert not [e for e in asked if e in ('"queue"', '"invoice"', '"retry"')], query  # read from the lists
        assert found == _as_fts5_reads(vault, monkeypatch, query), query
    keeper = fulltext.kept_postings(vault.index).lists.thread
    with monkeypatch.context() as later:
        # Not kept again meanwhile, from the write on: the write itself makes search ready and
        # would start a keeper, which (settling for no time) could keep the lists mid-loop.
        later.setattr(word_lists.WordLists, "_keep", lambda self: None)
        _write(builder, "mem-note-zipf-new", "Queue retry", "queue queue retry invoice w4x")
        vault.refresh_paths([doc_path("mem-note-zipf-new")])
        assert fulltext.kept_postings(vault.index).lists.thread is keeper  # no keeper started
        fulltext.KEPT.pop(vault.index, None)
        vault.search("queue", 10)
        lists = fulltext.kept_postings(vault.index).lists
        # Kept for the index before the write: read patched, the rows and scores FTS5 gives now.
        assert lists.usable and lists.patch is not None
        patched = lists.rows('"queue"')
        assert patched is not None
        assert list(patched.items()) == list(whole('"queue"', fulltext.FIELD_WEIGHTS).items())
        for query in queries[:10]:
            fulltext.KEPT.pop(vault.index, None)
            asked.clear()
            found = [(hit.id, hit.score) for hit in vault.search(query, 10)]
            assert not [e for e in asked if e in ('"queue"', '"invoice"', '"retry"')], query  # read from the lists
            assert found == _as_fts5_reads(vault, monkeypatch, query), query
    fulltext.KEPT.pop(vault.index, None)
    kept = _lists_kept(vault)  # kept again, for the index now
    assert kept.patch is None and kept.rows('"queue"') == whole('"queue"', fulltext.FIELD_WEIGHTS)
    for query in queries[:10]:
        fulltext.KEPT.pop(vault.index, None)
        found = [(hit.id, hit.score) for hit in vault.search(query, 10)]
        assert found == _as_fts5_reads(vault, monkeypatch, query), query
    assert "mem-note-zipf-new" in [hit.id for hit in vault.search("queue retry", 10)]


def test_the_kept_lists_are_read_patched_after_another_process_wrote_the_index(builder, monkeypatch):
    """Another process writes a note and brings the store in line: the index's stamp differs, so
    the lists kept before are read patched (the rows it wrote found past their last), and the
    pages are a full reading's of FTS5 as it is now."""
    import random

    _zipf_notes(builder, random.Random(9), 260)
    _lists_from(monkeypatch, 25)
    vault = Vault.open(builder.root)
    lists = _lists_kept(vault)
    before = vault.store.index_stamp()
    assert lists.rows('"queue"') is not None
    monkeypatch.setattr(word_lists.WordLists, "_keep", lambda self: None)  # read patched, not kept again
    script = (
        "import sys; from pathlib import Path; from workbench import Vault;"
        "root = Path(sys.argv[1]); Vault.open(root).refresh_paths([sys.argv[2]])"
    )
    _write(builder, "mem-note-zipf-other", "Queue invoice", "queue invoice " * 4)
    other = subprocess.run([sys.executable, "-c", script, str(builder.root), doc_path("mem-note-zipf-other")])
    assert other.returncode == 0
    vault.refresh_paths([doc_path("mem-note-zipf-other")])
    assert vault.store.index_stamp() != before
    for query in ("queue", "queue invoice", "invoice retry", "queue w1x"):
        found = [(hit.id, hit.score) for hit in vault.search(query, 10)]
        assert found == _as_fts5_reads(vault, monkeypatch, query), query
    lists = fulltext.kept_postings(vault.index).lists
    assert lists.patch is not None
    patched = lists.rows('"queue"')
    assert patched is not None
    assert list(patched.items()) == list(vault.store.postings('"queue"', fulltext.FIELD_WEIGHTS).items())
    assert "mem-note-zipf-other" in [hit.id for hit in vault.search("queue invoice", 10)]


def test_the_index_stamp_differs_after_a_write_that_keeps_every_size(builder):
    """A note's one word changed for another of the same length: the index's totals are the same,
    its stamp is not (the lists kept for it hold no more)."""
    for n in range(5):
        _write(builder, f"mem-note-s-{n}", f"Note {n}", "alpha bravo charlie")
    vault = Vault.open(builder.root)
    before, totals = vault.store.index_stamp(), vault.store.totals()
    _write(builder, "mem-note-s-0", "Note 0", "alpha delta charlie")
    vault.refresh_paths([doc_path("mem-note-s-0")])
    assert vault.store.totals() == totals
    assert before is not None and vault.store.index_stamp() not in (None, before)


def test_the_words_tokenizer_is_the_indexs(builder):
    """Words are read as tokens by the tokenizer the full-text index was made with."""
    _write(builder, "mem-note-t-0", "Note", "alpha")
    vault = Vault.open(builder.root)
    (made,) = vault.store.db.execute("SELECT sql FROM sqlite_master WHERE name = 'fts'").fetchone()
    assert f"tokenize = '{derived_store.FTS_TOKENIZE}'" in made


def test_lists_kept_with_other_weights_are_not_read(builder, monkeypatch):
    """Lists kept by other code (other field weights: other scores) hold for no index here."""
    import random

    _zipf_notes(builder, random.Random(2), 260)
    _lists_from(monkeypatch, 25)
    vault = Vault.open(builder.root)
    _lists_kept(vault)
    other = word_lists.WordLists(vault.store, (1.0, 1.0, 1.0, 1.0, 1.0), fulltext.LAZY_FROM)
    other.refresh(vault.store.version())
    assert not other.usable and other.rows('"queue"') is None
    same = word_lists.WordLists(vault.store, fulltext.FIELD_WEIGHTS, fulltext.LAZY_FROM)
    same.refresh(vault.store.version())
    assert same.usable and same.rows('"queue"') is not None


def _keeping_lists(builder, monkeypatch, seed: int):
    """A vault of Zipf notes whose first search found its lists not the index's and started keeping
    them (settling for half a second); the vault and the search's lists."""
    import random

    _zipf_notes(builder, random.Random(seed), 260)
    _lists_from(monkeypatch, 25)
    monkeypatch.setattr(word_lists, "SETTLE", 0.5)
    vault = Vault.open(builder.root)
    vault.search("queue", 10)
    lists = fulltext.kept_postings(vault.index).lists
    assert lists.keeping
    return vault, lists


def test_lists_are_not_kept_for_an_index_written_while_they_waited_for_it_to_settle(builder, monkeypatch):
    """A search finds the lists not the index's and starts keeping them once the index has stayed
    the same a while: a write meanwhile (a burst of them) and nothing is kept for it; the next
    search starts again, for the index as it is then."""
    vault, lists = _keeping_lists(builder, monkeypatch, 4)
    _write(builder, "mem-note-zipf-new", "Queue retry", "queue queue retry invoice w4x")
    vault.refresh_paths([doc_path("mem-note-zipf-new")])
    lists.wait()
    assert vault.store.word_lists_stamp() is None  # the index was written while it waited: none kept
    vault.search("queue", 10)
    lists = fulltext.kept_postings(vault.index).lists
    assert not lists.usable and lists.keeping
    lists.wait()
    vault.search("queue", 10)
    assert lists.usable and lists.rows('"queue"') == vault.store.postings('"queue"', fulltext.FIELD_WEIGHTS)


def test_a_vault_whose_commonest_words_do_not_fit_keeps_no_list_and_is_not_asked_again(builder, monkeypatch):
    """Where the words the bound reads hold more rows than the lists may (a vault of hundreds of
    thousands), none is kept (some of them would leave the p95 where it was, at the cost of
    keeping them at every write): the index is marked as kept with none, and no search of this
    or another process starts keeping them again for it."""
    import random

    _zipf_notes(builder, random.Random(6), 260)
    _lists_from(monkeypatch, 25)
    monkeypatch.setattr(fulltext, "LAZY_FROM", 60)
    vault = Vault.open(builder.root)
    counts = [vault.store.count(f'"{w}"') for w in CHURN_WORDS + [f"w{n}x" for n in range(60)]]
    common = sum(n for n in counts if n > 60)
    monkeypatch.setattr(word_lists, "LISTS_MOST", 200)  # fewer rows than the words in over 60 hold
    assert common > 200
    vault.search("queue", 10)
    fulltext.kept_postings(vault.index).lists.wait()
    vault.search("queue", 10)
    lists = fulltext.kept_postings(vault.index).lists
    assert vault.store.word_lists_stamp() == (lists.stamp, False)
    assert not lists.usable and not lists.keeping and lists.rows('"queue"') is None
    fresh = word_lists.WordLists(vault.store, fulltext.FIELD_WEIGHTS, fulltext.LAZY_FROM)
    fresh.refresh(vault.store.version())
    assert not fresh.usable and not fresh.keeping  # another process: not asked again
    found = [(hit.id, hit.score) for hit in vault.search("queue invoice", 10)]
    assert found == _as_fts5_reads(vault, monkeypatch, "queue invoice")


@pytest.mark.parametrize("seed, fresh", [(0, True), (1, True), (2, False), (3, False)])
def test_pages_after_random_writes_by_plain_file_io_are_a_full_readings(builder, seed, fresh, monkeypatch):
    """The lists kept once, then notes edited, removed and added by plain file I/O (the last one
    written edited each time: the row past every other), and the vault opened afresh between
    rounds (or, in one process, told of the paths: its own writes followed from the last patch):
    the lists are read patched (never kept again here), every common word's rows are FTS5's now
    in order and score for score, and every page is a full reading's. A list read as kept
    (stale), or a row written or gone since missed, fails it."""
    import random

    rng = random.Random(seed)
    vault = _zipf_vault_with_lists(builder, monkeypatch, rng)
    monkeypatch.setattr(word_lists.WordLists, "_keep", lambda self: None)  # read patched, round after round
    words = CHURN_WORDS + [f"w{n}x" for n in range(60)]
    weights = [1 / (rank + 1) ** 1.1 for rank in range(len(words))]
    notes = sorted(p.stem for p in builder.root.rglob("mem-note-zipf-*.md"))
    last = notes[-1]
    for round_ in range(4):
        changed = rng.sample(notes, 3) + [last]
        for doc_id in changed:
            body = " ".join(rng.choices(words, weights, k=rng.randint(5, 60)))
            _write(builder, doc_id, " ".join(rng.choices(words, weights, k=2)).capitalize(), body)
        gone = rng.choice([n for n in notes if n != last])
        notes.remove(gone)
        (builder.root / doc_path(gone)).unlink()
        last = f"mem-note-zipf-new-{round_}"
        _write(builder, last, "Queue " + rng.choice(words), " ".join(rng.choices(words, weights, k=30)))
        notes.append(last)
        if fresh:
            vault.store.close()
            vault = Vault.open(builder.root)  # the store brought in line, nothing kept in memory
        else:
            vault.refresh_paths([doc_path(n) for n in changed + [gone, last]])
        vault.search("queue", 10)
        lists = fulltext.kept_postings(vault.index).lists
        assert lists.usable and lists.patch is not None, round_
        for token in sorted(vault.store.word_lists_tokens(lists.read_at)):
            expression = '"' + token + '"'
            rows = lists.rows(expression)
            assert rows is not None, token
            assert list(rows.items()) == list(vault.store.postings(expression, fulltext.FIELD_WEIGHTS).items()), token
        for query in ["queue", "queue invoice", "retry w5x", "queue -invoice"] + [
            " ".join(rng.sample(words, rng.randint(1, 3))) for _ in range(8)
        ]:
            if fresh:
                fulltext.KEPT.pop(vault.index, None)
            found = [(hit.id, hit.score) for hit in vault.search(query, 10)]
            expected = _as_fts5_reads(vault, monkeypatch, query)
            if fresh:
                assert found == expected, (round_, query)
            else:  # what the process kept across its writes read too: a rare word's rows caught up
                # (`Postings._catch_up`) restate the new rows' scores with older statistics, a last bit apart
                assert [i for i, _ in found] == [i for i, _ in expected], (round_, query)
                assert all(abs(a - b) <= 1e-12 * abs(b) for (_, a), (_, b) in zip(found, expected)), (round_, query)
                held = fulltext.kept_postings(vault.index)
                for (expression, scored), kept in list(held.kept.items()):
                    if scored is True and isinstance(kept, fulltext.Rows) and kept.version == held.now:
                        if held.lists.count(expression):  # a common word's: never caught up, FTS5's now
                            now = vault.store.postings(expression, fulltext.FIELD_WEIGHTS)
                            assert list(kept.rows.items()) == list(now.items()), (round_, expression)


def test_a_rowid_is_never_given_twice(builder):
    """A note written again takes a rowid past every row there was, its own old one included:
    the kept lists find the rows written since past their last."""
    for n in range(3):
        _write(builder, f"mem-note-r-{n}", f"Note {n}", "alpha")
    vault = Vault.open(builder.root)
    seen = [vault.store.rowids([doc_path("mem-note-r-2")]).pop()]
    for body in ("bravo", "charlie", "delta"):
        _write(builder, "mem-note-r-2", "Note 2", body)  # the last row, written again and again
        vault.refresh_paths([doc_path("mem-note-r-2")])
        seen.append(vault.store.rowids([doc_path("mem-note-r-2")]).pop())
    assert seen == sorted(set(seen))


def test_a_process_writing_between_searches_reads_each_kept_list_once_and_scores_it_as_fts5(builder, monkeypatch):
    """In a process that writes between its searches, each common word's kept rows are read from
    the store once for the lists' stamp (not again after each write), a written note's hits read
    for the words asked alone, and every word's rows, scored again after each write (from the
    second time, a few notes of the same shape: by (hits, size), each pair once), are FTS5's
    now, in order and bit for bit."""
    import random

    rng = random.Random(11)
    _zipf_notes(builder, rng, 200)
    shapes = ["queue invoice retry", "queue queue webhook ledger", "invoice retry retry webhook queue tenant"]
    for n in range(600):  # rows of a few (hits, size) pairs: scored a pair at a time
        _write(builder, f"mem-note-shape-{n}", "Note", shapes[n % 3])
    _lists_from(monkeypatch, 25)
    monkeypatch.setattr(fulltext, "LAZY_FROM", 25)
    vault = Vault.open(builder.root)
    _lists_kept(vault)
    monkeypatch.setattr(word_lists.WordLists, "_keep", lambda self: None)  # read patched, write after write
    store = vault.store
    listed: list[str] = []
    whole_lists = store.word_lists
    monkeypatch.setattr(
        store,
        "word_lists",
        lambda stamp, tokens, rows: (listed.extend(tokens if rows else ()), whole_lists(stamp, tokens, rows))[1],
    )
    typed: list[str] = []
    whole_hits = word_lists.typed_hits
    monkeypatch.setattr(
        word_lists, "typed_hits", lambda db, token, weights: (typed.append(token), whole_hits(db, token, weights))[1]
    )
    words = CHURN_WORDS + [f"w{n}x" for n in range(60)]
    notes = sorted(p.stem for p in builder.root.rglob("mem-note-zipf-*.md"))
    for round_ in range(5):
        doc_id = rng.choice(notes)
        _write(builder, doc_id, "Queue " + rng.choice(words), " ".join(rng.choices(words, k=40)) + " queue invoice")
        vault.refresh_paths([doc_path(doc_id)])
        typed.clear()
        vault.search("queue", 10)
        assert typed == ["queue"], round_  # the new row's hits of the word asked, of no other
        lists = fulltext.kept_postings(vault.index).lists
        assert lists.usable and lists.patch is not None
        for token in ("queue", "invoice", "retry", "webhook"):
            rows = lists.rows(f'"{token}"')
            assert rows is not None, token
            asked = store.postings(f'"{token}"', fulltext.FIELD_WEIGHTS)
            assert [(r, s.hex()) for r, s in rows.items()] == [(r, s.hex()) for r, s in asked.items()], (round_, token)
        for query in ("queue invoice", "retry webhook", "queue -invoice"):
            assert [(h.id, h.score) for h in vault.search(query, 10)] == _as_fts5_reads(vault, monkeypatch, query)
    assert sorted(listed) == sorted(set(listed))  # each list read from the store once
    assert lists.patch is not None and lists.patch.base.kept["queue"].places is not None  # scored by pairs
    assert len(listed) >= 4  # (as tokens: "invoic", "retri")


def test_readers_of_one_store_start_one_thread_to_keep_its_lists(builder, monkeypatch):
    """The lists not the index's, every reader of the store that finds so (a search's kept state
    thrown away and made again, another reader) is told of the one thread keeping them: one
    thread for one state of the index, which each can wait for."""
    import threading

    vault, first = _keeping_lists(builder, monkeypatch, 3)
    fulltext.KEPT.pop(vault.index, None)  # thrown away: the next search makes its own
    vault.search("queue invoice", 10)
    second = fulltext.kept_postings(vault.index).lists
    other = word_lists.WordLists(vault.store, fulltext.FIELD_WEIGHTS, fulltext.LAZY_FROM)
    other.refresh(vault.store.version())
    assert second is not first and second.keeping and other.keeping
    keepers = [t for t in threading.enumerate() if t.name == "workbench-word-lists"]
    assert len(keepers) == 1
    other.wait()
    vault.search("queue", 10)
    assert second.usable and second.patch is None
