"""Every kind of multi-file change, killed at every write step, leaves the vault as it was before or
as it would be after, never in between, with no temporary file or journal left."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from workbench import Vault

pytestmark = pytest.mark.slow  # each change is run again, killed at each of its write steps

OPERATIONS = {
    "rename": "v.rename('mem-decision-jobs-celery-redis', 'mem-decision-jobs-celery')",
    "consolidate": "v.consolidate('mem-context-test-suite', [g for g in v.consolidation_groups()][0].notes)",
    "merge": "v.merge('mem-entity-postgresql-db', 'mem-entity-postgres')",
    "compatible": "v.mark_compatible('mem-decision-money-integer-cents', 'mem-decision-money-numeric-decimal')",
    "create-superseding": "from workbench.core.services.gate import Draft; v.create_superseding('mem-decision-money-integer-cents', Draft('decision', 'Money as bigint', ['money'], [], 'x'))",
    "forget": "v.forget('mem-note-stripe-test-clocks', 'mem-note-stripe-test-clocks')",
}


def files(root):
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*.md")
        if ".workbench" not in p.parts and p.name != "log.md"
    }


def run(root, code, crash=None):
    env = {**os.environ, **({"WORKBENCH_CRASH_AT": crash} if crash else {})}
    script = f"import sys; from workbench import Vault; v = Vault.open(sys.argv[1]); {code}"
    return subprocess.run([sys.executable, "-c", script, str(root)], env=env, capture_output=True, text=True)


@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_each_change_is_all_or_nothing_at_every_crash_point(sample_copy, tmp_path, operation):
    code = OPERATIONS[operation]
    Vault.open(sample_copy)
    before = files(sample_copy)
    finished = tmp_path / "finished"
    shutil.copytree(sample_copy, finished)
    assert run(finished, code).returncode == 0
    after = files(finished)
    assert after != before
    steps = (
        ["journal-written", "committed", "logged"]
        + [f"file-written:{n}" for n in range(1, 12)]
        + [f"before-rename:{n}" for n in range(1, 12)]
    )
    crashed = 0
    for step in steps:
        trial = tmp_path / f"trial-{step.replace(':', '-')}"
        shutil.copytree(sample_copy, trial)
        result = run(trial, code, step)
        if result.returncode != 137:
            continue  # this change has fewer steps than that
        crashed += 1
        vault = Vault.open(trial)
        now = files(trial)
        assert now in (before, after), f"{operation} killed at {step} left a half-made change"
        assert not [p for p in trial.rglob("*.tmp")], step
        assert not list((trial / ".workbench" / "journal").glob("*.json")), step
        assert [p for p in vault.problems if p.severity == "error"] == [], step
    assert crashed >= 3
    print(f"{operation}: {crashed} crash points, each left the vault before or after")
