"""The links written in a document's text, each with the document it names, or none.

A body links in two ways: `[[target]]` (with `|label`, `#heading`, or Dendron's `label|target`)
and Markdown's `[label](other.md)`. Which document a link names is the vault's question, not the
viewer's: each link is resolved by the vault's flavour exactly as the graph resolves it (a
Dendron `[[a.b.c]]`, an Obsidian `[[Note name]]` found by file name alone, a Memory Core id), so
a link that opens here is an edge in the links pane too. Made in a worker with the rest of a
`DocumentView`; the viewer looks links up by the address the rendered link carries (`href`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..core import Document, Vault

__all__ = ["TextLink", "is_url", "markdown_href", "text_links", "wiki_href"]

_URL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)


@dataclass(frozen=True)
class TextLink:
    written: str
    """The link as the file writes it: `[[a.b|label]]`, `[label](other.md)`."""
    label: str
    """What the rendered text shows for it."""
    target: str | None
    """The id of the document it names; None when no document of the vault has it."""
    named: str
    """The target as written, to name in a message when no document has it."""


def wiki_href(inner: str) -> str:
    """The address a rendered `[[inner]]` carries."""
    return f"wiki:{inner}"


def markdown_href(destination: str) -> str:
    """The address a Markdown link to `destination` is looked up by (the renderer percent-encodes)."""
    return f"md:{unquote(destination)}"


def is_url(href: str) -> bool:
    """Whether a link points out of the vault (`https://`, `mailto:`)."""
    return bool(_URL.match(href)) and not href.startswith(("wiki:", "md:"))


def _bare(part: str) -> str:
    return part.split("#", 1)[0].split("^", 1)[0].strip()


def _label(inner: str, target: str) -> str:
    """The shown half of `[[a|b]]`: whichever half is not the target (Obsidian puts the target
    first, Dendron last)."""
    if "|" not in inner:  # a Dendron cross-vault `dendron://vault/a.b` reads as `a.b`
        return inner.split("://", 1)[1].split("/", 1)[-1].strip() if "://" in inner else inner.strip()
    first, second = (part.strip() for part in inner.split("|", 1))
    if target and _bare(second).endswith(target) and _bare(first) != target:
        return first or second
    return second or first


def _destination(whole: str) -> str:
    """`other.md` out of `[label](<other.md> "title")`."""
    inside = whole[whole.rindex("](") + 2 : -1].strip()
    if inside.startswith("<"):
        return inside[1 : inside.find(">")] if ">" in inside else inside[1:]
    return inside.split()[0] if inside else ""


def text_links(vault: Vault, doc: Document) -> dict[str, TextLink]:
    """{href: link} for every link in the body outside code, resolved against the vault now."""
    # The flavours' readers, imported with a document's reading, not for the viewer's first frame.
    from ..core import RawLink, body_links, markdown_links, strip_code, wikilinks

    body = strip_code(doc.body)
    if "[[" not in body and "](" not in body:
        return {}
    read = {raw.written: raw for raw in (doc.view.raw_links if doc.view is not None else ())}
    links: list[tuple[str, str, str, str, RawLink | None]] = []  # href, as written, label, named, as read
    for inner, whole, _embed in wikilinks(body):
        raw = read.get(whole) or next(iter(body_links(whole, doc.path)), None)
        named = raw.candidates[0] if raw is not None and raw.candidates else _bare(inner.split("|")[-1])
        links.append((wiki_href(inner), whole, _label(inner, named), named, raw))
    for candidates, whole in markdown_links(body, doc.path):
        raw = read.get(whole) or RawLink("related_to", candidates, whole)
        destination = _destination(whole)
        links.append((markdown_href(destination), whole, whole[1 : whole.rindex("](")], destination, raw))
    targets = iter(vault.resolve_links([raw for *_, raw in links if raw is not None]))
    return {
        href: TextLink(whole, label, next(targets) if raw is not None else None, named)
        for href, whole, label, named, raw in links
    }
