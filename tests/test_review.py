"""The review list, readers' verdicts and the gate's excerpts from the core and the command line
(real files, real processes): budgets held on long records, verdicts kept beside the records and
read back after a restart, one agent's replacements accepted as one change, bad input named."""

from __future__ import annotations

import marshal

import json
import shutil
import threading

import pytest

from helpers import run_cli
from vault_builders import VaultBuilder
from workbench import Vault
from workbench.core.vocabulary.model import RefusedError
from workbench.core.services.verdicts import VERDICT_FILE

BUDGET = 45_000
CENTS, DECIMAL, TAX = (
    "mem-decision-money-integer-cents",
    "mem-decision-money-numeric-decimal",
    "mem-decision-tax-engine-choice",
)


def long_vault(builder: VaultBuilder, count: int = 14) -> None:
    """Decisions with long bodies full of what JSON escapes (quotes, backslashes, newlines), on two
    subjects, so that pairs and candidates are many and each excerpt is as long as it gets."""
    for n in range(count):
        subject = "queue broker retries" if n % 2 else "invoice ledger rounding"
        line = f'Use "{subject}" with \\\\ path C:\\\\x and\n'
        builder.add(
            f"mem-decision-d{n:02d}",
            body=f"# Decision {n} on {subject}\n\n" + line * 400,
            created=f"2026-0{1 + n % 9}-1{n % 9}",
            tags="[core, money]",
        )
    builder.add("mem-entity-home", body="The home of everything.\n")


def test_a_review_page_and_the_candidates_stay_within_the_read_budget(builder):
    long_vault(builder, 24)
    page = run_cli("--vault", str(builder.root), "review", "--json", "--limit", "20")
    assert page.returncode == 0, page.stderr
    answer = json.loads(page.stdout)
    assert len(page.stdout) <= BUDGET and 1 <= len(answer["pairs"]) < 20 and answer["cursor"]
    assert all(len(p["older"]["opening"]) <= 2_500 and p["older"]["opening_cut"] for p in answer["pairs"])
    body = builder.root / "body.txt"
    body.write_text('Use "invoice ledger rounding" with care.\n' * 300)
    gate = run_cli(
        *("--vault", str(builder.root), "new", "--type", "decision", "--title", "Invoice ledger rounding"),
        *("--body-file", str(body), "--json", "--candidates", "10"),
    )
    assert gate.returncode == 0, gate.stderr
    found = json.loads(gate.stdout)["candidates"]
    assert len(gate.stdout) <= BUDGET and len(found) == 10
    assert all(c["excerpt"]["opening"] and "invoice ledger rounding" in c["excerpt"]["passage"] for c in found)
    three = json.loads(
        run_cli(
            "--vault",
            str(builder.root),
            "new",
            "--type",
            "decision",
            "--title",
            "Invoice ledger rounding",
            "--body-file",
            str(body),
            "--json",
        ).stdout
    )
    assert [c["id"] for c in three["candidates"]] == [c["id"] for c in found[:3]]
    wrong = run_cli("--vault", str(builder.root), "new", "--type", "decision", "--title", "x", "--candidates", "11")
    assert wrong.returncode == 2 and "1 to 10" in wrong.stderr


def test_the_depth_scales_with_the_vault_and_can_be_asked(builder):
    long_vault(builder, 14)
    vault = Vault.open(builder.root)
    assert vault.review().depth == 7 and vault.review().listed <= 7
    assert vault.review(depth=2).listed <= 2
    with pytest.raises(RefusedError, match="cursor .* is not one the review list gave"):
        vault.review(cursor="not-a-cursor")
    bad = run_cli("--vault", str(builder.root), "review", "--depth", "0")
    assert bad.returncode == 2 and "--depth" in bad.stderr


