"""How alike two documents are, in terms a person can judge: title, tags, shared links, words.

The write gate ranks canonical candidates with it and the conflict finder looks for documents about
the same subject. basic-memory found that no threshold separates duplicates from related notes, so
every score comes with its reasons and a person decides.
"""

from __future__ import annotations

import datetime as dt
import functools
import heapq
import math
import posixpath
import re
import weakref
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..records.store_rows import read_bodies
from ..vocabulary.model import ID_PATTERN, DocType, Document
from ..vocabulary.titlefold import fold_title

__all__ = [
    "plural_stem",
    "words",
    "term_counts",
    "Profile",
    "profiles_of",
    "Contents",
    "Corpus",
    "Likeness",
    "likeness",
    "title_likeness",
    "title_words",
    "kinship",
    "Bm25",
    "rarity",
    "bm25_of",
    "corpus_of",
    "mentions_in",
    "record_keys",
    "shown",
    "shown_words",
    "written_forms",
    "title_head",
    "title_openings",
    "shared_opening",
]

STOPWORDS = frozenset(
    """a an and are as at be but by for from has have in into is it its of on or that the this to was were
    will with we our you your not no use used using uses via per than then so if when which who what how
    should must can may do does did done one two all any each more most other some such only own same
    too very just also there their they them these those here where why about after before over under
    mem""".split()
)
WORD = re.compile(r"[a-z0-9]+")
_ANY_WORD = re.compile(r"[^\W_]+")  # letters and digits of every script


