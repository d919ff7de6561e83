"""`check --repair`: deterministic fixes that never lose a byte (SPEC §2).

Each repaired file is first copied, byte for byte, under `.recovery/`, and the repaired document
names that copy in `repair_backup` so a person reviews it. Bodies are kept whole. What cannot be
repaired without a person's judgement (invalid UTF-8, conflict markers, a dangling target, an id
that other files may link to, a supersession cycle) is left as it is and stays in the problem list.
Valid documents with no problem are not touched.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from collections.abc import Callable, Iterable
from typing import Any

from ..storage.changes import Plan, log_line
from ..editing.edits import slugify
from ..vocabulary.files import NOT_A_REGULAR_FILE, UNREADABLE
from .maintenance import VAULT_INDEX, plan_index, plan_listing
from ..index import VaultIndex
from ..vocabulary.model import (
    ID_PATTERN,
    REQUIRED_FIELDS,
    TYPE_FOLDERS,
    Confidence,
    DocType,
    LinkType,
    Source,
    Status,
    id_list,
    member,
)
from ..vocabulary.parse import ParsedFile, as_date, load_yaml, parse_bytes
from ..storage.writer import FileChange, read_bytes
from ..editing.yamledit import KEY_LINE, EditError, apply_meta, render_frontmatter

__all__ = ["RepairReport", "plan_repair", "repair"]

UNREPAIRABLE = {
    "encoding-invalid-utf8",
    "file-too-large",
    "nul-bytes",
    "conflict-markers",
    NOT_A_REGULAR_FILE,
    UNREADABLE,
}
FOLDER_TYPES = {folder: doc_type for doc_type, folder in TYPE_FOLDERS.items()}
SOURCE_ALIASES = {"claude": "agent-claude", "codex": "agent-codex", "human": "manual", "user": "manual"}


@dataclass
class RepairReport:
    plan: Plan
    repaired: list[str] = field(default_factory=list)  # paths, after any move
    left: list[str] = field(default_factory=list)  # paths a person must look at
    why: dict[str, str] = field(default_factory=dict)  # for some of them, what the repair could not do
    index_plan: Plan | None = None  # the index's generated sections, regenerated after the repairs


@dataclass
class _Work:
    path: str
    raw: bytes
    parsed: ParsedFile
    meta: dict[str, Any]
    rebuild: bool  # the frontmatter is rebuilt from scratch rather than edited
    body: str
    notes: list[str] = field(default_factory=list)


def _salvage(lines: list[str]) -> dict[str, Any]:
    """The top-level keys that still parse one by one; the first of a duplicated key wins."""
    meta: dict[str, Any] = {}
    chunk: list[str] = []

    def flush() -> None:
        if chunk:
            value, issue = load_yaml("".join(chunk))
            if issue is None and isinstance(value, dict):
                for key, item in value.items():
                    meta.setdefault(str(key), item)
        chunk.clear()

    for line in lines:
        if KEY_LINE.match(line.rstrip("\r\n")):
            flush()
        chunk.append(line)
    flush()
    return meta


def _first_heading(body: str) -> str | None:
    match = re.search(r"^#\s+(.+?)\s*#*\s*$", body, re.MULTILINE)
    return match.group(1).strip() if match else None


def _mtime_date(index: VaultIndex, path: str) -> dt.date:
    try:
        stamp = (index.root / path).stat().st_mtime
    except OSError:
        return dt.date.today()
    return min(dt.date.fromtimestamp(stamp), dt.date.today())


def _meant_status(given: Any, has_successor: bool) -> str:
    """The status a mistyped one was meant to be (`actve`, `Active`), when one is close enough;
    else draft, which claims nothing. Superseded only with a successor named (it needs one)."""
    if isinstance(given, str) and given.strip():
        close = difflib.get_close_matches(given.strip().lower(), [s.value for s in Status], n=1, cutoff=0.75)
        if close and (close[0] != Status.SUPERSEDED or has_successor):
            return close[0]
    return Status.DRAFT.value


def _fix_fields(work: _Work, index: VaultIndex, default_project: str) -> None:
    meta, path = work.meta, work.path
    stem = PurePosixPath(path).name[:-3]
    folder = str(PurePosixPath(path).parent)
    on = _mtime_date(index, path)

    def fix(key: str, value: Any, why: str) -> None:
        meta[key] = value
        work.notes.append(why)

    if meta.get("schema_version") != "v1":
        fix("schema_version", "v1", "schema_version set to v1")
    doc_type = meta.get("type")
    id_match = ID_PATTERN.fullmatch(meta["id"]) if isinstance(meta.get("id"), str) else None
    if not member(doc_type, DocType):
        guess = (
            id_match.group(1)
            if id_match
            else FOLDER_TYPES.get(folder) or (stem_id.group(1) if (stem_id := ID_PATTERN.fullmatch(stem)) else "note")
        )
        fix("type", guess, f"type set to {guess}")
        doc_type = guess
    if not isinstance(meta.get("id"), str) or not meta.get("id"):
        stem_match = ID_PATTERN.fullmatch(stem)
        new_id = (
            stem
            if stem_match and stem_match.group(1) == doc_type
            else f"mem-{doc_type}-{slugify(stem.removeprefix(f'mem-{doc_type}-'))}"
        )
        fix("id", new_id, f"id set to {new_id}")
    if not isinstance(meta.get("title"), str) or not meta["title"].strip():
        title = _first_heading(work.body) or stem.removeprefix(f"mem-{doc_type}-").replace("-", " ").capitalize()
        fix("title", title, "title recovered")
    if not member(meta.get("status"), Status):
        meant = _meant_status(meta.get("status"), bool(meta.get("superseded_by")))
        fix("status", meant, f"status {meta.get('status')!r} set to {meant}")
    _fix_dates(meta, on, fix)
    if not isinstance(meta.get("project"), str) or not meta["project"].strip():
        fix("project", default_project, f"project set to {default_project}")
    tags = meta.get("tags")
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        fix("tags", _tags_list(tags), "tags made a list of strings")
    links = meta.get("links")
    fixed_links = _well_formed_links(links, meta["id"])
    if fixed_links != links:
        fix("links", fixed_links, "links made well-formed and unique")
    for key in ("supersedes", "superseded_by"):
        value = meta.get(key)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            fix(key, id_list(value), f"{key} made a list of ids")
    provenance = meta.get("provenance")
    new_provenance = _completed_provenance(provenance)
    if new_provenance != provenance:
        fix("provenance", new_provenance, "provenance completed")


def _fix_dates(meta: dict[str, Any], on: dt.date, fix: Callable[[str, Any, str], None]) -> None:
    """A missing or invalid date from the file's modification date, in order: created, then updated."""
    created, updated = (as_date(meta.get(k)) for k in ("created_at", "updated_at"))
    created_ok = created is not None and created <= dt.date.today()
    updated_ok = updated is not None and updated <= dt.date.today()
    if not created_ok:
        # The file's modification date, but never after a valid updated_at.
        fix(
            "created_at",
            min(on, updated) if updated is not None and updated_ok else on,
            "created_at set from the file's modification date",
        )
    created_now = as_date(meta["created_at"]) or on  # a date by now: set just above when it was not
    if not updated_ok:
        fix("updated_at", max(on, created_now), "updated_at set from the file's modification date")
    if (as_date(meta["updated_at"]) or on) < created_now:
        fix("updated_at", created_now, "updated_at raised to created_at")


