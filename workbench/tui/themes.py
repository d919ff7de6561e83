"""The workbench's colours: two built-in themes, theme files from `themes/` (the project's, then the
user's in their config folder), and every fallback.

Statuses and link types have colours of their own (`$status-active`, `$link-depends_on`, ...),
declared as theme variables the way posting declares a colour per HTTP method, so a theme can
restyle them and the stylesheet never names a raw colour. `VARIABLE_DEFAULTS` gives each variable a
value for themes that do not mention it (Textual's own themes, a partial theme file): an undefined
`$variable` would stop the app at start.

Theme files are YAML mappings of `Theme` fields (`name`, `primary`, ..., `dark`, `variables`).
They load tolerantly: a broken file is reported, the others still load.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from textual.theme import Theme, ThemeProvider

__all__ = [
    "OwnThemes",
    "BUILTIN_THEMES",
    "VARIABLE_DEFAULTS",
    "WORKBENCH_DARK",
    "WORKBENCH_LIGHT",
    "ThemeFileError",
    "ThemeFiles",
    "load_theme_files",
    "theme_folders",
    "theme_from_mapping",
]

VARIABLE_DEFAULTS: dict[str, str] = {
    "status-draft": "#d7a84a",
    "status-active": "#5fb65f",
    "status-deprecated": "#d9822b",
    "status-superseded": "#a07cc5",
    "status-archived": "#8a8a8a",
    "status-unknown": "#d75f5f",
    "link-related_to": "#8a9ba8",
    "link-depends_on": "#56a8d8",
    "link-implements": "#5fb65f",
    "link-supersedes": "#a07cc5",
    "link-derived_from": "#c792ea",
    "link-explains": "#d7a84a",
    "link-blocked_by": "#d75f5f",
    "link-dangling": "#d75f5f",
}

WORKBENCH_DARK = Theme(
    name="workbench-dark",
    primary="#5fa8d3",
    secondary="#a07cc5",
    accent="#e0a84f",
    warning="#e0a84f",
    error="#e06c6c",
    success="#6cc06c",
    foreground="#dcdfe4",
    background="#16181d",
    surface="#1e2128",
    panel="#272b33",
    dark=True,
    variables=dict(VARIABLE_DEFAULTS),
)

WORKBENCH_LIGHT = Theme(
    name="workbench-light",
    primary="#1f6fb2",
    secondary="#7a4fb0",
    accent="#b36b00",
    warning="#b36b00",
    error="#c0392b",
    success="#2e8b3d",
    foreground="#1d2027",
    background="#f6f5f1",
    surface="#ecebe6",
    panel="#dedcd4",
    dark=False,
    variables={
        "status-draft": "#9a6b00",
        "status-active": "#2e8b3d",
        "status-deprecated": "#b35900",
        "status-superseded": "#7a4fb0",
        "status-archived": "#6b6b6b",
        "status-unknown": "#c0392b",
        "link-related_to": "#56646e",
        "link-depends_on": "#1f6fb2",
        "link-implements": "#2e8b3d",
        "link-supersedes": "#7a4fb0",
        "link-derived_from": "#8e44ad",
        "link-explains": "#9a6b00",
        "link-blocked_by": "#c0392b",
        "link-dangling": "#c0392b",
    },
)

BUILTIN_THEMES: tuple[Theme, ...] = (WORKBENCH_DARK, WORKBENCH_LIGHT)

_THEME_FIELDS = {
    "name",
    "primary",
    "secondary",
    "warning",
    "error",
    "success",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
    "dark",
    "luminosity_spread",
    "text_alpha",
    "variables",
}


class ThemeFileError(ValueError):
    """A theme file that cannot become a `Theme`; the message says what to fix."""


@dataclass
class ThemeFiles:
    """What loading a folder of theme files produced: the themes, and one line per broken file."""

    themes: list[Theme] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def theme_from_mapping(data: object) -> Theme:
    """A `Theme` from a parsed theme file; `ThemeFileError` says what is wrong with it."""
    if not isinstance(data, dict):
        raise ThemeFileError("a theme file must be a mapping of theme fields")
    unknown = sorted(set(map(str, data)) - _THEME_FIELDS)
    if unknown:
        raise ThemeFileError(f"unknown field(s): {', '.join(unknown)}")
    if not isinstance(data.get("name"), str) or not isinstance(data.get("primary"), str):
        raise ThemeFileError("a theme needs a `name` and a `primary` colour")
    variables = data.get("variables") or {}
    if not isinstance(variables, dict):
        raise ThemeFileError("`variables` must be a mapping")
    theme = Theme(**{**data, "variables": {str(k): str(v) for k, v in variables.items()}})
    theme.to_color_system()  # parse every colour now, so a typo fails here and not on screen
    return theme


def load_theme_files(folders: Iterable[Path]) -> ThemeFiles:
    """Every `*.yaml` theme in `folders`, later folders overriding earlier ones by name."""
    import yaml  # read when a theme file is, not at start

    loaded = ThemeFiles()
    for folder in folders:
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.y*ml")):
            try:
                loaded.themes.append(theme_from_mapping(yaml.safe_load(path.read_text("utf-8"))))
            except Exception as exc:  # noqa: BLE001 - any broken file is reported, never fatal
                loaded.errors.append(f"theme {path.name} not loaded: {exc}")
    return loaded


def theme_folders() -> list[Path]:
    """Where theme files live: beside the installed package, or at the root of a source checkout,
    then the user's own (`themes/` in the config folder), which override them by name."""
    from .settings import config_dir

    package = Path(__file__).resolve().parent.parent
    return [package / "themes", package.parent / "themes", config_dir() / "themes"]


class OwnThemes(ThemeProvider):
    """The palette's theme list: the workbench's themes and the theme files' (`App.own_themes`),
    not Textual's own, which lack the workbench's colours."""

    @property
    def commands(self):
        own = getattr(self.app, "own_themes", None)
        return [(name, choose) for name, choose in super().commands if own is None or name in own]
