"""How decision collections state status and supersession, read as they mean it: forms seen in
public collections, each written here in words of our own."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.vault_builders import VaultBuilder
from workbench import RefusedError, Vault


def record(number: int, title: str, status: str, extra: str = "", body: str = "") -> str:
    return f"# {title}\n\n## Status\n\n{status}\n\n{extra}\n\n## Decision\n\n{body or title}.\n"


def test_an_eip_style_preamble_with_capitalised_keys_is_read(tmp_path):
    """`Status: Final`, `Title: …`, `SupersededBy: 3`, `Replaces: 1`: an improvement-proposal
    collection whose keys start with a capital is a decision collection all the same."""
    b = VaultBuilder(tmp_path / "kips")
    b.raw("kip-1.md", "---\nKIP: 1\nTitle: Token fees\nStatus: Final\nSupersededBy: 3\n---\n\n# Summary\n\nFees.\n")
    b.raw("kip-2.md", "---\nKIP: 2\nTitle: Account names\nStatus: Draft\n---\n\n# Summary\n\nNames.\n")
    b.raw("kip-3.md", "---\nKIP: 3\nTitle: Token fees, again\nStatus: Final\nReplaces: 1\n---\n\n# Summary\n\nFees.\n")
    vault = Vault.open(b.root)
    assert vault.flavour.name == "adr"
    assert [(d.id, d.title, d.status) for d in sorted(vault.documents, key=lambda d: d.id)] == [
        ("KIP-001", "Token fees", "active"),
        ("KIP-002", "Account names", "draft"),
        ("KIP-003", "Token fees, again", "active"),
    ]
    assert vault.get("KIP-001").superseded_by == ["KIP-003"] and vault.get("KIP-003").supersedes == ["KIP-001"]


def test_a_zero_padded_number_is_the_record_it_names_not_an_octal(tmp_path):
    b = VaultBuilder(tmp_path / "adr")
    for n in (8, 10, 12):
        b.raw(
            f"{n:04d}-r{n}.md",
            f"---\nstatus: accepted\nsupersedes: 0010\n---\n\n# R{n}\n\n## Decision\n\nx\n"
            if n == 12
            else record(n, f"R{n}", "Accepted"),
        )
    vault = Vault.open(b.root)
    assert vault.get("ADR-012").supersedes == ["ADR-010"]


def test_a_date_that_is_no_date_keeps_the_record(tmp_path):
    b = VaultBuilder(tmp_path / "xips")
    for n in (1, 2, 3):
        created = "2021-26-02" if n == 2 else "2021-02-26"
        b.raw(f"xip-{n}.md", f"---\ntitle: X{n}\nstatus: Final\ncreated: {created}\n---\n\nText {n}.\n")
    vault = Vault.open(b.root)
    assert "XIP-002" in vault and vault.get("XIP-002").title == "X2"
    assert not [p for p in vault.problems_for("XIP-002") if p.code.startswith("yaml")]


@pytest.mark.parametrize(
    ("written", "day"),
    [
        ("Date: 20/06/2019", dt.date(2019, 6, 20)),
        ("**Date:** 3rd March 2022", dt.date(2022, 3, 3)),
        ("- Created: 03-Mar-2022", dt.date(2022, 3, 3)),
        ("Date: March 3, 2022", dt.date(2022, 3, 3)),
        ("Date: 2022/03/04", dt.date(2022, 3, 4)),
        ("Date: TBD\n\nDate: 12/17/2022", dt.date(2022, 12, 17)),
        ("Date: 05/02/2018", None),  # the fifth of February or the second of May: no date said
    ],
)
def test_a_date_is_read_as_people_write_it(tmp_path, written, day):
    """A record's date orders it before or after another (which of two replaced which); collections
    write it day first, month first and with the month's name."""
    b = VaultBuilder(tmp_path / "adr")
    for n in (1, 2, 3):
        b.raw(
            f"{n:04d}-r{n}.md", f"# R{n}\n\n{written if n == 2 else ''}\n\n## Status\n\nAccepted\n\n## Decision\n\nx\n"
        )
    vault = Vault.open(b.root)
    assert vault.get("ADR-002").view.created == day


