"""A vault on several machines, with git as the engine: commit, fetch, merge, push.

Git already moves the bytes, keeps the history and speaks to the user's own remote with the
user's own credentials, so `sync` drives the `git` command and invents no transport. What git
does not know is what a document is: merged as text, two edits of one frontmatter leave conflict
markers in the YAML and the document drops out of the vault. So the vault's `.gitattributes`
sends its Markdown files to `docmerge`, registered as a merge driver in the repository's local
config (`setup`), and a `git pull` typed by hand merges documents as `sync` does.

`sync` itself lets git stop at every document both sides changed (a driver that declines) and
merges those in this process, reading the three versions from git's index in one batch: the same
merge without starting Python once per file. What it cannot settle stays unmerged in git, the
file holding our value with both values under `sync_conflicts` (valid YAML, still a document);
`pending` lists those, `settle` answers one, and `sync` again commits the merge and pushes.
After a merge, the supersession links of every document it touched are checked both ways.

What holds whatever happens:

- A merge waiting in git (sync killed, a `git pull` by hand) is never committed from the work tree
  alone: each unmerged document is merged again from git's three stages, unless sync merged it
  already (it keeps a digest of each document it wrote, in the git directory) or it holds
  questions for a person. An edit made here while the merge waited is merged as ours.
- The document merge is set in `.git/info/attributes`, which outranks every `.gitattributes` a
  remote can push (`*.md merge=union` would write two `title:` keys), and checked with
  `git check-attr` before each merge.
- A path whose two sides are not both regular files (a document replaced by a symlink or a
  submodule on the other side) is a question for a person, never settled by git's renaming.
- Every document sync writes goes through the vault's writer (`ChangeWriter`): under the vault's
  lock, refused if the file changed since it was read (it is then read and merged again), with
  the journal that rolls a killed write back or forward on the next run.
- Git never runs submodule commands for sync (a hostile `.gitmodules` cannot stop a fetch).
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import socket
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..storage import crashpoint
from ..editing.docmerge import CONFLICTS_KEY, MISSING, DocMerge, body_conflicts, merge_document, resolve_body
from ..storage.lock import VaultLock
from ..vocabulary.model import ConflictError, UnsafePathError, WorkbenchError
from ..vocabulary.parse import CONFLICT_MARKER, parse_bytes, value_text
from ..storage.writer import ChangeWriter, FileChange, write_atomic
from ..editing.yamledit import apply_meta

__all__ = [
    "SyncError",
    "SyncConflict",
    "SyncReport",
    "setup",
    "is_set_up",
    "sync",
    "pending",
    "settle",
    "merge_in_progress",
    "not_syncable",
    "check_supersession",
    "DRIVER",
    "NOT_MERGED",
]

DRIVER = "workbench"
ATTRIBUTES = (
    "*.md merge=workbench",
    "/log.md merge=union",
    "/.workbench-verdicts.jsonl merge=union",
)  # the log and readers' verdicts only grow: keep both sides' lines
IGNORED = (".workbench/", ".recovery/")  # derived state and local backups stay on their machine
TYPE_FOLDERS = {
    "concept": "concepts",
    "decision": "decisions",
    "entity": "entities",
    "context": "contexts",
    "task": "tasks",
    "note": "notes",
    "index": "indexes",
}
CHOICES = ("ours", "theirs", "base")
REGULAR = ("100644", "100755")  # git's modes of a regular file; 120000 is a symlink, 160000 a submodule
RECORD = "workbench-merge.json"  # in the git directory: what sync wrote for the merge waiting there
SETTLE_TRIES = 5
# The question `pending` lists for a document git left unmerged that no sync has merged yet.
NOT_MERGED = "not merged"


class SyncError(WorkbenchError):
    """git refused or failed; the message is git's own, with the command that failed."""


