"""The conflicts queue and the write gate find what a person would: each signal on a small vault.

A person sees that a newer decision replaces an older one when it cites it, when both are about
the same subject (a shared title head, rare words in titles and text, tags), and from their dates
(the newer replaces the older). Each test builds two decisions that share one signal, among
others that share none, and asks the queue and the gate."""

from __future__ import annotations

from workbench import Vault
from workbench.core.services.gate import Draft

FILLER = {
    "mem-decision-api-style": ("Use REST for the public API", "Resources and verbs; JSON bodies; versioned paths."),
    "mem-decision-deploys": ("Deploy with blue green releases", "Two environments; switch traffic after smoke tests."),
    "mem-decision-logging": ("Structured JSON logging", "Every service logs JSON lines with a request id."),
}


def decision(builder, doc_id: str, title: str, body: str, created: str, **fields) -> None:
    builder.add(doc_id, body=f"# {title}\n\n{body}\n", created=created, updated=created, **fields)
    path = builder.root / "decisions" / f"{doc_id}.md"
    path.write_text(path.read_text().replace(f"title: Title of {doc_id}", f'title: "{title}"'))


def vault_with(builder, pair: dict[str, tuple[str, str, str, dict]]) -> Vault:
    for doc_id, (title, body) in FILLER.items():
        decision(builder, doc_id, title, body, "2026-01-10")
    for doc_id, (title, body, created, fields) in pair.items():
        decision(builder, doc_id, title, body, created, **fields)
    return Vault.open(builder.root)


def listed(vault: Vault) -> list[tuple[str, ...]]:
    return [tuple(c.ids) for c in vault.conflicts() if c.kind == "contradiction"]


def test_two_decisions_on_one_subject_head_sharing_a_tag_are_listed_newer_replacing_older(builder):
    vault = vault_with(
        builder,
        {
            "mem-decision-queue-redis": (
                "Queue backend: use Redis streams",
                "Background jobs go through Redis streams.",
                "2026-02-01",
                {"tags": "[queue]"},
            ),
            "mem-decision-queue-kafka": (
                "Queue backend: move to Kafka",
                "Throughput outgrew one node; events go to Kafka topics.",
                "2026-05-01",
                {"tags": "[queue]"},
            ),
        },
    )
    assert listed(vault) == [("mem-decision-queue-redis", "mem-decision-queue-kafka")]
    conflict = next(c for c in vault.conflicts() if c.kind == "contradiction")
    assert "both are about “Queue backend”" in conflict.reason and "shares tag queue" in conflict.reason
    assert (
        conflict.resolutions[0].command == "supersede mem-decision-queue-redis mem-decision-queue-kafka"
    )  # time: the newer replaces the older


def test_a_newer_decision_citing_an_older_one_by_record_number_is_listed(builder):
    vault = vault_with(
        builder,
        {
            "mem-decision-email-notify": (
                "Use GOV.UK Notify",
                "Emails to form processors go through Notify.",
                "2026-02-01",
                {},
            ),
            "mem-decision-email-ses": (
                "Use Amazon SES",
                "Notify cannot send attachments to processors, as ADR-002 and "
                "[the Notify record](mem-decision-email-notify.md) said; emails now go through SES.",
                "2026-06-01",
                {},
            ),
        },
    )
    assert listed(vault) == [("mem-decision-email-notify", "mem-decision-email-ses")]
    reason = next(c.reason for c in vault.conflicts() if c.kind == "contradiction")
    assert "it cites “Use GOV.UK Notify”" in reason


def test_rare_words_shared_by_titles_and_text_are_a_reason_in_the_words_written(builder):
    vault = vault_with(
        builder,
        {
            "mem-decision-pdf-weasy": (
                "Render invoice PDFs with WeasyPrint",
                "WeasyPrint renders the invoice HTML templates to PDF.",
                "2026-02-01",
                {},
            ),
            "mem-decision-pdf-chrome": (
                "Render invoice PDFs with headless Chromium",
                "WeasyPrint broke on the invoice templates' flexbox; headless Chromium renders them to PDF.",
                "2026-07-01",
                {},
            ),
        },
    )
    assert listed(vault) == [("mem-decision-pdf-weasy", "mem-decision-pdf-chrome")]
    reason = next(c.reason for c in vault.conflicts() if c.kind == "contradiction")
    assert "both titles say" in reason and "PDFs" in reason and "invoice" in reason  # words as written, not stems


def test_unrelated_decisions_are_never_listed(builder):
    assert listed(vault_with(builder, {})) == []


