"""What a vault says about itself in `.workbench.yaml` at its root: today, its own status words.

Collections name lifecycle states in their own words ("Parked", "In force", "Überholt"). A person
maps each to one of the workbench's statuses there, and the file travels with the vault (git, a
copy). A broken file is a problem `check` names, never a reason not to open the vault.
"""

from __future__ import annotations

from pathlib import Path

from .files import read_file
from .model import Problem, Severity, Status

__all__ = ["CONFIG_FILE", "VaultConfig", "read_config"]

CONFIG_FILE = ".workbench.yaml"
MOST = 64 * 1024  # a settings file, not a document: anything larger is refused unread


class VaultConfig:
    def __init__(self, statuses: tuple[tuple[str, str], ...] = (), problems: tuple[Problem, ...] = ()):
        self.statuses = statuses  # (the vault's word, lowercase; the status it means)
        self.problems = problems


def read_config(root: Path) -> VaultConfig:
    path = root / CONFIG_FILE
    if not path.is_file() or path.is_symlink():
        return VaultConfig()

    def problem(message: str) -> VaultConfig:
        return VaultConfig((), (Problem(CONFIG_FILE, Severity.ERROR, "config-invalid", message),))

    try:
        raw = read_file(path, MOST + 1)
    except OSError as error:
        return problem(f"cannot be read: {error.strerror or error}")
    if raw is None or len(raw) > MOST:
        return problem(f"is larger than {MOST // 1024} KiB; it holds settings, not documents")
    import yaml  # loaded only by a vault that has settings

    try:
        data = yaml.safe_load(raw.decode("utf-8"))
    except (UnicodeDecodeError, yaml.YAMLError) as error:
        return problem(f"is not valid YAML: {str(error).splitlines()[0]}")
    if data is None:
        return VaultConfig()
    if not isinstance(data, dict) or not isinstance(data.get("statuses", {}), dict):
        return problem(
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
    # The longest first, so "last call" is read before "last".
    return VaultConfig(tuple(sorted(statuses, key=lambda item: (-len(item[0]), item[0]))), tuple(problems))