def _tags_list(tags: Any) -> list[str]:
    """Tags as a list of strings: a comma-separated string split, odd items dropped."""
    if isinstance(tags, str):
        return [t.strip() for t in tags.split(",") if t.strip()]
    if isinstance(tags, list):
        return [str(t) for t in tags if t is not None and not isinstance(t, (dict, list))]
    return []


def _well_formed_links(links: Any, own_id: Any) -> list[dict[str, str]]:
    """Links as {type, target} entries: a bare target is related_to, an unknown type too, a link to
    itself or a repeated one dropped."""
    fixed: list[dict[str, str]] = []
    for item in links if isinstance(links, list) else ([] if links is None else [links]):
        if isinstance(item, str):
            item = {"type": LinkType.RELATED_TO.value, "target": item}
        if not isinstance(item, dict) or not isinstance(item.get("target"), str):
            continue
        kind = item.get("type") if member(item.get("type"), LinkType) else LinkType.RELATED_TO.value
        entry = {**item, "type": kind}
        if entry["target"] == own_id or any(e["type"] == kind and e["target"] == entry["target"] for e in fixed):
            continue
        fixed.append(entry)
    return fixed


def _completed_provenance(provenance: Any) -> dict[str, Any]:
    """A provenance with a valid source (`claude` read as `agent-claude`) and a confidence."""
    new = dict(provenance) if isinstance(provenance, dict) else {}
    source = str(new.get("source", "")).lower()
    if not member(new.get("source"), Source):
        new["source"] = SOURCE_ALIASES.get(source, Source.MANUAL.value)
    if not member(new.get("confidence"), Confidence):
        new["confidence"] = Confidence.LOW.value
    return new


