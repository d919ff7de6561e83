"""A `conflicts --json` or `review --json` call after one file changed: the stat walk that asks
for a kept answer hands its listing to the open, the unchanged records are made from the store's
rows with their frontmatter, views and bodies left there, and only the changed file and the few the
answer shows are decoded. What is left undecoded must never stand for bytes the file no longer
holds: a file written after the walk is refused to a write made from its record, never overwritten."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from workbench import Vault
from workbench.cli import main
from workbench.core.records import loading
from workbench.core.services.kept_answers import Fingerprint
from workbench.core.vocabulary.lifecycle import allowed_transitions
from workbench.core.vocabulary.model import ConflictError


def decision_records(root: Path, count: int) -> None:
    """`count` decision records in a flat folder, every third superseding the one before it: a
    queue with pairs to weigh and supersessions to check."""
    root.mkdir(parents=True)
    for number in range(1, count + 1):
        before = f"Supersedes [ADR {number - 1}](ADR-{number - 1:04d}-step.md).\n" if number % 3 == 0 else ""
        (root / f"ADR-{number:04d}-step.md").write_text(
            f"# {number}. Step {number} of the billing queue\n\nDate: 2024-01-{number % 28 + 1:02d}\n\n"
            f"## Status\n\nAccepted\n\n## Context\n\nThe invoices of tenant {number % 7} wait in a queue.\n"
            f"{before}\n## Decision\n\nWe retry each invoice {number % 5 + 1} times.\n",
            "utf-8",
        )


def change(root: Path, number: int) -> None:
    with (root / f"ADR-{number:04d}-step.md").open("a", encoding="utf-8") as file:
        file.write("\nThe retry budget was raised after the outage review.\n")


def answered(root: Path, capsys, *line: str) -> str:
    assert main(["--vault", str(root), "--flavour", "adr", *line]) == 0
    return capsys.readouterr().out


def decoded_after_a_change(root: Path, capsys, monkeypatch, command: str) -> tuple[dict[str, int], str]:
    """{what: how many} the store was asked of unchanged records' texts (frontmatter, view, body)
    by one call after one change, and the call's output."""
    asked: dict[str, int] = {}
    for name in ("meta", "view", "body"):
        real = getattr(loading.Bodies, name)

        def counted(self, path, digest, real=real, name=name):
            asked[name] = asked.get(name, 0) + 1
            return real(self, path, digest)

        monkeypatch.setattr(loading.Bodies, name, counted)
    change(root, 4)
    out = answered(root, capsys, command, "--json")
    monkeypatch.undo()
    return asked, out


@pytest.mark.parametrize("command", ["conflicts", "review"])
def test_a_change_to_one_file_decodes_as_many_records_whatever_the_vaults_size(command, tmp_path, capsys, monkeypatch):
    """The texts a call after one change reads of the records it did not parse are the same few at
    120 and at 360 documents (the changed one's, those the answer shows): none in proportion to the
    vault (below 100 decisions, one change is more than the weighing's share and it weighs them all). The answer is the one worked out afresh (`--full`, and a copy opened with no store)."""
    counts = []
    for size in (120, 360):
        root = tmp_path / f"records-{size}"
        decision_records(root, size)
        answered(root, capsys, command, "--json")  # the store built and the answer kept
        asked, out = decoded_after_a_change(root, capsys, monkeypatch, command)
        counts.append(asked)
        if command == "conflicts":
            assert out == answered(root, capsys, "conflicts", "--json", "--full")
        copy = tmp_path / f"fresh-{size}"
        shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".workbench"))
        with monkeypatch.context() as patch:
            patch.setenv("XDG_CACHE_HOME", str(tmp_path / f"fresh-cache-{size}"))
            assert json.loads(out) == json.loads(answered(copy, capsys, command, "--json"))
    assert counts[0] == counts[1]
    assert sum(counts[1].values()) <= 12


def test_a_file_written_after_the_walk_is_never_overwritten_from_the_record_its_open_kept(sample_copy):
    """The open takes the walk's stats: a file written after the walk keeps its record as the
    store holds it, its frontmatter and body left there. A document saved from that record is
    refused (the bytes on disk are not those it was read from) and the file keeps what was written
    to it; a status change is made on the bytes on disk, never on those of the record."""
    Vault.open(sample_copy)  # its store built
    time.sleep(0.15)  # past the racy window: the rows are trusted on their stat
    Vault.open(sample_copy)
    walked = Fingerprint(str(sample_copy), None, ("conflicts", False))
    assert walked.listing and not walked.doubt
    path = sorted((sample_copy / "decisions").glob("*.md"))[0]
    written = path.read_text("utf-8") + "\nThe retry budget was raised after the outage review.\n"
    path.write_text(written, "utf-8")
    vault = Vault.open(sample_copy, listed=walked.listing, queue_fields=True)
    document = vault.document_at(path.relative_to(vault.root).as_posix())
    assert document is not None and "outage review" not in document.body  # the record as walked
    with pytest.raises(ConflictError):
        vault.save(dataclasses.replace(document, body=document.body + "\nA line of the record's.\n"))
    assert path.read_text("utf-8") == written
    status = allowed_transitions(document.status)[0].value
    vault.set_status(document.id, status)
    assert "outage review" in path.read_text("utf-8")
    assert vault.get(document.id).status == status


@pytest.mark.slow
def test_the_process_parts_of_two_codes_are_measured_alternated(tmp_path):
    """`bench_process_parts`, run small: each part of a call after a change, for each code named."""
    root = Path(__file__).resolve().parent.parent
    decision_records(tmp_path / "records", 120)
    result = subprocess.run(
        [sys.executable, "-m", "tests.benchmarks.bench_process_parts", str(tmp_path / "records"), "--flavour", "adr"]
        + ["--runs", "2", "--seeds", "3,5", str(root), str(root)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for part in ("stat walk, kept answer asked", "open: store's rows read", "open", "command", "total"):
        cells = rf"^\|\s+{re.escape(part)}\s+\|(?: [\d.]+ / [\d.]+; [\d.]+\s+\|){{2}}$"
        assert re.search(cells, result.stdout, re.MULTILINE), result.stdout
