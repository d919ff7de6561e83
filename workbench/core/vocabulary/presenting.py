"""How the core's objects show themselves in a notebook, without the core knowing how.

A `Document`, `Problems`, search results, conflicts or a `Vault` shown in Jupyter asks for its HTML
(`_repr_html_`). The drawing is the notebook face's business (`workbench/notebook.py`), above the
core; the core only asks here. The face installs its renderers when the `workbench` package is
imported; until then an object shows its plain repr, as IPython does when `_repr_html_` is None.

`frame` turns plain rows into a pandas DataFrame for `to_pandas`: pandas is optional, so it is
looked for before it is imported, and its absence says how to install it.
"""

from __future__ import annotations

import datetime as dt
import importlib
import importlib.util
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["KINDS", "document_rows", "frame", "install", "plain_text", "render"]

KINDS = (  # what the core asks to have drawn; the notebook face draws each under this name
    "document_html",
    "document_markdown",
    "hits_html",
    "problems_html",
    "conflicts_html",
    "changes_html",
    "neighbourhood_markdown",
    "vault_html",
)
_renderers: dict[str, Callable[..., str]] = {}


def install(renderers: Mapping[str, Callable[..., str]]) -> None:
    """Called by a face: `{"document_html": fn, ...}`, each fn taking what is to be drawn."""
    _renderers.update(renderers)


def render(kind: str, *subject: Any) -> str | None:
    """The text the installed renderer of `kind` draws for `subject`, or None (plain repr)."""
    renderer = _renderers.get(kind)
    return renderer(*subject) if renderer is not None else None


def frame(rows: Iterable[Mapping[str, Any]]):
    """Rows as a pandas DataFrame; without pandas, an ImportError that says how to get it."""
    try:
        found = importlib.util.find_spec("pandas")
    except (ImportError, ValueError):
        found = None
    if found is None:
        raise ImportError(
            "to_pandas needs pandas, which is not installed (pip install pandas); "
            "the same rows are available as plain dicts without it"
        )
    pandas = importlib.import_module("pandas")
    return pandas.DataFrame(list(rows))


def plain_text(value: Any) -> str:
    """A frontmatter value as one line of text (dates as ISO, lists and mappings flattened)."""
    if value is None:
        return ""
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, Mapping):
        return "; ".join(f"{plain_text(k)}: {plain_text(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return ", ".join(plain_text(v) for v in value)
    return str(value)


def document_rows(vault: Any) -> list[dict[str, Any]]:
    """One plain row per file of the vault, invalid ones included: the shape `to_pandas` frames."""
    rows = []
    for record in vault.records:
        doc = record.document
        rows.append(
            {
                "id": doc.id,
                "type": doc.type,
                "title": doc.title,
                "status": doc.status,
                "valid": doc.valid,
                "project": plain_text(doc.meta.get("project")),
                "tags": doc.tags,
                "created_at": plain_text(doc.meta.get("created_at")),
                "updated_at": plain_text(doc.meta.get("updated_at")),
                "links": len(doc.links),
                "supersedes": doc.supersedes,
                "superseded_by": doc.superseded_by,
                "path": doc.path,
            }
        )
    return rows
