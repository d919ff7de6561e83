"""A `files` row of the derived store and the record it keeps: how a document is written as JSON
(never pickled: a vault can come from anyone, and its cache must not be able to run code) and read
back, its meta decoded only when first asked for."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import operator
from collections.abc import Iterable
from typing import Any, Protocol

from ..flavours import View
from ..vocabulary.model import ConflictError, Document, Link, Problem, Severity, id_list
from .record import Record
from .validate import DAY_CODES

__all__ = [
    "BodySource",
    "COMPATIBLE_KEY",
    "marked_compatible",
    "StoredDocument",
    "META_DECODER",
    "FILES_COLUMNS",
    "LOAD_COLUMNS",
    "fts_fields",
    "keep_stored",
    "read_bodies",
    "read_fields",
    "read_relations",
    "record_from_row",
    "relations_of",
    "records_from_rows",
    "resolution_text",
    "resolved_under",
    "row_for",
    "with_texts",
    "with_view",
]


class BodySource(Protocol):
    """Where a stored document's body and meta are read when first asked for (`loading.Bodies`)."""

    def body(self, path: str, digest: str) -> str: ...

    def bodies(self, wanted: list[tuple[str, str]]) -> dict[str, str]: ...

    def meta(self, path: str, digest: str) -> str | dict[str, Any]: ...

    def view(self, path: str, digest: str) -> str | View | None: ...


def _encode(value: Any) -> Any:
    kind = type(value)  # the common kinds by identity first: this runs for every value of every file
    if kind is str or kind is int or kind is bool or kind is float or value is None:
        return value
    if kind is dict:
        return {k if type(k) is str else str(k): v if type(v) is str else _encode(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) is str else _encode(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _encode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, dt.datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, dt.date):
        return {"$date": value.isoformat()}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"cannot cache a {type(value).__name__}")


def _decode_hook(value: dict) -> Any:
    if len(value) == 1:
        if "$date" in value:
            return dt.date.fromisoformat(value["$date"])
        if "$datetime" in value:
            return dt.datetime.fromisoformat(value["$datetime"])
    return value


# The frontmatter field in which a person marks two documents compatible (never listed as a conflict).
COMPATIBLE_KEY = "compatible_with"


def marked_compatible(doc: Document) -> list[str]:
    """The ids a document's frontmatter marks it compatible with (`COMPATIBLE_KEY`); a stored
    document's are read from its row, its meta left undecoded."""
    if type(doc) is StoredDocument:
        relations = doc._row_relations()
        if relations is not None:
            return list(relations[3])
    return id_list(doc.meta.get(COMPATIBLE_KEY))


class _RowField:
    """A stored document's type, status or title, as its row's `fields` text holds them. Not a
    property: a descriptor without `__set__` gives way to the instance's dict, so once the text is
    split (`StoredDocument._split_fields` puts the three there) each is read as a plain attribute.
    Until then, and for a document without the text, it is asked here: split now, or read as any
    document reads it (its view or its meta)."""

    def __init__(self, name: str):
        self.name = name
        self.plain = getattr(Document, name).fget  # the property of any document

    def __get__(self, doc: Any, owner: Any = None) -> Any:
        if doc is None:
            return self
        if doc._split_fields():
            return doc.__dict__[self.name]
        return self.plain(doc)


