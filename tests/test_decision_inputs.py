"""The likeliest successors after a change tell which decisions moved by the slices of their files
kept (`decision_inputs`), not by a line made for every decision: the lines made and the rows read
bounded by the change, and the answer the plain pass's through ten kinds of change, a slice's row
damaged or gone."""

from __future__ import annotations

import marshal
import os
import re
from pathlib import Path

import pytest

from tests import test_kept_successors as beside
from tests.test_kept_successors import STATUS, _append
from tests.test_kept_successors_follow import _call, _rename
from tests.test_process_after_a_change import decision_records
from workbench.cli.main import main
from workbench.core.services import decision_inputs, kept_successors
from workbench.core.services.kept_conflicts import SUCCESSORS
from workbench.core.vault import Vault

records, vault = beside.records, beside.vault  # the fixtures of the tests beside: the same records


@pytest.fixture
def lines_made(monkeypatch) -> list[int]:
    """The number of decisions each `read_from` made a line for."""
    made: list[int] = []
    plain = kept_successors.read_from

    def counted(decisions, related):
        found = plain(decisions, related)
        made.append(len(found))
        return found

    monkeypatch.setattr(kept_successors, "read_from", counted)
    return made


def test_one_change_makes_the_line_of_the_decision_changed_alone(vault: Path, lines_made: list[int]) -> None:
    """A decision's body changed: its line alone is made, one slice of the files read, not a line
    for each decision (the code before made all 360 at every call)."""
    first = _call(vault)
    assert first.kept.whole and sum(lines_made) >= 300
    lines_made.clear()
    _append(sorted(vault.glob("*.md"))[33], "\nThe retry budget was raised after the outage review.\n")
    call = _call(vault)
    assert call.found == call.plain and not call.kept.whole
    assert sum(lines_made) == 1, lines_made
    slices = set(first.kept.files.keys) | set(call.kept.files.keys)
    assert len(slices & set(call.read)) == 1
    lines_made.clear()
    again = _call(vault)  # nothing changed: no line made, no row read
    assert again.read == [] and sum(lines_made) == 0


def test_a_document_added_tells_by_every_line_once_then_by_the_files_again(vault: Path, lines_made: list[int]) -> None:
    """A file added moves the ids (a link may resolve otherwise now): every line is made once,
    and the next change is told by the files again."""
    _call(vault)
    text = sorted(vault.glob("*.md"))[20].read_text("utf-8")
    (vault / "ADR-09990-another.md").write_text(text + "\nA word of its own: quokka.\n", "utf-8")
    lines_made.clear()
    call = _call(vault)
    assert call.found == call.plain and sum(lines_made) >= 300
    lines_made.clear()
    _append(sorted(vault.glob("*.md"))[50], "\nThe schema registry moved.\n")
    call = _call(vault)
    assert call.found == call.plain and sum(lines_made) == 1


def _set_status(path: Path, status: str) -> None:
    text = path.read_text("utf-8")
    path.write_text(re.sub(r"(?im)^([-*\s]*status:\s*)\w+", rf"\g<1>{status}", text, count=1), "utf-8")


def test_equal_to_the_plain_pass_through_ten_kinds_of_change(vault: Path) -> None:
    """A body edited, a status moved, a supersession named and taken back, a link added, a title
    changed, a file added, removed and renamed, a decision made a note: each call answers as the
    plain pass, and as a count from nothing."""
    _call(vault)
    files = sorted(vault.glob("*.md"))
    live = [p for p in files if STATUS.search(p.read_text("utf-8"))]
    old, new = live[3], live[30]
    said = old.read_text("utf-8")

    def body() -> None:
        _append(live[40], "\nThe tenant quota moved to the schema registry.\n")

    def status() -> None:
        _set_status(live[41], "Deprecated")

    def supersession() -> None:
        old.write_text(
            re.sub(r"(?im)^([-*\s]*status:\s*)\w+", rf"\g<1>Superseded by [{new.stem}]({new.name})", said, count=1),
            "utf-8",
        )

    def taken_back() -> None:
        old.write_text(said, "utf-8")

    def link() -> None:
        _append(live[42], f"\nSee [the other record]({live[43].name}).\n")

    def title() -> None:
        text = live[44].read_text("utf-8")
        live[44].write_text(re.sub(r"(?m)^# .*$", "# A title of another subject", text, count=1), "utf-8")

    def added() -> None:
        (vault / "ADR-09991-added.md").write_text(live[45].read_text("utf-8") + "\nZanzibar.\n", "utf-8")

    def removed() -> None:
        live[46].unlink()

    def renamed() -> None:
        _rename(live[47], live[47].name.replace(".md", "-renamed.md"))

    def a_note() -> None:
        live[48].write_text("---\ntype: note\n---\n\n" + live[48].read_text("utf-8"), "utf-8")

    for change in (body, status, supersession, taken_back, link, title, added, removed, renamed, a_note):
        change()
        call = _call(vault)
        assert call.found == call.plain, change.__name__
        store = Vault.open(vault, flavour="adr").index.store
        store.keep_with_rows(SUCCESSORS, "test", b"", {}, replace=True)  # nothing kept: counted from nothing
        whole = _call(vault)
        assert whole.kept.whole and whole.found == call.found, change.__name__


