"""`workbench mcp`: the memory tools over the Model Context Protocol, on stdio or HTTP (`http.py`).

Built on the official MCP Python SDK (`MCPServer`): the SDK speaks the protocol, derives each
tool's input schema from its signature, validates arguments, and turns what a tool returns into
structured content. This module only declares the eight tools and says who the client is; their
work is `tools.py`'s. It is imported only when `workbench mcp` runs, so nothing else loads the SDK.

The agent's name comes from the client's own `initialize` (its `clientInfo.name`); the contract's
source (`agent-claude`, `agent-codex`) from that name, or from `--source` when it says neither.
"""

import contextlib
import gc
import inspect
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from contextvars import ContextVar
from importlib import metadata
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from ..core import Agent, RefusedError, Vault, WorkbenchError
from .answers import (
    ContextAnswer,
    ForgetAnswer,
    JudgeAnswer,
    ReadAnswer,
    RecentAnswer,
    ReviewAnswer,
    SearchAnswer,
    WriteAnswer,
)
from .arguments import argument_problems, unknown_arguments
from .http import serve_http
from .session import GateSession
from .stdio import checked_stdio
from .text import answer_text
from .tools import CANDIDATES, READ_CHARACTERS, READ_DOCUMENTS, RECENT_DAYS, REVIEW_LIMIT, SEARCH_LIMIT, MemoryTools

__all__ = ["INSTRUCTIONS", "build_server", "serve", "source_for"]

INSTRUCTIONS = f"""\
Long-term memory: a vault of Markdown documents (entities, tasks, decisions, contexts, concepts, \
indexes, notes) linked by typed links. Before you work, call memory_context(question) or \
memory_search(query) (memory_recent: what changed lately); search returns metadata only, memory_read returns bodies (at most \
{READ_DOCUMENTS} documents and {READ_CHARACTERS:,} characters a call). Writing goes through a \
gate: call memory_write with decision="propose" first; it ranks the canonical documents the \
knowledge may belong in. Then merge_into:ID or supersede:ID (a decision) after reading that \
document with memory_read, or create (with at least one link). Everything you write is a draft \
or a proposal a person reviews. To help curate: memory_review lists pairs of decisions that may \
replace one another, with excerpts; judge each with memory_judge (a verdict a person confirms; \
nothing is written). You may change or ask to forget only what you found by a search \
and read to its end, in the last 30 minutes. memory_forget asks a person; nothing is deleted. Never store \
credentials, tokens or transient chat."""

DocTypeName = Literal["concept", "decision", "entity", "context", "task", "note", "index"]
Decision = (
    Literal["propose", "create"]
    | Annotated[str, Field(pattern=r"^merge_into:\S", title="merge_into:ID")]
    | Annotated[str, Field(pattern=r"^supersede:\S", title="supersede:ID")]
)
"""What memory_write does, as its schema shows it: two words, or a verb and the id it acts on."""


def _version() -> str:
    try:
        return metadata.version("workbench")
    except metadata.PackageNotFoundError:  # run from a source tree
        return ""


def source_for(client_name: str) -> str | None:
    """The contract's source for a client that names itself: Claude's or Codex's, else unknown."""
    name = client_name.lower()
    if "claude" in name:
        return "agent-claude"
    if "codex" in name or "openai" in name:
        return "agent-codex"
    return None


class _Client:
    """Who is calling: the agent's name from `--agent`, else as the client said in `initialize`.
    One client per stdio process, but over HTTP several at once: the name is the current call's
    (a context variable, copied into the thread that runs the tool), never the last caller's."""

    def __init__(self, source: str | None, agent: str | None = None) -> None:
        self.source = source
        self.configured = (agent or "").strip()
        self._name: ContextVar[str] = ContextVar("client_name", default="")

    @property
    def name(self) -> str:
        return self._name.get()

    def key(self) -> str:
        """Whose evidence the gate keeps: the same agent in its next process finds its searches."""
        return self.configured or self.name or "unknown-agent"

    def remember(self, ctx: Context) -> None:
        params = ctx.session.client_params
        if params is not None and params.client_info is not None and params.client_info.name:
            self._name.set(params.client_info.name)

    def display_name(self) -> str:
        """The agent's name as provenance and the inbox show it, whatever its source."""
        if self.configured and self.name and self.name != self.configured:
            return f"{self.configured} ({self.name})"
        return self.key()

    def agent(self) -> Agent:
        source = self.source or source_for(self.name) or source_for(self.configured)
        if source is None:
            raise RefusedError(
                f"this server does not know whose writes these are: the client calls itself {self.name or 'nothing'!r}, "
                "which names neither Claude nor Codex; the person running it adds --source agent-claude or --source "
                "agent-codex to `workbench mcp` in the client's configuration"
            )
        if self.configured and self.name and self.name != self.configured:
            return Agent(f"{self.configured} ({self.name})", source)
        return Agent(self.key(), source)