def test_a_frontmatter_date_written_month_first_is_read(tmp_path):
    b = VaultBuilder(tmp_path / "xips")
    for n, created in ((1, "12/7/2022"), (2, "12/17/2022"), (3, "2021-26-02")):
        b.raw(f"xip-{n}.md", f"---\ntitle: X{n}\nstatus: Final\ncreated: {created}\n---\n\nText {n}.\n")
    vault = Vault.open(b.root)
    assert [vault.get(f"XIP-00{n}").view.created for n in (1, 2, 3)] == [
        None,
        dt.date(2022, 12, 17),
        dt.date(2021, 2, 26),
    ]


@pytest.mark.parametrize("value", ["N/A", "none", "-", "TBD", "TODO - add the signing record when ready"])
def test_a_key_that_names_nothing_links_nothing(tmp_path, value):
    b = VaultBuilder(tmp_path / "xips")
    for n in (1, 2, 3):
        b.raw(f"xip-{n}.md", f"---\ntitle: X{n}\nstatus: Final\nreplaces: {value}\nrequires: {value}\n---\n\nText.\n")
    vault = Vault.open(b.root)
    assert not vault.get("XIP-001").supersedes and not vault.get("XIP-001").links
    assert not [p for p in vault.problems if "link" in p.code or "dangling" in p.code]


def test_a_record_cited_by_the_collection_s_own_prefix_in_a_key(tmp_path):
    """Files `0007-x.md` carry no prefix, but the collection calls its records `ZIP-0007`."""
    b = VaultBuilder(tmp_path / "zips")
    b.raw("0007-old.md", "---\nstatus: Accepted\n---\n\n# Old\n\n## Decision\n\nx\n")
    b.raw("0008-other.md", "---\nstatus: Accepted\n---\n\n# Other\n\n## Decision\n\ny\n")
    b.raw(
        "0009-new.md",
        "---\nstatus: Accepted\nsupersedes: ZIP-0007\nextends: ZIP-0008\n---\n\n# New\n\n## Decision\n\nz\n",
    )
    vault = Vault.open(b.root)
    new = vault.get("ADR-009")
    assert new.supersedes == ["ADR-007"] and [(l.type, l.target) for l in new.links if l.type != "supersedes"] == [
        ("derived_from", "ADR-008")
    ]


def test_another_standard_s_number_is_not_read_as_one_of_the_collection_s_records(tmp_path):
    b = VaultBuilder(tmp_path / "xips")
    for n in (1, 2, 3):
        extra = "replaces: EIP-2\n" if n == 3 else ""
        b.raw(f"xip-{n}.md", f"---\ntitle: X{n}\nstatus: Final\n{extra}---\n\nText.\n")
    vault = Vault.open(b.root)
    assert vault.get("XIP-003").supersedes == ["EIP-2"]  # as written: a record this vault does not hold


@pytest.mark.parametrize(
    "said",
    [
        "Accepted. This ADR in part supersedes ADR-001.",
        "Accepted. This decision supersedes some aspects of [ADR 1](0001-first.md).",
        "Partly superseded by ADR-002",
    ],
)
def test_a_partial_supersession_leaves_both_standing(tmp_path, said):
    b = VaultBuilder(tmp_path / "adr")
    b.raw("0001-first.md", record(1, "First", "Accepted"))
    b.raw("0002-second.md", record(2, "Second", said if "Partly" not in said else "Accepted"))
    b.raw("0003-third.md", record(3, "Third", said if "Partly" in said else "Accepted"))
    vault = Vault.open(b.root)
    assert all(not d.supersedes and not d.superseded_by for d in vault.documents)
    assert all(d.status == "active" for d in vault.documents)


