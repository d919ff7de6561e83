"""Snapshots of a body that uses every Markdown construct the viewer draws, the keyboard's cursor on
a link, in every theme at a small and a large terminal."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tui_helpers import settle

from workbench.tui.app import WorkbenchApp
from workbench.tui.widgets.body import Body
from workbench.tui.widgets.viewer import DocumentViewer

THEMES = ["workbench-dark", "workbench-light", "workbench-high-contrast"]
SIZES = [(80, 24), (160, 45)]

EVERY_CONSTRUCT = """\
# Every construct

Some *emphasis*, **strong**, ~~struck~~ and `inline code`, a [Markdown link](Other.md) and a
wiki-link to [[Other]] that names another note.

## Lists

- a bullet that is long enough to wrap onto a second line at eighty columns, hanging under itself
  - a nested bullet
- [ ] a task still open
- [x] a task done

1. first
2. second

> A quotation that is long enough to wrap onto a second line at eighty columns, the bar on each.

### Code

```python
def greet(name: str) -> str:
    return f"Hello, {name}"  # highlighted
```

---

| Column | Number | Link |
|:-------|-------:|------|
| one | 1 | [[Other]] |
| two, with a longer cell | 22 | none |

<div>an HTML block, shown as written</div>

An image: ![a diagram](diagram.png), and <kbd>inline html</kbd>.
"""


@pytest.fixture
def constructs_vault(builder) -> Path:
    for path in (
        builder.raw("Every construct.md", EVERY_CONSTRUCT),
        builder.raw("Other.md", "# Other\n\nThe other note.\n"),
    ):
        os.utime(path, (1_780_000_000, 1_780_000_000))  # a file time, the same every day (not shown as its date)
    return builder.root


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x45"])
@pytest.mark.parametrize("theme", THEMES)
def test_snapshot_every_construct(snap_compare, constructs_vault: Path, theme: str, size):
    async def open_on_a_link(pilot):
        await settle(pilot)
        pilot.app.screen.open_document("Every construct", focus="viewer")
        await settle(pilot)
        viewer = pilot.app.screen.query_one(DocumentViewer)
        viewer.scroll_to_widget(pilot.app.screen.query_one(Body), top=True, animate=False)
        await pilot.press("right_square_bracket", "right_square_bracket")  # the wiki-link
        await settle(pilot)

    assert snap_compare(WorkbenchApp(constructs_vault, theme=theme), terminal_size=size, run_before=open_on_a_link)
