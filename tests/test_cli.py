"""The command line as a person and a script use it: real processes, exit codes, JSON shapes."""

from __future__ import annotations

import json

import pytest

from helpers import run_cli
from vault_builders import doc_text


def test_check_on_the_sample_has_no_errors(sample_copy):
    result = run_cli("--vault", str(sample_copy), "check", "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    data = json.loads(result.stdout)
    assert set(data) == {"vault", "flavour", "documents", "problems"}
    assert data["flavour"] == "memory-core" and 40 <= data["documents"] <= 80
    assert all(p["severity"] == "warning" for p in data["problems"])
    for problem in data["problems"]:
        assert set(problem) == {"path", "severity", "code", "message", "line"}
        assert not problem["path"].startswith("/")


def test_check_exits_1_on_errors_and_not_on_warnings(builder):
    builder.add("mem-note-a", body="password: hunter2secret99\n")
    assert run_cli("--vault", str(builder.root), "check").returncode == 0
    builder.add("mem-note-b", status="live")
    result = run_cli("--vault", str(builder.root), "check")
    assert result.returncode == 1
    assert "notes/mem-note-b.md:6: error status-invalid" in result.stdout
    assert "Traceback" not in result.stderr


def test_documents_counts_invalid_files_too(builder):
    builder.add("mem-note-a")
    builder.raw("notes/mem-note-b.md", "no frontmatter\n")
    data = json.loads(run_cli("--vault", str(builder.root), "check", "--json").stdout)
    assert data["documents"] == 2


def test_status_and_refusals(builder):
    builder.add("mem-note-a", status="draft")
    root = str(builder.root)
    assert run_cli("--vault", root, "status", "mem-note-a", "active").returncode == 0
    again = run_cli("--vault", root, "status", "mem-note-a", "active")
    assert again.returncode == 0 and "nothing changed" in again.stdout
    for args in (
        ("status", "mem-note-a", "draft"),
        ("status", "mem-note-ghost", "active"),
        ("status", "mem-note-a", "superseded"),
    ):
        result = run_cli("--vault", root, *args)
        assert result.returncode == 3
        assert result.stderr.count("\n") == 1 and "refused" in result.stderr
    refused = run_cli("--vault", root, "status", "mem-note-a", "draft")
    assert "deprecated, archived" in refused.stderr


def test_supersede_dry_run_then_for_real(builder):
    builder.add("mem-decision-old")
    builder.add("mem-decision-new", status="draft")
    root = str(builder.root)
    dry = run_cli("--vault", root, "supersede", "mem-decision-old", "mem-decision-new", "--dry-run")
    assert dry.returncode == 0 and "+status: superseded" in dry.stdout
    assert "status: active" in (builder.root / "decisions/mem-decision-old.md").read_text()
    assert run_cli("--vault", root, "supersede", "mem-decision-old", "mem-decision-new").returncode == 0
    shown = json.loads(run_cli("--vault", root, "show", "mem-decision-old", "--json").stdout)
    assert shown["meta"]["status"] == "superseded" and shown["meta"]["superseded_by"] == ["mem-decision-new"]


def test_usage_errors_and_unreadable_vaults_exit_2(tmp_path):
    assert run_cli("--vault", str(tmp_path / "missing"), "check").returncode == 2
    (tmp_path / "file").write_text("x")
    assert run_cli("--vault", str(tmp_path / "file"), "check").returncode == 2
    assert run_cli("frobnicate").returncode == 2
    assert run_cli("--vault", "bad\x01path", "check").returncode == 2


def test_vault_resolution_order(builder, tmp_path):
    builder.add("mem-note-env")
    other = tmp_path / "cwdvault"
    (other / "notes").mkdir(parents=True)
    (other / "notes" / "mem-note-cwd.md").write_text(doc_text("mem-note-cwd"))
    by_env = run_cli("show", "mem-note-env", env={"WORKBENCH_VAULT": str(builder.root)}, cwd=other)
    assert by_env.returncode == 0
    by_cwd = run_cli("show", "mem-note-cwd", cwd=other)
    assert by_cwd.returncode == 0
    sample = run_cli("check", "--json", cwd=tmp_path)
    data = json.loads(sample.stdout)
    assert data["documents"] >= 40 and "sample-vault" in data["vault"]


def test_an_obsidian_vault_in_the_current_folder_is_opened(tmp_path):
    vault = tmp_path / "obsidian"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / "Home.md").write_text("# Home\n\nSee [[Other]].\n")
    data = json.loads(run_cli("check", "--json", cwd=vault).stdout)
    assert (data["flavour"], data["documents"], data["vault"]) == ("markdown", 1, str(vault))


