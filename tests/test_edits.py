"""What a merge keeps. The gate's merge, folding a duplicate and consolidating notes all join text
and unite tags and links through `core/editing/edits.py`; here is what each of them keeps, said once."""

from __future__ import annotations

import pytest

from workbench import Vault
from workbench.core.editing.edits import join_section, slugify, unite_links, unite_tags
from workbench.core.services.gate import Draft


def test_unite_links_keeps_every_existing_entry_as_it_is_and_adds_each_new_one_once():
    existing = [{"type": "depends_on", "target": "mem-entity-a", "note": "kept"}, "not a mapping", {"type": "explains"}]
    united = unite_links(
        existing, [("depends_on", "mem-entity-a"), ("related_to", "mem-entity-b"), ("related_to", "mem-entity-b")]
    )
    assert united == [*existing, {"type": "related_to", "target": "mem-entity-b"}]
    assert united[0] is not existing[0]  # copied: the caller's meta is never changed in place
    assert unite_links(None, [("related_to", "x")]) == [{"type": "related_to", "target": "x"}]


def test_unite_tags_keeps_the_order_and_adds_each_new_tag_once():
    assert unite_tags(["b", "a"], ["a", "c", "c"]) == ["b", "a", "c"]


def test_join_section_keeps_the_line_endings_and_leaves_one_blank_line():
    assert (
        join_section("Intro\r\nText", "## Added", "one\ntwo\n") == "Intro\r\nText\r\n\r\n## Added\r\n\r\none\r\ntwo\r\n"
    )
    assert join_section("", "## Added", "") == "## Added\n\n"


def test_slugify_makes_ids_and_file_names_from_titles():
    assert slugify("Queue backend: move to Kafka!") == "queue-backend-move-to-kafka"
    assert slugify("???") == "untitled"


def test_slugify_transliterates_every_script_and_drops_symbols():
    assert slugify("Політика повторних спроб") == "politika-povtornikh-sprob"
    assert slugify("重试策略") == "zhong-shi-ce-lue"  # each ideograph a word, as it is read
    assert slugify("Café déjà vu, Straße") == "cafe-deja-vu-strasse"
    assert slugify("🚀 Launch") == "launch"
    assert slugify("🚀🔥") == "untitled"


@pytest.fixture
def vault(builder) -> Vault:
    builder.add(
        "mem-entity-target", tags="[b, a]", links="[{type: depends_on, target: mem-entity-other}]", body="Target.\r\n"
    )
    builder.add("mem-entity-other")
    builder.add(
        "mem-entity-source",
        tags="[a, c]",
        links="[{type: related_to, target: mem-entity-other}, {type: depends_on, target: mem-entity-other}]",
        body="Source.\n",
    )
    for name in ("x", "y", "z"):
        builder.add(f"mem-note-{name}", tags="[a, c]", body=f"Note {name}.\n")
    return Vault.open(builder.root)


def merged(vault: Vault, how: str):
    if how == "gate":
        vault.merge_into(
            "mem-entity-target",
            Draft(
                "note",
                "Draft",
                ["a", "c"],
                [("related_to", "mem-entity-other"), ("depends_on", "mem-entity-other")],
                "Draft.\n",
            ),
        )
    elif how == "duplicate":
        vault.merge("mem-entity-source", "mem-entity-target")
    else:
        vault.consolidate("mem-entity-target", ["mem-note-x", "mem-note-y", "mem-note-z"])
    return vault.get("mem-entity-target")


@pytest.mark.parametrize("how", ["gate", "duplicate", "consolidation"])
def test_every_merge_keeps_the_targets_links_tags_and_line_endings(vault, how):
    target = merged(vault, how)
    raw = vault.source("mem-entity-target")
    assert target.meta["links"][0] == {"type": "depends_on", "target": "mem-entity-other"}  # first, as it was
    assert [(l.type, l.target) for l in target.links].count(("depends_on", "mem-entity-other")) == 1  # once
    assert target.tags[:2] == ["b", "a"]
    assert "\r\n\r\n## " in target.body and raw.endswith(b"\r\n")  # the target's own line endings, its final newline
    if how != "consolidation":
        assert target.tags == ["b", "a", "c"] and ("related_to", "mem-entity-other") in [
            (l.type, l.target) for l in target.links
        ]