@dataclass(frozen=True)
class SyncConflict:
    """One question for a person: in `path` (relative to the vault), `key` (a frontmatter key,
    dotted when nested; `body`; `file`; or a supersession link)."""

    path: str
    key: str
    reason: str
    base: Any = MISSING
    ours: Any = MISSING
    theirs: Any = MISSING

    @property
    def unmerged(self) -> bool:
        """A document git left unmerged that no sync has merged yet: not a question a side answers."""
        return self.key == NOT_MERGED

    def describe(self) -> str:
        sides = ", ".join(
            f"{side} {value_text(getattr(self, side))}"
            for side in ("ours", "theirs")
            if getattr(self, side) is not MISSING and self.key not in ("body", "file")
        )
        return f"{self.path}: {self.key}: {self.reason}" + (f" ({sides})" if sides else "")


@dataclass
class SyncReport:
    committed: str = ""  # the subject of the commit of local changes, if one was made
    merged: int = 0  # documents both sides changed, merged here
    pulled: int = 0  # files the merge changed in this vault
    pushed: bool = False
    conflicts: list[SyncConflict] = field(default_factory=list)
    supersession: list[SyncConflict] = field(
        default_factory=list
    )  # one-sided links after a merge (merged all the same)
    steps: list[str] = field(default_factory=list)  # what was done, in order, for a person to read


class _Git:
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


def _driver_command() -> str:
    return f"{shlex.quote(sys.executable)} -m workbench.core.editing.docmerge %O %A %B %P"


def _ensure_lines(path: Path, lines: tuple[str, ...], root: Path | None = None) -> bool:
    """Add the missing `lines` to the file at `path`; a file of the vault at `root` is written
    through the vault's writer, one in the git directory atomically."""
    data = _regular_at(path)
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
        _write(root, [FileChange(path.relative_to(root).as_posix(), data, after)], f"sync setup: {path.name}")
    return True


def _local_attributes(git: _Git) -> tuple[Path, tuple[str, ...]]:
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
        _Git(root)
    except SyncError as exc:
        return str(exc)
    return None


def is_set_up(root: Path) -> bool:
    git = _Git(root)
    driver = git.run("config", "--local", "--get", f"merge.{DRIVER}.driver", check=False).stdout.decode().strip()
    local, lines = _local_attributes(git)
    return (
        driver == _driver_command()
        and all(line in _lines_of(root / ".gitattributes") for line in ATTRIBUTES)
        and all(line in _lines_of(local) for line in lines)
        and not _merge_overridden(git, ["x.md"])
    )


def _merge_overridden(git: _Git, paths: list[str]) -> list[str]:
    """Each of these vault documents whose merge is not the driver's, as `git check-attr` says, with
    the merge it would get."""
    wanted = [p for p in paths if _is_document(p)]
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
    git = _Git(root)
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


def merge_in_progress(root: Path) -> bool:
    git = _Git(root)
    return git.run("rev-parse", "-q", "--verify", "MERGE_HEAD", check=False).returncode == 0


def _unmerged_modes(git: _Git) -> dict[str, dict[int, tuple[str, str]]]:
    """Unmerged paths under the vault (relative to it): (mode, blob) of each stage they have."""
    stages: dict[str, dict[int, tuple[str, str]]] = {}
    for entry in git.run("ls-files", "-u", "-z", "--", ".").stdout.split(b"\0"):
        if entry:
            info, path = entry.split(b"\t", 1)
            mode, sha, stage = info.split()
            stages.setdefault(path.decode(errors="surrogateescape"), {})[int(stage)] = (mode.decode(), sha.decode())
    return stages


def _unmerged(git: _Git) -> dict[str, dict[int, str]]:
    """Unmerged paths under the vault (relative to it) and the blob of each stage they have."""
    return {path: {n: sha for n, (_, sha) in stages.items()} for path, stages in _unmerged_modes(git).items()}


def _odd_types(entries: dict[str, dict[int, tuple[str, str]]]) -> dict[str, list[str]]:
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


