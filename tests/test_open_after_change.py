"""A warm open after a change: what it does is the change's, and it sees every change plain file I/O makes.

A command-line call after an agent's write opens the vault warm: the store's rows made records, a
walk, the changed files parsed, the ids settled. Settling asked the flavour about every file with
a problem of its own (decision records with no status: most of a collection), to leave each as it
was; and each row's problems were decoded once a row. These tests count what such an open asks,
and hold every open against a cold open of a copy: the same ids, validity and problems, after
each kind of change a plain write makes (the same size in the same second, a rename over a file,
a file removed, a file added in a new folder).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from workbench import Vault
from workbench.core.flavours.adr import Adr

NO_STATUS = 40  # records with no status: each has a problem of its own reading


def record(number: int, title: str, status: str | None = "Accepted", body: str = "") -> str:
    status_part = f"## Status\n\n{status}\n\n" if status else ""
    return f"# {number}. {title}\n\n{status_part}## Context\n\nWhy {title.lower()} came up.{body}\n"


def write_records(root: Path) -> None:
    """A collection of decision records: most say no status; two share a number, one is superseded."""
    root.mkdir()
    for n in range(1, NO_STATUS + 1):
        (root / f"{n:04d}-choice-{n}.md").write_text(record(n, f"Choice {n}", None))
    (root / "0041-use-queues.md").write_text(record(41, "Use queues"))
    (root / "0042-use-streams.md").write_text(record(42, "Use streams", "Superseded by [ADR-0041](0041-use-queues.md)"))


def shared_number(root: Path) -> None:
    (root / "0041-use-topics.md").write_text(record(41, "Use topics"))


def reading(vault: Vault) -> list[tuple]:
    """What settling ids decides of each record (its id, validity and problems), and what it read
    (its digest, status and title)."""
    return sorted(
        (
            r.path,
            r.document.id,
            r.document.valid,
            tuple((p.code, p.severity, p.message, p.line, p.doc_id) for p in r.problems),
            r.document.digest,
            str(r.document.status),
            r.document.title,
        )
        for r in vault.index.records
    )


def cold_reading(root: Path, tmp_path: Path, monkeypatch) -> list[tuple]:
    """The reading of a copy of `root` opened with a store of its own (its cache folder new)."""
    copy = tmp_path / f"cold-{len(list(tmp_path.iterdir()))}"
    shutil.copytree(root, copy)
    with monkeypatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(copy) + "-cache")
        return reading(Vault.open(copy, flavour="adr"))


def count_fallbacks(monkeypatch) -> list[str]:
    """The paths the decision records' flavour is asked a fallback id of, from now on."""
    asked: list[str] = []
    own = Adr.fallback_id

    def counted(self, path: str) -> str | None:
        asked.append(path)
        return own(self, path)

    monkeypatch.setattr(Adr, "fallback_id", counted)
    return asked


def test_a_warm_open_after_one_change_settles_only_the_records_that_need_it(tmp_path, monkeypatch):
    root = tmp_path / "records"
    write_records(root)
    shared_number(root)  # one number claimed twice: its two records settle it
    first = Vault.open(root, flavour="adr")
    assert sum(1 for r in first.index.records if any(p.code == "status-missing" for p in r.problems)) == NO_STATUS
    assert sum(1 for r in first.index.records if any(p.code == "id-shared" for p in r.problems)) == 1
    first.store.close()
    with (root / "0007-choice-7.md").open("a", encoding="utf-8") as file:
        file.write("\nThe retry budget was raised after the outage.\n")
    asked = count_fallbacks(monkeypatch)
    vault = Vault.open(root, flavour="adr")
    # Before, every record was settled again where any id was claimed twice (43 asked), and each
    # with a problem of its own where none was (40): to change none of them.
    assert sorted(set(asked)) == ["0041-use-queues.md", "0041-use-topics.md"], asked
    assert reading(vault) == cold_reading(root, tmp_path, monkeypatch)


def test_ids_claimed_twice_are_settled_at_a_warm_open_as_at_a_cold_one(tmp_path, monkeypatch):
    root = tmp_path / "records"
    write_records(root)
    Vault.open(root, flavour="adr").store.close()
    shared_number(root)  # two records numbered 41: the second keeps its file name as its id
    vault = Vault.open(root, flavour="adr")
    assert any(p.code == "id-shared" for r in vault.index.records for p in r.problems)
    assert reading(vault) == cold_reading(root, tmp_path, monkeypatch)
    vault.store.close()
    (root / "0041-use-topics.md").unlink()  # the number is one record's again
    again = Vault.open(root, flavour="adr")
    assert not any(p.code == "id-shared" for r in again.index.records for p in r.problems)
    assert reading(again) == cold_reading(root, tmp_path, monkeypatch)


def same_size_same_second(root: Path) -> None:
    """A record's status rewritten in place: the same size, its times put back as they were."""
    path = root / "0041-use-queues.md"
    before = path.stat()
    text = path.read_text()
    path.write_text(text.replace("Accepted", "Rejected"))
    assert path.stat().st_size == before.st_size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def renamed_over(root: Path) -> None:
    """A new text written beside a record and renamed over it, as an editor saves."""
    (root / "0003-choice-3.md.new").write_text(record(3, "Choice three", "Accepted"))
    os.replace(root / "0003-choice-3.md.new", root / "0003-choice-3.md")


def removed(root: Path) -> None:
    (root / "0041-use-queues.md").unlink()  # the record the superseded one names


def added_in_a_new_folder(root: Path) -> None:
    folder = root / "later"
    folder.mkdir()
    (folder / "0043-use-logs.md").write_text(record(43, "Use logs"))


def shared_then(root: Path) -> None:
    shared_number(root)


@pytest.mark.parametrize(
    "change",
    [same_size_same_second, renamed_over, removed, added_in_a_new_folder, shared_then],
    ids=lambda f: f.__name__,
)
def test_a_warm_open_sees_each_change_plain_file_io_makes(tmp_path, monkeypatch, change):
    root = tmp_path / "records"
    write_records(root)
    Vault.open(root, flavour="adr").store.close()
    before = reading(Vault.open(root, flavour="adr"))
    change(root)
    after = reading(Vault.open(root, flavour="adr"))
    assert after != before
    assert after == cold_reading(root, tmp_path, monkeypatch)
