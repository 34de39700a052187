"""MCP resources, subscriptions and prompts through the SDK's client session:
in memory against ``build_server``, over stdio against ``layoutkit mcp`` and over
streamable HTTP with tokens of two workspaces."""

from __future__ import annotations

import base64
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import jsonschema
import mcp_types as types
import pytest
from mcp.client._memory import InMemoryTransport
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from layoutkit import Workspace, elements
from layoutkit.adapters.http import create_app
from layoutkit.adapters.mcp import build_server
from layoutkit.adapters.mcp_prompts import PROMPTS
from tests.adapters.conftest import LiveServer, mcp_session

# resources/subscribe is the handshake-era way (the SDK warns it is gone from 2026-07-28).
pytestmark = pytest.mark.filterwarnings("ignore:resources/.*subscribe is removed")

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CARDS = [{"kind": "note", "payload": {"md": "first"}}, {"kind": "text", "payload": {"md": "b"}}]


@pytest.fixture
def ws() -> Iterator[Workspace]:
    found = Workspace.open()
    found.call("create", {"kind": "board", "slug": "plan"})
    found.call("compose_board", {"board": "plan", "cards": CARDS})
    try:
        yield found
    finally:
        found.close()


def _in_memory(ws: Workspace, script, **session_args):  # type: ignore[no-untyped-def]
    async def main():  # type: ignore[no-untyped-def]
        server = build_server(ws)
        async with (
            InMemoryTransport(server) as (read, write),
            ClientSession(read, write, **session_args) as session,
        ):
            await session.initialize()
            return await script(session)

    return anyio.run(main)


def _text(result: types.ReadResourceResult) -> types.TextResourceContents:
    (content,) = result.contents
    assert isinstance(content, types.TextResourceContents)
    return content


def _png(result: types.ReadResourceResult) -> bytes:
    (content,) = result.contents
    assert isinstance(content, types.BlobResourceContents) and content.mime_type == "image/png"
    return base64.b64decode(content.blob)


def test_resources_and_templates_are_listed(ws: Workspace) -> None:
    async def script(session: ClientSession):  # type: ignore[no-untyped-def]
        listed = (await session.list_resources()).resources
        templates = (await session.list_resource_templates()).resource_templates
        return listed, templates

    listed, templates = _in_memory(ws, script)
    uris = {r.uri: r.mime_type for r in listed}
    topics = [t["topic"] for t in ws.call("docs", {})["topics"]]
    assert {f"layoutkit://docs/{t}" for t in topics} <= set(uris)
    assert uris["layoutkit://docs/note"] == "text/markdown"
    for kind in elements.BOARD_VOCABULARY:
        assert uris[f"layoutkit://schema/card/{kind}"] == "application/schema+json"
    for kind in elements.ELEMENT_KINDS:
        assert uris[f"layoutkit://schema/element/{kind}"] == "application/schema+json"
    assert uris["layoutkit://boards/plan"] == "application/json"
    assert uris["layoutkit://boards/plan/picture.png"] == "image/png"
    ids = [c["id"] for c in ws.call("scrape_board", {"board": "plan"})["cards"]]
    assert {f"layoutkit://boards/plan/cards/{i}.png" for i in ids} <= set(uris)
    assert {t.uri_template for t in templates} >= {
        "layoutkit://boards/{slug}",
        "layoutkit://boards/{slug}/picture.png",
        "layoutkit://boards/{slug}/cards/{id}.png",
    }


def test_read_docs_schema_board_and_pictures(ws: Workspace) -> None:
    card_id = ws.call("scrape_board", {"board": "plan"})["cards"][0]["id"]

    async def script(session: ClientSession):  # type: ignore[no-untyped-def]
        return [
            await session.read_resource(uri)
            for uri in (
                "layoutkit://docs/note",
                "layoutkit://schema/card/note",
                "layoutkit://schema/element/prose",
                "layoutkit://boards/plan",
                "layoutkit://boards/plan/picture.png",
                f"layoutkit://boards/plan/cards/{card_id}.png",
            )
        ]

    doc, card_schema, prose_schema, board, picture, card = _in_memory(ws, script)
    assert _text(doc).text == ws.call("docs", {"topic": "note"})["text"]
    schema = json.loads(_text(card_schema).text)
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(CARDS[0], schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"kind": "text", "payload": {"md": "x"}}, schema)
    jsonschema.validate(
        {"kind": "prose", "payload": {"md": "x"}}, json.loads(_text(prose_schema).text)
    )
    scraped = json.loads(_text(board).text)
    assert [c["kind"] for c in scraped["cards"]] == ["note", "text"]
    assert _png(picture).startswith(PNG_SIGNATURE)
    assert _png(card).startswith(PNG_SIGNATURE)