def _slice_row(vault: Path) -> str:
    store = Vault.open(vault, flavour="adr").index.store
    kept = kept_successors.KeptDecisions(lambda keys: store.kept_rows(SUCCESSORS, keys))
    assert kept.load(store.kept(SUCCESSORS, "test"))
    return kept.files.keys[33 // decision_inputs.CHUNK]


@pytest.mark.parametrize("harm", ["gone", "damaged", "another slice"])
def test_a_slice_row_damaged_or_gone_counts_everything_again(vault: Path, harm: str) -> None:
    """The row of the slice a change moved gone, its bytes damaged, or another slice's text in its
    place: what was kept does not hold together, and everything is counted again, equal to the
    plain pass."""
    _call(vault)
    key = _slice_row(vault)
    db = Vault.open(vault, flavour="adr").index.store.db
    if harm == "gone":
        db.execute("DELETE FROM kept_rows WHERE name = ? AND key = ?", (SUCCESSORS, key))
    else:
        value = db.execute("SELECT value FROM kept_rows WHERE name = ? AND key = ?", (SUCCESSORS, key)).fetchone()[0]
        if harm == "damaged":
            value = bytes(value[:-3]) + bytes([value[-3] ^ 0x20]) + bytes(value[-2:])
        else:  # a readable list, of other texts
            value = marshal.dumps(["x\ty.md"] * decision_inputs.CHUNK)
        db.execute("UPDATE kept_rows SET value = ? WHERE name = ? AND key = ?", (value, SUCCESSORS, key))
    db.commit()
    _append(sorted(vault.glob("*.md"))[33], "\nThe retry budget was raised after the outage review.\n")
    call = _call(vault)
    assert call.kept.whole and call.found == call.plain


def _printed(root: Path, capsys, *args: str) -> str:
    capsys.readouterr()
    assert main(["--vault", str(root), "--flavour", "adr", "conflicts", "--json", *args]) == 0
    return capsys.readouterr().out


def test_the_queue_after_changes_equals_a_full_recompute(vault: Path, capsys) -> None:
    """`conflicts --json` after a body edit, a status moved and a file renamed: byte for byte the
    queue `--full` works out from nothing."""
    _printed(vault, capsys)
    live = [p for p in sorted(vault.glob("*.md")) if STATUS.search(p.read_text("utf-8"))]
    for change in (
        lambda: _append(live[10], "\nThe retry budget was raised after the outage review.\n"),
        lambda: _set_status(live[11], "Deprecated"),
        lambda: _rename(live[12], live[12].name.replace(".md", "-renamed.md")),
    ):
        change()
        followed = _printed(vault, capsys)
        assert followed == _printed(vault, capsys, "--full")


def test_a_file_no_one_can_read_taking_a_linked_id_makes_the_linking_line_again(tmp_path: Path) -> None:
    """A link resolves among every id a file owns, an invalid file's too: a named pipe added under
    the id a decision links to moves what that decision's links name while no valid document's id
    and no decision's file moved; its line is made again, not kept from before."""
    root = tmp_path / "records"
    decision_records(root, 120)
    linking = root / "ADR-0040-step.md"
    linking.write_text(linking.read_text() + "\nSee [the probe](adr-0999-probe.md) and [[ADR-0999-Probe]].\n")
    _call(root)
    os.mkfifo(root / "ADR-0999-probe.md")  # unreadable: an invalid record owning ADR-999
    call = _call(root)
    store, docs, related, _, _ = beside.asked_of(root)
    now = kept_successors.read_from([docs["ADR-040"]], related)["ADR-040"]
    assert call.kept.fact("ADR-040")[kept_successors.KEY] == now
    assert call.found == call.plain