def test_the_installed_sample_is_never_modified(tmp_path):
    from workbench.samples import sample_source

    source = sample_source()
    before = {p: p.read_bytes() for p in source.rglob("*") if p.is_file()}
    assert json.loads(run_cli("check", "--json", cwd=tmp_path).stdout)["documents"] >= 40
    result = run_cli("status", "mem-concept-usage-based-billing", "active", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert {p: p.read_bytes() for p in source.rglob("*") if p.is_file()} == before
    assert not (source / ".workbench").exists()


def test_terminal_escapes_in_a_document_never_reach_the_terminal(builder):
    builder.add("mem-note-evil", body="\x1b]0;pwned\x07\x1b[2J red \x1b[31mtext\n")
    result = run_cli("--vault", str(builder.root), "show", "mem-note-evil")
    assert result.returncode == 0
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "\\x1b" in result.stdout


DRY_RUNS = [
    ["status", "mem-concept-usage-based-billing", "active"],
    ["state", "mem-task-sendgrid-template-audit", "in-progress"],
    ["supersede", "mem-decision-money-integer-cents", "mem-decision-money-numeric-decimal"],
    ["new", "--type", "note", "--title", "Vacuum", "--link", "related_to:mem-entity-postgres", "--create"],
    ["new", "--type", "note", "--title", "Vacuum", "--merge-into", "mem-entity-postgres"],
    ["new", "--type", "decision", "--title", "Money as bigint", "--supersede", "mem-decision-money-integer-cents"],
    ["compatible", "mem-entity-postgres", "mem-entity-postgresql-db"],
    ["retarget", "mem-context-local-dev-setup", "mem-decision-jobs-celery-redis"],
    ["merge", "mem-entity-postgresql-db", "--into", "mem-entity-postgres"],
    [
        "consolidate",
        "--into",
        "mem-context-test-suite",
        "mem-note-flaky-pdf-snapshot-fonts",
        "mem-note-flaky-invoice-counter-year-boundary",
    ],
    ["rename", "mem-entity-sentry", "mem-entity-sentry-io"],
    ["forget", "mem-note-design-tokens-export", "--confirm", "mem-note-design-tokens-export"],
    ["index"],
    ["check", "--repair"],
]


@pytest.mark.parametrize("args", DRY_RUNS, ids=[a[0] + ("-" + a[-1] if a[0] == "new" else "") for a in DRY_RUNS])
def test_every_writing_command_has_a_dry_run_that_writes_nothing(sample_copy, args):
    before = {p: p.read_bytes() for p in sample_copy.rglob("*") if p.is_file()}
    result = run_cli("--vault", str(sample_copy), *args, "--dry-run")
    assert result.returncode == 0, result.stderr
    after = {p: p.read_bytes() for p in sample_copy.rglob("*") if p.is_file() and ".workbench" not in p.parts}
    assert after == {p: b for p, b in before.items() if ".workbench" not in p.parts}
    if args[0] not in ("index", "check"):
        assert result.stdout.startswith("--- ") and "\n+" in result.stdout


def test_each_change_is_listed_and_undone_from_the_cli(sample_copy):
    root = str(sample_copy)
    assert run_cli("--vault", root, "status", "mem-concept-usage-based-billing", "active").returncode == 0
    history = json.loads(run_cli("--vault", root, "history", "--json").stdout)["changes"]
    assert history[0]["summary"] == "status mem-concept-usage-based-billing: draft → active"
    assert run_cli("--vault", root, "undo").returncode == 0
    assert (
        json.loads(run_cli("--vault", root, "show", "mem-concept-usage-based-billing", "--json").stdout)["meta"][
            "status"
        ]
        == "draft"
    )
    refused = run_cli("--vault", root, "undo")
    assert refused.returncode == 3 and "nothing to undo" in refused.stderr


def test_forget_with_a_mismatched_confirmation_is_refused(sample_copy):
    before = {p: p.read_bytes() for p in sample_copy.rglob("*.md")}
    result = run_cli(
        "--vault", str(sample_copy), "forget", "mem-note-design-tokens-export", "--confirm", "mem-note-design"
    )
    assert result.returncode == 3
    assert {p: p.read_bytes() for p in sample_copy.rglob("*.md")} == before


def test_gate_json_shape(sample_copy):
    result = run_cli(
        "--vault",
        str(sample_copy),
        "new",
        "--type",
        "note",
        "--title",
        "Postgres vacuum",
        "--tags",
        "database",
        "--json",
    )
    data = json.loads(result.stdout)
    assert result.returncode == 0 and 1 <= len(data["candidates"]) <= 3
    assert set(data["candidates"][0]) >= {"id", "title", "score", "reasons"}


def test_a_written_change_reports_the_id_it_wrote_as_json(sample_copy):
    root = str(sample_copy)
    made = json.loads(
        run_cli(
            "--vault",
            root,
            "new",
            "--type",
            "note",
            "--title",
            "Vacuum nightly",
            "--link",
            "related_to:mem-entity-postgres",
            "--create",
            "--json",
        ).stdout
    )
    merged = json.loads(
        run_cli(
            "--vault",
            root,
            "new",
            "--type",
            "note",
            "--title",
            "Vacuum weekly",
            "--merge-into",
            "mem-entity-postgres",
            "--json",
        ).stdout
    )
    assert (
        made["applied"]
        and made["id"] == "mem-note-vacuum-nightly"
        and made["paths"] == ["notes/mem-note-vacuum-nightly.md"]
    )
    assert merged["applied"] and merged["id"] == "mem-entity-postgres"


def test_conflicts_json_shape(sample_copy):
    data = json.loads(run_cli("--vault", str(sample_copy), "conflicts", "--json").stdout)
    assert len(data["conflicts"]) == 3
    for conflict in data["conflicts"]:
        assert set(conflict) == {"kind", "ids", "reason", "resolutions"}
        assert conflict["resolutions"]


def test_a_folder_with_a_notes_folder_is_not_taken_for_a_vault(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "shopping.md").write_text("milk\n")
    (tmp_path / ".workbench").mkdir()
    data = json.loads(run_cli("check", "--json", cwd=tmp_path).stdout)
    assert "sample-vault" in data["vault"]


def test_search_takes_a_query_that_starts_with_a_word_to_leave_out(sample_copy):
    everything = run_cli("--vault", str(sample_copy), "search", "type:decision", "--limit", "50", "--json")
    superseded = {hit["id"] for hit in json.loads(everything.stdout) if hit["status"] == "superseded"}
    assert superseded
    for args in (
        ["-status:superseded", "type:decision"],
        ["type:decision", "-status:superseded"],
        ["--", "-status:superseded", "type:decision"],
    ):
        result = run_cli("--vault", str(sample_copy), "search", "--limit", "50", "--json", *args)
        assert result.returncode == 0, (args, result.stderr)
        found = {hit["id"] for hit in json.loads(result.stdout)}
        assert found and not found & superseded, args
    hotfix = run_cli("--vault", str(sample_copy), "search", "stripe", "-hotfix", "--json")  # not -h with a value
    assert hotfix.returncode == 0 and json.loads(hotfix.stdout), hotfix.stderr


def test_a_search_filter_that_cannot_match_is_a_usage_error_naming_it(sample_copy):
    for query, said in [
        ("updated:>2026-13-01", "updated:>2026-13-01: not a date"),
        ("type:decsion", "type:decsion: no such type"),
        ("is:stael", "is:stael: not something"),
        ("from:mem-nothing-here", "from:mem-nothing-here: no document"),
    ]:
        result = run_cli("--vault", str(sample_copy), "search", "postgres", query)
        assert result.returncode == 2, (query, result.stdout, result.stderr)
        assert said in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert run_cli("--vault", str(sample_copy), "search").returncode == 2


def test_search_shows_the_words_around_each_match_and_json_keeps_its_fields(sample_copy):
    text = run_cli("--vault", str(sample_copy), "search", "deduplicate", "webhooks", "--limit", "3").stdout
    lines = text.splitlines()
    assert lines[0].split()[1] == "mem-decision-stripe-webhook-dedup"
    assert (
        lines[1].startswith("       ") and "webhook" in lines[1].lower() and "\x1b" not in text
    )  # no colours into a pipe
    data = json.loads(run_cli("--vault", str(sample_copy), "search", "deduplicate", "webhooks", "--json").stdout)
    assert set(data[0]) == {"id", "title", "type", "status", "path", "score"}


def test_links_in_text_shows_every_depth_asked_for(sample_copy):
    """`--depth 2` lists what lies two links away, as `--json` does, not only the direct links."""
    text = run_cli("--vault", str(sample_copy), "links", "mem-entity-postgres", "--depth", "2")
    data = json.loads(
        run_cli("--vault", str(sample_copy), "links", "mem-entity-postgres", "--depth", "2", "--json").stdout
    )
    further = [node["id"] for node in data["nodes"] if node["depth"] == 2]
    assert text.returncode == 0 and further and "depth 2:" in text.stdout
    assert all(doc_id in text.stdout for doc_id in further)


# -- arguments that are not text ----------------------------------------------------------------

BAD = b"\xff\xfe"


def run_bytes(root, *args: bytes, stdin: bytes | None = None):
    """The command line with arguments given as bytes, as a shell passes a name it cannot decode."""
    import os
    import subprocess
    import sys

    command = [sys.executable.encode(), b"-m", b"workbench.cli", b"--vault", os.fsencode(root), *args]
    return subprocess.run(command, input=stdin, capture_output=True, timeout=60)


def snapshot(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize(
    "args, stdin",
    [
        ([b"--title", b"Money " + BAD], None),
        ([b"--title", b"Money", b"--tags", b"billing," + BAD], None),
        ([b"--title", b"Money", b"--body-file", b"-"], b"A body with " + BAD + b" in it\n"),
        ([b"--title", b"Money", b"--link", b"related_to:mem-entity-" + BAD], None),
    ],
    ids=["title", "tags", "stdin-body", "link"],
)
def test_bytes_that_are_not_utf8_are_a_usage_error_and_nothing_is_written(sample_copy, args, stdin):
    before = snapshot(sample_copy)
    for choice in ([b"--create", b"--link", b"related_to:mem-entity-stripe"], []):
        result = run_bytes(sample_copy, b"new", b"--type", b"note", *args, *choice, stdin=stdin)
        assert result.returncode == 2, result.stderr
        assert b"Traceback" not in result.stderr and b"not valid UTF-8" in result.stderr
        assert result.stderr.count(b"\n") == 1
    assert snapshot(sample_copy) == before


def test_ids_and_queries_that_are_not_utf8_are_usage_errors(sample_copy):
    for args in ([b"show", BAD], [b"search", b"stripe", BAD], [b"status", b"mem-" + BAD, b"active"]):
        result = run_bytes(sample_copy, *args)
        assert result.returncode == 2 and b"Traceback" not in result.stderr, (args, result.stderr)


def test_a_path_that_does_not_exist_is_exit_2_for_every_command_and_the_tui(tmp_path):
    missing = str(tmp_path / "mistyped")
    for args in (["check"], ["search", "x"], ["sync", "--setup"], ["mcp"], ["tui"], []):
        result = run_cli("--vault", missing, *args)
        assert result.returncode == 2 and "no such folder" in result.stderr, (args, result.stderr)


def test_an_empty_folder_is_named_a_new_vault_and_a_folder_of_other_files_is_questioned(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run_cli("--vault", str(empty), "check")
    assert result.returncode == 0 and "an empty folder, opened as a new vault" in result.stderr
    other = tmp_path / "other"
    other.mkdir()
    (other / "readme.txt").write_text("not a vault\n")
    result = run_cli("--vault", str(other), "search", "x")
    assert "no documents here" in result.stderr and "is this the vault's folder?" in result.stderr


def test_where_no_vault_is_a_command_says_it_works_on_the_sample_and_sync_and_mcp_refuse(tmp_path):
    result = run_cli("check", "--json", cwd=tmp_path)
    assert result.returncode == 0 and "is not a vault: working on the scratch sample" in result.stderr
    for args in (["sync", "--setup"], ["sync"], ["mcp"]):
        refused = run_cli(*args, cwd=tmp_path)
        assert refused.returncode == 2 and f"{tmp_path} is not a vault" in refused.stderr, (args, refused.stderr)
    assert not (tmp_path / ".git").exists() and not (tmp_path / ".gitattributes").exists()
