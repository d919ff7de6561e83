"""The agents' face: the Kimiko memory design's tools (search, read, context, write, forget) and what
changed lately (recent) for an agent.

`workbench mcp` serves them over the Model Context Protocol (`server.py`, and `stdio.py` for a
transport that answers every line: the only modules that import the MCP SDK; `http.py` for HTTP
behind a bearer token, which loads uvicorn). `tools.py` does each
tool's work through the `Vault` facade, and `session.py` holds the workflow gate: what the agent
has searched and read lately, which is what it may change.
"""
