"""`workbench mcp` as an agent meets it: the official SDK's client (`stdio_client`, `ClientSession`)
talking to a real server subprocess over stdio, on a copy of the sample vault. No transport is
mocked: every answer crossed a pipe as the protocol's JSON.

What is checked: the eight tools by name; the gate (what must be searched and read before what);
the Kimiko memory design's limits; hostile arguments, each an error result that names the problem with nothing
written; and an agent writing while a long-lived vault watches the same folder.
"""

from __future__ import annotations

import asyncio
import json
import time

from mcp_client import connected, files

from workbench import Vault
from workbench.core.services.inbox import REVIEW_KEY

TOOLS = {
    "memory_search",
    "memory_read",
    "memory_context",
    "memory_recent",
    "memory_write",
    "memory_forget",
    "memory_review",
    "memory_judge",
}
STRIPE_NOTE = {
    "type": "note",
    "title": "Stripe retries webhooks for three days",
    "body": "Seen in the dashboard.\n",
    "tags": ["stripe"],
    "links": ["related_to:mem-entity-stripe"],
}


# -- the tools ---------------------------------------------------------------------------------


async def test_the_eight_tools_by_name_with_schemas_and_what_the_gate_asks(sample_copy):
    async with connected(sample_copy) as agent:
        listed = {tool.name: tool for tool in (await agent.session.list_tools()).tools}
        assert set(listed) == TOOLS
        for name in ("memory_search", "memory_read", "memory_context", "memory_recent", "memory_review"):
            assert listed[name].annotations.read_only_hint
        assert listed["memory_write"].input_schema["properties"]["type"]["enum"] == [
            "concept",
            "decision",
            "entity",
            "context",
            "task",
            "note",
            "index",
        ]
        assert listed["memory_write"].input_schema["properties"]["decision"]["default"] == "propose"
        assert "read_whole" not in str(listed["memory_search"].input_schema)
        for tool in listed.values():  # descriptions an LLM reads: no indentation carried over from the source
            assert "\n " not in tool.description and tool.description == tool.description.strip(), tool.description


async def test_search_returns_metadata_and_never_a_body(sample_copy):
    async with connected(sample_copy) as agent:
        found = await agent.call("memory_search", query="celery redis jobs", limit=5)
        assert 1 <= found["count"] <= 5
        for hit in found["hits"]:
            assert {"id", "title", "type", "status", "score", "path"} <= set(hit) and "body" not in hit
        superseded = [h for h in found["hits"] if h["status"] == "superseded"]
        assert superseded and all(h["superseded_by"] for h in superseded)
        filtered = await agent.call("memory_search", query="type:decision status:active stripe")
        assert {h["type"] for h in filtered["hits"]} == {"decision"}


async def test_search_names_the_broken_documents_that_hold_the_words_as_the_cli_does(sample_copy):
    """A document the vault cannot read whole still holds its words: an agent told only "no
    document matches" would write a duplicate of it."""
    (sample_copy / "notes" / "mem-note-broken-quokka.md").write_text(
        "---\nid: mem-note-broken-quokka\ntype: note\ntitle: [unclosed\n---\n# Quokka ferries\n\nQuokka ferries leave at dawn.\n"
    )
    async with connected(sample_copy) as agent:
        found = await agent.call("memory_search", query="quokka ferries")
    assert found["count"] == 0
    [broken] = found["invalid"]
    assert broken["id"] == "mem-note-broken-quokka" and broken["path"] == "notes/mem-note-broken-quokka.md"
    assert "yaml" in broken["problem"].lower()
    assert "mem-note-broken-quokka" in found["next"] and "repair" in found["next"]


async def test_read_gives_bodies_and_metadata_and_says_what_is_missing(sample_copy):
    async with connected(sample_copy) as agent:
        one = await agent.call("memory_read", ids="mem-entity-stripe")
        [doc] = one["documents"]
        assert doc["body"].startswith("# Stripe") and doc["meta"]["created_at"] == "2026-02-24" and doc["read_whole"]
        many = await agent.call(
            "memory_read",
            ids=["mem-entity-stripe", "mem-entity-nothing", "../../etc/passwd", "mem-entity-stripe", "y" * 300],
        )
        assert [d["id"] for d in many["documents"]] == ["mem-entity-stripe"]
        assert [m["id"] for m in many["missing"]] == ["mem-entity-nothing", "../../etc/passwd", "y" * 300]
        assert "not an id" in many["missing"][2]["reason"]


