"""The git repository a synced vault lives in, as sync and its questions read it: the `git`
command run in the vault's folder (`Git`: no password prompt, no submodule work, git's words in
`SyncError`), what git's index holds of a merge waiting there (each unmerged path's stages and
modes, which of them are not regular files), the record sync keeps in the git directory of what it
wrote for that merge, and the vault's writer, through which every document sync writes goes.

Shared by the sync (`gitsync`), its setup (`syncsetup`) and its questions (`syncquestions`).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
from pathlib import Path
from typing import Any

from ..storage.lock import VaultLock
from ..vocabulary.model import ConflictError, UnsafePathError, WorkbenchError
from ..storage.writer import ChangeWriter, FileChange, write_atomic

__all__ = [
    "SyncError",
    "Git",
    "REGULAR",
    "RECORD",
    "merge_in_progress",
    "unmerged_modes",
    "odd_types",
    "regular_at",
    "is_document",
    "merge_head_of",
    "digest_of",
    "load_record",
    "save_record",
    "vault_writer",
    "write_changes",
]

REGULAR = ("100644", "100755")  # git's modes of a regular file; 120000 is a symlink, 160000 a submodule
RECORD = "workbench-merge.json"  # in the git directory: what sync wrote for the merge waiting there


class SyncError(WorkbenchError):
    """git refused or failed; the message is git's own, with the command that failed."""


class Git:
    """The `git` command, run in the vault's folder, so pathspecs and paths are the vault's."""

    def __init__(self, root: Path):
        self.root = root
        self.env = {
            **os.environ,
            "GIT_TERMINAL_PROMPT": "0",  # never a password prompt behind a TUI
            # No submodule work, whatever a `.gitmodules` from the remote says (`update = !cmd`
            # would otherwise stop every fetch at reading it).
            "GIT_CONFIG_COUNT": "3",
            "GIT_CONFIG_KEY_0": "submodule.recurse",
            "GIT_CONFIG_VALUE_0": "false",
            "GIT_CONFIG_KEY_1": "fetch.recurseSubmodules",
            "GIT_CONFIG_VALUE_1": "false",
            "GIT_CONFIG_KEY_2": "push.recurseSubmodules",
            "GIT_CONFIG_VALUE_2": "no",
        }
        done = self.run("rev-parse", "--show-toplevel", "--git-dir", check=False)
        if done.returncode != 0:
            raise SyncError(f"{root} is not inside a git work tree: `git init` it, or clone the vault's repository")
        top, git_dir = done.stdout.decode().splitlines()[:2]
        self.top = Path(top)
        self.git_dir = (root / git_dir).resolve()

    def run(
        self, *args: str, check: bool = True, data: bytes | None = None, config: tuple[str, ...] = ()
    ) -> subprocess.CompletedProcess:
        command = ["git", *(part for item in config for part in ("-c", item)), *args]
        try:
            done = subprocess.run(command, cwd=self.root, input=data, capture_output=True, env=self.env)
        except FileNotFoundError:
            raise SyncError("the `git` command is not installed") from None
        if check and done.returncode != 0:
            said = (done.stderr or done.stdout).decode(errors="replace").strip()
            raise SyncError(f"`git {' '.join(args[:3])}` failed: {said}")
        return done

    def text(self, *args: str) -> str:
        return self.run(*args).stdout.decode(errors="surrogateescape")

    def blobs(self, shas: list[str]) -> dict[str, bytes]:
        """Many objects in one `cat-file --batch`, by id."""
        if not shas:
            return {}
        out = self.run("cat-file", "--batch", data="".join(f"{sha}\n" for sha in shas).encode()).stdout
        found: dict[str, bytes] = {}
        at = 0
        for sha in shas:
            end = out.index(b"\n", at)
            header = out[at:end].split()
            size = int(header[2])
            found[sha] = out[end + 1 : end + 1 + size]
            at = end + 1 + size + 1
        return found

    def add(self, paths: list[str]) -> None:
        if paths:
            self.run(
                "add", "--pathspec-from-file=-", "--pathspec-file-nul", "--", data=b"\0".join(p.encode() for p in paths)
            )


def merge_in_progress(root: Path) -> bool:
    git = Git(root)
    return git.run("rev-parse", "-q", "--verify", "MERGE_HEAD", check=False).returncode == 0


def unmerged_modes(git: Git) -> dict[str, dict[int, tuple[str, str]]]:
    """Unmerged paths under the vault (relative to it): (mode, blob) of each stage they have."""
    stages: dict[str, dict[int, tuple[str, str]]] = {}
    for entry in git.run("ls-files", "-u", "-z", "--", ".").stdout.split(b"\0"):
        if entry:
            info, path = entry.split(b"\t", 1)
            mode, sha, stage = info.split()
            stages.setdefault(path.decode(errors="surrogateescape"), {})[int(stage)] = (mode.decode(), sha.decode())
    return stages


def odd_types(entries: dict[str, dict[int, tuple[str, str]]]) -> dict[str, list[str]]:
    """Paths whose sides are not all regular files (a document replaced by a symlink or a
    submodule on one side), each with the paths git recorded for it: where it kept the other
    side, it renamed it `PATH~HEAD` or `PATH~BRANCH`."""
    odd: dict[str, list[str]] = {}
    for path, stages in entries.items():
        if any(mode not in REGULAR for mode, _ in stages.values()):
            odd[path] = [path]
    for path in entries:
        stem, tilde, _ = path.rpartition("~")
        if tilde and stem in odd and path not in odd:
            odd[stem].append(path)
    return odd


def regular_at(path: Path) -> bytes | None:
    """The bytes of the regular file at `path`; None for nothing there, a symlink or another kind."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None


def is_document(path: str) -> bool:
    return path.endswith(".md") and path != "log.md" and not any(part.startswith(".") for part in path.split("/"))


def vault_writer(root: Path, lock: VaultLock) -> ChangeWriter:
    """The vault's writer, for the files sync writes: its lock, its swap check, its journal."""
    return ChangeWriter(root, root / ".workbench", lock, root / "log.md", [])


def write_changes(root: Path, changes: list[FileChange], summary: str, lock: VaultLock | None = None) -> None:
    """Write these changes through the vault's writer, as every other write does."""
    try:
        vault_writer(root, lock or VaultLock(root / ".workbench")).apply(changes, summary, [], keep_history=False)
    except ConflictError as exc:
        raise SyncError(
            f"{exc.path} changed while it was being settled; nothing was written: settle it again"
        ) from None
    except UnsafePathError as exc:
        raise SyncError(str(exc)) from None


def merge_head_of(git: Git) -> str | None:
    done = git.run("rev-parse", "-q", "--verify", "MERGE_HEAD", check=False)
    return done.stdout.decode().strip() if done.returncode == 0 else None


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def load_record(git: Git, merge_head: str) -> dict[str, dict[str, Any]]:
    """The documents sync wrote for this merge, each with the digest of what it wrote and what
    the merge could not write into it as a question (`asks`: a broken frontmatter, say)."""
    try:
        kept = json.loads((git.git_dir / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(kept, dict) or kept.get("merge_head") != merge_head or not isinstance(kept.get("written"), dict):
        return {}
    return {str(k): v for k, v in kept["written"].items() if isinstance(v, dict)}


def save_record(git: Git, merge_head: str, written: dict[str, dict[str, Any]]) -> None:
    write_atomic(git.git_dir / RECORD, json.dumps({"merge_head": merge_head, "written": written}).encode())
