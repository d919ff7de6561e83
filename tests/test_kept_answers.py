"""`conflicts --json` and `review --json` asked of a vault none of whose files changed are answered
from what was kept under a stat walk's fingerprint, without opening the vault; any change, doubt
or damaged store goes the usual way. Real files, a real store, the command as its own process."""

from __future__ import annotations

import ast
import datetime as dt
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from workbench import Vault
from workbench.cli.main import quick_arguments, quick_question
from workbench.cli.parser import parse_arguments
from workbench.core.services.kept_answers import ANSWERS, Fingerprint, state_places

ROOT = Path(__file__).resolve().parent.parent
DECISION = "decisions/mem-decision-money-integer-cents.md"
# The command, then which way it went: the index module is imported only by opening the vault.
SCRIPT = (
    "import sys; from workbench.cli import main; code = main(); "
    "print('opened' if 'workbench.core.index' in sys.modules else 'kept', file=sys.stderr); sys.exit(code)"
)


def run(vault: Path, *args: str, env: dict | None = None, flavour: str = "") -> tuple[str, str, str]:
    """(stdout, "opened" or "kept", stderr) of `workbench --vault VAULT [--flavour F] ARGS...`."""
    reading = ["--flavour", flavour] if flavour else []
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, "--vault", str(vault), *reading, *args],
        capture_output=True,
        text=True,
        cwd=(env or {}).get("PYTHONPATH", ROOT),  # the code on the path first, not the one here
        env={**os.environ, **(env or {})},
    )
    assert result.returncode == 0, result.stderr
    lines = result.stderr.strip().splitlines()
    return result.stdout, lines[-1], "\n".join(lines[:-1])


def kept_after_usual_runs(vault: Path, *args: str, env: dict | None = None, flavour: str = "") -> str:
    """The answer the usual way gives, asserted answered from what was kept by the next run or
    the one after (a copy just made may hold files, not documents, changed in the first walk's
    tick: nothing is kept for those until a walk finds them settled)."""
    first, way, _ = run(vault, *args, env=env, flavour=flavour)
    assert way == "opened"
    for _ in range(2):
        again, way, noted = run(vault, *args, env=env, flavour=flavour)
        assert again == first
        if way == "kept":
            assert noted == ""
            return first
    raise AssertionError("never answered from what was kept")


def adr_vault(folder: Path) -> Path:
    """A decision collection of another format: its store lives in the user's cache."""
    folder.mkdir()
    titles = ["Use PostgreSQL for storage", "Use MySQL for storage", "Record architecture decisions"]
    for number, title in enumerate(titles, start=1):
        (folder / f"{number:04d}-{title.lower().replace(' ', '-')}.md").write_text(
            f"# {number}. {title}\n\nDate: 2024-0{number}-01\n\n## Status\n\nAccepted\n\n## Context\n\n"
            f"We need to decide how to store invoices. {title} because the team knows it well.\n\n"
            "## Decision\n\nWe will store invoices in one relational database, amounts in integer cents.\n",
            "utf-8",
        )
    return folder


def store_of(vault: Path) -> Path:
    found = [Path(p) / "index.sqlite" for p in state_places(str(vault.resolve()))]
    return next(p for p in found if p.is_file())


def edit_kept(vault: Path, command: str, change) -> None:
    """Change the answer kept for `command` in the vault's store, as a damaged or older one holds it."""
    with sqlite3.connect(store_of(vault)) as db:
        key, value = db.execute("SELECT key, value FROM kept WHERE name = ?", (ANSWERS[command],)).fetchone()
        db.execute("UPDATE kept SET value = ? WHERE name = ?", (change(value), ANSWERS[command]))


@pytest.mark.parametrize("command", ["conflicts", "review"])
def test_an_unchanged_vault_is_answered_without_opening_it_byte_for_byte(sample_copy, command):
    kept_after_usual_runs(sample_copy, command, "--json")
    # The usual way, asked to work everything out again, gives the same bytes.
    if command == "conflicts":
        full, way, _ = run(sample_copy, "conflicts", "--json", "--full")
        assert way == "opened" and full == run(sample_copy, "conflicts", "--json")[0]


