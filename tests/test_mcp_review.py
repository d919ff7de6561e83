"""The review loop as an agent meets it, through the SDK's client and a real `workbench mcp` process:

- a scripted judge works the review list to its end, page by page, on the sample and on a real
  ADR collection; every answer's text stays within the read budget; its verdicts reach the inbox,
  and no record changes until a person accepts;
- a person accepts (the supersession written both sides) and rejects (never offered again);
- the cursor survives a write between pages;
- the gate's candidates come with excerpts, within the budget;
- a verdict needs a pair the agent was shown, as it is now.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from benchmarks.bench_conflicts import strip
from helpers import run_cli
from mcp_client import connected, files

from workbench import Vault
from workbench.core.vocabulary.model import RefusedError
from workbench.core.services.verdicts import VERDICT_FILE

BUDGET = 45_000
CORPORA = Path(os.environ.get("WORKBENCH_CORPORA", Path(__file__).resolve().parents[2] / "shared" / "corpora"))
COLLECTION = "alphagov-forms"


def copy_of(source: Path, target: Path) -> Path:
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(".workbench", "SOURCE.md"))
    for folder, _, names in os.walk(target):
        os.chmod(folder, 0o755)
        for name in names:
            os.chmod(os.path.join(folder, name), 0o644)
    return target


def a_collection(tmp_path: Path, stripped: bool = False) -> tuple[Path, set[tuple[str, str]]]:
    """A copy of a real ADR collection, and its supersession pairs as a person read them (files);
    `stripped`: every statement of supersession taken out, as the benchmark does, so the pairs are
    the reader's to find."""
    source = CORPORA / "adr-collection" / COLLECTION
    truth = CORPORA / "adr-truth" / f"{COLLECTION}.json"
    if not source.is_dir() or not truth.is_file():
        pytest.skip(f"corpus {COLLECTION} not found under {CORPORA} (set WORKBENCH_CORPORA to the folder holding it)")
    root = copy_of(source, tmp_path / COLLECTION)
    if stripped:
        strip(root)
    return root, {tuple(pair) for pair in json.loads(truth.read_text("utf-8"))}


@pytest.fixture
def collection(tmp_path) -> tuple[Path, set[tuple[str, str]]]:
    return a_collection(tmp_path)


def text_size(answer: dict) -> int:
    return len(json.dumps(answer, ensure_ascii=False, indent=2))  # the text the server sends (`answer_text`)


def scripted(pair: dict, truth: set[tuple[str, str]]) -> tuple[str, str]:
    """A judge that knows the answer by the records' paths: replaces, reversed, else companion."""
    older, newer = pair["older"]["path"], pair["newer"]["path"]
    if (older, newer) in truth:
        return "replaces", f"{pair['newer']['title']} decides the same question anew"
    if (newer, older) in truth:
        return "reversed", f"{pair['older']['title']} is the later decision"
    return "companion", "different questions on one subject"


async def work_the_list(agent, truth: set[tuple[str, str]], own_words: bool = False) -> list[dict]:
    """Page through the review list to its end, judging every pair; each answer within the budget.
    `own_words`: a collection in its own format, whose statuses are shown as its files state them
    (or said to be stated nowhere), never as the lifecycle word they are read as."""
    judged, cursor, seen = [], None, set()
    for _ in range(200):
        page = await agent.call("memory_review", **({"cursor": cursor} if cursor else {}))
        assert text_size(page) <= BUDGET
        for pair in page["pairs"]:
            ids = (pair["older"]["id"], pair["newer"]["id"])
            assert ids not in seen, f"{ids} offered twice"
            seen.add(ids)
            for side in ("older", "newer"):
                excerpt = pair[side]
                assert excerpt["title"] and excerpt["status"] and len(excerpt["opening"]) <= 2_500
                assert excerpt["date"] or excerpt["number"] is not None
                if own_words:
                    assert excerpt["status"] not in ("active", "draft", "deprecated", "superseded"), excerpt["status"]
            assert pair["reasons"] and pair["newer_because"]
            verdict, reason = scripted(pair, truth)
            answer = await agent.call("memory_judge", older=ids[0], newer=ids[1], verdict=verdict, reason=reason)
            assert answer["recorded"] and not answer["written"]
            judged.append({**answer, "pair": ids})
        cursor = page["cursor"]
        if cursor is None:
            break
    else:
        raise AssertionError("the review list never ended")
    return judged