def _regular_at(path: Path) -> bytes | None:
    """The bytes of the regular file at `path`; None for nothing there, a symlink or another kind."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None


def _is_document(path: str) -> bool:
    return path.endswith(".md") and path != "log.md" and not any(part.startswith(".") for part in path.split("/"))


def _conflicts_in(path: str, data: bytes | None) -> list[SyncConflict]:
    if data is None:
        return [SyncConflict(path, "file", "deleted on one side, changed on the other: keep it or delete it")]
    parsed = parse_bytes(data)
    found: list[SyncConflict] = []
    record = parsed.meta.get(CONFLICTS_KEY) if parsed.meta else None
    if isinstance(record, dict):
        for key, entry in record.items():
            if key == "body":
                continue
            entry = entry if isinstance(entry, dict) else {}
            found.append(
                SyncConflict(
                    path,
                    str(key),
                    str(entry.get("reason", "changed on both sides")),
                    entry.get("base", MISSING),
                    entry.get("ours", MISSING),
                    entry.get("theirs", MISSING),
                )
            )
    places = body_conflicts(parsed.body) if parsed.meta is not None else []
    if places:
        reason = (
            record.get("body", {}).get("reason")
            if isinstance(record, dict) and isinstance(record.get("body"), dict)
            else None
        )
        found.append(
            SyncConflict(
                path,
                "body",
                str(reason or f"{len(places)} marked places"),
                "".join(p[1] for p in places),
                "".join(p[0] for p in places),
                "".join(p[2] for p in places),
            )
        )
    elif not found and CONFLICT_MARKER.search(parsed.text):
        found.append(SyncConflict(path, "file", "git conflict markers: edit the file, then sync again"))
    return found


def _type_question(path: str, stages: dict[int, tuple[str, str]], others: list[str]) -> SyncConflict:
    kinds = {"120000": "a symbolic link", "160000": "a submodule"}
    sides = {2: "here", 3: "on the other side"}
    said = [f"{kinds[mode]} {sides[n]}" for n, (mode, _) in sorted(stages.items()) if n in sides and mode in kinds]
    if not said:
        said = ["not a regular file on one side"]
    return SyncConflict(
        path,
        "file",
        f"{' and '.join(said)}, a document on the other: keep the document (k) or delete it (d)"
        + (f"; git set one side aside as {', '.join(others)}" if others else ""),
    )


def _questions(git: _Git, root: Path) -> list[SyncConflict]:
    entries = _unmerged_modes(git)
    merge_head = _merge_head(git)
    record = _load_record(git, merge_head) if merge_head else {}
    odd = _odd_types(entries)
    aside = {p for paths in odd.values() for p in paths}
    found: list[SyncConflict] = []
    for path in sorted(entries):
        if path in odd:
            found.append(_type_question(path, entries[path], odd[path][1:]))
            continue
        if path in aside:
            continue
        data = _regular_at(root / path)
        questions = _conflicts_in(path, data)
        kept = record.get(path)
        if not questions and kept and kept.get("asks") and data is not None and _digest(data) == kept.get("digest"):
            questions = [SyncConflict(path, "file", str(reason)) for reason in kept["asks"]]
        stages = entries[path]
        if not questions and not _is_document(path) and data is not None and 2 in stages and 3 in stages:
            ours = git.blobs([stages[2][1]])[stages[2][1]]
            if data == ours and stages[2][1] != stages[3][1]:
                questions = [
                    SyncConflict(
                        path,
                        "file",
                        "changed on both sides; git kept ours: edit it, then `git add` it (theirs: "
                        f"`git show MERGE_HEAD:{path}`)",
                    )
                ]
        found += questions
    return found


def pending(root: Path) -> list[SyncConflict]:
    """What a merge in progress still asks of a person, document by document: the questions the
    merge wrote, and each document git left unmerged that no sync has merged yet (a sync killed
    before it wrote them), as `NOT_MERGED`: the next sync merges those key by key, then asks what
    it cannot settle. In the order of the paths."""
    git = _Git(root)
    if git.run("rev-parse", "-q", "--verify", "MERGE_HEAD", check=False).returncode != 0:
        return []
    return sorted(_questions(git, root) + _not_merged(git, root), key=lambda q: q.path)


def _document_stages(entries: dict[str, dict[int, tuple[str, str]]]) -> dict[str, dict[int, str]]:
    """The unmerged documents both sides hold as regular files, with the blob of each stage: the
    ones sync merges itself, key by key."""
    odd = {p for paths in _odd_types(entries).values() for p in paths}
    return {
        path: {n: sha for n, (_, sha) in found.items()}
        for path, found in entries.items()
        if path not in odd and _is_document(path) and 2 in found and 3 in found
    }


def _not_merged(git: _Git, root: Path) -> list[SyncConflict]:
    """The documents sync has yet to merge for the merge waiting: in no record of what it wrote,
    and in the folder as git left them (our side, or gone), or edited since without the merge's
    questions in them. Each is merged in memory only where the folder holds something else, to
    tell the merge written but not yet recorded (a sync killed in between) from an edit."""
    merge_head = _merge_head(git)
    if merge_head is None:
        return []
    record = _load_record(git, merge_head)
    todo = {path: shas for path, shas in _document_stages(_unmerged_modes(git)).items() if path not in record}
    if not todo:
        return []
    blobs = git.blobs(sorted({sha for shas in todo.values() for sha in shas.values()}))
    found: list[SyncConflict] = []
    for path, shas in sorted(todo.items()):
        now = _regular_at(root / path)
        if now is not None and now != blobs[shas[2]]:
            if _conflicts_in(path, now):
                continue  # questions written already (by the driver, for a `git pull` by hand): asked as such
            if now == merge_document(blobs[shas[1]] if 1 in shas else None, blobs[shas[2]], blobs[shas[3]]).data:
                continue  # merged and written; the next sync records it
        found.append(
            SyncConflict(
                path,
                NOT_MERGED,
                "changed on both sides, not merged yet: sync merges it key by key, then asks what it cannot",
            )
        )
    return found


def _set_path(meta: dict, dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    here = meta
    for part in parts[:-1]:
        here = here.setdefault(part, {}) if isinstance(here.get(part), dict) or part not in here else here[part]
    if value is MISSING:
        here.pop(parts[-1], None)
    else:
        here[parts[-1]] = value


def _writer(root: Path, lock: VaultLock) -> ChangeWriter:
    """The vault's writer, for the files sync writes: its lock, its swap check, its journal."""
    return ChangeWriter(root, root / ".workbench", lock, root / "log.md", [])


