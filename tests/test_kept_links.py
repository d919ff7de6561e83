"""A warm open takes each document's links as the derived store keeps them resolved, and resolves
none again while the set of ids they were resolved among is the same. Whatever changes that set (a
file added, removed or renamed, an id moved) or a file itself (retitled, its links rewritten), the
links of the warm open that follows are exactly those of a cold open of the same files: on the
sample vault read as plain Markdown (its `[[name]]` links found by name) and on real collections
copied, each read with its own flavour."""

from __future__ import annotations

import os
import shutil
from collections import Counter
from pathlib import Path

import pytest
from helpers import SAMPLE
from test_corpora import corpus

from workbench import Vault
from workbench.core.flavours import base
from workbench.core.records import loading
from workbench.core.records.store_rows import StoredDocument


def links_of(vault: Vault) -> dict[str, tuple]:
    """{path: (id, valid, links, supersedes, superseded_by)} of every record."""
    return {
        r.path: (r.document.id, r.document.valid, r.document.links, r.document.supersedes, r.document.superseded_by)
        for r in vault.index.records
    }


class Resolutions:
    """How many views `Flavour.resolve` was asked to resolve (the real method runs)."""

    def __init__(self, monkeypatch):
        self.count = 0
        real = base.Flavour.resolve

        def counted(flavour, view, ids):
            self.count += 1
            return real(flavour, view, ids)

        monkeypatch.setattr(base.Flavour, "resolve", counted)


class Opener:
    """Warm opens of one vault folder, each beside a cold open of a fresh copy of its files."""

    def __init__(self, root: Path, flavour: str, scratch: Path):
        self.root, self.flavour, self.scratch, self.copies = root, flavour, scratch, 0

    def warm(self) -> dict[str, tuple]:
        vault = Vault.open(self.root, self.flavour)
        try:
            return links_of(vault)
        finally:
            vault.index.store.close()

    def cold(self) -> dict[str, tuple]:
        self.copies += 1
        copy = self.scratch / f"cold-{self.copies}" / self.root.name
        shutil.copytree(self.root, copy, ignore=shutil.ignore_patterns(".workbench"))
        vault = Vault.open(copy, self.flavour)  # another folder: a store of its own, built now
        try:
            return links_of(vault)
        finally:
            vault.index.store.close()


def linked_to(links: dict[str, tuple]) -> list[str]:
    """The paths of the documents other documents link to, most linked first (then by path)."""
    owner = {entry[0]: path for path, entry in links.items()}
    counts = Counter(
        owner[target]
        for path, (_, _, found, supersedes, superseded_by) in links.items()
        for target in [link.target for link in found] + list(supersedes) + list(superseded_by)
        if target in owner and owner[target] != path
    )
    return [path for path, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]


def retitle(root: Path, path: str) -> None:
    """A new title: the first `title:` line or first heading of the file gets words added."""
    file = root / path
    lines = file.read_text("utf-8").split("\n")
    at = next(
        (n for n, line in enumerate(lines) if line.startswith("title:") or line.startswith("# ")),
        None,
    )
    if at is None:
        lines.insert(0, "# A title of its own")
    else:
        lines[at] += " and more"
    file.write_text("\n".join(lines), "utf-8")


def changes(root: Path, links: dict[str, tuple]):
    """Changes to the files that move the ids links resolve among, each made before the next
    warm open: the documents most linked to retitled, moved to a folder of their own, given a
    namesake nearer the root, and removed. Yields a name for each, once it is made."""
    targets = linked_to(links)
    assert len(targets) >= 4, "too few documents are linked to for these changes"
    retitle(root, targets[0])
    yield f"retitled {targets[0]}"
    moved = Path("moved-away") / targets[1]
    (root / moved).parent.mkdir(parents=True, exist_ok=True)
    os.replace(root / targets[1], root / moved)
    yield f"renamed {targets[1]} to {moved}"
    source = root / targets[2]
    namesake = Path(targets[2]).name if "/" in targets[2] else f"again/{targets[2]}"
    if not (root / namesake).exists():
        (root / namesake).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, root / namesake)
    yield f"added {namesake}, named as {targets[2]}"
    (root / targets[3]).unlink()
    yield f"removed {targets[3]}"
    shutil.copyfile(root / moved, root / targets[1])  # the renamed file back where it was, twice now
    yield f"copied {moved} back to {targets[1]}"


