"""The bundled sample vault, and the scratch copy the workbench works on when no vault is named.

The installed sample is never modified: the first use copies it to the user's cache folder, and
that copy is what the TUI and the CLI open (and keep, so a change made in one command is there in
the next).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

__all__ = ["sample_source", "scratch_sample"]


def sample_source() -> Path:
    """The sample vault as shipped: inside the installed package, or beside it in a source checkout."""
    packaged = Path(__file__).parent / "sample_vault"
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).parent.parent / "sample_vault"
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError("the sample vault is missing from this installation")


def scratch_sample(reset: bool = False) -> Path:
    """A writable copy of the sample vault, made on first use (or anew with `reset`)."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    target = cache / "workbench" / "sample-vault"
    if reset and target.exists():
        shutil.rmtree(target)
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        shutil.copytree(sample_source(), partial, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
        os.replace(partial, target)
    return target
