"""A file written between the stat walk that asks for a kept answer and the open that reads the
vault: the open takes the walk's listing (`Fingerprint.listing`), so what it reads is the vault as
walked, and whatever it keeps must never stand for bytes it did not read. Each kind of write (a
file changed, removed, added) is made at that very moment, a real write from inside the walk's
end, and every later call must answer as a fresh open of a copy of the vault as it is then.
Two guards stand behind the open: the next call's walk sees the write (another fingerprint), and
a write this close to the walk leaves an answer kept only where the file is a document whose bytes
the answer read, compared again before it is given (`kept_answers.keep`)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.core.services.kept_answers import Fingerprint

DECISION = "decisions"


def answer(root: Path, command: str, capsys) -> object:
    assert main(["--vault", str(root), command, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def fresh(root: Path, tmp_path: Path, command: str, capsys, monkeypatch) -> object:
    """The answer of a copy of `root` as it is now, opened with no store of its own."""
    copy = tmp_path / f"fresh-{len(list(tmp_path.iterdir()))}"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".workbench"))
    with monkeypatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(copy) + "-cache")
        return answer(copy, command, capsys)


def a_decision(root: Path) -> Path:
    return sorted((root / DECISION).glob("*.md"))[0]


def changed(root: Path) -> None:
    path = a_decision(root)
    path.write_text(path.read_text("utf-8") + "\nThe retry budget was raised after the outage review.\n", "utf-8")


def removed(root: Path) -> None:
    a_decision(root).unlink()


def added(root: Path) -> None:
    source = a_decision(root)
    text = source.read_text("utf-8")
    (root / DECISION / "zz-added-after-the-walk.md").write_text(
        text.replace("id: ", "id: added-after-the-walk-", 1), "utf-8"
    )


@pytest.mark.parametrize("write", [changed, removed, added], ids=lambda w: w.__name__)
@pytest.mark.parametrize("command", ["conflicts", "review"])
def test_a_write_between_the_walk_and_the_open_is_never_answered_for(
    write: Callable[[Path], None], command: str, sample_copy: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    answer(sample_copy, command, capsys)  # the store built and an answer kept for the vault as it is
    changed(sample_copy)  # a change first: the next call misses, walks, and opens
    walk = Fingerprint._walk

    def walked_then_written(self: Fingerprint) -> list[str]:
        lines = walk(self)
        write(sample_copy)  # after the walk, before the open reads anything
        return lines

    with monkeypatch.context() as patch:
        patch.setattr(Fingerprint, "_walk", walked_then_written)
        answer(sample_copy, command, capsys)
    # The write is seen by every later call, whatever the call in between kept.
    for _ in range(2):
        assert answer(sample_copy, command, capsys) == fresh(sample_copy, tmp_path, command, capsys, monkeypatch)