def plural_stem(word: str) -> str:
    """Plurals only: enough to match `invoices` with `invoice`, and every shown word stays a word."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


_TERMS: dict[str, str] = {}
"""Each word met, lowercase, to its stem ("" for a word not compared): a vault repeats a few
thousand words millions of times, so each is judged once (profiling 10,000 documents: 1 s to 0.3 s)."""
_TERMS_MOST = 500_000


def words(text: str) -> list[str]:
    """Lowercase content words, lightly stemmed, for overlap rather than linguistics."""
    terms = _TERMS
    if len(terms) > _TERMS_MOST:  # a vault of random strings: start again rather than grow without end
        terms.clear()
    out = []
    for word in WORD.findall(text.lower()):
        term = terms.get(word)
        if term is None:
            term = terms[word] = "" if word in STOPWORDS or len(word) < 2 or word.isdigit() else plural_stem(word)
        if term:
            out.append(term)
    return out


def title_words(title: str) -> list[str]:
    """`words` of a title folded as a person reads it (`titlefold`): look-alike letters of another
    script, format characters and compatibility forms compare as the letters they show. A word
    that stays outside ASCII (a CJK run, a Greek word) is a term of its own, whole."""
    if title.isascii():
        return words(title)
    folded = fold_title(title)
    return words(folded) + [w for w in _ANY_WORD.findall(folded) if not w.isascii()]


def term_counts(text: str) -> Counter:
    """`Counter(words(text))`, the same terms in the same order, counted faster: each distinct
    word is counted in C and judged once, rather than every word in Python (a profile of a whole
    vault is mostly this)."""
    terms = _TERMS
    if len(terms) > _TERMS_MOST:
        terms.clear()
    out: Counter = Counter()
    # A term's first word as written comes first among the distinct words, so the terms keep the
    # order in which `words` first meets them (sums over them add in the same order).
    for word, count in Counter(WORD.findall(text.lower())).items():
        term = terms.get(word)
        if term is None:
            term = terms[word] = "" if word in STOPWORDS or len(word) < 2 or word.isdigit() else plural_stem(word)
        if term:
            out[term] += count
    return out


_WRITTEN = re.compile(r"[A-Za-z0-9]+")


def shown(stem: str, text: str) -> str:
    """The word as the text wrote it, for reasons a person reads ("PDFs", not "pdf")."""
    return _written_forms(text).get(stem, stem)


@functools.lru_cache(maxsize=1024)
def _written_forms(text: str) -> dict[str, str]:
    """Each stem of `text` to its first word as written. The conflicts search shows the shared words
    of thousands of pairs, most of them naming the same documents: each text is read once."""
    forms: dict[str, str] = {}
    stems = _WRITTEN_STEMS
    if len(stems) > _TERMS_MOST:
        stems.clear()
    # The distinct words in the order first written (found in C): a stem's first word among them
    # is its first in the text.
    for word in dict.fromkeys(_WRITTEN.findall(text)):
        stem = stems.get(word)
        if stem is None:
            stem = stems[word] = plural_stem(word.lower())
        if stem not in forms:
            forms[stem] = word
    return forms


def written_forms(profile: Profile) -> dict[str, str]:
    """Each of a profile's terms whose word as its text writes it (`shown`) is another, to that
    word: what its shared words are shown by where its text is not read (`Profile.forms`)."""
    forms = _written_forms(profile.title + " " + profile.text)
    return {term: word for term in profile.terms if (word := forms.get(term, term)) != term}


_WRITTEN_STEMS: dict[str, str] = {}
"""Each word as written to its stem, for `_written_forms`."""


# A record number as people cite one: "ADR-019", "ADR019", "RFC 42" (prefix and number).
_RECORD = re.compile(r"(?<![A-Za-z0-9])([A-Za-z]{2,6})[-_ ]?0*(\d{1,5})(?![0-9])")
_MD_LINK = re.compile(r"\]\(<?([^)\s>]+?)>?(?:#[^)]*)?\)")
_WIKI_LINK = re.compile(r"\[\[([^\]|#]+)")
_HEAD = re.compile(r"^\s*(?P<head>[^:—–]{3,60}?)\s*(?::|\s[—–-]\s)\s*\S")


def record_keys(text: str) -> set[str]:
    """The record numbers a text names, as `prefix:number` ("adr:19" for ADR-019)."""
    return {f"{prefix.lower()}:{int(number)}" for prefix, number in _RECORD.findall(text)}


def _stem_of(path: str) -> str:
    name = posixpath.basename(path.strip())
    return (name[:-3] if name.lower().endswith(".md") else name).lower()


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
    handles: frozenset[str] = frozenset()  # what others cite it by: its id, file name, record number
    mentions: frozenset[str] = frozenset()  # what it cites: link targets, linked file names, ids, record numbers
    head: str = ""  # a title's subject before a colon or dash ("queue backend" of "Queue backend: use Kafka")
    when: tuple = ()  # (created, record number, id): older sorts first
    cited: frozenset[str] = frozenset()  # what its title and text cite (`mentions` but its link targets)
    # Each term whose word as written (`shown`) is another, to that word, where `text` is not read
    # (`Profile.of` given what was kept of it): its shared words are shown from these.
    forms: dict[str, str] | None = None

    @classmethod
    def of(cls, doc: Document, kept: tuple[Counter, frozenset[str], dict[str, str]] | None = None) -> Profile:
        """`doc`'s profile; from `kept` (its `terms`, `cited` and `forms`, as a profile of the same
        bytes held them) where given, its body not read."""
        provenance = doc.meta["provenance"] if isinstance(doc.meta.get("provenance"), dict) else {}
        source_file = str(provenance.get("source_file") or "")
        source_id = str(provenance.get("source_id") or "")
        handles = {doc.id.lower(), _stem_of(doc.path)} | ({_stem_of(source_file)} if source_file else set())
        handles |= record_keys(doc.id) | record_keys(source_id) | record_keys(_stem_of(source_file))
        handles |= record_keys(_stem_of(doc.path))
        created = doc.view.created if doc.view is not None else doc.meta.get("created_at")
        number = min((int(key.split(":")[1]) for key in handles if ":" in key), default=0)
        targets = {l.target for l in doc.links}
        forms = None
        if kept is not None:
            terms, cited, forms = kept
            text = ""
        else:
            text = doc.body
            terms = term_counts(doc.title + " " + text)
            # Citations are weighed between decisions only (`kinship`): no other profile pays for them.
            cited = frozenset(mentions_in((), f"{doc.title}\n{text}")) if doc.type == DocType.DECISION else frozenset()
        mentions = cited | {target.lower() for target in targets} if doc.type == DocType.DECISION else frozenset()
        return cls(
            doc.id,
            doc.title,
            doc.type,
            set(doc.tags),
            targets,
            terms,
            text,
            frozenset(handles),
            frozenset(mentions),
            title_head(doc.title),
            (created if isinstance(created, dt.date) else dt.date.min, number, doc.id),
            cited,
            forms,
        )


_PROFILED: dict[int, tuple[weakref.ref, Profile]] = {}
"""Each document profiled, by identity, with its profile, for as long as the document lives. The
index keeps a document's object for as long as its file is unchanged, so a gate proposal or a
conflicts search profiles only what changed since the last (10,000 documents: 1 s each time
before). The entry goes when its document does, so an identity is never taken for another
object's; and callers asking for different sets (the queue's decisions, then every document it
compares) no longer push each other's profiles out."""


