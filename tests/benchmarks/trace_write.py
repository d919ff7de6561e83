"""How far an agent's write wanders: the modules one `memory_write(decision="merge_into:ID")` passes
through, from the MCP tool to the bytes on disk, on a copy of the sample vault.

Prints how many of the package's modules the call enters (the tool's own included), and how many
times a call goes back into a module that is still waiting lower on the call stack (a return up
the layers: the index calling the facade that called it). Run:
`python -m tests.benchmarks.trace_write [--path]` (`--path` lists each return).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from workbench import Vault
from workbench.agents.session import GateSession
from workbench.agents.tools import MemoryTools
from workbench.core.services.agentwrites import Agent

SAMPLE = Path(__file__).resolve().parents[2] / "sample_vault"
TARGET = "mem-entity-stripe"


def traced_write(tools: MemoryTools) -> tuple[list[str], list[str]]:
    """The package's modules the write enters, in order, and each call back into a module that is
    still waiting lower on the stack (a return up the layers: index → rewrite → index)."""
    entered: list[str] = []
    again: list[str] = []
    stack: list[str] = []

    def tracer(frame, event, arg):
        name = frame.f_globals.get("__name__", "")
        if not name.startswith("workbench"):
            return None
        if event == "call":
            if name not in entered:
                entered.append(name)
            elif stack and stack[-1] != name and name in stack:
                again.append(f"{stack[-1]} -> {name}")
            stack.append(name)
            return tracer
        if event == "return":
            stack.pop()
        return tracer

    sys.settrace(tracer)
    try:
        tools.write(
            "entity",
            "Stripe payout schedule",
            "Payouts arrive two business days later.",
            decision=f"merge_into:{TARGET}",
        )
    finally:
        sys.settrace(None)
    return entered, again


def main() -> None:
    root = Path(tempfile.mkdtemp()) / "vault"
    shutil.copytree(SAMPLE, root)
    vault = Vault.open(root)
    tools = MemoryTools(vault, lambda: Agent("trace", "agent-claude"), GateSession())
    tools.search("stripe payout schedule")
    tools.read(TARGET)
    entered, again = traced_write(tools)
    assert "Payouts arrive two business days later." in Vault.open(root).get(TARGET).body
    print(f"modules entered: {len(entered)}")
    print(f"returns into a module still on the stack: {len(again)}")
    print("modules: " + " ".join(m.removeprefix("workbench.") for m in entered))
    if "--path" in sys.argv:
        print("returns:\n  " + "\n  ".join(m.replace("workbench.", "") for m in again))


if __name__ == "__main__":
    main()
