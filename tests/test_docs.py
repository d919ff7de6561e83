"""The README is a door to the pages under docs/: every relative link in it, and in those pages,
names a file that exists, and a `#heading` that file has (as GitHub makes anchors of headings)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
CODE = re.compile(r"`[^`\n]*`")


def anchors(page: Path) -> set[str]:
    """GitHub's anchors: each heading lowercased, punctuation dropped, spaces made hyphens."""
    text = FENCE.sub("", page.read_text("utf-8"))
    headings = re.findall(r"^#{1,6} (.+)$", text, re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-") for heading in headings}


def links(page: Path) -> list[str]:
    """Relative link targets, outside code (an example of a link is not a link)."""
    text = CODE.sub("", FENCE.sub("", page.read_text("utf-8")))
    return [target for target in LINK.findall(text) if not re.match(r"[a-z]+:", target)]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_relative_link_names_a_file_and_heading_that_exist(page: Path):
    broken = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.is_file():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no heading #{anchor} in {linked.name}")
    assert not broken, f"{page.name}: {broken}"


def test_the_readme_links_to_the_pages_under_docs():
    linked = {target.partition("#")[0] for target in links(ROOT / "README.md")}
    assert {
        "docs/keys.md",
        "docs/cli.md",
        "docs/agents.md",
        "docs/formats.md",
        "docs/architecture.md",
        "docs/measurements.md",
        "CONTRIBUTING.md",
        "CHANGELOG.md",
    } <= linked


def _fences(page: Path, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", page.read_text("utf-8"), re.MULTILINE | re.DOTALL)


def test_the_python_pages_examples_run_on_the_bundled_sample_and_every_list_shown_has_a_rich_display(sample_copy):
    """Its ids were not in the sample, and `vault.recent()` showed as a plain list in a notebook."""
    import workbench  # noqa: F401 - installs the notebook's drawings

    api, notebook = _fences(ROOT / "docs" / "python.md", "python")
    exec(api.replace("path/to/vault", str(sample_copy)), {})  # noqa: S102 - the page's own example
    scope: dict = {}
    lines = notebook.replace("path/to/vault", str(sample_copy)).splitlines()
    exec("\n".join(line for line in lines if line.startswith(("from ", "vault = "))), scope)  # noqa: S102
    for line in lines:
        expression = line.split("  #")[0].strip()
        if not expression or expression.startswith(("from ", "vault = ")):
            continue
        shown = eval(expression, scope)  # noqa: S307
        if shown is None:
            continue  # `kept_conflicts()` before any search: nothing worked out
        drawn = [getattr(shown, name)() for name in ("_repr_html_", "_repr_markdown_") if hasattr(shown, name)]
        assert any(drawn), f"{expression} has no rich display"


def test_the_search_languages_example_finds_what_the_page_says_on_the_bundled_sample(sample_copy):
    from workbench import Vault

    page = (ROOT / "docs" / "cli.md").read_text("utf-8")
    section = page.split("## The search language", 1)[1]
    query = re.search(r"^    (.+)$", section, re.MULTILINE).group(1)
    hits = Vault.open(sample_copy).search(query)
    said = re.search(r"finds the \w+ \"([^\"]+)\"", section).group(1)
    assert [hit.title for hit in hits] == [said], (query, hits)