def _forget(key: int, ref: weakref.ref) -> None:
    entry = _PROFILED.get(key)
    if entry is not None and entry[0] is ref:
        del _PROFILED[key]


def profiles_of(documents: Iterable[Document]) -> dict[str, Profile]:
    """The profile of each document, by id; a profile is never changed by those who read it."""
    out: dict[str, Profile] = {}
    profiled = _PROFILED
    documents = list(documents)
    read_bodies(doc for doc in documents if (entry := profiled.get(id(doc))) is None or entry[0]() is not doc)
    for doc in documents:
        key = id(doc)
        entry = profiled.get(key)
        if entry is None or entry[0]() is not doc:
            entry = profiled[key] = (weakref.ref(doc, functools.partial(_forget, key)), Profile.of(doc))
        out[doc.id] = entry[1]
    return out


def mentions_in(targets: Iterable[str], body: str) -> set[str]:
    """What a document cites: its link targets, the files its Markdown links name, [[wiki]]
    targets, Memory Core ids and record numbers in its text."""
    found = {target.lower() for target in targets}
    found |= {_stem_of(target) for target in _MD_LINK.findall(body) if target.lower().split("#")[0].endswith(".md")}
    found |= {target.strip().lower() for target in _WIKI_LINK.findall(body)}
    found |= {match.group(0) for match in ID_PATTERN.finditer(body.lower())} if "mem-" in body else set()
    return found | record_keys(body)


def title_head(title: str) -> str:
    """The subject a title names before a colon or a dash, normalised; "" when it names none."""
    match = _HEAD.match(title)
    head = match.group("head") if match else ""
    return "" if not head or _RECORD.fullmatch(head.strip()) else " ".join(words(head))


PREFIX_WORDS = 3  # the longest opening shared by a collection's titles that is taken for a prefix


def title_openings(title: str) -> list[tuple[str, ...]]:
    """The runs of a title's opening words (up to PREFIX_WORDS) it counts for in `shared_opening`."""
    opening = words(title)[:PREFIX_WORDS]
    return [tuple(opening[:n]) for n in range(1, len(opening) + 1)]


def shared_opening(counts: Counter) -> tuple[str, ...]:
    """The longest run of opening title words (up to PREFIX_WORDS) that more than half the titles
    of a type open with, in a collection of at least four; () when there is none."""
    titles = sum(count for opening, count in counts.items() if len(opening) == 1)
    best: tuple[str, ...] = ()
    for opening, count in counts.items():
        if titles >= 4 and count * 2 > titles and len(opening) > len(best):
            best = opening
    return best


