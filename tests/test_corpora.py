"""Real vaults written by other tools: a Dendron site, an agent's Obsidian-style memories, ADRs.

The corpora live beside the project (`../shared/corpora/`, or `$WORKBENCH_CORPORA`), never in it;
each is a folder holding a `SOURCE.md` that says where it comes from. Each is copied to a
temporary folder first, and made writable, so that a test would see anything written into it.
What the tests of one corpus expect is what its files state, read by hand; what the test of
every corpus expects holds for any vault, named by nothing in it.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
from pathlib import Path

import pytest

from workbench import Vault
from workbench.cli import main

CORPORA = Path(os.environ.get("WORKBENCH_CORPORA", Path(__file__).resolve().parents[2] / "shared" / "corpora"))


def corpus(name: str, tmp_path_factory) -> Path:
    source = CORPORA / name
    if not source.is_dir():
        pytest.skip(f"corpus {name} not found under {CORPORA} (set WORKBENCH_CORPORA to the folder holding it)")
    copy = tmp_path_factory.mktemp(Path(name).name) / Path(name).name
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns(".workbench"))
    (copy / "SOURCE.md").unlink(missing_ok=True)  # describes the corpus; not part of it
    for folder, _, files in os.walk(copy):  # the corpora are read-only; a copy a person owns is not
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)
    return copy


def every_corpus() -> list:
    """Each folder under CORPORA holding a SOURCE.md; those of more than 300 files are slow."""
    found = sorted(p.parent for p in CORPORA.rglob("SOURCE.md")) if CORPORA.is_dir() else []
    params = []
    for folder in found:
        name = folder.relative_to(CORPORA).as_posix()
        large = sum(1 for _ in folder.rglob("*.md")) > 300
        params.append(pytest.param(name, id=name, marks=[pytest.mark.slow] if large else []))
    if not params:  # a clone with no corpora beside it: one test skipped with the reason, not an empty set
        reason = f"no corpus under {CORPORA} (set WORKBENCH_CORPORA to the folder holding them)"
        params.append(pytest.param(None, id="no-corpora", marks=pytest.mark.skip(reason=reason)))
    return params


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
    reported = {
        (p.path, m.group(1))
        for p in vault.problems
        if p.code == "link-dangling"
        for m in [re.search(r"→ (.+): no document", p.message)]
        if m
    }
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
    assert {
        "dendron.topic.links.backlink",
        "dendron.topic.links.commands.insert-note-link",
        "dendron.topic.graph-view",
    } <= targets(vault, "dendron.topic.links")
    assert "careers.mission" in targets(vault, "careers.developer-advocate")
    doc = vault.get("dendron.topic.links")
    assert (
        doc.title == "Links"
        and doc.meta["id"] == "3472226a-ff3c-432d-bf5d-10926f39f6c2"
        and doc.updated.isoformat() == "2022-08-19"
    )
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
STATED_SUPERSEDED_BY = {
    "ADR-002": ["ADR-039"],
    "ADR-004": ["ADR-086"],
    "ADR-005": ["ADR-042"],
    "ADR-044": ["ADR-094"],
    "ADR-079": ["ADR-092"],
    "ADR-091": ["ADR-092"],
}
STATED_SUPERSEDES = {
    "ADR-039": ["ADR-002"],
    "ADR-042": ["ADR-005"],
    "ADR-052": ["ADR-036"],
    "ADR-055": ["ADR-024", "ADR-025"],
    "ADR-086": ["ADR-004"],
    "ADR-091": ["ADR-079"],
    "ADR-092": ["ADR-079", "ADR-091"],
    "ADR-094": ["ADR-044"],
}


def test_adr_supersession_graph_is_what_the_records_state(adrs):
    vault = Vault.open(adrs)
    assert vault.flavour.name == "adr"
    decisions = [d for d in vault.documents if d.type == "decision"]
    assert len([d for d in decisions if re.fullmatch(r"ADR-\d{3}", d.id)]) == 102
    # Unnumbered, but a record all the same: a status, a date, `## Context` and `## Decision`.
    assert [d.id for d in decisions if not re.fullmatch(r"ADR-\d{3}", d.id)] == [
        "claude-workflow-authorization-pattern"
    ]
    assert {d.id: d.superseded_by for d in vault.documents if d.superseded_by} == STATED_SUPERSEDED_BY
    assert {d.id: d.supersedes for d in vault.documents if d.supersedes} == STATED_SUPERSEDES
    assert vault.get("ADR-005").status == "superseded" and vault.get("ADR-042").status == "active"
    assert vault.get("ADR-052").status == "draft"  # "Proposed. Supersedes ADR-036."


def test_one_sided_adr_supersession_is_reported_as_a_conflict(adrs):
    vault = Vault.open(adrs)
    one_sided = sorted(tuple(c.ids) for c in vault.conflicts() if c.kind == "one-sided-supersession")
    assert one_sided == [("ADR-024", "ADR-055"), ("ADR-025", "ADR-055"), ("ADR-036", "ADR-052"), ("ADR-079", "ADR-091")]
    # A narrative mention ("ADR-039 supersedes it" in a note) is a link, not a lifecycle statement.
    assert vault.get("ADR-002").supersedes == []


def tree(root: Path) -> dict[str, bytes | None]:
    """Every file and folder under `root`, hidden ones too, with each file's bytes."""
    return {p.relative_to(root).as_posix(): p.read_bytes() if p.is_file() else None for p in root.rglob("*")}


