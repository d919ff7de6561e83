"""`python -m workbench.cli`, as the `workbench` command."""

from .main import run

run()
