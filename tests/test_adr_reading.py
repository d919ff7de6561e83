"""The `adr` flavour's reading of decision records, compared record for record with a stored one.

The reading was made faster (the prose read in fewer passes); what it finds must not move. The
expected readings under `tests/adr_reading/` were computed by the reading as it was before that
work, with `python tests/test_adr_reading.py --write` run against that code: on every ADR
collection under the corpora (each read at its own root, and read again nested two folders deep,
as the collections copied to 10,000 documents are), kept only as digests (`collections.json`: a
digest of each file's path and of its reading, so that no collection's text is copied here), and
on generated texts that mix the statements a record makes with hostile ones (code, unclosed spans,
case folding, CRLF), kept whole. Write them again only when a finding is meant to change, and say
so in the change.

Each reading is a record's id, its id when its number is taken, its view (title, type, status,
dates, every link and supersession as written) and the flavour's own problems with it.
"""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import json
import os
import random
import re
import sys
from pathlib import Path

import pytest

if __name__ == "__main__":  # `--write`: the package on the path first, not this file's folder
    sys.path.pop(0)

from workbench.core import flavours
from workbench.core.vocabulary.parse import loose_meta, parse_bytes
from tests.test_corpora import CORPORA

EXPECTED = Path(__file__).resolve().parent / "adr_reading"
COLLECTIONS = CORPORA / "adr-collection"
ON = dt.date(2026, 1, 1)
MTIME = dt.date(2025, 6, 1)
NESTED = "copy-00/"  # as `bench_speed --corpus` copies a collection: `copy-NN/<collection>/<file>`


def reading(flavour, path: str, raw: bytes) -> dict:
    """What the flavour reads in one file, as `build_record` asks it."""
    parsed = parse_bytes(raw)
    loose = flavour.reads_loosely and parsed.decoded and parsed.has_frontmatter and parsed.meta is None
    meta = parsed.meta or (loose_meta(parsed.fm_lines) if loose else {})
    body = parsed.body if parsed.has_frontmatter else parsed.text
    view = flavour.view(path, meta, body, MTIME) if parsed.decoded else flavour.view(path, {}, "", None)
    problems = flavour.check(path, parsed, view, ON) if parsed.decoded else []
    return {
        "id": flavour.doc_id(path, meta),
        "fallback": flavour.fallback_id(path),
        "reserved": flavour.is_reserved(path),
        "view": view.to_json(),
        "problems": [[p.code, p.line, p.message] for p in problems],
    }


def collection_files(root: Path) -> list[tuple[str, bytes]]:
    found = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            if name.endswith(".md") and name != "SOURCE.md":
                full = Path(folder) / name
                found.append((full.relative_to(root).as_posix(), full.read_bytes()))
    return found


def collection_reading(root: Path) -> dict:
    """Every file of a collection read at its root, and read again nested as in a vault of copies."""
    flavour = flavours.get("adr").prepared(root)
    plain = flavours.get("adr")  # a vault of copies has no index at its root
    files = collection_files(root)
    return {
        "detect": flavour.detect(root),
        "listed": [list(item) for item in flavour.listed],
        "files": {path: reading(flavour, path, raw) for path, raw in files},
        "nested": {path: reading(plain, f"{NESTED}{root.name}/{path}", raw) for path, raw in files},
    }