def _write(root: Path, changes: list[FileChange], summary: str, lock: VaultLock | None = None) -> None:
    """Write these changes through the vault's writer, as every other write does."""
    try:
        _writer(root, lock or VaultLock(root / ".workbench")).apply(changes, summary, [], keep_history=False)
    except ConflictError as exc:
        raise SyncError(
            f"{exc.path} changed while it was being settled; nothing was written: settle it again"
        ) from None
    except UnsafePathError as exc:
        raise SyncError(str(exc)) from None


def settle(root: Path, path: str, key: str, choice: str) -> None:
    """Answer one question of a merge in progress: `ours`, `theirs` or `base` (for the body also
    `both`; for a file `keep` or `delete`). Writes the document through the vault's writer; `sync`
    commits it."""
    target = root / path
    git = _Git(root)
    if key == NOT_MERGED:
        raise SyncError(f"{path} is not merged yet: sync merges it key by key first, then asks what it cannot")
    if key == "file":
        entries = _unmerged_modes(git)
        aside = _odd_types(entries).get(path, [path])[1:]
        if choice == "delete":
            git.run("rm", "-q", "--ignore-unmatch", "--", path, *aside)
            for other in aside:
                _remove_plain(root / other)
        elif choice == "keep":
            if _regular_at(target) is None:
                _restore_changed_side(git, root, path, entries, aside)
            for other in aside:
                git.run("rm", "-q", "--cached", "--ignore-unmatch", "--", other)
                _remove_plain(root / other)
            git.add([path])
        else:
            raise SyncError(f"{path}: a file is settled by keep or delete, not {choice}")
        return
    data = _regular_at(target)
    if data is None:
        raise SyncError(f"{path} is not a regular file in the vault; settle it as a file (keep or delete)")
    parsed = parse_bytes(data)
    if parsed.meta is None:
        raise SyncError(f"{path}: the frontmatter does not parse; edit the file by hand")
    meta = {k: (dict(v) if isinstance(v, dict) else v) for k, v in parsed.meta.items()}
    record = dict(meta.get(CONFLICTS_KEY) or {})
    body = parsed.body
    if key == "body":
        body = resolve_body(parsed.body, choice)
    else:
        entry = record.get(key)
        if not isinstance(entry, dict):
            raise SyncError(f"{path}: no question about {key} is open")
        if choice not in CHOICES:
            raise SyncError(f"{path}: {key} is settled by ours, theirs or base, not {choice}")
        _set_path(meta, key, entry.get(choice, MISSING))
    record.pop(key, None)
    if record:
        meta[CONFLICTS_KEY] = record
    else:
        meta.pop(CONFLICTS_KEY, None)
    lines = apply_meta(parsed.fm_lines, parsed.meta, meta, parsed.newline)
    _write(root, [FileChange(path, data, parsed.compose(lines, body))], f"settle {key} of {path}: {choice}")


