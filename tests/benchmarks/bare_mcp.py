"""The MCP SDK's own share of a review page: `python -m tests.benchmarks.bare_mcp PAGE.json` serves one
tool, `memory_review`, that returns the page in PAGE.json as it is, declared with the same answer
type (`ReviewAnswer`, so the SDK validates and the client checks the same schema) and sent over the
SDK's own stdio transport, with no vault behind it. `bench_review` times it beside the workbench's
server in the same run: what is left between the two is the workbench's."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer

from workbench.agents.answers import ReviewAnswer


def main(path: str) -> None:
    page = json.loads(Path(path).read_text("utf-8"))
    server = MCPServer("bare")

    @server.tool()
    def memory_review(limit: int = 5, cursor: str | None = None) -> ReviewAnswer:
        """The page given, whatever is asked."""
        return page

    server.run("stdio")


if __name__ == "__main__":
    main(sys.argv[1])
