"""The public core: what the faces (the CLI, the TUI, the notebook, the agents' server, the
browser) may use of the core, all of it named here.

A face imports `workbench.core` and nothing inside it (the `public-core` contract in pyproject.toml).
The layers below are folders whose modules move as the core grows; a face that reached into them
(git sync, the gate's ids, the collector's pause) tied itself to where each thing is kept and
went past the facade's checks. A face uses:

- the facade, `Vault`, for everything that reads or changes a vault (sync and migration included);
- the values it takes and hands out: documents, problems, plans and their file changes, drafts
  and candidates, conflicts and their resolutions, verdicts, requests, undo steps, sync
  questions, and the errors a face turns into words;
- a few pure helpers, for a face to show what the core reads the way the core reads it: the links
  written in a text (`wikilinks`, `markdown_links`), a query's words (`parse_query`), a graph's
  neighbours (`neighbourhood`, `backlinks`...), a value as YAML shows it (`value_text`), the port
  a face draws objects through (`presenting`);
- `Fingerprint`, a stat walk of a vault's folder taken before it is opened, which answers a
  question asked of an unchanged vault without opening it (`services/kept_answers.py`).
  `secret_note` says, as `Vault.secret_note` does, why the user's store secret is refused, for
  such an answer to say it without loading the facade.

Each name is loaded when first asked for (PEP 562), from the module that defines it: importing
`Conflict` costs what importing its module costs and nothing more, so no face loads more of the
core at start than it uses.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .vault import Vault
    from .vocabulary.model import (
        REQUIRED_FIELDS,
        ConflictError,
        DocType,
        Document,
        ExecutionState,
        LinkType,
        Problem,
        Problems,
        QueryError,
        RefusedError,
        Severity,
        Status,
        UnsafePathError,
        VaultError,
        WorkbenchError,
        inverse_label,
        parse_links,
    )
    from .vocabulary import presenting
    from .vocabulary.presenting import document_rows, frame, plain_text
    from .vocabulary.lifecycle import allowed_transitions, transition_refusal
    from .vocabulary.parse import value_text
    from .vocabulary.files import read_file
    from .flavours.base import Flavour, RawLink, markdown_links, strip_code, wikilinks
    from .flavours.markdown import body_links
    from .editing.docmerge import MISSING
    from .storage.changes import FileChange, Plan
    from .storage.vaultfs import first_link
    from .records.record import Record
    from .records.live import VaultWatcher
    from .records.validate import find_credentials
    from .records.seal import secret_note
    from .views.query import QUESTION_WORDS, parse_query
    from .views.search import Hit, SearchResults
    from .views.similarity import STOPWORDS, plural_stem
    from .views.excerpts import READ_CHARACTERS, READ_DOCUMENTS
    from .views.graph import (
        Neighbourhood,
        backlinks,
        context_pack,
        mermaid_id,
        neighbourhood,
        outgoing,
        supersession_chain,
    )
    from .views.retrieval import QuestionPack
    from .services.agentwrites import Agent, AlreadyExists
    from .services.conflicts import Conflict, Conflicts, Resolution, find_conflicts
    from .services.consolidate import Group
    from .services.gate import LIKELY_PREDECESSOR, Candidate, Draft
    from .services.gitrepo import SyncError
    from .services.gitsync import SyncReport
    from .services.inbox import Inbox, Request
    from .services.following import Follower
    from .services.kept_answers import Fingerprint
    from .services.migrate import MigrationReport
    from .services.recent import Changes
    from .services.repair import RepairReport
    from .services.review import ReviewPage, ReviewPair
    from .services.syncquestions import SyncConflict
    from .services.undo import Stack, Step
    from .services.verdicts import LineProblem, Verdict

__all__ = [
    # the facade
    "Vault",
    # the words: documents, their problems, statuses and links, and the errors
    "Document",
    "DocType",
    "ExecutionState",
    "LinkType",
    "Problem",
    "Problems",
    "Severity",
    "Status",
    "REQUIRED_FIELDS",
    "inverse_label",
    "parse_links",
    "allowed_transitions",
    "transition_refusal",
    "WorkbenchError",
    "VaultError",
    "RefusedError",
    "ConflictError",
    "QueryError",
    "UnsafePathError",
    # what the facade hands out and takes
    "Flavour",
    "Record",
    "Plan",
    "FileChange",
    "VaultWatcher",
    "Hit",
    "SearchResults",
    "Neighbourhood",
    "QuestionPack",
    "Conflict",
    "Conflicts",
    "Resolution",
    "Group",
    "Draft",
    "Candidate",
    "LIKELY_PREDECESSOR",
    "Agent",
    "AlreadyExists",
    "Inbox",
    "Request",
    "Verdict",
    "LineProblem",
    "ReviewPage",
    "ReviewPair",
    "Fingerprint",
    "Follower",
    "Stack",
    "Step",
    "Changes",
    "RepairReport",
    "MigrationReport",
    "SyncConflict",
    "SyncError",
    "SyncReport",
    "MISSING",
    "READ_DOCUMENTS",
    "READ_CHARACTERS",
    # pure helpers: reading a text, a query, a graph, a value as the core reads them
    "wikilinks",
    "markdown_links",
    "strip_code",
    "body_links",
    "RawLink",
    "parse_query",
    "QUESTION_WORDS",
    "STOPWORDS",
    "plural_stem",
    "neighbourhood",
    "outgoing",
    "backlinks",
    "supersession_chain",
    "context_pack",
    "mermaid_id",
    "find_conflicts",
    "find_credentials",
    "secret_note",
    "value_text",
    "read_file",
    "first_link",
    # the port a face draws objects through
    "presenting",
    "document_rows",
    "frame",
    "plain_text",
]

_HOMES = {
    ".vault": ("Vault",),
    ".vocabulary.model": (
        "REQUIRED_FIELDS",
        "ConflictError",
        "DocType",
        "Document",
        "ExecutionState",
        "LinkType",
        "Problem",
        "Problems",
        "QueryError",
        "RefusedError",
        "Severity",
        "Status",
        "UnsafePathError",
        "VaultError",
        "WorkbenchError",
        "inverse_label",
        "parse_links",
    ),
    ".vocabulary": ("presenting",),
    ".vocabulary.presenting": ("document_rows", "frame", "plain_text"),
    ".vocabulary.lifecycle": ("allowed_transitions", "transition_refusal"),
    ".vocabulary.parse": ("value_text",),
    ".vocabulary.files": ("read_file",),
    ".flavours.base": ("Flavour", "RawLink", "markdown_links", "strip_code", "wikilinks"),
    ".flavours.markdown": ("body_links",),
    ".editing.docmerge": ("MISSING",),
    ".storage.changes": ("FileChange", "Plan"),
    ".storage.vaultfs": ("first_link",),
    ".records.record": ("Record",),
    ".records.live": ("VaultWatcher",),
    ".records.validate": ("find_credentials",),
    ".records.seal": ("secret_note",),
    ".views.query": ("QUESTION_WORDS", "parse_query"),
    ".views.search": ("Hit", "SearchResults"),
    ".views.similarity": ("STOPWORDS", "plural_stem"),
    ".views.excerpts": ("READ_CHARACTERS", "READ_DOCUMENTS"),
    ".views.graph": (
        "Neighbourhood",
        "backlinks",
        "context_pack",
        "mermaid_id",
        "neighbourhood",
        "outgoing",
        "supersession_chain",
    ),
    ".views.retrieval": ("QuestionPack",),
    ".services.agentwrites": ("Agent", "AlreadyExists"),
    ".services.conflicts": ("Conflict", "Conflicts", "Resolution", "find_conflicts"),
    ".services.consolidate": ("Group",),
    ".services.gate": ("LIKELY_PREDECESSOR", "Candidate", "Draft"),
    ".services.gitrepo": ("SyncError",),
    ".services.gitsync": ("SyncReport",),
    ".services.inbox": ("Inbox", "Request"),
    ".services.following": ("Follower",),
    ".services.kept_answers": ("Fingerprint",),
    ".services.migrate": ("MigrationReport",),
    ".services.recent": ("Changes",),
    ".services.repair": ("RepairReport",),
    ".services.review": ("ReviewPage", "ReviewPair"),
    ".services.syncquestions": ("SyncConflict",),
    ".services.undo": ("Stack", "Step"),
    ".services.verdicts": ("LineProblem", "Verdict"),
}
"""Where each name lives (the imports above, for a type checker, say the same; a test holds them equal)."""

_HOME_OF = {name: home for home, names in _HOMES.items() for name in names}

if not TYPE_CHECKING:  # to a type checker the names are the imports above: a misspelt one is an error there

    def __getattr__(name: str) -> Any:
        home = _HOME_OF.get(name)
        if home is None:
            raise AttributeError(f"module 'workbench.core' has no attribute {name!r}")
        module = importlib.import_module(home, __name__)
        try:
            value = getattr(module, name)
        except AttributeError:  # a module of its own (`presenting`), not yet imported
            value = importlib.import_module(f"{home}.{name}", __name__)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
