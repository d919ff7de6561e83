"""A batch of changed files is indexed by looking only at the ids those files claimed or claim
now, and the graph learns from the vault which ids those were; both must end exactly where a full
indexing and a fresh open of the same files end, duplicates and all."""

from __future__ import annotations

import itertools
import os
import random
import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from helpers import graph_shape
from vault_builders import doc_text

from workbench.core.records import record as records
from workbench.core import index as index_module
from workbench.core.views.graph import build_graph
from workbench.core.index import VaultIndex
from workbench.core.views.live_graph import LiveGraph
from workbench.core.records.ownership import IdOwnership
from workbench.core.records.record import IdLog
from workbench.core.vault import Vault

IDS = ["mem-note-a", "mem-note-b", "mem-entity-c", "mem-task-d"]
# Several paths for few ids: writing one id into another's file makes a duplicate, and a copy
# sorting before the first owner takes the id over.
PATHS = [
    "notes/mem-note-a.md",
    "notes/mem-note-b.md",
    "notes/aa-copy.md",
    "notes/zz-copy.md",
    "entities/mem-entity-c.md",
    "entities/copy.md",
    "tasks/mem-task-d.md",
]
KINDS = ["related_to", "depends_on", "explains", "supersedes"]

ADR_PATHS = [
    "0001-first.md",
    "ADR-001-again.md",
    "0002-second.md",
    "0003-third.md",
    "0003-clash.md",
    "notes/alpha.md",
    "notes/beta.md",
    "deep/down/alpha.md",
]


class Disk:
    """Writes files with a modification time of their own each time, so that no rewrite can hide
    behind an unchanged size and a clock that has not ticked."""

    def __init__(self, root):
        self.root = root
        self.clock = itertools.count(1_700_000_000_000_000_000, 1_000_000)

    def write(self, path: str, text: str) -> str:
        full = self.root / path
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_text(text)
        stamp = next(self.clock)
        os.utime(full, ns=(stamp, stamp))
        return path

    def delete(self, path: str) -> str:
        (self.root / path).unlink()
        return path

    def exists(self, path: str) -> bool:
        return (self.root / path).exists()


def memory_core_text(rng: random.Random) -> str:
    doc_id = rng.choice(IDS)
    if rng.random() < 0.15:
        return doc_text(doc_id).replace("type:", "type: [broken")  # unreadable: invalid for more than a duplicate
    targets = [t for t in IDS + ["mem-note-missing"] if t != doc_id and rng.random() < 0.4]
    links = ", ".join(f"{{type: {rng.choice(KINDS)}, target: {t}}}" for t in targets)
    newer = [t for t in IDS if t != doc_id and rng.random() < 0.15]
    status = "superseded" if newer else rng.choice(["active", "draft", "deprecated"])
    return doc_text(
        doc_id,
        status=status,
        links=f"[{links}]",
        superseded_by=str(newer).replace("'", ""),
        extra=f"note: {rng.random()}\n",
    )


def adr_text(rng: random.Random) -> str:
    if rng.random() < 0.1:
        return "<<<<<<< HEAD\n# Torn\n=======\n# Apart\n>>>>>>> other\n"  # unreadable
    status = rng.choice(["Accepted", "Proposed", f"Superseded by ADR-00{rng.randint(1, 4)}"])
    names = " ".join(f"[[{name}]]" for name in ("alpha", "beta", "gamma") if rng.random() < 0.5)
    return f"# Record {rng.random()}\n\n## Status\n\n{status}\n\n## Context\n\nSee {names} and ADR-00{rng.randint(1, 4)}.\n"


def change_at_random(disk: Disk, rng: random.Random, paths: list[str], text_of, kinds: tuple[str, ...]) -> str:
    """One change of a kind drawn from `kinds`, by plain file I/O: a sentence more (`body`: the
    same status and links), another text (`rewrite`: another status, other links, maybe
    unreadable), a file added, removed or renamed. The kind drawn (nothing changes where it
    cannot be made: no file to remove, say)."""
    present = [p for p in paths if disk.exists(p)]
    absent = [p for p in paths if not disk.exists(p)]
    kind = rng.choice(kinds)
    if kind == "body" and present:
        path = rng.choice(present)
        disk.write(path, (disk.root / path).read_text() + f"\nA sentence {rng.random()}.\n")
    elif kind == "rewrite" and present:
        disk.write(rng.choice(present), text_of(rng))
    elif kind == "add" and absent:
        disk.write(rng.choice(absent), text_of(rng))
    elif kind == "remove" and present:
        disk.delete(rng.choice(present))
    elif kind == "rename" and present and absent:
        old, new = rng.choice(present), rng.choice(absent)
        (disk.root / new).parent.mkdir(parents=True, exist_ok=True)
        (disk.root / old).rename(disk.root / new)
    return kind