def warm_equals_cold_after_each_change(root: Path, flavour: str, scratch: Path) -> None:
    opener = Opener(root, flavour, scratch)
    first = opener.warm()  # the first open builds the store, and keeps the resolved links
    assert first == opener.cold()
    assert opener.warm() == first
    moved = False
    before = first
    for change in changes(root, first):
        warm = opener.warm()
        cold = opener.cold()
        differing = sorted(path for path in set(warm) | set(cold) if warm.get(path) != cold.get(path))
        assert not differing, f"after the change ({change}), a warm open differs from a cold one at {differing[:5]}"
        moved = moved or any(
            before[path][2:] != entry[2:] for path, entry in warm.items() if path in before
        )  # a link elsewhere now resolves to another target
        before = warm
        assert opener.warm() == warm  # and the next warm open, with the links kept again, too
    assert moved, "no change moved any link's target: the test would not see a stale one"


@pytest.fixture
def sample_markdown(tmp_path) -> Path:
    """The sample vault as someone else's folder of Markdown notes: `[[name]]` links found by name."""
    target = tmp_path / "notes"
    shutil.copytree(SAMPLE, target, ignore=shutil.ignore_patterns(".workbench"))
    return target


def test_a_warm_open_resolves_no_link_again(sample_markdown, monkeypatch):
    Vault.open(sample_markdown, "markdown").index.store.close()
    resolutions = Resolutions(monkeypatch)
    vault = Vault.open(sample_markdown, "markdown")
    assert all(type(r.document) is StoredDocument for r in vault.index.records)  # a warm open indeed
    assert resolutions.count == 0
    assert any(doc.links for doc in vault.documents)


def test_after_one_file_changes_only_that_file_is_resolved_again(sample_markdown, monkeypatch):
    Vault.open(sample_markdown, "markdown").index.store.close()
    note = sorted(sample_markdown.rglob("*.md"))[3]
    note.write_text(note.read_text("utf-8") + "\nSee also [[mem-concept-usage-based-billing]].\n", "utf-8")
    resolutions = Resolutions(monkeypatch)
    vault = Vault.open(sample_markdown, "markdown")
    assert resolutions.count == 1
    path = note.relative_to(sample_markdown).as_posix()
    assert "concepts/mem-concept-usage-based-billing" in [link.target for link in vault.index.document_at(path).links]


def test_a_first_open_that_builds_its_index_behind_the_rows_keeps_the_links_too(sample_markdown, monkeypatch):
    monkeypatch.setattr(loading, "STORE_BATCH_MIN", 10)  # the sample's 40-odd files: built behind the rows
    first = Vault.open(sample_markdown, "markdown")
    expected = links_of(first)
    first.index.store.close()  # waits for the index, and the links kept after it
    resolutions = Resolutions(monkeypatch)
    assert links_of(Vault.open(sample_markdown, "markdown")) == expected
    assert resolutions.count == 0


def test_links_of_the_sample_after_renames_adds_and_removals_are_those_of_a_cold_open(sample_markdown, tmp_path):
    warm_equals_cold_after_each_change(sample_markdown, "markdown", tmp_path / "cold")


@pytest.mark.slow
@pytest.mark.parametrize("name, flavour", [("adr-ai-agents", "adr"), ("dendron-site", "dendron")])
def test_links_of_a_real_collection_after_changes_are_those_of_a_cold_open(name, flavour, tmp_path_factory):
    root = corpus(name, tmp_path_factory)
    warm_equals_cold_after_each_change(root, flavour, tmp_path_factory.mktemp("cold"))
