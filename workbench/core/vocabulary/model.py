"""The vocabulary of a Memory Core vault: types, statuses, link types, documents and problems.

Everything else in the core speaks these words. The enum values are exactly the contract's words,
so a value read from a file can be compared with them directly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from . import presenting
from .parse import as_date

__all__ = [
    "CONFLICTS_KEY",
    "INVERSE_LABELS",
    "ID_PATTERN",
    "REQUIRED_FIELDS",
    "SLUG_PATTERN",
    "TYPE_FOLDERS",
    "Confidence",
    "ConflictError",
    "DocType",
    "Document",
    "ExecutionState",
    "Link",
    "LinkType",
    "Problem",
    "Problems",
    "RefusedError",
    "Severity",
    "Source",
    "Status",
    "UnsafePathError",
    "VaultError",
    "WorkbenchError",
    "inverse_label",
    "member",
    "parse_links",
    "id_list",
    "QueryError",
]


class DocType(StrEnum):
    CONCEPT = "concept"
    DECISION = "decision"
    ENTITY = "entity"
    CONTEXT = "context"
    TASK = "task"
    NOTE = "note"
    INDEX = "index"

    @property
    def folder(self) -> str:
        return TYPE_FOLDERS[self]


class Status(StrEnum):
    DRAFT = "draft"
    ACTIVE = "active"
    DEPRECATED = "deprecated"
    SUPERSEDED = "superseded"
    ARCHIVED = "archived"


class LinkType(StrEnum):
    RELATED_TO = "related_to"
    DEPENDS_ON = "depends_on"
    IMPLEMENTS = "implements"
    SUPERSEDES = "supersedes"
    DERIVED_FROM = "derived_from"
    EXPLAINS = "explains"
    BLOCKED_BY = "blocked_by"


INVERSE_LABELS: dict[str, str] = {
    LinkType.RELATED_TO: "related to",
    LinkType.DEPENDS_ON: "depended on by",
    LinkType.IMPLEMENTS: "implemented by",
    LinkType.SUPERSEDES: "superseded by",
    LinkType.DERIVED_FROM: "source of",
    LinkType.EXPLAINS: "explained by",
    LinkType.BLOCKED_BY: "blocks",
}


def inverse_label(link_type: str) -> str:
    """How a backlink reads from the document it points at, so a list of backlinks reads as prose."""
    return INVERSE_LABELS.get(link_type, f"{link_type} (from)")


class ExecutionState(StrEnum):
    TODO = "todo"
    IN_PROGRESS = "in-progress"
    BLOCKED = "blocked"
    DONE = "done"


class Source(StrEnum):
    MANUAL = "manual"
    AGENT_CLAUDE = "agent-claude"
    AGENT_CODEX = "agent-codex"


class Confidence(StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


TYPE_FOLDERS: dict[DocType, str] = {
    DocType.CONCEPT: "concepts",
    DocType.DECISION: "decisions",
    DocType.ENTITY: "entities",
    DocType.CONTEXT: "contexts",
    DocType.TASK: "tasks",
    DocType.NOTE: "notes",
    DocType.INDEX: "indexes",
}

SLUG_PATTERN = r"[a-z0-9]+(?:-[a-z0-9]+)*"
ID_PATTERN = re.compile(rf"mem-({'|'.join(t.value for t in DocType)})-({SLUG_PATTERN})")

CONFLICTS_KEY = "sync_conflicts"
"""The frontmatter key under which a sync keeps both values of a field it could not merge
(`editing.docmerge`), until a person settles it: a document holding it has a problem."""

REQUIRED_FIELDS: tuple[str, ...] = (
    "schema_version",
    "id",
    "type",
    "title",
    "status",
    "created_at",
    "updated_at",
    "project",
    "tags",
    "links",
    "supersedes",
    "superseded_by",
    "provenance",
)


@dataclass(frozen=True, slots=True)
class Link:
    type: str
    target: str


@dataclass(frozen=True, eq=False)
class Document:
    """One file of the vault, as it was on disk when it was read.

    `meta` is the parsed frontmatter (empty when it could not be parsed), `body` the text after it.
    `digest` identifies the exact bytes that were read: saving a changed copy of this document
    compares it with the file now on disk, and refuses if someone else wrote in between.

    Two documents are equal when their fields are, whatever their class: one read back from the
    derived store (which decodes its meta when first asked) equals the same file parsed afresh.
    """

    id: str
    path: str
    meta: dict[str, Any]
    body: str
    digest: str = ""
    valid: bool = True
    view: Any = None  # how the vault's flavour reads the file (flavours.View); None for Memory Core

    __hash__ = None  # type: ignore[assignment]  # its meta is a dict: a document is a value, never a key

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Document):
            return NotImplemented
        return (self.id, self.path, self.digest, self.valid, self.body, self.view, self.meta) == (
            other.id,
            other.path,
            other.digest,
            other.valid,
            other.body,
            other.view,
            other.meta,
        )

    @property
    def title(self) -> str:
        if self.view is not None:
            return self.view.title
        title = self.meta.get("title")
        return str(title) if title not in (None, "") else self.id

    @property
    def type(self) -> str:
        return self.view.type if self.view is not None else str(self.meta.get("type", ""))

    @property
    def status(self) -> str:
        return self.view.status if self.view is not None else str(self.meta.get("status", ""))

    @property
    def stated_status(self) -> str:
        """The status in the file's own words ("Superseded by ADR-042"); Memory Core's is its status."""
        return (self.view.stated_status or self.view.status) if self.view is not None else self.status

    @property
    def tags(self) -> list[str]:
        if self.view is not None:
            return list(self.view.tags)
        tags = self.meta.get("tags")
        return [str(t) for t in tags] if isinstance(tags, list) else []

    @property
    def links(self) -> list[Link]:
        return list(self.view.links) if self.view is not None else parse_links(self.meta.get("links"))

    @property
    def supersedes(self) -> list[str]:
        return list(self.view.supersedes) if self.view is not None else id_list(self.meta.get("supersedes"))

    @property
    def superseded_by(self) -> list[str]:
        return list(self.view.superseded_by) if self.view is not None else id_list(self.meta.get("superseded_by"))

    @property
    def updated(self):
        """The date the document was last changed, as a date, or None."""
        if self.view is not None:
            return self.view.updated
        return as_date(self.meta.get("updated_at"))

    @property
    def stated_updated(self):
        """The date the file itself gives for its last change (None when it gives none and only
        the file's modification time is known): what a person is shown as its date."""
        if self.view is not None and self.view.updated_is_file_time:
            return None
        return self.updated

    def _repr_html_(self) -> str | None:
        return presenting.render("document_html", self)

    def _repr_markdown_(self) -> str | None:
        return presenting.render("document_markdown", self)


def member(value: Any, choices: type[StrEnum]) -> bool:
    """Whether a value read from a file is one of an enum's words; a list or mapping never is
    (and must not raise: `[x] in set(...)` does)."""
    return isinstance(value, str) and value in choices._value2member_map_


def parse_links(value: Any) -> list[Link]:
    """The well-formed `{type, target}` entries of a `links` value; malformed ones are checked elsewhere."""
    if not isinstance(value, list):
        return []
    links = []
    for item in value:
        if isinstance(item, dict) and isinstance(item.get("type"), str) and isinstance(item.get("target"), str):
            links.append(Link(item["type"], item["target"]))
    return links


def id_list(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value if isinstance(v, (str, int))]
    if isinstance(value, str) and value:
        return [value]
    return []


@dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong with a file, said so that a person can act on it."""

    path: str
    severity: Severity
    code: str
    message: str
    line: int | None = None
    doc_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "severity": str(self.severity),
            "code": self.code,
            "message": self.message,
            "line": self.line,
        }

    def _repr_html_(self) -> str | None:
        return presenting.render("problems_html", [self])


class Problems(list):
    """A list of problems that a notebook shows as a table."""

    def _repr_html_(self) -> str | None:
        return presenting.render("problems_html", self)

    def to_pandas(self):
        return presenting.frame(p.to_json() for p in self)


class WorkbenchError(Exception):
    """Base of every error the workbench reports to a person instead of a traceback."""


class VaultError(WorkbenchError):
    """The vault cannot be opened or read."""


class QueryError(WorkbenchError):
    """A search query that cannot mean anything: a filter with a value it cannot take."""


class RefusedError(WorkbenchError):
    """A request the workbench will not carry out: an unknown id, a forbidden transition."""


class UnsafePathError(RefusedError):
    """A path the workbench will not write or delete through: a symlink on the way, a file that is
    not a regular file (a FIFO), or a path from its own state that points outside the vault."""


class ConflictError(RefusedError):
    """The file changed on disk since it was read; nothing was written."""

    def __init__(self, path: str, message: str | None = None):
        self.path = path
        super().__init__(message or f"{path} changed on disk since it was read; nothing was written")