def indexed(vault: Vault):
    """Everything indexing decides: each file's document (validity, resolved links) and problems,
    which file owns each id, every problem of the vault, and the graph."""
    files = {record.path: (record.document, record.problems) for record in vault.records}
    return files, vault.index.owners(), list(vault.problems), graph_shape(vault.graph())


_copies = itertools.count()


def reopened(root, into, flavour: str | None = None) -> Vault:
    """A fresh open of a copy of the folder, so that the vault under test keeps its own state."""
    copy = into / f"copy-{next(_copies)}"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".workbench"))
    return Vault.open(copy, flavour)


def churn(vault: Vault, disk: Disk, rng: random.Random, paths: list[str], text, batches: int, scratch, flavour=None):
    """Random batches of adds, rewrites (new ids, duplicates, fixes) and deletes; after each, the
    kept vault equals a fresh open. Returns the graphs handed out, with their shapes then."""
    handed: list = []
    for _ in range(batches):
        batch = []
        for path in rng.sample(paths, rng.randint(1, 4)):
            if disk.exists(path) and rng.random() < 0.3:
                batch.append(disk.delete(path))
            else:
                batch.append(disk.write(path, text(rng)))
        batch.append(rng.choice(paths))  # a path the batch may not have changed at all
        if rng.random() < 0.25:
            for path in batch:  # one file at a time, as a write through the vault re-reads them
                vault.index.refresh_path(path)
        else:
            vault.refresh_paths(sorted(batch))
        state = indexed(vault)
        handed.append((vault.graph(), state[3]))
        assert state == indexed(reopened(disk.root, scratch, flavour)), f"after {batch}"
    return handed


def check_full_indexing_agrees(vault: Vault, handed) -> None:
    kept = indexed(vault)
    vault.index.reindex()
    assert indexed(vault) == kept
    for graph, then in handed:
        assert graph_shape(graph) == then  # a graph handed out never changed under its reader


def churn_from_a_few_files(tmp_path_factory, seed: int, paths, text_of, first: int, flavour: str | None = None) -> None:
    """`first` random files, a vault opened on them, then ten random batches, each checked."""
    rng = random.Random(seed)
    root = tmp_path_factory.mktemp("vault")
    disk = Disk(root)
    for path in rng.sample(paths, first):
        disk.write(path, text_of(rng))
    vault = Vault.open(root, flavour)
    vault.graph()
    handed = churn(vault, disk, rng, paths, text_of, 10, tmp_path_factory.mktemp("fresh"), flavour)
    check_full_indexing_agrees(vault, handed)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 100_000))
def test_batches_indexed_by_their_ids_equal_a_fresh_open(tmp_path_factory, seed):
    churn_from_a_few_files(tmp_path_factory, seed, PATHS, memory_core_text, 4)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 100_000))
def test_batches_in_another_flavour_resolve_links_as_a_fresh_open_does(tmp_path_factory, seed):
    churn_from_a_few_files(tmp_path_factory, seed, ADR_PATHS, adr_text, 5, "adr")