def test_a_superseded_status_naming_a_record_without_by(tmp_path):
    b = VaultBuilder(tmp_path / "adr")
    b.raw("0001-first.md", record(1, "First", "⌛️ Superseded [0003](0003-third.md)"))
    b.raw("0002-second.md", record(2, "Second", "Accepted"))
    b.raw("0003-third.md", record(3, "Third", "Accepted"))
    vault = Vault.open(b.root)
    assert vault.get("ADR-001").status == "superseded" and vault.get("ADR-001").superseded_by == ["ADR-003"]
    assert not [p for p in vault.problems if p.code == "superseded-without-successor"]


def test_a_numbered_template_is_no_record_and_a_numbered_heading_is_no_title(tmp_path):
    b = VaultBuilder(tmp_path / "adr")
    b.raw("ADR000-template.md", record(0, "Title", "Accepted | Superseded by ADR000"))
    b.raw("ADR001-scraping.md", "# 1. Webscraping\n\n## Status\n\nAccepted\n\n## Decision\n\nx\n")
    b.raw("ADR002-b.md", record(2, "B", "Accepted"))
    b.raw("ADR003-c.md", record(3, "C", "Accepted"))
    vault = Vault.open(b.root)
    assert sorted(vault.ids()) == ["ADR-001", "ADR-002", "ADR-003"]
    assert vault.get("ADR-001").title == "Webscraping"


@pytest.mark.parametrize(
    ("said", "status"),
    [
        ("Deferred", "archived"),
        ("Idea", "draft"),
        ("🤔 Incomplete", "draft"),
        ("Ratified", "active"),
        ("Activation-In-Progress", "active"),
        ("Reverted by [a later discussion](https://example.org/d/1).", "deprecated"),
    ],
)
def test_status_words_of_improvement_processes(tmp_path, said, status):
    b = VaultBuilder(tmp_path / "adr")
    b.raw("0001-first.md", record(1, "First", said))
    b.raw("0002-second.md", record(2, "Second", "Accepted"))
    b.raw("0003-third.md", record(3, "Third", "Accepted"))
    vault = Vault.open(b.root)
    assert vault.get("ADR-001").status == status
    assert not [p for p in vault.problems if p.code == "status-unknown"]


def test_a_supersession_is_written_under_the_keys_as_the_preamble_spells_them(tmp_path):
    b = VaultBuilder(tmp_path / "kips")
    b.raw("kip-1.md", "---\nKIP: 1\nTitle: Fees\nStatus: Final\n---\n\nFees.\n")
    b.raw("kip-2.md", "---\nKIP: 2\nTitle: Names\nStatus: Final\n---\n\nNames.\n")
    b.raw("kip-3.md", "---\nKIP: 3\nTitle: Fees again\nStatus: Final\nReplaces: 2\n---\n\nFees.\n")
    vault = Vault.open(b.root)
    vault.supersede("KIP-001", "KIP-003")
    old, new = (b.root / "kip-1.md").read_text(), (b.root / "kip-3.md").read_text()
    assert "Status: Superseded" in old and "\nstatus:" not in old and "superseded-by: KIP-003" in old
    assert "\nsupersedes:" not in new and "Replaces:" in new
    vault = Vault.open(b.root)
    assert vault.get("KIP-001").superseded_by == ["KIP-003"]
    assert sorted(vault.get("KIP-003").supersedes) == ["KIP-001", "KIP-002"]


def test_three_digit_names_number_records_where_they_read_as_records(tmp_path):
    b = VaultBuilder(tmp_path / "adr")
    b.raw("001-first.md", record(1, "1. First", "Superseded by ADR-003"))
    b.raw("002-second.md", record(2, "2. Second", "Accepted", body="Unlike ADR-001"))
    b.raw("003-third.md", record(3, "3. Third", "Accepted"))
    vault = Vault.open(b.root)
    assert vault.flavour.name == "adr" and sorted(vault.ids()) == ["ADR-001", "ADR-002", "ADR-003"]
    assert vault.get("ADR-001").superseded_by == ["ADR-003"] and vault.get("ADR-003").title == "Third"
    assert ("related_to", "ADR-001") in [(l.type, l.target) for l in vault.get("ADR-002").links]


