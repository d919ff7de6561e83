"""`python -m workbench.cli`, as the `workbench` command."""

from .main import main

raise SystemExit(main())