def test_verdicts_are_kept_beside_the_records_and_outlive_the_state_folder(sample_copy):
    before = {p: p.read_bytes() for p in (sample_copy / "decisions").iterdir()}
    verdict = Vault.open(sample_copy).judge(CENTS, DECIMAL, "replaces", "the newer decides it again", "scripted")
    assert {p: p.read_bytes() for p in (sample_copy / "decisions").iterdir()} == before
    shutil.rmtree(sample_copy / ".workbench")
    again = Vault.open(sample_copy)
    assert [v.id for v in again.verdicts(("open",))] == [verdict.id]
    assert (CENTS, DECIMAL) not in [p.ids for p in again.review(limit=20).pairs]  # judged: not offered
    # The same verdict again is not added twice; a new one by the same agent takes its place.
    assert again.judge(CENTS, DECIMAL, "replaces", "the newer decides it again", "scripted").id == verdict.id
    other = again.judge(CENTS, DECIMAL, "companion", "on second thoughts", "scripted")
    states = {v.id: v.state for v in again.verdicts()}
    assert states == {verdict.id: "withdrawn", other.id: "open"}
    assert len((sample_copy / VERDICT_FILE).read_text().splitlines()) == 2


def test_a_stale_verdict_is_refused_and_its_pair_offered_again(sample_copy):
    vault = Vault.open(sample_copy)
    verdict = vault.judge(CENTS, DECIMAL, "replaces", "r", "scripted")
    path = sample_copy / vault.get(CENTS).path
    path.write_text(path.read_text() + "\nA later note.\n")
    result = run_cli("--vault", str(sample_copy), "inbox", "accept", verdict.id)
    assert result.returncode == 3 and "stale" in result.stderr and "changed since" in result.stderr
    assert "Traceback" not in result.stderr
    listing = run_cli("--vault", str(sample_copy), "inbox").stdout
    assert f"verdict {verdict.id}" in listing and "[stale:" in listing
    assert (CENTS, DECIMAL) in [p.ids for p in Vault.open(sample_copy).review(limit=20).pairs]


def test_one_agents_replacements_are_accepted_as_one_change(sample_copy):
    vault = Vault.open(sample_copy)
    first = vault.judge(CENTS, DECIMAL, "replaces", "r", "scripted")
    second = vault.judge(TAX, DECIMAL, "replaces", "r", "scripted")
    before = {p.name: p.read_bytes() for p in (sample_copy / "decisions").iterdir()}
    preview = vault.accept_verdicts([first.id, second.id], dry_run=True)
    assert len(preview.paths) == 3 and not preview.applied  # the successor's file once, naming both
    assert {p.name: p.read_bytes() for p in (sample_copy / "decisions").iterdir()} == before
    vault.accept_verdicts([first.id, second.id])
    now = Vault.open(sample_copy)
    assert sorted(now.get(DECIMAL).supersedes) == [CENTS, TAX]
    assert now.get(CENTS).status == now.get(TAX).status == "superseded"
    assert {v.state for v in now.verdicts()} == {"accepted"}
    now.undo()  # one step takes all of it back, and the verdicts are open again
    assert {p.name: p.read_bytes() for p in (sample_copy / "decisions").iterdir()} == before
    assert {v.state for v in Vault.open(sample_copy).verdicts()} == {"open"}
    unsure = now.judge(CENTS, TAX, "unsure", "", "scripted")
    with pytest.raises(RefusedError, match="only replacements are accepted together"):
        now.accept_verdicts([first.id, unsure.id])
    with pytest.raises(RefusedError, match="nothing to accept"):
        now.accept_verdict(unsure.id)


def test_verdicts_from_a_file_each_bad_line_named(sample_copy, tmp_path):
    lines = [
        json.dumps({"older": CENTS, "newer": DECIMAL, "verdict": "replaces", "reason": "r", "agent": "llm-cli"}),
        "{not json",
        json.dumps({"older": CENTS, "newer": "mem-decision-nothing", "verdict": "replaces", "agent": "llm-cli"}),
        json.dumps({"older": CENTS, "newer": TAX, "verdict": "perhaps", "agent": "llm-cli"}),
        json.dumps({"older": CENTS, "newer": TAX, "verdict": "companion"}),
        json.dumps(["a list"]),
        "",
        json.dumps({"older": CENTS, "newer": TAX, "verdict": "replaces", "reason": " ", "agent": "llm-cli"}),
    ]
    given = tmp_path / "verdicts.jsonl"
    given.write_text("\n".join(lines) + "\n")
    result = run_cli("--vault", str(sample_copy), "review", "--verdicts", str(given))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "recorded 1 verdict(s)" in result.stdout
    for number, words in (
        (2, "not JSON"),
        (3, "mem-decision-nothing"),
        (4, "perhaps"),
        (5, "agent"),
        (6, "object"),
        (8, "reason is empty"),
    ):
        assert f"{given}:{number}: " in result.stderr and words in result.stderr, (number, result.stderr)
    (listed,) = json.loads(run_cli("--vault", str(sample_copy), "inbox", "--json").stdout)["verdicts"]
    assert listed["agent"] == "llm-cli" and listed["verdict"] == "replaces"
    binary = tmp_path / "bad.jsonl"
    binary.write_bytes(b"\xff\xfe")
    refused = run_cli("--vault", str(sample_copy), "review", "--verdicts", str(binary))
    assert refused.returncode == 2 and "not valid UTF-8" in refused.stderr