async def test_a_scripted_judge_works_the_sample_to_its_end_and_nothing_is_written(sample_copy):
    before = files(sample_copy)
    truth = {("decisions/mem-decision-money-integer-cents.md", "decisions/mem-decision-money-numeric-decimal.md")}
    async with connected(sample_copy) as agent:
        judged = await work_the_list(agent, truth)
        again = await agent.call("memory_review")
    assert judged and again["pairs"] == [] and again["cursor"] is None
    assert "done" in again["next"]
    after = files(sample_copy)
    assert {p for p in after if after[p] != before.get(p)} == {VERDICT_FILE}  # no record changed
    listed = json.loads(run_cli("--vault", str(sample_copy), "inbox", "--json").stdout)["verdicts"]
    assert {v["id"] for v in listed} == {j["id"] for j in judged}
    assert all(v["agent"] == "claude-code" and v["state"] == "open" for v in listed)
    replaces = [v for v in listed if v["verdict"] == "replaces"]
    assert [(v["older"], v["newer"]) for v in replaces] == [
        ("mem-decision-money-integer-cents", "mem-decision-money-numeric-decimal")
    ]

    # The person accepts the replacement: both sides written, undoable.
    accepted = run_cli("--vault", str(sample_copy), "inbox", "accept", replaces[0]["id"])
    assert accepted.returncode == 0, accepted.stderr
    vault = Vault.open(sample_copy)
    assert vault.get("mem-decision-money-integer-cents").status == "superseded"
    assert vault.get("mem-decision-money-numeric-decimal").supersedes == ["mem-decision-money-integer-cents"]
    # ... and rejects a companion verdict's pair for good: marked compatible, never offered again,
    # even once the records change and the verdict no longer holds them.
    companion = next(v for v in listed if v["verdict"] == "companion")
    assert run_cli("--vault", str(sample_copy), "inbox", "reject", companion["id"]).returncode == 0
    for doc_id in (companion["older"], companion["newer"]):
        path = sample_copy / vault.get(doc_id).path
        path.write_text(path.read_text("utf-8") + "\nEdited since.\n", "utf-8")
    offered = Vault.open(sample_copy).review(limit=20, depth=100)
    assert (companion["older"], companion["newer"]) not in [p.ids for p in offered.pairs]


@pytest.mark.parametrize("stripped", [False, True], ids=["as-written", "statements-stripped"])
async def test_a_scripted_judge_works_a_real_adr_collection(tmp_path, stripped):
    root, truth = a_collection(tmp_path, stripped)
    before = files(root)
    async with connected(root) as agent:
        judged = await work_the_list(agent, truth, own_words=True)
    after = files(root)
    assert {p for p in after if after[p] != before.get(p)} == {VERDICT_FILE}
    vault = Vault.open(root)
    assert len(judged) == len(vault.verdicts(("open",))) > 0
    replacing = [j for j in judged if j["verdict"] in ("replaces", "reversed")]
    assert bool(replacing) == stripped  # as written, every pair is stated on both sides: settled, never offered
    if not replacing:
        chosen = judged[0]
        vault.reject_verdict(chosen["id"])
        assert frozenset(chosen["pair"]) in Vault.open(root).index.config.compatible
        return
    previews = {}
    for each in replacing:  # a record whose status line was stripped away has none to rewrite: refused, in words
        try:
            previews[each["id"]] = vault.accept_verdict(each["id"], dry_run=True)
        except RefusedError as exc:
            assert "states no status" in str(exc)
    chosen = next(j for j in replacing if j["id"] in previews)
    plan = previews[chosen["id"]]
    assert plan.diff() and not plan.applied
    assert files(root) == after  # a preview writes nothing
    vault.accept_verdict(chosen["id"])
    successor, replaced = (chosen["newer"], chosen["older"]) if chosen["verdict"] == "replaces" else chosen["pair"]
    vault = Vault.open(root)
    assert successor in vault.get(replaced).superseded_by or replaced in vault.get(successor).supersedes
    assert re.search(r"(?i)superseded", vault.get(replaced).stated_status)


