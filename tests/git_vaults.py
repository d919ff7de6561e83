"""Vaults in git for tests: a bare repository and two clones ("laptop" and "server"), in step.

Each clone sets its own git identity: a test machine may have none configured globally.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from vault_builders import doc_path, doc_text
from workbench.cli import main

BODY = "# Retry\n\nRetry three times.\n\nBack off exponentially.\n\nGive up after an hour.\n"
DOCS = {
    "mem-decision-retry": doc_text("mem-decision-retry", body=BODY, tags="[payments]"),
    "mem-decision-retry-v2": doc_text("mem-decision-retry-v2", body="# Retry, again\n"),
    "mem-entity-queue": doc_text("mem-entity-queue"),
}


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def identify(repo: Path, name: str) -> None:
    git(repo, "config", "user.name", name)
    git(repo, "config", "user.email", f"{name}@example.org")


def make_clones(tmp_path: Path) -> tuple[Path, Path]:
    """Two machines' clones of one vault repository, both set up and in step."""
    bare = tmp_path / "vault.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    first = tmp_path / "laptop"
    git(tmp_path, "clone", "-q", str(bare), str(first))
    identify(first, "laptop")
    git(first, "checkout", "-q", "-b", "main")
    for doc_id, text in DOCS.items():
        (first / doc_path(doc_id)).parent.mkdir(parents=True, exist_ok=True)
        (first / doc_path(doc_id)).write_text(text, encoding="utf-8")
    assert sync(first) == 0
    second = tmp_path / "server"
    git(tmp_path, "clone", "-q", str(bare), str(second))
    identify(second, "server")
    assert sync(second) == 0
    return first, second


def sync(vault: Path) -> int:
    return main(["--vault", str(vault), "sync"])


def read(vault: Path, doc_id: str) -> str:
    return (vault / doc_path(doc_id)).read_text(encoding="utf-8")


def write(vault: Path, doc_id: str, *pairs: tuple[str, str]) -> None:
    text = read(vault, doc_id)
    for old, new in pairs:
        assert old in text, old
        text = text.replace(old, new, 1)
    (vault / doc_path(doc_id)).write_text(text, encoding="utf-8")
