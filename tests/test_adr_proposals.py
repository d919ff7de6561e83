"""Proposal collections written as PEP-like processes write them, read as decision records with
their links: a header block of `Key: value` lines (plain, indented as a code block, in a `<pre>`
or a fenced block) instead of YAML frontmatter, supersession said in other words ("rejected in
favour of", "instead of"), statuses kept in the collection's README table, and a title prefix every
record shares. Each vault here is written in words of our own."""

from __future__ import annotations

from textwrap import dedent, indent

import pytest

from tests.vault_builders import VaultBuilder
from workbench import Vault


def header(lines: str, shape: str) -> str:
    """The header lines as a proposal opens with them, in one of the shapes collections use."""
    lines = dedent(lines).strip("\n")
    if shape == "plain":
        return lines + "\n"
    if shape == "indented":
        return indent(lines, "    ") + "\n"
    if shape == "pre":
        return "<pre>\n" + indent(lines, "  ") + "\n</pre>\n"
    return "```\n" + lines + "\n```\n"


SHAPES = ("plain", "indented", "pre", "fenced")


def proposals(root, shape: str) -> VaultBuilder:
    b = VaultBuilder(root)
    b.raw(
        "nip-0001.md",
        header(
            """
            NIP: 1
            Title: Relay fees paid per message
            Author: Ada Example <ada@example.org>
              Bo Example <bo@example.org>
            Status: Replaced
            Replaced-By: 4
            Created: 2019-03-02
            """,
            shape,
        )
        + "\n## Abstract\n\nEach message a relay forwards costs a fixed fee.\n",
    )
    b.raw(
        "nip-0002.md",
        header("NIP: 2\nTitle: Peer discovery over DNS\nStatus: Final\nCreated: 2019-05-11\n", shape)
        + "\n## Abstract\n\nPeers are found through DNS seeds.\n",
    )
    b.raw(
        "nip-0003.md",
        header("NIP: 3\nTitle: Compact block relay\nStatus: Draft\nCreated: 2020-01-20\n", shape)
        + "\n## Abstract\n\nBlocks are relayed as short ids.\n",
    )
    b.raw(
        "nip-0004.md",
        header("NIP: 4\nTitle: Relay fees by size\nStatus: Final\nReplaces: 1\nCreated: 2021-07-08\n", shape)
        + "\n## Abstract\n\nA relay's fee follows the message's size.\n",
    )
    return b


@pytest.mark.parametrize("shape", SHAPES)
def test_a_proposal_header_block_makes_a_decision_record_with_its_links(tmp_path, shape):
    """Without frontmatter, the header a proposal opens with says what frontmatter would: the
    collection is a decision collection, each proposal a decision with its title, status and date,
    and `Replaced-By: 4` / `Replaces: 1` link the two both ways."""
    vault = Vault.open(proposals(tmp_path / "nips", shape).root)
    assert vault.flavour.name == "adr"
    read = {d.id: (d.type, d.title, d.status) for d in vault.documents}
    assert read == {
        "NIP-001": ("decision", "Relay fees paid per message", "superseded"),
        "NIP-002": ("decision", "Peer discovery over DNS", "active"),
        "NIP-003": ("decision", "Compact block relay", "draft"),
        "NIP-004": ("decision", "Relay fees by size", "active"),
    }
    assert vault.get("NIP-001").superseded_by == ["NIP-004"] and vault.get("NIP-004").supersedes == ["NIP-001"]
    assert str(vault.get("NIP-001").view.created) == "2019-03-02"


def test_a_header_block_is_read_only_where_it_states_a_status_or_a_title(tmp_path):
    """A record that opens with a line or two of `Key: value` prose ("Date: …", "Note: …") keeps
    its frontmatter-free reading: nothing there is taken for a header."""
    b = VaultBuilder(tmp_path / "adr")
    for n in (1, 2, 3):
        b.raw(
            f"{n:04d}-r{n}.md",
            f"# R{n}\n\nDate: 2020-0{n}-01\nNote: written by the team\n\n## Status\n\nAccepted\n\n## Decision\n\nx\n",
        )
    vault = Vault.open(b.root)
    assert [(d.id, d.title, d.status) for d in sorted(vault.documents, key=lambda d: d.id)] == [
        ("ADR-001", "R1", "active"),
        ("ADR-002", "R2", "active"),
        ("ADR-003", "R3", "active"),
    ]


