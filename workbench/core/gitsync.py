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
"""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .docmerge import CONFLICTS_KEY, MISSING, body_conflicts, merge_document, resolve_body
from .lock import VaultLock
from .model import WorkbenchError
from .parse import CONFLICT_MARKER, parse_bytes, value_text
from .storage import sync_folders, write_atomic
from .yamledit import apply_meta

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
        self.env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}  # never a password prompt behind a TUI
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
    return f"{shlex.quote(sys.executable)} -m workbench.core.docmerge %O %A %B %P"


def _ensure_lines(path: Path, lines: tuple[str, ...]) -> bool:
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    have = set(text.splitlines())
    missing = [line for line in lines if line not in have]
    if not missing:
        return False
    write_atomic(path, (text + ("" if not text or text.endswith("\n") else "\n") + "\n".join(missing) + "\n").encode())
    return True


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
    attributes = root / ".gitattributes"
    have = set(attributes.read_text(encoding="utf-8").splitlines()) if attributes.exists() else set()
    return driver == _driver_command() and all(line in have for line in ATTRIBUTES)


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
    if _ensure_lines(root / ".gitattributes", ATTRIBUTES):
        done.append("the vault's .gitattributes sends its Markdown files to the driver")
    if _ensure_lines(root / ".gitignore", IGNORED):
        done.append("the vault's .gitignore keeps .workbench/ and .recovery/ on this machine")
    return done


def merge_in_progress(root: Path) -> bool:
    git = _Git(root)
    return git.run("rev-parse", "-q", "--verify", "MERGE_HEAD", check=False).returncode == 0


def _unmerged(git: _Git) -> dict[str, dict[int, str]]:
    """Unmerged paths under the vault (relative to it) and the blob of each stage they have."""
    stages: dict[str, dict[int, str]] = {}
    for entry in git.run("ls-files", "-u", "-z", "--", ".").stdout.split(b"\0"):
        if entry:
            info, path = entry.split(b"\t", 1)
            _, sha, stage = info.split()
            stages.setdefault(path.decode(errors="surrogateescape"), {})[int(stage)] = sha.decode()
    return stages


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


def pending(root: Path) -> list[SyncConflict]:
    """What a merge in progress still asks of a person, document by document."""
    git = _Git(root)
    if git.run("rev-parse", "-q", "--verify", "MERGE_HEAD", check=False).returncode != 0:
        return []
    found: list[SyncConflict] = []
    for path in sorted(_unmerged(git)):
        target = root / path
        found += _conflicts_in(path, target.read_bytes() if target.is_file() else None)
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


def settle(root: Path, path: str, key: str, choice: str) -> None:
    """Answer one question of a merge in progress: `ours`, `theirs` or `base` (for the body also
    `both`; for a file `keep` or `delete`). Writes the document; `sync` commits it."""
    target = root / path
    git = _Git(root)
    if key == "file":
        if choice == "delete":
            git.run("rm", "-q", "--ignore-unmatch", "--", path)
        elif choice == "keep":
            if not target.exists():
                _restore_changed_side(git, target, path)
            git.add([path])
        else:
            raise SyncError(f"{path}: a file is settled by keep or delete, not {choice}")
        return
    data = target.read_bytes()
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
    if target.read_bytes() != data:
        raise SyncError(f"{path} changed while it was being settled; nothing was written")
    write_atomic(target, parsed.compose(lines, body))


def _restore_changed_side(git: _Git, target: Path, path: str) -> None:
    """Put back the copy the side that changed the document holds (git keeps it in its index as
    ours, stage 2, or theirs, stage 3, while the merge is open), for `keep` once it is gone from
    the folder."""
    stages = _unmerged(git).get(path, {})
    sha = stages.get(2) or stages.get(3)
    if sha is None:
        raise SyncError(f"{path}: git holds no changed copy of it to keep; delete it, or restore it by hand")
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, git.blobs([sha])[sha])


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


def _merge_documents(git: _Git, report: SyncReport) -> None:
    """Merge in this process every document git stopped at; leave unmerged what a person must settle."""
    stages = {path: shas for path, shas in _unmerged(git).items() if _is_document(path) and 2 in shas and 3 in shas}
    blobs = git.blobs(sorted({sha for shas in stages.values() for sha in shas.values()}))
    clean: list[str] = []
    writes: list[tuple[Path, bytes]] = []
    for path, shas in sorted(stages.items()):
        result = merge_document(blobs[shas[1]] if 1 in shas else None, blobs[shas[2]], blobs[shas[3]])
        writes.append((git.root / path, result.data))
        report.merged += 1
        if result.clean:
            clean.append(path)
    # Each file is written whole and fsynced (git's index keeps all three versions until `add`, so
    # a crash here loses nothing); the fsyncs wait on the disk, not the processor, so they overlap
    # in threads, and each folder is synced once at the end.
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda item: write_atomic(item[0], item[1], sync_folder=False), writes))
    sync_folders(target for target, _ in writes)
    git.add(clean)


def _commit_local(git: _Git, report: SyncReport) -> None:
    git.run("add", "-A", "--", ".")
    merging = git.run("rev-parse", "-q", "--verify", "MERGE_HEAD", check=False).returncode == 0
    if merging:
        git.run("commit", "--no-edit", "--no-verify", "-q")
        report.steps.append("committed the merge that was waiting")
        return
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


def _merge_remote(git: _Git, root: Path, ref: str, report: SyncReport) -> bool:
    """Merge `ref`; True when the merge is complete (committed or nothing to do)."""
    before = git.text("rev-parse", "HEAD").strip()
    base = git.run("merge-base", "HEAD", ref, check=False).stdout.decode().strip()
    done = git.run(
        "merge", "--no-edit", "--no-verify", "-q", ref, check=False, config=(f"merge.{DRIVER}.driver=false",)
    )
    if done.returncode != 0 and git.run("rev-parse", "-q", "--verify", "MERGE_HEAD", check=False).returncode != 0:
        said = (done.stderr or done.stdout).decode(errors="replace").strip()
        raise SyncError(f"`git merge {ref}` failed: {said}")
    if done.returncode != 0:
        _merge_documents(git, report)
    touched = _names(git, base or before, ref)
    report.pulled = len(_names(git, before))  # the work tree against where we were: what the merge changed here
    waiting = pending(root)
    report.conflicts += waiting
    if waiting:
        report.steps.append(f"merged {ref}: {len(waiting)} question{'s' if len(waiting) != 1 else ''} for a person")
        return False
    if done.returncode != 0:
        git.add(sorted(_unmerged(git)))
        git.run("commit", "--no-edit", "--no-verify", "-q")
    report.steps.append(
        f"merged {ref}"
        + (f" ({report.merged} documents changed on both sides, merged key by key)" if report.merged else "")
    )
    ours_touched = _names(git, base or before, before)
    report.supersession += check_supersession(root, sorted({p for p in touched + ours_touched if _is_document(p)}))
    return True


def sync(root: Path, remote: str | None = None) -> SyncReport:
    """Commit the vault's changes, fetch, merge the remote branch document by document, push.
    Stops (conflicts in the report) when a person must answer; running it again resumes."""
    root = Path(root)
    git = _Git(root)
    report = SyncReport()
    report.steps += setup(root)
    lock = VaultLock(root / ".workbench")
    with lock:
        waiting = pending(root)
        if waiting:
            report.conflicts = waiting
            return report
        _commit_local(git, report)
    remote_name, branch = _upstream(git, remote)
    for _attempt in range(3):
        git.run("fetch", "-q", remote_name)
        ref = f"{remote_name}/{branch}"
        if git.run("rev-parse", "-q", "--verify", f"refs/remotes/{ref}", check=False).returncode == 0:
            with lock:
                if not _merge_remote(git, root, ref, report):
                    return report
            if git.text("rev-parse", "HEAD").strip() == git.text("rev-parse", ref).strip():
                report.steps.append("nothing to push")
                return report
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
