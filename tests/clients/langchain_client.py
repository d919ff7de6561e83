"""langchain-mcp-adapters' default tools (a new session, so a new stdio server, for every call):
search, create, then search, read and merge. Usage: python langchain_client.py CONFIG_JSON, where
the JSON is {"stdio": [command, ...]} or {"url": URL, "token": TOKEN}. Prints one JSON object."""

import asyncio
import json
import sys

from langchain_mcp_adapters.client import MultiServerMCPClient

config = json.loads(sys.argv[1])
if "stdio" in config:
    server = {"transport": "stdio", "command": config["stdio"][0], "args": config["stdio"][1:]}
else:
    server = {
        "transport": "streamable_http",
        "url": config["url"],
        "headers": {"Authorization": f"Bearer {config['token']}"},
    }


def text(result):
    """A tool's answer as langchain hands it over: a list of content blocks, or a string."""
    if isinstance(result, list):
        result = "".join(block.get("text", "") if isinstance(block, dict) else str(block) for block in result)
    return str(result)


async def main():
    tools = {tool.name: tool for tool in await MultiServerMCPClient({"memory": server}).get_tools()}
    said = {"tools": sorted(tools)}
    note = {**config["note"], "decision": "create"}
    await tools["memory_search"].ainvoke({"query": config["query"]})
    said["create"] = json.loads(text(await tools["memory_write"].ainvoke(note)))
    await tools["memory_search"].ainvoke({"query": config["merge"]["title"]})
    await tools["memory_read"].ainvoke({"ids": config["into"]})
    merge = {**config["merge"], "decision": f"merge_into:{config['into']}"}
    said["merge"] = json.loads(text(await tools["memory_write"].ainvoke(merge)))
    print(json.dumps(said))


asyncio.run(main())