def _after_words(title: str, count: int) -> str:
    """The title after its first `count` compared words, and the colon or dash after them."""
    seen = 0
    for match in WORD.finditer(title.lower()):
        if words(match.group(0)):
            seen += 1
            if seen == count:
                return re.sub(r"^[\s:;,.—–-]+", "", title[match.end() :])
    return ""


class Contents:
    """A number for what a text's terms hold, in their order: the same for two texts of the same
    terms counted alike (decisions copied from one template), so that what is worked out from the
    terms alone is worked out once for them; each text's found once, by its identity."""

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[Counter, int]] = {}  # by the identity of the terms, held alongside
        self._held: dict[tuple, int] = {}  # each distinct content, in order, to its number

    def of(self, terms: Counter) -> int:
        kept = self._by_id.get(id(terms))
        if kept is None or kept[0] is not terms:
            held = self._held
            kept = self._by_id[id(terms)] = (terms, held.setdefault(tuple(terms.items()), len(held)))
        return kept[1]

    def __len__(self) -> int:
        return len(self._held)


class Corpus:
    """Document frequencies, so a shared rare word counts for more than a shared common one."""

    def __init__(self, profiles: Iterable[Profile]):
        self.frequency: Counter = Counter()
        self.linked: Counter = Counter()  # how many documents link each target
        self.size = 0
        openings: dict[str, Counter] = {}  # by type: how many titles open with each run of words
        for profile in profiles:
            self.size += 1
            self.frequency.update(profile.terms.keys())
            self.linked.update(profile.targets)
            openings.setdefault(profile.type, Counter()).update(title_openings(profile.title))
        self.prefix = {doc_type: shared_opening(counts) for doc_type, counts in openings.items()}
        self._weigh()

    @classmethod
    def counted(
        cls, size: int, frequency: dict[str, int], linked: dict[str, int], prefix: dict[str, tuple[str, ...]]
    ) -> Corpus:
        """The corpus whose counts (and titles' shared openings) were these, as kept from another."""
        corpus = cls(())
        corpus.size, corpus.frequency, corpus.linked = size, Counter(frequency), Counter(linked)
        corpus.prefix = dict(prefix)
        corpus._weigh(every=False)
        return corpus

    def _weigh(self, every: bool = True) -> None:
        self._subjects: dict[int, tuple[Profile, list[str], str]] = {}
        # Every known word's weight at once: a conflicts search asks a million times for them. A
        # corpus as kept (`counted`) weighs a word when first asked (the same sum): a call after a
        # change weighs the few pairs it touches, and weighing every word took longer than them.
        self._idf: dict[str, float] = (
            {term: math.log((1 + self.size) / (1 + count)) + 1 for term, count in self.frequency.items()}
            if every
            else {}
        )
        self._norms: dict[int, tuple[Counter, float]] = {}  # by the identity of the terms, held alongside
        self._squares: dict[str, float] = {}  # each word's weight squared, as `_cosine` asks it
        # Each pair of texts' likeness (`_cosine`), by what the two hold (`content`): decisions
        # copied from one template hold the same terms, and a change to one of them weighs again
        # hundreds of pairs that are a dozen pairs of texts (1,653 pairs, 12 pairs of texts, at
        # 10,000 decision records). The same terms in the same order give the same sums.
        self._cosines: dict[tuple[int, int], tuple[float, list[str]]] = {}
        self._contents = Contents()

    def subject(self, profile: Profile) -> tuple[list[str], str]:
        """The title's words and its head without the opening every title of its type shares
        ("ADR: ", the project's name): words every record carries name no subject, and two
        records do not share one for carrying them."""
        kept = self._subjects.get(id(profile)) if profile.id else None  # a draft's is not kept
        if kept is None or kept[0] is not profile:
            subject_words, head = title_words(profile.title), profile.head
            shared = self.prefix.get(profile.type, ())
            if shared and tuple(subject_words[: len(shared)]) == shared:
                rest = _after_words(profile.title, len(shared))
                subject_words, head = subject_words[len(shared) :], title_head(rest)
            kept = (profile, subject_words, head)
            if profile.id:
                self._subjects[id(profile)] = kept
        return kept[1], kept[2]

    def rare_target(self, target: str) -> bool:
        """A link target few documents share: a hub everything links says nothing about a subject."""
        return self.linked[target] <= max(3, math.isqrt(self.size))

    def idf(self, term: str) -> float:
        weight = self._idf.get(term)
        if weight is None:
            weight = self._idf[term] = math.log((1 + self.size) / (1 + self.frequency[term])) + 1
        return weight

    def squares(self, terms: list[str]) -> list[float]:
        """Each term's weight squared: the pairs after a change to one of many decisions copied
        from a template share hundreds of terms, each pair asking the same ones."""
        known = self._squares
        found = []
        for term in terms:
            square = known.get(term)
            if square is None:
                square = known[term] = (self._idf.get(term) or self.idf(term)) ** 2
            found.append(square)
        return found

    def content(self, terms: Counter) -> int:
        """`Contents.of` these terms. A long-lived corpus (the gate's, `corpus_of`) compares ever
        new drafts with the same documents, each draft a text and a pair with each document
        weighed: past CONTENTS_MOST texts, or COSINES_MOST pairs, it starts again, its sums
        forgotten with their numbers."""
        if len(self._contents) > CONTENTS_MOST or len(self._cosines) > COSINES_MOST:
            self._contents, self._cosines = Contents(), {}
        return self._contents.of(terms)

    def norm(self, terms: Counter) -> float:
        """The length of `terms` weighed by rarity, worked out once per text: a conflicts search
        compares each document with many others."""
        kept = self._norms.get(id(terms))
        if kept is None or kept[0] is not terms:
            if len(self._norms) > CONTENTS_MOST:  # each holds its text's terms alive: drafts too
                self._norms = {}
            known, idf = self._idf, self.idf
            kept = self._norms[id(terms)] = (
                terms,
                math.sqrt(sum((count * (known.get(t) or idf(t))) ** 2 for t, count in terms.items())),
            )
        return kept[1]


