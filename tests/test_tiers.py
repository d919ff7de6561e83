"""Tiered memory's own operations (its Memory Operations document) as workbench changes: corrections counted and promoted,
entries moved between tiers, forget across tiers, index line counts, and a project rule that
contradicts the global or domain rule it inherits."""

from __future__ import annotations

import pytest

from helpers import run_cli
from vault_builders import VaultBuilder
from workbench import RefusedError, Vault

HOT = "# Self-Improving Memory\n\n## Confirmed Preferences\n- format: bullet points over prose\n- semicolons: no\n\n## Recent\n- prefer SQLite for MVPs\n"


@pytest.fixture
def tiered(tmp_path) -> Vault:
    b = VaultBuilder(tmp_path / "self-improving")
    b.raw("memory.md", HOT)
    b.raw("corrections.md", "# Corrections Log\n")
    b.raw("index.md", "# Index\n\n- memory.md (7 lines)\n- projects/my-app.md (2 lines)\n- corrections.md (1 line)\n")
    b.raw("domains/code.md", "# Code\n\n- indent: tabs\n")
    b.raw(
        "projects/my-app.md",
        "# Project: my-app\nInherits: global, domains/code\n\n## Patterns\n- Use Tailwind (project standard)\n- semicolons: yes\n- indent: tabs\n",
    )
    b.raw("projects/legacy.md", "# Project: legacy\nInherits: global\n\n- semicolons: yes (overrides global no-semi)\n")
    return Vault.open(b.root)


def test_a_project_rule_against_an_inherited_one_is_a_conflict_unless_it_says_it_overrides(tiered):
    found = [c for c in tiered.conflicts() if c.kind == "rule-contradiction"]
    assert [c.ids for c in found] == [["projects/my-app", "memory"]]
    assert "semicolons: yes" in found[0].reason and "semicolons: no" in found[0].reason


def test_the_third_correction_is_promoted_to_a_confirmed_rule(tiered):
    root = tiered.root
    tiered.correct("Use SQLite not Postgres for MVP", "technical", "database discussion")
    log = (root / "corrections.md").read_text()
    assert (
        "Use SQLite not Postgres for MVP" in log
        and "Confirmed: pending (1/3)" in log
        and "Context: database discussion" in log
    )
    tiered.correct("use sqlite not postgres for MVP")
    assert "Confirmed: pending (2/3)" in (root / "corrections.md").read_text()
    assert "Postgres" not in (root / "memory.md").read_text()
    plan = tiered.correct("Use SQLite not Postgres for MVP")
    assert "confirmed as a rule" in plan.summary
    assert "Confirmed: yes" in (root / "corrections.md").read_text()
    hot = (root / "memory.md").read_text()
    assert "- Use SQLite not Postgres for MVP (confirmed" in hot and hot.index("Use SQLite") < hot.index("## Recent")
    tiered.undo()
    assert "Postgres" not in (root / "memory.md").read_text() and "(2/3)" in (root / "corrections.md").read_text()


def test_entries_move_between_tiers_and_forget_removes_them_from_every_tier(tiered):
    root = tiered.root
    tiered.move_entry("prefer SQLite", "cold")
    assert "SQLite" not in (root / "memory.md").read_text()
    assert "- prefer SQLite for MVPs" in (root / "archive" / "memory.md").read_text()
    tiered.move_entry("Tailwind", "hot")
    assert (
        "Tailwind" in (root / "memory.md").read_text() and "Tailwind" not in (root / "projects/my-app.md").read_text()
    )
    with pytest.raises(RefusedError, match="entries say"):
        tiered.move_entry("semicolons", "cold")
    tiered.correct("semicolons are a matter of taste")
    plan = tiered.forget_entries("semicolons", "semicolons")
    assert len(plan.changes) == 4  # memory.md, both projects, the corrections log
    assert not [
        p for p in root.rglob("*") if p.is_file() and b"semicolons" in p.read_bytes()
    ]  # the log, undo records, SQLite too


def test_index_line_counts_follow_the_files(tiered):
    tiered.update_line_counts()
    index = (tiered.root / "index.md").read_text()
    assert (
        "memory.md (8 lines)" in index
        and "projects/my-app.md (7 lines)" in index
        and "corrections.md (1 line)" in index
    )
    assert tiered.update_line_counts().summary == "index.md: line counts up to date"


def test_the_command_line_runs_the_tier_operations(tiered):
    root = str(tiered.root)
    assert run_cli("--vault", root, "tier", "correct", "Changed verbose explanation to bullet summary").returncode == 0
    moved = run_cli("--vault", root, "tier", "move", "format: bullet", "--to", "projects/my-app.md", "--dry-run")
    assert moved.returncode == 0 and "+- format: bullet points over prose" in moved.stdout
    refused = run_cli("--vault", root, "tier", "forget", "semicolons", "--confirm", "semi")
    assert refused.returncode == 3 and "Traceback" not in refused.stderr
    wrong = run_cli("--vault", str(VaultBuilder(tiered.root.parent / "mc").root), "tier", "counts")
    assert wrong.returncode == 3 and "tiered memory" in wrong.stderr
