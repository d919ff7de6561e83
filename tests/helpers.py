"""Helpers shared by the core and command-line tests: run the CLI as a separate process, compare
graphs, and make generated vaults."""

from __future__ import annotations

import builtins
import contextlib
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

SAMPLE = Path(__file__).resolve().parent.parent / "sample_vault"
"""The bundled sample vault. Imported from here, never from `conftest`: `tests/tui` has a conftest
of its own, and the module named `conftest` is whichever pytest imported last."""

APPENDING_AGENT = textwrap.dedent(
    """
    import random, sys, time
    path, count = sys.argv[1], int(sys.argv[2])
    print("ready", flush=True)
    for number in range(count):
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"agent-{number}\\n")
        time.sleep(random.uniform(0, 0.008))  # quiet spells, so that changes also land
    """
)
"""An agent that appends `count` numbered lines to the file at `path` by plain file I/O, in bursts,
once it has printed `ready`: run beside the workbench's writes, none of its lines may be lost."""


def run_cli(
    *args: str, cwd=None, env: dict[str, str] | None = None, text: bool = True, timeout: float | None = None
) -> subprocess.CompletedProcess:
    """The command line in a process of its own, as a person or a script runs it: real exit codes, real
    output. `env` adds to the inherited environment."""
    return subprocess.run(
        [sys.executable, "-m", "workbench.cli", *args],
        capture_output=True,
        text=text,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        timeout=timeout,
    )


def unprivileged(command: list[str]) -> list[str] | None:
    """`command` run so that file permissions apply to it: as is for an ordinary user; for root
    (the tests may run as root, whom chmod 000 does not stop), through setpriv without the two
    capabilities that let root read and search anything. None when that cannot be arranged."""
    if os.geteuid() != 0:
        return command
    if shutil.which("setpriv") is None:
        return None
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *command]