@pytest.mark.parametrize(
    ("where", "said", "older", "newer"),
    [
        ("0004-queue.md", "Status: Rejected in favour of ADR 5", "ADR-004", "ADR-005"),
        ("0004-queue.md", "This proposal was withdrawn in favor of [ADR-5](0005-stream.md).", "ADR-004", "ADR-005"),
        ("0005-stream.md", "ADR-4 was dropped in favour of ADR-5 after the load test.", "ADR-004", "ADR-005"),
        ("0005-stream.md", "The team chose to implement ADR-5 instead of ADR-4.", "ADR-004", "ADR-005"),
        ("0004-queue.md", "In the end we went on to implement ADR-5 instead of ADR-4.", "ADR-004", "ADR-005"),
    ],
)
def test_a_record_set_aside_for_another_is_replaced_by_it(tmp_path, where, said, older, newer):
    """ "Rejected in favour of ADR 5" and "to implement ADR-5 instead of ADR-4" say which replaced
    which, written in either record."""
    b = VaultBuilder(tmp_path / "adr")
    b.raw("0003-cache.md", "# Cache\n\n## Status\n\nAccepted\n\n## Decision\n\nA cache.\n")
    b.raw("0004-queue.md", "# Queue\n\n## Status\n\nProposed\n\n## Decision\n\nA queue.\n")
    b.raw("0005-stream.md", "# Stream\n\n## Status\n\nAccepted\n\n## Decision\n\nA stream.\n")
    path = b.root / where
    text = path.read_text()
    if said.startswith("Status:"):
        text = text.replace("## Status\n\nProposed\n\n", "").replace("# Queue\n", f"# Queue\n\n{said}\n")
    else:
        text += f"\n{said}\n"
    path.write_text(text)
    vault = Vault.open(b.root)
    assert vault.get(older).superseded_by == [newer] or vault.get(newer).supersedes == [older]
    assert vault.get("ADR-003").superseded_by == [] and vault.get("ADR-003").supersedes == []


@pytest.mark.parametrize(
    "said",
    [
        "We are in favour of ADR-5 as well.",
        "We might implement ADR-5 instead of ADR-4 one day.",
        "It was not rejected in favour of ADR-5.",
        "ADR-3 was dropped in favour of ADR-5.",
    ],
)
def test_a_preference_that_hedges_or_speaks_of_others_states_nothing(tmp_path, said):
    b = VaultBuilder(tmp_path / "adr")
    b.raw("0003-cache.md", "# Cache\n\n## Status\n\nAccepted\n\n## Decision\n\nA cache.\n")
    b.raw("0004-queue.md", f"# Queue\n\n## Status\n\nAccepted\n\n## Decision\n\nA queue. {said}\n")
    b.raw("0005-stream.md", "# Stream\n\n## Status\n\nAccepted\n\n## Decision\n\nA stream.\n")
    vault = Vault.open(b.root)
    assert all(not d.supersedes and not d.superseded_by for d in vault.documents)


def test_an_option_rejected_in_favour_of_a_record_deep_in_the_text_is_not_the_record_itself(tmp_path):
    """Among the alternatives, "Rejected in favour of ADR-3" sets an option aside, not the record."""
    b = VaultBuilder(tmp_path / "adr")
    b.raw("0003-cache.md", "# Cache\n\n## Status\n\nAccepted\n\n## Decision\n\nA cache.\n")
    b.raw(
        "0004-queue.md",
        "# Queue\n\n## Status\n\nAccepted\n\n## Decision\n\nA queue.\n\n## Alternatives\n\n"
        "**A second cache.** Rejected in favour of ADR-3, which is enough.\n",
    )
    b.raw("0005-stream.md", "# Stream\n\n## Status\n\nAccepted\n\n## Decision\n\nA stream.\n")
    vault = Vault.open(b.root)
    assert all(not d.supersedes and not d.superseded_by for d in vault.documents)


def test_a_title_opening_every_record_shares_is_no_subject_two_records_share(tmp_path):
    """Every title opens "Acme: ": that names the collection, not what two records are about. The
    subject after it still counts ("Queue backend" in two of them)."""
    from workbench.core.services.conflicts import weigh_decisions

    b = VaultBuilder(tmp_path / "adr")
    titles = [
        "Acme: Queue backend: Redis lists",
        "Acme: Logs kept in files",
        "Acme: Metrics scraped by Prometheus",
        "Acme: Cache held in memory",
        "Acme: Queue backend: Kafka topics",
    ]
    for n, title in enumerate(titles, start=1):
        b.raw(f"{n:04d}-r{n}.md", f"# {title}\n\n## Status\n\nAccepted\n\n## Decision\n\nWe settle on {title[6:]}.\n")
    vault = Vault.open(b.root)
    reasons = {(w.older, w.newer): " ".join(w.like.reasons) for w in weigh_decisions(vault.documents)}
    assert not [pair for pair, said in reasons.items() if "Acme" in said or "acme" in said], reasons
    assert "both are about “Queue backend”" in reasons.get(("ADR-001", "ADR-005"), ""), reasons