def test_the_gate_offers_the_decision_a_new_one_replaces_with_supersede(builder):
    vault = vault_with(
        builder,
        {
            "mem-decision-queue-redis": (
                "Queue backend: use Redis streams",
                "Background jobs go through Redis streams.",
                "2026-02-01",
                {"tags": "[queue]"},
            ),
        },
    )
    offered = vault.gate(
        Draft("decision", "Queue backend: move to Kafka", ["queue"], [], "Throughput outgrew one Redis node.")
    )
    assert offered[0].id == "mem-decision-queue-redis" and offered[0].action == "supersede"


def test_the_gate_finds_a_duplicate_note_from_title_text_and_tags_and_never_claims_a_whole_title_for_one_word(
    sample_copy,
):
    vault = Vault.open(sample_copy)
    offered = vault.gate(
        Draft(
            "note",
            "Use Stripe test clocks to simulate time in tests",
            ["stripe", "testing"],
            [],
            "Advance the clock in tests.",
        )
    )
    assert "mem-note-stripe-test-clocks" in [c.id for c in offered]
    for candidate in offered:
        assert not any("100%" in reason and "title" in reason for reason in candidate.reasons), candidate.reasons


def test_a_document_changed_by_plain_file_io_is_weighed_as_it_now_reads(builder):
    """Profiles are kept between calls; a document an agent rewrites must not be judged by its old text."""
    vault = vault_with(
        builder,
        {
            "mem-decision-queue-redis": (
                "Queue backend: use Redis streams",
                "Background jobs go through Redis streams.",
                "2026-02-01",
                {"tags": "[queue]"},
            ),
        },
    )
    draft = Draft(
        "decision",
        "Search engine: move to OpenSearch",
        ["search"],
        [],
        "Full text search outgrew SQLite; use OpenSearch.",
    )
    assert "mem-decision-queue-redis" not in [c.id for c in vault.gate(draft)]
    path = builder.root / "decisions" / "mem-decision-queue-redis.md"
    text = path.read_text().replace("Queue backend: use Redis streams", "Search engine: use SQLite full text search")
    path.write_text(
        text.replace("[queue]", "[search]").replace(
            "Background jobs go through Redis streams.", "Full text search runs on SQLite FTS5."
        )
    )
    vault.refresh()
    assert vault.gate(draft)[0].id == "mem-decision-queue-redis"


def test_a_deprecated_decision_without_successor_is_offered_its_likeliest_successor(builder):
    vault = vault_with(
        builder,
        {
            "mem-decision-queue-rabbit": (
                "Queue backend: RabbitMQ broker",
                "Background jobs go through a RabbitMQ broker with durable queues.",
                "2026-02-01",
                {"status": "deprecated", "tags": "[queue]"},
            ),
            "mem-decision-queue-kafka": (
                "Queue backend: Kafka topics",
                "Background jobs go through Kafka topics; durable queues become partitions.",
                "2026-03-01",
                {"tags": "[queue]"},
            ),
        },
    )
    found = [c for c in vault.conflicts() if c.kind == "successor-missing"]
    assert [tuple(c.ids) for c in found] == [("mem-decision-queue-rabbit", "mem-decision-queue-kafka")]
    assert "“Queue backend: RabbitMQ broker” (deprecated) names no successor" in found[0].reason
    assert [r.command for r in found[0].resolutions][
        0
    ] == "supersede mem-decision-queue-rabbit mem-decision-queue-kafka"
    # and the gate offers the deprecated decision to a new one on the subject, with its status
    offered = vault.gate(
        Draft("decision", "Queue backend: NATS", [], [], "Background jobs go through NATS; durable queues as streams.")
    )
    assert ("mem-decision-queue-rabbit", "deprecated", "supersede") in [(c.id, c.status, c.action) for c in offered]


def test_a_draft_that_would_replace_an_active_decision_is_listed(builder):
    vault = vault_with(
        builder,
        {
            "mem-decision-queue-redis": (
                "Queue backend: Redis streams",
                "Background jobs go through Redis streams with consumer groups.",
                "2026-02-01",
                {"tags": "[queue]"},
            ),
            "mem-decision-queue-sqs": (
                "Queue backend: SQS",
                "Background jobs go through SQS; consumer groups become queues per worker.",
                "2026-03-01",
                {"status": "draft", "tags": "[queue]"},
            ),
        },
    )
    found = [(c.kind, tuple(c.ids)) for c in vault.conflicts() if c.kind in ("draft-replaces", "contradiction")]
    assert found == [("draft-replaces", ("mem-decision-queue-redis", "mem-decision-queue-sqs"))]


