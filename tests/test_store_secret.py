"""A store secret that is refused (others may read it, not a regular file, the wrong size, its
folder not to be made) is told to the person, with the file and how to mend it: before, every
copied vault's store was quietly built again. Every command asks for it and says it once on
stderr, a warm open in the vault's own folder included; never a traceback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.core.records import seal
from workbench.core.vault import Vault


@pytest.fixture
def state(tmp_path: Path, monkeypatch) -> Path:
    """A user state folder of the test's, read afresh as by a new process."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setattr(seal, "_known", {})
    monkeypatch.setattr(seal, "_refused", {})
    return tmp_path / "state"


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _symlink(path: Path) -> None:
    (path.parent / "elsewhere").write_bytes(b"x" * seal.SECRET_BYTES)
    path.symlink_to(path.parent / "elsewhere")


REFUSED = {
    "readable by others": (lambda path: path.chmod(0o644), "chmod 600"),
    "a folder": (lambda path: (path.unlink(), path.mkdir()), "not a regular file"),
    "a named pipe": (lambda path: (path.unlink(), _fifo(path)), "not a regular file"),
    "a symbolic link": (lambda path: (path.unlink(), _symlink(path)), "symbolic link"),
    "the wrong size": (lambda path: path.write_bytes(b"short"), "5 bytes"),
}


@pytest.mark.parametrize("kind", sorted(REFUSED))
def test_a_refused_secret_is_told_with_the_file_and_the_way_to_mend_it(state: Path, kind: str) -> None:
    path = seal.secret_path()
    assert seal.user_secret() is not None and seal.refusal() is None
    spoil, said = REFUSED[kind]
    spoil(path)
    # A new process asks (a named pipe once held the open for good: asked in a process of its own).
    script = "from workbench.core.records import seal\nprint(seal.refusal(ask=True))\n"
    run = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "XDG_STATE_HOME": str(state)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0 and not run.stderr, run.stderr
    told = run.stdout.strip()
    assert told.startswith(f"{path}: ") and said in told, told
    if kind == "readable by others":
        assert told.endswith(f"chmod 600 {path}")
        path.chmod(0o600)  # mended as told: used again, nothing more to tell
        assert seal.refusal(ask=True) is None and seal.user_secret() is not None


def test_a_state_folder_that_cannot_be_made_is_told(state: Path) -> None:
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_text("a file where the folder should be")
    told = seal.refusal(ask=True)
    assert told is not None and str(seal.secret_path()) in told and "cannot be read or made" in told
    assert Vault.secret_note() is not None and "built again" in Vault.secret_note()


def test_a_warm_process_that_never_asked_tells_nothing(state: Path) -> None:
    seal.user_secret()
    seal.secret_path().chmod(0o644)
    assert seal.refusal() is None  # read before the change, in this process: nothing was refused


def _cli(root: Path, state: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "workbench.cli", "--vault", str(root), *args],
        env={**os.environ, "XDG_STATE_HOME": str(state)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_command_line_says_it_once_on_stderr(state: Path, sample_copy: Path, tmp_path: Path) -> None:
    Vault.open(sample_copy).index.store.close()  # the store made, sealed under the secret
    path = seal.secret_path()
    path.chmod(0o644)
    copy = tmp_path / "copied"
    shutil.copytree(sample_copy, copy)
    for args in (("search", "invoice"), ("check",)):
        run = _cli(copy, state, *args)
        assert "Traceback" not in run.stderr, run.stderr
        lines = [line for line in run.stderr.splitlines() if "secret" in line]
        assert len(lines) == 1, (args, run.stderr)
        assert lines[0].startswith("workbench: the secret that seals derived stores is not used")
        assert lines[0].endswith(f"chmod 600 {path}"), lines[0]
    path.chmod(0o600)
    mended = _cli(copy, state, "check")
    assert "secret" not in mended.stderr, mended.stderr


ID = "mem-decision-api-fastapi"  # a decision of the sample's
OPENING = (
    ("search", "invoice"),
    ("show", ID),
    ("conflicts",),
    ("conflicts", "--json"),
    ("conflicts", "--json"),  # the second answered from what the first kept
    ("review",),
    ("review", "--json"),
    ("review", "--json"),
    ("stale",),
    ("recent",),
    ("links", ID),
    ("context", ID),
    ("graph",),
    ("index",),
    ("consolidate",),
    ("inbox",),
    ("history",),
    ("mcp",),  # stdin at its end: the server opens the vault, then stops
    ("check",),
)
"""Commands that open a vault, each in a process of its own."""


def _secret_lines(run: subprocess.CompletedProcess, args: tuple[str, ...]) -> list[str]:
    assert "Traceback" not in run.stderr, (args, run.stderr)
    return [line for line in run.stderr.splitlines() if "secret" in line]


def test_every_command_that_opens_a_vault_in_its_folder_says_it(state: Path, sample_copy: Path) -> None:
    """Where the vault's own store is opened (no copy, so no seal asked for), the secret refused is
    said all the same, once: the person learns of it before a copy's store is built again for it."""
    _cli(sample_copy, state, "check")  # the store made and sealed, in place
    path = seal.secret_path()
    path.chmod(0o644)
    told = (
        "workbench: the secret that seals derived stores is not used, so a copied vault's store is built again:"
        f" {path}: others may read it (mode 644): make it yours alone: chmod 600 {path}"
    )
    said = {}
    for args in OPENING:
        run = subprocess.run(
            [sys.executable, "-m", "workbench.cli", "--vault", str(sample_copy), *args],
            env={**os.environ, "XDG_STATE_HOME": str(state)},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )
        said[args] = _secret_lines(run, args)
    assert {args: lines for args, lines in said.items() if lines != [told]} == {}


@pytest.mark.parametrize("kind", sorted(REFUSED))
def test_search_in_the_vaults_folder_says_each_kind_of_refusal(state: Path, sample_copy: Path, kind: str) -> None:
    _cli(sample_copy, state, "check")
    path = seal.secret_path()
    spoil, said = REFUSED[kind]
    spoil(path)
    run = _cli(sample_copy, state, "search", "invoice")
    lines = _secret_lines(run, ("search", "invoice"))
    assert run.returncode == 0 and len(lines) == 1 and lines[0].startswith("workbench: the secret"), run.stderr
    assert f"{path}: " in lines[0] and said in lines[0], lines[0]