async def test_a_read_stops_at_ten_documents_and_45000_characters_and_says_how_to_go_on(sample_copy):
    big = "\n".join(f"Line {n}: " + "words " * 20 for n in range(900))  # about 118,000 characters
    text = (sample_copy / "notes/mem-note-stripe-test-clocks.md").read_text("utf-8") + big + "\nTHE END\n"
    (sample_copy / "notes/mem-note-stripe-test-clocks.md").write_text(text, "utf-8")
    async with connected(sample_copy) as agent:
        ids = [h["id"] for h in (await agent.call("memory_search", query="type:entity", limit=12))["hits"]]
        assert len(ids) == 12
        first = await agent.call("memory_read", ids=ids)
        assert [d["id"] for d in first["documents"]] == ids[:10] and first["unread"] == ids[10:]
        assert "memory_read(ids=" in first["next"]
        body = (await agent.call("memory_read", ids="mem-note-stripe-test-clocks"))["documents"][0]
        assert body["truncated"] and not body["read_whole"] and body["characters"] > 45_000
        assert len(body["body"]) + len(str(body["meta"])) <= 45_000
        merge = {"type": "note", "title": "Stripe test clocks", "decision": "merge_into:mem-note-stripe-test-clocks"}
        await agent.call("memory_write", **merge | {"decision": "propose"})
        await agent.call("memory_search", query="stripe test clocks")
        assert "read up to character" in await agent.refused("memory_write", **merge)
        rest, offset = body["body"], body["next_offset"]
        while offset is not None:
            more = (await agent.call("memory_read", ids="mem-note-stripe-test-clocks", offset=offset))["documents"][0]
            rest += more["body"]
            offset = more.get("next_offset")
        assert rest.endswith("THE END\n") and more["read_whole"]
        await agent.call("memory_write", **merge)  # read to its end now: the gate lets it through
        mixed = await agent.call("memory_read", ids=["mem-note-stripe-test-clocks", "mem-entity-stripe"])
        assert [d["id"] for d in mixed["documents"]] == ["mem-note-stripe-test-clocks"] and mixed["unread"] == [
            "mem-entity-stripe"
        ]


async def test_every_read_answer_the_agent_receives_is_at_most_45000_characters_escapes_and_all(builder):
    """Newlines and quotes take two characters each in the JSON text the agent reads: the limit holds
    for that text, the cut document says so, and reading on as `next` says gives every body whole."""
    line = 'He said "retry", then "wait";\ta path C:\\temp\\x\n'  # newline, quotes, tab, backslashes: all escaped
    ids = [f"mem-entity-e{n:02d}" for n in range(24)]
    for n, doc_id in enumerate(ids):
        builder.add(doc_id, body=f"Start {n}\n" + line * (40 + 60 * n) + f"End {n}\n")
    vault = Vault.open(builder.root)
    bodies = {doc_id: vault.get(doc_id).body for doc_id in ids}
    assert sum(map(len, bodies.values())) > 4 * 45_000
    got = {doc_id: "" for doc_id in ids}
    async with connected(builder.root) as agent:
        await agent.call("memory_search", query="type:entity", limit=30)
        asks, cut = [{"ids": ids[:10]}], 0
        rest = ids[10:]
        while asks:
            result = await agent.session.call_tool("memory_read", asks.pop(0))
            text = result.content[0].text
            assert not result.is_error, text
            assert len(text) <= 45_000 and json.loads(text) == result.structured_content
            answer = result.structured_content
            for doc in answer["documents"]:
                assert len(got[doc["id"]]) == doc.get("offset", 0)
                got[doc["id"]] += doc["body"]
                if doc.get("truncated"):
                    cut += 1
                    assert doc["read_whole"] is False and doc["next_offset"] == len(got[doc["id"]]) < doc["characters"]
                    assert f"memory_read(ids={doc['id']!r}, offset={doc['next_offset']})" in answer["next"]
                    asks.append({"ids": doc["id"], "offset": doc["next_offset"]})
                else:
                    assert doc["read_whole"] is (doc.get("offset", 0) + len(doc["body"]) == doc["characters"])
            rest = answer.get("unread", []) + rest
            if answer.get("unread"):
                assert f"memory_read(ids={answer['unread'][:10]!r})" in answer["next"]
            if not asks and rest:
                asks.append({"ids": rest[:10]})
                rest = rest[10:]
            if len(text) < 44_000:
                assert not answer.get("unread") or len(answer["documents"]) == 10
    assert cut and got == bodies


