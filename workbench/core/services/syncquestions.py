"""What a merge leaves for a person, and their answers. A document the merge could not settle holds
our value with both values under `sync_conflicts`; `pending` lists each such key as a question
(`SyncConflict`), with every document git left unmerged that no sync has merged yet, and every
path whose sides are not both regular files; `settle` answers one, writing the document at once
through the vault's writer. After a merge, `check_supersession` names the supersession links that
are written on one side only.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..editing.docmerge import CONFLICTS_KEY, MISSING, body_conflicts, merge_document, resolve_body
from ..vocabulary.model import TYPE_FOLDERS, DocType, member
from ..vocabulary.parse import CONFLICT_MARKER, parse_bytes, value_text
from ..storage.writer import FileChange
from ..editing.yamledit import apply_meta
from .gitrepo import (
    REGULAR,
    Git,
    SyncError,
    is_document,
    load_record,
    merge_head_of,
    odd_types,
    regular_at,
    digest_of,
    unmerged_modes,
    write_changes,
)

__all__ = [
    "SyncConflict",
    "NOT_MERGED",
    "CHOICES",
    "pending",
    "settle",
    "check_supersession",
    "conflicts_in",
    "written_questions",
    "document_stages",
]

CHOICES = ("ours", "theirs", "base")
# The question `pending` lists for a document git left unmerged that no sync has merged yet.
NOT_MERGED = "not merged"


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


def conflicts_in(path: str, data: bytes | None) -> list[SyncConflict]:
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


def written_questions(git: Git, root: Path) -> list[SyncConflict]:
    entries = unmerged_modes(git)
    merge_head = merge_head_of(git)
    record = load_record(git, merge_head) if merge_head else {}
    odd = odd_types(entries)
    aside = {p for paths in odd.values() for p in paths}
    found: list[SyncConflict] = []
    for path in sorted(entries):
        if path in odd:
            found.append(_type_question(path, entries[path], odd[path][1:]))
            continue
        if path in aside:
            continue
        data = regular_at(root / path)
        questions = conflicts_in(path, data)
        kept = record.get(path)
        if not questions and kept and kept.get("asks") and data is not None and digest_of(data) == kept.get("digest"):
            questions = [SyncConflict(path, "file", str(reason)) for reason in kept["asks"]]
        stages = entries[path]
        if not questions and not is_document(path) and data is not None and 2 in stages and 3 in stages:
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
    git = Git(root)
    if git.run("rev-parse", "-q", "--verify", "MERGE_HEAD", check=False).returncode != 0:
        return []
    return sorted(written_questions(git, root) + _not_merged(git, root), key=lambda q: q.path)


def document_stages(entries: dict[str, dict[int, tuple[str, str]]]) -> dict[str, dict[int, str]]:
    """The unmerged documents both sides hold as regular files, with the blob of each stage: the
    ones sync merges itself, key by key."""
    odd = {p for paths in odd_types(entries).values() for p in paths}
    return {
        path: {n: sha for n, (_, sha) in found.items()}
        for path, found in entries.items()
        if path not in odd and is_document(path) and 2 in found and 3 in found
    }


def _not_merged(git: Git, root: Path) -> list[SyncConflict]:
    """The documents sync has yet to merge for the merge waiting: in no record of what it wrote,
    and in the folder as git left them (our side, or gone), or edited since without the merge's
    questions in them. Each is merged in memory only where the folder holds something else, to
    tell the merge written but not yet recorded (a sync killed in between) from an edit."""
    merge_head = merge_head_of(git)
    if merge_head is None:
        return []
    record = load_record(git, merge_head)
    todo = {path: shas for path, shas in document_stages(unmerged_modes(git)).items() if path not in record}
    if not todo:
        return []
    blobs = git.blobs(sorted({sha for shas in todo.values() for sha in shas.values()}))
    found: list[SyncConflict] = []
    for path, shas in sorted(todo.items()):
        now = regular_at(root / path)
        if now is not None and now != blobs[shas[2]]:
            if conflicts_in(path, now):
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


def settle(root: Path, path: str, key: str, choice: str) -> None:
    """Answer one question of a merge in progress: `ours`, `theirs` or `base` (for the body also
    `both`; for a file `keep` or `delete`). Writes the document through the vault's writer; `sync`
    commits it."""
    target = root / path
    git = Git(root)
    if key == NOT_MERGED:
        raise SyncError(f"{path} is not merged yet: sync merges it key by key first, then asks what it cannot")
    if key == "file":
        entries = unmerged_modes(git)
        aside = odd_types(entries).get(path, [path])[1:]
        if choice == "delete":
            git.run("rm", "-q", "--ignore-unmatch", "--", path, *aside)
            for other in aside:
                _remove_plain(root / other)
        elif choice == "keep":
            if regular_at(target) is None:
                _restore_changed_side(git, root, path, entries, aside)
            for other in aside:
                git.run("rm", "-q", "--cached", "--ignore-unmatch", "--", other)
                _remove_plain(root / other)
            git.add([path])
        else:
            raise SyncError(f"{path}: a file is settled by keep or delete, not {choice}")
        return
    data = regular_at(target)
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
    write_changes(root, [FileChange(path, data, parsed.compose(lines, body))], f"settle {key} of {path}: {choice}")


def _remove_plain(path: Path) -> None:
    """Remove what git left at `path` (a symlink is removed itself, never followed)."""
    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            os.unlink(path)
    except FileNotFoundError:
        pass


def _restore_changed_side(
    git: Git, root: Path, path: str, entries: dict[str, dict[int, tuple[str, str]]], aside: list[str]
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
    write_changes(root, [FileChange(path, None, git.blobs([sha])[sha])], f"keep {path}")


def _path_of(doc_id: str) -> str | None:
    parts = doc_id.split("-")
    if len(parts) < 3 or parts[0] != "mem" or not member(parts[1], DocType):
        return None
    return f"{TYPE_FOLDERS[DocType(parts[1])]}/{doc_id}.md"


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
