"""The main screen's seams, through their public names: the memory of its own writes (`OwnWrites`),
the guided flows' and the other helpers' contracts with the screen (`host.py`), and the rule that
the helpers reach the screen only through those contracts."""

from __future__ import annotations

import ast
import inspect
import typing
from pathlib import Path

import pytest

from workbench.core.storage.changes import FileChange
from workbench.tui.screens import conflicts_search, disk_news, flows, host, proposing, queue_flow
from workbench.tui.screens.main import MainScreen
from workbench.tui.screens.own_writes import OwnWrites

SCREENS = Path(flows.__file__).parent


def change(path: str, before: bytes | None, after: bytes | None) -> FileChange:
    return FileChange(path=path, before=before, after=after)


# -- OwnWrites: what the screen wrote itself is not news -------------------------------------------


def test_a_file_holding_what_we_wrote_is_ours_and_any_other_content_is_news():
    own = OwnWrites()
    own.wrote([change("a.md", b"old", b"new text\n")])
    assert own.is_ours("a.md", "new text\n")
    assert not own.is_ours("a.md", "new text, then someone else's line\n")
    assert not own.is_ours("b.md", "new text\n")  # never written here


def test_only_our_last_write_counts():
    own = OwnWrites()
    own.wrote([change("a.md", b"0", b"first")])
    own.wrote([change("a.md", b"first", b"second")])
    assert own.is_ours("a.md", "second")
    assert not own.is_ours("a.md", "first")  # someone put the older text back: that is news


def test_a_file_we_removed_is_ours_until_the_watcher_reports_it():
    own = OwnWrites()
    own.wrote([change("gone.md", b"text", None), change("kept.md", b"a", b"b")])
    assert own.removed_by_us("gone.md") and not own.removed_by_us("kept.md")
    own.seen(["other.md"])
    assert own.removed_by_us("gone.md")  # not among what the watcher reported yet
    own.seen(["gone.md"])
    assert not own.removed_by_us("gone.md")  # reported: a later deletion is someone else's


def test_a_file_we_removed_and_then_wrote_again_is_no_longer_removed():
    own = OwnWrites()
    own.wrote([change("x.md", b"text", None)])
    own.wrote([change("x.md", None, b"text")])  # redo of the creation undone
    assert not own.removed_by_us("x.md") and own.is_ours("x.md", "text")
    own.wrote([change("x.md", b"text", None)])
    assert own.removed_by_us("x.md") and not own.is_ours("x.md", "text")


# -- the contracts: the screen provides them, the helpers use nothing else ---------------------------


def protocol_names(protocol: type) -> set[str]:
    """The names a Protocol declares (its own and those of the Protocols it extends)."""
    names: set[str] = set()
    for cls in protocol.__mro__:
        if cls in (typing.Protocol, typing.Generic, object):
            continue
        names |= set(getattr(cls, "__annotations__", {}))
        names |= {name for name in vars(cls) if not name.startswith("_")}
    return names


@pytest.mark.parametrize("protocol", [host.FlowHost, host.WriteHost, host.ConflictsHost, host.DiskHost])
def test_the_main_screen_provides_every_name_of_each_contract(tmp_path: Path, protocol: type):
    screen = MainScreen(tmp_path)
    missing = []
    for name in sorted(protocol_names(protocol)):
        try:
            inspect.getattr_static(screen, name)  # a property is not run: the screen is not mounted
        except AttributeError:
            missing.append(name)
    assert not missing, f"MainScreen lacks {missing} of {protocol.__name__}"


def host_names_used(module) -> set[str]:
    """Every attribute a module asks of `self.host` (and of `host` itself)."""
    used = set()
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        if isinstance(node, ast.Attribute):
            owner = node.value
            if (isinstance(owner, ast.Attribute) and owner.attr == "host") or (
                isinstance(owner, ast.Name) and owner.id == "host"
            ):
                used.add(node.attr)
    return used


@pytest.mark.parametrize(
    ("module", "protocol"),
    [
        (flows, host.FlowHost),
        (queue_flow, host.FlowHost),
        (proposing, host.WriteHost),
        (conflicts_search, host.ConflictsHost),
        (disk_news, host.DiskHost),
    ],
)
def test_each_helper_asks_the_screen_only_what_its_contract_names(module, protocol):
    used = host_names_used(module)
    assert used, f"{module.__name__} never uses its host: the check reads nothing"
    private = sorted(name for name in used if name.startswith("_"))
    assert not private, f"{module.__name__} reaches into the screen's private names {private}"
    beyond = sorted(used - protocol_names(protocol))
    assert not beyond, f"{module.__name__} asks the screen for {beyond}, which {protocol.__name__} does not name"


def test_no_module_of_the_screens_is_over_600_lines():
    for source in SCREENS.glob("*.py"):
        assert len(source.read_text("utf-8").splitlines()) <= 600, source.name