def test_three_digit_chapters_are_not_decision_records(tmp_path):
    b = VaultBuilder(tmp_path / "guide")
    for n, name in enumerate(("intro", "setup", "usage", "faq"), start=1):
        b.raw(f"{n:03d}-{name}.md", f"# {name.title()}\n\nSome words about {name}.\n")
    assert Vault.open(b.root).flavour.name != "adr"


def test_a_status_tag_is_no_subject_and_a_numbered_title_loses_its_number(tmp_path):
    """Docusaurus sites tag each record with its status (`tags: [Accepted]`) and number its title."""
    b = VaultBuilder(tmp_path / "adr")
    for n, title in ((1, "Queue on Redis"), (2, "Logs to files"), (3, "Queue on SQS")):
        b.raw(
            f"2021-06-0{n}_00{n}-x.md",
            f"---\nslug: {n}\ntitle: |\n  {n}. {title}\ntags: [Accepted, queue]\n---\n\n## Status\n\nAccepted\n\n## Decision\n\n{title}.\n",
        )
    vault = Vault.open(b.root)
    assert vault.get("ADR-003").title == "Queue on SQS" and vault.get("ADR-003").tags == ["queue"]


def test_a_record_whose_preamble_is_no_valid_yaml_is_read_from_its_plain_lines_and_never_written(tmp_path):
    """`author: @name` and a backtick in a title are no YAML, yet a person reads them plainly."""
    b = VaultBuilder(tmp_path / "xips")
    b.raw("xip-1.md", "---\nxip: 1\ntitle: Fees\nauthor: @someone\nstatus: Final\n---\n\nFees.\n")
    b.raw("xip-2.md", "---\nxip: 2\ntitle: The `fee` field\nstatus: Withdrawn\nsuperseded-by: 3\n---\n\nFees.\n")
    b.raw("xip-3.md", "---\nxip: 3\ntitle: Fees again\nstatus: Final\n---\n\nFees.\n")
    vault = Vault.open(b.root)
    assert [(d.id, d.title, d.status) for d in sorted(vault.documents, key=lambda d: d.id)] == [
        ("XIP-001", "Fees", "active"),
        ("XIP-002", "The `fee` field", "archived"),
        ("XIP-003", "Fees again", "active"),
    ]
    assert vault.get("XIP-002").superseded_by == ["XIP-003"]
    assert {p.path for p in vault.problems if p.code == "yaml-syntax"} == {"xip-1.md"}
    before = (b.root / "xip-1.md").read_bytes()
    with pytest.raises(RefusedError, match="xip-1.md: its frontmatter cannot be read"):
        vault.supersede("XIP-001", "XIP-003")
    assert (b.root / "xip-1.md").read_bytes() == before


def test_a_proposed_record_that_replaces_another_is_accepted_by_it(tmp_path):
    """As in Memory Core, where superseding activates a draft: a proposal cannot replace a decision."""
    b = VaultBuilder(tmp_path / "adr")
    b.raw("0001-redis.md", record(1, "Queue on Redis", "Accepted"))
    b.raw("0002-logs.md", record(2, "Logs", "Accepted"))
    b.raw("0003-sqs.md", record(3, "Queue on SQS", "Proposed"))
    vault = Vault.open(b.root)
    vault.supersede("ADR-001", "ADR-003")
    assert "## Status\n\nAccepted (supersedes ADR-001)\n" in (b.root / "0003-sqs.md").read_text()
    assert Vault.open(b.root).get("ADR-003").status == "active"


def test_a_proposed_record_with_frontmatter_is_accepted_under_its_own_key(tmp_path):
    b = VaultBuilder(tmp_path / "kips")
    b.raw("kip-1.md", "---\nTitle: Fees\nStatus: Final\n---\n\nFees.\n")
    b.raw("kip-2.md", "---\nTitle: Names\nStatus: Final\n---\n\nNames.\n")
    b.raw("kip-3.md", "---\nTitle: Fees again\nStatus: Draft\n---\n\nFees.\n")
    vault = Vault.open(b.root)
    vault.supersede("KIP-001", "KIP-003")
    text = (b.root / "kip-3.md").read_text()
    assert "Status: Accepted" in text and "supersedes: [KIP-001]" in text