PAST = dt.datetime(2001, 2, 3, 12, 0).timestamp()  # every copied file's mtime: a date no source states


@pytest.mark.parametrize("name", every_corpus())
def test_every_corpus_reads_every_file_and_migrates_every_document_writing_nothing_into_it(
    name, tmp_path_factory, capsys
):
    root = corpus(name, tmp_path_factory)
    for path in root.rglob("*"):
        os.utime(path, (PAST, PAST))
    before = tree(root)
    vault = Vault.open(root)
    flavour = vault.flavour
    # Documents: the Markdown files less the ones the format reserves.
    markdown = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md"))
    assert sorted(r.path for r in vault.records) == [p for p in markdown if not flavour.is_reserved(p)]
    # Every file its own id; an id two files claim is the collection's doing, reported naming both.
    ids = [r.document.id for r in vault.records]
    assert len(set(ids)) == len(ids) and not [p for p in vault.problems if p.code == "id-duplicate"]
    for problem in (p for p in vault.problems if p.code == "id-shared"):
        assert problem.severity.value == "warning" and len(set(re.findall(r"\S+\.md", problem.message))) == 2
    vault.search("decision status")
    assert main(["--vault", str(root), "check"]) in (0, 1)
    assert main(["--vault", str(root), "search", "status"]) in (0, 1)
    capsys.readouterr()

    out = tmp_path_factory.mktemp("migrated") / "vault"
    assert main(["--vault", str(root), "migrate", "--to", "memory-core", str(out)]) == 0
    printed = capsys.readouterr().out
    written = sorted(p for p in out.rglob("mem-*.md") if ".recovery" not in p.relative_to(out).parts)
    assert f"migrated {len(vault.records)} document(s)" in printed and len(written) == len(vault.records)
    assert "check on the new vault: 0 error(s)" in printed
    result = Vault.open(out, flavour="memory-core")
    assert [p for p in result.problems if p.severity.value == "error"] == []
    today = dt.date.today()
    sources = {r.path: r for r in vault.records}
    migrated = {d.meta["provenance"]["source_file"]: d for d in result.documents}
    assert sorted(migrated) == sorted(sources)
    for path, new in migrated.items():
        old = sources[path].document
        # Every byte: the body as it was, or (a file that is not clean text) the file kept whole.
        assert new.body == old.body or (out / new.meta["repair_backup"]).read_bytes() == before[path]
        assert new.status == "draft" or old.valid
        # The source's dates, else the file's: never the day of the migration.
        created = min(old.view.created or dt.date.fromtimestamp(PAST), today) if old.view else new.meta["created_at"]
        assert new.meta["created_at"] == created != today
        if old.view is not None and old.view.updated is not None:
            assert new.meta["updated_at"] == max(min(old.view.updated, today), created)
    # Reading is not writing: open, search, check and migrate left the folder as it was.
    assert tree(root) == before


def test_check_json_names_the_flavour(adrs, capsys):
    assert main(["--vault", str(adrs), "check", "--json"]) == 0
    assert '"flavour": "adr"' in capsys.readouterr().out
