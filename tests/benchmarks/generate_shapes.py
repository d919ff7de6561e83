"""Generated vaults of other shapes than `generate.py` makes, so that a speed figure is not a
property of one vault: words drawn by frequency (the commonest match thousands of documents, and
queries draw them as often as texts do), long bodies, and clusters of near-duplicates.

`generate.py` draws from a small set of topic words and pseudo-words with short bodies, one
status and no duplicates; here:
- the vocabulary is a few hundred English words of software and business writing, then a long
  tail of pseudo-words, drawn by a Zipf law of exponent 1.1: the commonest words stand in most
  documents, and `query_words` draws search words from the same law;
- a body is most often 100-400 words, and one document in twelve is 1,500-5,000 words long;
- one document in four is a decision; decisions and other documents come in clusters of 2-6 near
  copies (a sentence changed, a paragraph added or dropped, a title reworded), as an agent that
  writes the same fact again makes them; within a decision cluster the older copies are often
  superseded (both sides named), deprecated or left active beside a newer one, and some newer
  copies are drafts.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

TYPES = {
    "decision": "decisions",
    "concept": "concepts",
    "entity": "entities",
    "context": "contexts",
    "note": "notes",
    "task": "tasks",
}
TYPE_WEIGHTS = [25, 15, 15, 15, 20, 10]
COMMON = """
the of and to in a is that for it as with be on this by are from or we use when not at which
service data user request system time new file build test will can should each one error change
api client server config value event code run must release team version log update key support
database message process memory page model state query result access rule review cost store
queue invoice payment retry webhook schema cache tenant audit export ledger refund billing deploy
migration index search token session report worker timeout backoff storage email template agent
workflow policy limit network security account customer order product price cluster node region
backup restore monitor alert metric latency throughput batch stream job task schedule pipeline
container image registry secret certificate domain route proxy gateway load balance scale replica
shard partition lock transaction commit rollback snapshot archive document note decision context
entity concept project owner status draft active deprecated superseded link target source reason
option choice tradeoff risk benefit cost budget plan goal scope phase milestone deadline estimate
python rust go java typescript postgres redis kafka sqlite docker kubernetes terraform aws gcp azure
linux windows macos browser mobile desktop cli tui http grpc json yaml markdown git branch merge
""".split()
SYLLABLES = "ka lo mi ne ru ta si po vu de an ol ek ir um ba ze fo gi hu".split()


def vocabulary(size: int = 20000, seed: int = 13) -> list[str]:
    """The common words first, then pseudo-words: the rank of each is its place in the list."""
    rng = random.Random(seed)
    words = list(dict.fromkeys(COMMON))
    seen = set(words)
    while len(words) < size:
        word = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 5)))
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


VOCAB = vocabulary()
WEIGHTS = [1 / (rank + 1) ** 1.1 for rank in range(len(VOCAB))]
CUMULATIVE = list(__import__("itertools").accumulate(WEIGHTS))


def draw(rng: random.Random, k: int) -> list[str]:
    """`k` words by the vocabulary's frequency law."""
    return rng.choices(VOCAB, cum_weights=CUMULATIVE, k=k)


def query_words(rng: random.Random) -> str:
    """A search of 1-3 words drawn as texts draw them, stop words left out (a person does not
    search for "the"): common words that match thousands of documents come up often."""
    asked: list[str] = []
    while len(asked) < rng.randint(1, 3):
        word = draw(rng, 1)[0]
        if len(word) > 3 and word not in asked:
            asked.append(word)
    return " ".join(asked)


def _paragraphs(rng: random.Random, long: bool) -> list[str]:
    total = rng.randint(1500, 5000) if long else rng.randint(100, 400)
    out = []
    while total > 0:
        size = min(total, rng.randint(40, 120))
        sentence = draw(rng, size)
        out.append(" ".join(sentence).capitalize() + ".")
        total -= size
    return out