def _run(call):
    """A tool's work; a refusal or a bad query becomes an error result in its own words."""
    try:
        return call()
    except WorkbenchError as exc:
        raise ToolError(str(exc)) from exc


class _Server(MCPServer):
    """The SDK's server, on a stdio transport that answers every line (`stdio.py`), refusing
    unknown arguments by name and wrong ones in plain words (`arguments.py`), each answer's text
    rendered by `answer_text`, the serialiser a read's size limit is measured with."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        with self.serving() if self.serving is not None else contextlib.nullcontext():
            result = await self._checked_call(name, arguments, context)
        if isinstance(result, CallToolResult) and result.structured_content is not None and not result.is_error:
            return result.model_copy(
                update={"content": [TextContent(type="text", text=answer_text(result.structured_content))]}
            )
        return result

    async def _checked_call(self, name: str, arguments: dict[str, Any], context: Any) -> Any:
        tool = self._tool_manager.get_tool(name)
        if tool is None:
            return await super().call_tool(name, arguments, context)
        unknown = unknown_arguments(name, tool.parameters, arguments)
        if unknown:
            raise ToolError(f"Error executing tool {name}: {unknown}")
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if not isinstance(exc.__cause__, ValidationError):
                raise
            problems = argument_problems(name, tool.parameters, arguments, exc.__cause__.errors())
            raise ToolError(f"Error executing tool {name}: {problems}") from exc.__cause__

    answered: Callable[[], None] | None = None  # told each time an answer has gone out (`MemoryTools.answered`)
    serving: Callable[[], AbstractContextManager[None]] | None = None  # around each call (`MemoryTools.serving`)

    async def run_stdio_async(self) -> None:
        async with checked_stdio(self.answered) as (read_stream, write_stream):
            await self._lowlevel_server.run(
                read_stream, write_stream, self._lowlevel_server.create_initialization_options()
            )


def _tool(server: MCPServer, annotations: ToolAnnotations):
    """`server.tool`, its description the docstring without the source's indentation (an LLM reads it)."""

    def register(function):
        return server.tool(description=inspect.cleandoc(function.__doc__ or ""), annotations=annotations)(function)

    return register


