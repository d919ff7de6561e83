"""Decision collections that keep one folder per record (`xyz-012/xyz-012-title.md`, with the
record's images and spreadsheets beside it), read as the flat collections are."""

from __future__ import annotations

from vault_builders import VaultBuilder

from workbench import Vault


def _preamble(number: str, title: str, status: str, body: str = "") -> str:
    return f"# Preamble\n\nXyz Number: {number}\n\nTitle: {title}\n\nStatus: {status}\n\n# Abstract\n\n{body}x\n"


def _collection(root) -> VaultBuilder:
    b = VaultBuilder(root)
    b.raw("README.md", "# Proposals\n\nOne folder per proposal.\n")
    b.raw("XYZ_TEMPLATE.md", "# Preamble\n\nXyz Number: NNN\n\nTitle: ...\n\nStatus: Draft\n")
    b.raw("xyz-000/xyz-000-process.md", _preamble("000", "The proposal process", "Ratified"))
    b.raw("xyz-012/xyz-012-cost-limits.md", _preamble("012", "New cost limits", "Activation-In-Progress"))
    b.raw("xyz-012/data.csv", "a,b\n1,2\n")
    b.raw("xyz-012/scripts/README.md", "# Scripts\n\nHow to run them.\n")
    b.raw(
        "xyz-029/xyz-029.md",
        _preamble("029", "Emissions", "Accepted", "See [the cost limits](../xyz-012/) and XYZ-000.\n\n"),
    )
    b.raw("xyz-029/analysis.md", "# Analysis\n\nNumbers for [the proposal](xyz-029.md).\n")
    b.raw(
        "xyz-031/xyz-031-growth.md",
        "# XYZ-031: Growth\n\n**Status:** Draft\n\n# Abstract\n\n"
        "Builds on [emissions](../xyz-029/xyz-029.md) and [limits](../xyz-012).\n",
    )
    b.raw("xyz-038/xyz-private-layer.md", _preamble("038", "Private layer", "Draft"))
    return b


def test_a_folder_per_record_is_a_decision_collection(tmp_path):
    vault = Vault.open(_collection(tmp_path / "xyzs").root)
    assert vault.flavour.name == "adr"
    decisions = sorted((d.id, d.title, d.view.stated_status) for d in vault.documents if d.type == "decision")
    assert decisions == [
        ("XYZ-000", "The proposal process", "Ratified"),
        ("XYZ-012", "New cost limits", "Activation-In-Progress"),
        ("XYZ-029", "Emissions", "Accepted"),
        ("XYZ-031", "Growth", "Draft"),
        ("XYZ-038", "Private layer", "Draft"),
    ]
    assert [vault.get(i).status for i in ("XYZ-000", "XYZ-012", "XYZ-031")] == ["active", "active", "draft"]
    # The files beside a record are notes of their own; the README and the template are reserved.
    notes = sorted(d.id for d in vault.documents if d.type != "decision")
    assert notes == ["xyz-012/scripts/README", "xyz-029/analysis"]
    assert not [p for p in vault.problems if p.code in ("status-unknown", "status-missing")]


def test_a_link_to_a_records_folder_or_file_names_the_record(tmp_path):
    vault = Vault.open(_collection(tmp_path / "xyzs").root)
    linked = lambda doc_id: sorted(link.target for link in vault.get(doc_id).links)  # noqa: E731
    assert linked("XYZ-029") == ["XYZ-000", "XYZ-012"]
    assert linked("XYZ-031") == ["XYZ-012", "XYZ-029"]
    assert linked("xyz-029/analysis") == ["XYZ-029"]
    assert not [p for p in vault.problems if "dangling" in p.code]


def test_numbered_folders_each_with_a_readme_are_records(tmp_path):
    b = VaultBuilder(tmp_path / "decisions")
    for number, title in (("0001", "Record decisions"), ("0002", "Use Postgres"), ("0003", "Drop MySQL")):
        b.raw(f"{number}-{title.lower().replace(' ', '-')}/README.md", f"# {title}\n\n## Status\n\nAccepted\n")
    b.raw("0003-drop-mysql/diagram.png", b"\x89PNG")
    vault = Vault.open(b.root)
    assert vault.flavour.name == "adr"
    assert sorted((d.id, d.title) for d in vault.documents) == [
        ("ADR-001", "Record decisions"),
        ("ADR-002", "Use Postgres"),
        ("ADR-003", "Drop MySQL"),
    ]


def test_a_note_folder_with_numbered_subfolders_stays_markdown(tmp_path):
    b = VaultBuilder(tmp_path / "notes")
    for week in range(1, 6):
        b.raw(f"week-0{week}/week-0{week}.md", f"# Week {week}\n\n- read a book\n- walked\n")
        b.raw(f"week-0{week}/ideas.md", "# Ideas\n\nSome.\n")
    b.raw("index.md", "# Notes\n")
    assert Vault.open(b.root).flavour.name == "markdown"


def test_a_sentence_after_a_second_title_is_no_statement_of_the_record(tmp_path):
    """`# Preamble`, then `# Abstract`: the abstract's sentences are the record's text, not its
    metadata lines, so "each token can be replaced by another (see XYZ-010)" says nothing of it."""
    b = _collection(tmp_path / "xyzs")
    b.raw("xyz-010/xyz-010-tokens.md", _preamble("010", "Tokens", "Ratified"))
    b.raw(
        "xyz-016/xyz-016-metadata.md",
        _preamble("016", "Metadata", "Ratified", "Each token can be\nreplaced by another token (see XYZ-010).\n\n"),
    )
    vault = Vault.open(b.root)
    assert (vault.get("XYZ-016").status, vault.get("XYZ-016").superseded_by) == ("active", [])


def test_a_title_under_a_preamble_section_names_the_record(tmp_path):
    b = _collection(tmp_path / "xyzs")
    b.raw("xyz-030/xyz-030-wallets.md", "## Preamble\n\nTitle: Wallet interface\n\nStatus: Draft\n\n## Abstract\n\nx\n")
    b.raw("xyz-042/xyz-042.md", _preamble("042", "Removal of `at-block`", "Draft"))
    vault = Vault.open(b.root)
    assert [vault.get(i).title for i in ("XYZ-030", "XYZ-042")] == ["Wallet interface", "Removal of `at-block`"]