def test_unknown_addresses_are_resource_errors(ws: Workspace) -> None:
    async def script(session: ClientSession):  # type: ignore[no-untyped-def]
        codes = []
        for uri in ("layoutkit://boards/nope", "layoutkit://schema/card/nope", "http://x/y"):
            with pytest.raises(MCPError) as err:
                await session.read_resource(uri)
            codes.append(err.value.code)
        return codes

    assert _in_memory(ws, script) == [-32002, -32002, -32602]


def test_a_subscriber_hears_when_another_client_composes_onto_the_board(ws: Workspace) -> None:
    async def main() -> list[str]:
        server = build_server(ws)
        heard: list[str] = []
        updated = anyio.Event()

        async def on_message(message) -> None:  # type: ignore[no-untyped-def]
            if isinstance(message, types.ResourceUpdatedNotification):
                heard.append(str(message.params.uri))
                updated.set()

        async with (
            InMemoryTransport(server) as (r1, w1),
            ClientSession(r1, w1, message_handler=on_message) as watcher,
            InMemoryTransport(server) as (r2, w2),
            ClientSession(r2, w2) as writer,
        ):
            caps = (await watcher.initialize()).capabilities
            await writer.initialize()
            assert caps.resources is not None and caps.resources.subscribe
            await watcher.subscribe_resource("layoutkit://boards/plan")
            added = await writer.call_tool(
                "compose_board",
                {"board": "plan", "cards": [{"kind": "note", "payload": {"md": "new"}}]},
            )
            assert not added.is_error
            with anyio.fail_after(20):
                await updated.wait()
            await watcher.unsubscribe_resource("layoutkit://boards/plan")
        return heard

    assert anyio.run(main) == ["layoutkit://boards/plan"]


def test_only_board_addresses_can_be_subscribed_and_only_readable_ones(ws: Workspace) -> None:
    async def script(session: ClientSession):  # type: ignore[no-untyped-def]
        codes = []
        for uri in ("layoutkit://docs/note", "layoutkit://boards/nope"):
            with pytest.raises(MCPError) as err:
                await session.subscribe_resource(uri)
            codes.append(err.value.code)
        return codes

    assert _in_memory(ws, script) == [-32602, -32002]


def test_prompts_are_listed_and_filled() -> None:
    async def script(session: ClientSession):  # type: ignore[no-untyped-def]
        listed = (await session.list_prompts()).prompts
        got = await session.get_prompt(
            "layout_document", {"document": "# Plan\nShip it.", "board": "roadmap"}
        )
        with pytest.raises(MCPError):
            await session.get_prompt("layout_document", {"board": "roadmap"})
        return listed, got

    ws = Workspace.open()
    listed, got = _in_memory(ws, script)
    assert {p.name for p in listed} == {
        "layout_document",
        "review_screenshots",
        "hand_back_session",
    }
    assert all(p.title and p.arguments for p in listed)
    (message,) = got.messages
    assert message.role == "user"
    assert "# Plan\nShip it." in message.content.text
    assert '"slug": "roadmap"' in message.content.text
    for prompt in PROMPTS:  # each names only tools the registry serves
        assert set(prompt.operations) <= {op.name for op in ws.registry.tools()}


