"""Notebook displays: every rich display is well-formed, escapes what agents wrote, and the tour runs.

The hostile vault below titles everything `<script>alert(1)</script> & "q"` and fills bodies with
markup; each display must show that text as text. The tour notebook runs in a real kernel (nbclient
and ipykernel, from the test extra) on a scratch copy of the sample vault.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest
from vault_builders import VaultBuilder, doc_text

from workbench import notebook
from workbench.core.views import graph
from workbench.core.services.conflicts import Conflict, Conflicts, Resolution
from workbench.core.vocabulary.model import Document, Problem, Problems, Severity
from workbench.core.views.search import SearchResults
from workbench.core.vault import Vault

HOSTILE = '<script>alert(1)</script> & "q"'
HOSTILE_YAML = "'<script>alert(1)</script> & \"q\"'"
HOSTILE_BODY = "Intro <script>alert(2)</script> and <img src=x onerror=alert(3)>.\n\n[x](javascript:alert(4))\n"
TOUR = Path(__file__).resolve().parent / "notebooks" / "tour.ipynb"
ALLOWED_TAGS = {
    "div",
    "p",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "span",
    "code",
    "pre",
    "strong",
    "em",
    "a",
    "br",
    "hr",
    "ul",
    "ol",
    "li",
    "blockquote",
}
VOID_TAGS = {"br", "hr"}


class _Tree(HTMLParser):
    """Reads HTML the way a browser's tokenizer would and notes every fault that matters here."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.tags: list[str] = []
        self.text: list[str] = []
        self.faults: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for name, value in attrs:
            if name.startswith("on") or (value or "").strip().lower().startswith(("javascript:", "data:", "vbscript:")):
                self.faults.append(f"<{tag} {name}={value!r}>")
        if tag not in VOID_TAGS:
            self.open.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)
        self.faults.append(f"self-closing <{tag}/>")

    def handle_endtag(self, tag):
        if self.open and self.open[-1] == tag:
            self.open.pop()
        else:
            self.faults.append(f"</{tag}> while {self.open[-1:] or 'nothing'} is open")

    def handle_data(self, data):
        self.text.append(data)


def well_formed(markup: str) -> str:
    """Parse `markup`, assert it is balanced, script-free and made of our tags; return its text."""
    assert isinstance(markup, str)
    tree = _Tree()
    tree.feed(markup)
    tree.close()
    assert tree.faults == []
    assert tree.open == [], f"left open: {tree.open}"
    assert "script" not in tree.tags and "img" not in tree.tags
    assert set(tree.tags) <= ALLOWED_TAGS, set(tree.tags) - ALLOWED_TAGS
    return "".join(tree.text)


def markup_free(markdown: str) -> None:
    """Markdown whose renderer would meet no HTML tag at all (Markdown passes raw HTML through)."""
    tree = _Tree()
    tree.feed(markdown)
    tree.close()
    assert tree.tags == []
    assert "<script" not in markdown.lower()


@pytest.fixture
def hostile(tmp_path) -> Vault:
    builder = VaultBuilder(tmp_path / "vault")

    def add(doc_id: str, **fields) -> None:
        text = doc_text(doc_id, **fields).replace(f"title: Title of {doc_id}", f"title: {HOSTILE_YAML}")
        builder.raw(f"{ {'decision': 'decisions', 'entity': 'entities'}[doc_id.split('-')[1]] }/{doc_id}.md", text)

    add(
        "mem-decision-hostile-a",
        tags="[alpha, beta]",
        body=HOSTILE_BODY,
        links=f"[{{type: depends_on, target: mem-entity-thing}}, {{type: related_to, target: {HOSTILE_YAML}}}]",
    )
    add(
        "mem-decision-hostile-b",
        tags="[alpha, beta]",
        body=HOSTILE_BODY,
        links="[{type: depends_on, target: mem-entity-thing}]",
    )
    add("mem-entity-thing", body=HOSTILE_BODY)
    return Vault.open(builder.root)


# -- documents ----------------------------------------------------------------------------------


def test_a_document_shows_its_properties_and_body_with_everything_escaped(hostile):
    doc = hostile.get("mem-decision-hostile-a")
    text = well_formed(doc._repr_html_())
    assert HOSTILE in text
    assert "<script>alert(2)</script>" in text and "<img src=x onerror=alert(3)>" in text
    assert "depends_on → mem-entity-thing" in text
    assert notebook.STATUS_COLOURS["active"] in doc._repr_html_()


