"""The one serialiser of an answer: what an agent reads, and what a read's size limit is measured in.

The server sends `answer_text(answer)` as each answer's text block, and `tools.py` measures a read
against the same function, so the 45,000-character limit holds for what the agent receives: JSON's
indentation and escapes included (every newline, quote or backslash in a body takes two
characters). Plain `json`, so the tools can measure without loading the MCP SDK or pydantic.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["answer_text", "text_length"]


def answer_text(answer: Any) -> str:
    """The text an agent reads for a JSON-ready answer: indented JSON, non-ASCII left as it is."""
    return json.dumps(answer, ensure_ascii=False, indent=2)


def text_length(text: str) -> int:
    """How many characters `text` takes inside `answer_text`: its escapes counted, its quotes not."""
    return len(json.dumps(text, ensure_ascii=False)) - 2