@dataclass
class Likeness:
    score: float  # 0..1
    title: float
    shared_tags: list[str]
    shared_links: list[str]
    shared_words: list[str]
    text: float
    reasons: list[str]


CONTENTS_MOST = 200_000  # distinct texts a corpus numbers before it forgets them all (`Corpus.content`)
COSINES_MOST = 100_000  # pairs of texts' likenesses it keeps likewise (about 25 MB; a full count of
# 10,000 decision records copied from templates keeps under 1,000)


def _cosine(a: Counter, b: Counter, corpus: Corpus) -> tuple[float, list[str]]:
    """How alike two texts' terms are, weighed by rarity, and their five most shared terms: worked
    out once per pair of contents (`Corpus.content`)."""
    key = (corpus.content(a), corpus.content(b))
    found = corpus._cosines.get(key)
    if found is None:
        found = corpus._cosines[key] = _cosine_of(a, b, corpus)
    return found[0], list(found[1])


def _cosine_of(a: Counter, b: Counter, corpus: Corpus) -> tuple[float, list[str]]:
    # The shorter text's terms looked up in the longer's (a long body has thousands: building two
    # sets for each pair was most of a gate proposal on a vault of long documents).
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    common = [t for t in small if t in large]
    if not common:
        return 0.0, []
    squares = corpus.squares(common)
    dot = sum(a[t] * b[t] * square for t, square in zip(common, squares))
    # Ranked as tuples, no key called for each: two texts copied from one template share most terms.
    top = [t for _, t in heapq.nsmallest(5, [(-(min(a[t], b[t]) * square), t) for t, square in zip(common, squares)])]
    return dot / (corpus.norm(a) * corpus.norm(b)), top


def _as_stemmed(stem: str, text: str) -> str:
    return stem


