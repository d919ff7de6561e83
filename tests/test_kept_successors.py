"""The likeliest successors answered from what was kept of every decision (`kept_successors`)
equal the pass read plainly (`views.successors`), after changes made by plain file I/O between
two opens, and a keep that trusted a decision it did not profile again would answer otherwise."""

from __future__ import annotations

import marshal
import random
import re
import shutil
from array import array
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.benchmarks.records_vault import write_records
from tests.test_corpora import CORPORA
from workbench.core.records.derived_store import DerivedStore
from workbench.core.records.store_rows import relations_of
from workbench.core.services import kept_conflicts, kept_shortlists, kept_successors
from workbench.core.services.kept_conflicts import SUCCESSORS
from workbench.core.vault import Vault
from workbench.core.views import successors
from workbench.core.views.similarity import profiles_of
from workbench.core.views.successors import SHORTLIST, Decisions, Ranking, later_than, likeliest_among, ranking
from workbench.core.vocabulary.model import Status

SIZE = 360
STATUS = re.compile(r"(?im)^([-*\s]*status:\s*)accepted\b")


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> Path:
    source = CORPORA / "adr-collection"
    if not source.is_dir():
        pytest.skip(f"corpus adr-collection not found under {CORPORA} (set WORKBENCH_CORPORA to the folder holding it)")
    folder = tmp_path_factory.mktemp("records") / "source"
    write_records(source, folder, SIZE)
    # Some records superseded without naming a successor: the ones the pass is asked about.
    said = [p for p in sorted(folder.glob("*.md")) if STATUS.search(p.read_text("utf-8"))]
    for path in said[::15]:
        path.write_text(STATUS.sub(r"\1Superseded", path.read_text("utf-8"), count=1), "utf-8")
    return folder


@pytest.fixture
def vault(records: Path, tmp_path: Path) -> Path:
    target = tmp_path / "vault"
    shutil.copytree(records, target)
    return target


def _answer(found: dict) -> dict:
    return {old: [(s.id, s.title, s.score, s.why) for s in few] for old, few in found.items()}


@dataclass
class Opened:
    """One fresh open's pass read plainly and from what the store kept."""

    plain: dict  # the answer read plainly
    found: dict  # the answer from what was kept
    kept: kept_successors.KeptDecisions
    decisions: Decisions  # every decision profiled from its text
    lacking: list[str]  # the records asked
    docs: dict


def asked_of(root: Path) -> tuple[DerivedStore, dict, dict, list[str], dict]:
    """A fresh open of the records as decisions: its store, its documents by id, their relations,
    the superseded records that name no successor (whose likeliest successors are asked), and
    every id a file owns (an invalid file's too)."""
    vault = Vault.open(root, flavour="adr")
    docs = {d.id: d for d in vault.index.documents}
    related = {doc_id: relations_of(doc) for doc_id, doc in docs.items()}
    lacking = [d for d, doc in docs.items() if doc.status == Status.SUPERSEDED and not related[d][1]]
    return vault.index.store, docs, related, lacking, vault.index.owners()


def _opened(root: Path, dismissed: frozenset = frozenset()) -> Opened:
    store, docs, related, lacking, owned = asked_of(root)
    decisions = Decisions(docs.values())
    plain = likeliest_among(decisions, lacking, dismissed=dismissed)
    kept = kept_successors.KeptDecisions(lambda keys: store.kept_rows(SUCCESSORS, keys))
    kept.load(store.kept(SUCCESSORS, "test"))
    found = kept_successors.likeliest_successors(docs, lacking, dismissed, kept, related, owned)
    assert found is not None
    store.keep_with_rows(SUCCESSORS, "test", kept.dump(), kept.to_write(), replace=kept.whole, forget=kept.unnamed())
    return Opened(_answer(plain), _answer(found), kept, decisions, lacking, docs)


def _both(root: Path, dismissed: frozenset = frozenset()) -> tuple[dict, dict, kept_successors.KeptDecisions]:
    """(the pass read plainly, the pass from what the store kept, that keep) in a fresh open."""
    opened = _opened(root, dismissed)
    return opened.plain, opened.found, opened.kept


def _append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as file:
        file.write(text)