def test_stdio_server_serves_resources_and_prompts() -> None:
    async def main():  # type: ignore[no-untyped-def]
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "layoutkit.adapters.cli", "mcp", "--db", "sqlite://"],
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await session.call_tool("create", {"kind": "board", "slug": "s"})
            await session.call_tool("compose_board", {"board": "s", "cards": CARDS})
            listed = {r.uri for r in (await session.list_resources()).resources}
            picture = await session.read_resource("layoutkit://boards/s/picture.png")
            prompts = (await session.list_prompts()).prompts
            return listed, picture, prompts

    listed, picture, prompts = anyio.run(main)
    assert {"layoutkit://docs/envelope", "layoutkit://boards/s"} <= listed
    assert _png(picture).startswith(PNG_SIGNATURE)
    assert len(prompts) == len(PROMPTS)


def test_http_token_of_another_workspace_neither_sees_nor_reads_the_board(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'ws.db'}"
    home = Workspace.open(url, name="default", multi_workspace=True)
    victim = Workspace.open(url, name="victim", multi_workspace=True)
    try:
        victim.call("create", {"kind": "board", "slug": "secret"})
        victim.call("compose_board", {"board": "secret", "cards": CARDS})
        home.call("create", {"kind": "board", "slug": "mine"})
        mallory = home.create_token("user", "mallory")
        owner = victim.create_token("owner", "victor")

        async def main():  # type: ignore[no-untyped-def]
            with LiveServer(create_app(home)) as server:
                async with mcp_session(server.url, mallory) as session:
                    listed = {r.uri for r in (await session.list_resources()).resources}
                    refused = []
                    for uri in (
                        "layoutkit://boards/secret",
                        "layoutkit://boards/secret/picture.png",
                        "layoutkit://boards/secret/cards/1.png",
                    ):
                        with pytest.raises(MCPError) as err:
                            await session.read_resource(uri)
                        refused.append(err.value.code)
                    mine = await session.read_resource("layoutkit://boards/mine")
            with LiveServer(create_app(victim)) as server:
                async with mcp_session(server.url, owner) as session:
                    theirs = await session.read_resource("layoutkit://boards/secret")
            return listed, refused, mine, theirs

        listed, refused, mine, theirs = anyio.run(main)
    finally:
        victim.close()
        home.close()
    assert "layoutkit://boards/mine" in listed
    assert not any("secret" in uri for uri in listed)
    assert refused == [-32002, -32002, -32002]
    assert json.loads(_text(mine).text)["board"]["slug"] == "mine"
    assert json.loads(_text(theirs).text)["board"]["slug"] == "secret"


def _watch(ws: Workspace, uri: str, write) -> list[str]:  # type: ignore[no-untyped-def]
    """Subscribe to ``uri`` on a server over ``ws``, run ``write`` in a thread, and
    return the addresses the session was told about."""

    async def main() -> list[str]:
        heard: list[str] = []
        updated = anyio.Event()

        async def on_message(message) -> None:  # type: ignore[no-untyped-def]
            if isinstance(message, types.ResourceUpdatedNotification):
                heard.append(str(message.params.uri))
                updated.set()

        async with (
            InMemoryTransport(build_server(ws)) as (read, write_stream),
            ClientSession(read, write_stream, message_handler=on_message) as session,
        ):
            await session.initialize()
            await session.subscribe_resource(uri)
            await anyio.to_thread.run_sync(write)
            with anyio.fail_after(20):
                await updated.wait()
        return heard

    return anyio.run(main)


def test_a_write_by_another_process_is_heard_by_looking(tmp_path: Path) -> None:
    # A second Workspace on the same database stands for another process: its
    # commit calls no hook of the watching server, which finds it by board_changes.
    url = f"sqlite:///{tmp_path / 'ws.db'}"
    watched = Workspace.open(url)
    other = Workspace.open(url)
    try:
        watched.call("create", {"kind": "board", "slug": "far"})

        def write() -> None:
            other.call("compose_board", {"board": "far", "cards": CARDS})

        heard = _watch(watched, "layoutkit://boards/far/picture.png", write)
    finally:
        other.close()
        watched.close()
    assert heard == ["layoutkit://boards/far/picture.png"]