def kinship(newer: Profile, older: Profile, corpus: Corpus, explain: bool = True) -> Likeness:
    """How likely it is that `newer` replaces `older`, from every signal a person uses: the newer
    one citing the older (a link, its id, file name or record number), the same subject (a shared
    title head such as "Queue backend:", rare words shared by the titles and the texts, tags,
    links to the same documents), and how alike the texts are. Reasons are in the words the
    documents use; without `explain`, the same reasons name the words by their stems (as many
    reasons, cheaper: for ranking many before explaining the few shown)."""
    show = shown if explain else _as_stemmed
    (newer_words, newer_head), (older_words, older_head) = corpus.subject(newer), corpus.subject(older)
    title_shared = sorted(set(newer_words) & set(older_words))
    title_union = set(newer_words) | set(older_words)
    weight = sum(corpus.idf(w) for w in title_shared)
    # Summed exactly (`fsum`): a set's order follows the process's string hashes, and a plain sum
    # in another order may differ in its last bit, which reordered pairs of equal likeness (the
    # same record twice) from one process to the next.
    title = weight / math.fsum(corpus.idf(w) for w in title_union) if title_union else 0.0
    text, shared = _cosine(newer.terms, older.terms, corpus)
    opening = corpus.prefix.get(older.type)
    if opening:
        shared = [w for w in shared if w not in opening]  # shared by every record: no reason
    cites = bool(newer.mentions & older.handles)
    head = bool(newer_head) and newer_head == older_head
    tags = sorted(newer.tags & older.tags)
    tag_score = len(tags) / len(newer.tags | older.tags) if newer.tags | older.tags else 0.0
    links = sorted(t for t in (newer.targets & older.targets) - {newer.id, older.id} if corpus.rare_target(t))
    # Shared links are shown but not counted: decision records cite their neighbours so often that
    # counting them listed more false pairs than true ones on real collections.
    score = 0.4 * text + 0.3 * title + 0.2 * cites + 0.2 * head + 0.15 * tag_score
    reasons = []
    if cites:
        reasons.append(f"it cites “{older.title}”")
    if head:
        reasons.append(f"both are about “{' '.join(show(stem, older.title) for stem in older_head.split())}”")
    elif title_shared and title >= 0.2:
        reasons.append(f"both titles say {', '.join(show(w, older.title) for w in title_shared[:4])}")
    reasons += _shared_reasons(tags, links, text, shared, older, show)
    return Likeness(min(1.0, score), title, tags, links, shared, text, reasons)


def _shared_reasons(
    tags: list[str], links: list[str], text: float, shared: list[str], other: Profile, show=shown
) -> list[str]:
    """The reasons both scores give alike: shared tags, links, and words (as `other` writes them)."""
    reasons = []
    if tags:
        reasons.append(f"shares tag{'s' if len(tags) > 1 else ''} {', '.join(tags)}")
    if links:
        reasons.append(f"links the same {', '.join(links[:3])}{' …' if len(links) > 3 else ''}")
    if text >= 0.1 and shared:
        if other.forms is not None and show is shown:
            as_written = [other.forms.get(stem, stem) for stem in shared]
        else:
            written = other.title + " " + other.text
            as_written = [show(stem, written) for stem in shared]
        reasons.append(f"text {round(text * 100)}% alike (shared words: {', '.join(as_written)})")
    return reasons


def shown_words(stems: str, text: str) -> str:
    return " ".join(shown(stem, text) for stem in stems.split())


def title_likeness(a: Profile, b: Profile) -> float:
    """How alike two titles are (0..1), despite spelling ("Postgres database", "PostgreSQL DB"),
    scaled by how much of the longer title the shorter covers: one shared word is not a
    whole-title match. Part of `likeness`, and asked alone first where most pairs differ."""
    from rapidfuzz import fuzz  # loaded by the gate or the conflicts queue, never by opening a vault

    a_words, b_words = title_words(a.title), title_words(b.title)
    if not (a_words and b_words):
        return 0.0
    cover = min(len(set(a_words)), len(set(b_words))) / max(len(set(a_words)), len(set(b_words)))
    return fuzz.token_set_ratio(" ".join(a_words), " ".join(b_words)) / 100 * cover**0.5