def test_an_id_passes_down_the_files_claiming_it_in_path_order(tmp_path):
    disk = Disk(tmp_path / "vault")
    for path in ("notes/b.md", "notes/c.md", "notes/mem-note-a.md"):
        disk.write(path, doc_text("mem-note-a"))
    vault = Vault.open(disk.root)
    vault.graph()

    def duplicates():
        return {
            p: [m.message for m in r.problems if m.code == "id-duplicate"]
            for p, r in sorted((r.path, r) for r in vault.records)
        }

    assert vault.index.owners() == {"mem-note-a": "notes/b.md"}
    assert duplicates() == {
        "notes/b.md": [],
        "notes/c.md": ["id mem-note-a is also used by notes/b.md"],
        "notes/mem-note-a.md": ["id mem-note-a is also used by notes/b.md"],
    }
    vault.refresh_paths([disk.delete("notes/b.md")])
    assert vault.index.owners() == {"mem-note-a": "notes/c.md"}
    assert vault.index.document_at("notes/c.md").valid  # invalid only as a duplicate: valid again
    assert duplicates() == {"notes/c.md": [], "notes/mem-note-a.md": ["id mem-note-a is also used by notes/c.md"]}
    vault.refresh_paths([disk.write("notes/c.md", doc_text("mem-note-e"))])
    assert vault.index.owners() == {"mem-note-a": "notes/mem-note-a.md", "mem-note-e": "notes/c.md"}
    assert all(r.document.valid for r in vault.records)
    assert sorted(vault.graph().nodes) == ["mem-note-a", "mem-note-e"]
    vault.refresh_paths([disk.write("notes/a.md", doc_text("mem-note-e", status="bogus"))])
    assert vault.index.owners()["mem-note-e"] == "notes/a.md"  # invalid, yet first: it owns the id
    assert not vault.index.document_at("notes/c.md").valid
    assert vault.graph().nodes.get("mem-note-e") is None  # no valid document of it, and nothing links to it


def test_a_batch_neither_indexes_every_file_nor_scans_them_for_the_graph(tmp_path, monkeypatch):
    disk = Disk(tmp_path / "vault")
    disk.write("notes/mem-note-a.md", doc_text("mem-note-a"))
    disk.write("notes/mem-note-b.md", doc_text("mem-note-b", links="[{type: explains, target: mem-note-a}]"))
    vault = Vault.open(disk.root)
    first = vault.graph()

    def everything(*args):
        raise AssertionError("a batch looked at every record")

    monkeypatch.setattr(VaultIndex, "reindex", everything)
    monkeypatch.setattr(LiveGraph, "_scan", everything)
    vault.refresh_paths(
        [
            disk.write("notes/mem-note-b.md", doc_text("mem-note-b", links="[{type: depends_on, target: mem-note-c}]")),
            disk.delete("notes/mem-note-a.md"),
        ]
    )
    vault.index.refresh_path(disk.write("notes/mem-note-c.md", doc_text("mem-note-c")))
    graph = vault.graph()
    monkeypatch.undo()
    assert graph_shape(graph) == graph_shape(build_graph(reopened(disk.root, tmp_path).all_documents))
    assert sorted(first.edges(keys=True)) == [("mem-note-b", "mem-note-a", "explains")]
    assert sorted(graph.edges(keys=True)) == [("mem-note-b", "mem-note-c", "depends_on")]


def test_the_graph_scans_every_record_when_the_log_no_longer_reaches_back(tmp_path, monkeypatch):
    disk = Disk(tmp_path / "vault")
    for doc_id in IDS:
        disk.write(f"notes/{doc_id}.md", doc_text(doc_id))
    vault = Vault.open(disk.root)
    vault.graph()
    scans = []
    scan = LiveGraph._scan
    monkeypatch.setattr(LiveGraph, "_scan", lambda graph, every: scans.append(vault.generation) or scan(graph, every))
    rng = random.Random(3)
    for _ in range(records.LOG_GENERATIONS + 1):
        vault.refresh_paths([disk.write(f"notes/{rng.choice(IDS)}.md", memory_core_text(rng))])
    assert graph_shape(vault.graph()) == graph_shape(build_graph(reopened(disk.root, tmp_path).all_documents))
    assert scans == [vault.generation]
    vault.refresh_paths([disk.write("notes/mem-note-a.md", doc_text("mem-note-a", status="draft"))])
    vault.graph()
    assert scans == [vault.generation - 1]  # back in step: the log is enough again
    disk.write("notes/mem-note-b.md", doc_text("mem-note-b", status="draft"))
    vault.refresh()  # a walk: what changed is not logged
    assert graph_shape(vault.graph()) == graph_shape(build_graph(reopened(disk.root, tmp_path).all_documents))
    assert scans == [vault.generation - 2, vault.generation]