def test_two_drafts_on_one_subject_are_listed(builder):
    """Which of two proposals goes ahead is a curator's question before either is accepted."""
    vault = vault_with(
        builder,
        {
            "mem-decision-queue-redis": (
                "Queue backend: Redis streams",
                "Background jobs go through Redis streams with consumer groups.",
                "2026-02-01",
                {"status": "draft", "tags": "[queue]"},
            ),
            "mem-decision-queue-sqs": (
                "Queue backend: SQS",
                "Background jobs go through SQS; consumer groups become queues per worker.",
                "2026-03-01",
                {"status": "draft", "tags": "[queue]"},
            ),
        },
    )
    found = [c for c in vault.conflicts() if c.kind in ("draft-replaces", "contradiction")]
    assert [(c.kind, tuple(c.ids)) for c in found] == [
        ("draft-replaces", ("mem-decision-queue-redis", "mem-decision-queue-sqs"))
    ]
    assert found[0].reason.startswith(
        "the draft “Queue backend: SQS” (draft) may replace “Queue backend: Redis streams” (draft)"
    )


def test_an_adr_vault_is_offered_only_resolutions_it_can_hold_and_keeps_compatible_in_its_settings(tmp_path):
    """An ADR record has no place for `compatible_with`, and `check --repair` completes no side
    there: repair is not offered; supersede is, since the records state it; "compatible" is, kept
    in the vault's `.workbench.yaml` beside what it says already, and the pair is not listed again,
    in this process or the next. No record is written."""
    from tests.vault_builders import VaultBuilder

    b = VaultBuilder(tmp_path / "adr")
    b.raw(
        "ADR-001-rabbit.md",
        "# ADR-001: Queue backend: RabbitMQ broker\n\n## Status\n\nAccepted\n\n## Decision\n\nBackground jobs go through a RabbitMQ broker with durable queues.\n",
    )
    b.raw(
        "ADR-002-kafka.md",
        "# ADR-002: Queue backend: Kafka topics\n\n## Status\n\nAccepted\n\n## Decision\n\nBackground jobs go through Kafka topics; durable queues become partitions. See ADR-001.\n",
    )
    b.raw(
        "ADR-003-logs.md",
        "# ADR-003: Structured JSON logging\n\n## Status\n\nAccepted\n\n## Decision\n\nEvery service logs JSON lines.\n",
    )
    b.raw(
        "ADR-004-api.md",
        "# ADR-004: Use REST for the public API\n\n## Status\n\nAccepted\n\n## Decision\n\nResources and verbs.\n",
    )
    b.raw(
        "ADR-005-one.md",
        "# ADR-005: One\n\n## Status\n\nAccepted\n\n## Decision\n\nA different decision.\n\nSupersedes ADR-004\n",
    )
    vault = Vault.open(b.root)
    conflicts = vault.conflicts()
    assert [c.ids for c in conflicts if c.kind == "contradiction"] == [["ADR-001", "ADR-002"]]
    actions = {r.action for c in conflicts for r in c.resolutions}
    assert "compatible" in actions and "repair" not in actions and "supersede" in actions
    settings = b.root / ".workbench.yaml"
    settings.write_text("# our words\nstatuses:\n  Parked: deprecated\n")
    records = {p: p.read_bytes() for p in b.root.glob("*.md")}
    plan = vault.mark_compatible("ADR-001", "ADR-002")
    assert plan.paths == [".workbench.yaml"] and {p: p.read_bytes() for p in b.root.glob("*.md")} == records
    assert (
        settings.read_text()
        == '# our words\nstatuses:\n  Parked: deprecated\ncompatible:\n  - ["ADR-001", "ADR-002"]\n'
    )
    assert not [c for c in vault.conflicts() if c.kind == "contradiction"]
    fresh = Vault.open(b.root)
    assert not [c for c in fresh.conflicts() if c.kind == "contradiction"]
    assert not [p for p in fresh.problems if p.path == ".workbench.yaml"]
    assert fresh.mark_compatible("ADR-002", "ADR-001").empty  # said once is enough


def _documents(count: int, prefix: str) -> list:
    from workbench.core.vocabulary.model import Document

    words = "queue invoice payment retry webhook schema cache tenant audit export ledger refund".split()
    return [
        Document(
            f"mem-decision-{prefix}-{n}",
            f"decisions/{prefix}-{n}.md",
            {
                "id": f"mem-decision-{prefix}-{n}",
                "type": "decision",
                "title": f"{words[n % 12]} {words[(n * 5) % 12]} {prefix} {n}",
                "status": "active",
            },
            f"{words[n % 7]} {words[n % 11]} {words[n % 5]} text {prefix}{n % 13} {words[n % 3]}\n",
        )
        for n in range(count)
    ]