def _fix_supersession(works: dict[str, _Work], on: dt.date) -> None:
    """Make both sides of every supersession agree, and statuses follow (SPEC §1 invariants)."""
    by_id = {w.meta["id"]: w for w in works.values() if isinstance(w.meta.get("id"), str)}

    def note(work: _Work, text: str) -> None:
        if text not in work.notes:
            work.notes.append(text)

    for work in sorted(by_id.values(), key=lambda w: w.path):
        meta = work.meta
        linked = [
            l["target"] for l in meta.get("links") or [] if isinstance(l, dict) and l.get("type") == LinkType.SUPERSEDES
        ]
        for target in linked:
            if target not in meta["supersedes"]:
                meta["supersedes"] = meta["supersedes"] + [target]
                note(work, f"supersedes now names {target}, as its link does")
        for target in meta["supersedes"]:
            if target not in linked:
                meta["links"] = list(meta["links"]) + [{"type": LinkType.SUPERSEDES.value, "target": target}]
                note(work, f"added the supersedes link to {target}")
    for work in sorted(by_id.values(), key=lambda w: w.path):
        for old in work.meta["supersedes"]:
            other = by_id.get(old)
            if other and work.meta["id"] not in other.meta["superseded_by"]:
                other.meta["superseded_by"] = other.meta["superseded_by"] + [work.meta["id"]]
                note(other, f"superseded_by now names {work.meta['id']}, which supersedes it")
        for new in work.meta["superseded_by"]:
            other = by_id.get(new)
            if other and work.meta["id"] not in other.meta["supersedes"]:
                other.meta["supersedes"] = other.meta["supersedes"] + [work.meta["id"]]
                other.meta["links"] = list(other.meta["links"]) + [
                    {"type": LinkType.SUPERSEDES.value, "target": work.meta["id"]}
                ]
                note(other, f"supersedes now names {work.meta['id']}, which names it as successor")
    for work in by_id.values():
        status, successors = work.meta.get("status"), work.meta["superseded_by"]
        if status == Status.SUPERSEDED and not successors:
            work.meta["status"] = Status.DEPRECATED.value
            note(work, "superseded with no successor: now deprecated")
        elif status == Status.ACTIVE and successors:
            work.meta["status"] = Status.SUPERSEDED.value
            note(work, f"active but replaced by {', '.join(successors)}: now superseded")


def _ordered(meta: dict[str, Any]) -> dict[str, Any]:
    """Required keys first in the contract's order, then whatever else the file had."""
    ordered = {key: meta[key] for key in REQUIRED_FIELDS if key in meta}
    ordered.update({k: v for k, v in meta.items() if k not in ordered})
    return ordered


