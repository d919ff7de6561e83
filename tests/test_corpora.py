"""Real vaults written by other tools: a Dendron site, an agent's Obsidian-style memories, ADRs.

The corpora live beside the project (`../shared/corpora/`, or `$WORKBENCH_CORPORA`), never in it;
each is copied to a temporary folder first, since opening a vault writes `.workbench/`. What the
tests expect is what the files themselves state, read by hand.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from workbench import Vault
from workbench.cli import main
from workbench.core.migrate import migrate

CORPORA = Path(os.environ.get("WORKBENCH_CORPORA", Path(__file__).resolve().parents[2] / "shared" / "corpora"))


def corpus(name: str, tmp_path_factory) -> Path:
    source = CORPORA / name
    if not source.is_dir():
        pytest.skip(f"corpus {name} not found under {CORPORA} (set WORKBENCH_CORPORA to the folder holding it)")
    copy = tmp_path_factory.mktemp(name) / name
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns(".workbench"))
    (copy / "SOURCE.md").unlink(missing_ok=True)  # describes the corpus; not part of it
    return copy


@pytest.fixture(scope="module")
def dendron(tmp_path_factory):
    return corpus("dendron-site", tmp_path_factory)


@pytest.fixture(scope="module")
def serena(tmp_path_factory):
    return corpus("agent-memory-serena", tmp_path_factory)


@pytest.fixture(scope="module")
def adrs(tmp_path_factory):
    return corpus("adr-ai-agents", tmp_path_factory)


def targets(vault, doc_id):
    return {l.target for l in vault.get(doc_id).links}


def assert_links_agree_with_the_files(vault):
    """Every resolved target is a document; every dangling one is reported and names no file."""
    ids = set(vault.ids())
    reported = {(p.path, m.group(1)) for p in vault.problems if p.code == "link-dangling" for m in [re.search(r"→ (.+): no document", p.message)] if m}
    for doc in vault.documents:
        for link in doc.links:
            if link.target in ids or ".." in link.target.split("/"):
                continue
            assert (doc.path, link.target) in reported
            assert not (vault.root / f"{link.target}.md").exists()


def test_dendron_site_opens_as_dendron_with_its_links_resolved(dendron):
    vault = Vault.open(dendron)
    assert vault.flavour.name == "dendron"
    assert len(vault.documents) == 1012
    # `[[label|dendron://dendron.dendron-site/target]]`: label first, the vault's own name dropped.
    assert {"dendron.topic.links.backlink", "dendron.topic.links.commands.insert-note-link", "dendron.topic.graph-view"} <= targets(vault, "dendron.topic.links")
    assert "careers.mission" in targets(vault, "careers.developer-advocate")
    doc = vault.get("dendron.topic.links")
    assert doc.title == "Links" and doc.meta["id"] == "3472226a-ff3c-432d-bf5d-10926f39f6c2" and doc.updated.isoformat() == "2022-08-19"
    assert_links_agree_with_the_files(vault)
    assert not [p for p in vault.problems if p.code == "field-missing"]
    assert [h.id for h in vault.search("links", limit=50)]


def test_agent_memories_open_as_obsidian_markdown(serena):
    vault = Vault.open(serena)
    assert vault.flavour.name == "markdown"
    assert len(vault.records) == 1026 and "README" in vault
    assert {"adr/adr-014-review-findings", "adr/adr-019-quantitative-analysis"} <= targets(vault, "adr-reference-index")
    # Memory indexes in topic folders link to files that were never written: reported, not invented.
    dangling = {p.path for p in vault.problems if p.code == "link-dangling" and "pr-156-review-findings" in p.message}
    assert "pr-review/pr-review-014-branch-state-verification.md" in dangling
    broken = [p for p in vault.problems if p.code == "conflict-markers"]
    assert [p.path for p in broken] == ["patterns/pattern-handoff-merge-session-histories.md"]
    assert len(vault.documents) == 1025
    assert_links_agree_with_the_files(vault)


# The supersession each record states, read from the files (frontmatter keys, `## Status` sections,
# `**Status**:` lines and `**Supersedes**:` metadata lines).
STATED_SUPERSEDED_BY = {"ADR-002": ["ADR-039"], "ADR-004": ["ADR-086"], "ADR-005": ["ADR-042"], "ADR-044": ["ADR-094"],
                        "ADR-079": ["ADR-092"], "ADR-091": ["ADR-092"]}
STATED_SUPERSEDES = {"ADR-039": ["ADR-002"], "ADR-052": ["ADR-036"], "ADR-055": ["ADR-024", "ADR-025"], "ADR-086": ["ADR-004"],
                     "ADR-091": ["ADR-079"], "ADR-092": ["ADR-079", "ADR-091"], "ADR-094": ["ADR-044"]}


def test_adr_supersession_graph_is_what_the_records_state(adrs):
    vault = Vault.open(adrs)
    assert vault.flavour.name == "adr"
    decisions = [d for d in vault.documents if d.type == "decision"]
    assert len([d for d in decisions if re.fullmatch(r"ADR-\d{3}", d.id)]) == 102
    # Unnumbered, but a record all the same: a status, a date, `## Context` and `## Decision`.
    assert [d.id for d in decisions if not re.fullmatch(r"ADR-\d{3}", d.id)] == ["claude-workflow-authorization-pattern"]
    assert {d.id: d.superseded_by for d in vault.documents if d.superseded_by} == STATED_SUPERSEDED_BY
    assert {d.id: d.supersedes for d in vault.documents if d.supersedes} == STATED_SUPERSEDES
    assert vault.get("ADR-005").status == "superseded" and vault.get("ADR-042").status == "active"
    assert vault.get("ADR-052").status == "draft"  # "Proposed. Supersedes ADR-036."


def test_one_sided_adr_supersession_is_reported_as_a_conflict(adrs):
    vault = Vault.open(adrs)
    one_sided = sorted(tuple(c.ids) for c in vault.conflicts() if c.kind == "one-sided-supersession")
    assert one_sided == [("ADR-005", "ADR-042"), ("ADR-024", "ADR-055"), ("ADR-025", "ADR-055"), ("ADR-036", "ADR-052"), ("ADR-079", "ADR-091")]
    # A narrative mention ("ADR-039 supersedes it" in a note) is a link, not a lifecycle statement.
    assert vault.get("ADR-002").supersedes == []


@pytest.mark.slow
def test_every_corpus_migrates_into_a_valid_memory_core_vault_keeping_every_body(adrs, dendron, serena, tmp_path):
    for source in (adrs, dendron, serena):
        vault = Vault.open(source)
        before = {p.relative_to(source).as_posix(): p.read_bytes() for p in source.rglob("*.md") if ".workbench" not in p.parts}
        report = migrate(vault, tmp_path / source.name)
        result = Vault.open(tmp_path / source.name, flavour="memory-core")
        assert [p for p in result.problems if p.severity.value == "error"] == []
        for old_path, new_path in report.written.items():
            old = vault.records[[r.path for r in vault.records].index(old_path)].document
            new = result.get(Path(new_path).stem)
            assert new.body == old.body or (tmp_path / source.name / new.meta["repair_backup"]).read_bytes() == before[old_path]
        assert {p.relative_to(source).as_posix(): p.read_bytes() for p in source.rglob("*.md") if ".workbench" not in p.parts} == before
        assert len(report.written) == len(vault.records)


def test_check_json_names_the_flavour(adrs, capsys):
    assert main(["--vault", str(adrs), "check", "--json"]) == 0
    assert '"flavour": "adr"' in capsys.readouterr().out
