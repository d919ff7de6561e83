"""The search language: a query parsed into words, phrases and filters, and what each filter tests.

    postgres vacuum type:entity -status:archived tag:database "row level" updated:>2026-06-01

Free words and quoted phrases go to the ranking (`fulltext.py`, as one FTS5 expression here for a
plain list); `name:value` narrows the result (`FILTERS`), and `-` before a word or a filter leaves
out what has it. A malformed part is an error the query carries (`Query.errors`), never a crash;
`search.py` says it with what it could have been.
"""

from __future__ import annotations

import datetime as dt
import re
import shlex
from dataclasses import dataclass, field

from ..vocabulary.model import DocType, Document, Status
from ..vocabulary.parse import as_date
from .similarity import STOPWORDS

__all__ = [
    "DATE_FILTER",
    "FILTERS",
    "FORMAT_VALUES",
    "FilterContext",
    "IS_VALUES",
    "QUESTION_WORDS",
    "Query",
    "SHORT",
    "STALE_DAYS",
    "TOKEN",
    "content_words",
    "date_test",
    "fts_expression",
    "fts_term",
    "matches",
    "parse_query",
]

SHORT = 3  # words: a query this short is probably being typed, and the title as typed counts
FILTERS = ("type", "status", "tag", "project", "links", "from", "is", "updated", "created", "id")
IS_VALUES = ("invalid", "valid", "dangling", "orphan", "stale")  # and any type or status
FORMAT_VALUES = {  # what each of these filters may name in any vault (a vault's own files may add more)
    "type": frozenset(str(t) for t in DocType),
    "status": frozenset(str(s) for s in Status),
    "is": frozenset(IS_VALUES) | {str(t) for t in DocType} | {str(s) for s in Status},
}
DATE_FILTER = re.compile(r"(>=|<=|>|<|=)?(\d{4}-\d{2}-\d{2})")
TOKEN = re.compile(r"[\w]+", re.UNICODE)
# Words that ask rather than say: left out of the ranking unless the query has nothing else.
QUESTION_WORDS = STOPWORDS | frozenset(
    """i me my mine myself he him his she her hers am been being would could might shall let lets get gets
    got s t d m ll re ve don doesn didn isn aren wasn weren won wouldn couldn shouldn hasn haven hadn
    now still ever really even again already""".split()
)
STALE_DAYS = 90


