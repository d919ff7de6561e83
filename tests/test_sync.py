"""`workbench sync` over real git: a bare repository and two clones, edited by the workbench and by
plain file writes, merged document by document."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from git_vaults import DOCS, git, make_clones, read, sync, write
from vault_builders import doc_path
from workbench.cli import main
from workbench.core.services import gitsync
from workbench.core.editing.docmerge import CONFLICTS_KEY, MARKERS
from workbench.core.vocabulary.parse import parse_bytes


@pytest.fixture
def clones(tmp_path):
    return make_clones(tmp_path)


def tree(vault: Path) -> dict[str, bytes]:
    return {p: (vault / p).read_bytes() for p in git(vault, "ls-files").split()}


def test_edits_to_different_keys_and_paragraphs_merge_without_a_question(clones, capsys):
    laptop, server = clones
    assert main(["--vault", str(laptop), "status", "mem-decision-retry", "deprecated"]) == 0  # the workbench writes
    write(laptop, "mem-decision-retry", ("Retry three times.", "Retry five times."))
    write(
        server,
        "mem-decision-retry",
        ("tags: [payments]", "tags: [payments, ops]"),
        ("confidence: high", "confidence: low"),
        ("Give up after an hour.", "Give up after a day."),
    )  # an agent's plain write
    assert main(["--vault", str(server), "status", "mem-entity-queue", "deprecated"]) == 0
    assert sync(laptop) == 0
    assert sync(server) == 0
    assert sync(laptop) == 0
    assert tree(laptop) == tree(server)
    assert git(laptop, "rev-parse", "HEAD") == git(server, "rev-parse", "HEAD")
    meta = parse_bytes(read(laptop, "mem-decision-retry").encode()).meta
    assert (meta["status"], meta["tags"], meta["provenance"]["confidence"]) == (
        "deprecated",
        ["payments", "ops"],
        "low",
    )
    body = read(server, "mem-decision-retry")
    assert "Retry five times." in body and "Give up after a day." in body
    log = (laptop / "log.md").read_text(encoding="utf-8")
    assert "mem-entity-queue" in log and "mem-decision-retry" in log  # both machines' log lines, kept
    assert not any(marker in log for marker in MARKERS)
    assert git(laptop, "status", "--porcelain") == ""


def test_the_commit_message_names_each_document_and_what_changed(clones):
    laptop, _ = clones
    write(laptop, "mem-decision-retry", ("tags: [payments]", "tags: [payments, ops]"), ("Retry three", "Retry four"))
    assert sync(laptop) == 0
    message = git(laptop, "log", "-1", "--format=%B")
    assert "mem-decision-retry" in message.splitlines()[0]
    assert "- mem-decision-retry: tags, body" in message


def test_the_same_key_on_both_sides_stops_with_both_values_kept(clones, capsys):
    laptop, server = clones
    write(laptop, "mem-decision-retry", ("title: Title of mem-decision-retry", "title: Retry on the laptop"))
    write(
        server,
        "mem-decision-retry",
        ("title: Title of mem-decision-retry", "title: Retry on the server"),
        ("Back off exponentially.", "Back off with jitter."),
    )
    assert sync(laptop) == 0
    capsys.readouterr()
    assert sync(server) == 1
    out = capsys.readouterr().out
    assert "conflict: decisions/mem-decision-retry.md: title: changed on both sides" in out
    parsed = parse_bytes(read(server, "mem-decision-retry").encode())
    assert parsed.meta is not None and not any(m in parsed.fm_text for m in MARKERS)
    assert parsed.meta["title"] == "Retry on the server"
    assert parsed.meta[CONFLICTS_KEY]["title"]["theirs"] == "Retry on the laptop"
    assert "Back off with jitter." in parsed.body
    assert main(["--vault", str(server), "check"]) in (0, 1)  # the vault still opens
    assert sync(server) == 1  # nothing settled yet: still stopped, nothing committed
    gitsync.settle(server, "decisions/mem-decision-retry.md", "title", "theirs")
    assert gitsync.pending(server) == []
    assert sync(server) == 0
    assert sync(laptop) == 0
    assert tree(laptop) == tree(server)
    meta = parse_bytes(read(laptop, "mem-decision-retry").encode()).meta
    assert meta["title"] == "Retry on the laptop" and CONFLICTS_KEY not in meta


def test_a_supersession_against_an_edit_of_the_old_text_goes_to_a_person(clones, capsys):
    laptop, server = clones
    assert main(["--vault", str(laptop), "supersede", "mem-decision-retry", "mem-decision-retry-v2"]) == 0
    write(server, "mem-decision-retry", ("Retry three times.", "Retry four times."))
    assert sync(laptop) == 0
    capsys.readouterr()
    assert sync(server) == 1
    assert "decisions/mem-decision-retry.md: body: superseded on one side" in capsys.readouterr().out
    questions = gitsync.pending(server)
    assert [(q.key, q.ours, q.theirs) for q in questions] == [("body", "Retry four times.\n", "Retry three times.\n")]
    gitsync.settle(server, "decisions/mem-decision-retry.md", "body", "theirs")
    assert sync(server) == 0
    meta = parse_bytes(read(server, "mem-decision-retry").encode()).meta
    assert meta["superseded_by"] == ["mem-decision-retry-v2"]
    assert (
        gitsync.check_supersession(server, ["decisions/mem-decision-retry.md", "decisions/mem-decision-retry-v2.md"])
        == []
    )


def test_a_one_sided_supersession_after_a_merge_is_named_and_everything_else_pushed(clones, capsys):
    laptop, server = clones
    write(
        laptop, "mem-decision-retry", ("supersedes: []", "supersedes: [mem-decision-retry-v2]")
    )  # a plain write, one side only
    write(server, "mem-entity-queue", ("tags: [core]", "tags: [core, server]"))
    assert sync(server) == 0
    capsys.readouterr()
    assert sync(laptop) == 1
    out = capsys.readouterr().out
    assert (
        "supersession: decisions/mem-decision-retry.md: supersedes: names mem-decision-retry-v2, "
        "whose superseded_by does not name mem-decision-retry back"
    ) in out
    assert "pushed to origin/main" in out
    assert sync(server) == 1  # the server's merge touched it too: it says so there as well
    assert "tags: [core, server]" in read(laptop, "mem-entity-queue")


def test_a_plain_git_pull_merges_documents_through_the_driver(clones):
    laptop, server = clones
    write(
        laptop, "mem-entity-queue", ("tags: [core]", "tags: [core, laptop]"), ("status: active", "status: deprecated")
    )
    write(server, "mem-entity-queue", ("tags: [core]", "tags: [core, server]"), ("confidence: high", "confidence: low"))
    assert sync(laptop) == 0
    git(server, "commit", "-qam", "an edit on the server")
    git(server, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
    meta = parse_bytes(read(server, "mem-entity-queue").encode()).meta
    assert meta["tags"] == ["core", "server", "laptop"] and meta["status"] == "deprecated"
    assert meta["provenance"]["confidence"] == "low"


def test_a_folder_outside_git_is_refused_with_a_reason(tmp_path, capsys):
    (tmp_path / doc_path("mem-entity-queue")).parent.mkdir(parents=True)
    (tmp_path / doc_path("mem-entity-queue")).write_text(DOCS["mem-entity-queue"], encoding="utf-8")
    assert sync(tmp_path) == 3
    assert "not inside a git work tree" in capsys.readouterr().err


@pytest.mark.slow
def test_a_watching_vault_follows_a_pull_that_changes_fifteen_hundred_documents(clones):
    """The server keeps the vault open with its watcher, as the TUI does, while a sync brings in
    1,500 new documents and 1 changed one from the laptop: it ends equal to a fresh open, its
    search finds the new words, and its derived store serves them to the next process."""
    import time

    from vault_builders import doc_text
    from workbench import Vault

    laptop, server = clones
    for number in range(1500):
        path = laptop / doc_path(f"mem-note-pulled-{number}")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            doc_text(f"mem-note-pulled-{number}", body=f"# Pulled {number}\n\nquokka{number} arrived by git.\n"),
            encoding="utf-8",
        )
    write(laptop, "mem-decision-retry", ("Retry three times.", "Retry five times."))
    assert sync(laptop) == 0
    vault = Vault.open(server)
    watcher = vault.watch()
    try:
        assert watcher.ready.wait(10)
        assert sync(server) == 0
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(vault.documents) < len(DOCS) + 1500:
            time.sleep(0.1)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and "five" not in vault.get("mem-decision-retry").body:
            time.sleep(0.1)
    finally:
        watcher.stop()
    fresh = Vault.open(server)
    assert sorted(d.id for d in vault.documents) == sorted(d.id for d in fresh.documents)
    assert {d.id: d.digest for d in vault.documents} == {d.id: d.digest for d in fresh.documents}
    assert [h.id for h in vault.search("quokka1499")] == ["mem-note-pulled-1499"]
    assert [h.id for h in fresh.search("quokka7")] == ["mem-note-pulled-7"]


def test_a_question_committed_by_hand_is_still_named_by_check(clones, capsys):
    """`git commit -a` during a stopped sync ends the merge, so `pending` has nothing to ask; the
    `sync_conflicts` key left in the file must still reach the person."""
    laptop, server = clones
    write(laptop, "mem-decision-retry", ("title: Title of mem-decision-retry", "title: Retry on the laptop"))
    write(server, "mem-decision-retry", ("title: Title of mem-decision-retry", "title: Retry on the server"))
    assert sync(laptop) == 0
    assert sync(server) == 1
    git(server, "commit", "-qam", "done by hand")
    assert gitsync.pending(server) == []
    capsys.readouterr()
    main(["--vault", str(server), "check"])  # a warning: the value in place is still a valid one
    out = capsys.readouterr().out
    assert "sync-unsettled" in out and "mem-decision-retry.md" in out and "title" in out
    text = read(server, "mem-decision-retry")
    kept = text.replace(text[text.index(CONFLICTS_KEY) : text.index("---", text.index(CONFLICTS_KEY))], "")
    (server / doc_path("mem-decision-retry")).write_text(kept)
    capsys.readouterr()
    main(["--vault", str(server), "check"])
    assert "sync-unsettled" not in capsys.readouterr().out


@pytest.mark.slow
def test_a_document_deleted_on_one_side_and_gone_from_the_folder_is_kept_from_git(clones):
    """A `git pull` by hand: the laptop deleted a document the server changed, and the changed copy
    is gone from the folder too. `keep` takes it back from git, as changed, and sync pushes it."""
    laptop, server = clones
    (laptop / doc_path("mem-entity-queue")).unlink()
    assert sync(laptop) == 0
    write(server, "mem-entity-queue", ("title: ", "title: Changed "))
    git(server, "commit", "-qam", "edit")
    changed = read(server, "mem-entity-queue")
    assert subprocess.run(["git", "pull", "-q", "--no-rebase"], cwd=server, capture_output=True).returncode == 1
    (server / doc_path("mem-entity-queue")).unlink()
    [question] = gitsync.pending(server)
    assert question.key == "file"
    gitsync.settle(server, question.path, "file", "keep")
    assert read(server, "mem-entity-queue") == changed and gitsync.pending(server) == []
    assert sync(server) == 0 and sync(laptop) == 0
    assert read(laptop, "mem-entity-queue") == changed


def test_a_document_broken_on_one_side_and_changed_on_both_is_asked_about_not_committed(clones, capsys):
    """Its frontmatter does not parse on one side and both changed the same lines: the merge keeps
    ours whole (markers would land in the YAML), so theirs would be gone from the branch unless a
    person is asked."""
    laptop, server = clones
    write(laptop, "mem-entity-queue", ("title: ", "title: [unclosed "), ("Body text.", "Laptop text."))
    write(server, "mem-entity-queue", ("Body text.", "Server text."))
    assert sync(laptop) == 0
    capsys.readouterr()
    assert sync(server) == 1
    out = capsys.readouterr().out
    assert "entities/mem-entity-queue.md: file: broken frontmatter on one side" in out
    assert sync(server) == 1  # asked again, nothing committed
    gitsync.settle(server, "entities/mem-entity-queue.md", "file", "keep")
    assert sync(server) == 0


def test_a_document_the_remote_made_a_symlink_is_named_when_it_arrives(clones, capsys):
    """Not edited here, so nothing to ask; but the document is gone from the vault, and sync says so."""
    laptop, server = clones
    target = laptop / doc_path("mem-entity-queue")
    target.unlink()
    target.symlink_to("/etc/passwd")
    git(laptop, "add", "-A")
    git(laptop, "commit", "-qm", "a symlink")
    git(laptop, "push", "-q", "origin", "main")
    capsys.readouterr()
    assert sync(server) == 0
    out = capsys.readouterr().out
    assert "made 1 document a symbolic link, which the vault does not read: entities/mem-entity-queue.md" in out
