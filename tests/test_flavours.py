"""Each vault flavour opens under its own rules: detection, ids, links, statuses, checks and writes."""

from __future__ import annotations

import dataclasses
import datetime as dt
import os

import pytest
from vault_builders import VaultBuilder

from workbench import RefusedError, Vault
from workbench.cli import main
from workbench.core import flavours


def codes(vault, path=None):
    return sorted({p.code for p in vault.problems if path is None or p.path == path})


def links_of(vault, doc_id):
    return sorted((l.type, l.target) for l in vault.get(doc_id).links)


# -- plain Markdown and Obsidian -------------------------------------------------------------------


@pytest.fixture
def obsidian(tmp_path):
    b = VaultBuilder(tmp_path / "notes")
    b.raw(
        "Home.md",
        "# Home page\n\nSee [[Projects/Alpha]], [[beta|the beta]], [[gamma#Plans]] and ![[diagram]].\n"
        "Also [the guide](guides/setup.md#first) and [web](https://example.com/x.md).\n"
        "`[[not-a-link]]` and\n\n```\n[[also-not]] [x](nope.md)\n```\n"
        "depends_on:: [[Projects/Alpha]]\n[[ghost]]\n",
    )
    b.raw("Projects/Alpha.md", "---\ntitle: Project Alpha\nstatus: done\ntags: [work, alpha]\n---\nBack to [[Home]].\n")
    b.raw("beta.md", "Beta text, no frontmatter.\n")
    b.raw("deep/gamma.md", "---\ntags: one, two\n---\n# Gamma\n")
    b.raw("diagram.md", "diagram\n")
    b.raw("guides/setup.md", "Setup, see [home](../Home.md).\n")
    return b.root


def test_obsidian_links_resolve_by_path_and_by_name_and_code_is_not_a_link(obsidian):
    vault = Vault.open(obsidian)
    assert vault.flavour.name == "markdown"
    assert sorted(vault.ids()) == ["Home", "Projects/Alpha", "beta", "deep/gamma", "diagram", "guides/setup"]
    assert links_of(vault, "Home") == [
        ("depends_on", "Projects/Alpha"),
        ("related_to", "beta"),
        ("related_to", "deep/gamma"),
        ("related_to", "diagram"),
        ("related_to", "ghost"),
        ("related_to", "guides/setup"),
    ]
    assert links_of(vault, "guides/setup") == [("related_to", "Home")]
    dangling = [p for p in vault.problems if p.code == "link-dangling"]
    assert [(p.path, p.severity.value) for p in dangling] == [("Home.md", "warning")]
    assert "ghost" in dangling[0].message


def test_obsidian_titles_statuses_and_tags(obsidian):
    vault = Vault.open(obsidian)
    alpha, gamma, beta = vault.get("Projects/Alpha"), vault.get("deep/gamma"), vault.get("beta")
    assert (alpha.title, alpha.status, alpha.stated_status, alpha.tags) == (
        "Project Alpha",
        "active",
        "done",
        ["work", "alpha"],
    )
    assert (gamma.title, gamma.tags) == ("Gamma", ["one", "two"])
    assert (beta.title, beta.body) == ("beta", "Beta text, no frontmatter.\n")
    assert [h.id for h in vault.search("beta text")][:1] == ["beta"]
    assert "Home" in {n["id"] for n in vault.neighbourhood("Projects/Alpha").to_json()["nodes"]}


def test_a_new_note_resolves_links_that_dangled(obsidian):
    vault = Vault.open(obsidian)
    (obsidian / "ghost.md").write_text("now here\n")
    vault.refresh()
    assert ("related_to", "ghost") in links_of(vault, "Home")
    assert "link-dangling" not in codes(vault)


def test_a_status_change_adds_frontmatter_and_keeps_every_body_byte(obsidian):
    vault = Vault.open(obsidian)
    before = (obsidian / "beta.md").read_bytes()
    vault.set_status("beta", "deprecated")
    after = (obsidian / "beta.md").read_bytes()
    assert after == b"---\nstatus: deprecated\n---\n" + before
    assert Vault.open(obsidian).get("beta").status == "deprecated"
    vault.undo()
    assert (obsidian / "beta.md").read_bytes() == before


def test_memory_core_writes_are_refused_with_the_way_out(obsidian):
    vault = Vault.open(obsidian)
    with pytest.raises(RefusedError, match="a Markdown vault.*migrate"):
        vault.supersede("beta", "Home")
    with pytest.raises(RefusedError, match="migrate"):
        vault.rename("beta", "beta2")


def test_a_warm_open_reads_the_same_vault_from_the_cache(obsidian):
    first = Vault.open(obsidian)
    second = Vault.open(obsidian)
    assert [r.document for r in first.records] == [r.document for r in second.records]
    assert first.problems == second.problems


def test_the_flavour_can_be_named_when_detection_is_wrong(tmp_path):
    b = VaultBuilder(tmp_path / "v")
    for n in range(3):
        b.raw(f"ADR-00{n}-x.md", "# ADR\n\n## Status\n\nAccepted\n")
    assert Vault.open(b.root).flavour.name == "adr"
    vault = Vault.open(b.root, flavour="markdown")
    assert vault.flavour.name == "markdown" and "ADR-000-x" in vault
    with pytest.raises(Exception, match="no vault flavour is called 'obsidian'"):
        Vault.open(b.root, flavour="obsidian")


# -- Dendron ---------------------------------------------------------------------------------------


def dendron_note(name, body, **extra):
    fields = {
        "id": f"id-{name}",
        "title": name.rsplit(".", 1)[-1].title(),
        "desc": "",
        "updated": 1660920582709,
        "created": 1595003088839,
        **extra,
    }
    head = "".join(f"{k}: {v}\n" for k, v in fields.items() if v is not None)
    return f"---\n{head}---\n{body}"


@pytest.fixture
def dendron(tmp_path):
    b = VaultBuilder(tmp_path / "vault")
    b.raw("root.md", dendron_note("root", "Start at [[Topics|dendron.topic]].\n"))
    b.raw(
        "dendron.topic.md",
        dendron_note(
            "dendron.topic",
            "See [[the links page|dendron://dendron.dendron-site/dendron.topic.links#anchor]] "
            "and [[dendron.topic.refs]] and ![[dendron.topic.links#heading]] and [[Missing|nowhere.note]].\n",
        ),
    )
    b.raw("dendron.topic.links.md", dendron_note("dendron.topic.links", "Links.\n"))
    b.raw("dendron.topic.refs.md", dendron_note("dendron.topic.refs", "Refs.\n", desc=None, updated="yesterday"))
    return b.root


def test_dendron_labels_come_first_and_cross_vault_links_resolve_locally(dendron):
    vault = Vault.open(dendron)
    assert vault.flavour.name == "dendron"
    assert links_of(vault, "dendron.topic") == [
        ("related_to", "dendron.topic.links"),
        ("related_to", "dendron.topic.refs"),
        ("related_to", "nowhere.note"),
    ]
    assert links_of(vault, "root") == [("related_to", "dendron.topic")]
    doc = vault.get("dendron.topic.links")
    assert (
        doc.title == "Links" and doc.updated.isoformat() == "2022-08-19" and doc.meta["id"] == "id-dendron.topic.links"
    )


