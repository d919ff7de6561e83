"""Long lists in a dialog listed a page at a time: tens of thousands of rows laid out at once held
the screen for seconds at 100,000 documents. The last row says how many are left and lists the
next page when chosen."""

from __future__ import annotations

from textual.content import Content
from textual.widgets.option_list import Option

__all__ = ["PAGE", "MORE", "more_option"]

PAGE = 100  # rows listed at first, and more each time the last row is chosen
MORE = "more"  # the id of the row that lists more


def more_option(left: int) -> Option:
    """The row that lists the next page, `left` rows being still unlisted."""
    said = f"{left} more not listed yet: enter lists the next {min(PAGE, left)}"
    return Option(Content.styled(said, "$text 60% italic"), id=MORE)
