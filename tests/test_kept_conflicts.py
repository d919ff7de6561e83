"""The conflicts queue kept in the derived store: read when nothing it depends on changed, worked
out again when anything did, never served stale."""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import datetime as dt
import json
import marshal
import subprocess
import sys
from pathlib import Path

import workbench.core
import workbench.core.services.conflicts
from workbench import Vault
from workbench.core.services import kept_conflicts
from workbench.core.views import similarity
from workbench.core.vocabulary import supersession
from workbench.core.services.conflicts import Conflicts, find_conflicts
from workbench.core.flavours import adr
from workbench.core.records.record import today

ROOT = Path(__file__).resolve().parent.parent
DECISION = "decisions/mem-decision-money-integer-cents.md"


def queue_in_a_fresh_process(root: Path) -> dict:
    """`workbench conflicts --json` as its own process."""
    result = subprocess.run(
        [sys.executable, "-c", "import sys; from workbench.cli import main; sys.exit(main())", "--vault", str(root)]
        + ["conflicts", "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    return json.loads(result.stdout)


def worked_out(vault: Vault) -> Conflicts:
    return find_conflicts(vault.documents, vault.flavour.native)


def key_of(vault: Vault) -> str:
    return kept_conflicts.queue_key(
        vault.documents, vault.flavour.reading, vault.flavour.native, today(), kept_conflicts.code_fingerprint()
    )


def test_a_file_changed_between_two_fresh_processes_gives_the_new_queue(sample_copy):
    before = queue_in_a_fresh_process(sample_copy)
    assert queue_in_a_fresh_process(sample_copy) == before  # the second one read the kept queue
    path = sample_copy / DECISION
    # Plain file I/O, no workbench: the decision now names a successor that does not name it back.
    path.write_text(
        path.read_text("utf-8").replace("superseded_by: []", "superseded_by: [mem-decision-money-numeric-decimal]"),
        "utf-8",
    )
    after = queue_in_a_fresh_process(sample_copy)
    assert after != before
    assert after == {"conflicts": [c.to_json() for c in worked_out(Vault.open(sample_copy))]}


def test_the_queue_is_kept_and_read_back_equal(sample_copy):
    vault = Vault.open(sample_copy)
    first = vault.conflicts()
    assert first == worked_out(vault)
    kept = kept_conflicts.kept_queue(vault.store, key_of(vault))
    assert kept is not None and kept_conflicts.decode(kept) == first
    again = Vault.open(sample_copy).conflicts()
    assert again == first and [c.rank for c in again] == [c.rank for c in first]
    printed = json.dumps({"conflicts": [c.to_json() for c in first]}, indent=2, ensure_ascii=False)
    assert Vault.open(sample_copy).conflicts_json() == printed


def test_the_kept_queue_is_decoded_one_entry_at_a_time(sample_copy):
    # The whole queue in one `json.loads` held the interpreter 0.3 s at 100,000 documents (75,000
    # conflicts): a screen reading it in a thread stood still as long. Entry by entry, the first
    # comes back before the rest is parsed, and what is not a list is still refused.
    entries = kept_conflicts._entries(' [ ["a", [1]] , {"b": 2}, 3 ]\n')
    assert next(entries) == ["a", [1]]
    assert list(entries) == [{"b": 2}, 3]
    damaged = kept_conflicts._entries('[["a"], ["b"], oops]')
    assert next(damaged) == ["a"]
    assert list(kept_conflicts._entries("[]")) == []
    for text in ("", "{}", "[1 2]", "[1,]", "[1] [2]", "[1"):
        assert kept_conflicts.decode(text) is None, text
    found = find_conflicts(Vault.open(sample_copy).documents)
    assert found and kept_conflicts.decode(kept_conflicts.encode(found)) == found
    # And from the kept parts as they are, not joined first (100 MB copied at 100,000 documents).
    entries = [kept_conflicts.encode([c])[1:-1] for c in found]
    parts = (", ".join(entries[:1]), "", ", ".join(entries[1:]))
    assert kept_conflicts.decode_parts(parts) == found
    assert kept_conflicts.decode_parts((parts[0], "oops", parts[2])) is None
    assert kept_conflicts.decode_parts((parts[0] + ",", "", parts[2])) is None


def test_an_unchanged_vault_answers_with_what_was_kept(sample_copy):
    """The kept queue is what is served (here one planted under the right key), not worked out."""
    vault = Vault.open(sample_copy)
    vault.conflicts()
    planted = Conflicts(vault.conflicts()[:1])
    assert planted[0].kind != "duplicate"
    kept_conflicts.keep_queue(vault.store, key_of(vault), list(planted), [], [])
    assert Vault.open(sample_copy).conflicts() == planted


def test_a_damaged_or_foreign_kept_queue_is_worked_out_again(sample_copy):
    vault = Vault.open(sample_copy)
    for text in ("not json", '{"a": 1}', "[[1, 2]]", b"\x00not marshal", marshal.dumps(("a", "b"))):
        vault.store.keep(kept_conflicts.OBJECTS, key_of(vault), text)
        assert Vault.open(sample_copy).conflicts() == worked_out(vault)


def test_the_vaults_status_words_are_part_of_the_key(sample_copy):
    vault = Vault.open(sample_copy)
    vault.conflicts()
    (sample_copy / ".workbench.yaml").write_text("statuses:\n  parked: deprecated\n", "utf-8")
    reopened = Vault.open(sample_copy)
    assert reopened.flavour.reading != vault.flavour.reading
    assert key_of(reopened) != key_of(vault)
    assert reopened.conflicts() == worked_out(reopened)


def test_the_key_moves_with_every_input(sample_copy):
    documents = Vault.open(sample_copy).documents
    on = dt.date(2026, 5, 1)
    base = kept_conflicts.queue_key(documents, "memory-core", True, on, "code")
    assert kept_conflicts.queue_key(list(documents), "memory-core", True, on, "code") == base
    changed = dataclasses.replace(documents[0], digest="another")
    variants = [
        kept_conflicts.queue_key([changed, *documents[1:]], "memory-core", True, on, "code"),
        kept_conflicts.queue_key(documents[1:], "memory-core", True, on, "code"),
        kept_conflicts.queue_key(documents, "memory-core+1234", True, on, "code"),
        kept_conflicts.queue_key(documents, "memory-core", False, on, "code"),
        kept_conflicts.queue_key(documents, "memory-core", True, on + dt.timedelta(days=1), "code"),
        kept_conflicts.queue_key(documents, "memory-core", True, on, "other code"),
    ]
    assert len({base, *variants}) == len(variants) + 1


def test_the_code_fingerprint_reads_every_core_source():
    """A change to the algorithm (conflicts, similarity, a flavour) is a change of the fingerprint."""
    assert len(kept_conflicts.code_fingerprint()) == 64
    core = Path(workbench.core.__file__).parent
    sources = {p.resolve() for p in core.rglob("*.py")}
    read = {Path(m.__file__).resolve() for m in (workbench.core.services.conflicts, similarity, supersession, adr)}
    assert read <= sources


def test_the_code_fingerprint_is_kept_by_the_sources_stats_and_read_back_equal():
    """Kept in the user's cache under the sources' stats: read back while they hold, and a kept
    digest that is not one is worked out again."""
    kept_conflicts.code_fingerprint.cache_clear()
    first = kept_conflicts.code_fingerprint()
    kept_file = kept_conflicts._code_digest_file()
    kept = json.loads(kept_file.read_text("utf-8"))
    assert kept["digest"] == first
    kept_file.write_text(json.dumps({**kept, "digest": "read from the cache"}), "utf-8")
    kept_conflicts.code_fingerprint.cache_clear()
    assert kept_conflicts.code_fingerprint() == "read from the cache"  # the stats held: not read again
    for damaged in ("not json", json.dumps({**kept, "stats": "other stats"}), json.dumps({"stats": kept["stats"]})):
        kept_file.write_text(damaged, "utf-8")
        kept_conflicts.code_fingerprint.cache_clear()
        assert kept_conflicts.code_fingerprint() == first
    kept_conflicts.code_fingerprint.cache_clear()


def test_a_source_rewritten_to_the_same_size_and_mtime_changes_the_stats(tmp_path):
    """A change to a source the stats could miss (same size, mtime set back) still moves its ctime."""
    import os
    import time

    source = tmp_path / "conflicts.py"
    source.write_text("THRESHOLD = 0.5\n")
    before = kept_conflicts._source_stats(tmp_path, [source], "versions")
    st = source.stat()
    time.sleep(0.01)
    source.write_text("THRESHOLD = 0.7\n")
    os.utime(source, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert source.stat().st_size == st.st_size and source.stat().st_mtime_ns == st.st_mtime_ns
    assert kept_conflicts._source_stats(tmp_path, [source], "versions") != before
    assert kept_conflicts._source_stats(tmp_path, [source], "other versions") != kept_conflicts._source_stats(
        tmp_path, [source], "versions"
    )


def test_what_older_code_kept_is_deleted_when_the_queue_is_kept(sample_copy):
    """An old store's `conflicts.json` (the whole queue, 11.6 MB at 10,000 documents) that no
    current code writes or reads is deleted; what current code keeps stays."""
    vault = Vault.open(sample_copy)
    vault.store.keep("conflicts.json", "an old key", "[" + "0, " * 1000 + "0]")
    vault.conflicts(full=True)
    names = {row[0] for row in vault.store.db.execute("SELECT name FROM kept")}
    assert "conflicts.json" not in names
    assert names <= set(kept_conflicts.NAMES) and kept_conflicts.OBJECTS in names
    assert Vault.open(sample_copy).conflicts() == worked_out(vault)


def test_duplicates_kept_since_by_another_process_are_not_read_as_this_queues(sample_copy):
    """The queue's two parts: where the duplicates' entry was replaced since (another process kept
    other duplicates), the queue is not read from what is kept, but worked out again."""
    vault = Vault.open(sample_copy)
    first = vault.conflicts()
    assert kept_conflicts.kept_queue(vault.store, key_of(vault)) is not None
    vault.store.keep(kept_conflicts.DUPLICATES, "another digest", marshal.dumps(("[]", "")))
    assert kept_conflicts.kept_queue(vault.store, key_of(vault)) is None
    assert Vault.open(sample_copy).conflicts() == first == worked_out(vault)


def test_a_kept_queue_is_printed_without_importing_what_works_one_out(sample_copy, tmp_path):
    """A vault unchanged since its last queue prints the kept one: the process imports neither the
    weighing nor `importlib.metadata` (the rapidfuzz version is asked only when the code's digest
    is worked out again; while kept, rapidfuzz's file is named by its stats)."""
    script = (
        "import sys; from workbench.cli import main; main(); "
        "print([m for m in ('importlib.metadata', 'workbench.core.services.conflicts',"
        " 'workbench.core.services.weighing', 'rapidfuzz') if m in sys.modules], file=sys.stderr)"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}

    def run() -> tuple[dict, str]:
        result = subprocess.run(
            [sys.executable, "-c", script, "--vault", str(sample_copy), "conflicts", "--json"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=True,
            env=env,
        )
        return json.loads(result.stdout), result.stderr.strip().splitlines()[-1]

    first, imported = run()
    assert "workbench.core.services.conflicts" in imported  # worked out, and the code's digest with it
    again, imported = run()
    assert again == first and imported == "[]"
    assert kept_conflicts._library_stats().startswith(str(Path(importlib.util.find_spec("rapidfuzz").origin)))


def test_faults_printed_by_the_last_queue_are_reused_only_for_the_same_entries_and_code(sample_copy, monkeypatch):
    """After a change the structural faults are mostly the same entries: their printed text is
    taken as kept (neither printed nor written again); where the part differs, each entry the last
    part held (whatever its rank) is taken from it and only the others are printed; nothing is
    taken that another code printed; and the queue printed is always what printing it whole gives."""
    vault = Vault.open(sample_copy)
    faults = [c for c in vault.conflicts() if c.kind != "duplicate"]
    assert len(faults) >= 2
    whole = kept_conflicts.printed(Conflicts(faults))
    fewer = [dataclasses.replace(c, rank=c.rank + 1) for c in faults[1:]]  # another rank is not printed
    whole_fewer = kept_conflicts.printed(Conflicts(fewer))
    printed: list[int] = []
    real = kept_conflicts._printed
    monkeypatch.setattr(kept_conflicts, "_printed", lambda entry: printed.append(1) or real(entry))
    store = vault.store
    assert kept_conflicts.keep_queue(store, "first", faults, [], []) == whole
    printed.clear()
    written: list[str] = []
    keep = store.keep
    monkeypatch.setattr(store, "keep", lambda name, key, value: written.append(name) or keep(name, key, value))
    assert kept_conflicts.keep_queue(store, "second", faults, [], []) == whole
    assert printed == []  # every part taken as kept
    assert written == [kept_conflicts.OBJECTS]  # and no part written again
    assert kept_conflicts.keep_queue(store, "third", fewer, [], []) == whole_fewer
    assert printed == []  # the part differs, its entries do not: taken from the last
    assert kept_conflicts.keep_queue(store, "fourth", faults, [], []) == whole
    assert printed == [1]  # the one entry the last part did not hold
    printed.clear()
    _, before, _, _, _ = marshal.loads(store.kept(kept_conflicts.OBJECTS, "fourth"))
    name = kept_conflicts.PARTS[0]
    digest, text, code, lengths, shown = marshal.loads(store.kept(name, before))
    store.keep(name, before, marshal.dumps((digest, text, "other code", lengths, shown)))
    assert kept_conflicts.keep_queue(store, "fifth", fewer, [], []) == whole_fewer
    assert len(printed) == len(fewer)  # another code's: every entry printed again


def test_a_queue_whose_parts_another_kept_since_is_not_read(sample_copy):
    """The faults are kept under names one queue at a time holds: a queue kept under one key,
    then another's faults kept under the same names, is no longer read under the first key (it
    would print the other's faults), and is worked out again."""
    vault = Vault.open(sample_copy)
    faults = [c for c in vault.conflicts() if c.kind != "duplicate"]
    store = vault.store
    kept_conflicts.keep_queue(store, "first", faults, [], [])
    assert kept_conflicts.kept_queue(store, "first", encoded=False) == kept_conflicts.printed(Conflicts(faults))
    kept_conflicts.keep_queue(store, "second", faults[1:], [], faults[:1])
    assert kept_conflicts.kept_queue(store, "first", encoded=False) is None
    assert kept_conflicts.kept_parts(store, "first") is None
    assert kept_conflicts.kept_queue(store, "second", encoded=False) == kept_conflicts.printed(
        Conflicts(faults[1:] + faults[:1])
    )


def test_the_kept_queue_is_printed_as_kept_bytes_and_never_another_codes(sample_copy):
    """An unchanged vault's queue is written out as the UTF-8 kept (`kept_printed`): the same
    bytes as printing the queue's text; a printed part kept for other entries, or by another code,
    is never written out (the queue is worked out again)."""
    vault = Vault.open(sample_copy)
    queue = vault.conflicts()
    faults = [c for c in queue if c.kind != "duplicate"]
    store = vault.store
    kept_conflicts.keep_queue(store, "first", faults[:1], [], faults[1:])
    pieces = kept_conflicts.kept_printed(store, "first")
    assert pieces is not None
    assert b"".join(pieces) == kept_conflicts.printed(Conflicts(faults)).encode("utf-8")
    _, before, _, _, _ = marshal.loads(store.kept(kept_conflicts.OBJECTS, "first"))
    name = kept_conflicts.PRINTED_PARTS[0]
    value = store.kept(name, before)
    head = value.split(b"\n", 2)
    store.keep(name, before, head[0] + b"\nother code\n" + head[2])
    assert kept_conflicts.kept_printed(store, "first") is None
    store.keep(name, before, b"0" * 64 + b"\n" + head[1] + b"\n" + head[2])
    assert kept_conflicts.kept_printed(store, "first") is None


def test_a_kept_answer_is_written_as_print_writes_its_text(tmp_path):
    """`print_answer` writes the kept pieces as `print` writes the joined text, where the output
    takes UTF-8 and where it does not."""
    text = '{\n  "conflicts": [\n    {"reason": "a café"}\n  ]\n}'
    pieces = [text[:20].encode(), memoryview(text[20:].encode())]
    script = (
        "import sys; from workbench.cli.main import print_answer; "
        f"print_answer('conflicts', {pieces[:1]!r} + [memoryview({bytes(pieces[1])!r})]) if sys.argv[1] == 'kept' "
        f"else print({text!r})"
    )
    for encoding in ("utf-8", "latin-1"):
        env = {**os.environ, "PYTHONIOENCODING": encoding}
        kept = subprocess.run([sys.executable, "-c", script, "kept"], capture_output=True, env=env, check=True)
        plain = subprocess.run([sys.executable, "-c", script, "plain"], capture_output=True, env=env, check=True)
        assert kept.stdout == plain.stdout


def test_the_weighing_tells_a_progress_hook_how_far_each_pass_has_gone(sample_copy):
    """`Vault.conflicts(progress=...)` is told each long pass of the weighing as it goes, done
    counting up to the pass's total, and answers the same queue as without the hook."""
    told: list[tuple[str, int, int]] = []
    found = Vault.open(sample_copy).conflicts(full=True, progress=lambda *said: told.append(said))
    assert {name for name, _, _ in told} >= {"weighing decisions", "weighing pairs", "comparing duplicates"}
    for name in {name for name, _, _ in told}:
        mine = [(done, total) for n, done, total in told if n == name]
        assert all(0 <= done <= total for done, total in mine)
        assert mine[-1][0] == mine[-1][1]  # the pass told once it is done
    assert [c.to_json() for c in found] == [c.to_json() for c in Vault.open(sample_copy).conflicts(full=True)]


def test_a_pass_without_a_hook_is_given_its_items_themselves():
    from workbench.core.services import weighing

    items = [1, 2, 3]
    assert weighing.told(items, 3, None, "pass") is items
    told: list[tuple] = []
    every = weighing.PROGRESS_EVERY
    assert list(weighing.told(range(every * 2 + 1), every * 2 + 1, lambda *said: told.append(said), "pass")) == list(
        range(every * 2 + 1)
    )
    assert told == [
        ("pass", every, every * 2 + 1),
        ("pass", every * 2, every * 2 + 1),
        ("pass", every * 2 + 1, every * 2 + 1),
    ]