async def test_the_cursor_survives_a_write_between_pages(sample_copy):
    async with connected(sample_copy) as agent:
        first = await agent.call("memory_review", limit=2)
        shown = [(p["older"]["id"], p["newer"]["id"]) for p in first["pairs"]]
        # Between pages a person settles a pair further down, and an agent's write lands elsewhere.
        full = Vault.open(sample_copy).review(limit=20)
        later = [p.ids for p in full.pairs][3]
        Vault.open(sample_copy).mark_compatible(*later)
        # The server follows the disk through its file watcher: ask again until it has seen the write.
        for _ in range(50):
            second = await agent.call("memory_review", limit=20, cursor=first["cursor"])
            if list(later) not in [[p["older"]["id"], p["newer"]["id"]] for p in second["pairs"]]:
                break
            await asyncio.sleep(0.1)
    rest = [(p["older"]["id"], p["newer"]["id"]) for p in second["pairs"]]
    now = [p.ids for p in Vault.open(sample_copy).review(limit=20).pairs]  # the list after the write
    assert later not in now and rest == now[now.index(shown[-1]) + 1 :]
    assert rest and not set(rest) & set(shown)


async def test_the_gates_candidates_come_with_excerpts_within_the_budget(collection):
    root, _ = collection
    vault = Vault.open(root)
    newest = max((d for d in vault.documents if d.type == "decision"), key=lambda d: d.id)
    async with connected(root) as agent:
        answer = await agent.call(
            "memory_write", type="decision", title=newest.title, body=newest.body * 8, decision="propose"
        )
        three = await agent.call("memory_write", type="decision", title=newest.title, body=newest.body, candidates=3)
        refused = await agent.refused("memory_write", type="decision", title=newest.title, candidates=11)
    assert text_size(answer) <= BUDGET and 3 < len(answer["candidates"]) <= 10
    for candidate in answer["candidates"]:
        excerpt = candidate["excerpt"]
        assert excerpt["id"] == candidate["id"] and excerpt["status"] and excerpt["opening"]
    scores = [c["score"] for c in answer["candidates"] if c["action"] == "supersede"]
    assert scores == sorted(scores, reverse=True)
    assert [c["id"] for c in three["candidates"]] == [c["id"] for c in answer["candidates"][:3]]
    assert "candidates" in refused and "10" in refused


async def test_a_verdict_needs_the_pair_as_it_was_shown(sample_copy):
    async with connected(sample_copy) as agent:
        unseen = await agent.refused(
            "memory_judge",
            older="mem-decision-jobs-cron-table",
            newer="mem-decision-jobs-procrastinate",
            verdict="replaces",
            reason="x",
        )
        assert "has not been shown to you" in unseen
        page = await agent.call("memory_review", limit=1)
        older, newer = page["pairs"][0]["older"]["id"], page["pairs"][0]["newer"]["id"]
        path = sample_copy / Vault.open(sample_copy).get(newer).path
        path.write_text(path.read_text("utf-8") + "\nA line an agent appended.\n", "utf-8")
        changed = await agent.refused("memory_judge", older=older, newer=newer, verdict="companion", reason="x")
        assert "changed since you were shown it" in changed
        bad = await agent.refused("memory_judge", older=older, newer=newer, verdict="maybe", reason="x")
        assert "verdict" in bad
    assert not (sample_copy / VERDICT_FILE).exists()
