"""The conflicts queue's kept blocks followed at the cost of the change (`kept_chosen`): a change
reads only the blocks and score rows its pairs fall in, each once; a pair crossing a block's
boundary, a block emptied or split, and many changes in a row leave blocks that hold, byte for
byte, what blocks made whole from the same entries hold; a damaged row makes the queue whole again;
and an unchanged vault's kept queue is printed without importing what printing it does not need."""

from __future__ import annotations

import itertools
import marshal
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from workbench import Vault
from workbench.core.services import kept_chosen, kept_conflicts
from workbench.core.services.kept_chosen import Chosen, rank_key

ROOT = Path(__file__).resolve().parent.parent


def entry(older: str, newer: str, score: float) -> tuple:
    """An entry as `kept_chosen` keeps it, its printed text naming its pair (not ASCII, as ids and
    titles may be)."""
    return (
        older,
        newer,
        score,
        "contradiction",
        f'["contradiction", ["{older}", "{newer}"]',
        f"    {{{older} → {newer}}}".encode(),
    )


class Rows:
    """A store of rows that counts every key asked of it."""

    def __init__(self, rows: dict[str, bytes]):
        self.rows, self.asked = dict(rows), []

    def read(self, keys: list[str]) -> dict[str, bytes]:
        self.asked += keys
        return {key: self.rows[key] for key in keys if key in self.rows}


def made(entries: list[tuple]) -> tuple[Chosen, Rows]:
    chosen, rows = Chosen.whole(sorted(entries, key=rank_key), "")
    store = Rows(rows)
    return Chosen(chosen.record, store.read), store


def blocks_of(chosen: Chosen) -> list[list[tuple]]:
    """The entries block by block, as the record's sizes cut them."""
    entries = [e for _, e in chosen.entries()]
    starts = [0, *itertools.accumulate(chosen.record.counts)]
    return [entries[a:b] for a, b in zip(starts, starts[1:])]


def assert_as_whole(chosen: Chosen, store: Rows, held: dict) -> None:
    """The blocks followed hold what blocks made whole from the same entries hold: entries, printed
    text (from the first on and from the second), encoded list, each block's first key and size,
    and every pair's score in the row its ids fall in."""
    expected = sorted(held.values(), key=rank_key)
    whole, _ = Chosen.whole(expected, "")
    assert [e for _, e in chosen.entries()] == expected
    assert b",\n".join(chosen.printed()) == b",\n".join(whole.printed())
    assert b",\n".join(Chosen(chosen.record, store.read).printed(1)) == b",\n".join(e[5] for e in expected[1:])
    assert chosen.encoded() == ", ".join(f"{e[4]}, {rank}]" for rank, e in enumerate(expected))
    record = chosen.record
    assert record.counts and all(0 < n <= 2 * kept_chosen.BLOCK for n in record.counts)
    assert [rank_key(block[0]) for block in blocks_of(chosen)] == record.firsts
    assert sum(record.counts) == len(held)
    found = store.read([k for k in record.places if k])
    scores: dict = {}
    for at, key in enumerate(record.places):
        row = marshal.loads(found[key]) if key else {}
        assert all(kept_chosen.place_of(pair) == at for pair in row)
        scores.update(row)
    assert scores == {pair: e[2] for pair, e in held.items()}


def followed(chosen: Chosen, store: Rows, held: dict, touched: set, now: dict) -> Chosen:
    """`chosen` followed as `follow_or_make` follows it (each pair touched named both ways round),
    its rows kept, and `held` changed the same way."""
    touched = set(touched) | {(b, a) for a, b in touched}
    after, rows = chosen.follow(touched, now)
    store.rows.update(rows)
    for pair in touched:
        held.pop(pair, None)
    held.update(now)
    return after