class StoredDocument(Document):
    """A document read back from the derived store. Decoding every document's meta is most of what
    a warm open costs (70 ms at 10,000 documents), and opening a vault to answer one search looks
    at the meta of the hits alone; so each is decoded when first asked for. Equal to the same
    document parsed afresh.

    Its `updated` date is stored beside the meta: the blank listing orders every document by it,
    and decoding every meta for that alone took 0.14 s at 10,000 documents.

    An open leaves the meta in the store too (reading 100,000 metas' text was a tenth of a warm
    open's CPU time, and 56 MB), read by the path and the digest the document was read with when
    first asked for, as the body is (`loading.Bodies.meta`, which reads them all in one query once
    many are asked, for callers that look at every document's); a record about to be replaced
    keeps it first (`keep_stored`).

    Its body is read from the store when first asked for, and kept from then on: the bodies are
    most of a vault's text (290 MB at 100,000 documents of long notes), a search or a listing
    reads a few of them, and holding all of them took a large vault's open past 600 MB. Read by
    the path and the digest the document was read with, so a body is never another version's;
    a record about to be replaced keeps its body first (`keep_stored`).

    Its type, status and title, and what it supersedes, is superseded by, links to and is marked
    compatible with, are stored beside the meta too, as one text (`fields`): the conflicts queue
    and the review list ask them of every document at every call, and decoding every meta for them
    was most of what a call after one change cost beside the pairs it weighs. The text is split
    when one of them is first asked for. An open leaves the text in the store (140 bytes a row:
    reading it took 5 ms of a 0.15 s warm open at 10,000 documents): the queue reads every
    document's in one query (`read_fields`). A document without it (a copy made with `replace`, or
    not read) reads its meta.

    A document its flavour reads with a view (decision records, Dendron, Markdown notes) keeps the
    view as the stored JSON text too, decoded when first asked for (decoding every view was a third
    of a warm open of 10,000 decision records; an open for the conflicts queue leaves the text in
    the store, "" in its place, read when first asked for as the meta is: `loading.Bodies.view`), and its links as the store keeps them resolved
    (`_resolved`, under the key of the ids they were resolved among): what it supersedes, is
    superseded by and links to are read from there, never from `fields`, which holds them as the
    file states them, before they were resolved. Its type, status and title are the view's, which
    `fields` holds, resolving changing none of them. `ownership` takes the kept links only under
    the key of the ids of the vault now, and gives any other document its links resolved anew (a
    copy with its view decoded, `with_view`)."""

    @property
    def meta(self) -> dict[str, Any]:
        found = self.__dict__
        value = found["_meta"]
        if value is None:  # left in the store by the open: read as the document was read (path, digest)
            value = found["_bodies"].meta(self.path, self.digest)
        if type(value) is str:  # as the store keeps it, JSON text: a document's meta is always a dict
            value = META_DECODER.decode(value)
        found["_meta"] = value  # two threads may both read: equal dicts, either kept
        return value

    @meta.setter
    def meta(self, value: Any) -> None:
        self.__dict__["_meta"] = value

    @property
    def body(self) -> str:
        value = self.__dict__.get("body")
        if value is None:  # not read from the store yet
            value = self.__dict__["_bodies"].body(self.path, self.digest)
            self.__dict__["body"] = value
        return value

    @body.setter
    def body(self, value: str) -> None:
        self.__dict__["body"] = value

    @property
    def view(self) -> View | None:
        value = self.__dict__.get("view")
        if type(value) is not str:
            return value
        # As the store keeps it, JSON text, its links resolved as `_resolved` says; "" where the
        # open left it in the store (no view is ""), read from there now.
        found = self.__dict__["_bodies"].view(self.path, self.digest) if not value else value
        view = View.from_json(json.loads(found)) if isinstance(found, str) else found
        kept = self._resolved_relations()
        if kept is not None and view is not None:
            view = dataclasses.replace(
                view, supersedes=kept[0], superseded_by=kept[1], links=tuple(Link(t, x) for t, x in kept[2])
            )
        self.__dict__["view"] = view  # two threads may both decode: equal views, either kept
        return view

    @view.setter
    def view(self, value: View | None) -> None:
        found = self.__dict__
        found["view"] = value
        found.pop("_resolved", None)  # the links of the view given are its own
        found.pop("_kept_relations", None)

    @property
    def updated(self) -> dt.date | None:
        if "_updated" in self.__dict__:  # as the store read it (a copy made with `replace` has none)
            return self.__dict__["_updated"]
        return super().updated

    # Its type, status and title as the row's `fields` holds them (`_RowField`): once split, plain
    # attributes of the document, read without a call (the queue asks them 80,000 times at 10,000
    # documents).
    type = _RowField("type")
    status = _RowField("status")
    title = _RowField("title")

    @property
    def supersedes(self) -> list[str]:
        relations = self._relations_now()
        return list(relations[0]) if relations is not None else super().supersedes

    @property
    def superseded_by(self) -> list[str]:
        relations = self._relations_now()
        return list(relations[1]) if relations is not None else super().superseded_by

    @property
    def links(self) -> list[Link]:
        relations = self._relations_now()
        return [Link(t, target) for t, target in relations[2]] if relations is not None else super().links

    def _relations_now(self) -> tuple | None:
        """(supersedes, superseded_by, links as (type, target)) without decoding the meta or the
        view: a document without a view has them in its row's `fields`; one whose view is still
        the stored text has them resolved as the store keeps them (`_resolved`). None otherwise."""
        view = self.__dict__.get("view")
        if view is None:
            return self._row_relations()
        if type(view) is str:
            return self._resolved_relations()
        return None

    def _resolved_relations(self) -> tuple | None:
        """The links of the view as the store keeps them resolved (`resolution_text`), decoded when
        first asked; None where it keeps none (the view's own, unresolved, are then its links)."""
        found = self.__dict__
        value = found.get("_kept_relations")
        if value is None:
            text = found.get("_resolved")
            if text is None:
                return None
            supersedes, superseded_by, links = json.loads(text)
            value = found["_kept_relations"] = (tuple(supersedes), tuple(superseded_by), tuple(map(tuple, links)))
        return value

    def _split_fields(self) -> bool:
        """The row's `fields` text split into `type`, `status`, `title` (put in the document's own
        dict, where `_RowField` leaves them to be read) and `_relations`; False where there is
        none (a copy, or fields the text could not hold)."""
        found = self.__dict__
        text = found.get("_fields")
        if not text:
            return False
        found["type"], found["status"], relations, title = text.split(_SEPARATOR, 3)
        found["title"] = title or found["id"]
        found["_relations"] = relations
        found["_fields"] = ""
        return True

    def _row_relations(self) -> tuple | None:
        """(supersedes, superseded_by, links as (type, target), compatible ids) as the row keeps
        them, decoded when first asked; None for a document that has no row's (a copy)."""
        found = self.__dict__
        value = found.get("_relations")
        if value is None and self._split_fields():
            value = found["_relations"]
        if type(value) is str:
            value = found["_relations"] = tuple(json.loads(value)) if value else _NO_RELATIONS
        return value


