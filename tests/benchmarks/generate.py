"""Generated Memory Core vaults of any size, for benchmarks: believable shapes, links and statuses."""

from __future__ import annotations

import random
from pathlib import Path

TYPES = {
    "concept": "concepts",
    "decision": "decisions",
    "entity": "entities",
    "context": "contexts",
    "task": "tasks",
    "note": "notes",
    "index": "indexes",
}
WORDS = (
    "queue invoice payment retry webhook schema cache tenant audit export ledger refund billing deploy "
    "migration index search token session report worker timeout backoff storage email template"
).split()
SYLLABLES = "ka lo mi ne ru ta si po vu de an ol ek ir um ba ze fo gi hu".split()


def vocabulary(size: int = 6000, seed: int = 11) -> list[str]:
    """Pseudo-words, so that word frequencies follow a realistic long tail."""
    rng = random.Random(seed)
    words = set(WORDS)
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def generate_vault(root: Path, count: int, seed: int = 7) -> list[str]:
    """Write `count` valid documents under `root`; returns their ids."""
    rng = random.Random(seed)
    vocab = vocabulary()
    weights = [1 / (rank + 1) for rank in range(len(vocab))]  # Zipf: a few common words, a long tail
    ids: list[str] = []
    for number in range(count):
        doc_type = rng.choice(list(TYPES))
        slug = "-".join(rng.sample(WORDS, 2)) + f"-{number}"
        ids.append(f"mem-{doc_type}-{slug}")
    for number, doc_id in enumerate(ids):
        doc_type = doc_id.split("-")[1]
        targets = rng.sample(ids[: max(1, number)], min(number, rng.randint(0, 4)))
        links = "".join(
            f"  - type: {rng.choice(['related_to', 'depends_on', 'explains'])}\n    target: {t}\n"
            for t in targets
            if t != doc_id
        )
        words = rng.sample(WORDS, 2) + rng.choices(vocab, weights, k=1)
        body = "\n\n".join(
            " ".join(rng.choices(vocab, weights, k=rng.randint(30, 80))) for _ in range(rng.randint(2, 6))
        )
        text = (
            "---\nschema_version: v1\n"
            f"id: {doc_id}\ntype: {doc_type}\ntitle: {' '.join(words).capitalize()} {number}\nstatus: active\n"
            "created_at: 2026-03-01\nupdated_at: 2026-04-01\nproject: bench\n"
            f"tags: [{', '.join(words[:2])}]\n"
            + ("links:\n" + links if links else "links: []\n")
            + "supersedes: []\nsuperseded_by: []\nprovenance:\n  source: agent-claude\n  confidence: medium\n"
            + ("execution_state: todo\n" if doc_type == "task" else "")
            + f"---\n# {words[0]}\n\n{body}\n"
        )
        folder = root / TYPES[doc_type]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{doc_id}.md").write_text(text, encoding="utf-8")
    return ids
