"""Hostile and broken input: each shape is reported within bounded time and memory, never crashes
the CLI, is never followed out of the vault, and never reaches the terminal as an escape."""

from __future__ import annotations

import json
import os
import time

import pytest

from helpers import run_cli
from vault_builders import doc_text

ALIAS_BOMB = (
    "---\n"
    + "a: &a [x, x, x, x, x, x, x, x, x]\n"
    + "".join(f"{n}: &{n} [" + ", ".join([f"*{p}"] * 9) + "]\n" for p, n in zip("abcdefgh", "bcdefghi"))
    + "---\n"
)

HOSTILE = {
    "notes/mem-note-huge.md": lambda: b"---\ntitle: x\n---\n" + b"a" * (100 * 1024 * 1024),
    "notes/mem-note-million.md": lambda: b"---\n" + b"k: v\n" * 1_000_000 + b"---\nbody\n",
    "notes/mem-note-bomb.md": lambda: ALIAS_BOMB.encode(),
    "notes/mem-note-deep.md": lambda: b"---\nx: " + b"[" * 100_000 + b"\n---\n",
    "notes/mem-note-nul.md": lambda: doc_text("mem-note-nul", body="a\x00b\n").encode(),
    "notes/mem-note-utf8.md": lambda: doc_text("mem-note-utf8").encode() + b"\xff\xfe\n",
    "notes/mem-note-mixed.md": lambda: doc_text("mem-note-mixed").replace("\n", "\r\n", 5).encode(),
    "notes/mem-note-python.md": lambda: b"---\nx: !!python/object/apply:os.system ['touch /tmp/pwned-by-vault']\n---\n",
    "notes/mem-note-markup.md": lambda: (
        doc_text("mem-note-markup", body="[bold red]markup[/] \x1b[2J\x1b]0;title\x07 \x9b31m\n")
        .replace("title: Title of mem-note-markup", 'title: "[link=file:///etc/passwd]x[/link] \\e[31mred"')
        .encode()
    ),
    "notes/mem-note-paths.md": lambda: doc_text(
        "mem-note-paths",
        links='[{type: related_to, target: ../../../etc/passwd}, {type: related_to, target: /etc/shadow}, {type: related_to, target: "mem-note-a\\x1b[2J"}]',
    ).encode(),
    "notes/mem-note-conflict.md": lambda: doc_text(
        "mem-note-conflict", body="<<<<<<< ours\na\n=======\nb\n>>>>>>> theirs\n"
    ).encode(),
    "notes/mem-note-dupkey.md": lambda: (
        doc_text("mem-note-dupkey").replace("status: active", "status: active\nstatus: draft").encode()
    ),
}