async def test_a_long_draft_of_its_own_is_never_read_whole_while_cut_and_still_changes(sample_copy):
    long = {**STRIPE_NOTE, "body": "\n".join(f"Line {n}: " + "retry " * 15 for n in range(700)) + "\nTHE END\n"}
    async with connected(sample_copy) as agent:
        await agent.call("memory_write", **long)
        written = await agent.call("memory_write", **long, decision="create")
        first = (await agent.call("memory_read", ids=written["id"]))["documents"][0]
        assert first["truncated"] and first["read_whole"] is False
        # Its own write, unchanged: it may merge into it without reading it to its end.
        more = {**STRIPE_NOTE, "title": "Stripe retries, again", "body": "Also on weekends.\n"}
        await agent.call("memory_write", **more)
        await agent.call("memory_write", **more, decision=f"merge_into:{written['id']}")
        again = await agent.call("memory_write", **more, decision=f"merge_into:{written['id']}")
        assert again["written"] is False and "already holds" in again["summary"]
        offset, whole = 0, False
        while not whole:
            part = (await agent.call("memory_read", ids=written["id"], offset=offset))["documents"][0]
            assert not (part.get("truncated") and part["read_whole"])
            offset, whole = part.get("next_offset"), part["read_whole"]
        assert offset is None and part["body"].endswith("Also on weekends.\n")


async def test_the_context_pack_for_a_question(sample_copy):
    async with connected(sample_copy) as agent:
        pack = await agent.call("memory_context", question="how do we retry failed stripe webhooks?")
        ids = [d["id"] for d in pack["documents"]]
        assert 1 <= len(ids) <= 10 and pack["start"][0]["id"] == "mem-decision-stripe-webhook-dedup"
        assert all(d["depth"] <= 2 and d["status"] not in ("superseded", "archived") for d in pack["documents"])
        for group in ("constraints", "latest_decisions", "open_questions"):
            assert all(item["id"] in ids for item in pack[group])
        assert pack["constraints"] and pack["latest_decisions"]
        # What the pack returned counts as found: read one, and the gate lets the agent merge into it.
        await agent.call("memory_read", ids="mem-entity-stripe")
        await agent.call("memory_write", **{**STRIPE_NOTE, "type": "entity"}, decision="propose")
        await agent.call("memory_write", **{**STRIPE_NOTE, "type": "entity"}, decision="merge_into:mem-entity-stripe")


# -- the gate ----------------------------------------------------------------------------------


async def test_propose_writes_nothing_and_ranks_the_candidates_with_reasons(sample_copy):
    before = files(sample_copy)
    async with connected(sample_copy) as agent:
        proposed = await agent.call("memory_write", **STRIPE_NOTE, decision="propose")
        assert (
            proposed["written"] is False
            and proposed["proposed_id"] == "mem-note-stripe-retries-webhooks-for-three-days"
        )
        first = proposed["candidates"][0]
        assert (
            first["id"] == "mem-entity-stripe"
            and first["reasons"]
            and first["decision"] == "merge_into:mem-entity-stripe"
        )
        decision = await agent.call(
            "memory_write", type="decision", title="Store money as integer cents", body="", links=[]
        )
        assert any(c["decision"].startswith("supersede:") for c in decision["candidates"])
    assert files(sample_copy) == before


async def test_create_needs_a_duplicate_search_and_lands_as_a_draft_naming_the_agent(sample_copy):
    async with connected(sample_copy, "claude-code") as agent:
        why = await agent.refused("memory_write", **STRIPE_NOTE, decision="create")
        assert "search for duplicates" in why
        await agent.call("memory_search", query="unrelated words about kubernetes")
        assert "search for duplicates" in await agent.refused("memory_write", **STRIPE_NOTE, decision="create")
        await agent.call("memory_search", query="stripe webhooks retries")  # the title's words: a duplicate search
        written = await agent.call("memory_write", **STRIPE_NOTE, decision="create")
        assert written["written"] and written["status"] == "draft"
    doc = Vault.open(sample_copy).get(written["id"])
    assert doc.meta["provenance"] == {"source": "agent-claude", "confidence": "medium", "agent": "claude-code"}
    assert doc.meta[REVIEW_KEY][0]["action"] == "create"
    assert f"create {doc.id} as a draft (agent claude-code)" in (sample_copy / "log.md").read_text("utf-8")


