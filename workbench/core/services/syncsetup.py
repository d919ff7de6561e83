"""Setting up a vault's repository for sync: the document merge registered as git's merge driver
in the local config, `.gitattributes` sending the vault's Markdown files to it (the log and readers'
verdicts merged as `union`), `.gitignore` keeping derived state on its machine, and the same
attributes in `.git/info/attributes`, which outranks any `.gitattributes` a remote pushes. Also
whether a vault can be synced at all (`not_syncable`) and is set up (`is_set_up`).
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from ..storage.writer import FileChange, write_atomic
from .gitrepo import Git, SyncError, is_document, regular_at, write_changes

__all__ = ["DRIVER", "ATTRIBUTES", "IGNORED", "setup", "is_set_up", "not_syncable", "merge_overridden"]

DRIVER = "workbench"
ATTRIBUTES = (
    "*.md merge=workbench",
    "/log.md merge=union",
    "/.workbench-verdicts.jsonl merge=union",
)  # the log and readers' verdicts only grow: keep both sides' lines
IGNORED = (".workbench/", ".recovery/")  # derived state and local backups stay on their machine


def _driver_command() -> str:
    return f"{shlex.quote(sys.executable)} -m workbench.core.editing.docmerge %O %A %B %P"


def _ensure_lines(path: Path, lines: tuple[str, ...], root: Path | None = None) -> bool:
    """Add the missing `lines` to the file at `path`; a file of the vault at `root` is written
    through the vault's writer, one in the git directory atomically."""
    data = regular_at(path)
    text = (data or b"").decode("utf-8", "surrogateescape")
    have = set(text.splitlines())
    missing = [line for line in lines if line not in have]
    if not missing:
        return False
    after = (text + ("" if not text or text.endswith("\n") else "\n") + "\n".join(missing) + "\n").encode(
        "utf-8", "surrogateescape"
    )
    if root is None:
        write_atomic(path, after)
    else:
        write_changes(root, [FileChange(path.relative_to(root).as_posix(), data, after)], f"sync setup: {path.name}")
    return True


def _local_attributes(git: Git) -> tuple[Path, tuple[str, ...]]:
    """The clone's own attributes file and the lines that set the document merge there for this
    vault's files. `.git/info/attributes` outranks every `.gitattributes` in the tree, so a line
    pushed by a remote (`*.md merge=union`) cannot take the documents from the driver."""
    try:
        inside = git.root.resolve().relative_to(git.top.resolve()).as_posix()
    except ValueError:
        inside = "."
    prefix = "" if inside in ("", ".") else f"/{inside}"
    lines = []
    for line in ATTRIBUTES:
        pattern, _, attribute = line.partition(" ")
        if pattern.startswith("/"):
            pattern = prefix + pattern
        elif prefix:
            pattern = f"{prefix}/**/{pattern}"
        lines.append(f"{pattern} {attribute}")
    return git.git_dir / "info" / "attributes", tuple(lines)


def _lines_of(path: Path) -> set[str]:
    try:
        return set(path.read_text(encoding="utf-8").splitlines())
    except (FileNotFoundError, UnicodeDecodeError):
        return set()


def not_syncable(root: Path) -> str | None:
    """Why the vault at `root` cannot be synced at all (not in a git work tree, no `git`), or None:
    asked before a face shows a sync that could only be empty."""
    try:
        Git(root)
    except SyncError as exc:
        return str(exc)
    return None


def is_set_up(root: Path) -> bool:
    git = Git(root)
    driver = git.run("config", "--local", "--get", f"merge.{DRIVER}.driver", check=False).stdout.decode().strip()
    local, lines = _local_attributes(git)
    return (
        driver == _driver_command()
        and all(line in _lines_of(root / ".gitattributes") for line in ATTRIBUTES)
        and all(line in _lines_of(local) for line in lines)
        and not merge_overridden(git, ["x.md"])
    )


def merge_overridden(git: Git, paths: list[str]) -> list[str]:
    """Each of these vault documents whose merge is not the driver's, as `git check-attr` says, with
    the merge it would get."""
    wanted = [p for p in paths if is_document(p)]
    if not wanted:
        return []
    out = git.run("check-attr", "-z", "--stdin", "merge", data=b"\0".join(p.encode() for p in wanted) + b"\0").stdout
    fields = out.decode(errors="surrogateescape").split("\0")
    return [
        f"{path} (merge: {value})"
        for path, _, value in zip(fields[0::3], fields[1::3], fields[2::3])
        if value != DRIVER and path in wanted
    ]


def setup(root: Path) -> list[str]:
    """Register the document merge in this clone's local config and the vault's `.gitattributes`
    (and keep derived state out of git); what was done, one line each. Run once per machine: the
    config is not cloned, the attributes are."""
    git = Git(root)
    done = []
    if (
        git.run("config", "--local", "--get", f"merge.{DRIVER}.driver", check=False).stdout.decode().strip()
        != _driver_command()
    ):
        git.run("config", "--local", f"merge.{DRIVER}.name", "workbench: vault documents, frontmatter key by key")
        git.run("config", "--local", f"merge.{DRIVER}.driver", _driver_command())
        done.append(f"registered the merge driver in {git.git_dir / 'config'}")
    if _ensure_lines(root / ".gitattributes", ATTRIBUTES, root):
        done.append("the vault's .gitattributes sends its Markdown files to the driver")
    local, lines = _local_attributes(git)
    local.parent.mkdir(parents=True, exist_ok=True)
    if _ensure_lines(local, lines):
        done.append(f"{local} keeps the document merge whatever a .gitattributes says")
    others = [
        line.strip()
        for line in sorted(_lines_of(root / ".gitattributes"))
        if "merge" in line and line.strip() not in ATTRIBUTES and not line.lstrip().startswith("#")
    ]
    if others:
        done.append(
            f"the vault's .gitattributes also says {'; '.join(others)}: ignored for documents, "
            f"{local.name} in {local.parent} outranks it"
        )
    if _ensure_lines(root / ".gitignore", IGNORED, root):
        done.append("the vault's .gitignore keeps .workbench/ and .recovery/ on this machine")
    return done
