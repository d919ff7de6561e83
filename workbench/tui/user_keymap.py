"""The user's own keys: `keymap.toml` in the config folder, read at start.

Each line gives a binding's id (the keys dialog, `?`, lists them) the keys it answers to instead,
as Textual's `App.set_keymap` takes them:

    "main.lifecycle" = "L"
    "main.edit" = "ctrl+e,f4"

A keymap that cannot be read, an id no binding has, or a key that another binding of the same
place already answers to is named in a warning, and that line is left out; the others apply. A
keymap never stops the workbench.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from textual.binding import Binding

from .settings import config_dir

__all__ = ["UserKeymap", "check_keymap", "keymap_path", "load_keymap", "remapped"]


def keymap_path() -> Path:
    return config_dir() / "keymap.toml"


@dataclass
class UserKeymap:
    """What a keymap file asks for ({binding id: keys}), and what was wrong with it, line by line."""

    keys: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def load_keymap(path: Path) -> UserKeymap:
    """The keymap at `path`; none (and no warning) when there is no such file."""
    loaded = UserKeymap()
    try:
        text = path.read_text("utf-8")
        import tomllib  # only when there is a keymap file: most starts have none

        data = tomllib.loads(text)
    except FileNotFoundError:
        return loaded
    except (OSError, ValueError) as exc:  # unreadable, not UTF-8 (UnicodeDecodeError), not TOML (TOMLDecodeError)
        loaded.warnings.append(f"{path}: not read ({exc}); the default keys apply")
        return loaded
    for binding_id, keys in data.items():
        if isinstance(keys, list) and all(isinstance(k, str) for k in keys):
            keys = ",".join(keys)
        if not isinstance(keys, str) or not keys.strip():
            loaded.warnings.append(f'{path.name}: "{binding_id}" needs keys as a string, such as "ctrl+e"; left out')
            continue
        loaded.keys[binding_id] = ",".join(k.strip() for k in keys.split(",") if k.strip())
    return loaded


def _keys(binding: Binding, keymap: Mapping[str, str]) -> list[str]:
    given = keymap.get(binding.id, binding.key) if binding.id else binding.key
    return [key.strip() for key in given.split(",") if key.strip()]


def check_keymap(
    keymap: Mapping[str, str], places: Sequence[tuple[str, Sequence[Binding]]]
) -> tuple[dict[str, str], list[str]]:
    """The lines of `keymap` that can apply, and a warning for each that cannot: an id no binding
    of `places` has, or a key another binding of the same place answers to (with this keymap)."""
    known = {b.id for _, bindings in places for b in bindings if b.id}
    usable = {binding_id: keys for binding_id, keys in keymap.items() if binding_id in known}
    warnings = [
        f'keymap: no key is called "{binding_id}" (the keys dialog, ?, lists their names); left out'
        for binding_id in keymap
        if binding_id not in known
    ]
    for place, bindings in places:
        owner: dict[str, Binding] = {}
        for binding in sorted(bindings, key=lambda b: b.id in usable):  # the remapped last: they are the clash
            if binding.action.startswith("explain("):
                continue  # says why a key cannot act: gives way to whatever else the key does
            for key in _keys(binding, usable):
                other = owner.get(key)
                if other is not None and other.action != binding.action and binding.id in usable:
                    warnings.append(
                        f'keymap: "{binding.id}" = "{key}" clashes with {other.id or other.action} '
                        f"({other.description}) in {place}; left out"
                    )
                    usable.pop(binding.id)
                    break
                owner.setdefault(key, binding)
    return usable, warnings


def remapped(bindings: Sequence[Binding], keymap: Mapping[str, str]) -> list[Binding]:
    """`bindings` with the keys `keymap` gives them, for listing them as they now are."""
    return [
        Binding(keymap[b.id], b.action, b.description, b.show, None, b.priority, b.tooltip, b.id, b.system)
        if b.id is not None and b.id in keymap
        else b
        for b in bindings
    ]