async def test_merge_and_supersede_need_the_target_found_and_read_to_its_end_as_it_is_now(sample_copy):
    merge = {**STRIPE_NOTE, "type": "entity", "decision": "merge_into:mem-entity-stripe"}
    async with connected(sample_copy) as agent:
        await agent.call("memory_write", **STRIPE_NOTE)  # propose: the duplicate search
        await agent.call("memory_read", ids="mem-entity-postgres")
        assert "has not been read" in await agent.refused("memory_write", **merge)
        await agent.call("memory_read", ids="mem-entity-stripe")
        stripe = sample_copy / "entities/mem-entity-stripe.md"
        stripe.write_text(stripe.read_text("utf-8") + "\nA person's line.\n", "utf-8")  # someone writes meanwhile
        assert "changed since you read it" in await agent.refused("memory_write", **merge)
        await agent.call("memory_read", ids="mem-entity-stripe")
        await agent.call("memory_write", **merge)

        never_found = {
            "type": "decision",
            "title": "Use Celery again",
            "body": "x",
            "decision": "supersede:mem-decision-sendgrid-dynamic-templates",
        }
        await agent.call("memory_write", **never_found | {"decision": "propose"})
        await agent.call("memory_read", ids="mem-decision-sendgrid-dynamic-templates")
        assert "not been returned by a search" in await agent.refused("memory_write", **never_found)

        await agent.found_and_read("mem-decision-money-integer-cents", "money integer cents")
        proposal = {
            "type": "decision",
            "title": "Store money as Decimal",
            "body": "Use Decimal.",
            "tags": ["money"],
            "decision": "supersede:mem-decision-money-integer-cents",
        }
        assert "search for duplicates" in await agent.refused("memory_write", **proposal)
        await agent.call("memory_search", query="store money decimal")
        written = await agent.call("memory_write", **proposal)
        assert written["status"] == "draft" and "stays active" in written["review"]
    vault = Vault.open(sample_copy)
    assert vault.get("mem-decision-money-integer-cents").status == "active"
    assert sorted(r.kind for r in vault.inbox().requests) == ["merge", "supersede"]


async def test_forget_never_deletes_and_only_what_was_found_and_read(sample_copy):
    async with connected(sample_copy, "codex-cli") as agent:
        assert "not been returned by a search" in await agent.refused(
            "memory_forget", id="mem-note-sentry-healthcheck-noise"
        )
        await agent.found_and_read("mem-note-sentry-healthcheck-noise", "sentry healthcheck noise")
        asked = await agent.call("memory_forget", id="mem-note-sentry-healthcheck-noise", reason="fixed in the SDK")
        assert asked["deleted"] is False
        again = await agent.call("memory_forget", id="mem-note-sentry-healthcheck-noise")
        assert "already" in again["summary"]
        assert "Unknown tool" in await agent.refused("memory_delete", id="mem-note-sentry-healthcheck-noise")
    vault = Vault.open(sample_copy)
    assert "mem-note-sentry-healthcheck-noise" in vault
    [request] = vault.inbox().requests
    assert (request.kind, request.agent, request.note) == ("forget", "codex-cli", "fixed in the SDK")
    assert vault.get(request.doc_id).meta["provenance"]["source"] == "agent-claude"  # its author is unchanged


# -- who the agent is --------------------------------------------------------------------------


async def test_a_client_naming_neither_claude_nor_codex_needs_source_from_its_configuration(sample_copy):
    async with connected(sample_copy, "mcp") as agent:
        await agent.call("memory_write", **STRIPE_NOTE)
        why = await agent.refused("memory_write", **STRIPE_NOTE, decision="create")
        assert "--source agent-claude" in why and "'mcp'" in why
    async with connected(sample_copy, "cursor-vscode", "--source", "agent-codex") as agent:
        await agent.call("memory_write", **STRIPE_NOTE)
        written = await agent.call("memory_write", **STRIPE_NOTE, decision="create")
    doc = Vault.open(sample_copy).get(written["id"])
    assert doc.meta["provenance"]["source"] == "agent-codex" and doc.meta["provenance"]["agent"] == "cursor-vscode"


