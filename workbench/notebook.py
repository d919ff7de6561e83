"""The notebook face: how the core's objects look in Jupyter, as HTML tables, Markdown and
Mermaid, every piece escaped.

Jupyter asks whatever a cell returns for `_repr_html_` or `_repr_markdown_`. The core's classes
(`Vault`, `Document`, `Problem`, `Hit`, `Conflict`, `Neighbourhood` and the list-like
`SearchResults`, `Problems`, `Conflicts`) ask `core/vocabulary/presenting.py`, and this module, a face above
the core like the TUI and the CLI, installs the drawing there when the `workbench` package is
imported. So the core needs no IPython and knows nothing of HTML, and this module loads only the
standard library (the graph, and with it networkx, only when a neighbourhood is drawn).

Titles, bodies, ids, paths and messages are written by agents and may hold `<script>`. Nothing
here trusts them: HTML is built from `_Html` pieces, and any other value put into it is escaped on
the way in; Markdown output escapes vault text too, so that neither an HTML tag nor a
`javascript:` link can reach the renderer.

>>> from workbench.core.vocabulary.model import Document
>>> doc = Document("mem-note-x", "notes/mem-note-x.md", {"title": "<b>x</b>", "status": "active"}, "Hi *there*")
>>> "<b>x</b>" in document_html(doc), "&lt;b&gt;x&lt;/b&gt;" in document_html(doc)
(False, True)
>>> body_html("# Title\\n\\nHi *there* <script>")
'<h1>Title</h1>\\n<p>Hi <em>there</em> &lt;script&gt;</p>'
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .core import document_rows, frame, plain_text, presenting

__all__ = [
    "STATUS_COLOURS",
    "SEVERITY_COLOURS",
    "escape",
    "markdown_text",
    "body_html",
    "body_markdown",
    "status_badge",
    "document_html",
    "document_markdown",
    "hits_html",
    "problems_html",
    "changes_html",
    "conflicts_html",
    "neighbourhood_markdown",
    "vault_html",
    "document_rows",
    "frame",
]

# The workbench-light theme's colours (workbench/tui/themes.py): dark enough for white text on a
# light or a dark notebook.
STATUS_COLOURS: dict[str, str] = {
    "draft": "#9a6b00",
    "active": "#2e8b3d",
    "deprecated": "#b35900",
    "superseded": "#7a4fb0",
    "archived": "#6b6b6b",
}
OTHER_STATUS_COLOUR = "#56646e"  # a flavour's own words (an ADR's "accepted"): shown, not alarming
SEVERITY_COLOURS: dict[str, str] = {"error": "#c0392b", "warning": "#b36b00"}
SAFE_SCHEMES = ("http", "https", "mailto")


class _Html(str):
    """Markup this module built itself; any other string put into HTML here is escaped first."""


def escape(value: Any) -> _Html:
    """`value` as HTML text: `<`, `>`, `&` and both quotes escaped, so it can never become markup."""
    return _Html(html.escape(plain_text(value), quote=True))


def _piece(value: Any) -> _Html:
    return value if isinstance(value, _Html) else escape(value)


def _join(pieces: Iterable[Any], sep: str = "") -> _Html:
    return _Html(sep.join(_piece(p) for p in pieces))


def _tag(name: str, content: Any = "", style: str = "", **attrs: str) -> _Html:
    """`<name ...>content</name>`: attribute values and unmarked content are escaped."""
    if style:
        attrs["style"] = style
    rendered = "".join(f' {key.rstrip("_")}="{html.escape(value, quote=True)}"' for key, value in attrs.items())
    return _Html(f"<{name}{rendered}>{_piece(content)}</{name}>")


def _table(headers: Iterable[Any], rows: Iterable[Iterable[Any]]) -> _Html:
    cell = "text-align:left;vertical-align:top"
    head = _tag("tr", _join(_tag("th", h, cell) for h in headers))
    body = _join(_tag("tr", _join(_tag("td", c, cell) for c in row)) for row in rows)
    return _tag("table", _join([_tag("thead", head), _tag("tbody", body)]))


def _code(value: Any) -> _Html:
    return _tag("code", value)


def _badge(text: Any, colour: str) -> _Html:
    style = f"background:{colour};color:#fff;padding:0 0.45em;border-radius:0.6em;white-space:nowrap"
    return _tag("span", text, style)


def status_badge(status: Any) -> _Html:
    """The status as a coloured pill; an empty status as a dash."""
    word = plain_text(status)
    if not word:
        return escape("—")
    return _badge(word, STATUS_COLOURS.get(word, OTHER_STATUS_COLOUR))


def _severity(severity: Any) -> _Html:
    word = plain_text(severity)
    return _badge(word, SEVERITY_COLOURS.get(word, OTHER_STATUS_COLOUR))


def _summary_line(*pieces: Any) -> _Html:
    return _tag("p", _join((p for p in pieces if p), " · "))


# -- Markdown ---------------------------------------------------------------------------------

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~])")


def markdown_text(value: Any) -> str:
    """Vault text as inline Markdown that shows as written: on one line, HTML escaped, every
    Markdown punctuation mark backslashed (so a title cannot open code, a link or a table cell)."""
    text = re.sub(r"\s+", " ", plain_text(value)).strip()
    return _MARKDOWN_SPECIAL.sub(r"\\\1", html.escape(text, quote=True))


def _markdown_table(headers: Iterable[str], rows: Iterable[Iterable[Any]]) -> str:
    headers = list(headers)
    lines = ["| " + " | ".join(markdown_text(h) for h in headers) + " |", "|" + " --- |" * len(headers)]
    lines += ["| " + " | ".join(markdown_text(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


_OPENING_FENCE = re.compile(r"(`{3,}|~{3,})(.*)")
_LINK_START = re.compile(r"(\]\(\s*|^ {0,3}\[[^\]]*\]:\s*)([A-Za-z][A-Za-z0-9+.\-]*)(\s*:)", re.MULTILINE)


def body_markdown(body: str) -> str:
    """A document's body as Markdown a renderer can show without running anything.

    Fenced code is kept as written. Everywhere else `&` and `<` are escaped, so no HTML tag or
    entity survives (the price: `<` inside inline or indented code shows as `&lt;`), and a link to
    any scheme but http, https or mailto is turned into a harmless fragment. Only a fence at the
    very start of a line counts as opening one, since that is the one case every renderer agrees on;
    a line that merely might close it does close it.
    """
    out: list[str] = []
    prose: list[str] = []  # lines outside fences, made safe together: a link may span two lines
    fence: str | None = None
    for line in body.splitlines(keepends=True):
        if fence is not None:
            out.append(line)
            if line.lstrip().startswith(fence):
                fence = None
            continue
        opening = _OPENING_FENCE.match(line)
        if opening and not (opening.group(1)[0] == "`" and "`" in opening.group(2)):
            out.append(_safe_prose("".join(prose)))
            prose.clear()
            fence = opening.group(1)
            out.append(line)
            continue
        prose.append(line)
    out.append(_safe_prose("".join(prose)))
    return "".join(out)


def _safe_prose(text: str) -> str:
    return _defang_links(text.replace("&", "&amp;").replace("<", "&lt;"))


def _defang_links(text: str) -> str:
    def fix(match: re.Match[str]) -> str:
        scheme = match.group(2)
        if scheme.lower() in SAFE_SCHEMES:
            return match.group(0)
        return f"{match.group(1)}#unsafe-{scheme}{match.group(3)}"

    return _LINK_START.sub(fix, text)


# -- a small, safe Markdown to HTML converter ---------------------------------------------------

_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$")
_ITEM = re.compile(r"^\s*(?:([-*+])|\d{1,9}[.)])\s+(.*)$")
_QUOTE = re.compile(r"^ {0,3}>\s?(.*)$")
_RULE = re.compile(r"^ {0,3}([-*_])(?:\s*\1){2,}\s*$")
# Applied to escaped text, in which `<` and `>` only ever come from the tags made here: refusing
# them inside a match keeps every tag made by one rule out of another's, so the result nests.
_INLINE_RULES = (
    (re.compile(r"\[\[([^\]<>]+)\]\]"), r"<code>[[\1]]</code>"),
    (re.compile(r"\*\*([^*<>]+)\*\*"), r"<strong>\1</strong>"),
    (re.compile(r"(?<![\w*])\*([^*\s<>](?:[^*<>]*[^*\s<>])?)\*(?![\w*])"), r"<em>\1</em>"),
    (
        re.compile(r"\[([^\]<>]+)\]\(((?:https?://|mailto:)[^\s()<>\"]+)\)"),
        r'<a href="\2" rel="noopener noreferrer" target="_blank">\1</a>',
    ),
)


def _inline(text: str) -> str:
    parts: list[str] = []
    position = 0
    for span in _CODE_SPAN.finditer(text):
        parts.append(_inline_text(text[position : span.start()]))
        parts.append("<code>" + html.escape(span.group(2).strip(), quote=True) + "</code>")
        position = span.end()
    parts.append(_inline_text(text[position:]))
    return "".join(parts)


def _inline_text(text: str) -> str:
    text = html.escape(text, quote=True)
    for pattern, replacement in _INLINE_RULES:
        text = pattern.sub(replacement, text)
    return text


def body_html(body: str) -> _Html:
    """A document's body as HTML: the Markdown a curator meets most often (headings, paragraphs,
    lists, quotes, rules, fenced code, code spans, bold, italics, `[[wikilinks]]`, http links).

    Everything else shows as the text it is. All text is escaped before any tag is added, so the
    result cannot carry markup the body wrote; the docstring of this module shows an example.
    """
    out: list[str] = []
    paragraph: list[str] = []
    code: list[str] = []
    fence: str | None = None
    listing: str | None = None

    def end_paragraph() -> None:
        if paragraph:
            out.append("<p>" + _inline("\n".join(paragraph)) + "</p>")
            paragraph.clear()

    def end_list() -> None:
        nonlocal listing
        if listing:
            out.append(f"</{listing}>")
            listing = None

    for line in body.splitlines():
        if fence is not None:
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                out.append("<pre><code>" + html.escape("\n".join(code), quote=True) + "</code></pre>")
                fence, code = None, []
            else:
                code.append(line)
            continue
        opening = _OPENING_FENCE.match(line.lstrip(" ")) if len(line) - len(line.lstrip(" ")) <= 3 else None
        heading, item, quote = _HEADING.match(line), _ITEM.match(line), _QUOTE.match(line)
        if opening or not line.strip() or heading or quote or _RULE.match(line):
            end_paragraph()
            end_list()
        if opening:
            fence = opening.group(1)
        elif not line.strip():
            continue
        elif _RULE.match(line):
            out.append("<hr>")
        elif heading:
            level = len(heading.group(1))
            out.append(f"<h{level}>{_inline(heading.group(2))}</h{level}>")
        elif quote:
            out.append("<blockquote>" + _inline(quote.group(1)) + "</blockquote>")
        elif item:
            end_paragraph()
            kind = "ul" if item.group(1) else "ol"
            if listing != kind:
                end_list()
                out.append(f"<{kind}>")
                listing = kind
            out.append("<li>" + _inline(item.group(2)) + "</li>")
        elif listing and line.startswith((" ", "\t")):
            out[-1] = out[-1][: -len("</li>")] + " " + _inline(line.strip()) + "</li>"
        else:
            end_list()
            paragraph.append(line.strip())
    if fence is not None:
        out.append("<pre><code>" + html.escape("\n".join(code), quote=True) + "</code></pre>")
    end_paragraph()
    end_list()
    return _Html("\n".join(out))


# -- documents --------------------------------------------------------------------------------


def _is_link(item: Any) -> bool:
    return isinstance(item, Mapping) and "type" in item and "target" in item


def _property_html(key: str, value: Any) -> _Html:
    if key == "status":
        return status_badge(value)
    if key == "links" and isinstance(value, list):
        return _Html(
            "<br>".join(
                _join([escape(item["type"]), escape(" → "), _code(item["target"])]) if _is_link(item) else escape(item)
                for item in value
            )
        )
    if isinstance(value, Mapping):
        return _Html("<br>".join(_join([_tag("strong", k), escape(": "), escape(v)]) for k, v in value.items()))
    return escape(value)


def _invalid_note(doc: Any) -> _Html:
    if getattr(doc, "valid", True):
        return _Html("")
    return _badge("invalid: see the vault's problems", SEVERITY_COLOURS["error"])


def document_html(doc: Any) -> _Html:
    """A document as its properties (a table, the status in colour) above its rendered body."""
    head = _tag("h3", doc.title, "margin:0.2em 0")
    line = _summary_line(_code(doc.id), escape(doc.type), status_badge(doc.status), _code(doc.path), _invalid_note(doc))
    properties = _table(["property", "value"], ([escape(k), _property_html(str(k), v)] for k, v in doc.meta.items()))
    body = _tag("div", body_html(doc.body), "border-top:1px solid #ccc;margin-top:0.5em")
    return _tag("div", _join([head, line, properties, body]), class_="workbench-document")


def _property_text(key: str, value: Any) -> Any:
    if key == "links" and isinstance(value, list):
        return ", ".join(
            f"{plain_text(i['type'])} → {plain_text(i['target'])}" if _is_link(i) else plain_text(i) for i in value
        )
    return value


def document_markdown(doc: Any) -> str:
    """A document as Markdown: its properties as a table, then its body, made safe to render."""
    state = "" if getattr(doc, "valid", True) else " · **invalid**"
    parts = [
        f"### {markdown_text(doc.title)}",
        f"{markdown_text(doc.id)} · {markdown_text(doc.type)} · {markdown_text(doc.status)} · {markdown_text(doc.path)}{state}",
        _markdown_table(["property", "value"], ([k, _property_text(str(k), v)] for k, v in doc.meta.items())),
        body_markdown(doc.body),
    ]
    return "\n\n".join(parts)


# -- lists ------------------------------------------------------------------------------------


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def hits_html(hits: Iterable[Any], query: str | None = None) -> _Html:
    """Search hits as a ranked table: a superseded hit names what replaced it."""
    hits = list(hits)
    caption = (
        _join([_tag("strong", _count(len(hits), "hit")), escape(" for "), _code(query)])
        if query is not None
        else _tag("strong", _count(len(hits), "hit"))
    )
    rows = (
        [
            escape(rank),
            escape(f"{hit.score:.2f}"),
            _code(hit.id),
            escape(hit.title),
            escape(hit.type),
            status_badge(hit.status),
            _join((_code(s) for s in hit.superseded_by), ", "),
            _join([escape(hit.path), _invalid_note(hit)], " "),
        ]
        for rank, hit in enumerate(hits, 1)
    )
    table = (
        _table(["#", "score", "id", "title", "type", "status", "superseded by", "path"], rows) if hits else _Html("")
    )
    return _tag("div", _join([_tag("p", caption), table]), class_="workbench-hits")


def problems_html(problems: Iterable[Any]) -> _Html:
    """Problems as a table, errors first, each where a person can find it."""
    problems = sorted(problems, key=lambda p: (str(p.severity) != "error", p.path, p.line or 0))
    errors = sum(1 for p in problems if str(p.severity) == "error")
    caption = _tag(
        "p",
        _tag(
            "strong",
            f"{_count(len(problems), 'problem')}: {_count(errors, 'error')}, {_count(len(problems) - errors, 'warning')}",
        ),
    )
    rows = (
        [
            _severity(p.severity),
            _code(p.code),
            _code(p.path if p.line is None else f"{p.path}:{p.line}"),
            escape(p.message),
            _code(p.doc_id or ""),
        ]
        for p in problems
    )
    table = _table(["severity", "code", "where", "message", "document"], rows) if problems else _Html("")
    return _tag("div", _join([caption, table]), class_="workbench-problems")


def conflicts_html(conflicts: Iterable[Any]) -> _Html:
    """Conflicts as a table, each with the commands that would resolve it."""
    conflicts = list(conflicts)
    caption = _tag("p", _tag("strong", _count(len(conflicts), "conflict")))
    rows = (
        [
            escape(c.kind),
            _join((_code(i) for i in c.ids), _Html("<br>")),
            escape(c.reason),
            _join(
                (_join([_code(f"workbench {r.command}"), escape(f" {r.label}")]) for r in c.resolutions), _Html("<br>")
            ),
        ]
        for c in conflicts
    )
    table = _table(["kind", "documents", "why", "resolutions"], rows) if conflicts else _Html("")
    return _tag("div", _join([caption, table]), class_="workbench-conflicts")


def changes_html(changes: Iterable[Any]) -> _Html:
    """The documents changed lately, newest first: when, which, what was done and by whom."""
    changes = list(changes)
    caption = _tag("p", _tag("strong", _count(len(changes), "document") + " changed lately"))
    rows = (
        [
            escape(c.when.isoformat(sep=" ", timespec="minutes")),
            _code(c.doc.id),
            escape(c.doc.title),
            status_badge(c.doc.status),
            escape(c.what),
            escape(c.by or ""),
        ]
        for c in changes
    )
    table = _table(["when", "document", "title", "status", "what", "by"], rows) if changes else _Html("")
    return _tag("div", _join([caption, table]), class_="workbench-changes")


# -- neighbourhoods -----------------------------------------------------------------------------


def _mermaid_classes(hood: Any) -> list[str]:
    """Status colours and a thick border for the root: Mermaid `classDef` lines for the diagram."""
    # The ids `export` wrote, so that the classes land on its nodes.
    from .core import mermaid_id

    lines = []
    by_class: dict[str, list[str]] = {}
    for node in hood.nodes:
        if node["status"]:
            name = node["status"] if node["status"] in STATUS_COLOURS else "other"
            by_class.setdefault(name, []).append(mermaid_id(node["id"]))
    for name, members in sorted(by_class.items()):
        colour = STATUS_COLOURS.get(name, OTHER_STATUS_COLOUR)
        lines += [
            f"  classDef status_{name} fill:{colour},color:#fff,stroke:{colour}",
            f"  class {','.join(members)} status_{name}",
        ]
    lines += ["  classDef root stroke:#000,stroke-width:3px", f"  class {mermaid_id(hood.root)} root"]
    return lines


def neighbourhood_markdown(hood: Any) -> str:
    """A neighbourhood as a Mermaid diagram (JupyterLab draws ```mermaid fences) and a node table.

    Only Markdown: JupyterLab prefers HTML when both are offered, and would then never draw the
    diagram. `hood.dot` holds the same picture for Graphviz.
    """
    mermaid = hood.export("mermaid").rstrip("\n").split("\n") + _mermaid_classes(hood)
    root_title = next((n["title"] for n in hood.nodes if n["id"] == hood.root), hood.root)
    head = (
        f"**Neighbourhood of {markdown_text(root_title)}** ({markdown_text(hood.root)}), depth {int(hood.depth)}: "
        f"{_count(len(hood.nodes), 'document')}, {_count(len(hood.edges), 'link')}"
    )
    table = _markdown_table(
        ["depth", "id", "title", "type", "status"],
        ([n["depth"], n["id"], n["title"], n["type"], n["status"]] for n in hood.nodes),
    )
    return "\n\n".join([head, "```mermaid\n" + "\n".join(mermaid) + "\n```", table])


# -- the vault ----------------------------------------------------------------------------------


def vault_html(vault: Any) -> _Html:
    """A vault at a glance: where it is, how many documents of each type and status, its problems."""
    records = vault.records
    documents = [r.document for r in records if r.document.valid]
    found = vault.problems
    errors = sum(1 for p in found if str(p.severity) == "error")
    flavour = getattr(vault, "flavour", None)
    flavour = flavour.name if flavour is not None and not flavour.native else None  # Memory Core goes without saying
    line = _summary_line(
        escape(_count(len(records), "file")),
        escape(_count(len(documents), "valid document")),
        escape(_count(len(records) - len(documents), "invalid file")),
        _join([escape("flavour "), _code(flavour)]) if flavour else None,
        _severity(_count(errors, "error")) if errors else escape("no errors"),
        escape(_count(len(found) - errors, "warning")),
    )
    order = list(STATUS_COLOURS)
    statuses = sorted({d.status for d in documents}, key=lambda s: (order.index(s) if s in order else len(order), s))
    counts: dict[tuple[str, str], int] = {}
    for doc in documents:
        counts[doc.type, doc.status] = counts.get((doc.type, doc.status), 0) + 1
    rows = (
        [escape(t or "—")]
        + [escape(counts.get((t, s), "")) for s in statuses]
        + [escape(sum(counts.get((t, s), 0) for s in statuses))]
        for t in sorted({d.type for d in documents})
    )
    table = (
        _table([escape("type")] + [status_badge(s) for s in statuses] + [escape("total")], rows)
        if documents
        else _Html("")
    )
    head = _tag("h3", _join([escape("Vault "), _code(vault.root)]), "margin:0.2em 0")
    return _tag("div", _join([head, line, table]), class_="workbench-vault")


presenting.install({kind: globals()[kind] for kind in presenting.KINDS})