# Pieces of records, as collections write them and as they should not trip the reader.
_PATHS = [
    "ADR-012-use-x.md",
    "ADR012-use-x.md",
    "0012-use-x.md",
    "012-use-x.md",
    "2021-06-06_002-use-x.md",
    "2020-08-10-use-x.md",
    "use-x.md",
    "hip-412.md",
    "arc-0003.md",
    "xyz-012/xyz-012-title.md",
    "xyz-012/xyz-private-layer.md",
    "0012-title/README.md",
    "docs/adr/0012-use-x.md",
    "copy-03/collection/ADR-012-use-x.md",
    "README.md",
    "ADR000-template.md",
    "template.md",
]
_FRONT = [
    "status: Accepted",
    "status: Superseded by ADR-042",
    "Status: Final",
    "status: partly superseded by ADR-15",
    "status: ",
    "superseded-by: 90",
    "superseded_by: [ADR-3, 'ADR-004']",
    "replaces: 655, 777",
    "replaces: N/A",
    "supersedes: ADR-0024",
    "supersedes: [[0007-x.md]]",
    "supercedes: '[ADR 7](0007-x.md)'",
    "deprecated-reason: replaced. See ADR-291",
    "requires: 17",
    "extends: [26]",
    "depends-on: SIMD-0387",
    "amends: HIP-30",
    "date: 2021-03-04",
    "date: 12/17/2022",
    "created: 3 March 2022",
    "updated: 2023-01-01",
    "title: ADR-012: Use X",
    "title: '0014. Record the thing'",
    "description: why we do it",
    "tags: [Accepted, storage]",
    "tags: infra, Superseded",
    "superseded-by: TODO - add it when ready",
    "superseded-by: none",
    "replaced_by: hip-33",
    "key with: broken: yaml: [",
]
_LINES = [
    "# ADR-012: Use X",
    "# 12. Use X",
    "# 0014. Record the thing",
    "# BIP 12: Title",
    "# Preamble",
    "# Abstract",
    "## Status",
    "## 1. Status:",
    "### Status",
    "## Context",
    "## Context and Problem Statement",
    "## Decision",
    "## Decision Outcome",
    "## Consequences",
    "## Date",
    "## Superseded by [ADR 3](/adr/3)",
    "## Replaced by ADR-7 ##",
    "## Deprecated",
    "Accepted",
    "> Accepted",
    "- Superseded by ADR-042",
    "Superseded by [a title](2022-01-20-title.md)",
    "⌛️ Superseded [0019](0019-x.md)",
    "Superceded (in 2021) by ADR 31",
    "**Status**: Accepted",
    "**Status:** Rejected in favour of ADR 111",
    "__Status__: Deprecated in favor of HIP-30",
    "Status: Replaced",
    "Replaced-By: 33",
    "Title: A proposal",
    "Author: someone",
    "  continued on an indented line",
    "<pre>",
    "</pre>",
    "Status: Superseded by ADR-9 (partially)",
    "* Supersedes: ADR-024, ADR-025",
    "- **Superseded-by**: [ADR-0042](0042-y.md)",
    "Replaces: none",
    "**Supersedes**: None (extends ADR-041)",
    "Date: 2022-03-03",
    "**Date**: 3 March 2022",
    "- Created: March 3rd, 2022",
    "Date 20/06/2019",
    "05/02/2018",
    "- Name: the thing",
    "**Title**: `my_feature`",
    "Proposal Name: Removal of `at-block`",
    "Author Name: A. Person",
    "<!-- a comment -->",
    "---",
    "| ADR | Status |",
    "|---|---|",
    "| [ADR-3](0003-x.md) | Superseded |",
]
_SENTENCES = [
    "This ADR updates and supersedes [ADR0024 the old one](0024-old.md).",
    "We supersede [ADR 17](/adr/17).",
    "[HIP10] got replaced by HIP412.",
    "ADR-10 was replaced by ADR-012.",
    "This decision does not directly supersede ADR 23.",
    "We might one day be superseded by ADR-9.",
    "This ADR in part supersedes ADR-15.",
    "It supersedes some aspects of ADR-15.",
    "ADR-100 was dropped in favour of ADR-101.",
    "We chose to implement ADR-101 instead of ADR-100, which was slower.",
    "We are in favour of ADR-5.",
    "Rejected in favor of HIP-30.",
    "This decision is taken instead of ADR-100.",
    "Option B was set aside in favour of option A; see ADR-7.",
    "149 lines replaced by a section quoting ADR-009.",
    "Amends ADR-0028.",
    "Extends ADR-12 and depends on ADR 3.",
    "Builds on [the queue](../xyz-029/) and [the log](../xyz-030).",
    "See [ADR 32](/adr/32) and (../adr/0032-x) and [site](https://example.org/adr/12).",
    "The links [[ADR-003]] and [[0004-y|a label]] say it too.",
    "Related: ADR-2025 is a year, ADR-0999 a record, ADR 7 another.",
    "The current decision record replaces ADR-6, ADR-8; and ADR-11.",
    "This proposal supersedes HIP-12 and ARC-3.",
    "Superseded by: [XYZ-031](../xyz-031/xyz-031-title.md)",
    "`ADR-5 supersedes ADR-4` is only code.",
    "This ADR replaces ``ADR-44 ` ADR-45`` in code and ADR-46 out of it.",
    "```\nThis ADR supersedes ADR-50.\n```",
    "~~~python\nwe replace ADR-51\n~~~",
    "   ```\nstill in code ADR-52\n````",
    "an unclosed ` span that supersedes ADR-53",
    "We ſuperſede ADR-54 and REPLACE ADR-55 and İstanbul replaces ADR-56.",
    "This \u212aelvin record supersedes ADR-57.",
    "We supersede ADR-58\u2028and ADR-59.",
    "Rather than ADR-60, we follow ADR-61.",
    "We use ADR-62 in place of ADR-63: it is simpler.",
    "The record was retired, some time later, in favour of ADR-64.",
    "If we ever replace ADR-65, we will say so.",
    "Replacing ADR-66 is what this ADR does.",
    "This record is superseded (since 2022) by ADR-67.",
    "Nothing here.",
    "A plain paragraph about databases, rather long and with no record in it at all.",
]