def test_a_document_as_markdown_keeps_its_body_but_no_markup(hostile):
    markdown = hostile.get("mem-decision-hostile-a")._repr_markdown_()
    markup_free(markdown)
    assert notebook.markdown_text(HOSTILE) in markdown
    assert "Intro &lt;script>alert(2)&lt;/script> and &lt;img src=x onerror=alert(3)>." in markdown
    assert "[x](#unsafe-javascript:alert(4))" in markdown
    assert "| links | depends\\_on → mem\\-entity\\-thing, related\\_to → &lt;script&gt;" in markdown


def test_an_invalid_document_says_so():
    doc = Document("mem-note-broken", "notes/mem-note-broken.md", {}, HOSTILE, valid=False)
    text = well_formed(doc._repr_html_())
    assert "invalid" in text and HOSTILE in text
    assert "**invalid**" in doc._repr_markdown_()


def test_the_body_converter_renders_common_markdown_and_nothing_else():
    body = (
        "# Head <b>\n\nSome **bold**, *it*, `x<y`, [[mem-note-a]] and [site](https://e.org/?a=1&b=2).\n"
        "[bad](javascript:alert(1)) *unclosed **mixed* end**\n\n"
        "- one\n  more\n- two\n1. first\n\n> quoted\n\n---\n```python\nif a < b:\n    pass\n```\n"
    )
    assert notebook.body_html(body) == (
        "<h1>Head &lt;b&gt;</h1>\n"
        "<p>Some <strong>bold</strong>, <em>it</em>, <code>x&lt;y</code>, <code>[[mem-note-a]]</code> and "
        '<a href="https://e.org/?a=1&amp;b=2" rel="noopener noreferrer" target="_blank">site</a>.\n'
        "[bad](javascript:alert(1)) *unclosed **mixed* end**</p>\n"
        "<ul>\n<li>one more</li>\n<li>two</li>\n</ul>\n<ol>\n<li>first</li>\n</ol>\n"
        "<blockquote>quoted</blockquote>\n<hr>\n<pre><code>if a &lt; b:\n    pass</code></pre>"
    )
    well_formed(notebook.body_html(body))
    well_formed(notebook.body_html("```\nunclosed <script>\n"))


@pytest.mark.parametrize(
    "body, shown",
    [
        ("```html\n<b>kept</b>\n```\n<b>out</b>\n", "```html\n<b>kept</b>\n```\n&lt;b>out&lt;/b>\n"),
        ("```a`b\n<b>not a fence</b>\n", "```a`b\n&lt;b>not a fence&lt;/b>\n"),
        ("1. item\n   ```\n<b>the list ended</b>\n", "1. item\n   ```\n&lt;b>the list ended&lt;/b>\n"),
        ("[a](\njavascript:alert(1))\n", "[a](\n#unsafe-javascript:alert(1))\n"),
        ("[a]:\n  JavaScript:alert(1)\n", "[a]:\n  #unsafe-JavaScript:alert(1)\n"),
        (
            "[a](java&#115;cript:alert(1)) [b](https://ok.org) [c](notes/x.md)\n",
            "[a](java&amp;#115;cript:alert(1)) [b](https://ok.org) [c](notes/x.md)\n",
        ),
    ],
)
def test_markdown_bodies_keep_fenced_code_and_neutralise_the_rest(body, shown):
    assert notebook.body_markdown(body) == shown


# -- lists --------------------------------------------------------------------------------------


def test_search_returns_a_list_that_shows_a_ranked_table(hostile):
    hits = hostile.search("script alert")
    assert isinstance(hits, SearchResults) and isinstance(hits, list)
    assert hits.query == "script alert"
    assert [h.id for h in hits] == [h.id for h in list(hits)] and len(hits) == 3
    text = well_formed(hits._repr_html_())
    assert text.count(HOSTILE) == 3 and "3 hits for script alert" in text
    assert HOSTILE in well_formed(hostile.search(HOSTILE)._repr_html_())
    assert HOSTILE in well_formed(hits[0]._repr_html_())
    assert "0 hits" in well_formed(SearchResults([], "nothing")._repr_html_())


def test_problems_show_as_a_table_with_severity_in_colour(hostile):
    found = hostile.problems
    assert isinstance(found, Problems) and found == hostile.problems
    markup = found._repr_html_()
    text = well_formed(markup)
    assert f"link related_to → {HOSTILE}: no document has that id" in text and "link-dangling" in text
    assert notebook.SEVERITY_COLOURS["error"] in markup
    hostile_path = Problem(HOSTILE, Severity.WARNING, HOSTILE, HOSTILE, 3, HOSTILE)
    assert well_formed(hostile_path._repr_html_()).count(HOSTILE) == 4
    assert "0 problems" in well_formed(Problems()._repr_html_())