def test_dendron_rules_name_the_missing_key_and_the_bad_date(dendron):
    vault = Vault.open(dendron)
    found = {(p.code, p.message) for p in vault.problems if p.path == "dendron.topic.refs.md"}
    assert ("field-missing", "required field 'desc' is missing") in found
    assert any(code == "date-format" and "milliseconds" in message for code, message in found)
    assert vault.get("dendron.topic.refs").valid  # a rule broken, the note still readable and linked


# -- OKF bundles -----------------------------------------------------------------------------------


@pytest.fixture
def okf(tmp_path):
    b = VaultBuilder(tmp_path / "memory")
    b.raw("index.md", "# Index\n")
    b.raw("log.md", "- created\n")
    b.raw(
        "tools/sqlite.md",
        "---\ntype: Concept\ntimestamp: 2026-02-01T10:00:00Z\ndescription: SQLite notes\ntags: [db]\n---\n"
        "Use with [python](../lang/python.md).\n",
    )
    b.raw(
        "lang/python.md",
        "---\ntype: Concept\ntimestamp: 2026-02-01T10:00:00Z\ndescription: Python\ntags: []\n---\nPython.\n",
    )
    b.raw("lang/Broken Name.md", "---\ntimestamp: soon\n---\nno type\n")
    return b.root


def test_okf_ids_reserved_files_and_required_keys(okf):
    vault = Vault.open(okf)
    assert vault.flavour.name == "okf"
    assert sorted(vault.ids()) == ["lang/Broken Name", "lang/python", "tools/sqlite"]
    assert links_of(vault, "tools/sqlite") == [("related_to", "lang/python")]
    assert codes(vault, "lang/Broken Name.md") == ["date-format", "field-missing", "field-recommended", "id-unsafe"]


def test_okf_repair_recovers_type_and_timestamp_from_the_file(okf):
    path = okf / "lang/Broken Name.md"
    os.utime(path, (1767225600, 1767225600))  # 2026-01-01 00:00 UTC
    vault = Vault.open(okf)
    report = vault.repair()
    assert "lang/Broken Name.md" in report.repaired
    text = path.read_text()
    assert (
        "type: Recovered Concept" in text
        and 'timestamp: "2026-01-01T00:00:00' in text
        and text.endswith("---\nno type\n")
    )
    assert "field-missing" not in codes(Vault.open(okf), "lang/Broken Name.md")


@pytest.fixture
def bundle_in_memory(tmp_path):
    """A Pi agent's layout: the agent's folder holds the OKF bundle in `memory/`."""
    b = VaultBuilder(tmp_path / "agent" / "memory")
    b.raw(
        "index.md",
        "# Index\n\nKept above.\n\n<!-- generated:start -->\nstale\n<!-- generated:end -->\n\n"
        "<!-- generated:start recent -->\n<!-- generated:end recent -->\n\nKept below.\n",
    )
    b.raw("log.md", "- created\n")
    b.raw(
        "people/ada.md",
        "---\ntype: Person\ntimestamp: 2026-02-01T10:00:00Z\ndescription: Mathematician\ntags: [people]\n---\nAda.\n",
    )
    b.raw(
        "people/bob.md",
        "---\ntype: Person\ntimestamp: 2026-02-02T10:00:00Z\ndescription: Builder\ntags: [people]\n---\nKnows [Ada](ada.md).\n",
    )
    return tmp_path / "agent"


def test_the_folder_holding_a_memory_bundle_opens_the_bundle(bundle_in_memory):
    for flavour in (None, "okf"):
        vault = Vault.open(bundle_in_memory, flavour)
        assert (vault.flavour.name, vault.root.name) == ("okf", "memory")
        assert vault.ids() == ["people/ada", "people/bob"]


def test_okf_types_keep_their_case_and_a_filter_finds_them(bundle_in_memory):
    vault = Vault.open(bundle_in_memory)
    assert [hit.id for hit in vault.search("type:Person")] == ["people/bob", "people/ada"]  # the newest timestamp first
    assert [hit.id for hit in vault.search("type:person builder")] == ["people/bob"]


def test_okf_listing_is_regenerated_between_its_markers_with_the_hand_text_kept(bundle_in_memory):
    vault = Vault.open(bundle_in_memory)
    index = bundle_in_memory / "memory" / "index.md"
    assert main(["--vault", str(bundle_in_memory), "index"]) == 0
    text = index.read_text()
    assert "stale" not in text and "- [ada](people/ada.md) — Mathematician" in text and "### Person (2)" in text
    assert text.startswith("# Index\n\nKept above.\n") and text.endswith("Kept below.\n")
    assert "2026-02-02 [bob](people/bob.md)" in text  # the named section too
    assert not text.startswith("---") and not (bundle_in_memory / "memory" / "log.md").read_text().startswith("---")
    assert "regenerate the generated sections of index.md" in (bundle_in_memory / "memory" / "log.md").read_text()
    (bundle_in_memory / "memory" / "people" / "cy.md").write_text(
        "---\ntype: Person\ntimestamp: 2026-02-03T10:00:00Z\n---\nCy.\n"
    )
    assert main(["--vault", str(bundle_in_memory), "check", "--repair"]) in (0, 1)
    assert "[cy](people/cy.md)" in index.read_text()
    assert vault.regenerate_index().summary == "index.md: already up to date"


def test_okf_edit_moves_the_timestamp(bundle_in_memory):
    vault = Vault.open(bundle_in_memory)
    ada = vault.get("people/ada")
    vault.save(dataclasses.replace(ada, body="Ada Lovelace.\n"))
    stamp = vault.get("people/ada").meta["timestamp"]
    assert stamp != ada.meta["timestamp"] and stamp.date() == dt.datetime.now(dt.timezone.utc).date()


# -- memoryfield -----------------------------------------------------------------------------------


def test_memoryfield_pages_are_flat_and_strictly_named(tmp_path):
    b = VaultBuilder(tmp_path / "pages")
    page = "---\ntitle: {t}\nuuid: 0b9f1c9e-9a43-4f1e-8f53-6f1f7d0c1a11\nsummary: s\ncreated: 2026-01-02\nupdated: 2026-01-03\n---\n{t} body\n"
    b.raw("alpha-page.md", page.format(t="Alpha"))
    b.raw("beta.md", page.format(t="Beta").replace("uuid: 0b9f1c9e-9a43-4f1e-8f53-6f1f7d0c1a11", "uuid: nope"))
    b.raw("Bad Name.md", page.format(t="Bad"))
    b.raw("sub/ignored.md", page.format(t="Ignored"))
    vault = Vault.open(b.root)
    assert vault.flavour.name == "memoryfield"
    assert vault.ids() == ["alpha-page", "beta"]
    assert [(p.path, p.code) for p in vault.problems if p.code in ("not-a-page", "uuid-invalid")] == [
        ("Bad Name.md", "not-a-page"),
        ("beta.md", "uuid-invalid"),
    ]


SEED_PAGE = (
    "---\ntitle: {t}\nuuid: 0b9f1c9e-9a43-4f1e-8f53-6f1f7d0c1a1{n}\nsummary: s\n"
    "created: 2026-05-20T08:00:00+00:00\nupdated: 2026-05-21T09:30:00+02:00\n---\n{t} body\n"
)


@pytest.fixture
def memoryfield(tmp_path) -> Vault:
    b = VaultBuilder(tmp_path / "pages")
    b.raw("alpha.md", SEED_PAGE.format(t="Alpha", n=1))
    b.raw(
        "beta.md",
        SEED_PAGE.format(t="Beta", n=2).replace(
            "updated: 2026-05-21T09:30:00+02:00", "updated: '2026-05-22T10:00:00Z'"
        ),
    )
    b.raw("gamma.md", "---\ntitle: Gamma\nsummary: s\n---\nNo uuid, no dates.\n")
    return Vault.open(b.root)


