"""Live reload: what another process writes reaches a long-lived Vault, its index and its graph."""

from __future__ import annotations

import threading
import time

from vault_builders import doc_text
from workbench import Vault
from workbench.core.views import graph


def wait_for(condition, seconds=5.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


def test_a_new_changed_and_deleted_file_reach_the_vault(builder):
    builder.add("mem-entity-core")
    vault = Vault.open(builder.root)
    batches = []
    seen = threading.Event()

    def heard(paths, seconds):
        batches.append((paths, seconds))
        seen.set()

    watcher = vault.watch(heard)
    try:
        assert watcher.ready.wait(5)
        builder.add("mem-note-new", links="[{type: explains, target: mem-entity-core}]", body="zebra crossing\n")
        assert wait_for(lambda: "mem-note-new" in vault)
        assert [h.id for h in vault.search("zebra")] == ["mem-note-new"]
        assert ("mem-note-new", "explains") in graph.backlinks(vault.graph(), "mem-entity-core")
        path = builder.root / "notes" / "mem-note-new.md"
        path.write_text(
            doc_text("mem-note-new", status="archived", links="[{type: explains, target: mem-entity-core}]")
        )
        assert wait_for(
            lambda: vault.documents and any(d.id == "mem-note-new" and d.status == "archived" for d in vault.documents)
        )
        path.unlink()
        assert wait_for(lambda: "mem-note-new" not in vault)
        assert vault.search("zebra") == []
    finally:
        watcher.stop()
    assert all(seconds < 1.0 for _, seconds in batches)


def test_the_watcher_ignores_its_own_state_and_never_follows_symlinks(builder, tmp_path):
    builder.add("mem-entity-core")
    outside = tmp_path / "outside.md"
    outside.write_text(doc_text("mem-note-outside"))
    vault = Vault.open(builder.root)
    watcher = vault.watch()
    try:
        assert watcher.ready.wait(5)
        (builder.root / "notes").mkdir()
        (builder.root / "notes" / "mem-note-outside.md").symlink_to(outside)
        builder.add("mem-note-marker")
        assert wait_for(lambda: "mem-note-marker" in vault)
        time.sleep(0.2)
        assert "mem-note-outside" not in vault
    finally:
        watcher.stop()


def test_after_churn_the_live_vault_equals_a_fresh_open(builder):
    builder.add("mem-entity-core")
    vault = Vault.open(builder.root)
    watcher = vault.watch()
    try:
        assert watcher.ready.wait(5)
        for number in range(120):
            builder.add(
                f"mem-note-n{number}", links="[{type: related_to, target: mem-entity-core}]", body=f"churn {number}\n"
            )
        for number in range(0, 120, 3):
            (builder.root / "notes" / f"mem-note-n{number}.md").unlink()
        for number in range(1, 120, 3):
            builder.add(f"mem-note-n{number}", status="archived", links="[{type: related_to, target: mem-entity-core}]")

        def same():
            fresh = Vault.open(builder.root)
            return {(d.id, d.status, d.digest) for d in vault.documents} == {
                (d.id, d.status, d.digest) for d in fresh.documents
            }

        assert wait_for(same, 30)
    finally:
        watcher.stop()


def test_a_note_written_into_an_obsidian_vault_resolves_the_links_that_named_it(tmp_path):
    root = tmp_path / "notes"
    (root / ".obsidian").mkdir(parents=True)
    (root / "Home.md").write_text("# Home\n\nSee [[Later]].\n")
    vault = Vault.open(root)
    assert vault.flavour.name == "markdown"
    assert [p.code for p in vault.problems] == ["link-dangling"]
    watcher = vault.watch()
    try:
        assert watcher.ready.wait(5)
        (root / "sub").mkdir()
        (root / "sub" / "Later.md").write_text("# Later\n\nwritten by an agent\n")
        assert wait_for(lambda: "sub/Later" in vault)
        assert [l.target for l in vault.get("Home").links] == ["sub/Later"]
        assert vault.problems == []
        assert [h.id for h in vault.search("agent")] == ["sub/Later"]
    finally:
        watcher.stop()


def test_a_sweep_brings_in_what_no_event_reported_and_says_so(builder, monkeypatch):
    """The periodic sweep runs after a batch, not before it; a sweep that finds a change tells the
    listener, and one that finds none leaves the vault (and what is derived from it) as it was."""
    from workbench.core.records import live

    builder.add("mem-entity-core")
    vault = Vault.open(builder.root)
    heard = []
    watcher = vault.watch(lambda paths, seconds: heard.append(list(paths)))
    try:
        assert watcher.ready.wait(5)
        generation = vault.generation
        vault.refresh()  # nothing changed on disk: nothing derived goes stale
        assert vault.generation == generation
        # A file the watcher hears nothing of, as when the OS drops events: only a sweep finds it.
        monkeypatch.setattr(live, "_relevant", lambda root, change, path, settings="": None)
        builder.add("mem-note-unseen", body="quokka\n")
        time.sleep(0.3)
        assert "mem-note-unseen" not in vault
        monkeypatch.setattr(live, "SWEEP_SECONDS", 0.0)
        assert wait_for(lambda: "mem-note-unseen" in vault)
        assert wait_for(lambda: [] in heard)
        assert [h.id for h in vault.search("quokka")] == ["mem-note-unseen"]
    finally:
        watcher.stop()


def test_each_folder_is_watched_on_its_own_and_a_new_one_is_watched_too(builder, tmp_path, monkeypatch):
    """A recursive watch is set up by watchfiles in one call that holds the interpreter while the
    whole tree is walked (the TUI's screen stood still for up to a second at 100,000 files): the
    watcher lists the folders itself and watches each alone, and watches a folder that appears."""
    from workbench.core.records import live

    watched: list[tuple[set[str], bool]] = []
    real_watch = live.watch

    def noting(*paths, **options):  # the real watch, its arguments noted
        watched.append(({str(path) for path in paths}, options.get("recursive", True)))
        yield from real_watch(*paths, **options)

    monkeypatch.setattr(live, "watch", noting)
    builder.add("mem-entity-core")
    root = builder.root
    (root / "notes" / "deeper").mkdir(parents=True)
    (root / ".hidden" / "inner").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (root / "linked").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    vault = Vault.open(root)
    watcher = vault.watch()
    try:
        assert watcher.ready.wait(5)
        visible = {str(root), str(root / "entities"), str(root / "notes"), str(root / "notes" / "deeper")}
        assert watched == [(visible, False)]
        (root / "notes" / "deeper" / "new" / "newer").mkdir(parents=True)
        builder.raw("notes/deeper/new/newer/mem-note-nested.md", doc_text("mem-note-nested"))
        assert wait_for(lambda: "mem-note-nested" in vault)
        assert wait_for(lambda: len(watched) > 1 and str(root / "notes" / "deeper" / "new" / "newer") in watched[-1][0])
        builder.raw("notes/deeper/new/newer/mem-note-later.md", doc_text("mem-note-later"))
        assert wait_for(lambda: "mem-note-later" in vault)  # heard by the new folder's own watch
    finally:
        watcher.stop()


def test_the_watchers_walks_never_set_off_the_cycle_collector(builder, monkeypatch):
    # A walk of the vault (the catch-up at the start, a sweep now and then) made an entry per file
    # that lived until it ended: at 100,000 files they set off full collections of every object
    # made since the app froze its heap, holding the interpreter 316 ms beside the TUI's screen.
    import gc
    import traceback

    from workbench.core.records import live

    for number in range(300):
        builder.add(f"mem-note-w{number}")
    vault = Vault.open(builder.root)
    in_walks: list[int] = []

    def collected(phase, info):
        if phase == "start" and threading.current_thread().name == "workbench-watcher":
            if any(frame.name == "walk_vault" for frame in traceback.extract_stack()):
                in_walks.append(info["generation"])

    thresholds = gc.get_threshold()
    gc.set_threshold(20, 2, 2)  # collections every few objects: a walk of 300 files meets many
    gc.callbacks.append(collected)
    monkeypatch.setattr(live, "SWEEP_SECONDS", 0.0)  # and a sweep after every batch
    watcher = vault.watch()
    try:
        assert watcher.ready.wait(10)
        builder.add("mem-note-after")
        assert wait_for(lambda: "mem-note-after" in vault)
        time.sleep(0.3)
    finally:
        watcher.stop()
        gc.callbacks.remove(collected)
        gc.set_threshold(*thresholds)
    assert gc.isenabled()
    assert in_walks == []


def _named(parent, name: bytes):
    import os
    from pathlib import Path

    return Path(os.fsdecode(os.path.join(os.fsencode(parent), name)))


def test_a_folder_named_in_another_encoding_leaves_the_rest_followed(tmp_path):
    """The OS watcher takes UTF-8 paths alone: a folder whose name is not UTF-8 (never taken by the
    walk either) is not handed to it, where it stopped the watcher for the whole vault."""
    root = tmp_path / "vault"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "mem-note-one.md").write_text(doc_text("mem-note-one"))
    _named(root, b"dossier-\xe9").mkdir()
    vault = Vault.open(root)
    watcher = vault.watch()
    try:
        assert watcher.ready.wait(5)
        (root / "notes" / "mem-note-two.md").write_text(doc_text("mem-note-two"))
        assert wait_for(lambda: "mem-note-two" in vault)
    finally:
        watcher.stop()


def test_a_vault_whose_own_name_is_not_utf8_is_followed_by_walks(tmp_path):
    """The vault's own folder named in another encoding: the OS watcher cannot watch it, so the
    vault is walked again every second, and what another process writes still reaches it."""
    root = _named(tmp_path, b"vault-\xff")
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "mem-note-one.md").write_text(doc_text("mem-note-one"))
    vault = Vault.open(root)
    heard = threading.Event()
    watcher = vault.watch(lambda paths, seconds: heard.set())
    try:
        assert watcher.ready.wait(5)
        (root / "notes" / "mem-note-two.md").write_text(doc_text("mem-note-two"))
        assert wait_for(lambda: "mem-note-two" in vault) and heard.wait(5)
    finally:
        watcher.stop()
    assert watcher._thread is not None and not watcher._thread.is_alive()