def _ordered_inserts(original: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    """The file's own key order, with keys it lacked slotted where the contract puts them."""
    ordered = dict(original)
    ordered.update(meta)
    for key in [k for k in meta if k not in original]:
        del ordered[key]
    result: dict[str, Any] = {}
    missing = [k for k in REQUIRED_FIELDS if k in meta and k not in original]
    for key, value in ordered.items():
        if key in REQUIRED_FIELDS:
            for extra in missing:
                if REQUIRED_FIELDS.index(extra) < REQUIRED_FIELDS.index(key):
                    result.setdefault(extra, meta[extra])
        if key in meta:
            result[key] = value
    for key in meta:
        result.setdefault(key, meta[key])
    return result


def _backup_path(index: VaultIndex, path: str, stamp: str) -> str:
    candidate = f"{index.recovery_dir.name}/{path}.{stamp}"
    counter = 1
    while (index.root / candidate).exists():
        counter += 1
        candidate = f"{index.recovery_dir.name}/{path}.{stamp}-{counter}"
    return candidate


def plan_repair(index: VaultIndex, only: set[str] | None = None) -> RepairReport:
    """Plan every deterministic repair (or those of the files in `only`); apply the report's plan
    to carry it out."""
    if not index.flavour.native:
        return _plan_flavour_repair(index, only)
    index.refresh()
    stamp = dt.datetime.now().strftime("%Y%m%dT%H%M%S")
    problems_by_path: dict[str, set[str]] = {}
    for problem in index.problems:
        problems_by_path.setdefault(problem.path, set()).add(problem.code)
    default_project = _default_project(index)
    report = RepairReport(Plan("repair"))
    works: dict[str, _Work] = {}
    originals: dict[str, dict[str, Any]] = {}
    for record in index.records:
        if only is not None and record.path not in only:
            continue
        work = _start_work(index, record.path, problems_by_path.get(record.path, set()), report, originals)
        if work is not None:
            _fix_fields(work, index, default_project)
            works[record.path] = work
    _fix_supersession(works, dt.date.today())
    taken = {r.path for r in index.records}
    for path in sorted(works):
        if works[path].notes:
            _plan_file(index, report, works, path, originals.get(path), taken, stamp)
    report.plan.summary = f"repair {len(report.repaired)} document(s)"
    _leave_the_rest(report, problems_by_path, works)
    return report


def _default_project(index: VaultIndex) -> str:
    """The project most documents name (the first by name on a tie), for a document that names none."""
    projects = Counter(
        r.document.meta.get("project") for r in index.records if isinstance(r.document.meta.get("project"), str)
    )
    return min(projects, key=lambda p: (-projects[p], p)) if projects else "default"


def _start_work(
    index: VaultIndex, path: str, codes: set[str], report: RepairReport, originals: dict[str, dict[str, Any]]
) -> _Work | None:
    """One file read for repair, its frontmatter salvaged when it does not parse; None when it
    needs a person (listed in the report) or is gone."""
    if codes & UNREPAIRABLE:
        report.left.append(path)
        return None
    try:
        raw = read_bytes(index.root / path)
    except OSError as error:  # it became a pipe or unreadable since the walk
        report.left.append(path)
        report.why[path] = str(error)
        return None
    if raw is None:
        return None
    parsed = parse_bytes(raw)
    if not parsed.decoded:
        report.left.append(path)
        return None
    if parsed.meta is None:
        salvaged = _salvage(parsed.fm_lines) if parsed.has_frontmatter else {}
        body = parsed.body if parsed.has_frontmatter else parsed.text
        if "frontmatter-unterminated" in codes:
            body = parsed.text.split("\n", 1)[1] if "\n" in parsed.text else ""
            salvaged = {}
        return _Work(path, raw, parsed, salvaged, True, body, ["frontmatter rebuilt"])
    originals[path] = dict(parsed.meta)
    return _Work(path, raw, parsed, dict(parsed.meta), False, parsed.body)


def _plan_file(
    index: VaultIndex,
    report: RepairReport,
    works: dict[str, _Work],
    path: str,
    original: dict[str, Any] | None,
    taken: set[str],
    stamp: str,
) -> None:
    """One file's repair into the report's plan: its backup, its new bytes, its move to its folder."""
    work = works[path]
    doc_id = work.meta["id"]
    target_path = _home_folder(works, path, doc_id, work.meta["type"], taken)
    if target_path != path:
        work.notes.append(f"moved to {target_path}")
    backup = _backup_path(index, path, stamp)
    meta = _ordered(work.meta) if original is None else {**_ordered_inserts(original, work.meta)}
    meta["repair_backup"] = backup
    if original is None:
        newline = work.parsed.newline
        opening = work.parsed.opening or f"---{newline}"
        closing = work.parsed.closing or f"---{newline}"
        text = opening + "".join(render_frontmatter(_ordered(meta), newline)) + closing + work.body
        after = (("\ufeff" if work.parsed.bom else "") + text).encode("utf-8")
    else:
        try:
            lines = apply_meta(work.parsed.fm_lines, original, meta, work.parsed.newline)
        except EditError as error:
            _leave(report, path, f"its frontmatter cannot be edited safely ({error})")
            return
        after = work.parsed.compose(lines, work.body)
    if not _fits(index, report, path, target_path, work.raw, after):
        return
    report.plan.changes.append(FileChange(backup, None, work.raw))
    if target_path != path:
        report.plan.changes.append(FileChange(path, work.raw, None))
        report.plan.changes.append(FileChange(target_path, read_bytes(index.root / target_path), after))
    else:
        report.plan.changes.append(FileChange(path, work.raw, after))
    report.repaired.append(target_path)
    report.plan.log_lines.append(log_line(f"repair {doc_id}: {'; '.join(work.notes)}"))


def _home_folder(works: dict[str, _Work], path: str, doc_id: Any, doc_type: Any, taken: set[str]) -> str:
    """Where a file with a valid id belongs: its type's folder, when no other file is there and no
    other repaired file claims the id; else where it is."""
    matched = ID_PATTERN.fullmatch(doc_id) if isinstance(doc_id, str) else None
    if not matched or matched.group(1) != doc_type:
        return path
    wanted = f"{TYPE_FOLDERS[DocType(doc_type)]}/{doc_id}.md"
    if wanted == path or wanted in taken or sum(1 for w in works.values() if w.meta.get("id") == doc_id) != 1:
        return path
    taken.add(wanted)
    return wanted


def _leave_the_rest(report: RepairReport, problems_by_path: dict[str, set[str]], works: dict[str, _Work]) -> None:
    """Every file with a problem that no repair touched is left for a person (the harmless ones aside)."""
    for path, codes in sorted(problems_by_path.items()):
        if (
            path not in report.left
            and path not in works
            or (
                path in works
                and not works[path].notes
                and codes - {"credential", "link-to-superseded", "symlink-ignored", "execution-state-missing"}
            )
        ):
            if path not in report.left:
                report.left.append(path)


def _leave(report: RepairReport, path: str, why: str) -> None:
    if path not in report.left:
        report.left.append(path)
    report.why[path] = why


def _fits(index: VaultIndex, report: RepairReport, path: str, target: str, before: bytes, after: bytes) -> bool:
    """Whether one file's repair may be applied: one file that cannot be made valid must not stop
    the others. A repair that would bring a new invalidating problem (a rebuilt frontmatter whose
    id is `x`) is not made, and the file is left for a person; one that fixes what it can but
    leaves the file invalid is made, and the file is left for a person all the same."""
    change = FileChange(target, before, after)
    new = index.new_invalidity(change, before)
    if new:
        _leave(report, path, f"repairing it would leave it invalid: {new[0].message}; nothing was changed in it")
        return False
    still = sorted({p.code for p in index.new_invalidity(FileChange(target, None, after))})
    if still:
        _leave(report, target, f"repaired what could be, still {', '.join(still)}")
    return True


def _plan_flavour_repair(index: VaultIndex, only: set[str] | None) -> RepairReport:
    """Another flavour's repairs, its own way (OKF: a missing type becomes `Recovered Concept`, a
    missing timestamp the file's mtime): missing keys added, unreadable frontmatter rebuilt with
    the body kept, each file backed up first and marked with `repair_backup`."""
    index.refresh()
    stamp = dt.datetime.now().strftime("%Y%m%dT%H%M%S")
    report = RepairReport(Plan("repair"))
    codes_by_path: dict[str, set[str]] = {}
    for problem in index.problems:
        codes_by_path.setdefault(problem.path, set()).add(problem.code)
    for record in index.records:
        path = record.path
        if only is not None and path not in only or path not in codes_by_path:
            continue
        if codes_by_path[path] & UNREPAIRABLE:
            report.left.append(path)
            continue
        try:
            raw = read_bytes(index.root / path)
        except OSError as error:
            _leave(report, path, str(error))
            continue
        if raw is None:
            continue
        parsed = parse_bytes(raw)
        if not parsed.decoded:
            report.left.append(path)
            continue
        mtime = dt.datetime.fromtimestamp((index.root / path).stat().st_mtime)
        rebuild = parsed.meta is None and (parsed.has_frontmatter or "frontmatter-missing" in codes_by_path[path])
        if rebuild:
            body = (
                parsed.text.split("\n", 1)[1]
                if "frontmatter-unterminated" in codes_by_path[path] and "\n" in parsed.text
                else parsed.body
            )
            meta, notes = index.flavour.repair_fields(path, {}, body, mtime)
            notes = ["frontmatter rebuilt"] + notes
        else:
            body = parsed.body
            meta, notes = index.flavour.repair_fields(path, dict(parsed.meta or {}), body, mtime)
        if not notes:
            report.left.append(path)
            continue
        backup = _backup_path(index, path, stamp)
        meta["repair_backup"] = backup
        newline = parsed.newline
        if rebuild or not parsed.has_frontmatter or parsed.meta is None:
            head = f"---{newline}{''.join(render_frontmatter(meta, newline))}---{newline}"
            after = (("\ufeff" if parsed.bom else "") + head + body).encode("utf-8")
        else:
            try:
                after = parsed.compose(apply_meta(parsed.fm_lines, parsed.meta, meta, newline), body)
            except EditError as error:
                _leave(report, path, f"its frontmatter cannot be edited safely ({error})")
                continue
        if not _fits(index, report, path, path, raw, after):
            continue
        report.plan.changes += [FileChange(backup, None, raw), FileChange(path, raw, after)]
        report.repaired.append(path)
        report.plan.log_lines.append(log_line(f"repair {record.document.id}: {'; '.join(notes)}"))
    if index.flavour.writes_supersession:
        _complete_supersession(index, report, only, stamp)
    report.plan.summary = f"repair {len(report.repaired)} document(s)"
    return report


def _complete_supersession(index: VaultIndex, report: RepairReport, only: set[str] | None, stamp: str) -> None:
    """Where one record of a pair states that the other replaced it (or the reverse) and the
    other says nothing, write the other side too, in the format's own words (`Supersedes ADR-021`),
    as the conflicts queue's resolution does. A pair whose successor is no longer live is left for
    a person, as is a file this repair already changes for another reason."""
    docs = {doc.id: doc for doc in index.documents}
    pairs = {(old, doc.id) for doc in docs.values() for old in doc.supersedes if old in docs}
    pairs |= {(doc.id, new) for doc in docs.values() for new in doc.superseded_by if new in docs}
    for old_id, new_id in sorted(pairs):
        old, new = docs[old_id], docs[new_id]
        if new_id in old.superseded_by and old_id in new.supersedes:
            continue
        if only is not None and not {old.path, new.path} & only:
            continue
        changing = {change.path for change in report.plan.changes}
        if old.path in changing or new.path in changing or not (old.valid and new.valid):
            continue
        if new.status not in (Status.ACTIVE, Status.DRAFT, Status.SUPERSEDED):
            _leave(report, new.path, f"{new_id} is {new.status}; a successor must be live")
            continue
        flavour = index.flavour
        changes = [
            index.flavour_change(old, lambda parsed: flavour.superseded_change(parsed, old, new_id)),
            index.flavour_change(new, lambda parsed: flavour.supersedes_change(parsed, new, old_id)),
        ]
        changes = [c for c in changes if c.before != c.after]
        if not changes:
            continue
        report.plan.changes += [FileChange(_backup_path(index, c.path, stamp), None, c.before) for c in changes]
        report.plan.changes += changes
        report.left = [path for path in report.left if path not in (old.path, new.path)]  # settled now
        report.repaired += [change.path for change in changes]
        report.plan.log_lines.append(log_line(f"repair: {new_id} supersedes {old_id}, both sides stated"))


def repair(index: VaultIndex, dry_run: bool = False, paths: Iterable[str] | None = None) -> RepairReport:
    """`check --repair`: deterministic repairs (one change), then the index's generated sections
    (another), so each can be undone on its own. `paths` limits it to those files."""
    report = plan_repair(index, None if paths is None else set(paths))
    if paths is not None:
        if not dry_run and report.plan.changes:
            index.apply(report.plan)
        return report
    if dry_run:
        return report
    index.apply(report.plan)
    index.refresh()
    if index.flavour.listing is not None and (index.root / index.flavour.listing).is_file():
        report.index_plan = index.apply(plan_listing(index))
    elif VAULT_INDEX in index and index.get(VAULT_INDEX).valid:
        index.require_native("the generated index")
        report.index_plan = index.apply(plan_index(index))
    return report