def generated_texts(count: int, seed: int = 42) -> list[tuple[str, str]]:
    """(path, text) for records put together at random from the pieces above."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        path = rng.choice(_PATHS)
        parts = []
        if rng.random() < 0.5:
            parts.append("---\n" + "\n".join(rng.sample(_FRONT, rng.randint(0, 5))) + "\n---")
        pieces = _LINES + _SENTENCES
        for _ in range(rng.randint(0, 30)):
            parts.append(rng.choice(pieces))
        joins = ["\n", "\n\n", " ", "\n\n", "\r\n", "\n    ", "\n\t"]
        text = rng.choice(["", "", "", "\n", "\n\n", "  "]) + (parts[0] if parts else "")
        for part in parts[1:]:
            text += rng.choice(joins) + part
        out.append((path, text))
    return out


GENERATED = 2500


def generated_reading() -> dict:
    flavour = flavours.get("adr")
    texts = generated_texts(GENERATED)
    return {"texts": texts, "readings": [reading(flavour, path, text.encode("utf-8")) for path, text in texts]}


def _digest(value) -> str:
    """A reading (or a path) as kept for a collection: a digest of its JSON, no text of it."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


def _digests(found: dict) -> dict:
    """A collection's reading as `collections.json` keeps it."""
    return {
        "detect": found["detect"],
        "listed": _digest(found["listed"]),
        "files": {_digest(path): _digest(read) for path, read in found["files"].items()},
        "nested": {_digest(path): _digest(read) for path, read in found["nested"].items()},
    }


def _stored_collections() -> dict:
    return json.loads((EXPECTED / "collections.json").read_text("utf-8"))


def _generated() -> dict:
    with gzip.open(EXPECTED / "generated.json.gz", "rt", encoding="utf-8") as file:
        return json.load(file)


def _names() -> list:
    if not COLLECTIONS.is_dir():
        reason = f"no ADR collection under {COLLECTIONS} (set WORKBENCH_CORPORA to the folder holding them)"
        return [pytest.param(None, id="no-corpora", marks=pytest.mark.skip(reason=reason))]
    return sorted(p.name for p in COLLECTIONS.iterdir() if p.is_dir())


def _same(found: dict, expected: dict, where: str) -> None:
    """Readings by path (whole, or as digests where `found` names the paths by their digests)."""
    assert found.keys() == expected.keys(), f"{where}: other files read"
    for path, read in expected.items():
        assert found[path] == read, f"{where}: {path} read otherwise"


@pytest.mark.parametrize("name", _names())
def test_every_record_of_a_collection_reads_as_before(name):
    """Read in place: reading a record writes nothing (no vault is opened)."""
    stored = _stored_collections()
    if name not in stored:
        pytest.skip(f"no stored reading for {name}: a collection added after the reading was stored")
    expected = stored[name]
    found = collection_reading(COLLECTIONS / name)
    digests = _digests(found)
    assert (digests["detect"], digests["listed"]) == (expected["detect"], expected["listed"])
    for part in ("files", "nested"):
        paths = {_digest(path): path for path in found[part]}  # a failure names the file
        named = {paths.get(key, key): value for key, value in digests[part].items()}
        _same(named, {paths.get(key, key): value for key, value in expected[part].items()}, f"{name} {part}")


