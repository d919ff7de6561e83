"""workbench: curate an AI agent's long-term memory vault by hand, without losing a byte.

The Python API is the same store the TUI and the CLI drive::

    from workbench import Vault, ConflictError
    vault = Vault.open("path/to/vault")
    doc = vault.get("mem-decision-retrieval-policy")

Names are loaded when first asked for (PEP 562), so `import workbench.core.vocabulary.model` costs only the
model. The notebook face is installed at once, so that whatever a cell returns draws itself, but
its module (`notebook.py`) is imported by the first drawing: the TUI and the CLI never draw one.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .core import presenting as _presenting

if TYPE_CHECKING:
    from .core import ConflictError, Document, Problem, QueryError, RefusedError, Vault, VaultError, WorkbenchError

__all__ = [
    "Vault",
    "Document",
    "Problem",
    "QueryError",
    "ConflictError",
    "RefusedError",
    "VaultError",
    "WorkbenchError",
]
__version__ = "0.1.0"


def _drawn_by_notebook(kind: str) -> Any:
    def draw(*subject: Any) -> str:
        from . import notebook  # imported by the first drawing; it installs its own renderers in these' place

        return getattr(notebook, kind)(*subject)

    return draw


_presenting.install({kind: _drawn_by_notebook(kind) for kind in _presenting.KINDS})


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'workbench' has no attribute {name!r}")
    value = getattr(importlib.import_module(".core", __name__), name)  # the public core, which loads it from its home
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
