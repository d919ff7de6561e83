"""What a vault says about itself in `.workbench.yaml` at its root: its own status words, and
the pairs of documents a person said do not conflict.

Collections name lifecycle states in their own words ("Parked", "In force", "Überholt"). A person
maps each to one of the workbench's statuses there, and the file travels with the vault (git, a
copy). A vault kept in another format (ADR records) has no field of its own for "these two do not
conflict", so the queue's dismissals are kept here too (`compatible:`), where they travel alike. A
broken file is a problem `check` names, never a reason not to open the vault.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..vocabulary.files import read_file
from ..vocabulary.model import Problem, RefusedError, Severity, Status

__all__ = ["CONFIG_FILE", "VERDICT_FILE", "VaultConfig", "config_problem", "read_config", "with_compatible"]

CONFIG_FILE = ".workbench.yaml"
VERDICT_FILE = ".workbench-verdicts.jsonl"
"""Beside the settings: readers' verdicts on pairs of decisions, for the curator (`verdicts.py`)."""
MOST = 64 * 1024  # a settings file, not a document: anything larger is refused unread


class VaultConfig:
    def __init__(
        self,
        statuses: tuple[tuple[str, str], ...] = (),
        problems: tuple[Problem, ...] = (),
        compatible: frozenset[frozenset[str]] = frozenset(),
    ):
        self.statuses = statuses  # (the vault's word, lowercase; the status it means)
        self.problems = problems
        self.compatible = compatible  # pairs of ids a person said do not conflict


def read_config(root: Path) -> VaultConfig:
    path = root / CONFIG_FILE
    if not path.is_file() or path.is_symlink():
        return VaultConfig()
    try:
        raw = read_file(path, MOST + 1)
    except OSError as error:
        return _broken(f"cannot be read: {error.strerror or error}")
    return _config_of(raw)


def config_problem(raw: bytes) -> str | None:
    """What is wrong with these bytes as the settings file: a write's read-back check."""
    problems = _config_of(raw).problems
    return problems[0].message if problems else None


def _broken(message: str) -> VaultConfig:
    return VaultConfig((), (Problem(CONFIG_FILE, Severity.ERROR, "config-invalid", message),))


def _config_of(raw: bytes | None) -> VaultConfig:
    if raw is None or len(raw) > MOST:
        return _broken(f"is larger than {MOST // 1024} KiB; it holds settings, not documents")
    import yaml  # loaded only by a vault that has settings

    try:
        data = yaml.safe_load(raw.decode("utf-8"))
    except (UnicodeDecodeError, yaml.YAMLError) as error:
        return _broken(f"is not valid YAML: {str(error).splitlines()[0]}")
    if data is None:
        return VaultConfig()
    if not isinstance(data, dict) or not isinstance(data.get("statuses") or {}, dict):
        return _broken(
            "should hold `statuses:`, a mapping of this vault's status words to draft, active, deprecated, superseded or archived"
        )
    statuses, problems = [], []
    allowed = [s.value for s in Status]
    for word, status in (data.get("statuses") or {}).items():
        meaning = str(status).strip().lower()
        if meaning not in allowed:
            problems.append(
                Problem(
                    CONFIG_FILE,
                    Severity.ERROR,
                    "config-invalid",
                    f"status word {str(word)!r} maps to {status!r}, which is none of {', '.join(allowed)}",
                )
            )
            continue
        statuses.append((" ".join(str(word).lower().split()), meaning))
    pairs = data.get("compatible") or []
    compatible = set()
    for pair in pairs if isinstance(pairs, list) else [pairs]:
        if isinstance(pair, list) and len(pair) == 2 and all(isinstance(i, str) and i for i in pair):
            compatible.add(frozenset(pair))
        else:
            problems.append(
                Problem(
                    CONFIG_FILE,
                    Severity.ERROR,
                    "config-invalid",
                    f"`compatible:` holds {pair!r}; each entry is a pair of document ids, as [ADR-001, ADR-002]",
                )
            )
    # The longest first, so "last call" is read before "last".
    statuses.sort(key=lambda item: (-len(item[0]), item[0]))
    return VaultConfig(tuple(statuses), tuple(problems), frozenset(compatible))


_COMPATIBLE_KEY = re.compile(r"^compatible[ \t]*:([ \t]*\[[ \t]*\])?[ \t]*(#.*)?$")


def with_compatible(text: str, a_id: str, b_id: str) -> str:
    """The file's text with the pair [a_id, b_id] added under `compatible:`, every other line as
    it was (comments, the statuses); refused where the list is not written one entry a line."""
    entry = f"[{json.dumps(a_id)}, {json.dumps(b_id)}]"  # quoted: an id may read as a date
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    at = next((n for n, line in enumerate(lines) if re.match(r"compatible[ \t]*:", line)), None)
    if at is None:
        return "".join(lines) + f"compatible:\n  - {entry}\n"
    key = _COMPATIBLE_KEY.match(lines[at].rstrip("\r\n"))
    if key is None:
        raise RefusedError(f"{CONFIG_FILE}: `compatible:` is not a list written one pair a line; edit it by hand")
    if key.group(1):  # `compatible: []` becomes a list written one pair a line; a comment stays
        lines[at] = lines[at].replace(key.group(1), "", 1)
    end, indent = at + 1, "  "
    while end < len(lines) and (lines[end][:1] in (" ", "\t", "-", "#") or not lines[end].strip()):
        if lines[end].lstrip().startswith("- "):
            indent = lines[end][: len(lines[end]) - len(lines[end].lstrip())]
        end += 1
    while end > at + 1 and not lines[end - 1].strip():
        end -= 1  # after the list's last entry, before the blank lines that follow it
    return "".join(lines[:end] + [f"{indent}- {entry}\n"] + lines[end:])
