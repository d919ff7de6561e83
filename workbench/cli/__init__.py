"""The command line: `workbench [--vault PATH] COMMAND ...`, a thin face over the vault.

Nothing here decides anything about a vault; it parses arguments (`parser.py`), calls the core
and prints (`output.py`). The commands are grouped by what they touch: documents and the vault
(`documents.py`), curation and the undo stack (`curation.py`), agents and git (`connections.py`);
`main.py` ties them together.
"""

from .main import main, open_vault, resolve_vault_path, run

__all__ = ["main", "open_vault", "resolve_vault_path", "run"]
