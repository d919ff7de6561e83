"""What a page of the review list works out again, in a long-lived process (the MCP server) where
an agent asks page after page and judges each pair between them: the documents are not sorted
again while unchanged, the verdicts file is parsed only where it grew and each verdict's state
read once while the records are unchanged, and the answers stay those worked out from scratch."""

from __future__ import annotations

import json

from helpers import sorts_noted

from workbench import Vault
from workbench.core.services import verdicts as verdicts_module
from workbench.core.services.verdicts import VERDICT_FILE

CENTS, DECIMAL, TAX = (
    "mem-decision-money-integer-cents",
    "mem-decision-money-numeric-decimal",
    "mem-decision-tax-engine-choice",
)


def test_the_documents_are_sorted_once_while_unchanged_and_follow_a_change(sample_copy, monkeypatch):
    vault = Vault.open(sample_copy)
    first = vault.index.documents
    with sorts_noted(monkeypatch) as sizes:
        again = vault.index.documents
    assert again == first and not sizes  # nothing changed: the list kept for this generation, no sort
    again.clear()  # a caller's copy: clearing it leaves the index's own alone
    assert vault.index.documents == first
    note = (sample_copy / "notes" / "mem-note-celery-visibility-timeout.md").read_text()
    (sample_copy / "notes" / "mem-note-zz-late.md").write_text(
        note.replace("id: mem-note-celery-visibility-timeout", "id: mem-note-zz-late")
    )
    vault.refresh()
    assert [d.id for d in vault.index.documents] == sorted([d.id for d in first] + ["mem-note-zz-late"])


def test_the_verdicts_file_is_parsed_where_it_grew_and_states_read_once_while_unchanged(sample_copy, monkeypatch):
    vault = Vault.open(sample_copy)
    vault.judge(CENTS, DECIMAL, "companion", "both stand", "scripted")
    parsed, stated = [], []
    check, state = verdicts_module._check_line, verdicts_module._state
    monkeypatch.setattr(verdicts_module, "_check_line", lambda data: (parsed.append(data["id"]), check(data))[1])
    monkeypatch.setattr(verdicts_module, "_state", lambda *a: (stated.append(a[0].id), state(*a))[1])
    first = vault.verdicts()
    assert len(first) == 1
    parsed.clear(), stated.clear()
    added = vault.judge(CENTS, TAX, "unsure", "", "scripted")
    found = vault.verdicts()
    assert [v.id for v in found] == [first[0].id, added.id]
    assert parsed.count(first[0].id) == 0 and stated == [added.id]  # only the new line and its state
    assert [v.to_json() for v in found] == [v.to_json() for v in Vault.open(sample_copy).verdicts()]


def test_a_verdicts_file_changed_otherwise_than_by_a_line_added_is_read_whole(sample_copy):
    vault = Vault.open(sample_copy)
    one = vault.judge(CENTS, DECIMAL, "companion", "both stand", "scripted")
    two = vault.judge(CENTS, TAX, "replaces", "the newer decides it", "scripted")
    assert [v.id for v in vault.verdicts()] == [one.id, two.id]
    path = sample_copy / VERDICT_FILE
    lines = path.read_text().splitlines()
    path.write_text("{half a line\n" + lines[1] + "\n")  # the first line edited by hand
    found, problems = vault.verdicts(), vault.verdict_problems()
    assert [v.id for v in found] == [two.id] and [p.line for p in problems] == [1]
    path.write_text(lines[1] + "\n" + lines[0])  # reordered, the last line without its end
    assert [v.id for v in vault.verdicts()] == [two.id, one.id]
    with path.open("a") as handle:  # its end comes, and a broken line after it
        handle.write("\n{cut")
    assert [v.id for v in vault.verdicts()] == [two.id, one.id]
    assert [(p.line, "not a verdict" in p.message) for p in vault.verdict_problems()] == [(3, True)]


def test_a_verdicts_state_follows_a_record_changed_on_disk(sample_copy):
    vault = Vault.open(sample_copy)
    verdict = vault.judge(CENTS, DECIMAL, "replaces", "the newer decides it", "scripted")
    assert [v.state for v in vault.verdicts()] == ["open"]
    path = sample_copy / vault.get(CENTS).path
    path.write_text(path.read_text() + "\nA later note.\n")
    vault.refresh()
    assert [(v.id, v.state) for v in vault.verdicts()] == [(verdict.id, "stale")]
    line = json.loads((sample_copy / VERDICT_FILE).read_text())
    assert line["id"] == verdict.id
