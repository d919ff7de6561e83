"""A cold open of a large vault parses in worker processes and gives exactly what one process gives."""

from __future__ import annotations

import shutil
import threading

import pytest

from tests.benchmarks.generate import generate_vault
from workbench import Vault
from workbench.core.records.loading import PARALLEL_MIN, _context


def snapshot(vault):
    """Everything a record holds. A worker sends only the store's row of a record; the parent makes
    the record from it, so any field the row lost would show here."""
    return sorted(
        (
            r.path,
            r.size,
            r.mtime_ns,
            r.document.id,
            r.document.digest,
            r.document.valid,
            repr(r.document.meta),
            r.document.body,
            r.document.view,
            r.document.updated,
            tuple(r.problems),
            tuple(sorted(r.key_lines.items())),
        )
        for r in vault.records
    )


# Frontmatter the store's JSON keeps differently or not at all: keys YAML reads as a number or a
# date, and bytes (such a record crosses from a worker whole, and is parsed again at every open).
ODD_META = {
    "mem-note-int-key.md": "---\nid: mem-note-int-key\ntype: note\nstatus: active\n1: one\n---\nbody\n",
    "mem-note-date-key.md": "---\nid: mem-note-date-key\ntype: note\nstatus: active\n2024-01-02: a day\n---\nbody\n",
    "mem-note-binary.md": "---\nid: mem-note-binary\ntype: note\nstatus: active\nblob: !!binary aGVsbG8=\n---\nbody\n",
}


def open_in_a_thread(root):
    """As the TUI opens a vault: from a worker thread, so the workers come from a fork server."""
    found = []
    thread = threading.Thread(target=lambda: found.append(snapshot(Vault.open(root))))
    thread.start()
    thread.join()
    return found[0]


@pytest.mark.slow
def test_parallel_and_serial_opens_agree(tmp_path, monkeypatch):
    root = tmp_path / "vault"
    generate_vault(root, PARALLEL_MIN + 100)
    (root / "notes" / "mem-note-broken.md").write_text("---\ntitle: [broken\n---\nbody\n")
    for name, text in ODD_META.items():
        (root / "notes" / name).write_text(text)
    if threading.active_count() == 1:  # one thread (no watcher left by another test): workers are forked
        assert _context(PARALLEL_MIN + 101).get_start_method() == "fork"
    parallel = snapshot(Vault.open(root))
    shutil.rmtree(root / ".workbench")
    assert open_in_a_thread(root) == parallel
    shutil.rmtree(root / ".workbench")
    monkeypatch.setenv("WORKBENCH_SERIAL", "1")
    serial = snapshot(Vault.open(root))
    assert parallel == serial and len(parallel) == PARALLEL_MIN + 101 + len(ODD_META)
    warm = Vault.open(root)
    assert snapshot(warm) == serial
    assert [h.id for h in warm.search("invoice", 3)]


def test_a_file_is_read_whole_up_to_the_limit_and_no_further(tmp_path):
    from workbench.core.vocabulary.parse import MAX_FILE_BYTES
    from workbench.core.vocabulary.files import FIRST_READ
    from workbench.core.records.record import read_document

    for size in (0, 1, FIRST_READ - 1, FIRST_READ, FIRST_READ + 1, 3 * FIRST_READ + 7):
        data = bytes(range(256)) * (size // 256) + bytes(size % 256)
        (tmp_path / "f.md").write_bytes(data)
        assert read_document(tmp_path / "f.md") == data
    (tmp_path / "big.md").write_bytes(b"x" * (MAX_FILE_BYTES + 100))
    assert len(read_document(tmp_path / "big.md")) == MAX_FILE_BYTES + 1
    assert read_document(tmp_path / "gone.md") is None


def test_a_vault_that_searched_and_drew_its_graph_is_freed_without_the_cycle_collector(sample_copy):
    """Opening vaults one after another must not pile them up until a collection: a cold open
    pauses the collector, so a vault kept alive by a cycle would stay for the whole next open."""
    import gc
    import weakref

    vault = Vault.open(sample_copy)
    vault.search("postgres")
    vault.search("type:task")
    vault.search("postgress")  # typo matching: the title maps
    vault.graph()
    vault.neighbourhood("mem-entity-postgres", 2)
    gone = weakref.ref(vault)
    enabled = gc.isenabled()
    gc.disable()
    try:
        del vault
        assert gone() is None
    finally:
        if enabled:
            gc.enable()


@pytest.mark.slow
def test_a_cold_open_in_a_tui_whose_stderr_has_no_descriptor_starts_its_workers(tmp_path):
    """Textual replaces `sys.stderr` with a capture whose `fileno()` is -1; starting the worker
    processes from the TUI then failed ("bad value(s) in fds_to_keep") and a large vault opened
    for the first time showed nothing. A fresh interpreter, so that no fork server or resource
    tracker is already running to hide it."""
    import subprocess
    import sys
    from pathlib import Path

    root = tmp_path / "vault"
    generate_vault(root, PARALLEL_MIN + 100)
    script = (
        "import sys, threading\n"
        "class Capture:\n"
        "    def write(self, text): return len(text)\n"
        "    def flush(self): pass\n"
        "    def fileno(self): return -1\n"
        "sys.stderr = Capture()\n"
        "from workbench import Vault\n"
        "from workbench.core.records.loading import _context\n"
        "found = []\n"
        "def open_it():\n"
        "    assert _context(len(list(__import__('pathlib').Path(sys.argv[1]).rglob('*.md')))) is not None\n"
        "    found.append(len(Vault.open(sys.argv[1])))\n"
        "thread = threading.Thread(target=open_it)\n"
        "thread.start(); thread.join()\n"
        "print(found[0] if found else 'failed')\n"
    )
    project = str(Path(__file__).resolve().parents[1])
    result = subprocess.run(
        [sys.executable, "-c", script, str(root)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=project,
        env={**__import__("os").environ, "PYTHONPATH": project},
    )
    assert result.stdout.strip() == str(PARALLEL_MIN + 100), result.stdout + result.stderr