# -- hostile arguments -------------------------------------------------------------------------

HOSTILE = [
    ("memory_search", {"query": ""}, "query"),
    ("memory_search", {"query": "x" * 1001}, "at most 1000"),
    ("memory_search", {"query": "stripe", "limit": 0}, "limit"),
    ("memory_search", {"query": "stripe", "limit": 51}, "limit"),
    ("memory_search", {"query": "stripe", "limit": "ten"}, "limit"),
    ("memory_search", {"query": "type:decsion"}, "decsion"),
    ("memory_search", {"query": ["a", "b"]}, "query"),
    ("memory_read", {"ids": []}, "ids is empty"),
    ("memory_read", {"ids": [f"mem-note-{n}" for n in range(101)]}, "at most 100"),
    ("memory_read", {"ids": ["a", "b"], "offset": 5}, "single id"),
    ("memory_read", {"ids": "mem-entity-stripe", "offset": -1}, "offset"),
    ("memory_read", {"ids": "mem-entity-stripe", "offset": 10**9}, "past the end"),
    ("memory_read", {"ids": {"$ne": 1}}, "ids"),
    ("memory_context", {"question": " "}, "question is empty"),
    ("memory_write", {"type": "../entity", "title": "x"}, "type"),
    ("memory_write", {"type": "note", "title": ""}, "title is empty"),
    ("memory_write", {"type": "note", "title": "two\nlines: [x]"}, "one line"),
    ("memory_write", {"type": "note", "title": "t" * 201}, "at most 200"),
    ("memory_write", {"type": "note", "title": "Body with NUL", "body": "a\x00b"}, "control characters"),
    (
        "memory_write",
        {"type": "note", "title": "Body with escapes", "body": "\x1b[2J\x1b]0;pwned\x07"},
        "control characters",
    ),
    ("memory_write", {"type": "note", "title": "Huge", "body": "x" * 100_001}, "at most 100,000"),
    (
        "memory_write",
        {
            "type": "note",
            "title": "A key",
            "body": "password = hunter2hunter2",
            "links": ["related_to:mem-entity-stripe"],
            "decision": "create",
        },
        "credentials",
    ),
    (
        "memory_write",
        {"type": "note", "title": "A key", "body": "password = hunter2hunter2"},
        "credentials",
    ),  # propose too
    ("memory_write", {"type": "note", "title": "Tags", "tags": ["two words"]}, "not a tag"),
    ("memory_write", {"type": "note", "title": "Tags", "tags": [f"t{n}" for n in range(21)]}, "at most 20"),
    ("memory_write", {"type": "note", "title": "Links", "links": ["mem-entity-stripe"]}, "TYPE:TARGET"),
    ("memory_write", {"type": "note", "title": "Links", "links": ["supersedes:mem-entity-stripe"]}, "not allowed"),
    ("memory_write", {"type": "note", "title": "Links", "links": ["owns:mem-entity-stripe"]}, "not allowed"),
    ("memory_write", {"type": "note", "title": "Links", "links": [{"type": "related_to"}]}, "TYPE:TARGET"),
    (
        "memory_write",
        {"type": "note", "title": "Escape", "links": ["related_to:../../etc/passwd"], "decision": "create"},
        "not a document",
    ),
    ("memory_write", {"type": "note", "title": "Decision", "decision": "delete"}, "not one of"),
    ("memory_write", {"type": "note", "title": "Decision", "decision": "merge_into:"}, "not one of"),
    ("memory_write", {"type": "note", "title": "Decision", "decision": "create:mem-entity-stripe"}, "not one of"),
    ("memory_write", {"type": "note", "title": "Island", "decision": "create"}, "at least one existing document"),
    (
        "memory_write",
        {"type": "entity", "title": "Into a decision", "decision": "merge_into:mem-decision-api-fastapi"},
        "decision",
    ),
    (
        "memory_write",
        {"type": "note", "title": "Into nothing", "decision": "merge_into:mem-entity-nothing"},
        "no document",
    ),
    ("memory_forget", {"id": "mem-note-nothing"}, "no document"),
    ("memory_forget", {"id": ""}, "id is empty"),
    ("memory_forget", {"id": "mem-note-" + "x" * 5_000}, "not an id"),
    (
        "memory_write",
        {"type": "note", "title": "Long target", "decision": "merge_into:mem-" + "x" * 5_000},
        "not an id",
    ),
]


