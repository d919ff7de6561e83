"""What a reader of the review list is given of each record, on real files: the decision itself
when the opening stops short of it, long web addresses shortened so they do not crowd out the
words, a link's target counted as a citation, and the order of a pair explained when a status and
the dates disagree."""

from __future__ import annotations

import json

from vault_builders import VaultBuilder
from workbench import Vault
from workbench.core.views.excerpts import OPENING, decision, shorten_addresses

COMMIT = "https://github.com/example/project/blob/a98e2907c4e425de2736782793383aad63132c14/node/src/Chain/Direct.hs#L256-L257"
CONTEXT = "".join(
    f"* Step {n} of the chain state is kept in the node ([code]({COMMIT}), [usage]({COMMIT}))\n" for n in range(30)
)


def two_decisions(builder: VaultBuilder, newer_body: str, older_status: str = "active") -> Vault:
    builder.add(
        "mem-decision-chain-state-single",
        status=older_status,
        created="2026-01-10",
        body="## Context\n\n" + CONTEXT + "\n## Decision\n\nWe keep one chain state, inside the head state.\n",
    )
    builder.add(
        "mem-decision-chain-state-local",
        created="2026-03-02",
        body=newer_body,
    )
    return Vault.open(builder.root)


def only_pair(vault: Vault):
    page = vault.review(limit=5, depth=10)
    assert len(page.pairs) == 1, [p.ids for p in page.pairs]
    return page.pairs[0]


def test_the_decision_is_given_when_the_opening_stops_short_of_it(builder):
    vault = two_decisions(builder, "## Context\n\nChain state in the node raced.\n\n## Decision\n\nKeep it local.\n")
    pair = only_pair(vault)
    older = pair.older
    assert older.opening_cut and "We keep one chain state" not in older.opening
    assert older.decision == "We keep one chain state, inside the head state."
    assert older.to_json()["decision"] == older.decision
    # A record whose opening holds its decision whole is not given it twice.
    assert pair.newer.decision == "" and "Keep it local." in pair.newer.opening


def test_long_addresses_keep_their_host_and_last_part_and_leave_room_for_words(builder):
    vault = two_decisions(builder, "Chain state kept locally.\n")
    older = only_pair(vault).older
    assert COMMIT not in older.opening
    assert "[code](https://github.com/…/Direct.hs)" in older.opening
    assert (
        older.opening.count("Step ") > 15
    )  # (8 with the addresses whole) the words of the record, not its addresses, fill the opening
    assert len(older.opening) <= OPENING
    assert older.characters == len(vault.get(older.id).body)  # the whole body's length, as written
    assert shorten_addresses("see https://etcd.io/ and [x](/adr/10)") == "see https://etcd.io/ and [x](/adr/10)"


def test_a_link_to_the_other_record_is_evidence_that_it_cites_it(builder):
    """`[Direct](/adr/10)` names no record in its words; its target does."""
    record = "# {n}. {title}\n\nDate: {date}\n\n## Status\n\nAccepted\n\n## Context\n\n{context}\n\n## Decision\n\n{decision}\n"
    builder.raw(
        "0010-use-direct-chain.md",
        record.format(
            n=10,
            title="Use a direct connection to the chain node",
            date="2021-10-23",
            context="On-chain validation needs submitting and observing transactions through the chain node socket.",
            decision="Connect to the chain node directly through a local socket.",
        ),
    )
    builder.raw(
        "0013-contract-testing.md",
        record.format(
            n=13,
            title="Contract testing strategy",
            date="2022-01-19",
            context="We implement our custom ([Direct](/adr/10)) interaction with the chain node socket, "
            "observing transactions without the framework.",
            decision="Test contracts by mutating transactions submitted to the chain node.",
        ),
    )
    builder.raw(
        "0011-use-the-api.md",
        record.format(n=11, title="Use the api", date="2021-11-18", context="Ledger specs.", decision="Use the api."),
    )
    vault = Vault.open(builder.root)
    assert vault.flavour.name == "adr"
    pair = next(p for p in vault.review(limit=5, depth=10).pairs if p.ids == ("ADR-010", "ADR-013"))
    assert pair.reasons[0] == "ADR-013 cites ADR-010"
    assert "([Direct](/adr/10))" in pair.newer.passage


def test_a_live_status_over_a_later_date_is_said_plainly(builder):
    builder.add(
        "mem-decision-queue-broker-old",
        status="deprecated",
        created="2026-05-01",
        body="Queue broker retries with backoff for every consumer of the queue broker.\n",
    )
    builder.add(
        "mem-decision-queue-broker-new",
        created="2026-02-01",
        body="Queue broker retries with backoff for each consumer of the queue broker.\n",
    )
    pair = only_pair(Vault.open(builder.root))
    assert pair.ids == ("mem-decision-queue-broker-old", "mem-decision-queue-broker-new")
    assert "by its date mem-decision-queue-broker-new is the earlier (2026-02-01" in pair.newer_because
    assert "does not say which record, if any, replaced it" in pair.newer_because


def test_what_we_will_do_is_a_decision_but_a_note_or_a_code_comment_is_not():
    text = (
        "## Abstract\n\nA wallet API.\n\n"
        "```js\n// we will be checking the balance\n\nwe will retry\n```\n\n"
        "> Note: We will be working with the SDK team.\n\n"
        "Therefore, we will sign every group of transactions in one call.\n\n"
        "## Rationale\n\nWhy.\n"
    )
    assert decision(text) == "Therefore, we will sign every group of transactions in one call."
    assert decision("## Context\n\nNothing said here.\n") == ""
    heading = "# Title\n\n## Decision Outcome\n\nChosen option: Postgres.\n\n### Consequences\n\nMore.\n\n## Links\n"
    assert decision(heading) == "Chosen option: Postgres.\n\n### Consequences\n\nMore."
    # The opening stops inside the section: the rest follows on, marked.
    assert decision(heading, heading[:45]) == "…" + heading[45:].split("\n\n## Links")[0].strip()


def test_an_opening_cut_to_fit_the_page_gives_the_decision_it_no_longer_holds(builder):
    """A pair too long for the room has its openings cut further; what each decides is then
    worked out again against the shorter opening, not left empty because the long one held it."""
    context = "".join(f"Step {n} of the chain state is kept in the node, as the head state needs.\n" for n in range(12))
    vault = two_decisions(
        builder, "## Context\n\n" + context + "\n## Decision\n\nWe keep the chain state local to the node.\n"
    )
    whole = only_pair(vault)
    assert whole.newer.decision == "" and "We keep the chain state local" in whole.newer.opening
    room = len(json.dumps(whole.to_json())) + 400 - len(whole.older.opening) - len(whole.newer.opening) + 2 * 300
    (cut,) = vault.review(limit=5, depth=10, room=room).pairs
    assert len(cut.newer.opening) < len(whole.newer.opening) and "We keep" not in cut.newer.opening
    assert cut.newer.decision == "We keep the chain state local to the node."
    assert cut.older.decision == "We keep one chain state, inside the head state."