def test_a_change_reads_only_the_blocks_and_score_rows_its_pairs_fall_in():
    """Pairs of one block weighed again, named both ways round: the entries and printed rows of
    that block alone are read, and one score row for each pair (not one for each way round)."""
    rng = random.Random(1)
    held = {
        (f"d{n:04d}", f"e{n:04d}"): entry(f"d{n:04d}", f"e{n:04d}", round(rng.random() * 3, 3)) for n in range(2000)
    }
    chosen, store = made(list(held.values()))
    record = chosen.record
    assert len(record.blocks) >= 6
    block = blocks_of(chosen)[3]
    touched = {(e[0], e[1]) for e in block[10:14]}
    now = {pair: (*held[pair][:2], held[pair][2], *held[pair][3:]) for pair in list(touched)[:2]}
    store.asked.clear()
    after = followed(chosen, store, held, touched, now)
    asked = set(store.asked)
    assert len(store.asked) == len(asked)  # each row asked once
    assert asked & (set(record.blocks) | set(record.shown)) == {record.blocks[3], record.shown[3]}
    places = asked & set(record.places)
    assert places == {record.places[kept_chosen.place_of(pair)] for pair in touched}
    assert len(places) <= len(touched)
    assert_as_whole(after, store, held)


def test_the_first_entry_and_the_printed_rows_are_each_read_once():
    """The queue printed from its second entry on after its first was asked (the rule
    contradictions' case): each row read once, the first block's entries decoded once."""
    rng = random.Random(2)
    chosen, store = made([entry(f"d{n:04d}", "z", rng.random()) for n in range(900)])
    store.asked.clear()
    chosen.printed()
    first = chosen.first()
    pieces = chosen.printed(1)
    asked = sorted(store.asked)
    assert asked == sorted([*chosen.record.shown, chosen.record.blocks[0]])
    block = blocks_of(Chosen(chosen.record, store.read))[0]
    assert first == block[0] and pieces[0].startswith(block[1][5] + b",\n")


def test_a_pair_moving_across_a_block_boundary_a_block_emptied_and_one_split():
    rng = random.Random(3)
    held = {(f"d{n:04d}", "z"): entry(f"d{n:04d}", "z", 1000 - n) for n in range(1024)}  # four blocks of 256
    chosen, store = made(list(held.values()))
    assert chosen.record.counts == [256] * 4
    # The last pair of the first block moved past the first of the third, and back.
    pair = ("d0255", "z")
    chosen = followed(chosen, store, held, {pair}, {pair: entry(*pair, 1000 - 600.5)})
    assert_as_whole(chosen, store, held)
    chosen = followed(chosen, store, held, {pair}, {pair: entry(*pair, 1000 - 254.5)})
    assert_as_whole(chosen, store, held)
    # The second block emptied: every pair of it gone.
    gone = {(f"d{n:04d}", "z") for n in range(256, 512)}
    before = len(chosen.record.blocks)
    chosen = followed(chosen, store, held, gone, {})
    assert len(chosen.record.blocks) == before - 1
    assert_as_whole(chosen, store, held)
    # A run of new pairs where the last block stands: it grows past twice BLOCK and is split.
    new = {(f"n{n:04d}", "z"): entry(f"n{n:04d}", "z", -rng.random()) for n in range(700)}
    chosen = followed(chosen, store, held, set(new), new)
    assert max(chosen.record.counts) <= 2 * kept_chosen.BLOCK
    assert len(chosen.record.blocks) >= 4
    assert_as_whole(chosen, store, held)
    # Every pair gone, then one back.
    chosen = followed(chosen, store, held, set(held), {})
    assert chosen.record.blocks == [] and chosen.printed() == []
    chosen = followed(chosen, store, held, {pair}, {pair: entry(*pair, 1.0)})
    assert_as_whole(chosen, store, held)


