"""workbench: curate an AI agent's long-term memory vault by hand, without losing a byte.

The Python API is the same store the TUI and the CLI drive::

    from workbench import Vault, ConflictError
    vault = Vault.open("path/to/vault")
    doc = vault.get("mem-decision-retrieval-policy")
"""

from .core.model import (
    ConflictError,
    Document,
    Problem,
    QueryError,
    RefusedError,
    VaultError,
    WorkbenchError,
)
from .core.vault import Vault
from . import notebook as _notebook  # installs the notebook reprs of the core's objects

__all__ = ["Vault", "Document", "Problem", "QueryError", "ConflictError", "RefusedError", "VaultError", "WorkbenchError"]
__version__ = "0.1.0"
