"""The queue's structural faults kept between calls (`kept_structural`): read back while the facts
they are worked out from stand (a body edited), worked out again when any moves (a status, a
supersession, a link, a document added, removed, renamed or given another id), and the queue
printed after each change byte for byte as a vault read from nothing prints it."""

from __future__ import annotations

import marshal
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from test_queue_structural import write, write_faults
from workbench import Vault
from workbench.cli import main
from workbench.core.records.store_rows import read_fields, read_relations, relations_of
from workbench.core.services import conflicts, kept_conflicts, kept_structural
from workbench.core.services.conflicts import KeptConflict


@pytest.fixture()
def faulty(tmp_path) -> Path:
    """A vault with each kind of structural fault (`test_queue_structural`'s), its queue kept."""
    root = tmp_path / "faulty"
    write_faults(root)
    write(root, "linker", links=[{"type": "related_to", "target": "names-only-old"}])
    write(root, "far-linker", links=[{"type": "depends_on", "target": "not-yet"}])
    write(root, "draft-linker", "draft", links=[{"type": "related_to", "target": "chain-a"}])
    for n in range(3):
        write(root, f"quiet-{n}")
    return root


def path_of(root: Path, name: str) -> Path:
    return root / "decisions" / f"mem-decision-{name}.md"


def printed(root: Path, capsys) -> str:
    assert main(["--vault", str(root), "conflicts", "--json"]) == 0
    return capsys.readouterr().out


def from_nothing(root: Path, capsys) -> str:
    """The queue of a copy of the vault without its derived store: worked out from the files."""
    copy = root.parent / f"{root.name}-from-nothing"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".workbench"))
    try:
        return printed(copy, capsys)
    finally:
        shutil.rmtree(copy)


