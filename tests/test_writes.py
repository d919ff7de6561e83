"""Faithful and safe writes: a change rewrites only what it changes, and refuses what it has not seen."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from vault_builders import doc_text
from workbench import ConflictError, RefusedError, Vault

TODAY = dt.date.today().isoformat()

STYLED = """\
---
schema_version: v1
id: mem-decision-styled   # the id stays
type: decision
title: 'Styled: with a colon'
status: draft
created_at: 2026-04-21
updated_at: "2026-04-22"
project: demo
tags:
  - core   # first tag
  - style
links: [{type: related_to, target: mem-entity-core}]
supersedes: []
superseded_by: []
x-unknown:
  keep: {me: [1, 2]}
summary: >
  A folded
  block scalar.
provenance:
  source: manual
  confidence: high  # sure
---
Body with --- inside
---
and no final newline"""


def changed_lines(before: bytes, after: bytes) -> list[tuple[str, str]]:
    a, b = before.decode().splitlines(), after.decode().splitlines()
    assert len(a) == len(b), "lines were added or removed"
    return [(x, y) for x, y in zip(a, b) if x != y]


def setup(builder, text=STYLED, name="decisions/mem-decision-styled.md"):
    builder.add("mem-entity-core")
    path = builder.raw(name, text)
    return Vault.open(builder.root), path


def test_status_change_touches_only_status_and_updated_at(builder):
    vault, path = setup(builder)
    before = path.read_bytes()
    vault.set_status("mem-decision-styled", "active")
    diff = changed_lines(before, path.read_bytes())
    assert diff == [("status: draft", "status: active"), ('updated_at: "2026-04-22"', f'updated_at: "{TODAY}"')]
    assert path.read_bytes().endswith(b"and no final newline")


def test_same_status_again_writes_nothing_and_logs_nothing(builder):
    vault, path = setup(builder)
    vault.set_status("mem-decision-styled", "active")
    log = (builder.root / "log.md").read_bytes()
    stat = path.stat()
    plan = vault.set_status("mem-decision-styled", "active")
    assert plan.empty and not plan.applied
    assert path.stat().st_mtime_ns == stat.st_mtime_ns
    assert (builder.root / "log.md").read_bytes() == log


def test_save_with_no_change_writes_no_byte(builder):
    vault, path = setup(builder)
    doc = vault.get("mem-decision-styled")
    stat = path.stat()
    plan = vault.save(dataclasses.replace(doc))
    assert plan.empty
    assert path.stat().st_mtime_ns == stat.st_mtime_ns
    assert not (builder.root / "log.md").exists()


def test_body_edit_keeps_frontmatter_bytes_and_bumps_updated_at(builder):
    vault, path = setup(builder)
    doc = vault.get("mem-decision-styled")
    vault.save(dataclasses.replace(doc, body=doc.body + "\nmore"))
    text = path.read_text()
    assert text.endswith("and no final newline\nmore")
    assert f'updated_at: "{TODAY}"' in text
    assert "id: mem-decision-styled   # the id stays" in text
    assert "summary: >\n  A folded\n  block scalar.\n" in text


def test_adding_a_tag_keeps_comments_of_the_others(builder):
    vault, path = setup(builder)
    doc = vault.get("mem-decision-styled")
    meta = {**doc.meta, "tags": ["core", "style", "new"]}
    vault.save(dataclasses.replace(doc, meta=meta))
    assert "  - core   # first tag\n  - style\n  - new\n" in path.read_text()


def test_flow_style_stays_flow(builder):
    vault, path = setup(builder)
    doc = vault.get("mem-decision-styled")
    links = doc.meta["links"] + [{"type": "depends_on", "target": "mem-entity-core"}]
    vault.save(dataclasses.replace(doc, meta={**doc.meta, "links": links}))
    assert (
        "links: [{type: related_to, target: mem-entity-core}, {type: depends_on, target: mem-entity-core}]\n"
        in path.read_text()
    )


def test_crlf_and_bom_survive_an_edit(builder):
    text = "\ufeff" + doc_text("mem-note-crlf", status="draft").replace("\n", "\r\n")
    builder.add("mem-entity-core")
    path = builder.raw("notes/mem-note-crlf.md", text)
    vault = Vault.open(builder.root)
    vault.set_status("mem-note-crlf", "active")
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf---\r\n")
    assert b"\r\nstatus: active\r\n" in data
    assert b"\n" not in data.replace(b"\r\n", b"")


def test_saving_a_stale_copy_raises_conflict_and_writes_nothing(builder):
    vault, path = setup(builder)
    doc = vault.get("mem-decision-styled")
    path.write_text(path.read_text().replace("Body with", "An agent changed the body with"))
    after_agent = path.read_bytes()
    with pytest.raises(ConflictError) as caught:
        vault.save(dataclasses.replace(doc, body="mine"))
    assert caught.value.path == "decisions/mem-decision-styled.md"
    assert path.read_bytes() == after_agent
    fresh = vault.get("mem-decision-styled")
    assert "An agent changed" in fresh.body


def test_get_returns_what_is_on_disk_now(builder):
    vault, path = setup(builder)
    path.write_text(STYLED.replace("title: 'Styled: with a colon'", "title: Renamed by an agent"))
    assert vault.get("mem-decision-styled").title == "Renamed by an agent"


def test_saving_an_invalid_value_is_refused(builder):
    vault, path = setup(builder)
    before = path.read_bytes()
    doc = vault.get("mem-decision-styled")
    with pytest.raises(RefusedError):
        vault.save(dataclasses.replace(doc, meta={**doc.meta, "type": "widget"}))
    assert path.read_bytes() == before


def test_save_enforces_the_lifecycle(builder):
    vault, _ = setup(builder)
    doc = vault.get("mem-decision-styled")
    with pytest.raises(RefusedError, match="may go to: active, archived"):
        vault.save(dataclasses.replace(doc, meta={**doc.meta, "status": "deprecated"}))


@pytest.mark.parametrize(
    "current, new, allowed",
    [
        ("draft", "active", True),
        ("draft", "archived", True),
        ("active", "deprecated", True),
        ("active", "archived", True),
        ("deprecated", "active", True),
        ("deprecated", "archived", True),
        ("superseded", "archived", True),
        ("archived", "draft", True),
        ("draft", "deprecated", False),
        ("active", "draft", False),
        ("archived", "active", False),
        ("active", "superseded", False),
        ("superseded", "active", False),
    ],
)
def test_transition_table(builder, current, new, allowed):
    builder.add(
        "mem-decision-b", supersedes="[mem-decision-a]", links="[{type: supersedes, target: mem-decision-a}]"
    ) if current == "superseded" else None
    builder.add("mem-decision-a", status=current, superseded_by="[mem-decision-b]" if current == "superseded" else "[]")
    vault = Vault.open(builder.root)
    if allowed:
        vault.set_status("mem-decision-a", new)
        assert vault.get("mem-decision-a").status == new
    else:
        with pytest.raises(RefusedError):
            vault.set_status("mem-decision-a", new)
        assert vault.get("mem-decision-a").status == current


def test_supersede_writes_both_sides_and_the_link(builder):
    builder.add("mem-decision-old")
    builder.add("mem-decision-new", status="draft")
    vault = Vault.open(builder.root)
    plan = vault.supersede("mem-decision-old", "mem-decision-new")
    assert plan.applied and set(plan.paths) == {"decisions/mem-decision-old.md", "decisions/mem-decision-new.md"}
    old, new = vault.get("mem-decision-old"), vault.get("mem-decision-new")
    assert old.status == "superseded" and old.superseded_by == ["mem-decision-new"]
    assert new.status == "active" and new.supersedes == ["mem-decision-old"]
    assert [(l.type, l.target) for l in new.links] == [("supersedes", "mem-decision-old")]
    assert vault.problems == []
    assert "supersede mem-decision-old by mem-decision-new" in (builder.root / "log.md").read_text()


def test_supersede_refuses_a_cycle(builder):
    builder.add("mem-decision-a")
    builder.add("mem-decision-b")
    vault = Vault.open(builder.root)
    vault.supersede("mem-decision-a", "mem-decision-b")
    with pytest.raises(RefusedError):
        vault.supersede("mem-decision-b", "mem-decision-a")


def test_dry_run_writes_nothing_and_shows_a_diff(builder):
    builder.add("mem-decision-old")
    builder.add("mem-decision-new")
    vault = Vault.open(builder.root)
    before = {p: p.read_bytes() for p in builder.root.rglob("*.md")}
    plan = vault.supersede("mem-decision-old", "mem-decision-new", dry_run=True)
    assert {p: p.read_bytes() for p in builder.root.rglob("*.md")} == before
    assert "+status: superseded" in plan.diff() and "-status: active" in plan.diff()


def test_execution_state_is_separate_from_status(builder):
    builder.add("mem-task-ship", extra="execution_state: todo\n")
    vault = Vault.open(builder.root)
    vault.set_execution_state("mem-task-ship", "in-progress")
    doc = vault.get("mem-task-ship")
    assert doc.meta["execution_state"] == "in-progress" and doc.status == "active"
    with pytest.raises(RefusedError):
        vault.set_execution_state("mem-task-ship", "finished")


@pytest.mark.parametrize(
    "title", ["Before\x85after", "Lines\u2028and\u2029paragraphs", "C1\x9bcontrol", "del\x7f and bom\ufeff"]
)
def test_a_title_with_characters_yaml_would_fold_round_trips(builder, title):
    from workbench.core.services.gate import Draft

    builder.add("mem-entity-core")
    vault = Vault.open(builder.root)
    created = vault.create(Draft("note", title, [], [("related_to", "mem-entity-core")], "Body.\n")).created_id
    assert Vault.open(builder.root).get(created).title == title
    doc = vault.get("mem-entity-core")
    vault.save(dataclasses.replace(doc, meta={**doc.meta, "title": title}))
    assert Vault.open(builder.root).get("mem-entity-core").title == title


def test_a_rename_rewrites_links_separated_by_a_comment_and_a_blank_line(builder):
    builder.add("mem-entity-core")
    builder.add("mem-entity-other")
    links = (
        "links:\n  - type: related_to\n    target: mem-entity-other\n  # the one we build on\n\n"
        "  - type: depends_on\n    target: mem-entity-core\n"
    )
    text = doc_text("mem-note-a").replace("links: []\n", links)
    builder.raw("notes/mem-note-a.md", text)
    vault = Vault.open(builder.root)
    assert vault.get("mem-note-a").valid
    vault.rename("mem-entity-core", "mem-entity-kernel")
    after = (builder.root / "notes/mem-note-a.md").read_text()
    assert after == text.replace("target: mem-entity-core", "target: mem-entity-kernel").replace(
        "updated_at: 2026-04-21", f"updated_at: {TODAY}"
    )
    assert [(l.type, l.target) for l in Vault.open(builder.root).get("mem-note-a").links] == [
        ("related_to", "mem-entity-other"),
        ("depends_on", "mem-entity-kernel"),
    ]