def test_every_stored_collection_is_still_read():
    """A stored reading whose collection is gone would pass unseen: every one is still there."""
    if not COLLECTIONS.is_dir():
        pytest.skip(f"no ADR collection under {COLLECTIONS}")
    stored = set(_stored_collections())
    assert stored and stored <= {p.name for p in COLLECTIONS.iterdir()}


def test_generated_and_hostile_records_read_as_before():
    expected = _generated()
    texts = generated_texts(GENERATED)
    assert [list(t) for t in texts] == expected["texts"], "the generator made other texts: write them again"
    flavour = flavours.get("adr")
    for (path, text), read in zip(texts, expected["readings"]):
        assert reading(flavour, path, text.encode("utf-8")) == read, f"{path} read otherwise:\n{text}"


def test_the_generated_records_state_what_the_reader_looks_for():
    """The generated texts are worth comparing on: most state a status, and many a supersession
    and a link, so a reader that found nothing would not read as before."""
    readings = _generated()["readings"]
    stated = sum(bool(r["view"]["stated_status"]) for r in readings)
    superseding = sum(bool(r["view"]["raw_supersedes"] or r["view"]["raw_superseded_by"]) for r in readings)
    linked = sum(bool(r["view"]["raw_links"]) for r in readings)
    assert stated > GENERATED / 2 and superseding > GENERATED / 3 and linked > GENERATED / 2


def _scrambled(count: int, seed: int = 7) -> list[str]:
    """Texts of cue words, white space of every kind and sentence marks, some longer than the
    reach of one look back for a sentence's start, some starting or ending with white space."""
    rng = random.Random(seed)
    words = [
        "supersedes",
        "Replaced",
        "REPLACING",
        "in favour of",
        "instead",
        "rather than",
        "in place",
        "placed",
        "ADR-12",
        "We",
        "the",
        "a",
        "İstanbul",
        "ı",
        "ſuperſede",
        "Kelvin",
        "1.",
        "-",
        "*",
        "+",
        "(",
        "`x`",
        "[a](b.md)",
        "Status:",
        "été",
        "ß",
        "adr 7",
        "ADR0024",
        "xADR-3",
        "ADR-2025",
        "ADR_0999",
        "HIP-412",
        "hip412",
        "h\u0131p-4",
        "\u212aIP-3",
        "SIMD-0387",
        "\u017fimd-1",
        "adradr-5",
        "Date:",
        "**Date**:",
        "## Date",
        "__Created__",
        "update",
        "2022-03-03",
        "12/17/2022",
        "3 March 2022",
    ]
    spaces = [" ", "  ", "\n", "\n\n", "\n \n", "\t", "\r\n", "\u2028", "\u00a0", "\x1c", "\n- ", "\n1. "]
    marks = ["", "", ".", "!", "?", ",", ";"]
    out = []
    for _ in range(count):
        size = rng.choice([0, 1, 3, 20, 200, 1500])
        parts = [rng.choice(spaces) if rng.random() < 0.3 else ""]
        for _ in range(size):
            parts += [rng.choice(words), rng.choice(marks), rng.choice(spaces)]
        out.append("".join(parts[:-1] if rng.random() < 0.5 else parts))
    return out


def test_the_cued_sentences_are_those_of_the_whole_text_split():
    """`cued` finds sentences around cue words instead of splitting the whole text: it finds the
    same ones as splitting does, in the same order."""
    from workbench.core.flavours import adr_text

    texts = _scrambled(600) + [text for _, text in generated_texts(GENERATED)]
    for text in texts:
        pieces = adr_text._SENTENCE.split(text)
        verbs = [p for p in pieces if adr_text.VERB_CUES.search(p)]
        favours = [p for p in pieces if adr_text._FAVOUR_CUES.search(p)]
        assert adr_text.cued(text) == (verbs, favours), repr(text[:300])