@dataclass
class Query:
    """A query as parsed: what it ranks by, what it requires or leaves out, and what is wrong in it."""

    words: list[str] = field(default_factory=list)
    phrases: list[str] = field(default_factory=list)
    excluded_words: list[str] = field(default_factory=list)
    filters: list[tuple[str, str]] = field(default_factory=list)  # (name, value)
    excluded: list[tuple[str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join(self.words + self.phrases)


def parse_query(text: str) -> Query:
    """Split a query into words, phrases and filters; a malformed part is an error, not a crash."""
    query = Query()
    try:
        parts = shlex.split(text.replace("'", "\\'"), posix=True)
    except ValueError:
        parts = text.replace('"', " ").split()
    quoted = set(re.findall(r'"([^"]+)"', text))
    for part in parts:
        # `-word` leaves a word out; a command's flag pasted into a question (`git -C`, `wc -c`,
        # `--force`) is a word like any other, not a request to drop every note that says "c".
        negative = part.startswith("-") and len(part) > 2 and part[1] != "-"
        body = part[1:] if negative else part
        name, sep, value = body.partition(":")
        if sep and name in FILTERS and value:
            (query.excluded if negative else query.filters).append((name, value))
            if name in ("updated", "created") and date_test(value) is None:
                query.errors.append(f"{body}: not a date; write {name}:2026-01-31, or with >, >=, < or <= before it")
        elif body in quoted and " " in body:
            if not negative:
                query.phrases.append(body)
        else:
            tokens = [t.lower() for t in TOKEN.findall(body)]
            (query.excluded_words if negative else query.words).extend(tokens)
    return query


def fts_term(token: str, prefix: bool) -> str:
    """One word as an FTS5 string (a prefix of words with `prefix`)."""
    return '"' + token.replace('"', '""') + '"' + ("*" if prefix else "")


def content_words(words: list[str]) -> list[str]:
    """The words that say rather than ask; all of them when every one asks."""
    return [w for w in words if w not in QUESTION_WORDS] or list(words)


def fts_expression(query: Query, prefix_last: bool = True) -> str:
    """One FTS5 MATCH text for the whole query: its content words OR-ed, the last word also as a
    prefix of title, id and tag words, phrases required, `-word`s left out. (The ranking asks FTS5
    one term at a time; this is the same search as one expression, for a plain BM25 list.)"""
    terms = [fts_term(word, False) for word in dict.fromkeys(content_words(query.words))]
    last = query.words[-1] if prefix_last and query.words else ""
    if len(last) >= 2:
        terms.append("{title ident tags} : " + fts_term(last, True))
    expression = " OR ".join(dict.fromkeys(terms))
    for phrase in query.phrases:
        quoted = '"' + phrase.replace('"', '""') + '"'
        expression = f"({expression}) AND {quoted}" if expression else quoted
    for word in query.excluded_words:
        expression = f"({expression}) NOT {fts_term(word, False)}" if expression else ""
    return expression


class FilterContext:
    """What filters need to know about the vault, computed once per search."""

    def __init__(self, index):
        self.index = index
        self._incoming: dict[str, set[str]] | None = None
        self.today = dt.date.today()

    @property
    def incoming(self) -> dict[str, set[str]]:
        if self._incoming is None:
            incoming: dict[str, set[str]] = {}
            for doc in self.index.documents:
                for link in doc.links:
                    incoming.setdefault(link.target, set()).add(doc.id)
            self._incoming = incoming
        return self._incoming


def date_test(value: str):
    """A test of a date for `>2026-01-31` and the like; None when the value is not one."""
    match = DATE_FILTER.fullmatch(value)
    if not match:
        return None
    try:
        when = dt.date.fromisoformat(match.group(2))
    except ValueError:  # 2026-13-01
        return None
    op = match.group(1) or "="
    return {
        ">": lambda d: d > when,
        "<": lambda d: d < when,
        ">=": lambda d: d >= when,
        "<=": lambda d: d <= when,
        "=": lambda d: d == when,
    }[op]


def matches(doc: Document, name: str, value: str, ctx: FilterContext) -> bool:
    """Whether `doc` passes the filter `name:value`."""
    value_l = value.lower()
    if name == "type":  # a flavour's own words keep their case (OKF's "Person"); a filter ignores it
        return doc.type.lower() == value_l
    if name == "status":
        return doc.status.lower() == value_l
    if name == "tag":
        return value_l in (t.lower() for t in doc.tags)
    if name == "project":
        return str(doc.meta.get("project", "")).lower() == value_l
    if name == "id":  # `id:adr-018` finds ADR-018: ids keep their case, a filter ignores it
        return value_l in doc.id.lower()
    if name == "links":
        return any(l.target == value for l in doc.links)
    if name == "from":
        try:
            source = ctx.index.get(value)
        except Exception:  # noqa: BLE001 - an unknown id simply matches nothing
            return False
        return doc.id in {l.target for l in source.links}
    if name in ("updated", "created"):
        test = date_test(value)
        date = as_date(doc.meta.get(f"{name}_at"))
        return bool(test and date and test(date))
    if name == "is":
        if value_l == "invalid":
            return not doc.valid
        if value_l == "valid":
            return doc.valid
        if value_l == "dangling":
            return any(l.target not in ctx.index for l in doc.links)
        if value_l == "orphan":
            return not doc.links and not ctx.incoming.get(doc.id)
        if value_l == "stale":
            updated = as_date(doc.meta.get("updated_at"))
            return doc.status == Status.ACTIVE and updated is not None and (ctx.today - updated).days > STALE_DAYS
        return doc.status.lower() == value_l or doc.type.lower() == value_l
    return False