def fts_fields(doc: Document) -> tuple[str, str, str, str, str]:
    """What full-text search sees of a document, column by column."""
    meta = doc.meta
    summary = (
        doc.view.summary
        if doc.view is not None
        else meta.get("summary") or meta.get("description") or meta.get("desc") or ""
    )
    tags = " ".join(doc.tags)
    return (
        doc.title if doc.title != doc.id else "",
        doc.id.replace("-", " ") + " " + doc.id,
        tags,
        str(summary),
        doc.body,
    )


_NO_RELATIONS: tuple = ((), (), (), ())

META_DECODER = json.JSONDecoder(object_hook=_decode_hook)
FILES_COLUMNS = (
    "path, size, mtime_ns, ino, ctime_ns, seen_ns, checked_on, until, digest, id, valid, meta, body, problems,"
    " key_lines, view, updated, fields, resolved_under, resolved"
)
# What a record is made from (`records_from_rows`): a row's columns but the day it was checked on
# and until when it holds, which only choose the rows, and those an open leaves in the store (the
# meta, the body, the queue's fields). Each column read costs a warm open as much whether it holds
# anything or not: 100,000 rows of three NULLs more took 0.015-0.02 s.
LOAD_COLUMNS = tuple(
    name for name in FILES_COLUMNS.split(", ") if name not in ("checked_on", "until", "meta", "body", "fields")
)
_FILES_NAMES = FILES_COLUMNS.split(", ")
_loaded = operator.itemgetter(*(_FILES_NAMES.index(name) for name in LOAD_COLUMNS))
_META_AT, _BODY_AT, _FIELDS_AT = (_FILES_NAMES.index(name) for name in ("meta", "body", "fields"))
_SEPARATOR = "\x1f"  # in no JSON text (a control character is always escaped there)


def _fields_text(doc: Document, title: str) -> str | None:
    """The `fields` column: type, status, relations (JSON, "" when the document names none, as most
    do not) and title (as full-text search has it: "" where it is the id), in that order, the
    title last, whatever it holds; None where a type or a status holds the separator."""
    relations = (doc.supersedes, doc.superseded_by, [[l.type, l.target] for l in doc.links], marked_compatible(doc))
    doc_type, status = doc.type, doc.status
    if _SEPARATOR in doc_type or _SEPARATOR in status:
        return None
    return _SEPARATOR.join((doc_type, status, _TO_JSON(relations) if any(relations) else "", title))


# A record's key lines, decoded once per distinct text (`records_from_rows`): files of one
# template share a few (five at 100,000 generated documents).
_KEY_LINES: dict[str, dict[str, int]] = {}
_KEY_LINES_MOST = 256


