"""An agent writing a document with plain file I/O while the workbench changes it: its bytes are
never lost. Either the change lands before the agent's write (which then lands on it), or the
change is refused with ConflictError and nothing of it stays, whichever file of a multi-file
change the agent wrote and whenever it wrote it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from helpers import APPENDING_AGENT
from workbench import ConflictError, Vault
from workbench.core.storage import crashpoint, filereplace

AGENT_LINE = b"An agent appended this line.\n"


@pytest.fixture(autouse=True, params=["swap", "rename"])
def replacement(request, monkeypatch):
    """Every test runs twice: with the old and new file swapped in one step (Linux), and with the
    plain rename other systems use, the old file held open to check it."""
    monkeypatch.setattr(filereplace, "USE_EXCHANGE", request.param == "swap")
    return request.param


def state(root):
    """What a refused change must leave as it was: the journal, the history and the log."""
    journal = (
        sorted(p.name for p in (root / ".workbench" / "journal").glob("*"))
        if (root / ".workbench" / "journal").is_dir()
        else []
    )
    history = (
        sorted(p.name for p in (root / ".workbench" / "history").glob("*.json"))
        if (root / ".workbench" / "history").is_dir()
        else []
    )
    log = (root / "log.md").read_bytes() if (root / "log.md").exists() else None
    return journal, history, log


def agent_at(monkeypatch, wanted: str, write, nth: int = 1):
    """Run `write` when the change reaches its `nth` step named `wanted`, as an agent's write that
    lands at that moment would."""
    real = crashpoint.crash_point
    seen = {"count": 0}

    def step(name: str) -> None:
        if name == wanted:
            seen["count"] += 1
            if seen["count"] == nth:
                write()
        real(name)

    monkeypatch.setattr(crashpoint, "crash_point", step)
    return seen


def assert_put_back_with_a_named_copy(root, kept, path: str, data: bytes) -> None:
    """A refused change that put back a version the agent wrote while the change's version held
    the name: nothing journalled or in the history, and a copy of that version kept under
    .recovery/ and named in the log (a writer that read the change's version in that instant could
    still rename it, plus its own line, over the agent's)."""
    journal, history, log = state(root)
    assert (journal, history) == kept[:2]
    copies = [p for p in (root / ".recovery").rglob("*") if p.is_file() and p.read_bytes() == data]
    assert copies and copies[0].relative_to(root).as_posix().startswith(f".recovery/{path}.")
    assert copies[0].relative_to(root).as_posix() in log.decode()


def append(path, data=AGENT_LINE):
    with open(path, "ab") as handle:
        handle.write(data)


def test_an_append_during_the_journal_step_is_kept_and_the_change_refused(builder, monkeypatch):
    builder.add("mem-note-a", status="draft")
    vault = Vault.open(builder.root)
    path = builder.root / "notes/mem-note-a.md"
    before, kept = path.read_bytes(), state(builder.root)
    seen = agent_at(monkeypatch, "journal-written", lambda: append(path))
    with pytest.raises(ConflictError) as caught:
        vault.set_status("mem-note-a", "active")
    assert seen["count"] == 1
    assert caught.value.path == "notes/mem-note-a.md"
    assert path.read_bytes() == before + AGENT_LINE
    assert state(builder.root) == kept
    assert not list(builder.root.rglob("*.tmp"))


@pytest.mark.parametrize("target", ["decisions/mem-decision-old.md", "decisions/mem-decision-new.md"])
def test_an_append_to_either_file_of_a_supersession_during_the_journal_step(builder, monkeypatch, target):
    builder.add("mem-decision-old")
    builder.add("mem-decision-new", status="draft")
    vault = Vault.open(builder.root)
    files = {
        p: (builder.root / p).read_bytes() for p in ("decisions/mem-decision-old.md", "decisions/mem-decision-new.md")
    }
    kept = state(builder.root)
    agent_at(monkeypatch, "journal-written", lambda: append(builder.root / target))
    with pytest.raises(ConflictError):
        vault.supersede("mem-decision-old", "mem-decision-new")
    for path, data in files.items():
        assert (builder.root / path).read_bytes() == data + (AGENT_LINE if path == target else b"")
    assert state(builder.root) == kept


def test_an_append_just_before_the_rename_is_kept(builder, monkeypatch):
    """The last moment before the file is replaced: the step after its last check."""
    builder.add("mem-note-a", status="draft")
    vault = Vault.open(builder.root)
    path = builder.root / "notes/mem-note-a.md"
    before, kept = path.read_bytes(), state(builder.root)
    # The first rename is the journal's; the second replaces the document.
    agent_at(monkeypatch, "before-rename", lambda: append(path), nth=2)
    with pytest.raises(ConflictError):
        vault.set_status("mem-note-a", "active")
    assert path.read_bytes() == before + AGENT_LINE
    assert_put_back_with_a_named_copy(builder.root, kept, "notes/mem-note-a.md", before + AGENT_LINE)


def test_a_write_through_a_handle_opened_before_the_change_is_kept(builder, monkeypatch):
    """An agent that opened the first file before the change writes to it after it was replaced,
    while the second file is written: both files go back as they were, with the agent's bytes."""
    builder.add("mem-decision-old")
    builder.add("mem-decision-new", status="draft")
    vault = Vault.open(builder.root)
    first, second = builder.root / "decisions/mem-decision-old.md", builder.root / "decisions/mem-decision-new.md"
    before = {first: first.read_bytes(), second: second.read_bytes()}
    kept = state(builder.root)
    handle = open(first, "ab")
    try:

        def late():
            handle.write(AGENT_LINE)
            handle.flush()

        agent_at(monkeypatch, "file-written", late)
        with pytest.raises(ConflictError):
            vault.supersede("mem-decision-old", "mem-decision-new")
    finally:
        handle.close()
    assert first.read_bytes() == before[first] + AGENT_LINE
    assert second.read_bytes() == before[second]
    assert_put_back_with_a_named_copy(builder.root, kept, "decisions/mem-decision-old.md", before[first] + AGENT_LINE)
    assert not list(builder.root.rglob("*.tmp"))


def test_writes_to_both_the_old_and_the_new_file_are_joined_when_the_change_is_undone(builder, monkeypatch):
    """The hardest case: the first file is replaced; an agent writes to the old one (a handle
    opened before) and then appends to the new one (opened after), and the change must be undone
    because of the former. The file ends as it was, with both of the agent's lines, in order."""
    builder.add("mem-decision-old")
    builder.add("mem-decision-new", status="draft")
    vault = Vault.open(builder.root)
    first, second = builder.root / "decisions/mem-decision-old.md", builder.root / "decisions/mem-decision-new.md"
    before = {first: first.read_bytes(), second: second.read_bytes()}
    handle = open(first, "ab")
    try:

        def both():
            handle.write(b"first line\n")
            handle.flush()
            append(first, b"second line\n")

        agent_at(monkeypatch, "file-written", both)
        with pytest.raises(ConflictError):
            vault.supersede("mem-decision-old", "mem-decision-new")
    finally:
        handle.close()
    assert first.read_bytes() == before[first] + b"first line\nsecond line\n"
    assert second.read_bytes() == before[second]
    assert not list(builder.root.rglob("*.tmp"))


def test_a_write_after_the_last_check_is_kept_in_recovery(builder, monkeypatch):
    """After the last check, the change commits; bytes that still reach the replaced file (through a
    handle opened before the change) are found as it is dropped, kept and said."""
    builder.add("mem-note-a", status="draft")
    vault = Vault.open(builder.root)
    path = builder.root / "notes/mem-note-a.md"
    before = path.read_bytes()
    handle = open(path, "ab")
    try:

        def late():
            handle.write(AGENT_LINE)
            handle.flush()

        agent_at(monkeypatch, "committed", late)
        vault.set_status("mem-note-a", "active")
    finally:
        handle.close()
    assert vault.get("mem-note-a").status == "active"
    kept = list((builder.root / ".recovery/notes").glob("mem-note-a.md.*"))
    assert [p.read_bytes() for p in kept] == [before + AGENT_LINE]
    assert any("kept in .recovery/notes/mem-note-a.md." in note for note in vault.recovery_notes)
    assert "kept in .recovery/notes/mem-note-a.md." in (builder.root / "log.md").read_text()


def test_an_agent_that_replaces_the_file_by_rename_is_not_overwritten(builder, monkeypatch):
    """Agents that write atomically (a temporary file renamed over the document) are kept too."""
    builder.add("mem-note-a", status="draft")
    vault = Vault.open(builder.root)
    path = builder.root / "notes/mem-note-a.md"
    theirs = path.read_bytes() + AGENT_LINE

    def rename_over():
        temp = path.with_name("agent.tmp")
        temp.write_bytes(theirs)
        temp.replace(path)

    agent_at(monkeypatch, "before-rename", rename_over, nth=2)
    with pytest.raises(ConflictError):
        vault.set_status("mem-note-a", "active")
    assert path.read_bytes() == theirs


def test_a_new_document_never_replaces_a_file_an_agent_just_created(builder, monkeypatch):
    from workbench.core.services.gate import Draft

    builder.add("mem-entity-core")
    vault = Vault.open(builder.root)
    draft = Draft("note", "Brand new thought", ["core"], [("related_to", "mem-entity-core")], "Body.\n")
    plan = vault.create(draft, dry_run=True)
    created = builder.root / plan.paths[0]
    agent_at(monkeypatch, "before-rename", lambda: created.write_bytes(b"the agent's own note\n"), nth=2)
    with pytest.raises(ConflictError):
        vault.create(draft)
    assert created.read_bytes() == b"the agent's own note\n"


def test_a_racing_agent_loses_no_append(builder):
    """A real process appends to a document while this one saves it and renames a document it
    links to (a three-file change that rewrites it) as fast as it can."""
    builder.add("mem-entity-hub")
    builder.add("mem-note-target", links="[{type: related_to, target: mem-entity-hub}]", body="Start.\n")
    vault = Vault.open(builder.root)
    target = builder.root / "notes/mem-note-target.md"
    appends = 600
    agent = subprocess.Popen(
        [sys.executable, "-c", APPENDING_AGENT, str(target), str(appends)], stdout=subprocess.PIPE, text=True
    )
    assert agent.stdout.readline().strip() == "ready"
    ours, conflicts, renames, names = [], 0, 0, ["mem-entity-hub", "mem-entity-hub-two"]
    number = 0
    while agent.poll() is None:
        number += 1
        try:
            if number % 2:
                doc = vault.get("mem-note-target")
                vault.save(__import__("dataclasses").replace(doc, body=doc.body + f"ours-{number}\n"))
                ours.append(f"ours-{number}")
            else:
                vault.rename(names[0], names[1])
                names.reverse()
                renames += 1
        except ConflictError:
            conflicts += 1
    assert agent.wait() == 0
    text = target.read_text("utf-8")
    # What the README promises: each append is in the file, or, where it reached the replaced file
    # after its last check, kept under .recovery/ and said so. Neither is a loss.
    kept = "".join(p.read_text("utf-8", "replace") for p in (builder.root / ".recovery").rglob("*") if p.is_file())
    lost = [n for n in range(appends) if text.count(f"agent-{n}\n") != 1 and f"agent-{n}\n" not in kept]
    ours_lost = [token for token in ours if text.count(f"{token}\n") != 1]
    print(
        json.dumps(
            {"appends": appends, "lost": len(lost), "saves": len(ours), "renames": renames, "conflicts": conflicts}
        )
    )
    # The README's remaining window: a write through a handle the agent opened before a change,
    # landing after the change let the old file go. Seen about once in ten runs of 600 appends on
    # a busy machine (one append each time); 178-226 were lost before the checks. More is a regression.
    assert len(lost) <= 1, f"{len(lost)} of {appends} appends lost: {lost}"
    assert ours_lost == []
    assert Vault.open(builder.root).problems_for("mem-note-target") == []


REWRITING_AGENT = textwrap.dedent(
    """
    import os, random, sys, time
    path, stop = sys.argv[1], sys.argv[2]
    print("ready", flush=True)
    number = 0
    while not os.path.exists(stop):
        with open(path, "rb") as handle:  # the way most tools write: read, add, temporary file, rename
            data = handle.read()
        temp = f"{path}.agent-{os.getpid()}.tmp"
        with open(temp, "wb") as handle:
            handle.write(data + f"agent-{number}\\n".encode())
        os.replace(temp, path)
        number += 1
        time.sleep(random.uniform(0, 0.02))  # quiet spells, so that changes also land
    print(number, flush=True)
    """
)


def test_an_agent_rewriting_by_rename_loses_no_line_to_a_thousand_changes(builder, replacement):
    """A real process rewrites a document by temporary file and rename while this one makes 1,000
    changes to it (saves, and renames of a document it links to): every line the agent wrote is in
    the file, or in a copy under .recovery/ that the log names."""
    if replacement == "rename":
        pytest.skip(
            "without a swap of names, a rename landing between the last look and ours is beyond reach "
            "(about one line in a thousand runs of this race); docs/agents-file-protocol.md says so"
        )
    builder.add("mem-entity-hub")
    builder.add("mem-note-target", links="[{type: related_to, target: mem-entity-hub}]", body="Start.\n")
    vault = Vault.open(builder.root)
    path, stop = "notes/mem-note-target.md", builder.root.parent / "stop"
    agent = subprocess.Popen(
        [sys.executable, "-c", REWRITING_AGENT, str(builder.root / path), str(stop)], stdout=subprocess.PIPE, text=True
    )
    assert agent.stdout.readline().strip() == "ready"
    made, names = 0, ["mem-entity-hub", "mem-entity-hub-two"]
    try:
        for number in range(1000):
            vault.index.refresh_path(path)  # as the workbench's watcher would: a change on what is on disk now
            try:
                if number % 2:
                    doc = vault.get("mem-note-target")
                    vault.save(__import__("dataclasses").replace(doc, body=doc.body + f"ours-{number}\n"))
                else:
                    vault.rename(names[0], names[1])
                    names.reverse()
                made += 1
            except ConflictError:
                pass
    finally:
        stop.touch()
        written = int(agent.communicate(timeout=60)[0].strip())
    text = (builder.root / path).read_text("utf-8")
    log = (builder.root / "log.md").read_text("utf-8")
    named = (
        [
            p
            for p in (builder.root / ".recovery").rglob("*")
            if p.is_file() and p.relative_to(builder.root).as_posix() in log
        ]
        if (builder.root / ".recovery").is_dir()
        else []
    )
    kept = "".join(p.read_text("utf-8", "replace") for p in named)
    lost = [n for n in range(written) if f"agent-{n}\n" not in text and f"agent-{n}\n" not in kept]
    print(
        json.dumps(
            {
                "agent writes": written,
                "changes made": made,
                "refused": 1000 - made,
                "in named copies only": sum(1 for n in range(written) if f"agent-{n}\n" not in text),
                "lost": len(lost),
            }
        )
    )
    assert written > 100 and made > 0
    assert lost == []