def test_a_verdicts_file_saved_with_a_byte_order_mark_is_read_from_its_first_line(sample_copy, tmp_path):
    given = tmp_path / "verdicts.jsonl"
    line = {"older": CENTS, "newer": DECIMAL, "verdict": "replaces", "reason": "r", "agent": "editor"}
    given.write_bytes(b"\xef\xbb\xbf" + json.dumps(line).encode() + b"\n")
    result = run_cli("--vault", str(sample_copy), "review", "--verdicts", str(given))
    assert result.returncode == 0 and "recorded 1 verdict(s)" in result.stdout, result.stderr


def test_a_hand_broken_verdicts_file_is_named_not_fatal(sample_copy):
    Vault.open(sample_copy).judge(CENTS, DECIMAL, "replaces", "r", "scripted")
    with (sample_copy / VERDICT_FILE).open("a") as handle:
        handle.write("{half a line\n")
    result = run_cli("--vault", str(sample_copy), "inbox")
    assert result.returncode == 0 and f"{VERDICT_FILE}:2:" in result.stderr
    assert "1 verdict(s) to accept or reject" in result.stdout


def test_a_line_edited_into_another_word_or_one_record_twice_is_named_not_read_as_a_verdict(sample_copy):
    """A verdict the file cannot mean (a word that is none of the four, the same record on both
    sides, no id) is named by its line: it was listed as an open "unsure" the curator could not
    accept, or read as a pair already settled."""
    held = Vault.open(sample_copy).judge(CENTS, DECIMAL, "replaces", "r", "scripted")
    path = sample_copy / VERDICT_FILE
    line = json.loads(path.read_text())
    edits = [{**line, "id": "v-maybe", "verdict": "maybe"}, {**line, "id": "v-self", "newer": CENTS}]
    edits.append({k: v for k, v in line.items() if k != "id"})
    with path.open("a") as handle:
        handle.write("".join(json.dumps(edit) + "\n" for edit in edits))
    result = run_cli("--vault", str(sample_copy), "inbox", "--json")
    assert result.returncode == 0, result.stderr
    assert [v["id"] for v in json.loads(result.stdout)["verdicts"]] == [held.id]
    for number, words in (
        (2, "verdict 'maybe' is not one of"),
        (3, "older and newer are the same record"),
        (4, "id is missing"),
    ):
        assert f"{VERDICT_FILE}:{number}: not a verdict ({words}" in result.stderr, result.stderr
    refused = run_cli("--vault", str(sample_copy), "inbox", "accept", "v-maybe")
    assert refused.returncode == 3 and "no verdict has the id 'v-maybe'" in refused.stderr