def likeness(a: Profile, b: Profile, corpus: Corpus, title: float | None = None, explain: bool = True) -> Likeness:
    """A weighted score with the reasons behind it, in words a curator can check; `title` is
    `title_likeness(a, b)` when the caller has it already; `explain` as for `kinship`."""
    show = shown if explain else _as_stemmed
    a_words, b_words = title_words(a.title), title_words(b.title)
    if title is None:
        title = title_likeness(a, b)
    tags = sorted(a.tags & b.tags)
    tag_score = len(tags) / len(a.tags | b.tags) if a.tags | b.tags else 0.0
    links = sorted((a.targets & b.targets) - {a.id, b.id})
    link_score = min(1.0, len(links) / 2)
    text, shared = _cosine(a.terms, b.terms, corpus)
    score = 0.35 * title + 0.25 * tag_score + 0.15 * link_score + 0.25 * text
    reasons = []
    common = sorted(set(a_words) & set(b_words))
    if common and title >= 0.3:
        reasons.append(f"both titles say {', '.join(show(w, b.title) for w in common[:4])}")
    elif title >= 0.5:
        reasons.append(f"titles alike: “{b.title}”")
    reasons += _shared_reasons(tags, links, text, shared, b, show)
    return Likeness(score, title, tags, links, shared, text, reasons)


def rarity(size: int, found: int) -> float:
    """BM25's weight of a word found in `found` of `size` documents (Lucene's form, never below
    zero); the one formula every weighing of words uses, so that kept and fresh answers agree to
    the bit."""
    return math.log(1 + (size - found + 0.5) / (found + 0.5))