# A row's problems, decoded once per distinct text (`records_from_rows`), their severities made
# then: the problems of a vault's rows are mostly a few texts (10,000 decision records: 2,953
# rows saying they have no status, in one text), decoded once each rather than once a row.
_PROBLEMS: dict[str, list[tuple[Severity, str, str, int | None]]] = {}
_PROBLEMS_MOST = 256


def _problems(path: str, text: str, doc_id: str) -> list[Problem]:
    """The problems a row's JSON text keeps, of the document `doc_id` in the file at `path`."""
    kept = _PROBLEMS.get(text)
    if kept is None:
        kept = [(Severity(p[0]), p[1], p[2], p[3]) for p in json.loads(text)]
        if len(_PROBLEMS) < _PROBLEMS_MOST:
            _PROBLEMS[text] = kept
    return [Problem(path, severity, code, message, line, doc_id) for severity, code, message, line in kept]


_DATES: dict[str, dt.date] = {}


def _date(text: str) -> dt.date:
    """A stored `updated` date, made once per distinct text: a vault's documents share a few hundred."""
    found = _DATES.get(text)
    if found is None:
        found = dt.date.fromisoformat(text)
        if len(_DATES) < 4096:
            _DATES[text] = found
    return found


def keep_stored(record: Record | None) -> None:
    """Read a stored document's meta and body now (and its view, where the open left it in the
    store), before its row in the store is replaced or dropped: whoever still holds the document
    can read them afterwards."""
    if record is not None and type(record.document) is StoredDocument:
        try:
            _ = record.document.meta  # read for their effect: each is kept
            _ = record.document.body
            found = record.document.__dict__
            if found.get("view") == "":  # left in the store by the open: its text kept
                found["view"] = found["_bodies"].view(record.path, record.document.digest)
        except ConflictError:  # already gone (another process stored the file's new reading)
            pass


def read_bodies(documents: Iterable[Document]) -> None:
    """Read now, many to a query, the bodies of those stored documents not read yet: for a caller
    about to read thousands (the queue's profiles), where one query each took ten times as long."""
    waiting: dict[int, tuple[BodySource, list[Document]]] = {}
    for doc in documents:
        if type(doc) is StoredDocument and doc.__dict__.get("body") is None:
            source = doc.__dict__["_bodies"]
            waiting.setdefault(id(source), (source, []))[1].append(doc)
    for source, docs in waiting.values():
        found = source.bodies([(doc.path, doc.digest) for doc in docs])
        for doc in docs:
            text = found.get(doc.path)
            if text is not None:
                doc.__dict__["body"] = text  # the rest are read one by one, when asked


def with_view(doc: Document, view: View) -> Document:
    """The document read with another view (its links resolved again), as `dataclasses.replace`
    gives it; a stored document's copy keeps its meta encoded and its body in the store: replacing
    it read both (a query for each body), which was most of a warm open of decision records."""
    if type(doc) is not StoredDocument:
        return dataclasses.replace(doc, view=view)
    copy = _new_stored(StoredDocument)
    fields = dict(doc.__dict__)
    for kept in ("_updated", "_resolved", "_resolved_under", "_kept_relations"):  # the view says these
        fields.pop(kept, None)
    fields["view"] = view
    copy.__dict__ = fields
    return copy


def resolution_text(view: View) -> str:
    """A resolved view's links as the store keeps them (`resolved`): JSON of its supersedes, its
    superseded_by and its links as (type, target)."""
    return _TO_JSON([list(view.supersedes), list(view.superseded_by), [[l.type, l.target] for l in view.links]])


def resolved_under(doc: Document) -> str | None:
    """The key of the ids under which the store resolved a stored document's links (`_resolved`),
    while its view is still the stored text; None for any other document."""
    found = doc.__dict__
    return found.get("_resolved_under") if type(found.get("view")) is str else None


def read_fields(documents: Iterable[Document], fields: Any) -> None:
    """Put in place the `fields` text of those stored documents that have none yet, read in one
    query (`fields()`, as `DerivedStore.fields` gives them) where any has none, each only where
    the store still holds the reading the document was made from."""
    waiting = [
        doc
        for doc in documents
        if type(doc) is StoredDocument and doc.__dict__.get("_fields") is None and "type" not in doc.__dict__
    ]
    if not waiting:
        return
    found = fields()
    for doc in waiting:
        digest, text = found.get(doc.path, ("", None))
        if digest == doc.digest and text:
            doc.__dict__["_fields"] = text