async def test_hostile_arguments_are_error_results_naming_the_problem_with_nothing_written(sample_copy):
    before = files(sample_copy)
    async with connected(sample_copy) as agent:
        for title in ("Body with NUL", "A key", "Escape", "Island", "Into a decision", "Into nothing", "Long target"):
            await agent.call("memory_write", type="note", title=title)  # propose: so the gate is not what refuses
        await agent.call("memory_read", ids="mem-decision-api-fastapi")
        for tool, args, expected in HOSTILE:
            text = await agent.refused(tool, **args)
            assert expected.lower() in text.lower(), (tool, args, text)
            assert "\x1b" not in text and len(text) < 5_000
    assert files(sample_copy) == before


WRONG_TYPES = [
    ("memory_search", {"query": "stripe", "limit": "ten"}, "argument limit: 'ten' is not a whole number from 1 to 50"),
    ("memory_search", {"query": "stripe", "limit": 99}, "argument limit: 99 is not a whole number from 1 to 50"),
    ("memory_search", {"query": ["a", "b"]}, "argument query: a list of 2 is not text"),
    ("memory_search", {"limit": 5}, "argument query is missing: give text"),
    ("memory_read", {"ids": {"$ne": 1}}, "argument ids: an object is not text or a list of text"),
    (
        "memory_read",
        {"ids": "mem-entity-stripe", "offset": 2.5},
        "argument offset: 2.5 is not a whole number, 0 or more",
    ),
    ("memory_context", {"question": None}, "argument question: null is not text"),
    (
        "memory_write",
        {"type": "nope", "title": "x"},
        "argument type: 'nope' is not one of concept, decision, entity, context, task, note or index",
    ),
    (
        "memory_write",
        {"type": "note", "title": "x", "decision": "delete"},
        "argument decision: 'delete' is not one of propose, create, merge_into:ID or supersede:ID",
    ),
    (
        "memory_write",
        {"type": "note", "title": "x", "links": [7]},
        "argument links: a list of 1 is not a list of text or objects",
    ),
    ("memory_write", {"type": "note", "title": "x" * 500, "body": 3}, "argument body: 3 is not text"),
    ("memory_search", {"query": "stripe", "limt": 5}, "unknown argument 'limt': memory_search takes query and limit"),
    (
        "memory_forget",
        {"id": "mem-entity-stripe", "force": True, "ctx": {}},
        "unknown arguments 'force', 'ctx': memory_forget takes id and reason",
    ),
]


async def test_wrong_arguments_are_named_in_plain_words_and_unknown_ones_refused(sample_copy):
    before = files(sample_copy)
    async with connected(sample_copy) as agent:
        for tool, args, expected in WRONG_TYPES:
            text = await agent.refused(tool, **args)
            assert text == f"Error executing tool {tool}: {expected}", (tool, args, text)
    assert files(sample_copy) == before


async def test_the_schemas_show_bounds_closed_sets_and_no_other_arguments(sample_copy):
    async with connected(sample_copy) as agent:
        listed = {tool.name: tool.input_schema for tool in (await agent.session.list_tools()).tools}
    assert all(schema["additionalProperties"] is False for schema in listed.values())
    limit = listed["memory_search"]["properties"]["limit"]
    assert (limit["minimum"], limit["maximum"], limit["default"]) == (1, 50, 10)
    assert listed["memory_read"]["properties"]["offset"]["minimum"] == 0
    decision = listed["memory_write"]["properties"]["decision"]["anyOf"]
    assert decision[0]["enum"] == ["propose", "create"]
    assert [d["pattern"] for d in decision[1:]] == ["^merge_into:\\S", "^supersede:\\S"]


