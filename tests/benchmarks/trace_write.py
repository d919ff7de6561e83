"""How far an agent's write wanders: the modules one `memory_write(decision="merge_into:ID")` passes
through, from the MCP tool to the bytes on disk, on a copy of the sample vault.

Prints how many of the package's modules the call enters (the tool's own included), how many
times a call goes back into a module that is still waiting lower on the call stack (a return up
the layers: the index calling the facade that called it), and the modules entered by layer. Run:
`python -m tests.benchmarks.trace_write [--path]` (`--path` lists each return). The architecture
page gives the first two figures; `tests/test_architecture.py` holds it to them.
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


def measure(folder: Path) -> tuple[list[str], list[str]]:
    """`traced_write` on a copy of the sample made in `folder`, as an agent makes it: a search and
    a read of the target first, as the gate's session asks."""
    root = folder / "vault"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".workbench"))
    vault = Vault.open(root)
    tools = MemoryTools(vault, lambda: Agent("trace", "agent-claude"), GateSession())
    tools.search("stripe payout schedule")
    tools.read(TARGET)
    entered, again = traced_write(tools)
    assert "Payouts arrive two business days later." in Vault.open(root).get(TARGET).body
    return entered, again


def layer(module: str) -> str:
    """The layer a module is in: its folder under the core (`storage`, `records`...), the facade (`vault`
    and its parts, `vault_*`) or the index for the core's top modules, the face's package otherwise."""
    parts = module.split(".")
    if parts[1] != "core":
        return parts[1]
    return "facade" if parts[2] == "vault" or parts[2].startswith("vault_") else parts[2]


def main() -> None:
    entered, again = measure(Path(tempfile.mkdtemp()))
    print(f"modules entered: {len(entered)}")
    print(f"returns into a module still on the stack: {len(again)}")
    print("modules: " + " ".join(m.removeprefix("workbench.") for m in entered))
    layers: dict[str, int] = {}
    for module in entered:
        layers[layer(module)] = layers.get(layer(module), 0) + 1
    print("by layer: " + ", ".join(f"{name} {count}" for name, count in layers.items()))
    if "--path" in sys.argv:
        print("returns:\n  " + "\n  ".join(m.replace("workbench.", "") for m in again))


if __name__ == "__main__":
    main()
