"""A cold open of a large vault parses in worker processes and gives exactly what one process gives."""

from __future__ import annotations

import shutil

from tests.benchmarks.generate import generate_vault
from workbench import Vault
from workbench.core.loading import PARALLEL_MIN


def snapshot(vault):
    return sorted((r.path, r.document.id, r.document.digest, r.document.valid, tuple(p.code for p in r.problems)) for r in vault.records)


def test_parallel_and_serial_opens_agree(tmp_path, monkeypatch):
    root = tmp_path / "vault"
    generate_vault(root, PARALLEL_MIN + 100)
    (root / "notes" / "mem-note-broken.md").write_text("---\ntitle: [broken\n---\nbody\n")
    parallel = snapshot(Vault.open(root))
    shutil.rmtree(root / ".workbench")
    monkeypatch.setenv("WORKBENCH_SERIAL", "1")
    serial = snapshot(Vault.open(root))
    assert parallel == serial and len(parallel) == PARALLEL_MIN + 101
    warm = Vault.open(root)
    assert snapshot(warm) == serial
    assert [h.id for h in warm.search("invoice", 3)]