def test_equal_to_the_plain_pass_after_random_changes(vault: Path) -> None:
    plain, found, kept = _both(vault)
    assert kept.whole and plain and any(plain.values())  # counted from nothing, and something offered
    assert found == plain
    rng = random.Random(7)
    words = "retry budget outage review cache queue schema tenant audit token".split()
    for step in range(6):
        files = sorted(vault.glob("*.md"))
        for path in rng.sample(files, 3):
            _append(path, f"\n{' '.join(rng.choices(words, k=rng.randint(3, 12)))}.\n")
        if step == 2:  # a decision gone, another new
            files[5].unlink()
            shutil.copy(files[9], vault / "ADR-09999-added-record.md")
        if step == 4:  # a live decision superseded without a successor: one more asked
            path = next(p for p in files[21:] if p.exists() and STATUS.search(p.read_text("utf-8")))
            path.write_text(STATUS.sub(r"\1Superseded", path.read_text("utf-8"), count=1), "utf-8")
        plain, found, kept = _both(vault)
        assert kept.moved and not kept.whole, step  # followed (to be kept again), not counted again
        assert found == plain, step


def test_a_decision_changed_by_plain_file_io_is_profiled_again(vault: Path) -> None:
    """A live decision made to name a superseded one becomes its likeliest successor: a keep that
    trusted what it profiled before would not offer it."""
    plain, found, _ = _both(vault)
    old = next(o for o, few in plain.items() if few)
    offered = {s[0] for s in plain[old]}
    vault_now = Vault.open(vault, flavour="adr")
    docs = {d.id: d for d in vault_now.index.documents}
    when = {doc_id: profile.when for doc_id, profile in profiles_of(docs.values()).items()}
    later = next(  # a live record not older, not offered
        d
        for d in sorted(docs.values(), key=lambda d: d.path, reverse=True)
        if d.status in (Status.ACTIVE, Status.DRAFT) and d.id not in offered and not when[d.id] < when[old]
    )
    _append(vault / later.path, f"\nThis record replaces {old} ({Path(docs[old].path).stem}).\n")
    plain, found, kept = _both(vault)
    assert not kept.whole
    assert later.id in {s[0] for s in plain[old]}  # the change moved the answer: offered now
    assert found == plain


def test_a_decision_gone_is_kept_gone(vault: Path) -> None:
    """A decision removed, nothing else changed: the keep follows and is kept again, so the next
    open reads it without the decision (and nothing to follow)."""
    _both(vault)
    sorted(vault.glob("*.md"))[3].unlink()
    plain, found, kept = _both(vault)
    assert kept.moved and found == plain
    plain, found, kept = _both(vault)
    assert not kept.moved and found == plain


def test_nothing_changed_after_a_full_count_keeps_nothing_again(vault: Path) -> None:
    """The rows holding no decision digest alike when counted and when followed: the call after a
    full count, nothing changed, has nothing to keep."""
    _, _, kept = _both(vault)
    assert kept.whole
    plain, found, kept = _both(vault)
    assert found == plain
    assert not kept.moved


def test_a_row_gone_is_counted_again(vault: Path) -> None:
    """Rows another process dropped (it counted everything since) are not a fault: counted again."""
    _both(vault)
    _append(next(iter(sorted(vault.glob("*.md")))), "\nA sentence more about the retry budget.\n")
    store = Vault.open(vault, flavour="adr").index.store
    store.db.execute("DELETE FROM kept_rows WHERE name = ?", (SUCCESSORS,))
    plain, found, kept = _both(vault)
    assert kept.whole
    assert found == plain


@pytest.mark.parametrize("posted", [(0, 7), (10**6, 1)], ids=["a-count-changed", "a-row-past-the-end"])
def test_a_row_damaged_yet_readable_is_counted_again(vault: Path, posted: tuple[int, int]) -> None:
    """Every term's postings row replaced by bytes of a postings row's shape (a count changed, a
    decision's place past the end): its key no longer digests its bytes, so it is a row gone and
    everything is counted again, never a wrong answer nor an error."""
    plain, _, _ = _both(vault)
    store = Vault.open(vault, flavour="adr").index.store
    kept = kept_successors.KeptDecisions(lambda keys: store.kept_rows(SUCCESSORS, keys))
    (record,) = store.db.execute("SELECT value FROM kept WHERE name = ?", (SUCCESSORS,)).fetchone()
    assert kept.load(record)
    keys = {key for n in range(kept_successors.TERM_ROWS) for key in kept._term_row(n).values()}
    value = array("i", posted).tobytes()
    with store.db:
        store.db.executemany(
            "UPDATE kept_rows SET value = ? WHERE name = ? AND key = ?", [(value, SUCCESSORS, key) for key in keys]
        )
    asked = next(old_id for old_id, few in plain.items() if few)
    docs = {d.id: d for d in Vault.open(vault, flavour="adr").index.documents}
    _append(vault / docs[asked].path, "\nA sentence more about the retry budget.\n")  # its shortlist ranked again
    plain, found, kept = _both(vault)
    assert kept.whole
    assert found == plain