def _remove_plain(path: Path) -> None:
    """Remove what git left at `path` (a symlink is removed itself, never followed)."""
    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            os.unlink(path)
    except FileNotFoundError:
        pass


def _restore_changed_side(
    git: _Git, root: Path, path: str, entries: dict[str, dict[int, tuple[str, str]]], aside: list[str]
) -> None:
    """Put back the document a side holds as a regular file (git keeps it in its index as ours,
    stage 2, or theirs, stage 3, while the merge is open, at the path or where it set it aside),
    for `keep` once it is gone from the folder or a symlink stands in its place."""
    sha = None
    for where in (path, *aside):
        stages = entries.get(where, {})
        for n in (2, 3):
            if n in stages and stages[n][0] in REGULAR:
                sha = stages[n][1]
                break
        if sha:
            break
    if sha is None:
        raise SyncError(f"{path}: git holds no copy of it as a document to keep; delete it, or restore it by hand")
    _remove_plain(root / path)
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    _write(root, [FileChange(path, None, git.blobs([sha])[sha])], f"keep {path}")


def _upstream(git: _Git, remote: str | None) -> tuple[str, str]:
    """(remote, branch) to sync with: the branch's upstream, else the remote given or `origin`."""
    branch = git.run("symbolic-ref", "--short", "-q", "HEAD", check=False).stdout.decode().strip()
    if not branch:
        raise SyncError("HEAD is detached: check out a branch before syncing")
    if remote is None:
        upstream = git.run("rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}", check=False)
        if upstream.returncode == 0:
            remote_name, _, remote_branch = upstream.stdout.decode().strip().partition("/")
            return remote_name, remote_branch
        remotes = git.text("remote").split()
        if not remotes:
            raise SyncError("this repository has no remote: `git remote add origin URL`, then sync again")
        remote = "origin" if "origin" in remotes else remotes[0]
    return remote, branch


def _doc_name(path: str, data: bytes | None) -> str:
    meta = parse_bytes(data).meta if data else None
    found = meta.get("id") if meta else None
    return str(found) if isinstance(found, str) and found else path


def _what_changed(old: bytes | None, new: bytes | None) -> str:
    before, after = parse_bytes(old or b""), parse_bytes(new or b"")
    if before.meta is None or after.meta is None:
        return "text"
    keys = [
        key
        for key in {**before.meta, **after.meta}
        if key != "updated_at" and repr(before.meta.get(key)) != repr(after.meta.get(key))
    ]
    if before.body != after.body:
        keys.append("body")
    return ", ".join(keys) or "updated_at"