def test_memoryfield_reads_the_seeds_own_datetimes_and_no_message_shows_a_repr(memoryfield):
    assert memoryfield.flavour.name == "memoryfield"
    assert not [p for p in memoryfield.problems if p.code == "date-format"]
    assert memoryfield.get("alpha").view.created == dt.date(2026, 5, 20)
    assert memoryfield.get("beta").view.updated == dt.date(2026, 5, 22)
    assert not [p.message for p in memoryfield.problems if "datetime." in p.message or "date(" in p.message]


def test_memoryfield_repair_writes_datetimes_its_own_check_accepts(memoryfield):
    memoryfield.repair()
    memoryfield.refresh()
    assert not [p for p in memoryfield.problems_for("gamma") if p.severity == "error"], memoryfield.problems_for(
        "gamma"
    )
    assert "\ncreated: 20" in (memoryfield.root / "gamma.md").read_text()  # plain, a YAML timestamp


def test_memoryfield_uuid_is_the_pages_identity_and_an_edit_moves_updated(memoryfield):
    alpha = memoryfield.get("alpha")
    with pytest.raises(RefusedError, match="uuid is the page's identity"):
        memoryfield.save(
            dataclasses.replace(alpha, meta={**alpha.meta, "uuid": "11111111-1111-1111-1111-111111111111"})
        )
    memoryfield.save(dataclasses.replace(alpha, body="Alpha body, edited.\n"))
    edited = memoryfield.get("alpha")
    assert edited.meta["uuid"] == alpha.meta["uuid"]
    assert isinstance(edited.meta["updated"], dt.datetime) and edited.meta["updated"] > alpha.meta["updated"]
    assert edited.meta["updated"].utcoffset() == dt.timedelta(hours=2)  # in the zone the page used
    memoryfield.save(dataclasses.replace(memoryfield.get("beta"), body="Beta, edited.\n"))
    assert (memoryfield.root / "beta.md").read_text().count("Z'") == 1  # text stays text, in UTC


# -- tiered memory ---------------------------------------------------------------------------------


def test_tiered_memory_tiers_and_inherited_namespaces(tmp_path):
    b = VaultBuilder(tmp_path / "self-improving")
    b.raw("memory.md", "# Self-Improving Memory\n\n" + "- a preference\n" * 120)
    b.raw("corrections.md", "# Corrections Log\n")
    b.raw("index.md", "# Index\n")
    b.raw("domains/code.md", "# Code\n")
    b.raw("projects/my-app.md", "# Project: my-app\n\nInherits: global, domains/code\n")
    old = b.raw("projects/legacy.md", "# Project: legacy\n")
    os.utime(old, (1500000000, 1500000000))
    vault = Vault.open(b.root)
    assert vault.flavour.name == "tiered"
    assert links_of(vault, "projects/my-app") == [("depends_on", "domains/code"), ("depends_on", "memory")]
    assert vault.get("memory").stated_status == "HOT" and vault.get("projects/legacy").stated_status == "COLD"
    assert vault.get("projects/legacy").status == "archived"
    assert "hot-tier-too-long" in codes(vault, "memory.md")


# -- ADRs ------------------------------------------------------------------------------------------


@pytest.fixture
def adrs(tmp_path):
    b = VaultBuilder(tmp_path / "adr")
    b.raw(
        "ADR-001-shell.md",
        "# ADR-001: Shell only\n\n**Status**: Superseded by [ADR-003](./ADR-003-python.md)\n**Date**: 2025-12-18\n\nBody.\n",
    )
    b.raw(
        "ADR-002-runners.md",
        "# ADR-002: Runners\n\n## Status\n\nAccepted\n\n## Context\n\nWe might one day be superseded by ADR-009.\n",
    )
    b.raw(
        "ADR-003-python.md",
        "---\nstatus: accepted\nsupersedes: [ADR-001]\nsuperseded-by: null\n---\n# ADR-003: Python\n\nSee ADR-002.\n",
    )
    b.raw("ADR-004-arm.md", "# ADR-004: ARM runners\n\n## Status\n\nAccepted (supersedes ADR-002)\n")
    b.raw(
        "ADR-005-cache.md",
        "# ADR-005: Cache\n\n## Status\n\nProposed\n\n**Supersedes**: ADR-003 (pending validation)\n",
    )
    b.raw("ADR-TEMPLATE.md", "# ADR-NNN: Title\n\n## Status\n\n[Proposed | Accepted]\n")
    b.raw("reviews/ADR-003-review.md", "# Review of [ADR-003](../ADR-003-python.md)\n")
    return b.root


def test_adr_status_and_supersession_in_every_written_form(adrs):
    vault = Vault.open(adrs)
    assert vault.flavour.name == "adr"
    assert sorted(vault.ids()) == ["ADR-001", "ADR-002", "ADR-003", "ADR-004", "ADR-005", "reviews/ADR-003-review"]
    one, two, three, four, five = (vault.get(f"ADR-00{n}") for n in range(1, 6))
    assert (one.status, one.superseded_by) == ("superseded", ["ADR-003"])
    assert (two.status, two.supersedes, two.superseded_by) == ("active", [], [])  # narrative is not a statement
    assert (three.status, three.supersedes, three.title) == ("active", ["ADR-001"], "Python")
    assert (four.supersedes, five.supersedes, five.status) == (["ADR-002"], ["ADR-003"], "draft")
    assert ("related_to", "ADR-002") in links_of(vault, "ADR-003")
    assert links_of(vault, "reviews/ADR-003-review") == [("related_to", "ADR-003")]


def test_one_sided_adr_supersession_is_a_conflict(adrs):
    vault = Vault.open(adrs)
    one_sided = sorted(tuple(c.ids) for c in vault.conflicts() if c.kind == "one-sided-supersession")
    assert one_sided == [("ADR-002", "ADR-004"), ("ADR-003", "ADR-005")]
    assert "supersession-one-sided" in codes(vault, "ADR-004-arm.md")


def test_adr_status_changes_edit_the_status_where_the_record_states_it(adrs):
    vault = Vault.open(adrs)
    vault.set_status("ADR-002", "deprecated")
    assert (
        (adrs / "ADR-002-runners.md").read_text()
        == "# ADR-002: Runners\n\n## Status\n\nDeprecated\n\n## Context\n\nWe might one day be superseded by ADR-009.\n"
    )
    vault.set_status("ADR-003", "deprecated")
    assert (adrs / "ADR-003-python.md").read_text().startswith("---\nstatus: deprecated\nsupersedes: [ADR-001]\n")
    assert Vault.open(adrs).get("ADR-002").status == "deprecated"


def test_an_adr_status_change_says_the_word_it_writes(adrs):
    plan = Vault.open(adrs).set_status("ADR-004", "archived", dry_run=True)
    assert plan.summary == 'status ADR-004: active → archived (written "Rejected")'
    assert "+Rejected (supersedes ADR-002)" in plan.diff()


# -- migration -------------------------------------------------------------------------------------