RELATIONS_PIECE = 2_000
"""The most relations texts `read_relations` parses in one call: `json.loads` never lets go of the
interpreter, and all 100,000 of a vault at once held it 60-240 ms, a frozen screen in the TUI
beside it; a piece takes a millisecond or two."""


def read_relations(documents: Iterable[Document]) -> None:
    """Decode now, in a JSON parse per `RELATIONS_PIECE` documents, the relations in the `fields`
    text of those stored documents that have it and have not decoded it yet: for a caller about to
    ask every document's (the relations check, the live graph), where a parse each was a third of
    the check at 100,000 documents. Left to be decoded one by one where the texts of a piece do
    not parse together."""
    waiting: list[dict[str, Any]] = []
    texts: list[str] = []
    resolved: list[dict[str, Any]] = []  # those whose view is still the stored text: their links as resolved
    resolved_texts: list[str] = []
    for doc in documents:
        if type(doc) is not StoredDocument:
            continue
        found = doc.__dict__
        view = found.get("view")
        if view is None and (found.get("_relations") is not None or doc._split_fields()):
            text = found["_relations"]
            if type(text) is str and text:
                waiting.append(found)
                texts.append(text)
        elif type(view) is str and found.get("_kept_relations") is None and type(found.get("_resolved")) is str:
            resolved.append(found)
            resolved_texts.append(found["_resolved"])
    for found, value in zip(waiting, _decoded_together(texts, 4)):
        if value is not None:
            found["_relations"] = tuple(value)
    for found, value in zip(resolved, _decoded_together(resolved_texts, 3)):
        if value is not None:
            supersedes, superseded_by, links = value
            try:  # as `_resolved_relations` decodes each (where that fails, it is left to fail there)
                found["_kept_relations"] = (tuple(supersedes), tuple(superseded_by), tuple(map(tuple, links)))
            except TypeError:
                continue


def _decoded_together(texts: list[str], size: int) -> list[list | None]:
    """JSON texts, each a list of `size` values, decoded in one parse per `RELATIONS_PIECE`; None
    for each text of a piece that does not parse together as such (each is then decoded alone
    when asked)."""
    out: list[list | None] = []
    for start in range(0, len(texts), RELATIONS_PIECE):
        piece = texts[start : start + RELATIONS_PIECE]
        try:
            decoded = json.loads("[" + ",".join(piece) + "]")
        except ValueError:
            decoded = None
        if (
            decoded is None
            or len(decoded) != len(piece)
            or not all(type(value) is list and len(value) == size for value in decoded)
        ):
            decoded = [None] * len(piece)
        out.extend(decoded)
    return out


def relations_of(doc: Document) -> tuple[Any, Any, Any]:
    """(supersedes, superseded_by, links as (type, target) pairs) of a document, equal to its
    `supersedes`, `superseded_by` and `links`, read for a caller that asks them of every document
    and changes none: a stored document gives them as its row keeps them, without a list or a
    `Link` made for each (sequences to read, never to change)."""
    if type(doc) is StoredDocument:
        kept = doc.__dict__.get("_kept_relations")
        if kept is not None and type(doc.__dict__.get("view")) is str:  # as `_relations_now` gives them
            return kept
        found = doc._relations_now()
        if found is not None:
            return found[0], found[1], found[2]
    view = doc.view
    if view is not None:  # a flavour's reading (`Document.supersedes` and the rest copy its own)
        return view.supersedes, view.superseded_by, [(link.type, link.target) for link in view.links]
    return doc.supersedes, doc.superseded_by, [(link.type, link.target) for link in doc.links]


def record_from_row(row: tuple, bodies: BodySource | None = None) -> Record:
    """The record a `files` row keeps (its `FILES_COLUMNS`, as `row_for` makes them), its meta
    decoded when first asked for. With `bodies`, the row's body is left out (or was: None) and
    read from them when first asked for."""
    record = next(iter(records_from_rows((_loaded(row),), bodies).values()))
    with_texts(record, row[_META_AT], row[_BODY_AT] if bodies is None else None, row[_FIELDS_AT])
    return record


def with_texts(record: Record, meta: str | None, body: str | None, fields: str | None) -> None:
    """Put in place, in a record made by `records_from_rows`, the texts its row holds that such a
    record leaves in the store (None: left there)."""
    found = record.document.__dict__
    found["_meta"] = meta
    if body is not None:
        found["body"] = body
    found["_fields"] = fields