def test_profiles_asked_for_another_set_between_two_calls_are_kept_while_their_documents_live():
    """The queue profiles every document it compares, then its decisions alone: the second call
    must not push the first one's profiles out (a large vault was profiled again each time)."""
    from workbench.core.views.similarity import profiles_of

    many, few = _documents(1500, "many"), _documents(10, "few")
    first = profiles_of(many + few)
    profiles_of(few)
    again = profiles_of(many + few)
    assert all(again[doc_id] is profile for doc_id, profile in first.items())


def test_bm25_likeliest_match_and_pair_scores_equal_the_full_scores_of_each_query():
    """The queue's shortcuts (each decision's likeliest match, one pair's score) give exactly
    what asking every profile's scores gives, ties going to the greater id."""
    from workbench.core.views.similarity import Bm25, profiles_of

    profiles = profiles_of(_documents(120, "bm"))
    bm25 = Bm25(profiles.values())
    for doc_id, profile in profiles.items():
        asked = bm25.query_terms(profile.terms, Bm25.QUERY_TERMS)
        scores = bm25.scores(profile.terms)
        expected = max(((value, other) for other, value in scores.items() if other != doc_id), default=None)
        assert bm25.likeliest(asked, other_than=doc_id) == expected
        assert all(bm25.score(asked, other) == scores.get(other, 0.0) for other in profiles)


def adr_folder(folder, records: dict[str, tuple[str, str, str]]):
    """ADR records `NNNN-x.md` -> (title, status, body), dated by their number, in a new folder."""
    folder.mkdir(parents=True)
    for name, (title, status, body) in records.items():
        (folder / name).write_text(f"# {title}\n\nDate: 2024-01-0{name[3]}\n\n## Status\n\n{status}\n\n{body}\n")
    return folder


def test_a_record_named_in_a_title_is_cited(tmp_path):
    """ "Remove the ADR-2 relay and the CIP-20 precompile": a title that names the records it
    undoes cites them, for the queue and for the gate, though the body never names them again."""
    folder = tmp_path / "docs" / "adr"
    records = {
        "0002-mail-relay.md": ("2. Run our own mail relay", "Accepted", "Postfix relays every message."),
        "0003-logging.md": ("3. Ship logs to one place", "Accepted", "Every service ships JSON lines."),
        "0004-caching.md": ("4. Cache pages at the edge", "Accepted", "A CDN keeps rendered pages."),
        "0009-remove-relay.md": (
            "9. Remove the ADR-2 relay",
            "Accepted",
            "Messages leave through the provider's API; the hosts are switched off.",
        ),
    }
    vault = Vault.open(adr_folder(folder, records))
    entry = next(c for c in vault.conflicts() if c.kind == "contradiction")
    assert entry.ids == ["ADR-002", "ADR-009"] and "it cites “Run our own mail relay”" in entry.reason
    offered = vault.gate(Draft("decision", "Drop ADR-2", [], [], "Messages leave through an API."))
    assert [c.reasons[0] for c in offered if c.id == "ADR-002"] == ["it cites “Run our own mail relay”"]


def test_a_superseded_decision_naming_no_successor_is_offered_its_likeliest_ones(tmp_path):
    """Its status says it was replaced, so the question is which live decision replaced it: the
    likeliest are offered, best first, with reasons in the records' words, and naming another stays
    possible. An older decision is never offered as its successor."""
    folder = tmp_path / "adr"
    records = {
        "0001-blake-precompile.md": ("Blake2s hash precompile", "Accepted", "A precompile hashes with blake2s."),
        "0002-hash-precompile.md": ("Generic hash precompile", "Superseded", "A precompile hashes with any function."),
        "0003-logging.md": ("Ship logs to one place", "Accepted", "Every service ships JSON lines."),
        "0004-caching.md": ("Cache pages at the edge", "Accepted", "A CDN keeps rendered pages."),
        "0005-remove-precompiles.md": (
            "Remove the hash precompiles",
            "Accepted",
            "The generic hash precompile of ADR-2 is removed; contracts hash in their own code.",
        ),
    }
    adr_folder(folder, {name: (f"{name[3]}. {title}", status, body) for name, (title, status, body) in records.items()})
    vault = Vault.open(folder)
    entry = next(c for c in vault.conflicts() if c.kind == "superseded-without-successor")
    assert entry.ids == ["ADR-002"]
    assert "ADR-005 “Remove the hash precompiles” may be it: it cites “Generic hash precompile”" in entry.reason
    commands = [r.command for r in entry.resolutions]
    assert commands[0] == "supersede ADR-002 ADR-005" and "supersede ADR-002 NEW_ID" in commands
    assert "supersede ADR-002 ADR-001" not in commands  # older than the record: never its successor
    assert not [c for c in vault.conflicts() if c.kind == "successor-missing"]  # listed once, with its fault
    vault.mark_compatible("ADR-002", "ADR-005")  # "it did not replace it": never offered again
    entry = next(c for c in vault.conflicts() if c.kind == "superseded-without-successor")
    assert "supersede ADR-002 ADR-005" not in [r.command for r in entry.resolutions]