def test_many_changes_in_a_row_some_pairs_listed_the_other_way_round():
    """Sixty rounds of pairs weighed again, gone, new, and listed with their ids the other way
    round (the statuses say which is older): each round the blocks and score rows hold what blocks
    made whole from the same entries hold."""
    rng = random.Random(4)
    ids = [f"d{n:04d}" for n in range(400)]
    held: dict = {}
    while len(held) < 1500:
        a, b = rng.sample(ids, 2)
        if (b, a) not in held:
            held[(a, b)] = entry(a, b, rng.choice([0.5, 1.0, round(rng.random() * 3, 2)]))
    chosen, store = made(list(held.values()))
    for _ in range(60):
        touched, now = set(), {}
        for pair in rng.sample(list(held), rng.randrange(1, 40)):
            touched.add(pair)
            what = rng.random()
            if what < 0.5:
                now[pair] = entry(*pair, round(rng.random() * 3, 2))
            elif what < 0.7:
                now[(pair[1], pair[0])] = entry(pair[1], pair[0], held[pair][2])
        for _ in range(rng.randrange(0, 5)):
            a, b = rng.sample(ids, 2)
            if (a, b) not in held and (b, a) not in held:
                touched.add((a, b))
                now[(a, b)] = entry(a, b, round(rng.random() * 3, 2))
        chosen = followed(chosen, store, held, touched, now)
        assert chosen.followed > 0
        assert_as_whole(chosen, store, held)


def test_a_damaged_block_makes_the_queue_whole_again(sample_copy):
    """Every block's entries row damaged in the store (the same key, other bytes): the next change
    finds its block not what its record says, and every pair is chosen and worded again, byte for
    byte as a full count gives."""
    vault = Vault.open(sample_copy)
    vault.conflicts_json()
    record = kept_chosen.load(vault.store.kept_last(kept_conflicts.CHOSEN))
    assert record is not None and record.blocks
    db = sqlite3.connect(sample_copy / ".workbench" / "index.sqlite")
    with db:
        for key in record.blocks:
            db.execute(
                "UPDATE kept_rows SET value = ? WHERE name = ? AND key = ?",
                (b"\x00damaged", kept_conflicts.CHOSEN, key),
            )
    db.close()
    decision = next(p for p in sorted(sample_copy.rglob("*.md")) if "type: decision" in p.read_text("utf-8"))
    with decision.open("a", encoding="utf-8") as file:
        file.write("\nOne sentence more.\n")
    vault = Vault.open(sample_copy)
    queue = vault._queue()
    text = b"".join(queue.printed_pieces())
    assert queue.chosen.followed == 0
    assert text == kept_conflicts.printed(vault.conflicts(full=True)).encode("utf-8")


def test_an_unchanged_vaults_kept_queue_is_printed_without_dataclasses_or_the_clis_output(sample_copy):
    """The kept answer of `conflicts --json` for an unchanged vault imports neither `dataclasses`
    (with `inspect`, `ast`, `dis`: 7 ms) for the blocks' record nor the CLI's `output` (with the
    core's errors and a file change's plan: 6 ms) to write its pieces."""
    script = (
        "import sys; from workbench.cli import main; code = main(); "
        "print(sorted(m for m in ('dataclasses', 'workbench.cli.output', 'workbench.core.index') if m in sys.modules),"
        " file=sys.stderr); sys.exit(code)"
    )
    outputs = []
    for _ in range(3):  # a copy just made may hold files changed in the first walk's tick: kept by the third
        result = subprocess.run(
            [sys.executable, "-c", script, "--vault", str(sample_copy), "conflicts", "--json"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ},
        )
        assert result.returncode == 0, result.stderr
        outputs.append((result.stdout, result.stderr.strip().splitlines()[-1]))
    assert all(text == outputs[0][0] for text, _ in outputs)
    assert "workbench.core.index" in outputs[0][1]  # the first opened the vault
    assert outputs[-1][1] == "[]"  # the last printed what was kept, and imported neither


@pytest.mark.parametrize("pieces", [[b'{\n  "conflicts": []\n}'], [b"{\n", memoryview("  “é”".encode()), b"\n}"]])
def test_print_pieces_writes_the_pieces_as_print_writes_their_text(pieces, capsysbinary):
    from workbench.cli.output import print_pieces

    print_pieces(pieces)
    assert capsysbinary.readouterr().out == b"".join(bytes(p) for p in pieces) + b"\n"
