"""Card images through the adapters: an MCP client session gets image content it can look
at with the rest beside it; HTTP reaches the operation at its generic route."""

from __future__ import annotations

import base64
import io
import json

import anyio
import mcp_types as types
from mcp.client.session import ClientSession
from PIL import Image

from layoutkit import Workspace
from layoutkit.adapters.http import create_app
from layoutkit.adapters.mcp import call_tool
from tests.adapters.conftest import Api, LiveServer, mcp_session


def _png(w: int, h: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (w, h), (30, 140, 200)).save(out, format="PNG")
    return out.getvalue()


def _board(ws: Workspace) -> list[int]:
    ws.call("create", {"kind": "board", "slug": "home"})
    files = [
        {"name": f"s{i}.png", "data": base64.b64encode(_png(640, 400)).decode()} for i in range(2)
    ]
    return [c["id"] for c in ws.call("upload_files", {"board": "home", "files": files})["cards"]]


def test_mcp_session_receives_image_content() -> None:
    ws = Workspace.open()
    ids = _board(ws)
    token = ws.create_token("agent", "claude")

    async def script(session: ClientSession):  # type: ignore[no-untyped-def]
        one = await session.call_tool("get_card_image", {"board": "home", "cardId": ids[0]})
        survey = await session.call_tool("get_card_image", {"board": "home", "cardIds": ids})
        bad = await session.call_tool(
            "get_card_image", {"board": "home", "cardIds": list(range(1, 14))}
        )
        return one, survey, bad

    async def main():  # type: ignore[no-untyped-def]
        with LiveServer(create_app(ws)) as server:
            async with mcp_session(server.url, token) as session:
                return await script(session)

    one, survey, bad = anyio.run(main)
    ws.close()
    assert one.is_error is False
    image, rest = one.content
    assert isinstance(image, types.ImageContent) and image.mime_type == "image/png"
    assert base64.b64decode(image.data) == _png(640, 400)
    assert isinstance(rest, types.TextContent)
    described = json.loads(rest.text)
    assert described == one.structured_content
    assert described["image"] == {"mime": "image/png"}  # the bytes travel once, as the image
    assert (described["width"], described["cardVersion"], described["source"]) == (640, 1, "image")

    sheet, listing = survey.content
    assert isinstance(sheet, types.ImageContent)
    drawn = Image.open(io.BytesIO(base64.b64decode(sheet.data)))
    tiles = json.loads(listing.text)["tiles"]  # type: ignore[union-attr]
    assert drawn.size == (survey.structured_content["width"], survey.structured_content["height"])
    assert [t["label"] for t in tiles] == [f"#{i}" for i in ids]
    assert bad.is_error is True
    assert (bad.structured_content["code"], bad.structured_content["field"]) == (
        "too_many_cards",
        "cardIds",
    )


def test_a_text_block_beside_an_image_is_text_content_of_its_own() -> None:
    # The result-shape rule on its own, through the adapter's result builder.
    from layoutkit.service.road.registry import REGISTRY, declare

    def handler(call):  # type: ignore[no-untyped-def]
        return {"n": 1, "text": "T1 cardId=1\n", "image": {"mime": "image/png", "data": "aGk="}}

    ws = Workspace.open()
    op = declare("sheet_probe", "test only", {"properties": {}}, handler, pure=True)
    ws.registry = type(REGISTRY)()
    ws.registry.add(op)
    result = call_tool(ws, "sheet_probe", {})
    ws.close()
    kinds = [type(c) for c in result.content]
    assert kinds == [types.ImageContent, types.TextContent, types.TextContent]
    assert result.content[1].text == "T1 cardId=1\n"  # type: ignore[union-attr]
    assert json.loads(result.content[2].text) == {"n": 1, "image": {"mime": "image/png"}}  # type: ignore[union-attr]
    assert result.structured_content == {
        "n": 1,
        "image": {"mime": "image/png"},
        "text": "T1 cardId=1\n",
    }


def test_http_generic_route(api: Api) -> None:
    ids = _board(api.ws)
    got = api.op("get_card_image", {"board": "home", "cardId": ids[1], "maxDim": 320})
    assert got.status_code == 200, got.text
    body = got.json()
    assert (body["width"], body["height"], body["imageWidth"]) == (320, 200, 640)
    assert Image.open(io.BytesIO(base64.b64decode(body["image"]["data"]))).size == (320, 200)
    outside = api.op(
        "get_card_image",
        {"board": "home", "cardId": ids[1], "region": {"x": 900, "y": 0, "w": 5, "h": 5}},
    )
    assert (outside.status_code, outside.json()["code"], outside.json()["field"]) == (
        400,
        "region_outside",
        "region",
    )