def records_from_rows(
    rows: Iterable[tuple], bodies: BodySource | None = None, with_fields: bool = False
) -> dict[str, Record]:
    """{path: record} of `files` rows of the `LOAD_COLUMNS`, as `record_from_row` makes each, their
    meta, body and fields left in the store (read from `bodies` when first asked for; without
    `bodies`, put in place by the caller, `with_texts`). `with_fields`: each row holds its `fields`
    too, after those columns, put in place as `read_fields` would ("" where the row holds none:
    the document reads its meta for them, and `read_fields` asks no query for it).

    A warm open makes one for every file, so each is made in as few steps as it can, in one loop:
    the document's attributes are set as one dict (its `meta` and its view left as the stored JSON
    text, which the properties decode; what is None left out), not through the dataclass's
    `__init__` and the properties' setters. Records of the same key lines share one dict of them:
    a record is replaced whole, never changed in place, and copying it for each of 100,000
    records was a tenth of the loop."""
    new, stored, set_attributes = _new_stored, StoredDocument, object.__setattr__
    dates, lines, read = _DATES, _KEY_LINES, json.loads
    found: dict[str, Record] = {}
    fields = None  # left in the store (`read_fields`), unless read with the row
    for row in rows:
        if with_fields:
            fields = row[-1] or ""
            row = row[:-1]
        (
            path,
            size,
            mtime_ns,
            ino,
            ctime_ns,
            seen_ns,
            digest,
            doc_id,
            valid,
            problems,
            key_lines,
            view,
            updated,
            under,
            resolved,
        ) = row
        document = new(stored)
        attributes = {
            "id": doc_id,
            "path": path,
            "_meta": None,  # left in the store: read when first asked for
            "_bodies": bodies,
            "digest": digest,
            "valid": valid == 1,
            "_updated": (dates.get(updated) or _date(updated)) if updated else None,
            "_fields": fields,
        }
        if view is not None:
            attributes["view"] = view
        if resolved is not None:
            attributes["_resolved"] = resolved
            attributes["_resolved_under"] = under
        set_attributes(document, "__dict__", attributes)  # not the frozen dataclass's own, in Python
        kept_lines = lines.get(key_lines)
        if kept_lines is None:
            kept_lines = read(key_lines)
            if len(lines) < _KEY_LINES_MOST:
                lines[key_lines] = kept_lines
        found[path] = Record(
            path,
            size,
            mtime_ns,
            document,
            _problems(path, problems, doc_id) if problems else [],
            kept_lines,
            ino,
            ctime_ns,
            seen_ns,
        )
    return found


_new_stored = object.__new__
# What `json.dumps(value, ensure_ascii=False)` writes, without making an encoder for each call.
_TO_JSON = json.JSONEncoder(ensure_ascii=False).encode


def row_for(record: Record, on: dt.date) -> tuple | None:
    """The `files` and `fts` rows of a record; None when its meta cannot be stored as JSON or its
    body is no longer to be had (it is then parsed again next time)."""
    doc = record.document
    try:
        meta = _TO_JSON(_encode(doc.meta))
        body = doc.body
        view = _TO_JSON(doc.view.to_json()) if doc.view is not None else None  # maybe left in the store too
    except (TypeError, ValueError, ConflictError):
        return None
    # None where there are none, as for most files: a warm open reads no text for them.
    problems = (
        json.dumps([[str(p.severity), p.code, p.message, p.line] for p in record.problems]) if record.problems else None
    )
    # A problem found because of the day (a date in the future) may be gone another day: the row
    # holds until the end of the day it was checked on; any other row holds on every later day.
    until = on.isoformat() if any(p.code in DAY_CODES for p in record.problems) else None
    updated = doc.updated.isoformat() if doc.updated else None
    search = fts_fields(doc)
    files_row = (
        record.path,
        record.size,
        record.mtime_ns,
        record.ino,
        record.ctime_ns,
        record.seen_ns,
        on.isoformat(),
        until,
        doc.digest,
        doc.id,
        int(doc.valid),
        meta,
        body,
        problems,
        json.dumps(record.key_lines),
        view,
        updated,
        _fields_text(doc, search[0]),
        None,  # the links are resolved once every id is known: `DerivedStore.keep_resolutions`
        None,
    )
    return files_row, search
