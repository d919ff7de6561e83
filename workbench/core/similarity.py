"""How alike two documents are, in terms a person can judge: title, tags, shared links, words.

The write gate ranks canonical candidates with it and the conflict finder looks for documents about
the same subject. basic-memory found that no threshold separates duplicates from related notes, so
every score comes with its reasons and a person decides.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from .model import Document

__all__ = ["words", "Profile", "Corpus", "Likeness", "likeness", "shown"]

STOPWORDS = frozenset(
    """a an and are as at be but by for from has have in into is it its of on or that the this to was were
    will with we our you your not no use used using uses via per than then so if when which who what how
    should must can may do does did done one two all any each more most other some such only own same
    too very just also there their they them these those here where why about after before over under
    mem""".split()
)
WORD = re.compile(r"[a-z0-9]+")


def _stem(word: str) -> str:
    """Plurals only: enough to match `invoices` with `invoice`, and every shown word stays a word."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


def words(text: str) -> list[str]:
    """Lowercase content words, lightly stemmed, for overlap rather than linguistics."""
    return [_stem(w) for w in _content_words(text)]


def _content_words(text: str) -> list[str]:
    return [w for w in WORD.findall(text.lower()) if w not in STOPWORDS and len(w) > 1 and not w.isdigit()]


def shown(stem: str, text: str) -> str:
    """The word as the text wrote it, for reasons a person reads ("postgres", not "postgre")."""
    return next((w for w in _content_words(text) if _stem(w) == stem), stem)


@dataclass
class Profile:
    """What is compared of one document (or of a draft not yet written)."""

    id: str
    title: str
    type: str
    tags: set[str] = field(default_factory=set)
    targets: set[str] = field(default_factory=set)
    terms: Counter = field(default_factory=Counter)
    text: str = ""  # the body, to show shared words as written

    @classmethod
    def of(cls, doc: Document) -> Profile:
        return cls(doc.id, doc.title, doc.type, set(doc.tags), {l.target for l in doc.links}, Counter(words(doc.title + " " + doc.body)), doc.body)


class Corpus:
    """Document frequencies, so a shared rare word counts for more than a shared common one."""

    def __init__(self, profiles: Iterable[Profile]):
        self.frequency: Counter = Counter()
        self.size = 0
        for profile in profiles:
            self.size += 1
            self.frequency.update(profile.terms.keys())

    def idf(self, term: str) -> float:
        return math.log((1 + self.size) / (1 + self.frequency[term])) + 1


@dataclass
class Likeness:
    score: float  # 0..1
    title: float
    shared_tags: list[str]
    shared_links: list[str]
    shared_words: list[str]
    text: float
    reasons: list[str]


def _cosine(a: Counter, b: Counter, corpus: Corpus) -> tuple[float, list[str]]:
    common = set(a) & set(b)
    if not common:
        return 0.0, []
    weight = {t: corpus.idf(t) for t in set(a) | set(b)}
    dot = sum(a[t] * b[t] * weight[t] ** 2 for t in common)
    norm_a = math.sqrt(sum((a[t] * weight[t]) ** 2 for t in a))
    norm_b = math.sqrt(sum((b[t] * weight[t]) ** 2 for t in b))
    top = sorted(common, key=lambda t: (-(min(a[t], b[t]) * weight[t] ** 2), t))[:5]
    return dot / (norm_a * norm_b), top


def likeness(a: Profile, b: Profile, corpus: Corpus) -> Likeness:
    """A weighted score with the reasons behind it, in words a curator can check."""
    from rapidfuzz import fuzz  # loaded by the gate or the conflicts queue, never by opening a vault

    title = fuzz.token_set_ratio(" ".join(words(a.title)), " ".join(words(b.title))) / 100 if a.title and b.title else 0.0
    tags = sorted(a.tags & b.tags)
    tag_score = len(tags) / len(a.tags | b.tags) if a.tags | b.tags else 0.0
    links = sorted((a.targets & b.targets) - {a.id, b.id})
    link_score = min(1.0, len(links) / 2)
    text, shared = _cosine(a.terms, b.terms, corpus)
    score = 0.35 * title + 0.25 * tag_score + 0.15 * link_score + 0.25 * text
    reasons = []
    if title >= 0.5:
        reasons.append(f"title {round(title * 100)}% alike: “{b.title}”")
    if tags:
        reasons.append(f"shares tag{'s' if len(tags) > 1 else ''} {', '.join(tags)}")
    if links:
        reasons.append(f"links the same {', '.join(links[:3])}{' …' if len(links) > 3 else ''}")
    if text >= 0.1 and shared:
        surface = ", ".join(shown(stem, b.title + " " + b.text) for stem in shared)
        reasons.append(f"text {round(text * 100)}% alike (shared words: {surface})")
    return Likeness(score, title, tags, links, shared, text, reasons)
