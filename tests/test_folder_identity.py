"""A vault folder's identity is one thing, asked in one place: the derived store is built for it
and a kept answer is kept for it, and a folder put in place of another at the same path is
another vault to both."""

from __future__ import annotations

import shutil
import subprocess
import sys

from workbench.core.records import derived_store
from workbench.core.services import kept_answers
from workbench.core.vocabulary.files import folder_identity


def test_the_store_and_the_kept_answers_ask_the_same_identity():
    assert derived_store.folder_identity is folder_identity
    assert kept_answers.folder_identity is folder_identity
    assert not hasattr(kept_answers, "_identity")


def test_a_folder_put_in_place_of_another_is_another_identity(tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n")
    before = folder_identity(vault)
    assert before and folder_identity(str(vault)) == before
    shutil.copytree(vault, tmp_path / "copy")
    shutil.rmtree(vault)
    (tmp_path / "copy").rename(vault)
    assert folder_identity(vault) not in ("", before)
    assert folder_identity(tmp_path / "missing") == ""


def test_the_quick_path_asks_it_without_importing_the_store():
    code = (
        "import sys; from workbench.core.services import kept_answers; "
        "print('workbench.core.records.derived_store' in sys.modules)"
    )
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "False"
