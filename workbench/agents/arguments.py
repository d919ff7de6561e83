"""Arguments an agent sent that do not fit a tool's input schema, said in plain words.

The SDK validates arguments with pydantic, whose messages (`1 validation error for
memory_searchArguments ... For further information visit https://errors.pydantic.dev/...`) are
for a Python programmer. An LLM reads ours: the argument's name, what it must be (from the same
JSON schema it was shown) and what it was. Arguments the schema does not name are refused by
name rather than ignored, so a misspelt `limt` is not silently the default. Nothing here imports
the SDK: it works on the schema and on pydantic's list of errors.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["argument_problems", "expected", "unknown_arguments"]

_GIVEN_CHARACTERS = 60


def unknown_arguments(tool: str, schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> str | None:
    """A refusal naming the arguments `schema` does not know, and those it does; None when all are known."""
    known = list(schema.get("properties", {}))
    unknown = [name for name in arguments if name not in known]
    if not unknown:
        return None
    names = ", ".join(_given(name) for name in unknown[:5]) + (
        f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
    )
    plural = "s" if len(unknown) > 1 else ""
    return f"unknown argument{plural} {names}: {tool} takes {_joined(known, 'and')}"


def argument_problems(
    tool: str, schema: Mapping[str, Any], arguments: Mapping[str, Any], errors: Sequence[Mapping[str, Any]]
) -> str:
    """One sentence per argument pydantic refused (`errors` as `ValidationError.errors()` gives them):
    what it must be, and what it was."""
    properties = schema.get("properties", {})
    required = set(schema.get("required", ()))
    said: list[str] = []
    seen: set[str] = set()
    for error in errors:
        loc = error.get("loc") or ()
        name = str(loc[0]) if loc else ""
        if name not in properties or name in seen:
            continue
        seen.add(name)
        wanted = expected(properties[name])
        if name not in arguments:
            said.append(f"argument {name} is missing: give {wanted}")
        else:
            said.append(f"argument {name}: {_given(arguments[name])} is not {wanted}")
    if not said:  # pydantic named no argument of the schema: say what the tool takes
        wanted = (
            ", ".join(f"{n} ({expected(p)})" for n, p in properties.items() if n in required) or "no required argument"
        )
        said.append(f"arguments do not fit {tool}: it needs {wanted}")
    return "; ".join(said)


def expected(schema: Mapping[str, Any]) -> str:
    """What a JSON schema accepts, in words: `a whole number from 1 to 50`, `one of propose, create, ...`."""
    if "enum" in schema:
        return "one of " + _joined([str(v) for v in schema["enum"]], "or")
    if "const" in schema:
        return repr(schema["const"])
    branches = [b for b in schema.get("anyOf") or schema.get("oneOf") or () if b.get("type") != "null"]
    if any("enum" in b for b in branches):  # a closed set and patterns beside it: one list of choices
        choices = [str(v) for b in branches for v in (b["enum"] if "enum" in b else [expected(b)])]
        return "one of " + _joined(choices, "or")
    if branches:
        return _joined(list(dict.fromkeys(expected(b) for b in branches)), "or")
    if "anyOf" in schema or "oneOf" in schema:
        return "null"
    kind = schema.get("type")
    if kind == "string":
        if "pattern" in schema and schema.get("title"):
            return str(schema["title"])
        return "text"
    if kind == "integer":
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None and high is not None:
            return f"a whole number from {low} to {high}"
        if low is not None:
            return f"a whole number, {low} or more"
        return "a whole number"
    if kind == "number":
        return "a number"
    if kind == "boolean":
        return "true or false"
    if kind == "array":
        items = schema.get("items")
        return f"a list of {_plural(expected(items))}" if items else "a list"
    if kind == "object":
        return "an object"
    return "a value of another kind"


def _plural(words: str) -> str:
    return words.replace("an object", "objects").replace("a whole number", "whole numbers")


def _given(value: Any) -> str:
    """What the agent sent, short and printable (no control characters reach the answer)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        text = repr(value[:_GIVEN_CHARACTERS])
        return text + (f" (of {len(value):,} characters)" if len(value) > _GIVEN_CHARACTERS else "")
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "an object"
    return "a value of another kind"


def _joined(words: list[str], last: str) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + f" {last} {words[-1]}"
