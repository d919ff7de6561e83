"""Tiered memory's own operations (its Memory Operations document), on its plain Markdown files.

`memory.md` is the HOT tier (what is used daily), `projects/{name}.md` and `domains/{name}.md`
the namespaces (WARM), `archive/` the COLD tier, `corrections.md` the log of corrections and
`index.md` the map with each file's line count. Entries are Markdown bullets; a rule is a bullet
of the form `key: value`. The operations the seed's agents perform, as changes a person can
preview and undo:

- `plan_correction`: a correction goes into `corrections.md` under today's date, counted
  (`Confirmed: pending (1/3)`); the same correction again bumps its count, and the third time it
  is promoted: a confirmed rule in `memory.md`, the log saying so;
- `plan_move`: an entry moves between tiers (to HOT `memory.md`, a namespace, or `archive/`);
- `plan_forget`: every line that says the words is removed from every tier;
- `plan_line_counts`: `index.md`'s line counts brought up to date;
- `rule_conflicts`: a project rule that contradicts a global or domain rule it inherits, unless
  the project says it overrides it, as the seed's `semicolons: yes (overrides global no-semi)`.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
from dataclasses import dataclass

from ..storage.changes import Plan, log_line
from ..index import VaultIndex
from ..vocabulary.model import Document, RefusedError
from ..storage.writer import FileChange, read_bytes

__all__ = [
    "PROMOTE_AT",
    "Rule",
    "forget",
    "plan_correction",
    "plan_forget",
    "plan_line_counts",
    "plan_move",
    "rule_conflicts",
    "rules",
]

HOT, CORRECTIONS, INDEX = "memory.md", "corrections.md", "index.md"
PROMOTE_AT = 3  # the seed's rule: the third time a correction is made, it is confirmed as a rule
CONFIRMED_SECTION = "## Confirmed Preferences"
_BULLET = re.compile(r"^\s*[-*]\s+(?:\[[^\]]*\]\s*)?(?P<text>.+?)\s*$")
_RULE = re.compile(r"^(?P<key>[A-Za-z][\w .-]{0,40}?)\s*:\s*(?P<value>.+)$")
_COUNT = re.compile(r"^Confirmed:\s*pending\s*\((?P<n>\d+)/(?P<of>\d+)\)\s*$", re.I)
_OVERRIDES = re.compile(r"\boverrides?\b", re.I)
_INHERITS = re.compile(r"^Inherits:\s*(.+)$", re.M | re.I)


@dataclass(frozen=True)
class Rule:
    """A `key: value` bullet and where it stands."""

    path: str
    line: int
    key: str
    value: str
    namespace: str  # "global", "domains/code", "projects/my-app"

    @property
    def overrides(self) -> bool:
        return bool(_OVERRIDES.search(self.value))


def _namespace(path: str) -> str | None:
    if path == HOT:
        return "global"
    if path.startswith(("projects/", "domains/")) and path.count("/") == 1:
        return path[:-3]
    return None


def _plain_value(value: str) -> str:
    """A rule's value without its remark: `yes (overrides global no-semi)` is `yes`."""
    return re.sub(r"\s*\(.*\)\s*$", "", value).strip().casefold()


def rules(documents: list[Document]) -> list[Rule]:
    """Every `key: value` bullet in the HOT tier and the namespaces."""
    found = []
    for doc in documents:
        namespace = _namespace(doc.path)
        if namespace is None:
            continue
        for number, line in enumerate(doc.body.splitlines(), start=1):
            bullet = _BULLET.match(line)
            rule = _RULE.match(bullet.group("text")) if bullet else None
            if rule:
                found.append(
                    Rule(doc.path, number, rule.group("key").strip().casefold(), rule.group("value").strip(), namespace)
                )
    return found


def _inherited(doc: Document) -> list[str]:
    names = []
    for match in _INHERITS.finditer(doc.body):
        for name in (n.strip() for n in match.group(1).split(",")):
            if name == "global":
                names.append("global")
            elif name:
                names.append(name if name.startswith(("domains/", "projects/")) else f"domains/{name}")
    return names


def rule_conflicts(documents: list[Document]) -> list[tuple[Rule, Rule]]:
    """(project rule, the global or domain rule it contradicts): same key, another value, and the
    project does not say it overrides it. A project that inherits nothing inherits global."""
    by_namespace: dict[str, dict[str, Rule]] = {}
    for rule in rules(documents):
        by_namespace.setdefault(rule.namespace, {}).setdefault(rule.key, rule)
    found = []
    for doc in documents:
        namespace = _namespace(doc.path)
        if namespace is None or not namespace.startswith("projects/"):
            continue
        for rule in by_namespace.get(namespace, {}).values():
            if rule.overrides:
                continue
            for parent in _inherited(doc) or ["global"]:
                other = by_namespace.get(parent, {}).get(rule.key)
                if other is not None and _plain_value(other.value) != _plain_value(rule.value):
                    found.append((rule, other))
    return found