def test_a_later_record_a_superseded_one_names_in_its_text_comes_first(tmp_path):
    """ "This feature has been removed in ADR-5": the superseded record names its successor in words."""
    folder = tmp_path / "adr"
    records = {
        "0002-hash-precompile.md": (
            "Generic hash precompile",
            "Superseded",
            "This feature has been removed in [ADR-5](0005-cleanup.md). A precompile hashes with any function.",
        ),
        "0003-hash-fees.md": ("Hash precompile fees", "Accepted", "Each hash precompile call costs gas per word."),
        "0004-caching.md": ("Cache pages at the edge", "Accepted", "A CDN keeps rendered pages."),
        "0005-cleanup.md": ("Spring cleaning", "Accepted", "Old features go; contracts do their own work."),
    }
    adr_folder(folder, {name: (f"{name[3]}. {title}", status, body) for name, (title, status, body) in records.items()})
    entry = next(c for c in Vault.open(folder).conflicts() if c.kind == "superseded-without-successor")
    assert entry.resolutions[0].command == "supersede ADR-002 ADR-005"
    assert "ADR-005 “Spring cleaning” may be it: “Generic hash precompile” names it" in entry.reason


def test_the_review_list_reaches_a_successor_that_is_only_second_most_alike(builder):
    """A record's words make a companion its likeliest and its successor second: the queue lists
    neither pair on that alone, but every pair is weighed, so the review list offers the successor."""
    from workbench.core.services.conflicts import choose, weigh_decisions, weigh_for_review

    vault = vault_with(
        builder,
        {
            "mem-decision-cache-redis": (
                "Cache sessions in Redis",
                "Sessions live in a Redis cache with a one hour expiry; eviction is least recently used.",
                "2026-02-01",
                {},
            ),
            "mem-decision-cache-redis-tuning": (
                "Redis cache tuning",
                "The Redis cache for sessions keeps a one hour expiry; eviction is least recently used; memory cap 2 GB.",
                "2026-02-10",
                {},
            ),
            "mem-decision-sessions-in-db": (
                "Keep sessions in the database",
                "Sessions move out of the cache into database rows with a one hour expiry.",
                "2026-03-01",
                {},
            ),
        },
    )
    pair = ("mem-decision-cache-redis", "mem-decision-sessions-in-db")
    offered = [(w.older, w.newer) for w in weigh_for_review(vault.documents)]
    assert pair in offered[:3], offered
    queue = weigh_decisions(vault.documents)
    assert pair not in [(w.older, w.newer) for w in choose(queue)] and len(queue) < len(offered)


def test_a_decision_the_draft_requires_is_offered_after_one_it_may_replace(builder):
    """The draft cites what it requires because it requires it: that citation says nothing of a
    replacement, so a decision alike in words and not required comes first."""
    vault = vault_with(
        builder,
        {
            "mem-decision-auth-tokens": (
                "Sign API tokens with HMAC keys",
                "API tokens are signed with shared HMAC keys rotated monthly.",
                "2026-02-01",
                {},
            ),
            "mem-decision-key-store": (
                "Keep signing keys in the vault service",
                "Every signing key lives in the vault service; services fetch keys at start.",
                "2026-02-05",
                {},
            ),
        },
    )
    draft = Draft(
        "decision",
        "Sign API tokens with asymmetric keys",
        links=[("depends_on", "mem-decision-key-store")],
        body="API tokens are signed with asymmetric keys from mem-decision-key-store; HMAC keys go.",
    )
    offered = vault.gate(draft)
    assert [c.id for c in offered][:1] == ["mem-decision-auth-tokens"], offered
    required = [c for c in offered if c.id == "mem-decision-key-store"]
    assert not required or "the draft builds on it" in required[0].reasons[0]