def test_conflicts_show_as_a_table_with_their_resolutions(hostile):
    found = hostile.conflicts()
    assert isinstance(found, Conflicts)
    assert [c.kind for c in found] == ["contradiction"]
    text = well_formed(found._repr_html_())
    assert HOSTILE in text and "workbench compatible mem-decision-hostile-a mem-decision-hostile-b" in text
    made_up = Conflict(HOSTILE, [HOSTILE], HOSTILE, [Resolution(HOSTILE, HOSTILE, HOSTILE)])
    assert well_formed(made_up._repr_html_()).count(HOSTILE) == 5
    assert "0 conflicts" in well_formed(Conflicts()._repr_html_())


# -- neighbourhoods -------------------------------------------------------------------------------


def test_a_neighbourhood_draws_itself_in_mermaid_with_dot_beside_it(hostile):
    hood = hostile.neighbourhood("mem-decision-hostile-a")
    plain = graph.neighbourhood(hostile.graph(), "mem-decision-hostile-a").to_json()
    assert isinstance(hood, graph.Neighbourhood) and isinstance(plain, dict)
    assert hood.to_json() == plain  # the CLI's dict is unchanged; the wrapper only adds displays
    assert [n["id"] for n in hood.nodes] == [
        "mem-decision-hostile-a",
        HOSTILE,
        "mem-entity-thing",
    ]  # the link to HOSTILE dangles

    markdown = hood._repr_markdown_()
    markup_free(markdown)
    assert not hasattr(hood, "_repr_html_")  # JupyterLab prefers HTML and would never draw the diagram
    lines = markdown.split("\n")
    opening = lines.index("```mermaid")
    closing = lines.index("```", opening)
    diagram = lines[opening + 1 : closing]
    assert diagram[0] == "graph LR" and markdown.count("```") == 2
    assert '  mem-decision-hostile-a["#60;script#62;alert#40;1#41;#60;/script#62; & #34;q#34;"]' in diagram
    assert "  class mem-decision-hostile-a root" in diagram
    assert any(line.startswith("  class ") and line.endswith(" status_active") for line in diagram)
    assert sum("-->|" in line for line in diagram) == len(hood.edges) == 2
    dangling = next(
        line.split("[")[0].strip() for line in diagram if line.startswith("  n_")
    )  # an id Mermaid cannot read
    assert f"  class {dangling} dangling" in diagram
    assert (
        "| 0 | mem\\-decision\\-hostile\\-a | &lt;script&gt;alert\\(1\\)&lt;/script&gt; &amp; &quot;q&quot; | decision | active |"
        in lines
    )

    dot = hood.dot
    assert dot.startswith("digraph vault {") and dot.endswith("}\n")
    assert '"mem-decision-hostile-a" [label="<script>alert(1)</script> & \\"q\\""];' in dot
    assert dot.count(" -> ") == len(hood.edges)


def test_a_neighbourhood_limited_to_link_types_draws_only_those(hostile):
    hood = hostile.neighbourhood("mem-entity-thing", depth=2, link_types="depends_on")
    assert {e["type"] for e in hood.edges} == {"depends_on"}
    assert "related_to" not in hood.mermaid and "related_to" not in hood.dot
    assert hood.mermaid.count("-->|depends_on|") == 2


# -- the vault ----------------------------------------------------------------------------------


def test_the_vault_overview_counts_types_and_statuses(hostile):
    markup = hostile._repr_html_()
    text = well_formed(markup)
    assert "3 files · 3 valid documents · 0 invalid files · 1 error · 0 warnings" in text
    assert notebook.STATUS_COLOURS["active"] in markup
    assert "decision22" in text.replace(" ", "") and "entity11" in text.replace(" ", "")


def test_frames_need_pandas_only_when_asked_for(hostile):
    rows = notebook.document_rows(hostile)
    assert [r["id"] for r in rows] == ["mem-decision-hostile-a", "mem-decision-hostile-b", "mem-entity-thing"]
    assert rows[0]["title"] == HOSTILE and rows[0]["links"] == 2 and rows[0]["valid"] is True
    asks = [
        lambda: hostile.to_pandas(),
        lambda: hostile.search("alert").to_pandas(),
        lambda: hostile.problems.to_pandas(),
        lambda: hostile.conflicts().to_pandas(),
    ]
    if importlib.util.find_spec("pandas") is None:
        for ask in asks:
            with pytest.raises(ImportError, match="pip install pandas"):
                ask()
    else:
        frames = [ask() for ask in asks]
        assert [len(f) for f in frames] == [3, 3, 1, 1]
        assert list(frames[0]["id"]) == [r["id"] for r in rows]


