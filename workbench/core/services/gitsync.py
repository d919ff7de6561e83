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

The parts are modules of their own: the git command and what git's index holds (`gitrepo`), the
repository's setup (`syncsetup`), the questions a merge leaves and their answers (`syncquestions`);
this one runs a sync. Their public names are importable from here too.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..storage import crashpoint
from ..editing.docmerge import DocMerge, merge_document
from ..storage.lock import VaultLock
from ..vocabulary.model import ConflictError, UnsafePathError
from ..vocabulary.parse import parse_bytes
from ..storage.writer import FileChange
from .gitrepo import (
    RECORD,
    Git,
    SyncError,
    digest_of,
    is_document,
    load_record,
    merge_head_of,
    merge_in_progress,
    regular_at,
    save_record,
    unmerged_modes,
    vault_writer,
)
from .syncquestions import (
    NOT_MERGED,
    SyncConflict,
    check_supersession,
    conflicts_in,
    document_stages,
    pending,
    settle,
    written_questions,
)
from .syncsetup import DRIVER, is_set_up, merge_overridden, not_syncable, setup

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

SETTLE_TRIES = 5


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


def _upstream(git: Git, remote: str | None) -> tuple[str, str]:
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


def _commit_message(git: Git) -> str | None:
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


def _settle_documents(git: Git, root: Path, report: SyncReport, lock: VaultLock) -> None:
    """Merge in this process every document git left unmerged with both sides regular files, from
    git's three stages, and write the results through the vault's writer.

    A document sync merged before for this merge (its digest is in the record) is left as it is
    now: a person may have settled it since. Otherwise what the folder holds decides: git's copy
    of our side (or nothing) takes the merge; the merge itself, already written, stays; questions
    already written (the driver's, for a `git pull` by hand) stay for a person; anything else is an
    edit made here while the merge waited, merged as our side. A file changed while the results
    are written is read and merged again."""
    merge_head = merge_head_of(git)
    if merge_head is None:
        return
    stages = document_stages(unmerged_modes(git))
    record = load_record(git, merge_head)
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
            now = regular_at(root / path)
            result: DocMerge | None = merged[path]
            if now is None or now == blobs[shas[2]] or now == merged[path].data:
                pass
            elif conflicts_in(path, now):
                result = None  # questions already in it, for a person
            else:
                result = merge_document(blobs[shas[1]] if 1 in shas else None, now, blobs[shas[3]])
            after = now if result is None else result.data
            assert after is not None
            if after != now:
                changes.append(FileChange(path, now, after))
            asks = [c.reason for c in result.conflicts if c.key == "file"] if result is not None else []
            written[path] = {"digest": digest_of(after), "asks": asks}
        try:
            vault_writer(root, lock).apply(
                changes, f"sync: merge {len(changes)} documents changed on both sides", [], keep_history=False
            )
        except ConflictError:
            continue  # another process wrote one of them meanwhile: nothing was written; read them again
        except UnsafePathError as exc:
            raise SyncError(f"{exc}; the merge waits: settle that path by hand, then sync again") from None
        report.merged += len(todo)
        record.update(written)
        save_record(git, merge_head, record)
        return
    raise SyncError(
        f"documents kept changing while they were merged ({SETTLE_TRIES} tries); the merge waits: sync again"
    )


def _finish_merge(git: Git, root: Path, report: SyncReport, lock: VaultLock) -> bool:
    """Settle and commit the merge waiting in git; False (the questions in the report) when a
    person must answer first. Never commits a document from the work tree alone."""
    _settle_documents(git, root, report, lock)
    crashpoint.crash_point("sync-settled")
    waiting = written_questions(git, root)
    if waiting:
        report.conflicts += waiting
        return False
    entries = unmerged_modes(git)
    git.add(sorted(entries))
    git.run("commit", "--no-edit", "--no-verify", "-q")
    try:
        (git.git_dir / RECORD).unlink()
    except FileNotFoundError:
        pass
    return True


def _commit_local(git: Git, report: SyncReport) -> None:
    git.run("add", "-A", "--", ".")
    message = _commit_message(git)
    if message:
        git.run("commit", "--no-verify", "-q", "-F", "-", "--", ".", data=message.encode())
        report.committed = message.splitlines()[0]
        report.steps.append(f"committed: {report.committed}")


def _names(git: Git, *revisions: str) -> list[str]:
    return [
        p
        for p in git.text("diff", "--name-only", "--relative", "--no-renames", "-z", *revisions, "--").split("\0")
        if p
    ]


def _merge_remote(git: Git, root: Path, ref: str, report: SyncReport, lock: VaultLock) -> bool:
    """Merge `ref`; True when the merge is complete (committed or nothing to do)."""
    before = git.text("rev-parse", "HEAD").strip()
    base = git.run("merge-base", "HEAD", ref, check=False).stdout.decode().strip()
    incoming = _names(git, base or before, ref)
    overridden = merge_overridden(git, incoming)
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
    stopped = merge_head_of(git) is not None
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
    linked = [p for p in incoming if is_document(p) and os.path.islink(root / p)]
    if linked:
        report.steps.append(
            f"{ref} made {len(linked)} document{'s' if len(linked) != 1 else ''} a symbolic link, which the vault "
            f"does not read: {', '.join(linked[:5])}{' and more' if len(linked) > 5 else ''}"
        )
    ours_touched = _names(git, base or before, before)
    report.supersession += check_supersession(root, sorted({p for p in incoming + ours_touched if is_document(p)}))
    return True


def sync(root: Path, remote: str | None = None) -> SyncReport:
    """Commit the vault's changes, fetch, merge the remote branch document by document, push.
    Stops (conflicts in the report) when a person must answer; running it again resumes, and a
    merge a killed sync left waiting is merged again from git's stages, never committed as found."""
    root = Path(root)
    git = Git(root)
    report = SyncReport()
    report.steps += setup(root)
    lock = VaultLock(root / ".workbench")
    with lock:
        vault_writer(root, lock).recover([])  # a write a killed sync left half done: rolled back or finished
        if merge_head_of(git) is not None:
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