def test_a_record_with_a_field_of_another_kind_is_counted_again(vault: Path) -> None:
    """A record that reads well but holds a field of another kind (a number where a set of rows
    is kept): not this code's record, so everything is counted again, never an error."""
    _both(vault)
    store = Vault.open(vault, flavour="adr").index.store
    (key, record) = store.db.execute("SELECT key, value FROM kept WHERE name = ?", (SUCCESSORS,)).fetchone()
    fields = list(marshal.loads(record))
    fields[1 + kept_successors.KeptDecisions._KEPT.index("passed")] = 5
    store.keep(SUCCESSORS, key, marshal.dumps(tuple(fields)))
    plain, found, kept = _both(vault)
    assert kept.whole
    assert found == plain


def test_kept_under_a_name_the_queue_keeps() -> None:
    assert SUCCESSORS in kept_conflicts.NAMES


def _successor_rows(vault: Vault) -> tuple[int, int]:
    """(the successors' rows in the store, the rows its record names)."""
    db = vault.index.store.db
    (count,) = db.execute("SELECT count(*) FROM kept_rows WHERE name = ?", (SUCCESSORS,)).fetchone()
    (record,) = db.execute("SELECT value FROM kept WHERE name = ?", (SUCCESSORS,)).fetchone()
    kept = kept_successors.KeptDecisions(lambda keys: vault.index.store.kept_rows(SUCCESSORS, keys))
    assert kept.load(record)
    return count, len(kept.named())


def test_rows_no_longer_named_are_deleted_through_many_changes(vault: Path) -> None:
    """Decisions changed by plain file I/O between fresh opens, the queue asked each time: the
    rows kept stay those the record names (none piling up until a full count), and the queue
    equals the one counted from nothing."""
    first = Vault.open(vault, flavour="adr")
    first.conflicts()
    start, named = _successor_rows(first)
    assert start == named > 0
    rng = random.Random(11)
    for step in range(8):
        for path in rng.sample(sorted(vault.glob("*.md")), 2):
            _append(path, f"\nThe retry budget, step {step}: {rng.random()}.\n")
        opened = Vault.open(vault, flavour="adr")
        opened.conflicts()
        count, named = _successor_rows(opened)
        assert count == named, step
        assert count <= start + 2 * 8, step  # a changed decision's row in place of its old one
    followed = Vault.open(vault, flavour="adr").conflicts()
    assert list(followed) == list(Vault.open(vault, flavour="adr").conflicts(full=True))


def test_the_record_and_its_rows_are_kept_in_one_transaction(vault: Path) -> None:
    """The rows made, the record naming them and the deletion of the rows it names no more are
    one transaction: apart, a process stopped after the record left rows nobody names."""
    Vault.open(vault, flavour="adr").conflicts()
    _append(sorted(vault.glob("*.md"))[4], "\nA sentence more about the retry budget.\n")
    opened = Vault.open(vault, flavour="adr")
    statements: list[str] = []
    opened.index.store.db.set_trace_callback(statements.append)
    opened.conflicts()
    opened.index.store.db.set_trace_callback(None)
    writes = [n for n, s in enumerate(statements) if SUCCESSORS in s and s.startswith(("INSERT", "DELETE"))]
    assert any("INTO kept VALUES" in statements[n] for n in writes)  # the record
    assert any("DELETE FROM kept_rows" in statements[n] for n in writes)  # the changed row's old one
    begins = [n for n in range(writes[0]) if statements[n].startswith("BEGIN")]
    assert begins, "the successors' rows written outside a transaction"
    begin = begins[-1]
    ends = [n for n in range(begin, len(statements)) if statements[n].startswith(("COMMIT", "ROLLBACK"))]
    assert ends and statements[ends[0]].startswith("COMMIT") and writes[-1] < ends[0]