# -- changes ---------------------------------------------------------------------------------------


def _text(index: VaultIndex, path: str) -> tuple[bytes | None, str]:
    raw = read_bytes(index.root / path)
    if raw is None:
        return None, ""
    try:
        return raw, raw.decode("utf-8")
    except UnicodeDecodeError:
        raise RefusedError(f"{path} is not UTF-8 text; it is left as it is") from None


def _require_tiered(index: VaultIndex) -> None:
    if index.flavour.name != "tiered":
        raise RefusedError(
            f"this is {index.flavour.a_vault}; tiers are tiered memory's (memory.md, projects/, domains/, archive/)"
        )


def _change(path: str, before: bytes | None, text: str) -> FileChange:
    return FileChange(path, before, text.encode("utf-8"))


def _entries(text: str) -> list[tuple[int, int]]:
    """(start, end) line ranges of the corrections log's entries: a bullet and its indented or
    `Key: value` lines after it."""
    lines = text.splitlines()
    found, start = [], None
    for number, line in enumerate(lines):
        if _BULLET.match(line):
            if start is not None:
                found.append((start, number))
            start = number
        elif start is not None and (not line.strip() or line.startswith("#")):
            found.append((start, number))
            start = None
    if start is not None:
        found.append((start, len(lines)))
    return found


def _same(a: str, b: str) -> bool:
    return " ".join(a.casefold().split()) == " ".join(b.casefold().split())


def plan_correction(
    index: VaultIndex, text: str, kind: str = "preference", context: str = "", moment: dt.datetime | None = None
) -> Plan:
    """Log a correction; the same one again is counted, and the third time it becomes a rule.
    The clock is read once (`moment`): the entry's day, its time and a rule's month are of one moment,
    never of both sides of midnight."""
    _require_tiered(index)
    text = " ".join(text.split())
    if not text:
        raise RefusedError("a correction needs its text")
    moment = moment or dt.datetime.now()
    before, log = _text(index, CORRECTIONS)
    log = log or "# Corrections Log\n"
    lines = log.splitlines()
    for start, end in _entries(log):
        bullet = _BULLET.match(lines[start])  # an entry begins with one
        if bullet is None or not _same(bullet.group("text"), text):
            continue
        counts = [(n, found) for n in range(start + 1, end) if (found := _COUNT.match(lines[n].strip()))]
        seen = int(counts[0][1].group("n")) if counts else 1
        now = seen + 1
        confirmed = now >= PROMOTE_AT
        mark = "Confirmed: yes (promoted to memory.md)" if confirmed else f"Confirmed: pending ({now}/{PROMOTE_AT})"
        if counts:
            lines[counts[0][0]] = mark
        else:
            lines.insert(end, mark)
        changes = [_change(CORRECTIONS, before, "\n".join(lines) + "\n")]
        summary = f"correction counted ({now}/{PROMOTE_AT}): {text}"
        if confirmed:
            changes.append(_promote(index, text, moment.date()))
            summary = f"correction confirmed as a rule: {text}"
        return Plan(summary, changes, [log_line(summary)])
    heading = f"## {moment.date().isoformat()}"
    entry = (
        [f"- [{moment.strftime('%H:%M')}] {text}", f"Type: {kind}"]
        + ([f"Context: {context}"] if context else [])
        + [f"Confirmed: pending (1/{PROMOTE_AT})"]
    )
    if heading in lines:
        at = lines.index(heading) + 1
        lines[at:at] = entry
    else:
        title = 1 if lines and lines[0].startswith("# ") else 0
        lines[title:title] = ["", heading, *entry]
    summary = f"correction logged (1/{PROMOTE_AT}): {text}"
    return Plan(summary, [_change(CORRECTIONS, before, "\n".join(lines).lstrip("\n") + "\n")], [log_line(summary)])


def _promote(index: VaultIndex, text: str, today: dt.date) -> FileChange:
    before, hot = _text(index, HOT)
    lines = (hot or "# Self-Improving Memory\n").splitlines()
    bullet = f"- {text} (confirmed {today.strftime('%Y-%m')})"
    if CONFIRMED_SECTION in lines:
        at = lines.index(CONFIRMED_SECTION) + 1
        lines[at:at] = [bullet]
    else:
        lines += ["", CONFIRMED_SECTION, bullet]
    return _change(HOT, before, "\n".join(lines) + "\n")


def _find_line(index: VaultIndex, words: str, paths: list[str]) -> list[tuple[str, int]]:
    needle = words.casefold()
    found = []
    for path in paths:
        _, text = _text(index, path)
        for number, line in enumerate(text.splitlines()):
            if _BULLET.match(line) and needle in line.casefold():
                found.append((path, number))
    return found


def _tier_files(index: VaultIndex) -> list[str]:
    return sorted(doc.path for doc in index.documents if doc.path not in (INDEX,))


