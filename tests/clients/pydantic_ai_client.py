"""pydantic-ai's MCP toolset driven by a scripted model (`FunctionModel`: no LLM, no network):
search, create, then what changed lately. Usage: python pydantic_ai_client.py CONFIG_JSON, as
langchain_client.py. Prints one JSON object: each tool called, and what it answered."""

import asyncio
import json
import sys

from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import ModelResponse, RetryPromptPart, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

config = json.loads(sys.argv[1])
if "stdio" in config:
    from fastmcp.client.transports import StdioTransport

    toolset = MCPToolset(StdioTransport(command=config["stdio"][0], args=config["stdio"][1:]))
else:
    toolset = MCPToolset(config["url"], headers={"Authorization": f"Bearer {config['token']}"})

PLAN = [
    ("memory_search", {"query": config["query"]}),
    ("memory_write", {**config["note"], "decision": "create"}),
    ("memory_recent", {"days": 1, "limit": 5}),
]
answers = []


def script(messages, info: AgentInfo) -> ModelResponse:
    for part in messages[-1].parts:
        if isinstance(part, ToolReturnPart):
            answers.append([part.tool_name, part.content])
        elif isinstance(part, RetryPromptPart):
            answers.append([part.tool_name, {"refused": str(part.content)}])
    if len(answers) < len(PLAN):
        return ModelResponse(parts=[ToolCallPart(*PLAN[len(answers)])])
    return ModelResponse(parts=[TextPart("done")])


async def main():
    agent = Agent(FunctionModel(script), toolsets=[toolset])
    async with agent:
        result = await agent.run("Remember this.")
    print(json.dumps({"answers": answers, "output": result.output}, default=str))


asyncio.run(main())
