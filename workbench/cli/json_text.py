"""JSON as every command prints it (`print_json`), in a module of its own: an answer kept for an
unchanged vault is printed through it before the rest of the CLI and the core are imported."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

__all__ = ["json_default", "print_json"]


def json_default(value: Any) -> Any:
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return str(value)


def print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False, default=json_default))