# -- the shortlists followed after a change (`kept_shortlists`) ----------------------------


@pytest.fixture
def rankings(monkeypatch) -> dict[str, Ranking]:
    """The ranking the shortlists gave each record asked in the last open (the real code, watched)."""
    seen: dict[str, Ranking] = {}
    real = kept_shortlists.KeptShortlists.ranked

    def watched(self, old_id: str) -> Ranking:
        seen[old_id] = real(self, old_id)
        return seen[old_id]

    monkeypatch.setattr(kept_shortlists.KeptShortlists, "ranked", watched)
    return seen


def _weighed(found: Ranking) -> tuple:
    """What the weighing reads of a ranking: its lists, best score and the scores of those weighed."""
    return found.alike, found.cited, found.top, [found.scores.get(d, 0.0) for d in found.alike + found.cited]


def _compared(root: Path, rankings: dict, dismissed: frozenset = frozenset()) -> Opened:
    """A fresh open whose answer and every record's ranking equal a full count's, to the bit."""
    rankings.clear()
    opened = _opened(root, dismissed)
    assert opened.found == opened.plain
    asked = [d for d in opened.lacking if opened.decisions.has(d)]
    assert sorted(rankings) == sorted(asked)
    for old_id in asked:
        assert _weighed(rankings[old_id]) == _weighed(ranking(opened.decisions, old_id, dismissed)), old_id
    for old_id, (_, _, _, bound, members, _, _) in opened.kept.shortlists.items():  # what is kept holds
        scores = opened.decisions.scores(opened.decisions.profile(old_id).terms)
        others = [scores[d] for d in later_than(opened.decisions, old_id) if d in scores and d not in members]
        assert not others if bound is None else max(others, default=0.0) <= bound, old_id
    return opened


def _file(root: Path, opened: Opened, doc_id: str) -> Path:
    return root / opened.docs[doc_id].path


def _deep(opened: Opened) -> str:
    """A record asked with a whole shortlist and more later decisions scored than it keeps."""
    decisions = opened.decisions
    for old_id in opened.lacking:
        later = later_than(decisions, old_id)
        scored = decisions.scores(decisions.profile(old_id).terms)
        if sum(d in scored for d in later) > kept_shortlists.DEPTH + 10:
            return old_id
    raise AssertionError("no record asked with a deep enough ranking")


def test_rankings_equal_a_full_count_through_every_kind_of_change(vault: Path, rankings: dict) -> None:
    """Each kind of change followed in turn, each open's rankings compared with a full count's:
    a decision made the likeliest, the same made as it was (no longer the likeliest), the likeliest
    removed, one added, the record asked edited, a common word's rarity changed, decisions added
    (every word rarer), the likeliest superseded, a record asked accepted (asked no more)."""
    first = _compared(vault, rankings)
    assert first.kept.whole
    old = _deep(first)
    old_path = _file(vault, first, old)
    best = rankings[old].alike
    candidate = next(
        d for d in reversed(later_than(first.decisions, old)) if d not in best and d not in rankings[old].cited
    )
    path = _file(vault, first, candidate)
    before = path.read_text("utf-8")
    scored = []

    def followed() -> Opened:
        opened = _compared(vault, rankings)
        assert not opened.kept.whole
        scored.append(opened.kept.scored)
        return opened

    _append(path, "\n" + old_path.read_text("utf-8"))  # it says what the record says: the likeliest
    opened = followed()
    assert rankings[old].alike[0] == candidate
    path.write_text(before, "utf-8")  # as it was: no longer the likeliest
    opened = followed()
    assert rankings[old].alike[0] != candidate and candidate not in rankings[old].alike[:5]
    _file(vault, opened, rankings[old].alike[0]).unlink()  # the likeliest removed
    opened = followed()
    added = vault / "ADR-09998-the-record-again.md"  # the record asked, again, accepted: the likeliest
    added.write_text(re.sub(r"(?im)^([-*\s]*status:\s*)superseded\b", r"\1accepted", old_path.read_text("utf-8")))
    opened = followed()
    assert opened.docs[rankings[old].alike[0]].path == added.name
    _append(old_path, "\nThe retry budget was raised after the outage review.\n")  # the record asked edited
    opened = followed()
    for path in sorted(vault.glob("*.md"))[10:250:20]:  # a common word in a dozen more decisions
        _append(path, "\nSee the review.\n")
    opened = followed()
    for n in range(5):  # decisions added that share nothing with it: every word a little rarer
        (vault / f"ADR-0999{n}-unrelated.md").write_text(
            f"# Unrelated {n}\n\nStatus: accepted\n\nQuartz xylophone {n}.\n"
        )
    opened = followed()
    top = _file(vault, opened, rankings[old].alike[0])  # the likeliest superseded: no longer live
    top.write_text(re.sub(r"(?im)^([-*\s]*status:\s*)accepted\b", r"\1superseded", top.read_text("utf-8")))
    opened = followed()
    other = next(d for d in opened.lacking if d != old and d in rankings)  # a record asked accepted
    other_path = _file(vault, opened, other)
    other_path.write_text(
        re.sub(r"(?im)^([-*\s]*status:\s*)superseded\b", r"\1accepted", other_path.read_text("utf-8"))
    )
    opened = followed()
    assert other not in rankings
    assert min(scored) * 4 < first.kept.scored  # most changes scored only what each record kept


