"""The conflicts queue kept in the derived store: read when nothing it depends on changed, worked
out again when anything did, never served stale."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import marshal
import subprocess
import sys
from pathlib import Path

import workbench.core
import workbench.core.services.conflicts
from workbench import Vault
from workbench.core.services import kept_conflicts
from workbench.core.views import similarity
from workbench.core.vocabulary import supersession
from workbench.core.services.conflicts import Conflicts, find_conflicts
from workbench.core.flavours import adr
from workbench.core.records.record import today

ROOT = Path(__file__).resolve().parent.parent
DECISION = "decisions/mem-decision-money-integer-cents.md"


def queue_in_a_fresh_process(root: Path) -> dict:
    """`workbench conflicts --json` as its own process."""
    result = subprocess.run(
        [sys.executable, "-c", "import sys; from workbench.cli import main; sys.exit(main())", "--vault", str(root)]
        + ["conflicts", "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    return json.loads(result.stdout)


def worked_out(vault: Vault) -> Conflicts:
    return find_conflicts(vault.documents, vault.flavour.native)


def key_of(vault: Vault) -> str:
    return kept_conflicts.queue_key(
        vault.documents, vault.flavour.reading, vault.flavour.native, today(), kept_conflicts.code_fingerprint()
    )


def test_a_file_changed_between_two_fresh_processes_gives_the_new_queue(sample_copy):
    before = queue_in_a_fresh_process(sample_copy)
    assert queue_in_a_fresh_process(sample_copy) == before  # the second one read the kept queue
    path = sample_copy / DECISION
    # Plain file I/O, no workbench: the decision now names a successor that does not name it back.
    path.write_text(
        path.read_text("utf-8").replace("superseded_by: []", "superseded_by: [mem-decision-money-numeric-decimal]"),
        "utf-8",
    )
    after = queue_in_a_fresh_process(sample_copy)
    assert after != before
    assert after == {"conflicts": [c.to_json() for c in worked_out(Vault.open(sample_copy))]}


def test_the_queue_is_kept_and_read_back_equal(sample_copy):
    vault = Vault.open(sample_copy)
    first = vault.conflicts()
    assert first == worked_out(vault)
    kept = kept_conflicts.kept_queue(vault.store, key_of(vault))
    assert kept is not None and kept_conflicts.decode(kept) == first
    again = Vault.open(sample_copy).conflicts()
    assert again == first and [c.rank for c in again] == [c.rank for c in first]
    printed = json.dumps({"conflicts": [c.to_json() for c in first]}, indent=2, ensure_ascii=False)
    assert Vault.open(sample_copy).conflicts_json() == printed


def test_an_unchanged_vault_answers_with_what_was_kept(sample_copy):
    """The kept queue is what is served (here one planted under the right key), not worked out."""
    vault = Vault.open(sample_copy)
    vault.conflicts()
    planted = Conflicts(vault.conflicts()[:1])
    assert planted[0].kind != "duplicate"
    kept_conflicts.keep_queue(vault.store, key_of(vault), list(planted), [], [])
    assert Vault.open(sample_copy).conflicts() == planted


def test_a_damaged_or_foreign_kept_queue_is_worked_out_again(sample_copy):
    vault = Vault.open(sample_copy)
    for text in ("not json", '{"a": 1}', "[[1, 2]]", b"\x00not marshal", marshal.dumps(("a", "b"))):
        vault.store.keep(kept_conflicts.OBJECTS, key_of(vault), text)
        assert Vault.open(sample_copy).conflicts() == worked_out(vault)


def test_the_vaults_status_words_are_part_of_the_key(sample_copy):
    vault = Vault.open(sample_copy)
    vault.conflicts()
    (sample_copy / ".workbench.yaml").write_text("statuses:\n  parked: deprecated\n", "utf-8")
    reopened = Vault.open(sample_copy)
    assert reopened.flavour.reading != vault.flavour.reading
    assert key_of(reopened) != key_of(vault)
    assert reopened.conflicts() == worked_out(reopened)


def test_the_key_moves_with_every_input(sample_copy):
    documents = Vault.open(sample_copy).documents
    on = dt.date(2026, 5, 1)
    base = kept_conflicts.queue_key(documents, "memory-core", True, on, "code")
    assert kept_conflicts.queue_key(list(documents), "memory-core", True, on, "code") == base
    changed = dataclasses.replace(documents[0], digest="another")
    variants = [
        kept_conflicts.queue_key([changed, *documents[1:]], "memory-core", True, on, "code"),
        kept_conflicts.queue_key(documents[1:], "memory-core", True, on, "code"),
        kept_conflicts.queue_key(documents, "memory-core+1234", True, on, "code"),
        kept_conflicts.queue_key(documents, "memory-core", False, on, "code"),
        kept_conflicts.queue_key(documents, "memory-core", True, on + dt.timedelta(days=1), "code"),
        kept_conflicts.queue_key(documents, "memory-core", True, on, "other code"),
    ]
    assert len({base, *variants}) == len(variants) + 1


def test_the_code_fingerprint_reads_every_core_source():
    """A change to the algorithm (conflicts, similarity, a flavour) is a change of the fingerprint."""
    assert len(kept_conflicts.code_fingerprint()) == 64
    core = Path(workbench.core.__file__).parent
    sources = {p.resolve() for p in core.rglob("*.py")}
    read = {Path(m.__file__).resolve() for m in (workbench.core.services.conflicts, similarity, supersession, adr)}
    assert read <= sources


def test_duplicates_kept_since_by_another_process_are_not_read_as_this_queues(sample_copy):
    """The queue's two parts: where the duplicates' entry was replaced since (another process kept
    other duplicates), the queue is not read from what is kept, but worked out again."""
    vault = Vault.open(sample_copy)
    first = vault.conflicts()
    assert kept_conflicts.kept_queue(vault.store, key_of(vault)) is not None
    vault.store.keep(kept_conflicts.DUPLICATES, "another digest", marshal.dumps(("[]", "")))
    assert kept_conflicts.kept_queue(vault.store, key_of(vault)) is None
    assert Vault.open(sample_copy).conflicts() == first == worked_out(vault)