async def test_the_output_schemas_say_what_each_tool_answers(sample_copy):
    async with connected(sample_copy) as agent:
        listed = {tool.name: tool.output_schema for tool in (await agent.session.list_tools()).tools}
        assert set(listed["memory_search"]["required"]) == {"query", "count", "hits", "next"}
        assert set(listed["memory_read"]["required"]) == {"documents"}
        assert {"missing", "unread", "next"} <= set(listed["memory_read"]["properties"])
        document = listed["memory_read"]["$defs"]["ReadDocument"]
        assert {"body", "meta", "read_whole", "truncated", "next_offset"} <= set(document["properties"])
        assert "merge into" in document["properties"]["read_whole"]["description"]
        assert {"constraints", "latest_decisions", "open_questions", "hints"} <= set(
            listed["memory_context"]["required"]
        )
        assert {"candidates", "proposed_id", "id", "review"} <= set(listed["memory_write"]["properties"])
        assert listed["memory_forget"]["properties"]["deleted"]["type"] == "boolean"
        assert {"days", "count", "more", "changes", "next"} <= set(listed["memory_recent"]["required"])
        assert {"when", "what", "by", "awaiting_review"} <= set(
            listed["memory_recent"]["$defs"]["RecentChange"]["properties"]
        )
        # Each answer is checked by the client against its schema, and equals its text (`Agent.call`).
        await agent.call("memory_context", question="stripe webhooks")
        await agent.call("memory_write", **STRIPE_NOTE)
        await agent.found_and_read("mem-note-sentry-healthcheck-noise", "sentry healthcheck noise")
        await agent.call("memory_forget", id="mem-note-sentry-healthcheck-noise")
        await agent.call("memory_read", ids=["mem-entity-stripe", "mem-entity-nothing"])


async def test_a_superseded_decision_is_not_superseded_again(sample_copy):
    async with connected(sample_copy) as agent:
        await agent.found_and_read("mem-decision-jobs-celery-redis", "celery redis jobs")
        await agent.call("memory_write", type="decision", title="Celery again")
        why = await agent.refused(
            "memory_write", type="decision", title="Celery again", decision="supersede:mem-decision-jobs-celery-redis"
        )
        assert "already superseded by mem-decision-jobs-procrastinate" in why


# -- agents beside others on the same store ----------------------------------------------------


async def test_an_agent_writes_while_a_long_lived_vault_watches(sample_copy):
    watching = Vault.open(sample_copy)
    seen: list[list[str]] = []
    watcher = watching.watch(lambda paths, seconds: seen.append(paths))
    try:
        assert await asyncio.to_thread(watcher.ready.wait, 10)
        async with connected(sample_copy) as agent:
            await agent.call("memory_write", **STRIPE_NOTE)
            written = await agent.call("memory_write", **STRIPE_NOTE, decision="create")
            deadline = time.monotonic() + 10
            while written["id"] not in watching and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            assert written["id"] in watching  # the watcher brought it in: the TUI's way of seeing it
            assert [h.id for h in watching.search("Stripe retries webhooks for three days", 1)] == [written["id"]]
            assert [r.doc_id for r in watching.inbox().requests] == [written["id"]]
            # The person accepts it from the inbox; the agent's search sees the new status at once.
            watching.settle(written["id"], "accept")
            deadline = time.monotonic() + 10
            status = None
            while status != "active" and time.monotonic() < deadline:
                hits = (await agent.call("memory_search", query="Stripe retries webhooks for three days", limit=1))[
                    "hits"
                ]
                status = hits[0]["status"]
                await asyncio.sleep(0.05)
            assert status == "active"
    finally:
        watcher.stop()
    assert any(f"notes/{written['id']}.md" in paths for paths in seen)


async def test_two_agents_merging_into_one_document_never_lose_a_write(sample_copy):
    merge = {**STRIPE_NOTE, "type": "entity", "decision": "merge_into:mem-entity-stripe"}
    async with connected(sample_copy, "claude-code") as first, connected(sample_copy, "codex-cli") as second:
        for agent, title in ((first, "From the first agent"), (second, "From the second agent")):
            await agent.call("memory_write", **merge | {"title": title, "decision": "propose"})
            await agent.call("memory_read", ids="mem-entity-stripe")
        await first.call("memory_write", **merge | {"title": "From the first agent"})
        why = await second.refused("memory_write", **merge | {"title": "From the second agent"})
        assert "changed since you read it" in why
        await second.call("memory_read", ids="mem-entity-stripe")
        await second.call("memory_write", **merge | {"title": "From the second agent"})
    body = Vault.open(sample_copy).get("mem-entity-stripe").body
    assert "From the first agent" in body and "From the second agent" in body
