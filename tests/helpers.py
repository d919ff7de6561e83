"""Helpers shared by the core and command-line tests: run the CLI as a separate process, and compare graphs."""

from __future__ import annotations

import os
import subprocess
import sys


def run_cli(*args: str, cwd=None, env: dict[str, str] | None = None, text: bool = True,
            timeout: float | None = None) -> subprocess.CompletedProcess:
    """The command line in a process of its own, as a person or a script runs it: real exit codes, real
    output. `env` adds to the inherited environment."""
    return subprocess.run([sys.executable, "-m", "workbench.cli", *args], capture_output=True, text=text, cwd=cwd,
                          env={**os.environ, **(env or {})}, timeout=timeout)


def graph_shape(graph):
    """Every node and edge with its data, sorted, so that two graphs compare equal exactly when they
    hold the same things, whatever order they were built in."""
    return (sorted((node, tuple(sorted(data.items()))) for node, data in graph.nodes(data=True)),
            sorted((s, t, k, tuple(sorted(d.items()))) for s, t, k, d in graph.edges(keys=True, data=True)))
