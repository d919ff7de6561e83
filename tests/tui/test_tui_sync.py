"""The sync dialog (`S`) on a vault whose merge waits for a person: each conflicting key side by
side (ours, theirs, base), answered by one key, then committed and pushed from the dialog."""

from __future__ import annotations

import subprocess

import pytest
from git_vaults import git, make_clones, read, sync, write
from vault_builders import doc_path
from tui_helpers import screen_text, settle, wait_for

from workbench.core.services import gitsync
from workbench.core.editing.docmerge import CONFLICTS_KEY
from workbench.core.vocabulary.parse import parse_bytes
from workbench.tui.app import WorkbenchApp
from workbench.tui.dialogs.sync_merge import SyncDialog

DOC = "mem-decision-retry"


def waiting_merge(tmp_path):
    laptop, server = make_clones(tmp_path)
    write(
        laptop,
        DOC,
        ("title: Title of mem-decision-retry", "title: Retry on the laptop"),
        ("confidence: high", "confidence: low"),
    )
    write(
        server,
        DOC,
        ("title: Title of mem-decision-retry", "title: Retry on the server"),
        ("confidence: high", "confidence: medium"),
    )
    assert sync(laptop) == 0
    assert sync(server) == 1
    return laptop, server


@pytest.mark.slow
async def test_each_key_is_shown_side_by_side_settled_by_a_key_then_pushed(tmp_path):
    laptop, server = waiting_merge(tmp_path)
    app = WorkbenchApp(server)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("S")
        await settle(pilot)
        assert isinstance(app.screen, SyncDialog)
        await wait_for(pilot, lambda: len(app.screen.questions) == 2)
        text = screen_text(app)
        assert "2 waiting" in text and "title" in text and "provenance.confidence" in text
        assert "Retry on the server" in text and "Retry on the laptop" in text and "Title of mem-decision-retry" in text
        await pilot.press("t")  # the title: the laptop's
        await wait_for(pilot, lambda: len(app.screen.questions) == 1)
        await pilot.press("o")  # the confidence: ours
        await wait_for(pilot, lambda: not app.screen.questions and "Every question is answered" in screen_text(app))
        await pilot.press("s")
        await wait_for(pilot, lambda: "pushed to origin/main" in screen_text(app))
        await pilot.press("escape")
    meta = parse_bytes(read(server, DOC).encode()).meta
    assert (meta["title"], meta["provenance"]["confidence"]) == ("Retry on the laptop", "medium")
    assert CONFLICTS_KEY not in meta
    assert gitsync.pending(server) == [] and git(server, "status", "--porcelain") == ""
    assert sync(laptop) == 0
    assert read(laptop, DOC) == read(server, DOC)


async def test_a_vault_outside_git_says_so_instead_of_an_empty_merge_dialog(sample_copy):
    app = WorkbenchApp(sample_copy)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("S")
        await settle(pilot)
        await wait_for(pilot, lambda: any("not inside a git work tree" in n.message for n in app._notifications))
        assert not isinstance(app.screen, SyncDialog)


@pytest.mark.slow
async def test_a_document_deleted_on_one_side_and_changed_on_the_other_is_deleted_with_d(tmp_path):
    """After a `git pull` by hand: the laptop deleted a document, the server changed it, and the
    changed copy is gone from the folder too. The question is answered from the dialog (`d`), or it
    says how to keep the document; then `s` commits the merge and pushes."""
    laptop, server = make_clones(tmp_path)
    (laptop / doc_path("mem-entity-queue")).unlink()
    assert sync(laptop) == 0
    write(server, "mem-entity-queue", ("title: ", "title: Changed "))
    git(server, "commit", "-qam", "edit")
    assert subprocess.run(["git", "pull", "-q", "--no-rebase"], cwd=server, capture_output=True).returncode == 1
    (server / doc_path("mem-entity-queue")).unlink()
    app = WorkbenchApp(server)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("S")
        await wait_for(pilot, lambda: isinstance(app.screen, SyncDialog) and len(app.screen.questions) == 1)
        await pilot.press("o")  # not an answer for a whole file: says which keys are
        await wait_for(pilot, lambda: "k keeps it" in screen_text(app))
        await pilot.press("d")
        await wait_for(pilot, lambda: not app.screen.questions and "Every question is answered" in screen_text(app))
        await pilot.press("s")
        await wait_for(pilot, lambda: "pushed to origin/main" in screen_text(app))
    assert gitsync.pending(server) == [] and git(server, "status", "--porcelain") == ""
    assert sync(laptop) == 0
    assert not (laptop / doc_path("mem-entity-queue")).exists()


def test_the_status_line_tells_documents_not_merged_from_questions_a_side_answers():
    """A killed sync leaves documents git could not merge and no sync has merged: o, t and b do
    not answer those, so the dialog says `s` merges them instead of offering sides for them."""
    from workbench.tui.dialogs.sync_merge import waiting_head

    unmerged = [gitsync.SyncConflict(f"d{n}.md", gitsync.NOT_MERGED, "not merged yet") for n in range(3)]
    asked = [gitsync.SyncConflict("a.md", "title", "both sides changed it")]
    assert waiting_head(unmerged) == "3 documents not merged yet: s merges them key by key, then asks what it cannot"
    assert waiting_head(asked).startswith("1 question from the merge: o ours")
    both = waiting_head(asked + unmerged[:1]).splitlines()
    assert both[0].startswith("1 question from the merge") and both[1].startswith(
        "1 document not merged yet: s merges it"
    )
