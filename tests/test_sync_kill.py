"""`workbench sync` killed at every step of a merge, on vaults with hundreds of documents changed
on both sides, then run again: every edit of both sides is in the result, or a question names
the document. The same against a hostile remote (`*.md merge=union` in its `.gitattributes`, a
document replaced by a symlink, a `.gitmodules` with a command in it), and with an agent appending
to the documents while sync writes them.

Real git, real processes: each sync that is to die runs as `python -m workbench.cli` with
`WORKBENCH_CRASH_AT`, which kills it with `os._exit` at the named step."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from git_vaults import git, identify
from vault_builders import doc_path, doc_text
from workbench.cli import main
from workbench.core.storage import crashpoint
from workbench.core.storage.vaultfs import TEMP_MARK
from workbench.core.services import gitsync
from workbench.core.editing.docmerge import CONFLICTS_KEY
from workbench.core.vocabulary.parse import parse_bytes

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = 200  # changed on both sides
QUESTIONS = 8  # of them, with the title changed on both sides too
BODY = "# Note {n}\n\nFirst paragraph of {n}.\n\nMiddle paragraph.\n\nLast paragraph of {n}.\n"


def _id(n: int) -> str:
    return f"mem-note-sync-{n:03d}"


def _sync(vault: Path, crash: str | None = None, interrupt: str | None = None) -> subprocess.CompletedProcess:
    """`workbench sync` in a process of its own; killed at the step `crash`, or interrupted as by
    Ctrl+C at the step `interrupt` (see `crashpoint`)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("WORKBENCH_CRASH_AT", None)
    env.pop("WORKBENCH_INTERRUPT_AT", None)
    if crash:
        env["WORKBENCH_CRASH_AT"] = crash
    if interrupt:
        env["WORKBENCH_INTERRUPT_AT"] = interrupt
    return subprocess.run(
        [sys.executable, "-m", "workbench.cli", "--vault", str(vault), "sync"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=_as_from_a_terminal if interrupt else None,
    )


def _as_from_a_terminal() -> None:
    """Ctrl+C reaches the sync as it reaches one started from a shell: a test process may hold
    SIGINT blocked or ignored, and a child inherits both across `exec`."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _signal_state() -> str:
    """How this process holds SIGINT, for a failure's message."""
    return f"SIGINT here: {signal.getsignal(signal.SIGINT)}, blocked {signal.pthread_sigmask(signal.SIG_BLOCK, [])}"


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """A bare repository and two clones in step, holding DOCUMENTS notes: built once, copied per test."""
    base = tmp_path_factory.mktemp("sync-kill")
    bare = base / "vault.git"
    git(base, "init", "-q", "--bare", "-b", "main", str(bare))
    laptop = base / "laptop"
    git(base, "clone", "-q", str(bare), str(laptop))
    identify(laptop, "laptop")
    git(laptop, "checkout", "-q", "-b", "main")
    (laptop / "notes").mkdir()
    for n in range(DOCUMENTS):
        (laptop / doc_path(_id(n))).write_text(doc_text(_id(n), body=BODY.format(n=n)), encoding="utf-8")
    assert main(["--vault", str(laptop), "sync"]) == 0
    server = base / "server"
    git(base, "clone", "-q", str(bare), str(server))
    identify(server, "server")
    assert main(["--vault", str(server), "sync"]) == 0
    return base


@pytest.fixture
def clones(template, tmp_path) -> tuple[Path, Path]:
    """Fresh copies of the template's clones, their remote the copy's bare repository."""
    base = tmp_path / "copy"
    shutil.copytree(template, base, symlinks=True)
    for name in ("laptop", "server"):
        git(base / name, "remote", "set-url", "origin", str(base / "vault.git"))
        gitsync.setup(base / name)  # the driver's command names this Python: the same here
    return base / "laptop", base / "server"


def _edit(vault: Path, n: int, pairs: list[tuple[str, str]]) -> None:
    path = vault / doc_path(_id(n))
    text = path.read_text(encoding="utf-8")
    for old, new in pairs:
        assert old in text, (old, path)
        text = text.replace(old, new, 1)
    path.write_text(text, encoding="utf-8")


def _edit_both_sides(laptop: Path, server: Path, questions: int) -> None:
    """The laptop changes each document's tags and first paragraph, the server its confidence and
    last paragraph; in the first `questions` documents both change the title too."""
    for n in range(DOCUMENTS):
        laptop_pairs = [("tags: [core]", "tags: [core, laptop]"), (f"First paragraph of {n}.", f"Laptop first {n}.")]
        server_pairs = [("confidence: high", "confidence: low"), (f"Last paragraph of {n}.", f"Server last {n}.")]
        if n < questions:
            laptop_pairs.append((f"title: Title of {_id(n)}", f"title: Laptop title {n}"))
            server_pairs.append((f"title: Title of {_id(n)}", f"title: Server title {n}"))
        _edit(laptop, n, laptop_pairs)
        _edit(server, n, server_pairs)


def _assert_both_sides(vault: Path, skip: set[int] = frozenset()) -> None:
    for n in range(DOCUMENTS):
        if n in skip:
            continue
        data = (vault / doc_path(_id(n))).read_bytes()
        parsed = parse_bytes(data)
        assert parsed.meta is not None, (n, data[:300])
        meta, body = parsed.meta, parsed.body
        assert meta["tags"] == ["core", "laptop"], (n, meta["tags"])
        assert meta["provenance"]["confidence"] == "low", n
        assert f"Laptop first {n}." in body and f"Server last {n}." in body, (n, body)


def _settle_titles(server: Path, out: str, questions: int) -> None:
    """Every title question is named, with both values kept; each is answered `theirs`."""
    for n in range(questions):
        path = doc_path(_id(n))
        assert f"{path}: title: changed on both sides" in out, (n, out[-2000:])
        meta = parse_bytes((server / path).read_bytes()).meta
        assert meta[CONFLICTS_KEY]["title"]["theirs"] == f"Laptop title {n}"
        assert meta["title"] == f"Server title {n}"
        gitsync.settle(server, path, "title", "theirs")


STEPS = [
    "sync-committed",
    "sync-fetched",
    "sync-merged",
    "file-written:1",
    f"file-written:{DOCUMENTS // 2}",
    "committed",
    "sync-settled",
    "sync-before-push",
]


@pytest.mark.slow
@pytest.mark.parametrize("step", STEPS)
def test_sync_killed_at_each_step_of_a_merge_then_run_again_keeps_both_sides(clones, step):
    laptop, server = clones
    _edit_both_sides(laptop, server, 0)
    assert _sync(laptop).returncode == 0
    killed = _sync(server, step)
    assert killed.returncode == 137, (step, killed.returncode, killed.stdout, killed.stderr)
    again = _sync(server)
    assert again.returncode == 0, (again.stdout, again.stderr)
    assert "Traceback" not in again.stderr
    _assert_both_sides(server)
    assert git(server, "status", "--porcelain") == ""
    assert _sync(laptop).returncode == 0
    _assert_both_sides(laptop)
    assert git(laptop, "rev-parse", "HEAD") == git(server, "rev-parse", "HEAD")


def _temporaries(vault: Path) -> list[str]:
    """The writer's temporary files anywhere in the vault (git's own folder aside)."""
    return sorted(p.relative_to(vault).as_posix() for p in vault.rglob(f"*{TEMP_MARK}*") if ".git" not in p.parts)


@pytest.mark.slow
def test_sync_interrupted_while_the_writers_threads_write_leaves_no_temporary_file(clones):
    """Ctrl+C lands while sync's writer waits for its threads to write the merged documents' new
    versions, one of them still writing: nothing of the change is made and none of its temporary
    files stays in the vault (no later open could tell them from a person's files); the next sync
    merges as if nothing had happened."""
    laptop, server = clones
    _edit_both_sides(laptop, server, 0)
    assert _sync(laptop).returncode == 0
    before = {n: (server / doc_path(_id(n))).read_bytes() for n in range(DOCUMENTS)}
    interrupted = _sync(server, interrupt=f"temp-created:{DOCUMENTS // 2}")
    assert interrupted.returncode == 130, (
        interrupted.returncode,
        interrupted.stdout,
        interrupted.stderr,
        _signal_state(),
    )
    assert _temporaries(server) == []
    assert {n: (server / doc_path(_id(n))).read_bytes() for n in range(DOCUMENTS)} == before, "nothing written"
    again = _sync(server)
    assert again.returncode == 0, (again.stdout, again.stderr)
    _assert_both_sides(server)
    assert git(server, "status", "--porcelain") == ""
    assert _temporaries(server) == []


@pytest.mark.slow
def test_after_a_sync_killed_before_merging_pending_lists_every_document_not_merged(clones):
    """Killed once git stopped the merge and before any document was merged: what waits lists each
    document changed on both sides (the dialog said "every question is answered" over 200 unmerged
    documents); answering one is refused until sync has merged it; sync then asks only the titles."""
    laptop, server = clones
    _edit_both_sides(laptop, server, QUESTIONS)
    assert _sync(laptop).returncode == 0
    assert _sync(server, "sync-merged").returncode == 137
    assert gitsync.merge_in_progress(server)
    waiting = gitsync.pending(server)
    assert [q.path for q in waiting] == sorted(doc_path(_id(n)) for n in range(DOCUMENTS))
    assert {q.key for q in waiting} == {gitsync.NOT_MERGED} and "not merged yet" in waiting[0].reason
    with pytest.raises(gitsync.SyncError, match="not merged yet"):
        gitsync.settle(server, waiting[0].path, waiting[0].key, "ours")
    again = _sync(server)
    assert again.returncode == 1, (again.stdout, again.stderr)
    _assert_both_sides(server)
    asked = gitsync.pending(server)
    assert [(q.path, q.key) for q in asked] == [(doc_path(_id(n)), "title") for n in range(QUESTIONS)]


@pytest.mark.slow
@pytest.mark.parametrize("step", ["sync-merged", "sync-settled"])
def test_sync_killed_with_questions_open_asks_them_and_keeps_every_other_edit(clones, step):
    laptop, server = clones
    _edit_both_sides(laptop, server, QUESTIONS)
    assert _sync(laptop).returncode == 0
    assert _sync(server, step).returncode == 137
    again = _sync(server)
    assert again.returncode == 1, (again.stdout, again.stderr)
    _assert_both_sides(server)
    _settle_titles(server, again.stdout, QUESTIONS)
    assert _sync(server).returncode == 0
    assert _sync(laptop).returncode == 0
    _assert_both_sides(laptop)
    for n in range(QUESTIONS):
        meta = parse_bytes((laptop / doc_path(_id(n))).read_bytes()).meta
        assert meta["title"] == f"Laptop title {n}" and CONFLICTS_KEY not in meta


@pytest.mark.slow
@pytest.mark.parametrize("step", [None, "file-written:2"])
def test_a_hostile_remote_cannot_override_the_merge_hide_a_document_or_stop_the_fetch(clones, step):
    """The laptop pushes `*.md merge=union`, a `.gitmodules` whose update runs a command, and a
    symlink in place of a document the server edited, with every document changed on both sides."""
    laptop, server = clones
    _edit_both_sides(laptop, server, QUESTIONS)
    victim = DOCUMENTS - 1
    (laptop / doc_path(_id(victim))).unlink()
    os.symlink("/etc/passwd", laptop / doc_path(_id(victim)))
    with open(laptop / ".gitattributes", "a", encoding="utf-8") as attributes:
        attributes.write("*.md merge=union\n")
    marker = laptop.parent / "ran"
    (laptop / ".gitmodules").write_text(
        f'[submodule "evil"]\n\tpath = evil\n\turl = {laptop.parent / "nowhere"}\n\tupdate = !touch {marker}\n'
    )
    git(laptop, "add", "-A")
    git(laptop, "commit", "-qm", "hostile")
    git(laptop, "push", "-q", "origin", "main")
    if step:
        assert _sync(server, step).returncode == 137
    again = _sync(server)
    assert again.returncode == 1, (again.stdout, again.stderr)
    path = doc_path(_id(victim))
    assert f"{path}: file: a symbolic link on the other side, a document on the other" in again.stdout
    _assert_both_sides(server, skip={victim})
    _settle_titles(server, again.stdout, QUESTIONS)  # one title each, not two `title:` keys
    gitsync.settle(server, path, "file", "keep")
    assert not os.path.islink(server / path)
    kept = (server / path).read_text(encoding="utf-8")
    assert f"Server last {victim}." in kept
    assert _sync(server).returncode == 0
    assert _sync(server).returncode == 0  # the fetch after the .gitmodules landed
    assert not marker.exists()
    assert _sync(laptop).returncode == 0
    assert (laptop / path).read_text(encoding="utf-8") == kept
    _assert_both_sides(laptop, skip={victim})


def test_an_agents_appends_while_sync_writes_the_merged_documents_are_all_kept(clones, monkeypatch):
    """An agent appends a line with plain file I/O to a document just as sync swaps in its merge
    (at each of the first writes): the vault's writer sees the file changed, puts everything back,
    and sync merges again with the agent's line in. None is lost, here or on the other clone."""
    laptop, server = clones
    _edit_both_sides(laptop, server, 0)
    assert main(["--vault", str(laptop), "sync"]) == 0
    real = crashpoint.crash_point
    appended: list[tuple[int, str]] = []

    def agent(name: str) -> None:
        if name in ("before-rename", "file-written") and len(appended) < 6:
            n = len(appended) * 7 % DOCUMENTS
            line = f"Agent line {len(appended)} for {n}.\n"
            with open(server / doc_path(_id(n)), "a", encoding="utf-8") as handle:
                handle.write(line)
            appended.append((n, line))
        real(name)

    monkeypatch.setattr(crashpoint, "crash_point", agent)
    assert main(["--vault", str(server), "sync"]) == 0
    monkeypatch.setattr(crashpoint, "crash_point", real)
    assert len(appended) == 6
    _assert_both_sides(server)
    assert main(["--vault", str(laptop), "sync"]) == 0
    for n, line in appended:
        assert line in (server / doc_path(_id(n))).read_text(encoding="utf-8"), line
        assert line in (laptop / doc_path(_id(n))).read_text(encoding="utf-8"), line
    _assert_both_sides(laptop)


def test_a_document_changed_between_its_new_version_written_and_swapped_in_is_merged_again(clones, monkeypatch):
    """Sync's writer writes every merged document to a temporary file first, then swaps each in.
    An agent appends to the last of them with plain file I/O after its new version is written and
    before it is swapped in: the writer refuses the whole change (nothing of it stays) and sync
    merges again from the file as it now is, the agent's line in, here and on the other clone."""
    laptop, server = clones
    _edit_both_sides(laptop, server, 0)
    assert main(["--vault", str(laptop), "sync"]) == 0
    real = crashpoint.crash_point
    target = server / doc_path(_id(DOCUMENTS - 1))
    line = "Agent line between the write and the swap.\n"
    seen: list[str] = []

    def agent(name: str) -> None:
        seen.append(name)
        if name == "before-rename" and "journal-written" in seen and seen.count("agent") == 0:
            # every new version is on disk already, this one's too, and no file is swapped yet
            assert list(target.parent.glob(f".{target.name}.wb-*.tmp")), "its new version is not written yet"
            assert seen.count("file-written") == 0
            with open(target, "a", encoding="utf-8") as handle:
                handle.write(line)
            seen.append("agent")
        real(name)

    monkeypatch.setattr(crashpoint, "crash_point", agent)
    assert main(["--vault", str(server), "sync"]) == 0
    monkeypatch.setattr(crashpoint, "crash_point", real)
    assert "agent" in seen
    assert seen.count("journal-written") == 2  # refused once, written the second time
    assert line in target.read_text(encoding="utf-8")
    assert not list(target.parent.glob("*.tmp"))
    _assert_both_sides(server)
    assert main(["--vault", str(laptop), "sync"]) == 0
    assert line in (laptop / doc_path(_id(DOCUMENTS - 1))).read_text(encoding="utf-8")
    _assert_both_sides(laptop)


AGENT = """
import dataclasses, os, sys, time
from workbench import ConflictError, Vault
root, stop, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
vault = Vault.open(root)
number = 0
while not os.path.exists(stop):
    doc_id = f"mem-note-sync-{number % count:03d}"
    token = f"Agent line {number}."
    for _ in range(200):
        vault.refresh()
        doc = vault.get(doc_id)
        try:
            vault.save(dataclasses.replace(doc, body=doc.body + token + "\\n"))
        except ConflictError:
            continue
        print(token, doc_id, flush=True)
        break
    number += 1
"""


@pytest.mark.slow
def test_an_agent_process_saving_while_sync_runs_loses_no_line(clones, tmp_path):
    """An agent process appends through the workbench to documents both sides changed, all the
    while a `workbench sync` process commits, fetches, merges and pushes: every line it was told
    was written is in the merged result, here and on the other clone."""
    laptop, server = clones
    _edit_both_sides(laptop, server, 0)
    assert _sync(laptop).returncode == 0
    stop = tmp_path / "stop"
    agent = subprocess.Popen(
        [sys.executable, "-c", AGENT, str(server), str(stop), "40"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # sync starts once the agent has written, so its writes overlap the whole sync whatever
        # the machine's load does to the agent's own start
        first = agent.stdout.readline() if agent.stdout else ""
        ran = _sync(server)
    finally:
        stop.touch()
        out, errors = agent.communicate(timeout=120)
    assert agent.returncode == 0, errors
    assert ran.returncode == 0, (ran.stdout, ran.stderr)
    acknowledged = [line.split(" mem-note-") for line in (first + out).splitlines()]
    assert len(acknowledged) > 5, first + out  # the agent did write meanwhile
    assert _sync(server).returncode == 0  # what the agent wrote after the merge, committed and pushed
    assert _sync(laptop).returncode == 0
    for token, suffix in acknowledged:
        path = doc_path(f"mem-note-{suffix}")
        assert token + "\n" in (server / path).read_text(encoding="utf-8"), token
        assert token + "\n" in (laptop / path).read_text(encoding="utf-8"), token
    _assert_both_sides(laptop)