def test_adrs_migrate_to_memory_core_with_supersession_on_both_sides(adrs, tmp_path, capsys):
    before = {p: p.read_bytes() for p in adrs.rglob("*.md")}
    out = tmp_path / "migrated"
    assert main(["--vault", str(adrs), "migrate", "--to", "memory-core", str(out)]) == 0
    assert "check on the new vault: 0 error(s)" in capsys.readouterr().out
    assert {p: p.read_bytes() for p in adrs.rglob("*.md")} == before
    result = Vault.open(out)
    assert result.flavour.name == "memory-core" and [p for p in result.problems if p.severity.value == "error"] == []
    old, new = result.get("mem-decision-adr-001-shell"), result.get("mem-decision-adr-003-python")
    assert (old.status, old.superseded_by, new.supersedes) == ("superseded", [new.id], [old.id])
    assert old.body == (adrs / "ADR-001-shell.md").read_text()
    assert (
        old.meta["provenance"]["source_file"] == "ADR-001-shell.md"
        and old.meta["provenance"]["source_flavour"] == "adr"
    )
    assert (
        new.meta["provenance"]["source_frontmatter"] == "status: accepted\nsupersedes: [ADR-001]\nsuperseded-by: null\n"
    )
    assert result.get("mem-note-reviews-adr-003-review").links[0].target == new.id
    assert (
        main(["--vault", str(adrs), "migrate", "--to", "memory-core", str(out)]) == 2
    )  # never into a vault that exists


def test_notes_without_frontmatter_migrate_with_dangling_links_kept_as_written(obsidian, tmp_path):
    from workbench.core.services.migrate import migrate

    report = migrate(Vault.open(obsidian), tmp_path / "out")
    result = Vault.open(tmp_path / "out")
    assert [p for p in result.problems if p.severity.value == "error"] == []
    home = result.get(report.ids["Home"])
    assert home.meta["unresolved_links"] == ["ghost"]
    assert home.body == (obsidian / "Home.md").read_text()
    assert ("depends_on", report.ids["Projects/Alpha"]) in {(l.type, l.target) for l in home.links}


def migrated_files(out):
    return sorted(
        p.relative_to(out).as_posix()
        for p in out.rglob("*.md")
        if p.parts[len(out.parts)][0] != "." and p.name != "log.md"
    )