def build_server(vault: Vault, source: str | None = None, agent: str | None = None) -> MCPServer:
    """The MCP server for `vault`; `source` is the contract's source for every write, when the
    client's name does not say it; `agent` names the agent, whatever its client is called."""
    client = _Client(source, agent)
    tools = MemoryTools(vault, client.agent, GateSession(vault.state_dir, client.key), client.display_name)
    server = _Server("workbench", version=_version(), instructions=INSTRUCTIONS, log_level="WARNING")
    server.answered, server.serving = tools.answered, tools.serving
    reading = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    @_tool(server, reading)
    def memory_search(
        query: Annotated[
            str,
            Field(
                description='words, "quoted phrases" and filters: type:decision status:active tag:x '
                "project:x links:ID from:ID updated:>2026-01-01; -word leaves out"
            ),
        ],
        limit: Annotated[
            int, Field(ge=1, le=SEARCH_LIMIT, description=f"at most this many hits (1 to {SEARCH_LIMIT})")
        ] = 10,
        ctx: Context = None,  # type: ignore[assignment]
    ) -> SearchAnswer:
        """Find documents by metadata-first lexical retrieval, best first: id, title, type, status,
        score, path, tags and date of each hit; no bodies (read them with memory_read). A superseded
        hit names its successor."""
        client.remember(ctx)
        return _run(lambda: tools.search(query, limit))

    @_tool(server, reading)
    def memory_read(
        ids: Annotated[str | list[str], Field(description="one id, or a list of ids from memory_search")],
        offset: Annotated[int, Field(ge=0, description="with a single id: continue its body from this character")] = 0,
        ctx: Context = None,  # type: ignore[assignment]
    ) -> ReadAnswer:
        """Read documents: their metadata and bodies, at most ten documents and 45,000 characters a
        call. What does not fit is named under `next`, with the call that reads it. Reading a
        document to its end is what lets you change it (for 30 minutes, while it is unchanged)."""
        client.remember(ctx)
        return _run(lambda: tools.read(ids, offset))

    @_tool(server, reading)
    def memory_context(
        question: Annotated[str, Field(description="what you are about to work on, in words")],
        ctx: Context = None,  # type: ignore[assignment]
    ) -> ContextAnswer:
        """What to read before working on a question: from its best hits (the vault index when
        nothing matches), typed links to depth 2, at most 10 documents in reading priority (entity,
        task, decision, context, concept, index, note; active first; superseded documents replaced by
        their successors), with the constraints, latest decisions and open questions they state,
        each with its document's id, and at most two metadata hints beyond them."""
        client.remember(ctx)
        return _run(lambda: tools.context(question))

    @_tool(server, reading)
    def memory_recent(
        days: Annotated[
            int, Field(ge=1, le=RECENT_DAYS, description=f"changes in the last this many days (1 to {RECENT_DAYS})")
        ] = 7,
        limit: Annotated[
            int, Field(ge=1, le=SEARCH_LIMIT, description=f"at most this many documents (1 to {SEARCH_LIMIT})")
        ] = 20,
        ctx: Context = None,  # type: ignore[assignment]
    ) -> RecentAnswer:
        """What changed in the vault lately, newest first: each document created or changed in the
        last `days` days, with when, the change log's line about it and who made it when known; no
        bodies. Being listed here does not let you change a document: search for it and read it."""
        client.remember(ctx)
        return _run(lambda: tools.recent(days, limit))

    @_tool(
        server,
        ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False),
    )
    def memory_write(
        type: Annotated[DocTypeName, Field(description="the document's type")],
        title: Annotated[str, Field(description="one line; a new document's id is made from it")],
        body: Annotated[str, Field(description="Markdown: the durable knowledge, with its sources")] = "",
        tags: Annotated[list[str] | str | None, Field(description="tags, a list or comma-separated")] = None,
        links: Annotated[
            list[str | dict[str, str]] | None,
            Field(
                description='typed links: "depends_on:mem-entity-x" or {"type": ..., "target": ...}; '
                "related_to depends_on implements derived_from explains blocked_by"
            ),
        ] = None,
        decision: Annotated[
            Decision,
            Field(
                description="propose (writes nothing: ranks where it belongs), create, merge_into:ID or supersede:ID"
            ),
        ] = "propose",
        candidates: Annotated[
            int,
            Field(
                ge=1,
                le=READ_DOCUMENTS,
                description=f"propose: at most this many candidates, each with an excerpt (1 to {READ_DOCUMENTS})",
            ),
        ] = CANDIDATES,
        ctx: Context = None,  # type: ignore[assignment]
    ) -> WriteAnswer:
        """Record durable knowledge through the write gate. `propose` writes nothing and returns the
        documents it may belong in, in the gate's order, each with its reasons and an excerpt (title,
        status as the document states it, date or number, the opening of its body, the passage that
        matched your text), all within the read budget. `create` needs a search for the title's
        duplicates in the last 30 minutes (propose counts) and at least one link; `merge_into:ID`
        and `supersede:ID` also need ID found by a search and read to its end. A new document is a
        draft and a supersession a proposal: a person reviews both."""
        client.remember(ctx)
        return _run(lambda: tools.write(type, title, body, tags, links, decision, candidates))

    @_tool(server, reading)
    def memory_review(
        limit: Annotated[
            int,
            Field(
                ge=1,
                le=REVIEW_LIMIT,
                description=f"at most this many pairs (1 to {REVIEW_LIMIT}); as many as fit {READ_CHARACTERS:,} characters are given",
            ),
        ] = 5,
        cursor: Annotated[
            str | None, Field(description="the `cursor` of the previous page, to continue; omit it to start")
        ] = None,
        ctx: Context = None,  # type: ignore[assignment]
    ) -> ReviewAnswer:
        """The review list: pairs of decisions in this memory that may replace one another, best
        first, for you to judge with memory_judge. Each pair gives both records' excerpts (title,
        status as the record states it, date or number, the opening of the body, what it decides
        when the opening stops short of it, the passage that matched the other) and evidence in the
        records' own words (shared subject words, which cites which, dates, which is taken as newer
        and why). Evidence is not a verdict: most pairs are not replacements. Judge by what each
        decides: the newer replaces the older only when it answers the same question differently;
        citing, building on, amending or narrowing it is a companion. Pass `cursor` back for the next page; the list ends when `cursor` is null.
        A pair already settled (one replaces the other, or marked compatible) or judged while both
        records are unchanged is never offered again."""
        client.remember(ctx)
        return _run(lambda: tools.review(limit, cursor))

    @_tool(
        server,
        ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False),
    )
    def memory_judge(
        older: Annotated[str, Field(description="the pair's older record's id, as memory_review gave it")],
        newer: Annotated[str, Field(description="the pair's newer record's id, as memory_review gave it")],
        verdict: Annotated[
            Literal["replaces", "companion", "reversed", "unsure"],
            Field(description="replaces, companion, reversed or unsure (see the tool's description)"),
        ],
        reason: Annotated[
            str, Field(description="one or two sentences, quoting the records' words that decided it")
        ] = "",
        ctx: Context = None,  # type: ignore[assignment]
    ) -> JudgeAnswer:
        """Your verdict on one pair from memory_review, for a person to confirm. `replaces`: the
        newer record decides the same question anew and the older no longer holds (it says it
        supersedes, replaces or reverses the older, or decides the same thing differently).
        `companion`: both stand: different questions on one subject, or one amends, extends,
        refines, implements or depends on the other. `reversed`: one replaces the other, but the
        one given as older is the newer and replaces the other. `unsure`: the excerpts do not tell
        (say what is missing; memory_read reads a record whole). Judge only what you were shown
        (memory_review or memory_read) as it is now. Nothing is written to either record: the
        verdict waits in the curator's inbox, and the pair is not offered again while both records
        are unchanged."""
        client.remember(ctx)
        return _run(lambda: tools.judge(older, newer, verdict, reason))

    @_tool(
        server,
        ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False),
    )
    def memory_forget(
        id: Annotated[str, Field(description="the document to forget, found by a search and read lately")],
        reason: Annotated[str, Field(description="why it should go")] = "",
        ctx: Context = None,  # type: ignore[assignment]
    ) -> ForgetAnswer:
        """Ask a person to forget a document. Nothing is deleted: the request waits in the
        curator's inbox. Only a document you found by a search and read to its end lately."""
        client.remember(ctx)
        return _run(lambda: tools.forget(id, reason))

    for tool in server._tool_manager.list_tools():  # what call_tool refuses, the schema says
        tool.parameters["additionalProperties"] = False
    return server


def serve(
    vault: Vault,
    source: str | None = None,
    agent: str | None = None,
    http: tuple[str, int] | None = None,
    token: str | None = None,
    token_file: str | None = None,
) -> int:
    """Serve `vault` on stdin and stdout until the client goes, or over HTTP at `http` (host, port)
    behind `token` until interrupted; follows others' writes meanwhile."""
    announce = f"workbench mcp: serving {vault.root} ({len(vault)} files)"
    if http is None:
        print(announce, file=sys.stderr)
    watcher = vault.watch()
    # A long-lived process: what the open made stays for its life. Frozen, the collector's full
    # passes no longer walk it (0.1-0.3 s each at 10,000 documents, landing in whichever call made
    # the objects that triggered one).
    gc.freeze()
    try:
        if http is None:
            build_server(vault, source, agent).run("stdio")
        else:
            serve_http(build_server(vault, source, agent), *http, token or "", token_file, announce)
    except KeyboardInterrupt:
        return 130
    finally:
        watcher.stop()
    return 0