@pytest.fixture(scope="module")
def hostile_vault(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile") / "vault"
    outside = root.parent / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(doc_text("mem-note-secret", body="outside the vault\n"))
    (root / "entities").mkdir(parents=True)
    (root / "entities" / "mem-entity-core.md").write_text(doc_text("mem-entity-core"))
    for relative, make in HOSTILE.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(make())
    (root / "notes" / "mem-note-secret.md").symlink_to(outside / "secret.md")
    (root / "contexts").symlink_to(outside, target_is_directory=True)
    return root


def run_cli_bytes(*args: str):
    """Output as bytes, not text: what could reach the terminal is checked byte for byte."""
    return run_cli(*args, text=False, timeout=120)


def test_every_hostile_file_is_reported_quickly_and_nothing_crashes(hostile_vault):
    started = time.perf_counter()
    result = run_cli_bytes("--vault", str(hostile_vault), "check", "--json")
    seconds = time.perf_counter() - started
    assert result.returncode == 1, result.stderr
    assert b"Traceback" not in result.stderr
    data = json.loads(result.stdout)
    by_path = {}
    for problem in data["problems"]:
        by_path.setdefault(problem["path"], set()).add(problem["code"])
    assert "file-too-large" in by_path["notes/mem-note-huge.md"]
    assert by_path["notes/mem-note-million.md"] & {"frontmatter-unterminated", "frontmatter-too-large"}
    assert "yaml-too-complex" in by_path["notes/mem-note-bomb.md"]
    assert "yaml-too-deep" in by_path["notes/mem-note-deep.md"]
    assert "nul-bytes" in by_path["notes/mem-note-nul.md"]
    assert "encoding-invalid-utf8" in by_path["notes/mem-note-utf8.md"]
    assert "yaml-syntax" in by_path["notes/mem-note-python.md"]
    assert "conflict-markers" in by_path["notes/mem-note-conflict.md"]
    assert "yaml-duplicate-key" in by_path["notes/mem-note-dupkey.md"]
    assert "link-outside-vault" in by_path["notes/mem-note-paths.md"]
    assert "symlink-ignored" in by_path["notes/mem-note-secret.md"] and "symlink-ignored" in by_path["contexts"]
    assert not os.path.exists("/tmp/pwned-by-vault")
    assert seconds < 60  # a bound against hangs, not a speed goal: the figures are in the README
    print(f"hostile corpus: {len(HOSTILE) + 2} inputs checked in {seconds:.2f} s")


def test_nothing_outside_the_vault_is_read(hostile_vault):
    result = run_cli_bytes("--vault", str(hostile_vault), "search", "outside", "--json")
    assert result.returncode == 0 and json.loads(result.stdout) == []
    assert run_cli_bytes("--vault", str(hostile_vault), "show", "mem-note-secret").returncode == 3


@pytest.mark.parametrize("doc_id", ["../../etc/passwd", "/etc/passwd", "mem-note-a\x1b[2J", "mem-note-a/../../x"])
def test_hostile_ids_are_refused_in_one_line(hostile_vault, doc_id):
    for args in (
        ("show", doc_id),
        ("status", doc_id, "active"),
        ("rename", "mem-entity-core", doc_id),
        ("forget", doc_id, "--confirm", doc_id),
    ):
        result = run_cli_bytes("--vault", str(hostile_vault), *args)
        assert result.returncode == 3, (args, result.stderr)
        assert result.stderr.count(b"\n") == 1 and b"\x1b" not in result.stderr


def test_escape_sequences_and_markup_never_reach_the_terminal(hostile_vault):
    for args in (("check",), ("show", "mem-note-markup"), ("search", "markup")):
        result = run_cli_bytes("--vault", str(hostile_vault), *args)
        assert b"\x1b" not in result.stdout + result.stderr and b"\x07" not in result.stdout
        assert b"\xc2\x9b" not in result.stdout  # the 8-bit CSI


def test_vault_arguments_with_control_characters_or_nowhere_are_refused(tmp_path):
    for given in ("bad\x1b[2Jpath", str(tmp_path / "missing"), "/dev/null"):
        result = run_cli_bytes("--vault", given, "check")
        assert result.returncode == 2 and b"Traceback" not in result.stderr and b"\x1b" not in result.stderr


def test_names_that_are_not_utf8_are_reported_and_every_command_answers(tmp_path):
    """A file or a folder whose name is not UTF-8 (copied from another system): reported by name,
    its bytes escaped, never taken as a document, and no command fails on it."""
    from workbench import Vault

    root = tmp_path / "vault"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "mem-note-plain.md").write_text(doc_text("mem-note-plain"))
    bad_file = os.path.join(os.fsencode(root / "notes"), b"mem-note-\xff.md")
    with open(bad_file, "wb") as out:
        out.write(doc_text("mem-note-latin").encode())
    bad_folder = os.path.join(os.fsencode(root), b"dossier-\xe9")
    os.mkdir(bad_folder)
    with open(os.path.join(bad_folder, b"mem-note-inside.md"), "wb") as out:
        out.write(doc_text("mem-note-inside").encode())
    os.mkdir(os.path.join(os.fsencode(root), b".hidden-\xff"))  # never walked: not reported
    with open(os.path.join(os.fsencode(root / "notes"), b"photo-caf\xe9.png"), "wb") as out:
        out.write(b"not a document: not reported")
    result = run_cli_bytes("--vault", str(root), "check", "--json")
    assert b"Traceback" not in result.stderr and result.returncode == 1, result.stderr
    problems = {p["path"]: p["message"] for p in json.loads(result.stdout)["problems"] if p["code"] == "unreadable"}
    assert set(problems) == {"notes/mem-note-\\xff.md", "dossier-\\xe9"}
    assert all("not UTF-8" in message for message in problems.values())
    for command in (
        ["search", "note", "--json"],
        ["conflicts", "--json"],
        ["review", "--json"],
        ["show", "mem-note-plain"],
        ["graph"],
    ):
        answered = run_cli_bytes("--vault", str(root), *command)
        assert answered.returncode == 0 and b"Traceback" not in answered.stderr, (command, answered.stderr)
    vault = Vault.open(root)
    assert [doc.id for doc in vault.documents] == ["mem-note-plain"]
    vault.refresh_paths([os.fsdecode(bad_file)[len(str(root)) + 1 :]])  # as the watcher hands it over
    assert [doc.id for doc in vault.documents] == ["mem-note-plain"]


@pytest.mark.parametrize("flavour", [[], ["--flavour", "adr"]])
def test_a_vault_whose_own_name_is_not_utf8_opens(tmp_path, flavour):
    """The vault's folder itself named in another encoding: its state (in the vault, or in the
    cache folder keyed by its path for a flavour that keeps none in the vault) is found, and every
    command answers."""
    root = os.path.join(os.fsencode(tmp_path), b"vault-\xff")
    os.makedirs(os.path.join(root, b"notes"))
    for doc_id in ("mem-note-one", "mem-note-two"):
        with open(os.path.join(root, b"notes", doc_id.encode() + b".md"), "w", encoding="utf-8") as out:
            out.write(doc_text(doc_id))
    for command in (["check", "--json"], ["conflicts", "--json"], ["review", "--json"], ["search", "note"]):
        answered = run_cli_bytes("--vault", os.fsdecode(root), *flavour, *command)
        assert answered.returncode in (0, 1) and b"Traceback" not in answered.stderr, (command, answered.stderr)
