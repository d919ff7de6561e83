"""What the workbench remembers between runs (today: the theme), in the user's config folder
(`$XDG_CONFIG_HOME/workbench/`, else `~/.config/workbench/`), beside the user's keymap and themes.

Tolerant both ways: a missing or damaged settings file means the defaults, and a settings file
that cannot be written costs the memory, never the session.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

__all__ = ["config_dir", "load_settings", "save_setting", "settings_path"]


def config_dir() -> Path:
    """The user's workbench folder: settings.json, keymap.toml and themes/ live here."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "workbench"


def settings_path() -> Path:
    return config_dir() / "settings.json"


def load_settings() -> dict:
    try:
        data = json.loads(settings_path().read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_setting(key: str, value: object) -> None:
    settings = load_settings()
    if settings.get(key) == value:
        return
    settings[key] = value
    path = settings_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(path.name + ".tmp")
        temp.write_text(json.dumps(settings, indent=2), "utf-8")
        os.replace(temp, path)
    except OSError:
        pass
