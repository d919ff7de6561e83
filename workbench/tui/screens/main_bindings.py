"""The main screen's keys, each with its id (for the keys dialog and a user's `keymap.toml`).

Their order is the footer's: the keys for help and quitting first, then what a person reaches for
most. A key that cannot act now is hidden, and pressed it says why (`explain`).
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

__all__ = ["MAIN_BINDINGS"]

MAIN_BINDINGS: list[BindingType] = [
    # First, so that the footer always starts with them (in the search box: F1 and ^q instead).
    Binding("question_mark", "app.show_keys", "Keys", id="main.keys", tooltip="List every key and what it does"),
    Binding("q", "app.quit", "Quit", id="main.quit", tooltip="Leave the workbench (nothing unsaved is ever pending)"),
    Binding("slash", "focus_search", "Search", id="main.search", tooltip="Put the cursor in the search box"),
    # A small terminal's first need: the pane being read, on the whole window.
    Binding(
        "m",
        "maximise",
        "Maximise",
        id="main.maximise",
        tooltip="Give the focused pane the whole window; m or escape gives the others back",
    ),
    Binding("m", "restore", "Restore", id="main.restore", tooltip="Show every pane again"),
    Binding(
        "l",
        "lifecycle",
        "Lifecycle",
        id="main.lifecycle",
        tooltip="Change the document's status (or a task's execution state)",
    ),
    Binding(
        "e",
        "edit",
        "Edit",
        id="main.edit",
        tooltip="Edit the file in $EDITOR (vi if unset), then re-read and check it",
    ),
    Binding("s", "successor", "Successor", id="main.successor", tooltip="Open the document that supersedes this one"),
    Binding(
        "n",
        "new_document",
        "New",
        id="main.new",
        tooltip="New knowledge through the write gate: merge, supersede or create",
    ),
    Binding(
        "c",
        "conflicts",
        "Conflicts",
        id="main.conflicts",
        tooltip="The conflicts queue: contradictions, duplicates, stale links",
    ),
    Binding(
        "o",
        "consolidate",
        "Consolidate",
        id="main.consolidate",
        tooltip="Fold groups of related notes into their canonical document",
    ),
    Binding(
        "p",
        "problems",
        "Problems",
        id="main.problems",
        tooltip="Every problem in the vault; open one, or repair them all",
    ),
    Binding(
        "i",
        "inbox",
        "Inbox",
        id="main.inbox",
        tooltip="What agents wrote, awaiting your review: accept, merge, supersede, archive or forget each",
    ),
    Binding("u", "undo", "Undo", id="main.undo", tooltip="Revert the newest step, named, after showing its diff"),
    Binding(
        "U",
        "redo",
        "Redo",
        key_display="U",
        show=False,
        id="main.redo",
        tooltip="Re-apply the step undone last, after showing its diff",
    ),
    Binding(
        "H",
        "undo_history",
        "History",
        key_display="H",
        show=False,
        id="main.undo_history",
        tooltip="List every step, newest first, the position marked",
    ),
    Binding(
        "S",
        "sync",
        "Sync",
        key_display="S",
        show=False,
        id="main.sync",
        tooltip="Sync with the vault's git remote; settle a merge that waits, key by key",
    ),
    Binding(
        "g",
        "focus_links",
        "Links",
        id="main.links",
        tooltip="Move to the links pane (below 100 columns, in place of the results); from it, back to the results",
    ),
    Binding(
        "backspace,alt+left",
        "back",
        "Back",
        key_display="⌫",
        id="main.back",
        tooltip="Back to the previously opened document",
    ),
    Binding(
        "shift+backspace,alt+right",
        "forward",
        "Forward",
        key_display="⇧⌫",
        show=False,
        id="main.forward",
        tooltip="Forward again after going back",
    ),
    Binding(
        "r",
        "toggle_raw",
        "Raw",
        show=False,
        id="main.raw",
        tooltip="Toggle between the rendered document and its source file",
    ),
    # The links pane's keys work from anywhere on this screen: they bring the pane into view.
    # (`system`: the keys dialog lists them once, with the pane.)
    Binding(
        "plus,equals_sign",
        "links('deeper')",
        "Deeper",
        show=False,
        system=True,
        id="main.links-deeper",
        tooltip="In the links pane: one more link away",
    ),
    Binding(
        "minus",
        "links('shallower')",
        "Shallower",
        show=False,
        system=True,
        id="main.links-shallower",
        tooltip="In the links pane: one link less far",
    ),
    Binding(
        "t",
        "links('filter')",
        "Link type",
        show=False,
        system=True,
        id="main.links-filter",
        tooltip="In the links pane: one link type only",
    ),
    Binding(
        "x",
        "links('pack')",
        "Context pack",
        show=False,
        system=True,
        id="main.links-pack",
        tooltip="In the links pane: the context pack",
    ),
    *(
        Binding(
            key,
            f"explain('{key}')",
            show=False,
            system=True,
            id=f"main.why-{key}",
            tooltip=f"Say why {key} cannot act now",
        )
        for key in ("l", "e", "r", "s")
    ),
]