def test_subscriptions_per_session_are_bounded(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    from layoutkit.adapters import mcp_resources

    monkeypatch.setattr(mcp_resources, "MAX_SUBSCRIPTIONS", 2)

    async def script(session: ClientSession):  # type: ignore[no-untyped-def]
        await session.subscribe_resource("layoutkit://boards/plan")
        await session.subscribe_resource("layoutkit://boards/plan/picture.png")
        await session.subscribe_resource("layoutkit://boards/plan")  # again: no new one
        with pytest.raises(MCPError) as err:
            await session.subscribe_resource("layoutkit://boards/plan/cards/1.png")
        await session.unsubscribe_resource("layoutkit://boards/plan")
        await session.subscribe_resource("layoutkit://boards/plan/cards/1.png")
        return err.value

    refused = _in_memory(ws, script)
    assert refused.code == -32602 and "at most 2" in refused.message


def test_stateful_http_session_hears_a_compose_by_another_client() -> None:
    ws = Workspace.open()
    ws.call("create", {"kind": "board", "slug": "live"})
    token = ws.create_token("owner", "watcher")
    other = ws.create_token("owner", "writer")

    async def main() -> tuple[bool, bool, list[str]]:
        heard: list[str] = []
        told = [anyio.Event(), anyio.Event()]

        async def on_message(message) -> None:  # type: ignore[no-untyped-def]
            if isinstance(message, types.ResourceUpdatedNotification):
                heard.append(str(message.params.uri))
                told[min(len(heard), len(told)) - 1].set()

        with LiveServer(create_app(ws, mcp_stateful=True)) as server:
            headers = {"authorization": f"Bearer {token}"}
            async with (
                httpx2.AsyncClient(headers=headers, timeout=30) as client,
                streamable_http_client(f"{server.url}/mcp/", http_client=client) as (r, w),
                ClientSession(r, w, message_handler=on_message) as watcher,
                mcp_session(server.url, other) as writer,
            ):
                caps = (await watcher.initialize()).capabilities
                await watcher.subscribe_resource("layoutkit://boards/live")
                added = await writer.call_tool("compose_board", {"board": "live", "cards": CARDS})
                with anyio.fail_after(20):
                    await told[0].wait()
                # The watch asks for the caller at every look, as the viewer does: a
                # revoked token is told once more, then no longer watched.
                await anyio.to_thread.run_sync(ws.revoke_token, "watcher")
                with anyio.fail_after(20):
                    await told[1].wait()
        return bool(caps.resources and caps.resources.subscribe), added.is_error, heard

    try:
        subscribe, failed, heard = anyio.run(main)
    finally:
        ws.close()
    assert subscribe and not failed
    assert heard == ["layoutkit://boards/live"] * 2


def test_stateless_http_offers_no_subscription(api) -> None:  # type: ignore[no-untyped-def]
    async def main():  # type: ignore[no-untyped-def]
        async with mcp_session(api.url, api.token) as session:
            caps = session.server_capabilities
            with pytest.raises(MCPError):
                await session.subscribe_resource("layoutkit://boards/x")
            return caps

    caps = anyio.run(main)
    assert caps is not None and caps.resources is not None and not caps.resources.subscribe


def test_a_change_of_the_board_itself_is_told_too(ws: Workspace) -> None:
    # A theme moves no rev, but the board's look stamp (what the viewer follows).
    def write() -> None:
        ws.call("update", {"kind": "board", "slug": "plan", "theme": "dark"})

    assert _watch(ws, "layoutkit://boards/plan", write) == ["layoutkit://boards/plan"]


def test_every_kind_schema_is_a_valid_schema_with_every_reference_inside() -> None:
    from layoutkit.adapters.mcp_resources import kind_schema

    for family, kinds in (("card", elements.BOARD_VOCABULARY), ("element", elements.ELEMENT_KINDS)):
        for kind in kinds:
            schema = kind_schema(family, kind)
            jsonschema.Draft202012Validator.check_schema(schema)
            assert schema["properties"]["kind"] == {"const": kind}
            # Every $ref resolves inside the document itself.
            for ref in set(re.findall(r'"\$ref": "#/\$defs/([^"]+)"', json.dumps(schema))):
                assert ref in schema["$defs"], (family, kind, ref)