def test_migration_writes_every_document_and_says_how_many_it_wrote(tmp_path, capsys):
    b = VaultBuilder(tmp_path / "adr")
    for name in ("2021-06-05_001-a.md", "2021-06-06_002-b.md", "2021-06-07_003-c.md", "ADR025-x.md", "ADR025-y.md"):
        b.raw(name, f"# {name}\n\n" + RECORD.format(status="Accepted"))
    b.raw(
        "2021-06-08_004-d.md", "---\ntitle: [broken\n---\n" + RECORD.format(status="Accepted")
    )  # YAML that does not read
    b.raw(
        "2021-06-09_005-e.md",
        "# E\n\n" + RECORD.format(status="Accepted") + "<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> main\n",
    )
    out = tmp_path / "out"
    assert main(["--vault", str(b.root), "migrate", "--to", "memory-core", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "migrated 7 document(s)" in printed and len(migrated_files(out)) == 7
    assert "check on the new vault: 0 error(s)" in printed
    result = Vault.open(out)
    by_source = {d.meta["provenance"]["source_file"]: d for d in result.documents}
    assert len(by_source) == 7 and all(d.valid for d in by_source.values())
    # What the source could not read is a draft that says why, its bytes whole.
    broken, torn = by_source["2021-06-08_004-d.md"], by_source["2021-06-09_005-e.md"]
    assert broken.status == "draft" and broken.meta["provenance"]["source_problems"][0].startswith("yaml-syntax")
    assert broken.meta["provenance"]["source_frontmatter"] == "title: [broken\n"
    assert torn.status == "draft" and torn.meta["provenance"]["source_problems"][0].startswith("conflict-markers")
    assert (out / torn.meta["repair_backup"]).read_bytes() == (b.root / "2021-06-09_005-e.md").read_bytes()
    assert torn.body.endswith("\\<<<<<<< HEAD\nours\n\\=======\ntheirs\n\\>>>>>>> main\n")
    assert "written as a draft to review: 2021-06-09_005-e.md: conflict-markers" in printed
    # Dates are the records' own: the date in each name, not the day of the migration.
    assert [str(by_source[n].meta["created_at"]) for n in ("2021-06-05_001-a.md", "2021-06-08_004-d.md")] == [
        "2021-06-05",
        "2021-06-08",
    ]


def test_source_dates_survive_migration_in_the_order_a_source_states_them(tmp_path):
    from workbench.core.services.migrate import migrate

    b = VaultBuilder(tmp_path / "adr")
    b.raw("0001-front.md", "---\ndate: 2019-03-04\nstatus: accepted\n---\n# Front\n\nDate: 2020-01-01\n")
    b.raw("0002-line.md", "# Line\n\nDate: 2020-05-06\n\n## Status\n\nAccepted\n")
    b.raw("0003-section.md", "# Section\n\n## Date\n\n2020-07-08\n\n## Status\n\nAccepted\n")
    b.raw("0004-undated.md", "# Undated\n\n## Status\n\nAccepted\n")
    os.utime(b.root / "0004-undated.md", (1_600_000_000, 1_600_000_000))  # 2020-09-13
    out = tmp_path / "out"
    migrate(Vault.open(b.root), out)
    result = Vault.open(out)
    dates = {
        d.meta["provenance"]["source_file"]: (str(d.meta["created_at"]), str(d.meta["updated_at"]))
        for d in result.documents
    }
    assert dates["0001-front.md"] == ("2019-03-04", "2019-03-04")
    assert dates["0002-line.md"] == ("2020-05-06", "2020-05-06")
    assert dates["0003-section.md"] == ("2020-07-08", "2020-07-08")
    assert dates["0004-undated.md"][0] in ("2020-09-13", "2020-09-12", "2020-09-14")  # the file's time, in local time


def test_a_file_too_large_to_be_a_document_refuses_the_whole_migration(tmp_path, capsys):
    from workbench.core.vocabulary.parse import MAX_FILE_BYTES

    b = VaultBuilder(tmp_path / "notes")
    b.raw("small.md", "# Small\n")
    (b.root / "huge.md").write_bytes(b"x" * (MAX_FILE_BYTES + 1))
    out = tmp_path / "out"
    assert main(["--vault", str(b.root), "migrate", "--to", "memory-core", str(out)]) == 3
    assert "huge.md" in capsys.readouterr().err
    assert not out.exists() or not any(out.iterdir())


def test_a_successor_speaking_of_what_it_replaced_is_not_a_stale_link(adrs):
    (adrs / "ADR-003-python.md").write_text(
        "---\nstatus: accepted\nsupersedes: [ADR-001]\n---\n# ADR-003: Python\n\nWe left [ADR-001](ADR-001-shell.md) behind.\n"
    )
    (adrs / "ADR-002-runners.md").write_text("# ADR-002: Runners\n\n## Status\n\nAccepted\n\nBuilt on ADR-001.\n")
    vault = Vault.open(adrs)
    stale = [p.path for p in vault.problems if p.code == "link-to-superseded"]
    assert stale == ["ADR-002-runners.md"]


def test_the_end_of_a_chain_speaking_of_its_first_record_is_not_told_to_link_itself(tmp_path):
    b = VaultBuilder(tmp_path / "adr")
    b.raw("ADR-001-a.md", "# A\n\n## Status\n\nSuperseded by ADR-002\n\n## Decision\n\nx\n")
    b.raw("ADR-002-b.md", "# B\n\n## Status\n\nSuperseded by ADR-003 (supersedes ADR-001)\n\n## Decision\n\ny\n")
    b.raw("ADR-003-c.md", "# C\n\n## Status\n\nAccepted (supersedes ADR-002)\n\n## Decision\n\nz, unlike ADR-001.\n")
    b.raw("ADR-004-d.md", "# D\n\n## Status\n\nAccepted\n\n## Decision\n\nBuilt on ADR-001.\n")
    vault = Vault.open(b.root)
    stale = [(p.path, p.message) for p in vault.problems if p.code == "link-to-superseded"]
    assert stale == [
        (
            "ADR-004-d.md",
            "link related_to → ADR-001 points at a superseded document; link its successor ADR-003 instead",
        )
    ]


def test_dendron_repair_adds_the_missing_keys_from_the_file(dendron):
    vault = Vault.open(dendron)
    report = vault.repair(paths=["dendron.topic.refs.md"])
    assert report.repaired == ["dendron.topic.refs.md"]
    text = (dendron / "dendron.topic.refs.md").read_text()
    assert 'desc: ""' in text and text.endswith("---\nRefs.\n")
    assert "field-missing" not in codes(Vault.open(dendron), "dendron.topic.refs.md")
    backup = next((dendron / ".recovery").glob("dendron.topic.refs.md.*"))
    assert b"updated: yesterday" in backup.read_bytes()


def test_a_flavour_without_a_status_refuses_a_status_change(dendron):
    with pytest.raises(RefusedError, match="a Dendron vault has no status"):
        Vault.open(dendron).set_status("root", "archived")


def test_adr_supersession_is_written_where_each_record_states_it(adrs):
    vault = Vault.open(adrs)
    vault.supersede("ADR-002", "ADR-004")  # completes the one-sided statement: ADR-004 already says it
    assert (
        (adrs / "ADR-002-runners.md")
        .read_text()
        .startswith("# ADR-002: Runners\n\n## Status\n\nSuperseded by ADR-004\n\n## Context\n")
    )
    assert (
        adrs / "ADR-004-arm.md"
    ).read_text() == "# ADR-004: ARM runners\n\n## Status\n\nAccepted (supersedes ADR-002)\n"
    vault.supersede("ADR-001", "ADR-004")
    assert (
        adrs / "ADR-004-arm.md"
    ).read_text() == "# ADR-004: ARM runners\n\n## Status\n\nAccepted (supersedes ADR-002, ADR-001)\n"
    assert (
        "**Status**: Superseded by [ADR-003](./ADR-003-python.md), ADR-004\n" in (adrs / "ADR-001-shell.md").read_text()
    )
    vault.supersede("ADR-003", "ADR-005")  # frontmatter on the old side, a metadata line on the new
    assert (
        (adrs / "ADR-003-python.md")
        .read_text()
        .startswith("---\nstatus: superseded\nsupersedes: [ADR-001]\nsuperseded-by: ADR-005\n---\n")
    )
    fresh = Vault.open(adrs)
    assert fresh.get("ADR-002").superseded_by == ["ADR-004"] and sorted(fresh.get("ADR-004").supersedes) == [
        "ADR-001",
        "ADR-002",
    ]
    assert fresh.get("ADR-003").status == "superseded"
    assert not [c for c in fresh.conflicts() if c.kind == "one-sided-supersession"]
    undone = vault.undo()
    assert undone.applied, undone.summary
    assert [c.path for c in undone.changes] == ["ADR-003-python.md"], (
        undone.summary,
        [h["summary"] for h in vault.history(5)],
    )
    assert "superseded-by: null" in (adrs / "ADR-003-python.md").read_text()


def test_changes_in_another_flavour_leave_no_log_note_in_the_vault(adrs):
    vault = Vault.open(adrs)
    before = sorted(p.relative_to(adrs).as_posix() for p in adrs.rglob("*"))
    vault.set_status("ADR-002", "deprecated")
    assert not (adrs / "log.md").exists() and "status ADR-002" in (vault.index.state_dir / "log.md").read_text()
    assert (
        sorted(p.relative_to(adrs).as_posix() for p in adrs.rglob("*")) == before
    )  # the one file changed, nothing added
    assert len(Vault.open(adrs).records) == 6
    assert Vault.open(adrs).undo().changes[0].path == "ADR-002-runners.md"  # the history is kept outside the vault


def tree(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() if p.is_file() else None for p in root.rglob("*")}


@pytest.mark.parametrize("kind", ["obsidian", "adrs", "dendron"])
def test_reading_someone_elses_vault_writes_nothing_into_it(kind, request, tmp_path, capsys):
    root = request.getfixturevalue(kind)
    before = tree(root)
    vault = Vault.open(root)
    vault.search("record")
    assert vault.problems is not None and vault.index.state_dir.is_dir()
    assert main(["--vault", str(root), "check"]) in (0, 1)
    assert main(["--vault", str(root), "search", "status"]) in (0, 1)
    assert main(["--vault", str(root), "migrate", "--to", "memory-core", str(tmp_path / "out")]) == 0
    assert tree(root) == before
    assert os.environ["XDG_CACHE_HOME"] in str(vault.index.state_dir)


def test_a_memory_core_vault_keeps_its_state_inside(sample_copy):
    vault = Vault.open(sample_copy)
    assert vault.index.state_dir == sample_copy / ".workbench" and (sample_copy / ".workbench").is_dir()


def test_an_adr_dated_in_its_body_carries_that_date(adrs):
    vault = Vault.open(adrs)
    assert vault.get("ADR-001").updated.isoformat() == "2025-12-18"  # **Date**: 2025-12-18


def test_a_record_with_no_date_of_its_own_is_shown_with_none_not_its_file_time(adrs):
    """The queue and the viewer's "read as" row showed the file time, the copy's or the clone's."""
    from workbench.tui.widgets.viewer import _reading

    vault = Vault.open(adrs)
    dated, undated = vault.get("ADR-001"), vault.get("ADR-002")
    assert dated.stated_updated.isoformat() == "2025-12-18" and not dated.view.updated_is_file_time
    assert undated.updated is not None, "still ordered by its file time where an order needs a date"
    assert undated.view.updated_is_file_time and undated.stated_updated is None
    assert "no date read from the file" in _reading(undated)["read as"] and "2025-12-18" in _reading(dated)["read as"]
    again = Vault.open(adrs).get("ADR-002")  # read back from the derived store
    assert again.view.updated_is_file_time and again.stated_updated is None


# -- ADR naming schemes ----------------------------------------------------------------------------

RECORD = "## Status\n\n{status}\n\n## Context\n\nWhy.\n\n## Decision\n\nWhat.\n"


def adr_collection(root, names, status="Accepted"):
    b = VaultBuilder(root)
    for name in names:
        b.raw(name, f"# {name[:-3]}\n\n" + RECORD.format(status=status))
    return Vault.open(b.root)


@pytest.mark.parametrize(
    ("names", "ids", "dates"),
    [
        (["0001-first.md", "0002-second.md", "0003-third.md"], ["ADR-001", "ADR-002", "ADR-003"], [None] * 3),
        (["ADR-001-a.md", "ADR_002_b.md", "ADR003-c.md"], ["ADR-001", "ADR-002", "ADR-003"], [None] * 3),
        # A date, then a number: the number names the record, never the year.
        (
            ["2021-06-05_001-a.md", "2021-06-06_002-b.md", "2021-06-06-003-c.md"],
            ["ADR-001", "ADR-002", "ADR-003"],
            ["2021-06-05", "2021-06-06", "2021-06-06"],
        ),
        # A date, then a title: no number, so the name is the id. Day before month when only that reads.
        (
            ["2020-08-10-flags.md", "2020-08-10-themes.md", "2022-25-11-shadows.md"],
            ["2020-08-10-flags", "2020-08-10-themes", "2022-25-11-shadows"],
            ["2020-08-10", "2020-08-10", "2022-11-25"],
        ),
        (
            ["use-postgres.md", "use-markdown.md", "drop-cron.md"],
            ["drop-cron", "use-markdown", "use-postgres"],
            [None] * 3,
        ),
    ],
    ids=["adr-tools", "ADR-NNN", "date_NNN", "date-title", "title"],
)
def test_each_adr_naming_scheme_gives_every_record_an_id_of_its_own(tmp_path, names, ids, dates):
    vault = adr_collection(tmp_path / "adr", names)
    assert vault.flavour.name == "adr"
    assert sorted(vault.ids()) == sorted(ids)
    assert all(d.type == "decision" and d.valid for d in vault.documents)
    assert not [p for p in vault.problems if p.code.startswith("id-")]
    dated = {d.path: d.view.created.isoformat() if d.view.created else None for d in vault.documents}
    assert [dated[name] for name in names] == dates


def test_a_folder_of_dated_notes_that_are_not_records_is_not_an_adr_collection(builder):
    for day in range(1, 5):
        builder.raw(f"2024-01-0{day}-standup.md", "# Standup\n\n- did things\n")
    assert Vault.open(builder.root).flavour.name != "adr"


def test_two_records_numbered_alike_stay_two_documents_and_are_reported(tmp_path):
    vault = adr_collection(tmp_path / "adr", ["ADR024-a.md", "ADR025-remove-x.md", "ADR025-use-y.md", "ADR026-b.md"])
    (tmp_path / "adr" / "ADR026-b.md").write_text("# B\n\n## Status\n\nSuperseded by ADR025\n")
    vault = Vault.open(tmp_path / "adr")
    assert sorted(vault.ids()) == ["ADR-024", "ADR-025", "ADR-026", "ADR025-use-y"]
    assert len(vault.documents) == 4 and not [p for p in vault.problems if p.code == "id-duplicate"]
    shared = [p for p in vault.problems if p.code == "id-shared"]
    assert [(p.path, p.severity.value) for p in shared] == [("ADR025-use-y.md", "warning")]
    assert "ADR025-remove-x.md" in shared[0].message and "ADR-025" in shared[0].message
    assert vault.get("ADR-026").superseded_by == ["ADR-025"]  # the first of the two in path order
    # The first goes: the other takes the number back, as a fresh open gives it.
    (tmp_path / "adr" / "ADR025-remove-x.md").unlink()
    vault.index.refresh_path("ADR025-remove-x.md")
    assert sorted(vault.ids()) == ["ADR-024", "ADR-025", "ADR-026"] == sorted(Vault.open(tmp_path / "adr").ids())
    assert vault.get("ADR-025").path == "ADR025-use-y.md" and not [p for p in vault.problems if p.code == "id-shared"]


def test_a_record_that_says_it_is_superseded_in_a_heading_names_its_successor_by_link(tmp_path):
    b = VaultBuilder(tmp_path / "adr")
    b.raw(
        "2020-08-10-flags.md",
        "---\ntitle: Flags\ndate: 2020-08-10\n---\n\n## Superseded by [Flags, again](../2022-01-20-flags-again.md)\n\n## Context\n\nx\n\n## Decision\n\ny\n",
    )
    b.raw("2022-01-20-flags-again.md", "---\ntitle: Flags again\n---\n\n## Context\n\nx\n\n## Decision\n\ny\n")
    b.raw(
        "2022-02-01-other.md", "# Other\n\n## Context\n\nStatuses (in order of severity): none.\n\n## Decision\n\ny\n"
    )
    vault = Vault.open(b.root)
    old = vault.get("2020-08-10-flags")
    assert (old.status, old.superseded_by) == ("superseded", ["2022-01-20-flags-again"])
    assert vault.get("2022-02-01-other").view.stated_status == ""  # "Statuses ..." is no status line
    assert vault.get("2022-01-20-flags-again").view.created.isoformat() == "2022-01-20"  # from the name
    with pytest.raises(RefusedError):  # a heading is read, not rewritten
        vault.set_status("2020-08-10-flags", "active")


def test_forget_in_an_okf_bundle_leaves_no_byte_of_the_concept(bundle_in_memory):
    """OKF's own forget: the concept goes, links to it become plain text, the listing is
    regenerated without it, and nothing under the bundle holds it, not even an undo record."""
    vault = Vault.open(bundle_in_memory)
    bundle = bundle_in_memory / "memory"
    vault.regenerate_index()
    ada = vault.get("people/ada")
    vault.save(dataclasses.replace(ada, body="Ada wrote the first program, a secret worth forgetting.\n"))
    assert main(["--vault", str(bundle_in_memory), "forget", "people/ada", "--confirm", "people/ada"]) == 0
    assert not (bundle / "people" / "ada.md").exists()
    assert "Knows Ada.\n" in (bundle / "people" / "bob.md").read_text()
    for path in (p for p in bundle.rglob("*") if p.is_file()):
        data = path.read_bytes()
        assert b"people/ada" not in data and b"secret worth forgetting" not in data, path
    with pytest.raises(RefusedError):
        Vault.open(bundle_in_memory).undo()


def test_a_format_is_named_as_a_person_writes_it_with_its_article():
    assert [flavours.get(name).a_vault for name in ("adr", "dendron", "okf", "memory-core", "markdown")] == [
        "an ADR vault",
        "a Dendron vault",
        "an OKF vault",
        "a Memory Core vault",
        "a Markdown vault",
    ]


def test_an_adr_status_quoted_or_listed_in_its_section_reads_as_the_word(tmp_path):
    b = VaultBuilder(tmp_path / "adrs")
    b.raw("ADR-001-quoted.md", "# ADR-001: Quoted\n\n## Status\n\n> Accepted\n\n## Context\n\nX.\n")
    b.raw("ADR-002-listed.md", "# ADR-002: Listed\n\n## Status\n\n- Rejected\n\n## Context\n\nY.\n")
    b.raw("ADR-003-plain.md", "# ADR-003: Plain\n\n## Status\n\nProposed\n")
    vault = Vault.open(b.root)
    assert [(d.view.stated_status, d.status) for d in sorted(vault.documents, key=lambda d: d.id)] == [
        ("Accepted", "active"),
        ("Rejected", "archived"),
        ("Proposed", "draft"),
    ]
    vault.set_status("ADR-001", "deprecated")
    assert "## Status\n\n> Deprecated\n" in (b.root / "ADR-001-quoted.md").read_text()  # the quote stays


def test_an_id_filter_ignores_case_as_the_other_filters_do(adrs):
    vault = Vault.open(adrs)
    for query in ("id:ADR-002", "id:adr-002", "runners id:Adr-002"):
        assert [hit.id for hit in vault.search(query, 5)] == ["ADR-002"], query


def test_an_improvement_proposal_collection_is_read_as_decisions_with_its_own_words(tmp_path):
    """EIP-style front matter: `hip-N.md`, a title and status in the front matter, successors as
    bare numbers in `superseded-by` / `replaces`, and the EIP process's status words."""
    b = VaultBuilder(tmp_path / "hips")
    b.raw(
        "hip-10.md",
        "---\nhip: 10\ntitle: Token metadata\nstatus: Replaced\nsuperseded-by: 412\ncreated: 2021-02-18\n---\n\n## Abstract\n\nv1.\n",
    )
    b.raw(
        "hip-412.md",
        "---\nhip: 412\ntitle: Token metadata v2\nstatus: Final\nreplaces: 10\nrequires: 17\ncreated: 2022-04-01\n---\n\n## Abstract\n\nSee HIP-17.\n",
    )
    b.raw("hip-17.md", "---\nhip: 17\ntitle: Tokens\nstatus: Last Call\ncreated: 2021-01-01\n---\n\n## Abstract\n\nx\n")
    b.raw("hip-20.md", "---\nhip: 20\ntitle: URIs\nstatus: Stagnant\ncreated: 2021-06-29\n---\n\n## Abstract\n\nx\n")
    b.raw("hip-655.md", "---\nhip: 655\ntitle: Airdrops\nstatus: Withdrawn\n---\n\n## Abstract\n\nx\n")
    b.raw(
        "hip-904.md",
        "---\nhip: 904\ntitle: Frictionless airdrops\nstatus: Living\nreplaces: 655, 20\n---\n\n## Abstract\n\nx\n",
    )
    vault = Vault.open(b.root)
    assert vault.flavour.name == "adr"
    assert all(d.type == "decision" for d in vault.documents)
    old, new = vault.get("HIP-010"), vault.get("HIP-412")
    assert (old.title, old.status, old.superseded_by) == ("Token metadata", "superseded", ["HIP-412"])
    assert (new.status, new.supersedes) == ("active", ["HIP-010"])
    assert ("depends_on", "HIP-017") in [(l.type, l.target) for l in new.links]  # `requires: 17`
    assert [vault.get(i).status for i in ("HIP-017", "HIP-020", "HIP-655", "HIP-904")] == [
        "draft",
        "archived",
        "archived",
        "active",
    ]
    assert vault.get("HIP-904").supersedes == ["HIP-655", "HIP-020"]
    assert not [p for p in vault.problems if p.code == "status-unknown"]


def test_a_folder_of_numbered_notes_without_statuses_is_not_a_decision_collection(builder):
    for day in range(1, 6):
        builder.raw(f"day-0{day}.md", "# A day\n\n- did things\n")
    assert Vault.open(builder.root).flavour.name != "adr"


@pytest.mark.parametrize(
    ("text", "supersedes", "superseded_by"),
    [
        ("## Context\n\nThis ADR updates and supersedes [ADR0024 Use X](ADR024-a.md) for new work.\n", ["ADR-024"], []),
        (
            "## Context\n\nWe supersede [ADR 24](/adr/24) and [ADR 25](/adr/25) decisions on the network.\n",
            ["ADR-024", "ADR-025"],
            [],
        ),
        ("## Status\n\nSuperceded by ADR-25\n", [], ["ADR-025"]),
        ("## Status\n\nSuperseded (as never implemented) by [ADR 25](/adr/25)\n", [], ["ADR-025"]),
        ("## Context\n\nWhile this does not directly supersede [ADR24](/adr/24), it paves the way.\n", [], []),
        ("## Context\n\nA hundred lines of hierarchy were replaced by a section quoting ADR-024.\n", [], []),
        ("## Context\n\n[ADR-024](ADR024-a.md) got replaced by ADR-026 in the end.\n", ["ADR-024"], []),
        ("## Related\n\n**Supersedes**: None (extends ADR-024)\n", [], []),
    ],
    ids=[
        "updates-and-supersedes",
        "we-supersede-slug-links",
        "misspelt",
        "slug-with-aside",
        "not-directly",
        "tells-of-others",
        "named-after-replaced-by",
        "supersedes-none",
    ],
)
def test_adr_supersession_stated_in_a_sentence(tmp_path, text, supersedes, superseded_by):
    b = VaultBuilder(tmp_path / "adr")
    b.raw("ADR024-a.md", "# A\n\n## Status\n\nAccepted\n")
    b.raw("ADR025-b.md", "# B\n\n## Status\n\nAccepted\n")
    b.raw("ADR026-c.md", "# C\n\n" + (text if "## Status" in text else "## Status\n\nAccepted\n\n" + text))
    c = Vault.open(b.root).get("ADR-026")
    assert (c.supersedes, c.superseded_by) == (supersedes, superseded_by)


def test_a_successor_named_in_another_frontmatter_field_is_read(tmp_path):
    b = VaultBuilder(tmp_path / "adr")
    b.raw("ADR-290-a.md", "---\nstatus: deprecated\ndeprecated-reason: moved to one registry. See ADR-291\n---\n# A\n")
    b.raw("ADR-291-b.md", "---\nstatus: accepted\n---\n# B\n")
    b.raw("ADR-292-c.md", "---\nstatus: accepted\n---\n# C\n")
    vault = Vault.open(b.root)
    assert vault.get("ADR-290").superseded_by == ["ADR-291"]


def test_what_the_workbench_writes_into_a_record_that_shares_a_number_reads_back(tmp_path):
    """A successor known by its file name (its number taken by another record) is written as a
    link to that file, so the record names it again when read, not the other record."""
    vault = adr_collection(tmp_path / "adr", ["ADR024-a.md", "ADR025-remove-x.md", "ADR025-use-y.md"])
    vault.supersede("ADR-024", "ADR025-use-y")
    again = Vault.open(tmp_path / "adr")
    assert again.get("ADR-024").superseded_by == ["ADR025-use-y"]
    assert again.get("ADR025-use-y").supersedes == ["ADR-024"]
    assert not [p for p in again.problems if p.code == "superseded-without-successor"]


def test_records_that_all_open_with_one_heading_are_titled_by_their_name_line(tmp_path):
    b = VaultBuilder(tmp_path / "adr")
    for number, name in ((1, "Use Postgres"), (2, "Use Kafka"), (3, "Use Terraform")):
        b.raw(f"ADR-00{number}-x.md", f"# Meta\n\n- Name: {name}\n- Status: Accepted\n\n## Decision\n\nWe do.\n")
    vault = Vault.open(b.root)
    assert sorted(d.title for d in vault.documents) == ["Use Kafka", "Use Postgres", "Use Terraform"]


def test_a_proposal_or_feature_name_line_titles_a_record_and_an_author_name_never_does(tmp_path):
    """RFC-style templates open with `- Proposal Name: …` or `- Feature Name: …` above a generic
    `# Summary`; a line naming a person is no title."""
    b = VaultBuilder(tmp_path / "adr")
    b.raw("0040-split.md", "- Proposal Name: Splitting states\n- Start Date: 2021-07-19\n\n# Summary\n\nSplit.\n")
    b.raw("0041-fees.md", "- Feature Name: `gas_fees`\n- Status: Final\n\n# Summary\n\nFees.\n")
    b.raw("0042-keys.md", "- Author Name: Ada\n- Status: Final\n\n# Rotate keys yearly\n\nKeys.\n")
    vault = Vault.open(b.root)
    assert sorted(d.title for d in vault.documents) == ["Rotate keys yearly", "Splitting states", "gas_fees"]


def test_a_record_that_requires_or_extends_another_links_it_by_type(tmp_path):
    b = VaultBuilder(tmp_path / "arcs")
    b.raw("arc-0026.md", "---\narc: 26\ntitle: URI scheme\nstatus: Final\n---\n\n## Abstract\n\nx\n")
    b.raw(
        "arc-0078.md",
        "---\narc: 78\ntitle: URI scheme, keyreg\nstatus: Final\nextends:\n  - 26\nrequires: 26\n---\n\n## Abstract\n\nx\n",
    )
    b.raw(
        "arc-0079.md",
        "---\narc: 79\ntitle: URI scheme, app calls\nstatus: Final\n---\n\n## Status\n\nAccepted. Amends ARC-78.\n",
    )
    vault = Vault.open(b.root)
    assert sorted((l.type, l.target) for l in vault.get("ARC-078").links) == [
        ("depends_on", "ARC-026"),
        ("derived_from", "ARC-026"),
    ]
    assert [(l.type, l.target) for l in vault.get("ARC-079").links] == [("derived_from", "ARC-078")]
    assert not vault.get("ARC-078").supersedes and not vault.get("ARC-026").superseded_by


def test_a_vault_declares_its_own_status_words(tmp_path):
    b = VaultBuilder(tmp_path / "adr")
    b.raw("ADR-001-a.md", "# A\n\n## Status\n\nParked\n\n## Decision\n\nx\n")
    b.raw("ADR-002-b.md", "# B\n\n## Status\n\nIn force since May\n\n## Decision\n\ny\n")
    b.raw("ADR-003-c.md", "# C\n\n## Status\n\nAccepted\n\n## Decision\n\nz\n")
    vault = Vault.open(b.root)
    unknown = [p for p in vault.problems if p.code == "status-unknown"]
    assert [p.path for p in unknown] == ["ADR-001-a.md", "ADR-002-b.md"] and ".workbench.yaml" in unknown[0].message
    (b.root / ".workbench.yaml").write_text("statuses:\n  Parked: deprecated\n  In force: active\n")
    vault = Vault.open(b.root)  # the derived store is read again under the new words
    assert [vault.get(i).status for i in ("ADR-001", "ADR-002", "ADR-003")] == ["deprecated", "active", "active"]
    assert not [p for p in vault.problems if p.code in ("status-unknown", "config-invalid")]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("statuses:\n  Parked: resting\n", "'Parked' maps to 'resting'"),
        ("statuses: [Parked]\n", "should hold `statuses:`"),
        ("statuses:\n  Parked: [\n", "is not valid YAML"),
    ],
)
def test_a_broken_settings_file_is_a_problem_named_by_check_not_a_failure_to_open(tmp_path, text, said):
    b = VaultBuilder(tmp_path / "adr")
    for number in (1, 2, 3):
        b.raw(f"ADR-00{number}-a.md", "# A\n\n## Status\n\nAccepted\n\n## Decision\n\nx\n")
    (b.root / ".workbench.yaml").write_text(text)
    problems = [p for p in Vault.open(b.root).problems if p.code == "config-invalid"]
    assert len(problems) == 1 and problems[0].path == ".workbench.yaml" and said in problems[0].message