def test_the_log_says_what_changed_since_a_generation_or_that_it_cannot(monkeypatch):
    monkeypatch.setattr(records, "LOG_GENERATIONS", 3)
    monkeypatch.setattr(records, "LOG_IDS", 4)
    log = IdLog()
    assert log.since(0) is None  # nothing known yet
    log.restart(5)
    assert log.since(4) is None and log.since(5) == set()
    log.add(6, {"a"})
    log.add(7, {"b", "c"})
    assert log.since(5) == {"a", "b", "c"} and log.since(6) == {"b", "c"} and log.since(7) == set()
    log.add(8, {"d"})
    log.add(9, {"e"})  # four generations: the oldest is forgotten
    assert log.since(5) is None and log.since(6) == {"b", "c", "d", "e"}
    log.add(10, {"f", "g", "h"})  # too many ids: forgotten until they fit
    assert log.since(7) is None and log.since(8) == {"e", "f", "g", "h"}
    log.add(11, {"i", "j", "k", "l", "m"})  # more than the log holds at all
    assert log.since(10) is None and log.since(11) == set()


@pytest.mark.parametrize("flavour", [None, "adr"])
def test_a_full_indexing_after_batches_changes_nothing(tmp_path, flavour):
    rng = random.Random(11)
    disk = Disk(tmp_path / "vault")
    paths, text = (PATHS, memory_core_text) if flavour is None else (ADR_PATHS, adr_text)
    for path in paths:
        disk.write(path, text(rng))
    vault = Vault.open(disk.root, flavour)
    vault.graph()
    for _ in range(30):
        batch = [
            disk.delete(p) if disk.exists(p) and rng.random() < 0.3 else disk.write(p, text(rng))
            for p in rng.sample(paths, 3)
        ]
        vault.refresh_paths(batch)
    check_full_indexing_agrees(vault, [])


def test_a_file_that_fails_to_read_leaves_the_files_before_it_indexed(tmp_path, monkeypatch):
    disk = Disk(tmp_path / "vault")
    disk.write("notes/mem-note-a.md", doc_text("mem-note-a"))
    vault = Vault.open(disk.root)
    vault.graph()
    read = index_module.read_record
    monkeypatch.setattr(
        index_module,
        "read_record",
        lambda root, path, *rest: read(root, path, *rest) if path != "notes/mem-note-z.md" else 1 / 0,
    )
    batch = [
        disk.write("notes/mem-note-b.md", doc_text("mem-note-a")),
        disk.write("notes/mem-note-z.md", doc_text("mem-note-z")),
    ]
    with pytest.raises(ZeroDivisionError):
        vault.refresh_paths(batch)
    assert (
        vault.index.owners() == {"mem-note-a": "notes/mem-note-a.md"}
        and not vault.index.document_at("notes/mem-note-b.md").valid
    )
    monkeypatch.undo()
    vault.refresh_paths([disk.delete("notes/mem-note-a.md"), "notes/mem-note-z.md"])
    assert indexed(vault) == indexed(reopened(disk.root, tmp_path))


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 100_000))
def test_a_warm_open_after_any_change_settles_ids_as_a_cold_open(tmp_path_factory, seed):
    """An open with the derived store in place takes each file's settled id, problems and links as
    kept, and settles again only the files that may change: after a body edit, a new id, a link
    added or removed, a file added, removed or renamed, it must end where an open of a copy with no
    store (every file parsed and settled afresh) ends."""
    rng = random.Random(seed)
    disk = Disk(tmp_path_factory.mktemp("vault"))
    scratch = tmp_path_factory.mktemp("fresh")
    for path in rng.sample(ADR_PATHS, 5):
        disk.write(path, adr_text(rng))
    Vault.open(disk.root, "adr").graph()
    for _ in range(6):
        kind = change_at_random(disk, rng, ADR_PATHS, adr_text, ("body", "rewrite", "add", "remove", "rename"))
        warm = Vault.open(disk.root, "adr")
        assert indexed(warm) == indexed(reopened(disk.root, scratch, "adr")), kind


