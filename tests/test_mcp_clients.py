"""Third-party MCP clients against a real `workbench mcp`, over stdio and over HTTP with the token:
langchain-mcp-adapters (a new server for every call) and pydantic-ai with a scripted model.

They need the 1.x MCP SDK while the workbench uses 2.x, so each runs in its own interpreter, named
by `WORKBENCH_CLIENTS_PYTHON` (e.g. a venv with `pip install langchain-mcp-adapters
'pydantic-ai-slim[mcp]'`); without it, or without the client there, these tests skip.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from mcp_client import ROOT, http_server, server_command

from workbench import Vault

CLIENTS = Path(__file__).parent / "clients"
PYTHON = os.environ.get("WORKBENCH_CLIENTS_PYTHON", "")
TOKEN = "a-token-for-the-clients-0123456789"
CONFIG = {
    "query": "invoice pdfs bundled fonts",
    "note": {
        "type": "note",
        "title": "Invoice PDFs render with the bundled fonts",
        "body": "Seen in CI.",
        "links": ["related_to:mem-entity-stripe"],
    },
    "merge": {"type": "entity", "title": "Stripe payout schedule", "body": "Payouts arrive two business days later."},
    "into": "mem-entity-stripe",
}
NOTE_ID = "mem-note-invoice-pdfs-render-with-the-bundled-fonts"


def has(module: str) -> bool:
    if not PYTHON:
        return False
    found = subprocess.run([PYTHON, "-c", f"import {module}"], capture_output=True, timeout=120)
    return found.returncode == 0


def run_client(script: str, config: dict) -> dict:
    done = subprocess.run(
        [PYTHON, str(CLIENTS / script), json.dumps(config)], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def transports(vault: Path, tmp_path: Path, transport: str):
    """The client's half of the configuration, and the server behind it while the test runs."""
    if transport == "stdio":
        return None, {"stdio": server_command(vault, "--source", "agent-claude", "--agent", "client")}
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN)
    server = http_server(vault, token_file, "--source", "agent-claude", "--agent", "client")
    return server, None


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.skipif(not has("langchain_mcp_adapters"), reason="WORKBENCH_CLIENTS_PYTHON has no langchain-mcp-adapters")
def test_langchain_stateless_tools_search_create_read_merge(sample_copy, tmp_path, transport):
    server, config = transports(sample_copy, tmp_path, transport)
    if server is None:
        said = run_client("langchain_client.py", {**CONFIG, **config})
    else:
        with server as url:
            said = run_client("langchain_client.py", {**CONFIG, "url": url, "token": TOKEN})
    assert "memory_recent" in said["tools"] and len(said["tools"]) == 6
    assert said["create"]["written"] and said["create"]["id"] == NOTE_ID
    assert said["merge"]["written"] and said["merge"]["id"] == "mem-entity-stripe"
    vault = Vault.open(sample_copy)
    assert vault.get(NOTE_ID).meta["provenance"]["agent"].startswith("client")
    assert "Payouts arrive two business days later." in vault.get("mem-entity-stripe").body


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.skipif(not has("pydantic_ai.mcp"), reason="WORKBENCH_CLIENTS_PYTHON has no pydantic-ai with MCP")
def test_pydantic_ai_scripted_model_searches_creates_and_sees_it_recent(sample_copy, tmp_path, transport):
    server, config = transports(sample_copy, tmp_path, transport)
    if server is None:
        said = run_client("pydantic_ai_client.py", {**CONFIG, **config})
    else:
        with server as url:
            said = run_client("pydantic_ai_client.py", {**CONFIG, "url": url, "token": TOKEN})
    (_, found), (_, written), (_, recent) = said["answers"]
    assert found["count"] >= 1 and written["written"] and written["id"] == NOTE_ID, said
    assert recent["changes"][0]["id"] == NOTE_ID and recent["changes"][0]["awaiting_review"]
    assert Vault.open(sample_copy).get(NOTE_ID).status == "draft"
