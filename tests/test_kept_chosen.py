"""The conflicts queue's decision pairs kept in blocks that a change follows (`kept_chosen`): after
random changes by plain file I/O between fresh opens, the queue printed is, byte for byte, the one
chosen and worded again from the same weighed pairs, and a change writes only the blocks it touches;
the blocks followed hold what blocks made whole from the same entries hold."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from helpers import copied, shaped_vault
from workbench import Vault
from workbench.core.services import kept_chosen, kept_conflicts
from workbench.core.services.conflicts import Conflicts, duplicate_listed, queue_parts
from workbench.core.services.kept_chosen import Chosen
from workbench.core.vocabulary.model import DocType

SIZE = 1200
DECISION_KINDS = ("contradiction", "successor-missing", "draft-replaces")


@pytest.fixture(scope="module")
def shaped(tmp_path_factory) -> Path:
    return shaped_vault(tmp_path_factory, SIZE, seed=11)


@pytest.fixture
def root(shaped, tmp_path) -> Path:
    return copied(shaped, tmp_path)


def worded_anew(vault: Vault, queue: kept_conflicts.Asked) -> Conflicts:
    """The queue from the pairs `queue` weighed, every decision pair chosen and worded again."""
    pairs = queue.weighing()
    before, listed, after = queue_parts(
        vault.documents,
        vault.index.flavour.native,
        vault.index.config.compatible,
        weighed=pairs.weighed(),
        duplicates=pairs.duplicates,
        successors_of=queue._successors,
    )
    return Conflicts(before + [duplicate_listed(*d) for d in listed] + after)


def pairs_listed(vault: Vault) -> list[list[str]]:
    return [c.ids for c in vault.conflicts() if c.kind in DECISION_KINDS]


def case_changed(path: Path) -> None:
    """The title's case turned: the words its weighing reads are the same, the entry's are not."""
    text = path.read_text("utf-8")
    text, count = re.subn(r"(?m)^title: (.*)$", lambda m: "title: " + m.group(1).swapcase(), text, count=1)
    assert count == 1
    path.write_text(text, "utf-8")


def field_set(path: Path, key: str, value: str) -> None:
    """A frontmatter field set (added where the file has none)."""
    text = path.read_text("utf-8")
    found = re.search(rf"(?m)^{key}:.*$", text)
    if found:
        text = text[: found.start()] + f"{key}: {value}" + text[found.end() :]
    else:
        text = text.replace("\n---", f"\n{key}: {value}\n---", 1)
    path.write_text(text, "utf-8")


def change(root: Path, vault: Vault, step: int, rng: random.Random) -> None:
    by_id = {d.id: d for d in vault.documents}
    listed = pairs_listed(vault)
    kind = step % 7
    if kind == 0:  # a decision in the queue: its entries' words change, its weighing does not
        case_changed(root / by_id[rng.choice(rng.choice(listed))].path)
    elif kind == 1:  # a sentence appended to a decision in the queue
        with (root / by_id[rng.choice(rng.choice(listed))].path).open("a", encoding="utf-8") as file:
            file.write("\nThe retry budget was raised after the outage review.\n")
    elif kind == 2:  # a decision in the queue deprecated: its pairs change kind
        active = [i for ids in listed for i in ids if "status: active" in (root / by_id[i].path).read_text("utf-8")]
        path = root / by_id[rng.choice(active)].path
        path.write_text(path.read_text("utf-8").replace("status: active", "status: deprecated", 1), "utf-8")
    elif kind == 3:  # a pair in the queue marked compatible: it leaves the queue
        older, newer = rng.choice(listed)
        field_set(root / by_id[older].path, "compatible_with", f"[{newer}]")
    elif kind == 4:  # a supersession added between a pair in the queue
        older, newer = rng.choice(listed)
        field_set(root / by_id[newer].path, "supersedes", f"[{older}]")
        field_set(root / by_id[older].path, "superseded_by", f"[{newer}]")
        field_set(root / by_id[older].path, "status", "superseded")
    elif kind == 5:  # a decision added: a copy of one in the queue, under another id
        source = root / by_id[rng.choice(rng.choice(listed))].path
        text = re.sub(r"(?m)^id: (.*)$", lambda m: f"id: {m.group(1)}-again", source.read_text("utf-8"), count=1)
        source.with_name(source.stem + "-again.md").write_text(text, "utf-8")
    else:  # a decision gone
        ids = sorted(d.id for d in vault.documents if d.type == DocType.DECISION)
        (root / by_id[rng.choice(ids)].path).unlink()


def test_after_random_changes_the_queue_is_the_one_chosen_and_worded_again(root):
    rng = random.Random(7)
    Vault.open(root).conflicts_json()
    followed = 0
    for step in range(14):
        change(root, Vault.open(root), step, rng)
        vault = Vault.open(root)
        queue = vault._queue()
        pieces = b"".join(queue.printed_pieces())
        assert queue.chosen is not None, step
        followed += queue.chosen.followed
        again = worded_anew(vault, queue)
        assert pieces == kept_conflicts.printed(again).encode("utf-8"), step
        assert Vault.open(root).conflicts() == again, step  # as kept: their ranks joined in
        assert Vault.open(root).conflicts_json() == kept_conflicts.printed(again), step
    assert followed > 0  # the entries were followed, not all chosen and worded again


def test_a_change_writes_only_the_blocks_it_touches(root, monkeypatch):
    """After one decision's body changed, the rows written for the decision pairs are those of
    the few blocks and places its pairs fall in, not the queue's every entry."""
    monkeypatch.setattr(kept_chosen, "BLOCK", 8)  # blocks of 8 entries: this vault's queue in many
    vault = Vault.open(root)
    vault.conflicts_json()
    record = kept_chosen.load(vault.store.kept_last(kept_conflicts.CHOSEN))
    assert record is not None and len(record.blocks) >= 3
    listed = pairs_listed(vault)
    by_id = {d.id: d for d in vault.documents}
    with (root / by_id[listed[len(listed) // 2][0]].path).open("a", encoding="utf-8") as file:
        file.write("\nThe retry budget was raised after the outage review.\n")
    vault = Vault.open(root)
    written: dict[str, dict[str, bytes]] = {}
    keep = vault.store.keep_with_rows

    def keeping(name, key, value, rows, replace=False, forget=()):
        written[name] = rows
        return keep(name, key, value, rows, replace, forget)

    monkeypatch.setattr(vault.store, "keep_with_rows", keeping)
    text = vault.conflicts_json()
    rows = written[kept_conflicts.CHOSEN]
    now = kept_chosen.load(vault.store.kept_last(kept_conflicts.CHOSEN))
    assert now is not None and now.identity != record.identity
    assert 0 < len(set(now.blocks) & rows.keys()) < len(record.blocks) // 2
    assert len(rows) < len(record.rows()) // 2
    assert text == kept_conflicts.printed(worded_anew(vault, vault._queue()))


def test_a_block_gone_makes_the_entries_whole_again(root):
    """A row of the blocks deleted (another process kept others since): the queue kept no longer
    reads, and the next change chooses every pair again, byte for byte as worded anew."""
    vault = Vault.open(root)
    vault.conflicts_json()
    record = kept_chosen.load(vault.store.kept_last(kept_conflicts.CHOSEN))
    assert record is not None
    vault.store.forget_rows(kept_conflicts.CHOSEN, [record.blocks[0], record.shown[0]])
    assert kept_conflicts.kept_printed(vault.store, vault._queue().key) is None
    assert kept_conflicts.kept_parts(vault.store, vault._queue().key) is None
    vault = Vault.open(root)
    queue = vault._queue()
    text = queue.printed()
    assert text == kept_conflicts.printed(worded_anew(vault, queue))
    assert queue.chosen.followed == 0
    case_changed(root / next(d for d in vault.documents if d.type == DocType.DECISION).path)
    vault = Vault.open(root)
    queue = vault._queue()
    assert queue.printed() == kept_conflicts.printed(worded_anew(vault, queue))


def test_the_review_list_asked_between_two_queues_leaves_the_queue_right(root, capsys):
    """The review list keeps the weighing as it follows a change: the queue's blocks were chosen
    from the weighing before it, and follow the pairs both changes touched, not this one's alone."""
    from workbench.cli import main

    vault = Vault.open(root)
    vault.conflicts_json()
    listed = pairs_listed(vault)
    by_id = {d.id: d for d in vault.documents}
    for ids in listed[:2]:
        case_changed(root / by_id[ids[1]].path)
        assert main(["--vault", str(root), "review", "--json"]) == 0
    capsys.readouterr()
    vault = Vault.open(root)
    queue = vault._queue()
    assert queue.printed() == kept_conflicts.printed(worded_anew(vault, queue))


def entry(rng: random.Random, n: int) -> tuple:
    older, newer = f"d{n:04d}", f"d{rng.randrange(10_000):04d}"
    shown = f"    {{ {older} {newer} “é” }}".encode()
    return (older, newer, rng.choice([0.5, 1.0, 1.5, rng.random() * 3]), "contradiction", f'["x", "{older}"', shown)


def test_blocks_followed_hold_what_blocks_made_whole_hold():
    """Entries taken out and put in, round after round (blocks emptied, split past twice BLOCK):
    the entries, their printed pieces and their encoded list are those of blocks made whole."""
    rng = random.Random(3)
    held = {(e[0], e[1]): e for e in (entry(rng, n) for n in range(1500))}
    chosen, rows = Chosen.whole(sorted(held.values(), key=kept_chosen.rank_key), "")
    store: dict[str, bytes] = dict(rows)

    def read(keys: list[str]) -> dict[str, bytes]:
        return {key: store[key] for key in keys if key in store}

    chosen = Chosen(chosen.record, read)
    for round_ in range(12):
        pairs = list(held)
        touched = set(rng.sample(pairs, rng.randrange(1, 300)))
        now = {}
        for pair in touched:
            if rng.random() < 0.6:
                e = held[pair]
                now[pair] = (*e[:2], rng.random() * 3, *e[3:])
        if round_ % 4 == 0:  # a run of new pairs at one place: a block grows past twice BLOCK
            for n in range(700):
                e = (f"n{round_}-{n:04d}", "z", 2.0, "contradiction", '["x"', b"    { n }")
                now[e[:2]] = e
            touched |= set(now)
        chosen, made = chosen.follow(touched, now)
        store.update(made)
        for pair in touched:
            held.pop(pair, None)
        held.update(now)
        expected = sorted(held.values(), key=kept_chosen.rank_key)
        whole, _ = Chosen.whole(expected, "")
        assert [e for _, e in chosen.entries()] == expected
        assert all(count <= 2 * kept_chosen.BLOCK for count in chosen.record.counts)
        assert b",\n".join(chosen.printed()) == b",\n".join(whole.printed())
        assert b",\n".join(chosen.printed(1)) == b",\n".join(e[5] for e in expected[1:])
        assert chosen.encoded(1) == ", ".join(f"{e[4]}, {rank}]" for rank, e in enumerate(expected) if rank)


def test_a_block_that_does_not_hold_what_its_record_says_is_stale():
    rng = random.Random(5)
    entries = sorted((entry(rng, n) for n in range(600)), key=kept_chosen.rank_key)
    chosen, rows = Chosen.whole(entries, "")
    record = chosen.record
    broken = dict(rows)
    broken[record.shown[1]] = rows[record.shown[1]] + b"!"
    with pytest.raises(kept_chosen.Stale):
        Chosen(record, lambda keys: {k: broken[k] for k in keys if k in broken}).printed(0) and list(
            Chosen(record, lambda keys: {k: broken[k] for k in keys if k in broken}).entries()
        )
    gone = {k: v for k, v in rows.items() if k != record.blocks[0]}
    with pytest.raises(kept_chosen.Stale):
        list(Chosen(record, lambda keys: {k: gone[k] for k in keys if k in gone}).entries())
    assert kept_chosen.load(record.dump()) == record
    assert kept_chosen.load(b"not one") is None


@pytest.mark.parametrize("prefix", ["a", "z"])  # the decision pairs' ids (their paths) before the rule's, and after
def test_the_first_decision_pair_stands_among_the_rule_contradictions(tmp_path, prefix):
    """The first decision pair and the rule contradictions share rank 0 and stand by their ids:
    it is kept with them, the blocks read from the second on, before and after a change."""
    from vault_builders import VaultBuilder

    b = VaultBuilder(tmp_path / "vault")
    head = "---\nid: {}\ntype: context\nstatus: active\ntitle: {}\n---\n"
    b.raw("memory.md", head.format("memory", "Memory") + "# Memory\n\n## Confirmed Preferences\n- semicolons: no\n")
    b.raw("projects/app.md", head.format("app", "App") + "# Project: app\nInherits: global\n\n- semicolons: yes\n")
    body = "We store money as integer cents in every ledger table, payments and refunds; rounded once at display.\n"
    titles = ["Store money as integer cents", "Store money as integer cents everywhere", "Keep money as integer cents"]
    for n, title in enumerate(titles):
        b.raw(
            f"{prefix}/{prefix}-{n}.md",
            f"---\nid: {prefix}-{n}\ntype: decision\nstatus: active\ntitle: {title}\ncreated: 2024-01-0{n + 1}\n---\n{body}",
        )
    for step in range(3):
        vault = Vault.open(b.root, "markdown")
        queue = vault._queue()
        text = queue.printed()
        again = worded_anew(vault, queue)
        kinds = [c.kind for c in again]
        assert kinds.count("contradiction") >= 2
        assert kinds.index("rule-contradiction") == (1 if prefix == "a" else 0)
        assert text == kept_conflicts.printed(again), step
        assert Vault.open(b.root, "markdown").conflicts() == again, step
        assert b"".join(Vault.open(b.root, "markdown").conflicts_printed()) == text.encode("utf-8"), step
        with (b.root / f"{prefix}/{prefix}-{step}.md").open("a", encoding="utf-8") as file:
            file.write("\nRefunds are rounded the same way.\n")