def test_the_records_a_text_names_are_those_the_patterns_find_in_the_whole_text():
    """`refs` tries its patterns only where the text has the prefix: it finds what a scan of the
    whole text finds, in the same order, whatever the case and the letters around it."""
    from workbench.core.flavours import adr_names

    texts = _scrambled(600) + [text for _, text in generated_texts(GENERATED)]
    for text in texts:
        for prefix in ("ADR", "HIP", "SIMD", "KIP"):
            expected = [adr_names.ref_id(m.group(1)) for m in adr_names._REF.finditer(text)]
            if prefix != "ADR":
                pattern = adr_names._ref_pattern(prefix)
                expected += [adr_names.ref_id(m.group(1), prefix) for m in pattern.finditer(text)]
            assert adr_names.refs(text, prefix) == expected, (prefix, repr(text[:300]))


def test_the_date_a_record_states_is_the_first_the_whole_top_states():
    """The scan for a `Date:` line starts at the first place one could begin: it finds the date
    a scan of the whole top finds."""
    from workbench.core.flavours import adr
    from workbench.core.flavours.adr_names import written_date

    texts = _scrambled(600) + [text for _, text in generated_texts(GENERATED)]
    for text in texts:
        top = "\n".join(text.split("\n", adr.TOP_LINES * 2)[: adr.TOP_LINES * 2])
        expected = next(filter(None, (written_date(m.group(1)) for m in adr._DATE.finditer(top))), None)
        assert adr._stated_date(text) == expected, repr(text[:300])


def test_the_status_section_is_the_first_the_whole_body_heads():
    """`status_text` tries as a `## Status` heading only the lines where the lower-cased body has
    `status`: it finds the heading (and the lines after it) a look at every line finds."""
    from workbench.core.flavours import adr_text

    def every_line(body: str):
        lines = body.split("\n")
        for index, line in enumerate(lines):
            if "#" in line and adr_text._STATUS_SECTION.match(line.strip()):
                return index, lines[index + 1 : index + 12]
        return None

    rng = random.Random(11)
    headings = [
        "## Status",
        "### STATUS:",
        "## 2. status",
        "#  Status",
        "## Statuses",
        "## \u017ftatus",
        "  ## Status  ",
    ]
    texts = [text for _, text in generated_texts(GENERATED)]
    for text in _scrambled(600):
        lines = text.split("\n")
        for _ in range(rng.randint(0, 3)):
            lines.insert(rng.randint(0, len(lines)), rng.choice(headings) + rng.choice(["", "\r", " status", "\u00e9"]))
        texts.append("\n".join(lines))
    for text in texts:
        assert adr_text._status_section(text) == every_line(text), repr(text[:300])


def _write() -> None:
    EXPECTED.mkdir(exist_ok=True)
    print(f"reading with {flavours.__file__}")
    collections = {p.name: _digests(collection_reading(p)) for p in sorted(COLLECTIONS.iterdir()) if p.is_dir()}
    (EXPECTED / "collections.json").write_text(json.dumps(collections, sort_keys=True, indent=0) + "\n", "utf-8")
    with gzip.GzipFile(EXPECTED / "generated.json.gz", "wb", mtime=0) as file:
        file.write(json.dumps(generated_reading(), ensure_ascii=False, sort_keys=True, indent=0).encode("utf-8"))
    print(", ".join(collections), "and the generated records")


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    _write()


def test_the_worker_file_benchmark_times_each_code_beside_the_floor(tmp_path):
    """`bench_worker_file`, run small: each code's worker's file and the floor's are printed."""
    import subprocess

    root = Path(__file__).resolve().parent.parent
    vault = tmp_path / "records"
    vault.mkdir()
    for n, (_, text) in enumerate(generated_texts(40)):
        (vault / f"{n:04d}-record.md").write_text(text, encoding="utf-8")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.benchmarks.bench_worker_file",
            str(vault),
            "--every",
            "1",
            "--runs",
            "1",
            str(root),
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "floor's file" in result.stdout and re.search(r"a worker's file \d+-\d+ us CPU \(40 files\)", result.stdout)