def _repository_with_records(root, folder: str = "docs/adr"):
    """A code repository keeping its decision records where its tools put them."""
    records = root / folder
    records.mkdir(parents=True)
    (root / "README.md").write_text("# The service\n\nHow to build it.\n")
    (root / "CHANGELOG.md").write_text("# Changes\n\n- First.\n")
    for n, (title, status) in enumerate(
        [("Record decisions", "Accepted"), ("Use Postgres", "Superseded by ADR-0003"), ("Use SQLite", "Accepted")], 1
    ):
        (records / f"{n:04d}-{title.lower().replace(' ', '-')}.md").write_text(
            f"# {n}. {title}\n\n## Status\n\n{status}\n\n## Context\n\nWhy.\n"
        )
    return records


@pytest.mark.parametrize("folder", ["doc/adr", "docs/adr", "docs/decisions"])
def test_a_repository_opened_as_decision_records_opens_where_it_keeps_them(tmp_path, folder):
    """Named as decision records, a repository's root (its records a level or two down, where
    adr-tools, log4brains or MADR put them) opens that folder: read from the root, every record
    was a plain note and no supersession was seen."""
    records = _repository_with_records(tmp_path, folder)
    vault = Vault.open(tmp_path, "adr")
    assert vault.root == records.resolve()
    assert sorted(d.type for d in vault.documents) == ["decision"] * 3
    assert vault.get("ADR-002").status == "superseded"
    assert main(["--vault", str(tmp_path), "--flavour", "adr", "show", "ADR-003"]) == 0


