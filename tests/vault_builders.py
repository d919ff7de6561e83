"""Writing vault files for tests: `doc_text` for one document, `VaultBuilder` for a folder of them.

A module of its own (not conftest) so that test files can import it by a name no other folder uses.
"""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent


def doc_text(
    doc_id: str,
    *,
    status: str = "active",
    links: str = "[]",
    supersedes: str = "[]",
    superseded_by: str = "[]",
    extra: str = "",
    body: str = "Body text.\n",
    tags: str = "[core]",
    created: str = "2026-04-21",
    updated: str = "2026-04-21",
) -> str:
    doc_type = doc_id.split("-")[1]
    return (
        "---\n"
        "schema_version: v1\n"
        f"id: {doc_id}\n"
        f"type: {doc_type}\n"
        f"title: Title of {doc_id}\n"
        f"status: {status}\n"
        f"created_at: {created}\n"
        f"updated_at: {updated}\n"
        "project: demo\n"
        f"tags: {tags}\n"
        f"links: {links}\n"
        f"supersedes: {supersedes}\n"
        f"superseded_by: {superseded_by}\n"
        "provenance:\n"
        "  source: manual\n"
        "  confidence: high\n"
        f"{extra}"
        "---\n"
        f"{body}"
    )


FOLDERS = {
    "concept": "concepts",
    "decision": "decisions",
    "entity": "entities",
    "context": "contexts",
    "task": "tasks",
    "note": "notes",
    "index": "indexes",
}


def doc_path(doc_id: str) -> str:
    """Where a document lives in a memory-core vault: its type's folder, a file named by its id."""
    return f"{FOLDERS[doc_id.split('-')[1]]}/{doc_id}.md"


class VaultBuilder:
    """Writes files into a vault folder: `add(id, **fields)` for documents, `raw(path, text)` for anything."""

    def __init__(self, root: Path):
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def add(self, doc_id: str, **fields) -> Path:
        return self.raw(doc_path(doc_id), doc_text(doc_id, **fields))

    def raw(self, relative: str, text: str | bytes) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, str):
            text = dedent(text) if text.startswith("\n") else text
            path.write_bytes(text.lstrip("\n").encode("utf-8") if text.startswith("\n") else text.encode("utf-8"))
        else:
            path.write_bytes(text)
        return path