@pytest.mark.parametrize("command", ["conflicts", "review"])
def test_a_vault_whose_store_is_in_the_users_cache_is_answered_too(tmp_path, command):
    vault = adr_vault(tmp_path / "adrs")
    answer = kept_after_usual_runs(vault, command, "--json", flavour="adr")
    assert not (vault / ".workbench").exists()  # another format's folder: nothing written into it
    # Asked as another flavour, the same files are another question.
    assert run(vault, command, "--json", flavour="markdown")[1] == "opened"
    assert answer == run(vault, command, "--json", flavour="adr")[0]


def test_a_vault_in_a_memory_folder_is_answered_and_its_changes_seen(sample_copy, tmp_path):
    """The folder named holds the vault in its `memory/` child: the walk covers both."""
    outer = tmp_path / "agent"
    outer.mkdir()
    shutil.move(sample_copy, outer / "memory")
    before = kept_after_usual_runs(outer, "conflicts", "--json")
    assert (outer / "memory" / ".workbench" / "index.sqlite").is_file()
    deleted(outer / "memory")
    after, way, _ = run(outer, "conflicts", "--json")
    assert way == "opened" and after != before
    assert run(outer, "conflicts", "--json")[:2] == (after, "kept")  # kept for the vault as it is now


def same_size_edit(vault: Path) -> None:
    """An agent's plain-file write of the same length, its modification time put back."""
    path = vault / DECISION
    before = path.stat()
    text = path.read_text("utf-8")
    assert "integer cents" in text
    path.write_text(text.replace("integer cents", "integer pence", 1), "utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def added(vault: Path) -> None:
    text = (vault / DECISION).read_text("utf-8").replace("mem-decision-money-integer-cents", "mem-decision-copy")
    (vault / "decisions/mem-decision-copy.md").write_text(text, "utf-8")


def deleted(vault: Path) -> None:
    (vault / DECISION).unlink()


def renamed(vault: Path) -> None:
    (vault / DECISION).rename(vault / "decisions/mem-decision-money-in-cents.md")


def settings_edited(vault: Path) -> None:
    path = vault / ".workbench.yaml"
    path.write_text((path.read_text("utf-8") if path.exists() else "") + "# read by the curator\n", "utf-8")


def journal_left(vault: Path) -> None:
    """A change in flight (here one a crash left, and not one of ours): the next open finishes it."""
    (vault / ".workbench" / "journal").mkdir(parents=True, exist_ok=True)
    (vault / ".workbench" / "journal" / "left.json").write_text("{}", "utf-8")


def not_a_document(vault: Path) -> None:
    (vault / "decisions" / "diagram.txt").write_text("boxes and arrows\n", "utf-8")


def symlinked(vault: Path) -> None:
    (vault / "decisions" / "elsewhere.md").symlink_to(vault / DECISION)


def line_break_named(vault: Path) -> None:
    """A name that could pass for two lines of the walk: never answered from what was kept."""
    (vault / "decisions" / "two\nlines.md").write_text("# Two lines\n", "utf-8")


def kept_day_moved(vault: Path) -> None:
    """The day changed since: as if the answer had been kept yesterday."""
    yesterday = str(dt.date.today() - dt.timedelta(days=1))
    edit_kept(vault, "conflicts", lambda v: json.dumps({**json.loads(v), "day": yesterday}))


@pytest.mark.parametrize(
    "change",
    [
        same_size_edit,
        added,
        deleted,
        renamed,
        settings_edited,
        journal_left,
        not_a_document,
        symlinked,
        line_break_named,
        kept_day_moved,
    ],
)
def test_any_change_goes_the_usual_way_and_gives_the_new_answer(sample_copy, tmp_path, change):
    before = kept_after_usual_runs(sample_copy, "conflicts", "--json")
    change(sample_copy)
    after, way, _ = run(sample_copy, "conflicts", "--json")
    assert way == "opened"
    fresh = tmp_path / "fresh"
    shutil.copytree(sample_copy, fresh, ignore=shutil.ignore_patterns(".workbench"), symlinks=True)
    cache = {"XDG_CACHE_HOME": str(tmp_path / "fresh-cache")}
    assert after == run(fresh, "conflicts", "--json", env=cache)[0]  # as a vault never seen works it out
    if change in (same_size_edit, added, deleted):  # a rename names the same ids
        assert after != before


def test_a_change_to_the_core_goes_the_usual_way(sample_copy, tmp_path):
    code = tmp_path / "code"
    shutil.copytree(ROOT / "workbench", code / "workbench", ignore=shutil.ignore_patterns("__pycache__"))
    env = {"PYTHONPATH": str(code)}
    before = kept_after_usual_runs(sample_copy, "conflicts", "--json", env=env)
    source = code / "workbench" / "core" / "services" / "conflicts.py"
    source.write_text(source.read_text("utf-8") + "\n# a comment: another version of the code\n", "utf-8")
    after, way, _ = run(sample_copy, "conflicts", "--json", env=env)
    assert (after, way) == (before, "opened")
    assert run(sample_copy, "conflicts", "--json", env=env)[:2] == (before, "kept")  # kept for this code


def test_a_file_changed_in_the_walks_tick_is_compared_by_its_bytes(sample_copy):
    """A decision changed just before the walk (as an agent writes and asks at once): its stat
    cannot say whether it changed again in the same tick, so the answer is kept with the digest of
    the bytes it read, and given only while the file holds those bytes. (The walk is taken here,
    in this process, right after the write, as the command takes it: a process started after it
    may come later than the tick on a loaded machine.)"""
    kept_after_usual_runs(sample_copy, "conflicts", "--json")
    path = sample_copy / DECISION
    path.write_text(path.read_text("utf-8") + "\nThe ledger keeps cents.\n", "utf-8")
    fingerprint = Fingerprint(str(sample_copy), None, ("conflicts", False), (ROOT / "workbench" / "cli").glob("*.py"))
    changed = Vault.open(sample_copy).conflicts_json(unchanged=fingerprint) + "\n"
    with sqlite3.connect(store_of(sample_copy)) as db:
        (value,) = db.execute("SELECT value FROM kept WHERE name = ?", (ANSWERS["conflicts"],)).fetchone()
    assert DECISION in json.loads(value)["racy"]
    assert run(sample_copy, "conflicts", "--json")[:2] == (changed, "kept")
    # The same stat with other bytes (as a second write in the same tick leaves it): the usual way.
    edit_kept(sample_copy, "conflicts", lambda v: json.dumps({**json.loads(v), "racy": {DECISION: "0" * 64}}))
    assert run(sample_copy, "conflicts", "--json")[:2] == (changed, "opened")


@pytest.mark.parametrize(
    "damage",
    [
        lambda store: store.write_bytes(b"not a database at all" * 100),
        lambda store: sqlite3.connect(store).execute("DROP TABLE kept").connection.commit(),
        lambda store: (
            sqlite3.connect(store)
            .execute("UPDATE kept SET value = '{[' WHERE name LIKE 'answer.%'")
            .connection.commit()
        ),
        lambda store: sqlite3.connect(store).execute("DELETE FROM kept WHERE name = 'conflicts'").connection.commit(),
        lambda store: sqlite3.connect(store).execute("PRAGMA user_version = 7").connection.commit(),
    ],
    ids=["not-sqlite", "no-table", "not-json", "queue-gone", "older-schema"],
)
def test_a_damaged_store_goes_the_usual_way_without_a_traceback(sample_copy, damage):
    before = kept_after_usual_runs(sample_copy, "conflicts", "--json")
    damage(store_of(sample_copy))
    after, way, noted = run(sample_copy, "conflicts", "--json")
    assert (after, way) == (before, "opened") and "Traceback" not in noted


def test_a_locked_store_is_no_answer(sample_copy):
    """Another process holding the store's write lock (its log folded back, so readers wait too):
    the kept answer is not waited for, and nothing is raised."""
    kept_after_usual_runs(sample_copy, "conflicts", "--json")
    asked = quick_question(["--vault", str(sample_copy), "conflicts", "--json"])
    assert asked is not None
    face = (ROOT / "workbench" / "cli").glob("*.py")
    assert Fingerprint(asked[1], None, asked[0], face).answer() is not None
    db = sqlite3.connect(store_of(sample_copy), isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode = DELETE")
        db.execute("BEGIN EXCLUSIVE")
        face = (ROOT / "workbench" / "cli").glob("*.py")
        assert Fingerprint(asked[1], None, asked[0], face).answer() is None
    finally:
        db.close()


def test_two_processes_keeping_at_once_leave_an_answer_equal_to_the_usual_one(sample_copy):
    """Two usual runs race to keep their answers (after a change both see), a third reads one."""
    before = kept_after_usual_runs(sample_copy, "conflicts", "--json")
    added(sample_copy)
    command = [sys.executable, "-c", SCRIPT, "--vault", str(sample_copy), "conflicts", "--json"]
    both = [
        subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in "ab"
    ]
    answers = [p.communicate()[0] for p in both]
    assert all(p.returncode == 0 for p in both) and answers[0] == answers[1] != before
    assert run(sample_copy, "conflicts", "--json")[:2] == (answers[0], "kept")


def test_only_the_exact_command_lines_are_answered_from_what_was_kept(sample_copy):
    kept_after_usual_runs(sample_copy, "conflicts", "--json")
    assert run(sample_copy, "conflicts", "--json", "--full")[1] == "opened"
    assert run(sample_copy, "conflicts")[1] == "opened"
    vault = str(sample_copy)
    assert quick_question(["--vault", vault, "conflicts", "--json"]) == (("conflicts", False), vault, None)
    assert quick_question([f"--vault={vault}", "--flavour=adr", "review", "--json"])[2] == "adr"
    for argv in (
        ["--vau", vault, "conflicts", "--json"],  # abbreviated: the parser's business
        ["--vault", vault, "--vault", vault, "conflicts", "--json"],
        ["--vault", vault, "conflicts", "--json", "--full"],
        ["--vault", vault, "review", "--json", "--limit", "3"],
        ["--vault", "-x", "conflicts", "--json"],
        ["conflicts", "--json"],  # no vault named: the usual way looks for one
        ["--vault", "a\nb", "conflicts", "--json"],
    ):
        assert quick_question(argv) is None, argv


def test_a_queue_worked_out_after_a_change_loads_no_module_only_a_write_needs(sample_copy, tmp_path):
    """`conflicts --json` and `review --json` after a change open the vault and write only the
    derived store: the modules a write to the vault needs (its lock's host name, the journal's
    encoding, a folder's removal, the crash points' signal, the edits of frontmatter and the
    merges of texts) are not imported for them. (PyYAML
    imports base64 itself, and the review page's cursor is base64 text: asked of decision records
    without frontmatter and of the queue alone.)"""
    only_writes = ("socket", "shutil", "base64", "signal")
    vaults = [sample_copy, adr_vault(tmp_path / "records")]
    for vault, flavour in zip(vaults, ("", "adr")):
        for command in ("conflicts", "review"):
            run(vault, command, "--json", flavour=flavour)
            target = next(p for p in sorted(vault.rglob("*.md")) if "decision" in p.read_text("utf-8"))
            with target.open("a", encoding="utf-8") as file:
                file.write("\nOne sentence more.\n")
            reading = ["--flavour", flavour] if flavour else []
            code = (
                "import sys; from workbench.cli import main; main(); "
                f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({only_writes!r})"
                " | {m for m in sys.modules if m.startswith('workbench.core.editing')}), file=sys.stderr)"
            )
            result = subprocess.run(
                [sys.executable, "-c", code, "--vault", str(vault), *reading, command, "--json"],
                capture_output=True,
                text=True,
                cwd=ROOT,
            )
            assert result.returncode == 0, result.stderr
            loaded = set(ast.literal_eval(result.stderr.strip().splitlines()[-1]))
            allowed = {"base64"} if not flavour or command == "review" else set()
            assert loaded <= allowed, (flavour, command, loaded)


def test_lines_are_hashed_a_piece_at_a_time_to_the_digest_of_their_whole_text():
    """The fingerprint's and the queue key's lines are fed to the digest a thousand at a time,
    never joined whole, and give the digest of the whole text (names that are not UTF-8 too)."""
    import hashlib

    from workbench.core.services.kept_conflicts import LINES_A_PIECE, update_lines

    for count in (0, 1, LINES_A_PIECE - 1, LINES_A_PIECE, LINES_A_PIECE + 1, 3 * LINES_A_PIECE + 7):
        lines = [f"notes/{n}\udcff.md\0{n}" for n in range(count)]
        pieces = hashlib.sha256()
        update_lines(pieces, lines, "surrogateescape")
        assert pieces.hexdigest() == hashlib.sha256("\n".join(lines).encode("utf-8", "surrogateescape")).hexdigest()


def test_a_quick_command_line_is_parsed_as_the_parser_parses_it(monkeypatch):
    """A quick line that finds nothing kept runs without building the parser: the arguments it is
    given are the parser's own, whichever way the vault and the flavour are named; a flavour the
    parser refuses, or any other line, goes to the parser."""
    monkeypatch.setenv("WORKBENCH_VAULT", "/somewhere")
    lines = [
        ["--vault", "/v", "conflicts", "--json"],
        ["--vault=/v", "review", "--json"],
        ["--flavour", "adr", "--vault", "/v", "review", "--json"],
        ["--vault", "/v", "--flavour=dendron", "conflicts", "--json"],
        ["conflicts", "--json"],  # the vault from the environment: the parser gives no --vault either
    ]
    for argv in lines:
        assert quick_question(argv) is not None, argv
        assert quick_arguments(argv) == parse_arguments(argv), argv
    assert quick_arguments(["--vault", "/v", "--flavour", "nope", "review", "--json"]) is None
    assert quick_arguments(["--vault", "/v", "review", "--json", "--limit", "3"]) is None


def test_the_open_after_a_miss_takes_the_folders_as_the_fingerprint_listed_them(sample_copy, tmp_path):
    """A call that finds nothing kept walks the vault once: its open takes every folder of the
    vault the fingerprint listed (a `memory/` child's parent is not the vault's), and reads the
    same vault as an open that lists them itself."""
    nested = tmp_path / "outer"
    shutil.copytree(sample_copy, nested / "memory")
    for root in (sample_copy, nested):
        fingerprint = Fingerprint(str(root), None, ("conflicts", False))
        assert fingerprint.listing and not fingerprint.doubt
        listed = Vault.open(root, listed=fingerprint.listing)
        outside = {os.path.realpath(nested)} if root is nested else set()
        assert set(fingerprint.listing) == outside  # every folder of the vault taken, none listed twice
        again = Vault.open(root)
        assert [(d.path, d.id, d.digest) for d in listed.documents] == [
            (d.path, d.id, d.digest) for d in again.documents
        ]
        assert listed.problems == again.problems


def test_the_quick_commands_run_without_the_cyclic_collector_and_give_it_back(sample_copy, capsys):
    """`conflicts --json` and `review --json` answer with the cyclic collector paused (the process
    ends after one answer), and leave it as they found it for a caller that goes on."""
    import gc

    from workbench.cli import main

    collections: list[int] = []

    def counted(phase: str, info: dict) -> None:
        if phase == "start":
            collections.append(info["generation"])

    gc.callbacks.append(counted)
    try:
        for command in ("conflicts", "review"):
            assert gc.isenabled()
            before = len(collections)
            assert main(["--vault", str(sample_copy), command, "--json"]) == 0
            assert len(collections) == before  # the vault opened, the answer worked out: no collection
            assert gc.isenabled()
            json.loads(capsys.readouterr().out)
        before = len(collections)
        junk = [[n] for n in range(100_000)]  # the collector runs again once given back
        assert len(collections) > before and junk
    finally:
        gc.callbacks.remove(counted)


def test_the_entries_handed_to_the_open_answer_without_their_folder(sample_copy, tmp_path):
    """The fingerprint lists each folder through a descriptor it closes after: every entry it
    hands to the open answers what the open asks (its kind, its stat) from what it cached, the
    stat of the file at that path; a folder given up half way (a symlink found in it) is not
    handed over, as its later entries cached nothing."""
    (sample_copy / "notes").mkdir(exist_ok=True)
    (sample_copy / "notes" / "a-later-file.md").write_text("x\n", "utf-8")
    fingerprint = Fingerprint(str(sample_copy), None, ("conflicts", False))
    assert fingerprint.listing and not fingerprint.doubt
    for folder, entries in fingerprint.listing.items():
        for entry in entries:
            full = os.path.join(folder, entry.name)
            st = os.lstat(full)
            assert entry.is_dir(follow_symlinks=False) == os.path.isdir(full)
            assert not entry.is_symlink()
            if entry.is_file(follow_symlinks=False):
                cached = entry.stat(follow_symlinks=False)
                assert (cached.st_ino, cached.st_size, cached.st_mtime_ns) == (st.st_ino, st.st_size, st.st_mtime_ns)
    os.symlink(sample_copy / "notes" / "a-later-file.md", sample_copy / "notes" / "0-link.md")
    doubtful = Fingerprint(str(sample_copy), None, ("conflicts", False))
    assert doubtful.doubt and str(sample_copy / "notes") not in doubtful.listing