@pytest.mark.parametrize(
    ("title", "read"),
    [
        ("0014. Use X", "Use X"),
        ("ADR-7: Use Y", "Use Y"),
        ("4. Webscraping", "Webscraping"),
        ("2024: Roadmap", "2024: Roadmap"),
    ],
)
def test_a_record_number_before_a_title_goes_and_a_year_stays(tmp_path, title, read):
    b = VaultBuilder(tmp_path / "adr")
    b.raw("0001-a.md", f"---\ntitle: '{title}'\nstatus: accepted\n---\n\n## Decision\n\nx\n")
    b.raw("0002-b.md", record(2, "B", "Accepted"))
    b.raw("0003-c.md", record(3, "C", "Accepted"))
    assert Vault.open(b.root).get("ADR-001").title == read


def test_a_status_key_is_written_in_the_words_and_case_the_record_uses(tmp_path):
    """A record already `Superseded` keeps the word as written when its successor is named; a
    `Final` one becomes `Superseded`, capitalised as the collection writes its statuses; a record
    in lower case stays in lower case. Only what changes is written."""
    b = VaultBuilder(tmp_path / "cips")
    b.raw("cip-1.md", "---\ncip: 1\ntitle: Hashes\nstatus: Superseded\n---\n\n# Summary\n\nHash.\n")
    b.raw("cip-2.md", "---\ncip: 2\ntitle: Fees\nstatus: Final\n---\n\n# Summary\n\nFees.\n")
    b.raw("cip-3.md", "---\ncip: 3\ntitle: Fees and hashes\nstatus: Final\n---\n\n# Summary\n\nBoth.\n")
    b.raw("cip-4.md", "---\ncip: 4\ntitle: Names\nstatus: accepted\n---\n\n# Summary\n\nNames.\n")
    b.raw("cip-5.md", "---\ncip: 5\ntitle: Names again\nstatus: accepted\n---\n\n# Summary\n\nNames.\n")
    vault = Vault.open(b.root)
    for old, new in (("CIP-001", "CIP-003"), ("CIP-002", "CIP-003"), ("CIP-004", "CIP-005")):
        vault.supersede(old, new)
    text = {n: (b.root / f"cip-{n}.md").read_text() for n in range(1, 6)}
    assert "status: Superseded\nsuperseded-by: CIP-003\n" in text[1]
    assert "status: Superseded\nsuperseded-by: CIP-003\n" in text[2]
    assert "status: Final\nsupersedes: [CIP-001, CIP-002]\n" in text[3]
    assert "status: superseded\nsuperseded-by: CIP-005\n" in text[4]
    fresh = Vault.open(b.root)
    assert [fresh.get(f"CIP-00{n}").status for n in range(1, 6)] == [
        "superseded",
        "superseded",
        "active",
        "superseded",
        "active",
    ]


def test_a_title_loses_the_record_s_own_number_only(tmp_path):
    """`# 23 Logging` in record 23 is titled "Logging"; a heading copied from record 29 into record
    30 keeps its number, so the person sees what the file says."""
    b = VaultBuilder(tmp_path / "adr")
    b.raw("022-eks.md", record(22, "22. EKS", "Accepted"))
    b.raw("023-logging.md", record(23, "23 Logging", "Accepted"))
    b.raw("030-root-user.md", record(30, "29 Kubernetes auditing", "Accepted"))
    b.raw("031-two-clusters.md", record(31, "2 clusters per region", "Accepted"))
    vault = Vault.open(b.root)
    assert [vault.get(f"ADR-0{n}").title for n in (22, 23, 30, 31)] == [
        "EKS",
        "Logging",
        "29 Kubernetes auditing",
        "2 clusters per region",
    ]