class Bm25:
    """Okapi BM25 among profiles (k1 1.2, b 0.75), for how alike one text is to each of the others.

    A whole document asked as a query is mostly common words: only its most distinctive terms
    (by count and rarity) are asked, so a score says "these two share what each is about", and
    each query costs the postings of those terms rather than a pass over every document.

    Each term's share of a document's score depends on the term and the document alone, so it is
    worked out once here rather than for every query that asks it (the conflicts queue asks every
    decision of a vault in turn); a score is the sum of those shares, added in the query's order."""

    K1, B, QUERY_TERMS = 1.2, 0.75, 40

    def __init__(self, profiles: Iterable[Profile]):
        postings: dict[str, list[tuple[str, int, float]]] = {}
        profiles = list(profiles)
        lengths = {p.id: sum(p.terms.values()) for p in profiles}
        average = sum(lengths.values()) / max(1, len(lengths))
        for profile in profiles:
            norm = self.K1 * (1 - self.B + self.B * lengths[profile.id] / (average or 1))
            for term, count in profile.terms.items():
                postings.setdefault(term, []).append((profile.id, count, norm))
        self.size = len(profiles)
        self.ids = [p.id for p in profiles]
        row = {doc_id: n for n, doc_id in enumerate(self.ids)}
        self._row = row
        self._idf: dict[str, float] = {}
        self.shares: dict[str, dict[str, float]] = {}  # {term: {id: the term's share of its score}}
        self._rows: dict[str, list[tuple[int, float]]] = {}  # the same, by row
        for term, found in postings.items():
            weight = self._idf[term] = rarity(self.size, len(found))
            shares = self.shares[term] = {
                doc_id: weight * count * (self.K1 + 1) / (count + norm) for doc_id, count, norm in found
            }
            self._rows[term] = [(row[doc_id], share) for doc_id, share in shares.items()]

    def idf(self, term: str) -> float:
        weight = self._idf.get(term)
        return weight if weight is not None else rarity(self.size, 0)

    def query_terms(self, terms: Counter, most: int | None) -> list[str]:
        idf = self.idf
        ranked = sorted(terms, key=lambda t: (-(1 + math.log(terms[t])) * idf(t), t))
        return ranked[:most] if most else ranked

    def scores(self, terms: Counter, most: int | None = QUERY_TERMS) -> dict[str, float]:
        """{id: BM25 score} of every profile sharing one of the `most` distinctive terms of
        `terms` (all of them for None)."""
        # Summed by row into one list, as `likeliest` does (the gate asks every word of a draft):
        # each score adds the same shares in the same order as a dictionary per id did.
        totals = [0.0] * self.size
        met = [False] * self.size
        rows = self._rows
        for term in self.query_terms(terms, most):
            for n, share in rows.get(term, ()):
                totals[n] += share
                met[n] = True
        return {doc_id: total for doc_id, total, seen in zip(self.ids, totals, met) if seen}

    def score(self, asked: list[str], doc_id: str) -> float:
        """One profile's score for the query terms `asked` (as `query_terms` chose them): what
        `scores` gives it, or 0.0."""
        total = 0.0
        shares = self.shares
        for term in asked:
            share = shares.get(term, _NONE).get(doc_id)
            if share is not None:
                total += share
        return total

    def likeliest(self, asked: list[str], other_than: str = "") -> tuple[float, str] | None:
        """(score, id) of the profile with the highest score for the query terms `asked`, the
        greater id among equals, leaving out `other_than`; None when none shares a term. As the
        largest of `scores`, without a dictionary per query."""
        totals = [0.0] * self.size
        rows = self._rows
        for term in asked:
            for n, share in rows.get(term, ()):
                totals[n] += share
        mine = self._row.get(other_than)
        if mine is not None:
            totals[mine] = 0.0  # scores are positive: a profile sharing no term has none
        best = max(totals, default=0.0)
        if not best:
            return None
        if totals.count(best) == 1:
            return best, self.ids[totals.index(best)]
        return best, max(doc_id for doc_id, total in zip(self.ids, totals) if total == best)

    def likeliest_few(self, asked: list[str], most: int, other_than: str = "") -> list[tuple[float, str]]:
        """The `most` profiles with the highest scores for `asked`, best first, as `likeliest`
        orders equals (the greater id first), leaving out `other_than`: the first is `likeliest`'s."""
        totals = [0.0] * self.size
        rows = self._rows
        for term in asked:
            for n, share in rows.get(term, ()):
                totals[n] += share
        mine = self._row.get(other_than)
        if mine is not None:
            totals[mine] = 0.0
        ids = self.ids
        found = heapq.nlargest(most, ((total, ids[n]) for n, total in enumerate(totals) if total))
        return [(total, doc_id) for total, doc_id in found]


_NONE: dict[str, float] = {}


_CORPUS: list = [None, None, None]  # as _BM25 below, for `corpus_of`


def corpus_of(profiles: Iterable[Profile]) -> Corpus:
    """The word rarities of these profiles, counted again only when they changed: the gate weighs
    every proposal against the same documents most of the time, and a Corpus keeps each text's
    weighted length once worked out (10,000 documents: a quarter of a proposal's time before)."""
    profiles = list(profiles)
    key = frozenset(map(id, profiles))
    if _CORPUS[0] != key:
        _CORPUS[:] = [key, Corpus(profiles), profiles]
    return _CORPUS[1]


_BM25: list = [
    None,
    None,
    None,
]  # the profiles' identities, the index built on them, and the profiles (kept, so no identity is reused)


def bm25_of(profiles: Iterable[Profile]) -> Bm25:
    """The BM25 index of these profiles, built again only when they changed: the gate asks it for
    every proposal, on the same documents most of the time."""
    profiles = list(profiles)
    key = frozenset(map(id, profiles))
    if _BM25[0] != key:
        _BM25[:] = [key, Bm25(profiles), profiles]
    return _BM25[1]