def test_the_core_loads_no_notebook_machinery():
    code = (
        "import sys, workbench.notebook, workbench.core.vocabulary.model, workbench.core.views.search, workbench.core.views.graph,"
        " workbench.core.services.conflicts, workbench.core.vault;"
        "bad = [m for m in sys.modules if m.split('.')[0] in"
        " ('IPython', 'ipykernel', 'jupyter_client', 'nbformat', 'nbclient', 'pandas', 'textual', 'rich')];"
        "print(','.join(bad)); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, f"the core loaded: {result.stdout}{result.stderr}"


def test_the_notebook_face_is_imported_by_the_first_drawing_not_by_the_package():
    """`import workbench` installs the drawings, but the face's module waits for the first one:
    the TUI and the CLI, which draw none, never load it."""
    code = (
        "import sys, workbench; from workbench.core.vocabulary.model import Document;"
        "before = 'workbench.notebook' in sys.modules;"
        "html = Document('mem-note-x', 'notes/mem-note-x.md', {'title': '<b>x</b>'}, 'Hi')._repr_html_();"
        "print(before, 'workbench.notebook' in sys.modules, '&lt;b&gt;x&lt;/b&gt;' in html)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.split() == ["False", "True", "True"], result.stderr


def test_the_package_installs_a_drawing_for_each_kind_the_core_asks_for():
    import re

    import workbench
    from workbench import notebook
    from workbench.core.vocabulary import presenting

    core = Path(workbench.__file__).parent / "core"
    asked = {m for f in core.rglob("*.py") for m in re.findall(r'presenting\.render\("(\w+)"', f.read_text())}
    assert asked == set(presenting.KINDS) == set(presenting._renderers)
    assert all(callable(getattr(notebook, kind)) for kind in presenting.KINDS)
    assert all(renderer.__module__ == "workbench.notebook" for renderer in presenting._renderers.values())


# -- the tour -----------------------------------------------------------------------------------


def _kernel_of_this_interpreter(root: Path, monkeypatch) -> None:
    """Make `python3` mean this interpreter: a kernelspec written for it, found first on JUPYTER_PATH.

    The spec ipykernel installs may start a bare `python`, which on a machine with several
    interpreters (pyenv shims, a CI venv) need not be the one the workbench is installed in.
    """
    spec = root / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-Xfrozen_modules=off", "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "Python 3", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(root / "jupyter"))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(root / "runtime"))
    monkeypatch.setenv("IPYTHONDIR", str(root / "ipython"))
    from jupyter_client.kernelspec import KernelSpecManager

    assert KernelSpecManager().get_kernel_spec("python3").argv[0] == sys.executable


def _outputs(notebook, tag: str) -> list[dict]:
    cells = [c for c in notebook.cells if tag in c.get("metadata", {}).get("tags", [])]
    assert len(cells) == 1, f"the tour has no single cell tagged {tag}"
    return cells[0]["outputs"]


def _shown(notebook, tag: str, mimetype: str) -> str:
    data = [
        o["data"][mimetype]
        for o in _outputs(notebook, tag)
        if o["output_type"] == "execute_result" and mimetype in o["data"]
    ]
    assert data, f"cell {tag} showed no {mimetype}"
    return data[0]


def test_the_tour_notebook_runs_on_the_sample_vault(sample_copy, tmp_path, monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(TOUR, as_version=4)
    nbformat.validate(notebook)
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"), (
        "commit the tour without outputs"
    )
    _kernel_of_this_interpreter(tmp_path, monkeypatch)
    monkeypatch.setenv("WORKBENCH_TOUR_VAULT", str(sample_copy))

    started = time.monotonic()
    NotebookClient(
        notebook, kernel_name="python3", timeout=60, startup_timeout=60, resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    assert time.monotonic() - started < 60

    assert not [o for c in notebook.cells for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert "67 valid documents" in well_formed(_shown(notebook, "vault", "text/html"))
    document = well_formed(_shown(notebook, "document", "text/html"))
    assert "Use a Postgres-backed job queue (procrastinate)" in document and "from procrastinate import App" in document
    assert "```python\nfrom procrastinate import App" in _shown(notebook, "document", "text/markdown")
    assert "mem-decision-jobs-procrastinate" in well_formed(_shown(notebook, "search", "text/html"))
    assert "link-to-superseded" in well_formed(_shown(notebook, "problems", "text/html"))
    assert "contradiction" in well_formed(_shown(notebook, "conflicts", "text/html"))
    hood = _shown(notebook, "neighbourhood", "text/markdown")
    assert "```mermaid\ngraph LR\n" in hood and "class mem-decision-jobs-procrastinate root" in hood
    assert "digraph vault {" in "".join(o.get("text", "") for o in _outputs(notebook, "dot"))
    assert (sample_copy / ".workbench").is_dir()  # the tour opened the copy it was given