def test_the_ranking_is_kept_for_the_next_process_and_a_damaged_one_is_worked_out_again(sample_copy):
    from workbench.core.services import kept_ranking, review
    from workbench.core.services.kept_conflicts import code_fingerprint, queue_key
    from workbench.core.records.record import today

    first = Vault.open(sample_copy).review(limit=20).to_json()
    vault = Vault.open(sample_copy)
    flavour = vault.flavour
    key = queue_key(vault.documents, flavour.reading, flavour.native, today(), code_fingerprint(), frozenset())
    kept = vault.store.kept(review.KEPT, key)
    record = kept_ranking.load(kept)
    ranked = kept_ranking.KeptRanking(record, lambda keys: vault.store.kept_rows(review.KEPT, keys)).top(1)
    assert record.decisions == 13 and [r[0] for r in ranked] == [first["pairs"][0]["older"]["id"]]
    review._RANKED[:] = [None, None]  # as a new process: nothing in memory, the store's ranking read
    assert vault.review(limit=20).to_json() == first
    vault.store.keep(review.KEPT, key, "[[1, 2]]")  # damaged: worked out again
    review._RANKED[:] = [None, None]
    assert vault.review(limit=20).to_json() == first
    for damaged in (
        (kept_ranking.VERSION, record.identity, 13, [(1, 2)], [1], ["x"], record.scores),
        (kept_ranking.VERSION, record.identity, 13, record.firsts, record.counts, record.blocks, []),
        (2, 13, [(1, 2, 0.5, 0.5, (), ())]),  # the whole ranking older code kept
    ):
        vault.store.keep(review.KEPT, key, marshal.dumps(damaged))
        review._RANKED[:] = [None, None]
        assert vault.review(limit=20).to_json() == first
    vault.store.keep(review.KEPT, key, b"\xff\x00 not marshal")
    review._RANKED[:] = [None, None]
    assert vault.review(limit=20).to_json() == first
    # A block the record names deleted (another process kept a newer ranking): made whole again.
    vault.store.keep(review.KEPT, key, record.dump())
    vault.store.forget_rows(review.KEPT, record.blocks)
    review._RANKED[:] = [None, None]
    assert vault.review(limit=20).to_json() == first


def test_a_judged_pair_is_shown_whole_and_a_watching_screen_hears_of_verdicts(sample_copy):
    import time

    vault = Vault.open(sample_copy)
    heard: list[list[str]] = []
    watcher = vault.watch(lambda paths, seconds: heard.append(paths))
    try:
        assert watcher.ready.wait(10)
        verdict = Vault.open(sample_copy).judge(CENTS, DECIMAL, "replaces", "r", "another-process")
        deadline = time.monotonic() + 10
        while not any(VERDICT_FILE in paths for paths in heard) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        watcher.stop()
    assert any(VERDICT_FILE in paths for paths in heard)
    assert [v.id for v in vault.verdicts(("open",))] == [verdict.id]
    shown = vault.review_pair(DECIMAL, CENTS)  # either way round: as the list ranks it
    assert shown.ids == (CENTS, DECIMAL) and shown.reasons and shown.older.opening
    unranked = vault.review_pair(CENTS, TAX)
    assert unranked.ids == (CENTS, TAX) and unranked.newer_because
    with pytest.raises(RefusedError):
        vault.review_pair(CENTS, "mem-decision-nothing")


def test_the_last_page_says_what_is_left_before_the_cursor(sample_copy):
    from workbench.agents.tools import MemoryTools
    from workbench.core.services.inbox import Agent

    tools = MemoryTools(Vault.open(sample_copy), lambda: Agent("claude-code", "agent-claude"))
    first = tools.review(limit=2)  # passed over: not judged
    last = tools.review(limit=20, cursor=first["cursor"])
    assert last["cursor"] is None and last["remaining"] == 0
    assert "2 pair(s) before the cursor are not judged yet" in last["next"]
    for pair in last["pairs"]:
        tools.judge(pair["older"]["id"], pair["newer"]["id"], "companion", "both stand")
    after = tools.review(limit=20, cursor=first["cursor"])
    assert after["pairs"] == [] and "2 pair(s) before it are not judged yet" in after["next"]
    again = tools.review(limit=20)
    assert [(p["older"]["id"], p["newer"]["id"]) for p in again["pairs"]] == [
        (p["older"]["id"], p["newer"]["id"]) for p in first["pairs"]
    ]


def test_the_command_lines_last_page_says_what_is_left_before_the_cursor(sample_copy):
    """Past the cursor the list may hold nothing: the page says the pairs before it are not judged,
    rather than "6 pair(s) to review" above an empty page."""
    first = json.loads(run_cli("--vault", str(sample_copy), "review", "--json", "--limit", "2").stdout)
    last = run_cli("--vault", str(sample_copy), "review", "--limit", "20", "--cursor", first["cursor"])
    assert last.returncode == 0, last.stderr
    assert "2 pair(s) before the cursor are not judged yet" in last.stdout
    assert "before the cursor" not in run_cli("--vault", str(sample_copy), "review").stdout