def _near_copy(rng: random.Random, paragraphs: list[str]) -> list[str]:
    """A paragraph changed, added or dropped: what writing the same thing again does."""
    copy = list(paragraphs)
    change = rng.choice(("change", "add", "drop"))
    if change == "change" or len(copy) < 2:
        n = rng.randrange(len(copy))
        words = copy[n].split()
        for _ in range(max(1, len(words) // 8)):
            words[rng.randrange(len(words))] = draw(rng, 1)[0]
        copy[n] = " ".join(words)
    elif change == "add":
        copy.insert(rng.randrange(len(copy) + 1), " ".join(draw(rng, rng.randint(30, 80))).capitalize() + ".")
    else:
        del copy[rng.randrange(len(copy))]
    return copy


def _title(rng: random.Random) -> str:
    subject = [w for w in draw(rng, 12) if len(w) > 3][:3] or ["subject"]
    return " ".join(subject).capitalize()


def generate_shaped_vault(root: Path, count: int, seed: int = 17) -> list[str]:
    """Write `count` valid documents under `root` in clusters of near copies; returns their ids."""
    rng = random.Random(seed)
    ids: list[str] = []
    number = 0
    while number < count:
        doc_type = rng.choices(list(TYPES), TYPE_WEIGHTS)[0]
        size = min(count - number, rng.choice((1, 1, 1, 2, 2, 3, 4, 6)))
        title = _title(rng)
        paragraphs = _paragraphs(rng, long=rng.random() < 1 / 12)
        tags = sorted({w for w in draw(rng, 6) if len(w) > 3})[:3]
        cluster = []
        for copy in range(size):
            doc_id = f"mem-{doc_type}-{'-'.join(title.lower().split()[:2])}-{number}"
            cluster.append(doc_id)
            if copy:
                paragraphs = _near_copy(rng, paragraphs)
                if rng.random() < 0.5:
                    title = title + " " + rng.choice(("revised", "again", "v2", "update", "follow-up"))
            links = rng.sample(ids, min(len(ids), rng.randint(0, 3)))
            status, supersedes, superseded_by = "active", [], []
            if doc_type == "decision" and size > 1:
                last = copy == size - 1
                fate = rng.random()
                if not last and fate < 0.4:
                    status, superseded_by = "superseded", [f"@next{copy + 1}"]
                elif not last and fate < 0.55:
                    status = "deprecated"
                elif last and fate < 0.2:
                    status = "draft"
            _write(root, doc_type, doc_id, title, number, status, tags, links, supersedes, superseded_by, paragraphs)
            ids.append(doc_id)
            number += 1
        _link_supersession(root, doc_type, cluster)
    return ids


def _write(root, doc_type, doc_id, title, number, status, tags, links, supersedes, superseded_by, paragraphs):
    linked = "".join(f"  - type: related_to\n    target: {t}\n" for t in links)
    day = 1 + number % 28
    month = 1 + (number // 28) % 12
    text = (
        "---\nschema_version: v1\n"
        f"id: {doc_id}\ntype: {doc_type}\ntitle: {title} {number}\nstatus: {status}\n"
        f"created_at: 2025-{month:02d}-{day:02d}\nupdated_at: 2026-04-01\nproject: shapes\n"
        f"tags: [{', '.join(tags)}]\n"
        + ("links:\n" + linked if linked else "links: []\n")
        + f"supersedes: {supersedes!r}\nsuperseded_by: {superseded_by!r}\n".replace("'", "")
        + "provenance:\n  source: agent-claude\n  confidence: medium\n"
        + ("execution_state: todo\n" if doc_type == "task" else "")
        + f"---\n# {title}\n\n"
        + "\n\n".join(paragraphs)
        + "\n"
    )
    folder = root / TYPES[doc_type]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{doc_id}.md").write_text(text, encoding="utf-8")


def _link_supersession(root: Path, doc_type: str, cluster: list[str]) -> None:
    """Name both sides of each supersession marked `@nextN` while the cluster was written."""
    for n, doc_id in enumerate(cluster):
        path = root / TYPES[doc_type] / f"{doc_id}.md"
        text = path.read_text(encoding="utf-8")
        if f"[@next{n + 1}]" in text:
            path.write_text(text.replace(f"[@next{n + 1}]", f"[{cluster[n + 1]}]"), encoding="utf-8")
            newer = root / TYPES[doc_type] / f"{cluster[n + 1]}.md"
            newer_text = newer.read_text(encoding="utf-8")
            newer_text = newer_text.replace("supersedes: []", f"supersedes: [{doc_id}]", 1)
            link = f"  - type: supersedes\n    target: {doc_id}\n"
            if "links: []\n" in newer_text:
                newer_text = newer_text.replace("links: []\n", "links:\n" + link, 1)
            else:
                newer_text = newer_text.replace("links:\n", "links:\n" + link, 1)
            newer.write_text(newer_text, encoding="utf-8")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--size", type=int, default=10000)
    args = parser.parse_args()
    generate_shaped_vault(args.root, args.size)