def test_a_repository_not_named_as_decision_records_is_read_as_it_is(tmp_path):
    _repository_with_records(tmp_path)
    vault = Vault.open(tmp_path)  # detected: its own Markdown, the records among the rest
    assert vault.root == tmp_path.resolve() and vault.index.flavour.name == "markdown"


def test_a_collection_at_the_top_is_opened_where_it_is_and_a_link_is_not_followed(tmp_path):
    top = tmp_path / "top"
    _repository_with_records(top, ".")  # records at the top: the folder itself
    (top / "docs" / "adr").mkdir(parents=True)
    assert Vault.open(top, "adr").root == top.resolve()
    elsewhere = tmp_path / "elsewhere"
    _repository_with_records(elsewhere, "docs/adr")
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    (repo / "docs" / "adr").symlink_to(elsewhere / "docs" / "adr")  # a folder outside the repository
    assert Vault.open(repo, "adr").root == repo.resolve()


def test_decision_records_named_at_the_top_open_without_detection(tmp_path, monkeypatch):
    """Named as decision records, a collection at the top with no `docs/adr` or kin beside it opens
    where it is without reading every name to score it: detection was a third of a warm open of
    10,000 records. Its index's statuses, where it keeps one, are still read in its numbering."""
    top = tmp_path / "top"
    _repository_with_records(top, ".")
    (top / "README.md").write_text("| ADR | Status |\n|---|---|\n| 1 | Deprecated |\n")
    (top / "0001-record-decisions.md").write_text("# 1. Record decisions\n\n## Context\n\nWhy.\n")

    def refused(self, root):
        raise AssertionError(f"detection ran on {root}")

    monkeypatch.setattr(type(flavours.get("adr")), "detect", refused)
    vault = Vault.open(top, "adr")
    assert vault.root == top.resolve()
    assert vault.get("ADR-001").status == "deprecated"  # from the index, its rows numbered alone


@pytest.mark.parametrize("name", flavours.names())
def test_a_fallback_id_is_the_files_path_without_its_suffix(name):
    """The ids' owners ask a file for its fallback only when its document holds its path as id."""
    flavour = flavours.get(name)
    for path in ["ADR025-a.md", "0001-use-x.md", "2020-08-10-title.md", "hip-12.md", "notes/day-01.md", "title.md"]:
        assert flavour.fallback_id(path) in (None, path[:-3])


def test_decision_templates_are_reserved_in_any_case_and_numbered_records_are_not():
    adr = flavours.get("adr")
    reserved = ["template.md", "ADR000-template.md", "0000-TEMPLATE.md", "adr_Template.md", "x.template.md"]
    kept = ["ADR-003-template.md", "templates.md", "mytemplate.md", "docs/template.md", "template-x.md"]
    assert [adr.is_reserved(p) for p in reserved] == [True] * len(reserved)
    assert [adr.is_reserved(p) for p in kept] == [False] * len(kept)