def edit(root: Path, name: str, old: str, new: str) -> None:
    path = path_of(root, name)
    text = path.read_text("utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), "utf-8")


def body_edited(root: Path) -> None:
    with path_of(root, "chain-b").open("a", encoding="utf-8") as file:
        file.write("\nThe cache is warmed again after every deploy.\n")


def status_changed(root: Path) -> None:
    edit(root, "names-only-new", "status: active", "status: superseded")


def supersession_added(root: Path) -> None:
    edit(root, "names-only-new", "supersedes: []", 'supersedes: ["mem-decision-names-only-old"]')


def link_target_appears(root: Path) -> None:
    write(root, "not-yet", "superseded", superseded_by=["quiet-0"])


def link_target_goes(root: Path) -> None:
    path_of(root, "names-only-old").unlink()


def renamed(root: Path) -> None:
    path_of(root, "chain-a").rename(root / "decisions" / "zz-chain-a.md")


def id_changed(root: Path) -> None:
    edit(root, "one-sided-old", "id: mem-decision-one-sided-old", "id: mem-decision-one-sided-older")


def added(root: Path) -> None:
    write(root, "quiet-new", supersedes=["quiet-1"])


def link_added(root: Path) -> None:
    edit(root, "quiet-2", "links: []", 'links: [{"type": "related_to", "target": "mem-decision-chain"}]')


def link_retargeted(root: Path) -> None:
    edit(root, "linker", '"target": "mem-decision-names-only-old"', '"target": "mem-decision-chain"')


CHANGES = [
    body_edited,
    status_changed,
    supersession_added,
    link_target_appears,
    link_target_goes,
    renamed,
    id_changed,
    added,
    link_added,
    link_retargeted,
]


@pytest.mark.parametrize("change", CHANGES, ids=[c.__name__ for c in CHANGES])
def test_the_queue_after_a_change_as_from_nothing(faulty, capsys, change: Callable[[Path], None]):
    printed(faulty, capsys)  # the faults kept
    before = kept_key(faulty)
    change(faulty)
    after = printed(faulty, capsys)
    assert after == from_nothing(faulty, capsys)
    assert printed(faulty, capsys) == after  # and as kept after it
    # Read back where no fact they read moved (no fault names a path), else worked out again.
    assert (kept_key(faulty) == before) == (change in (body_edited, renamed))


def kept_key(root: Path) -> str:
    """The key the structural faults were kept under last (a digest of their facts)."""
    store = Vault.open(root).store
    found = store.db.execute("SELECT key FROM kept WHERE name = ?", (kept_conflicts.STRUCTURAL,)).fetchone()[0]
    store.close()
    return found


def facts_of(root: Path, native: bool = True) -> bytes:
    vault = Vault.open(root)
    documents = vault.documents
    read_fields(documents, vault.store.fields)
    read_relations(documents)
    related = {d.id: relations_of(d) for d in documents}
    statuses = {d.id: str(d.status) for d in documents}
    facts = conflicts.structural_facts(statuses, related, native)
    vault.store.close()
    return facts


def test_the_facts_stand_while_a_body_or_a_path_changes_and_move_with_anything_the_faults_read(faulty):
    before = facts_of(faulty)
    assert facts_of(faulty, native=False) != before
    body_edited(faulty)
    renamed(faulty)  # the same id: no fault names a path
    assert facts_of(faulty) == before
    seen = {before}
    for change in [c for c in CHANGES if c not in (body_edited, renamed)]:
        change(faulty)
        now = facts_of(faulty)
        assert now not in seen, change.__name__
        seen.add(now)


class Store:
    """The derived store's one value kept as `STRUCTURAL`, as `kept_conflicts` hands it over."""

    def __init__(self, root: Path):
        self.store = Vault.open(root).store

    def kept(self, key: str):
        return self.store.kept(kept_conflicts.STRUCTURAL, key)

    def keep(self, key: str, value: bytes) -> None:
        self.store.keep(kept_conflicts.STRUCTURAL, key, value)


def structural(root: Path) -> tuple[dict, dict, dict]:
    vault = Vault.open(root)
    documents = vault.documents
    docs = {d.id: d for d in documents}
    related = {d.id: relations_of(d) for d in documents}
    return docs, related, {doc_id: relations[0] for doc_id, relations in related.items()}


def test_faults_read_back_for_the_same_facts_worked_out_again_where_damaged(faulty):
    docs, related, supersedes = structural(faulty)
    store = Store(faulty)
    worked: list[int] = []

    def faults_of(facts: bytes, work):
        def counted():
            worked.append(1)
            return work()

        return kept_structural.faults(store.kept, store.keep, kept_conflicts.unranked, "code", facts, counted)

    plain = conflicts._structural(docs, frozenset(), supersedes, related)
    first = conflicts._structural(docs, frozenset(), supersedes, related, faults_of=faults_of)
    again = conflicts._structural(docs, frozenset(), supersedes, related, faults_of=faults_of)
    assert len(worked) == 1
    assert any(type(c) is KeptConflict for c in again)
    assert [c.to_json() for c in first] == [c.to_json() for c in again] == [c.to_json() for c in plain]
    assert kept_conflicts.encode(again) == kept_conflicts.encode(plain)

    # A value damaged in the store (a text changed, or bytes that are no record): worked out again.
    key = next(iter(store.store.db.execute("SELECT key FROM kept WHERE name = ?", (kept_conflicts.STRUCTURAL,))))[0]
    value = store.kept(key)
    assert b"supersedes" in value
    fmt, kept_key_, check, kinds, ids, texts = marshal.loads(value)
    kinds_moved = marshal.dumps((fmt, kept_key_, check, moved_kinds(kinds), ids, texts))
    ids_moved = marshal.dumps((fmt, kept_key_, check, kinds, [[*named, "mem-x"] for named in ids], texts))
    for damaged in (
        value.replace(b"supersedes", b"supersedEs", 1),
        kinds_moved,
        ids_moved,
        value[: len(value) // 2],
        b"not a record",
    ):
        store.keep(key, damaged)
        found = conflicts._structural(docs, frozenset(), supersedes, related, faults_of=faults_of)
        assert [c.to_json() for c in found] == [c.to_json() for c in plain]
    assert len(worked) == 6
    # Another code's digest reads nothing kept.
    kept_structural.faults(store.kept, store.keep, kept_conflicts.unranked, "other", b"facts", lambda: [])
    assert kept_structural.faults(store.kept, store.keep, kept_conflicts.unranked, "code", b"facts", list) == []


def moved_kinds(kinds: list[str]) -> list[str]:
    """Every fault's kind another (the queue's order follows the kinds)."""
    return ["supersession-cycle" if kind != "supersession-cycle" else "stale-link" for kind in kinds]


def test_a_full_queue_works_the_faults_out_again(faulty, capsys):
    printed(faulty, capsys)
    store = Vault.open(faulty).store
    key, value = next(
        iter(store.db.execute("SELECT key, value FROM kept WHERE name = ?", (kept_conflicts.STRUCTURAL,)))
    )
    fmt, kept_key_, _, kinds, ids, texts = marshal.loads(value)
    kinds, ids, texts = kinds[1:], ids[1:], texts[1:]
    # A value that holds together (its check made for it) but is wrong, a fault left out: what only
    # `--full` does not read.
    wrong = marshal.dumps((fmt, kept_key_, kept_structural._check(kinds, ids, texts), kinds, ids, texts))
    store.keep(kept_conflicts.STRUCTURAL, key, wrong)
    store.db.execute("DELETE FROM kept WHERE name != ?", (kept_conflicts.STRUCTURAL,))  # the queue worked out
    store.close()
    right = from_nothing(faulty, capsys)
    assert main(["--vault", str(faulty), "conflicts", "--json"]) == 0
    assert capsys.readouterr().out != right  # the plain call reads the faults kept
    assert main(["--vault", str(faulty), "conflicts", "--json", "--full"]) == 0
    assert capsys.readouterr().out == right


def test_two_processes_give_the_faults_the_same_key(faulty, tmp_path):
    """The facts' text is the same in every process (marshal's was not: it writes a string once
    for each object, so two processes kept the same faults under two keys and read none back)."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    keys = []
    for _ in range(2):
        run = [sys.executable, "-m", "workbench.cli", "--vault", str(faulty), "conflicts", "--json"]
        subprocess.run(run, check=True, capture_output=True, env=env)
        keys.append(kept_key(faulty))
    body_edited(faulty)
    subprocess.run(run, check=True, capture_output=True, env=env)
    assert kept_key(faulty) == keys[0] == keys[1]


def test_the_facts_text_holds_no_trace_of_which_strings_are_one_object():
    shared = "active"
    made = "".join(["act", "ive"])  # equal, another object
    related = {"a": ((), (), ()), "b": ((), ("c",), (("related_to", "c"),))}
    one = conflicts.structural_facts({"a": shared, "b": shared}, related, True)
    two = conflicts.structural_facts({"a": made, "b": shared}, related, True)
    assert one == two
    assert conflicts.structural_facts({"a": shared, "b": "draft"}, related, True) != one


def test_an_id_holding_a_line_break_is_not_read_as_two():
    empty = ((), (), ())
    two = conflicts.structural_facts({"a": "active", "b": "active"}, {"a": empty, "b": empty}, True)
    one = conflicts.structural_facts({"a\nb": "active"}, {"a\nb": empty}, True)
    odd = conflicts.structural_facts({"a": "active\nactive"}, {"a": empty}, True)
    assert len({two, one, odd}) == 3
    assert conflicts.structural_facts({}, {}, True) != conflicts.structural_facts({}, {}, False)