def test_a_symlinked_verdicts_file_is_never_written_through_and_the_rest_works(sample_copy, tmp_path):
    outside = tmp_path / "outside.jsonl"
    outside.write_text("kept\n")
    (sample_copy / VERDICT_FILE).symlink_to(outside)
    vault = Vault.open(sample_copy)
    with pytest.raises(RefusedError, match="symbolic link"):
        vault.judge(CENTS, DECIMAL, "replaces", "r", "scripted")
    assert outside.read_text() == "kept\n"
    assert vault.review(limit=1).pairs  # the list still offers pairs
    result = run_cli("--vault", str(sample_copy), "inbox")
    assert result.returncode == 0 and "is not read" in result.stderr and "Traceback" not in result.stderr


def test_one_agents_replacements_from_the_command_line(sample_copy):
    vault = Vault.open(sample_copy)
    vault.judge(CENTS, DECIMAL, "replaces", "r", "scripted")
    vault.judge(TAX, DECIMAL, "replaces", "r", "scripted")
    vault.judge(CENTS, TAX, "companion", "r", "scripted")
    vault.judge(CENTS, TAX, "replaces", "r", "someone-else")
    preview = run_cli("--vault", str(sample_copy), "inbox", "accept", "--agent", "scripted", "--dry-run")
    assert preview.returncode == 0 and preview.stdout.count("+++ b/") == 3
    done = run_cli("--vault", str(sample_copy), "inbox", "accept", "--agent", "scripted")
    assert done.returncode == 0 and "accept 2 verdict(s) of scripted" in done.stdout
    assert sorted(Vault.open(sample_copy).get(DECIMAL).supersedes) == [CENTS, TAX]
    none = run_cli("--vault", str(sample_copy), "inbox", "accept", "--agent", "nobody")
    assert none.returncode == 2 and "no open replaces" in none.stderr


def test_the_listing_says_what_each_record_decides_even_when_its_opening_holds_it(builder):
    """The JSON gives `decision` only past the opening; the one-line list shows no opening, so it
    says what each record decides itself, and does not quote the same words twice."""
    for doc_id, choice, created in (
        ("mem-decision-cents", "integer cents", "2026-01-02"),
        ("mem-decision-decimal", "NUMERIC decimals", "2026-05-06"),
    ):
        builder.add(
            doc_id,
            body=f"## Context\n\nInvoice money amounts need one storage rule.\n\n## Decision\n\nStore money amounts as {choice}.\n",
            created=created,
            tags="[money]",
        )
    listed = run_cli("--vault", str(builder.root), "review")
    assert listed.returncode == 0, listed.stderr
    assert "mem-decision-cents decides: “Store money amounts as integer cents.”" in listed.stdout
    assert "mem-decision-decimal decides: “Store money amounts as NUMERIC decimals.”" in listed.stdout
    assert listed.stdout.count("Store money amounts as integer cents.") == 1


def test_an_agent_appending_verdicts_with_plain_file_io_loses_no_line_to_a_recorded_one(sample_copy):
    """The verdicts file is rewritten whole (atomically) to add a line; a line another program
    appends between the read and the rename must survive: the write is redone over it."""
    vault = Vault.open(sample_copy)
    path = sample_copy / VERDICT_FILE
    path.write_text("")
    stop = threading.Event()
    appended: list[str] = []

    def agent() -> None:
        n = 0
        while not stop.is_set():
            line = json.dumps({"id": f"v-plain{n:05d}", "older": CENTS, "newer": TAX, "verdict": "unsure"})
            with open(path, "a", encoding="utf-8") as out:
                out.write(line + "\n")
            appended.append(f"v-plain{n:05d}")
            n += 1
            stop.wait(0.01)

    writer = threading.Thread(target=agent)
    writer.start()
    try:
        recorded = [vault.judge(CENTS, DECIMAL, "replaces", "again", f"agent-{n}").id for n in range(40)]
    finally:
        stop.set()
        writer.join()
    held = path.read_text()
    assert all(v in held for v in recorded)
    lost = [v for v in appended if v not in held]
    assert not lost, f"{len(lost)} of {len(appended)} appended lines lost"
