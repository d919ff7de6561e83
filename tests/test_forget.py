"""Forget, attacked: after it, no byte of the document is anywhere under the vault, whatever it went
through before (edits, a rename, a repair backup, a generated index entry, a second file with its
id) and even when a crash interrupts it; and nothing brings it back."""

from __future__ import annotations

import base64
import dataclasses
import json
import sqlite3

import pytest

from helpers import run_cli, run_cli_unprivileged, run_killed_at
from workbench import RefusedError, Vault
from workbench.core.services.gate import Draft

TITLE = "Zanzibar quokka ledger arrangement"
SECRET = "The xylqorb ledger key is 4417-purple-umbrella; never share it with anyone."
EDITED = "Nothing here any more but an ordinary sentence about invoices."
WORD = "xylqorb"  # a word no other document has: the full-text index must not keep it


def _decoded_strings(value):
    """Every base64 string inside a JSON value, decoded: undo records keep file bytes so."""
    if isinstance(value, dict):
        for item in value.values():
            yield from _decoded_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _decoded_strings(item)
    elif isinstance(value, str) and len(value) >= 8:
        try:
            yield base64.b64decode(value, validate=True)
        except ValueError:
            pass


def found_under(root, needles: list[str]) -> list[tuple[str, str]]:
    """(file, needle) for every file under the vault that holds a needle, binary-safe: raw bytes,
    JSON's escaped text and the base64 inside JSON all count."""
    found = []
    for path in sorted(root.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        texts = [data]
        if path.suffix == ".json":
            try:
                value = json.loads(data)
                texts += [json.dumps(value, ensure_ascii=False).encode()] + list(_decoded_strings(value))
            except ValueError:
                pass
        for needle in needles:
            if any(needle.encode() in text for text in texts):
                found.append((path.relative_to(root).as_posix(), needle))
    return found


def index_words(root) -> set[str]:
    db = sqlite3.connect(root / ".workbench" / "index.sqlite")
    db.execute("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, 'fts', 'row')")
    words = {row[0] for row in db.execute("SELECT term FROM temp.vocab")}
    db.close()
    return words


def plant(vault: Vault) -> str:
    """The secret document, as an agent would leave it: created through the gate (an undo record
    holds it), linked from another document, listed in the vault index, repaired once (a backup
    under .recovery holds it)."""
    doc_id = vault.create(
        Draft("note", TITLE, ["secrets"], [("related_to", "mem-entity-stripe")], SECRET + "\n")
    ).created_id
    vault.create(Draft("note", "Where the ledger note lives", [], [("related_to", doc_id)], "See the other note.\n"))
    path = vault.root / vault.get(doc_id).path
    path.write_bytes(path.read_bytes().replace(b"status: active", b"status: bogus"))
    vault.repair()  # backs the file up, fixes the status, regenerates the index's sections
    assert (vault.root / ".recovery").is_dir()
    assert f"[[{doc_id}]] {TITLE}" in vault.get("mem-index-vault").body
    return doc_id


def assert_gone(root, needles):
    assert found_under(root, needles) == []
    assert WORD not in index_words(root)
    shown = run_cli("--vault", str(root), "show", needles[-1], timeout=60)
    assert shown.returncode == 3, shown.stdout
    undone = run_cli("--vault", str(root), "undo", timeout=60)
    assert found_under(root, needles) == [], undone.stdout


def test_forget_leaves_no_byte_of_the_document_anywhere(sample_copy):
    vault = Vault.open(sample_copy)
    doc_id = plant(vault)
    vault.forget(doc_id, confirm=doc_id)
    assert_gone(sample_copy, [SECRET, TITLE, doc_id])
    index = Vault.open(sample_copy).get("mem-index-vault")
    assert "(forgotten)" not in index.body  # its entry went whole, not just its id
    assert [p for p in Vault.open(sample_copy).problems if p.severity == "error"] == []


def test_forget_after_edits_and_a_rename_reaches_every_earlier_name(sample_copy):
    vault = Vault.open(sample_copy)
    old_id = plant(vault)
    doc = vault.get(old_id)
    vault.save(dataclasses.replace(doc, body=doc.body.replace(SECRET, EDITED)))
    vault.set_status(old_id, "archived")
    new_id = "mem-note-renamed-arrangement"
    vault.rename(old_id, new_id)
    vault.forget(new_id, confirm=new_id)
    assert_gone(sample_copy, [SECRET, EDITED, TITLE, old_id, new_id])


def test_forget_removes_every_file_that_claims_the_id(sample_copy):
    vault = Vault.open(sample_copy)
    doc_id = plant(vault)
    original = sample_copy / vault.get(doc_id).path
    (sample_copy / "notes" / "copy-of-the-ledger.md").write_bytes(original.read_bytes())
    (sample_copy / "contexts" / f"{doc_id}.md").write_bytes(original.read_bytes())
    vault = Vault.open(sample_copy)
    assert sum(p.code == "id-duplicate" for p in vault.problems) == 2
    vault.forget(doc_id, confirm=doc_id)
    assert_gone(sample_copy, [SECRET, TITLE, doc_id])


@pytest.mark.parametrize("step", ["committed", "logged"])
def test_a_forget_killed_after_it_committed_is_finished_and_never_undone(sample_copy, step):
    vault = Vault.open(sample_copy)
    doc_id = plant(vault)
    code = f"from workbench import Vault; Vault.open({str(sample_copy)!r}).forget({doc_id!r}, {doc_id!r})"
    killed = run_killed_at(step, code)
    assert killed.returncode == 137, killed.stderr
    reopened = Vault.open(sample_copy)
    assert doc_id not in reopened
    with pytest.raises(RefusedError):
        while True:  # undo everything there is: the forgotten document must never come back
            reopened.undo()
            assert not (sample_copy / "notes" / f"{doc_id}.md").exists()
    assert_gone(sample_copy, [SECRET, TITLE, doc_id])


def test_forget_refuses_when_a_file_claiming_the_id_cannot_be_read(sample_copy):
    vault = Vault.open(sample_copy)
    doc_id = plant(vault)
    copy = sample_copy / "contexts" / f"{doc_id}.md"  # unreadable, it claims the id by its name
    copy.write_bytes((sample_copy / vault.get(doc_id).path).read_bytes())
    copy.chmod(0)
    try:
        result = run_cli_unprivileged("--vault", str(sample_copy), "forget", doc_id, "--confirm", doc_id)
    finally:
        copy.chmod(0o644)
    assert result.returncode == 3, result.stderr
    assert f"contexts/{doc_id}.md claims" in result.stderr and "Traceback" not in result.stderr
    assert copy.exists() and (sample_copy / Vault.open(sample_copy).get(doc_id).path).exists()