def test_statuses_kept_in_the_collection_s_readme_table_are_the_records_statuses(tmp_path):
    """The records state no status; the README's table does, by link or by number, and a status
    there that names its successor links the two. A record's own status comes first."""
    b = VaultBuilder(tmp_path / "adr")
    for n, title in ((1, "Queue on Redis"), (2, "Logs in files"), (3, "Queue on SQS"), (4, "Cache")):
        b.raw(f"{n:04d}-r{n}.md", f"# {title}\n\n## Context\n\nWhy.\n\n## Decision\n\n{title}.\n")
    b.raw("0004-r4.md", "# Cache\n\n## Status\n\nProposed\n\n## Context\n\nWhy.\n\n## Decision\n\nA cache.\n")
    b.raw(
        "README.md",
        """
        # Decisions

        | No. | Decision | Status |
        |----:|----------|--------|
        | [1](0001-r1.md) | Queue on Redis | Superseded by [3](0003-r3.md) |
        | 2 | Logs in files | **Deprecated** |
        | [3](0003-r3.md) | Queue on SQS | Accepted |
        | [4](0004-r4.md) | Cache | Accepted |
        """,
    )
    vault = Vault.open(b.root)
    assert [(d.id, d.status) for d in sorted(vault.documents, key=lambda d: d.id)] == [
        ("ADR-001", "superseded"),
        ("ADR-002", "deprecated"),
        ("ADR-003", "active"),
        ("ADR-004", "draft"),
    ]
    assert vault.get("ADR-001").superseded_by == ["ADR-003"]
    assert vault.get("ADR-002").view.stated_status == "Deprecated"


def test_a_status_listed_in_the_readme_is_read_again_when_the_table_changes(tmp_path):
    b = VaultBuilder(tmp_path / "adr")
    for n in (1, 2, 3):
        b.raw(f"{n:04d}-r{n}.md", f"# R{n}\n\n## Context\n\nWhy.\n\n## Decision\n\nR{n}.\n")
    table = "| ADR | Status |\n|---|---|\n| ADR-1 | {} |\n| ADR-2 | Accepted |\n| ADR-3 | Accepted |\n"
    b.raw("README.md", table.format("Accepted"))
    assert Vault.open(b.root).get("ADR-001").status == "active"
    b.raw("README.md", table.format("Rejected"))
    assert Vault.open(b.root).get("ADR-001").status == "archived"


@pytest.mark.parametrize("shape", SHAPES)
def test_a_supersession_written_to_header_block_records_reads_back(tmp_path, shape):
    """`supersede` writes into the status line the header states, and the records read back as
    replaced and replacing, the header's other lines as they were."""
    b = proposals(tmp_path / "nips", shape)
    vault = Vault.open(b.root)
    vault.supersede("NIP-002", "NIP-003")
    again = Vault.open(b.root)
    assert again.get("NIP-002").status == "superseded" and again.get("NIP-002").superseded_by == ["NIP-003"]
    assert again.get("NIP-003").status == "active" and again.get("NIP-003").supersedes == ["NIP-002"]
    assert "Title: Peer discovery over DNS" in (b.root / "nip-0002.md").read_text()
    assert again.get("NIP-002").title == "Peer discovery over DNS"


@pytest.mark.parametrize("shape", SHAPES)
def test_a_supersession_is_written_in_the_header_s_own_lines(tmp_path, shape):
    """The status word under `Status:`, the successor under `Superseded-By:` (a new line, indented as
    the header is), and a predecessor joining a `Replaces:` list written in bare numbers."""
    b = proposals(tmp_path / "nips", shape)
    Vault.open(b.root).supersede("NIP-002", "NIP-004")
    older, newer = (b.root / "nip-0002.md").read_text(), (b.root / "nip-0004.md").read_text()
    indent = {"plain": "", "indented": "    ", "pre": "  ", "fenced": ""}[shape]
    assert f"\n{indent}Status: Superseded\n{indent}Superseded-By: NIP-004\n" in older
    assert f"\n{indent}Replaces: 1, 2\n" in newer
    again = Vault.open(b.root)
    assert again.get("NIP-004").supersedes == ["NIP-001", "NIP-002"]
    assert again.get("NIP-002").superseded_by == ["NIP-004"] and again.get("NIP-002").status == "superseded"