def test_a_post_given_by_the_vault_comes_back_through_the_gate(sample_copy):
    """python-frontmatter at the API's edge: a document given as a Post, taken back as a draft,
    finds itself among the gate's candidates; nothing is written meanwhile."""
    import frontmatter

    vault = Vault.open(sample_copy)
    before = vault.source("mem-entity-postgres")
    post = vault.post("mem-entity-postgres")
    assert isinstance(post, frontmatter.Post) and post["title"] == vault.get("mem-entity-postgres").title
    draft = Draft.from_post(post)
    assert (draft.type, draft.tags, draft.body) == (
        "entity",
        vault.get("mem-entity-postgres").tags,
        vault.get("mem-entity-postgres").body,
    )
    assert "mem-entity-postgres" in [candidate.id for candidate in vault.gate(draft)]
    assert vault.source("mem-entity-postgres") == before


COMMENTED = "    target: mem-decision-jobs-celery-redis  # written when workers were Celery\n"


def test_retarget_keeps_the_comment_on_a_link_line_it_does_not_change(sample_copy):
    vault = Vault.open(sample_copy)
    path = sample_copy / "contexts" / "mem-context-local-dev-setup.md"
    assert COMMENTED in path.read_text()
    vault.retarget("mem-context-local-dev-setup", "mem-entity-postgres", "mem-entity-tern-api")
    text = path.read_text()
    assert COMMENTED in text and "    target: mem-entity-tern-api\n" in text


def test_a_retargeted_line_keeps_its_comment_and_every_other_line(sample_copy):
    vault = Vault.open(sample_copy)
    path = sample_copy / "contexts" / "mem-context-local-dev-setup.md"
    before = path.read_text().splitlines()
    vault.retarget("mem-context-local-dev-setup", "mem-decision-jobs-celery-redis")
    after = path.read_text().splitlines()
    changed = [(a, b) for a, b in zip(before, after) if a != b]
    assert [b for _, b in changed if not b.startswith("updated_at")] == [
        "    target: mem-decision-jobs-procrastinate  # written when workers were Celery"
    ]


def test_merge_keeps_the_comments_of_the_targets_link_lines(sample_copy):
    vault = Vault.open(sample_copy)
    path = sample_copy / "contexts" / "mem-context-local-dev-setup.md"
    vault.merge_into(
        "mem-context-local-dev-setup",
        Draft(
            "note", "Docker compose profiles", ["docker"], [("related_to", "mem-entity-tern-api")], "Use profiles.\n"
        ),
    )
    text = path.read_text()
    assert COMMENTED in text and text.endswith("Use profiles.\n")


def test_consolidation_keeps_the_targets_final_newline_and_adds_no_blank_line_at_the_end(builder):
    builder.add("mem-entity-target", body="Target text.\n")
    for name in ("x", "y", "z"):
        builder.add(f"mem-note-{name}", tags="[a]", body=f"Note {name}.")
    vault = Vault.open(builder.root)
    vault.consolidate("mem-entity-target", ["mem-note-x", "mem-note-y", "mem-note-z"])
    raw = vault.source("mem-entity-target")
    assert raw.endswith(b"Note z.\n") and not raw.endswith(b"\n\n")


def test_consolidation_of_text_edited_in_a_box_keeps_the_final_newline(builder):
    """A text box gives back its text without the final newline; the file keeps the one it had."""
    builder.add("mem-entity-target", body="Target text.\n")
    for name in ("x", "y", "z"):
        builder.add(f"mem-note-{name}", tags="[a]", body=f"Note {name}.\n")
    vault = Vault.open(builder.root)
    notes = ["mem-note-x", "mem-note-y", "mem-note-z"]
    merged = vault.merged_body("mem-entity-target", notes)
    vault.consolidate("mem-entity-target", notes, body=merged.rstrip("\n") + " Edited.", edited_from=merged)
    assert vault.source("mem-entity-target").endswith(b"Note z. Edited.\n")