def run_cli_unprivileged(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """`run_cli` in a process that file permissions stop (see `unprivileged`)."""
    command = unprivileged([sys.executable, "-m", "workbench.cli", *args])
    if command is None:
        import pytest

        pytest.skip("running as root without setpriv: permissions cannot be tested")
    return subprocess.run(command, capture_output=True, text=True, env=dict(os.environ), timeout=timeout)


def run_killed_at(step: str, script: str, *args: str, timeout: float | None = 120) -> subprocess.CompletedProcess:
    """Python `script` (given `args`) in a process of its own that the workbench kills at `step`
    (`WORKBENCH_CRASH_AT`: exit 137 where the step is reached), as a crash would."""
    return subprocess.run(
        [sys.executable, "-c", script, *args],
        env={**os.environ, "WORKBENCH_CRASH_AT": step},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def graph_shape(graph):
    """Every node and edge with its data, sorted, so that two graphs compare equal exactly when they
    hold the same things, whatever order they were built in."""
    return (
        sorted((node, tuple(sorted(data.items()))) for node, data in graph.nodes(data=True)),
        sorted((s, t, k, tuple(sorted(d.items()))) for s, t, k, d in graph.edges(keys=True, data=True)),
    )


@contextlib.contextmanager
def sorts_noted(monkeypatch, piece: int = 16) -> Iterator[list[int]]:
    """Within: the pieced sort cuts pieces of `piece`, and every `sorted()` call's size is noted in
    the list yielded (the real sort does the work), for tests that no sort holds the whole input."""
    from workbench.core.vocabulary import sorting

    sizes: list[int] = []
    real = builtins.sorted

    def counted(items, *args, **kwargs):
        done = real(items, *args, **kwargs)
        sizes.append(len(done))
        return done

    monkeypatch.setattr(sorting, "PIECE", piece)
    monkeypatch.setattr(builtins, "sorted", counted)
    try:
        yield sizes
    finally:
        monkeypatch.setattr(builtins, "sorted", real)


def shaped_vault(tmp_path_factory, size: int, seed: int) -> Path:
    """A vault of `size` documents that `generate_shaped_vault` writes from `seed`, in a folder of
    its own: made once for a module's tests (a module-scoped fixture), each test then working on a
    `copied` one, so that none sees another's changes or derived store."""
    from tests.benchmarks.generate_shapes import generate_shaped_vault

    root = tmp_path_factory.mktemp("shaped") / "vault"
    generate_shaped_vault(root, size, seed=seed)
    return root


def weighed_vault(tmp_path_factory, size: int, seed: int) -> Path:
    """`shaped_vault`, its conflicts queue worked out and kept once: every decision weighed, so a
    test's `copied` vault starts from what was kept."""
    from workbench import Vault

    root = shaped_vault(tmp_path_factory, size, seed)
    Vault.open(root)._queue(False).conflicts()
    return root


def copied(source: Path, tmp_path: Path) -> Path:
    """A test's own copy of the vault at `source`, as `tmp_path/vault`."""
    root = tmp_path / "vault"
    shutil.copytree(source, root)
    return root


def weighing_record(vault, setting: str):
    """The weighing's record the vault's store keeps under `setting` (`weighing.load`), its large
    fields made from their bases; None where none is kept, or it does not hold together."""
    from workbench.core.services import kept_conflicts, weighing

    store = vault.store
    return weighing.load(
        store.kept(kept_conflicts.WEIGHED, setting), lambda keys: store.kept_rows(kept_conflicts.WEIGHED, keys)
    )


def rows_asked(vault, among: set[str]) -> list[str]:
    """The keys of `among` the vault's store is asked for from now on, in order, each time asked."""
    asked: list[str] = []
    reading = vault.store.kept_rows

    def counted(name: str, keys):
        keys = list(keys)
        asked.extend(key for key in keys if key in among)
        return reading(name, keys)

    vault.store.kept_rows = counted
    return asked


# A template many decisions are copied from, written as people write: capitals, plurals, names,
# so the shared words shown in reasons are not their terms.
TEMPLATE = (
    "## Context\n\nOur Invoices are rendered as PDFs by the Billing service. Kafka Brokers carry the "
    "Events between Services; the Ledger reconciles Payments nightly. Retries use exponential "
    "Backoff with Jitter, and Dead-Letter Queues hold the Messages that fail.\n\n## Decision\n\n"
    "We keep the Invoices' PDFs in Object Storage, keyed by Tenant and Period. {n}\n"
)


def template_copy(root: Path, n: int) -> None:
    """Decision `n` copied from `TEMPLATE`, a sentence of its own at the end (its words those of
    every other copy's: only its number differs)."""
    doc_id = f"mem-decision-template-{n:02}"
    (root / "decisions" / f"{doc_id}.md").write_text(
        f"---\nschema_version: v1\nid: {doc_id}\ntype: decision\ntitle: Invoice storage for region {n}\n"
        f"status: active\ncreated_at: 2026-01-{1 + n:02}\nupdated_at: 2026-02-01\nproject: billing\n"
        "tags: [billing]\nlinks: []\nsupersedes: []\nsuperseded_by: []\nprovenance:\n  source: agent-claude\n"
        f"  confidence: medium\n---\n{TEMPLATE.format(n=f'Region {n} Archives keep Seven Years.')}",
        "utf-8",
    )


def append_to_copy(root: Path, n: int, words: str) -> None:
    """`words` appended to `template_copy` `n` by plain file I/O, as an agent writes it."""
    with (root / "decisions" / f"mem-decision-template-{n:02}.md").open("a", encoding="utf-8") as file:
        file.write(f"\n{words}\n")


def harm_rows(vault, keys, harm: str, readable: bytes | None = None) -> None:
    """The kept rows of `keys` in the vault's store `damaged` (bytes that decode as nothing),
    `readable` (a value that decodes, `readable`, but is not the row kept: by default marshal's
    empty dictionary) or else deleted, in one transaction."""
    import marshal

    db = vault.store.db
    with db:
        for key in keys:
            if harm == "damaged":
                db.execute("UPDATE kept_rows SET value = ? WHERE key = ?", (b"\x00not a row", key))
            elif harm == "readable":
                value = marshal.dumps({}) if readable is None else readable
                db.execute("UPDATE kept_rows SET value = ? WHERE key = ?", (value, key))
            else:
                db.execute("DELETE FROM kept_rows WHERE key = ?", (key,))
