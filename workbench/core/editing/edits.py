"""The edits that curation services share: joining a section onto a body, uniting tags and
links, and the slug of a title (in any script: transliterated to ASCII, as the contract's ids are).

Merging a draft into a canonical document (the gate), folding a duplicate into its twin
(conflicts) and consolidating notes (consolidate) all join text and unite links and tags; they do
it here, so every merge keeps the same things: the target's link entries exactly as they were
(even one the workbench cannot read, which is a person's to fix, never ours to drop), its tags in
their order, its line endings, and each addition once.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Any

__all__ = ["join_section", "slugify", "to_ascii", "unite_links", "unite_tags"]


def slugify(text: str) -> str:
    """A title as the slug of an id or a file name: lowercase words joined by hyphens, at most 60.
    Letters of other scripts are transliterated (`Політика` → `politika`, `重试` → `zhong-shi`);
    symbols and emoji are not words. A title with no letter or digit at all is `untitled`."""
    slug = re.sub(r"[^a-z0-9]+", "-", to_ascii(text).lower()).strip("-")
    return slug[:60].strip("-") or "untitled"


def to_ascii(text: str) -> str:
    """`text` in ASCII letters: accents dropped, other scripts transliterated (anyascii), each wide
    ideograph or syllable a word of its own; a character that is not a letter or digit becomes a space."""
    if text.isascii():
        return text
    try:
        from anyascii import anyascii
    except ImportError:  # pragma: no cover - a dependency; without it only accents are folded

        def anyascii(string: str) -> str:
            return "".join(c for c in unicodedata.normalize("NFKD", string) if c.isascii())

    out = []
    for ch in text:
        if ch.isascii():
            out.append(ch)
        elif unicodedata.combining(ch):
            continue
        elif not ch.isalnum():
            out.append(" ")
        elif unicodedata.east_asian_width(ch) == "W":
            out.append(f" {anyascii(ch)} ")
        else:
            out.append(anyascii(ch))
    return "".join(out)


def join_section(body: str, heading: str, text: str) -> str:
    """Append a section, in the body's own line endings, after one blank line."""
    newline = "\r\n" if "\r\n" in body else "\n"
    text = text.replace("\r\n", "\n").strip("\n").replace("\n", newline)
    if body and not body.endswith(newline):
        body += newline
    if body.strip():
        body += newline
    return body + heading + newline + newline + (text + newline if text else "")


def unite_tags(tags: Iterable[str], more: Iterable[str]) -> list[str]:
    """`tags` in their order, then each of `more` not among them yet."""
    united = list(tags)
    for tag in more:
        if tag not in united:
            united.append(tag)
    return united


def unite_links(entries: Any, more: Iterable[tuple[str, str]]) -> list[Any]:
    """A `links` value with each `(type, target)` of `more` appended unless already there. The
    existing entries are kept as they are, in order, mappings copied (so the caller's meta is never
    changed in place) and anything else untouched."""
    united = [
        dict(entry) if isinstance(entry, dict) else entry for entry in (entries if isinstance(entries, list) else [])
    ]
    present = {(entry.get("type"), entry.get("target")) for entry in united if isinstance(entry, dict)}
    for kind, target in more:
        key = (str(kind), target)
        if key not in present:
            united.append({"type": key[0], "target": target})
            present.add(key)
    return united