def test_equals_at_the_cutoff_follow_the_full_counts_order(vault: Path, rankings: dict) -> None:
    """Copies of one decision score alike: more of them than the shortlist holds, those offered
    are the first in the decisions' order (by id), after the copies came and after another change."""
    first = _compared(vault, rankings)
    old = _deep(first)
    source = _file(vault, first, rankings[old].alike[0])
    slug = source.name.split("-", 2)[2]  # the title its name gives, alike
    for n in range(SHORTLIST + 15):
        shutil.copy(source, vault / f"ADR-0{1000 + n}-{slug}")  # ids before theirs ("ADR-1000" < "ADR-218")
    opened = _compared(vault, rankings)
    assert not opened.kept.whole
    found = ranking(opened.decisions, old)  # every decision's score
    last = found.scores[found.alike[-1]]
    equal = [d for d in later_than(opened.decisions, old) if found.scores.get(d) == last]
    assert len(equal) > sum(found.scores[d] == last for d in found.alike)  # equals on both sides of the cut
    _append(sorted(vault.glob("*.md"))[7], "\nThe retry budget was raised after the outage review.\n")
    assert not _compared(vault, rankings).kept.whole


def test_a_pair_dismissed_is_left_out_of_the_kept_shortlist(vault: Path, rankings: dict) -> None:
    first = _compared(vault, rankings)
    old = _deep(first)
    dismissed = frozenset({frozenset((old, d)) for d in rankings[old].alike[:3]})
    opened = _compared(vault, rankings, dismissed)
    assert not set(rankings[old].alike) & {d for pair in dismissed for d in pair}
    assert opened.kept.shortlists == first.kept.shortlists  # the pairs dismissed still kept: only weighed more


def test_one_change_scores_only_what_each_record_kept(vault: Path) -> None:
    """After one decision changed, each record asked is scored against what it kept and the
    changed decision, not against every decision (as a full count is)."""
    first = _opened(vault)
    asked = [d for d in first.lacking if first.decisions.has(d)]
    _append(sorted(vault.glob("*.md"))[30], "\nThe retry budget was raised after the outage review.\n")
    opened = _opened(vault)
    assert opened.found == opened.plain and not opened.kept.whole
    assert first.kept.scored > 4 * len(asked) * kept_shortlists.DEPTH  # a full count scores most decisions
    assert opened.kept.scored <= len(asked) * (kept_shortlists.DEPTH + 10)


def test_the_same_decision_changed_again_and_again_keeps_as_many_rows(vault: Path) -> None:
    """A decision changed over and over: its new row replaces its old one each time."""
    Vault.open(vault, flavour="adr").conflicts()
    path = sorted(vault.glob("*.md"))[12]
    counts = []
    for step in range(4):
        _append(path, f"\nThe retry budget, step {step}.\n")
        opened = Vault.open(vault, flavour="adr")
        opened.conflicts()
        count, named = _successor_rows(opened)
        assert count == named, step
        counts.append(count)
    assert len(set(counts)) == 1