def _commit_message(git: _Git) -> str | None:
    """A message naming each document staged and what changed in it; None when nothing is."""
    out = git.run("diff", "--cached", "--name-status", "-z", "--relative", "--no-renames").stdout.decode(
        errors="surrogateescape"
    )
    fields = [f for f in out.split("\0") if f]
    changes = list(zip(fields[::2], fields[1::2]))
    if not changes:
        return None
    wanted = [f"HEAD:./{path}" for status, path in changes if status not in ("A",) and path.endswith(".md")]
    shas = git.run("rev-parse", *wanted, check=False).stdout.decode().split() if wanted else []
    olds = dict(zip([w[7:] for w in wanted], shas)) if len(shas) == len(wanted) else {}
    blobs = git.blobs(list(olds.values()))
    lines, names = [], []
    for status, path in changes:
        current = (git.root / path).read_bytes() if status != "D" and (git.root / path).is_file() else None
        old = blobs.get(olds.get(path, ""))
        name = _doc_name(path, current or old) if path.endswith(".md") else path
        names.append(name)
        what = {"A": "new", "D": "deleted"}.get(status) or (
            _what_changed(old, current) if path.endswith(".md") else "changed"
        )
        lines.append(f"- {name}: {what}")
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    subject = f"Sync from {socket.gethostname()}: {len(names)} file{'s' if len(names) != 1 else ''} ({shown})"
    return subject + "\n\n" + "\n".join(lines) + "\n"


def _path_of(doc_id: str) -> str | None:
    parts = doc_id.split("-")
    folder = TYPE_FOLDERS.get(parts[1]) if len(parts) > 2 and parts[0] == "mem" else None
    return f"{folder}/{doc_id}.md" if folder else None


def _meta_at(root: Path, path: str, cache: dict[str, dict | None]) -> dict | None:
    if path not in cache:
        target = root / path
        cache[path] = parse_bytes(target.read_bytes()).meta if target.is_file() else None
    return cache[path]


def check_supersession(root: Path, paths: list[str]) -> list[SyncConflict]:
    """Both sides of every supersession link of these documents: A supersedes B exactly when B
    is superseded by A, and a superseded document names its successor."""
    cache: dict[str, dict | None] = {}
    found: list[SyncConflict] = []
    for path in paths:
        meta = _meta_at(root, path, cache)
        if not meta or not isinstance(meta.get("id"), str):
            continue
        doc_id = meta["id"]
        for key, back in (("supersedes", "superseded_by"), ("superseded_by", "supersedes")):
            for other in meta.get(key) or []:
                other_path = _path_of(str(other))
                other_meta = _meta_at(root, other_path, cache) if other_path else None
                if other_meta is None:
                    found.append(SyncConflict(path, key, f"names {other}, which is not in the vault after the merge"))
                elif doc_id not in (other_meta.get(back) or []):
                    found.append(SyncConflict(path, key, f"names {other}, whose {back} does not name {doc_id} back"))
        if meta.get("status") == "superseded" and not meta.get("superseded_by"):
            found.append(SyncConflict(path, "superseded_by", "superseded, but no successor is named after the merge"))
    return found