def test_a_warm_open_after_a_body_edit_settles_only_the_files_that_may_change(tmp_path, monkeypatch):
    disk = Disk(tmp_path / "vault")
    for number in range(1, 41):
        disk.write(f"{number:04d}-record.md", f"# Record {number}\n\n## Status\n\nAccepted\n\nSee ADR-0001.\n")
    Vault.open(disk.root, "adr")
    disk.write("0003-record.md", "# Record 3\n\n## Status\n\nAccepted\n\nSee ADR-0001. And one sentence more.\n")
    settled: list[str] = []
    real = IdOwnership._settle

    def counted(self, record, *args):
        settled.append(record.path)
        return real(self, record, *args)

    monkeypatch.setattr(IdOwnership, "_settle", counted)
    Vault.open(disk.root, "adr")
    assert settled == []  # each file owns its number and is valid: none to settle (40 before)


@pytest.mark.parametrize("change", ["remove", "rename"])
def test_a_warm_open_gives_a_number_back_to_the_file_that_held_its_fallback(tmp_path, change):
    disk = Disk(tmp_path / "vault")
    disk.write("0001-first.md", "# First\n\n## Status\n\nAccepted\n")
    disk.write("0003-clash.md", "# Clash\n\n## Status\n\nProposed\n\nSee ADR-0001.\n")
    disk.write("0003-third.md", "# Third\n\n## Status\n\nAccepted\n\nSee ADR-0003.\n")  # its fallback id
    before = Vault.open(disk.root, "adr")
    assert any(p.code == "id-shared" for p in before.problems)
    if change == "remove":
        disk.delete("0003-clash.md")
    else:
        (disk.root / "0003-clash.md").rename(disk.root / "0004-clash.md")
    warm = Vault.open(disk.root, "adr")
    assert not any(p.code == "id-shared" for p in warm.problems)
    assert indexed(warm) == indexed(reopened(disk.root, tmp_path / "fresh", "adr"))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 100_000), st.sampled_from(["adr", "memory"]))
def test_a_walk_in_a_vault_kept_open_settles_ids_as_a_cold_open(tmp_path_factory, seed, kind):
    """A walk of a vault kept open (`refresh`) keeps the records of unchanged files as the last
    settling left them (a fallback id, a duplicate's problem) and settles again only the files
    that may change: when the file that took a number or an id goes away or changes, the one
    that gave way must take it back, as an open of a copy with no store gives it."""
    rng = random.Random(seed)
    paths, text_of, flavour = (ADR_PATHS, adr_text, "adr") if kind == "adr" else (PATHS, memory_core_text, None)
    disk = Disk(tmp_path_factory.mktemp("vault"))
    scratch = tmp_path_factory.mktemp("fresh")
    for path in rng.sample(paths, 5):
        disk.write(path, text_of(rng))
    vault = Vault.open(disk.root, flavour)
    vault.graph()
    for _ in range(6):
        change = change_at_random(disk, rng, paths, text_of, ("rewrite", "add", "remove", "rename"))
        vault.refresh()
        assert indexed(vault) == indexed(reopened(disk.root, scratch, flavour)), change
        # Why the walk may skip a file with no problem: settling never leaves one invalid, or on
        # an id other than the one it claims, without a problem saying so.
        ownership = vault.index._ownership
        for record in vault.records:
            doc = record.document
            assert record.problems or (doc.valid is True and doc.id == ownership.claim(record)), record.path


@pytest.mark.parametrize("change", ["remove", "rename"])
def test_a_walk_in_a_vault_kept_open_gives_a_number_back(tmp_path, change):
    """The file that held its fallback id while another took its number takes the number back
    at the next walk, though the file itself did not change."""
    disk = Disk(tmp_path / "vault")
    disk.write("0001-first.md", "# First\n\n## Status\n\nAccepted\n")
    disk.write("0003-clash.md", "# Clash\n\n## Status\n\nProposed\n")
    disk.write("0003-third.md", "# Third\n\n## Status\n\nAccepted\n\nSee ADR-0001.\n")
    vault = Vault.open(disk.root, "adr")
    assert vault.index.owners()["ADR-003"] == "0003-clash.md"
    if change == "remove":
        disk.delete("0003-clash.md")
    else:
        (disk.root / "0003-clash.md").rename(disk.root / "0009-clash.md")
    vault.refresh()
    assert vault.index.owners().get("ADR-003") == "0003-third.md"
    assert not any(p.code == "id-shared" for p in vault.problems)