def plan_move(index: VaultIndex, words: str, to: str) -> Plan:
    """Move the one entry that says `words` to `to`: `hot` (memory.md), `cold` (archive/ beside
    its file), or a namespace file (`projects/app.md`, `domains/code.md`)."""
    _require_tiered(index)
    found = [(p, n) for p, n in _find_line(index, words, _tier_files(index)) if p != CORRECTIONS]
    if not found:
        raise RefusedError(f"no entry says {words!r}")
    if len(found) > 1:
        raise RefusedError(
            f"{len(found)} entries say {words!r} ({', '.join(f'{p}:{n + 1}' for p, n in found[:5])}); say more of it"
        )
    path, number = found[0]
    target = HOT if to == "hot" else posixpath.join("archive", path) if to == "cold" else to
    if target == path:
        raise RefusedError(f"the entry is in {path} already")
    if not target.endswith(".md") or target.startswith(("/", "..")) or ".." in target.split("/"):
        raise RefusedError(f"{to!r} is not a tier: name hot, cold, or a file such as projects/app.md")
    before, text = _text(index, path)
    lines = text.splitlines()
    entry = lines.pop(number)
    target_before, target_text = _text(index, target)
    target_lines = (target_text or f"# {posixpath.basename(target)[:-3]}\n").splitlines()
    target_lines.append(entry.strip() if entry.lstrip().startswith(("-", "*")) else f"- {entry.strip()}")
    summary = f"move {path}:{number + 1} to {target}"
    changes = [
        _change(path, before, "\n".join(lines) + "\n"),
        _change(target, target_before, "\n".join(target_lines) + "\n"),
    ]
    return Plan(summary, changes, [log_line(summary)])


def plan_forget(index: VaultIndex, words: str, confirm: str) -> Plan:
    """Remove every entry that says `words` from every tier (and the corrections log), with the
    lines that belong to it there; never a file."""
    _require_tiered(index)
    if confirm != words:
        raise RefusedError(f"forget needs the words typed again exactly: --confirm {words!r}")
    if len(words.strip()) < 3:
        raise RefusedError("name at least three characters of what to forget")
    changes = []
    for path in _tier_files(index):
        before, text = _text(index, path)
        lines = text.splitlines()
        ranges = (
            _entries(text)
            if path == CORRECTIONS
            else [(n, n + 1) for n, line in enumerate(lines) if _BULLET.match(line)]
        )
        drop = {n for start, end in ranges if words.casefold() in lines[start].casefold() for n in range(start, end)}
        if drop:
            changes.append(
                _change(path, before, "\n".join(line for n, line in enumerate(lines) if n not in drop) + "\n")
            )
    if not changes:
        raise RefusedError(f"no entry says {words!r}")
    return Plan(
        f"forget what says {words!r} ({len(changes)} file(s))",
        changes,
        [log_line(f"forget: entries removed from {len(changes)} file(s)")],
    )


def forget(index: VaultIndex, words: str, confirm: str, dry_run: bool = False) -> Plan:
    """`plan_forget`, applied with no undo record, then the words scrubbed from what the vault
    keeps beside its files: the log's lines and every undo record that holds them."""
    plan = plan_forget(index, words, confirm)
    if dry_run:
        return plan
    needle = words.casefold()
    with index.lock:
        index.apply(plan, keep_history=False)
        for record in index.history_records():
            if any(
                needle in (side or b"").decode("utf-8", "replace").casefold()
                for change in record["files"]
                for side in (change.before, change.after)
            ):
                record["record_path"].unlink(missing_ok=True)
        raw = index.read_file(index.log_name)  # never through a symlink
        if raw is not None:
            lines = raw.decode("utf-8", "surrogateescape").splitlines(keepends=True)
            kept = [line for line in lines if needle not in line.casefold()]
            if len(kept) != len(lines):
                index.write_file(index.log_name, "".join(kept).encode("utf-8", "surrogateescape"))
        index.renew_store()  # the full-text index keeps a forgotten word in its pages and vocabulary
    return plan


def plan_line_counts(index: VaultIndex) -> Plan:
    """`index.md`'s `file (N lines)` entries brought up to date; other text kept."""
    _require_tiered(index)
    before, text = _text(index, INDEX)
    if before is None:
        raise RefusedError("there is no index.md to update")
    counts = {}
    for path in _tier_files(index):
        _, body = _text(index, path)
        counts[path] = body.count("\n")
    pattern = re.compile(r"(?P<name>[\w./-]+\.md)(?P<gap>[^\n(]*)\((?P<n>\d+) lines?\)")

    def swap(match: re.Match[str]) -> str:
        name = match.group("name")
        if name not in counts:
            return match.group(0)
        return f"{name}{match.group('gap')}({counts[name]} line{'s' if counts[name] != 1 else ''})"

    after = pattern.sub(swap, text)
    if after == text:
        return Plan("index.md: line counts up to date")
    return Plan(
        "update index.md line counts", [_change(INDEX, before, after)], [log_line("update index.md line counts")]
    )