def _merge_head(git: _Git) -> str | None:
    done = git.run("rev-parse", "-q", "--verify", "MERGE_HEAD", check=False)
    return done.stdout.decode().strip() if done.returncode == 0 else None


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _load_record(git: _Git, merge_head: str) -> dict[str, dict[str, Any]]:
    """The documents sync wrote for this merge, each with the digest of what it wrote and what
    the merge could not write into it as a question (`asks`: a broken frontmatter, say)."""
    try:
        kept = json.loads((git.git_dir / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(kept, dict) or kept.get("merge_head") != merge_head or not isinstance(kept.get("written"), dict):
        return {}
    return {str(k): v for k, v in kept["written"].items() if isinstance(v, dict)}


def _save_record(git: _Git, merge_head: str, written: dict[str, dict[str, Any]]) -> None:
    write_atomic(git.git_dir / RECORD, json.dumps({"merge_head": merge_head, "written": written}).encode())


def _settle_documents(git: _Git, root: Path, report: SyncReport, lock: VaultLock) -> None:
    """Merge in this process every document git left unmerged with both sides regular files, from
    git's three stages, and write the results through the vault's writer.

    A document sync merged before for this merge (its digest is in the record) is left as it is
    now: a person may have settled it since. Otherwise what the folder holds decides: git's copy
    of our side (or nothing) takes the merge; the merge itself, already written, stays; questions
    already written (the driver's, for a `git pull` by hand) stay for a person; anything else is an
    edit made here while the merge waited, merged as our side. A file changed while the results
    are written is read and merged again."""
    merge_head = _merge_head(git)
    if merge_head is None:
        return
    stages = _document_stages(_unmerged_modes(git))
    record = _load_record(git, merge_head)
    todo = {path: shas for path, shas in stages.items() if path not in record}
    if not todo:
        return
    blobs = git.blobs(sorted({sha for shas in todo.values() for sha in shas.values()}))
    merged: dict[str, DocMerge] = {}
    for path, shas in todo.items():
        merged[path] = merge_document(blobs[shas[1]] if 1 in shas else None, blobs[shas[2]], blobs[shas[3]])
    for _attempt in range(SETTLE_TRIES):
        changes: list[FileChange] = []
        written: dict[str, dict[str, Any]] = {}
        for path, shas in sorted(todo.items()):
            now = _regular_at(root / path)
            result: DocMerge | None = merged[path]
            if now is None or now == blobs[shas[2]] or now == merged[path].data:
                pass
            elif _conflicts_in(path, now):
                result = None  # questions already in it, for a person
            else:
                result = merge_document(blobs[shas[1]] if 1 in shas else None, now, blobs[shas[3]])
            after = now if result is None else result.data
            assert after is not None
            if after != now:
                changes.append(FileChange(path, now, after))
            asks = [c.reason for c in result.conflicts if c.key == "file"] if result is not None else []
            written[path] = {"digest": _digest(after), "asks": asks}
        try:
            _writer(root, lock).apply(
                changes, f"sync: merge {len(changes)} documents changed on both sides", [], keep_history=False
            )
        except ConflictError:
            continue  # another process wrote one of them meanwhile: nothing was written; read them again
        except UnsafePathError as exc:
            raise SyncError(f"{exc}; the merge waits: settle that path by hand, then sync again") from None
        report.merged += len(todo)
        record.update(written)
        _save_record(git, merge_head, record)
        return
    raise SyncError(
        f"documents kept changing while they were merged ({SETTLE_TRIES} tries); the merge waits: sync again"
    )


def _finish_merge(git: _Git, root: Path, report: SyncReport, lock: VaultLock) -> bool:
    """Settle and commit the merge waiting in git; False (the questions in the report) when a
    person must answer first. Never commits a document from the work tree alone."""
    _settle_documents(git, root, report, lock)
    crashpoint.crash_point("sync-settled")
    waiting = _questions(git, root)
    if waiting:
        report.conflicts += waiting
        return False
    entries = _unmerged_modes(git)
    git.add(sorted(entries))
    git.run("commit", "--no-edit", "--no-verify", "-q")
    try:
        (git.git_dir / RECORD).unlink()
    except FileNotFoundError:
        pass
    return True


def _commit_local(git: _Git, report: SyncReport) -> None:
    git.run("add", "-A", "--", ".")
    message = _commit_message(git)
    if message:
        git.run("commit", "--no-verify", "-q", "-F", "-", "--", ".", data=message.encode())
        report.committed = message.splitlines()[0]
        report.steps.append(f"committed: {report.committed}")


def _names(git: _Git, *revisions: str) -> list[str]:
    return [
        p
        for p in git.text("diff", "--name-only", "--relative", "--no-renames", "-z", *revisions, "--").split("\0")
        if p
    ]


def _merge_remote(git: _Git, root: Path, ref: str, report: SyncReport, lock: VaultLock) -> bool:
    """Merge `ref`; True when the merge is complete (committed or nothing to do)."""
    before = git.text("rev-parse", "HEAD").strip()
    base = git.run("merge-base", "HEAD", ref, check=False).stdout.decode().strip()
    incoming = _names(git, base or before, ref)
    overridden = _merge_overridden(git, incoming)
    if overridden:
        raise SyncError(
            "the document merge is overridden for "
            + ", ".join(overridden[:3])
            + (f" and {len(overridden) - 3} more" if len(overridden) > 3 else "")
            + " (git check-attr): remove the line that sets it from .git/info/attributes, then sync again"
        )
    done = git.run(
        "merge", "--no-edit", "--no-verify", "-q", ref, check=False, config=(f"merge.{DRIVER}.driver=false",)
    )
    stopped = _merge_head(git) is not None
    if done.returncode != 0 and not stopped:
        said = (done.stderr or done.stdout).decode(errors="replace").strip()
        raise SyncError(f"`git merge {ref}` failed: {said}")
    if stopped:
        crashpoint.crash_point("sync-merged")
        finished = _finish_merge(git, root, report, lock)
        report.pulled = len(_names(git, before))  # the work tree against where we were: what the merge changed here
        if not finished:
            n = len(report.conflicts)
            report.steps.append(f"merged {ref}: {n} question{'s' if n != 1 else ''} for a person")
            return False
    else:
        report.pulled = len(_names(git, before))
    report.steps.append(
        f"merged {ref}"
        + (f" ({report.merged} documents changed on both sides, merged key by key)" if report.merged else "")
    )
    linked = [p for p in incoming if _is_document(p) and os.path.islink(root / p)]
    if linked:
        report.steps.append(
            f"{ref} made {len(linked)} document{'s' if len(linked) != 1 else ''} a symbolic link, which the vault "
            f"does not read: {', '.join(linked[:5])}{' and more' if len(linked) > 5 else ''}"
        )
    ours_touched = _names(git, base or before, before)
    report.supersession += check_supersession(root, sorted({p for p in incoming + ours_touched if _is_document(p)}))
    return True


def sync(root: Path, remote: str | None = None) -> SyncReport:
    """Commit the vault's changes, fetch, merge the remote branch document by document, push.
    Stops (conflicts in the report) when a person must answer; running it again resumes, and a
    merge a killed sync left waiting is merged again from git's stages, never committed as found."""
    root = Path(root)
    git = _Git(root)
    report = SyncReport()
    report.steps += setup(root)
    lock = VaultLock(root / ".workbench")
    with lock:
        _writer(root, lock).recover([])  # a write a killed sync left half done: rolled back or finished
        if _merge_head(git) is not None:
            if not _finish_merge(git, root, report, lock):
                return report
            report.steps.append("committed the merge that was waiting, each document merged from both sides")
        _commit_local(git, report)
    crashpoint.crash_point("sync-committed")
    remote_name, branch = _upstream(git, remote)
    for _attempt in range(3):
        git.run("fetch", "-q", "--no-recurse-submodules", remote_name)
        crashpoint.crash_point("sync-fetched")
        ref = f"{remote_name}/{branch}"
        if git.run("rev-parse", "-q", "--verify", f"refs/remotes/{ref}", check=False).returncode == 0:
            with lock:
                _commit_local(git, report)  # what was written here while fetching: git merges only a clean tree
                if not _merge_remote(git, root, ref, report, lock):
                    return report
            if git.text("rev-parse", "HEAD").strip() == git.text("rev-parse", ref).strip():
                report.steps.append("nothing to push")
                return report
        crashpoint.crash_point("sync-before-push")
        pushed = git.run("push", "-q", "-u", remote_name, f"HEAD:refs/heads/{branch}", check=False)
        if pushed.returncode == 0:
            report.pushed = True
            report.steps.append(f"pushed to {remote_name}/{branch}")
            return report
        said = pushed.stderr.decode(errors="replace")
        if "rejected" not in said and "fetch first" not in said:
            raise SyncError(f"`git push {remote_name}` failed: {said.strip()}")
        report.steps.append(f"{remote_name} moved on while syncing: fetching again")
    raise SyncError(f"{remote_name}/{branch} kept moving: sync again")