def test_one_change_weighs_again_only_the_pairs_it_may_have_moved(vault: Path, monkeypatch) -> None:
    """After one decision changed in words it held already (no word's rarity moved), the pairs
    weighed are those of that decision and the reasons of shortlists it moved, not every record's
    shortlist again; the answer equals the plain pass's."""
    calls: list[int] = []
    real = successors.kinship
    monkeypatch.setattr(successors, "kinship", lambda *args, **kwargs: calls.append(1) or real(*args, **kwargs))
    passes: list[int] = []  # the kinships weighed in each kept pass (the plain pass weighs its own)
    real_pass = kept_successors.likeliest_successors

    def watched(*args):
        start = len(calls)
        found = real_pass(*args)
        passes.append(len(calls) - start)
        return found

    monkeypatch.setattr(kept_successors, "likeliest_successors", watched)
    first = _opened(vault)
    path = sorted(vault.glob("*.md"))[40]
    _append(path, "\n" + first.docs[next(d for d, doc in first.docs.items() if doc.path == path.name)].title + "\n")
    opened = _opened(vault)
    assert opened.found == opened.plain and not opened.kept.whole
    assert passes[0] > 10 * len(opened.lacking)  # every shortlist weighed
    assert passes[1] * 8 < passes[0], passes
    assert opened.kept.weighed <= passes[1]


def _written(monkeypatch) -> list[int]:
    """The bytes the successors keep at each call (the record and its rows), the store's real
    method watched."""
    found: list[int] = []
    real = DerivedStore.keep_with_rows

    def watched(self, name, key, value, rows, replace=False, forget=()):
        if name == SUCCESSORS:
            found.append(len(value) + sum(len(row) for row in rows.values()))
        return real(self, name, key, value, rows, replace, forget)

    monkeypatch.setattr(DerivedStore, "keep_with_rows", watched)
    return found


def test_one_change_writes_in_proportion_to_the_change(vault: Path, monkeypatch) -> None:
    """After one decision changed, the successors write its rows and a small record, not what
    is kept of every decision again: under a tenth of what counting everything wrote."""
    written = _written(monkeypatch)
    Vault.open(vault, flavour="adr").conflicts()
    for step, path in enumerate(sorted(vault.glob("*.md"))[50:53]):
        _append(path, f"\nThe retry budget was raised after the outage review, step {step}.\n")
        Vault.open(vault, flavour="adr").conflicts()
    assert len(written) == 4
    assert max(written[1:]) * 10 < written[0], written
    followed = Vault.open(vault, flavour="adr").conflicts()
    assert list(followed) == list(Vault.open(vault, flavour="adr").conflicts(full=True))


def _named_row(vault: Vault, part: str, path: Path) -> str:
    """The key of a row the successors' record names: the row of decisions holding the decision
    at `path`, a row of the terms' counts, a shortlist's members, or the postings' index."""
    store = vault.index.store
    kept = kept_successors.KeptDecisions(lambda keys: store.kept_rows(SUCCESSORS, keys))
    (record,) = store.db.execute("SELECT value FROM kept WHERE name = ?", (SUCCESSORS,)).fetchone()
    assert kept.load(record)
    if part == "decisions":
        doc_id = next(d.id for d in vault.index.documents if d.path == path.name)
        return kept.document_rows[kept_successors.row_of(doc_id, kept_successors.DOCUMENT_ROWS)]
    if part == "frequency":
        return next(key for key in kept.frequency_rows if key)
    if part == "members":
        return next(iter(kept.listed.values()))[kept_successors.MEMBERS]
    return kept.postings_key


@pytest.mark.parametrize("part", ["decisions", "frequency", "members", "postings"])
@pytest.mark.parametrize("harm", ["damaged", "missing"])
def test_a_row_damaged_or_missing_counts_everything_again(vault: Path, part: str, harm: str) -> None:
    """A row the record names damaged (bytes that are not the row) or gone, then a decision
    changed: everything is counted again, and the answer is the plain pass's."""
    _both(vault)
    path = sorted(vault.glob("*.md"))[60]
    _append(path, "\nThe retry budget was raised after the outage review, and a new quorum word.\n")
    opened = Vault.open(vault, flavour="adr")
    key = _named_row(opened, part, path)
    db = opened.index.store.db
    if harm == "damaged":
        db.execute("UPDATE kept_rows SET value = ? WHERE name = ? AND key = ?", (b"\x00not a row", SUCCESSORS, key))
    else:
        db.execute("DELETE FROM kept_rows WHERE name = ? AND key = ?", (SUCCESSORS, key))
    db.commit()
    plain, found, kept = _both(vault)
    assert kept.whole
    assert found == plain
