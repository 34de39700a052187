"""MCP resources: ``layoutkit://`` addresses read through ``Workspace.call``.

Every address names an operation and its params (:func:`route`); reading one is
that call with the session's principal, so who may read what stays the road's
rule. The contract's schemas are read straight off ``layoutkit.elements`` (the
same tables ``validate`` and ``docs`` serve).

Subscriptions (stateful sessions only) watch a board the way the viewer's event
stream does: ``board_changes`` from the rev last seen, checked every
:data:`CHECK_S`, and at once when this process commits a write to a board
(``hooks.on_board_written``), so a change made by another process is seen too.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import weakref
from collections.abc import Callable
from typing import Any

import anyio
import attrs
import mcp_types as types
from mcp.shared.exceptions import MCPError

from layoutkit import ServiceError, Workspace, elements
from layoutkit.principal import Principal
from layoutkit.service.road import hooks

SCHEME = "layoutkit://"
JSON = "application/json"
PNG = "image/png"
MARKDOWN = "text/markdown"
SCHEMA_MIME = "application/schema+json"
#: JSON-RPC code for a resource that is not there (or not the caller's to read).
RESOURCE_NOT_FOUND = -32002
INVALID_PARAMS = -32602
#: Board resources a subscription may watch at once, per session.
MAX_SUBSCRIPTIONS = 50
#: Card images listed in resources/list, over all boards; the template reaches the rest.
MAX_LISTED_CARDS = 100
#: Seconds between looks at the watched boards (the viewer's stream looks as often).
CHECK_S = 0.5

_BOARD = re.compile(r"^boards/([a-z0-9][a-z0-9-]{0,79})(/picture\.png|/cards/([0-9]{1,12})\.png)?$")
_SCHEMA = re.compile(r"^schema/(card|element)(?:/([a-z][a-z0-9-]{0,40}))?$")

#: Which workspace a request's context works in, and as whom.
PlaceOf = Callable[[Any], tuple[Workspace, Principal | None]]
#: What a watch compares: a board's rev and its look, questions and findings stamps.
Stamp = tuple[int, Any, Any, Any]


@attrs.frozen
class Route:
    """What an address reads: an operation, its params, and how to turn the answer
    into contents (``json``, ``text`` (a docs topic) or ``png``)."""

    operation: str
    params: dict[str, Any]
    form: str
    mime: str


def route(uri: str) -> Route | dict[str, Any]:
    """The operation behind ``uri``, or (for a schema) the schema itself."""
    if not uri.startswith(SCHEME):
        raise MCPError(INVALID_PARAMS, f"not a layoutkit resource: {uri!r}")
    path = uri[len(SCHEME) :]
    if path.startswith("docs/") and len(path) > len("docs/"):
        return Route("docs", {"topic": path[len("docs/") :]}, "text", MARKDOWN)
    board = _BOARD.match(path)
    if board is not None:
        slug, tail, card = board.groups()
        if card is not None:
            return Route("get_card_image", {"board": slug, "cardId": int(card)}, "png", PNG)
        if tail:
            return Route("render_board", {"board": slug, "format": "png"}, "png", PNG)
        return Route("scrape_board", {"board": slug}, "json", JSON)
    found = _SCHEMA.match(path)
    if found is not None:
        return kind_schema(found.group(1), found.group(2))
    raise MCPError(RESOURCE_NOT_FOUND, f"no resource at {uri!r}")


def kind_schema(family: str, kind: str | None) -> dict[str, Any]:
    """The JSON Schema of one card or element kind (or of the whole union), with only
    the definitions it reaches."""
    if kind is None:
        return elements.card_schema() if family == "card" else elements.element_schema()
    kinds = elements.BOARD_VOCABULARY if family == "card" else elements.ELEMENT_KINDS
    if kind not in kinds:
        raise MCPError(RESOURCE_NOT_FOUND, f"no {family} kind named {kind!r}")
    defs = elements.schema_defs()
    union = defs[family]
    branch = next(b for b in union["oneOf"] if b["properties"]["kind"]["const"] == kind)
    body = {
        "title": f"{family} kind {kind}",
        "type": "object",
        "required": ["kind", "payload"],
        "properties": {**union.get("properties", {}), **branch["properties"]},
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **body,
        "$defs": {name: defs[name] for name in sorted(_reached(body, defs))},
    }


def _reached(node: Any, defs: dict[str, Any]) -> set[str]:
    seen: set[str] = set()
    todo = [node]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                name = ref[len("#/$defs/") :]
                if name not in seen and name in defs:
                    seen.add(name)
                    todo.append(defs[name])
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return seen


def read(ws: Workspace, uri: str, principal: Principal | None) -> types.ReadResourceResult:
    """Read ``uri`` as ``principal`` (blocking: run it in a worker thread)."""
    found = route(uri)
    if isinstance(found, dict):
        text = json.dumps(found, ensure_ascii=False)
        contents: Any = types.TextResourceContents(uri=uri, mime_type=SCHEMA_MIME, text=text)
        return types.ReadResourceResult(contents=[contents])
    try:
        out = ws.call(found.operation, found.params, principal)
    except ServiceError as err:
        # Another workspace's board reads as absent, exactly as the road answers it.
        code = RESOURCE_NOT_FOUND if err.status in (403, 404) else INVALID_PARAMS
        data = {"status": err.status, **err.body}
        raise MCPError(code, err.body.get("message", str(err)), data) from err
    if found.form == "png":
        blob = out["image"]["data"]
        contents = types.BlobResourceContents(uri=uri, mime_type=found.mime, blob=blob)
    else:
        text = out["text"] if found.form == "text" else json.dumps(out, ensure_ascii=False)
        contents = types.TextResourceContents(uri=uri, mime_type=found.mime, text=text)
    return types.ReadResourceResult(contents=[contents])


def listing(ws: Workspace, principal: Principal | None) -> list[types.Resource]:
    """Every docs topic, every kind's schema and each board ``principal`` can read."""
    out = [
        types.Resource(
            uri=f"{SCHEME}docs/{t['topic']}",
            name=f"docs {t['topic']}",
            description=t.get("summary"),
            mime_type=MARKDOWN,
        )
        for t in ws.call("docs", {}, principal)["topics"]
    ]
    for family, kinds in (("card", elements.BOARD_VOCABULARY), ("element", elements.ELEMENT_KINDS)):
        out += [
            types.Resource(
                uri=f"{SCHEME}schema/{family}/{kind}",
                name=f"schema {family} {kind}",
                mime_type=SCHEMA_MIME,
            )
            for kind in sorted(kinds)
        ]
    return out + _boards(ws, principal)


def _boards(ws: Workspace, principal: Principal | None) -> list[types.Resource]:
    try:
        boards = ws.call("list", {"kind": "board"}, principal)["boards"]
    except ServiceError:
        # A principal that may list no boards (a share link) simply sees none.
        return []
    out: list[types.Resource] = []
    budget = MAX_LISTED_CARDS
    for board in boards:
        slug = board["slug"]
        base = f"{SCHEME}boards/{slug}"
        title = board.get("title") or slug
        out.append(types.Resource(uri=base, name=f"board {slug}", title=title, mime_type=JSON))
        out.append(
            types.Resource(uri=f"{base}/picture.png", name=f"board {slug} picture", mime_type=PNG)
        )
        if budget > 0:
            ids = _card_ids(ws, slug, principal)[:budget]
            budget -= len(ids)
            out += [
                types.Resource(
                    uri=f"{base}/cards/{i}.png", name=f"board {slug} card {i}", mime_type=PNG
                )
                for i in ids
            ]
    return out


def _card_ids(ws: Workspace, slug: str, principal: Principal | None) -> list[int]:
    # The outline (each card's id and box) rather than a scrape: a listing needs only
    # the ids, and a scrape would read every payload of a large board.
    try:
        rows = ws.call("board_outline", {"board": slug}, principal)["cards"]
    except ServiceError:
        return []
    return [row[0] for row in rows]


TEMPLATES = [
    types.ResourceTemplate(
        uri_template=SCHEME + "boards/{slug}",
        name="board",
        description="A board read back as JSON (scrape_board).",
        mime_type=JSON,
    ),
    types.ResourceTemplate(
        uri_template=SCHEME + "boards/{slug}/picture.png",
        name="board picture",
        description="A board drawn as PNG (render_board).",
        mime_type=PNG,
    ),
    types.ResourceTemplate(
        uri_template=SCHEME + "boards/{slug}/cards/{id}.png",
        name="card image",
        description="One card's picture at its current version (get_card_image).",
        mime_type=PNG,
    ),
    types.ResourceTemplate(
        uri_template=SCHEME + "docs/{topic}",
        name="docs topic",
        description="A topic of the content contract or an operation (op:<name>).",
        mime_type=MARKDOWN,
    ),
    types.ResourceTemplate(
        uri_template=SCHEME + "schema/{family}/{kind}",
        name="kind schema",
        description="JSON Schema of a card kind (family card) or element kind (family element).",
        mime_type=SCHEMA_MIME,
    ),
]


def board_of(uri: str) -> str:
    """The slug of the board a subscribable address names."""
    found = _BOARD.match(uri[len(SCHEME) :]) if uri.startswith(SCHEME) else None
    if found is None:
        raise MCPError(INVALID_PARAMS, f"only board resources can be subscribed to, not {uri!r}")
    return found.group(1)


# Live watches of this process, woken when a board write commits here.
_WATCHES: weakref.WeakSet[Watch] = weakref.WeakSet()


def _wake(ws: Workspace, board_id: int, _rev_before: int) -> None:
    for watch in list(_WATCHES):
        if watch.ws is ws:
            watch.nudge()


hooks.on_board_written(_wake)


class Watch:
    """One connection's subscriptions: address -> board slug, and per board the stamp
    last told: its rev and the viewer's stamps of its look, questions and findings
    (``board_changes``), so a change of theme or a new question is told too."""

    def __init__(
        self, ws: Workspace, connection: Any, caller: Callable[[], Principal | None]
    ) -> None:
        self.ws = ws
        self.connection = connection
        # Asked again at every look, as the viewer's stream does: a revoked token
        # stops the watch instead of reading on with what it was once allowed.
        self.caller = caller
        self.uris: dict[str, str] = {}
        self.stamps: dict[str, Stamp] = {}
        self.loop = asyncio.get_running_loop()
        self.woken = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        _WATCHES.add(self)

    def close(self) -> None:
        """Stop watching: the connection is closing."""
        self.uris.clear()
        _WATCHES.discard(self)
        if self.task is not None:
            self.task.cancel()

    def nudge(self) -> None:
        # Called from the thread that committed the write.
        with contextlib.suppress(RuntimeError):  # the session's loop already closed
            self.loop.call_soon_threadsafe(self.woken.set)

    def _stamp(self, slug: str, since: int) -> Stamp:
        out = self.ws.call("board_changes", {"board": slug, "since": since}, self.caller())
        return (int(out["rev"]), out["look"], out["questions"], out["annotations"])

    async def add(self, uri: str) -> None:
        slug = board_of(uri)
        if uri not in self.uris and len(self.uris) >= MAX_SUBSCRIPTIONS:
            raise MCPError(INVALID_PARAMS, f"at most {MAX_SUBSCRIPTIONS} subscriptions per session")
        try:
            stamp = await anyio.to_thread.run_sync(self._stamp, slug, 0)
        except ServiceError as err:
            raise MCPError(RESOURCE_NOT_FOUND, err.body.get("message", str(err))) from err
        self.uris[uri] = slug
        self.stamps.setdefault(slug, stamp)
        if self.task is None or self.task.done():
            self.task = self.loop.create_task(self._run())

    def remove(self, uri: str) -> None:
        slug = self.uris.pop(uri, None)
        if slug is not None and slug not in self.uris.values():
            self.stamps.pop(slug, None)

    async def _run(self) -> None:
        while self.uris:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.woken.wait(), CHECK_S)
            self.woken.clear()
            await self._look()

    async def _look(self) -> None:
        for slug, seen in list(self.stamps.items()):
            try:
                now: Stamp | None = await anyio.to_thread.run_sync(self._stamp, slug, seen[0])
            except ServiceError:
                now = None  # removed, or no longer the principal's to read: tell once, then drop
            if now == seen:
                continue
            uris = [u for u, s in self.uris.items() if s == slug]
            for uri in uris:
                # Best effort: a dropped stream discards it (the SDK's notify never raises).
                await self.connection.send_resource_updated(uri)
            if now is None:
                for uri in uris:
                    self.remove(uri)
            elif slug in self.stamps:  # still watched after the await
                self.stamps[slug] = now


_STATE_KEY = "layoutkit.watch"


def _connection(session: Any) -> Any:
    # The lowlevel context hands over a per-request ServerSession; the watch must
    # live as long as the connection behind it, whose state and teardown it uses.
    return session._connection


async def subscribe(
    ws: Workspace, session: Any, uri: str, caller: Callable[[], Principal | None]
) -> None:
    """Watch the board ``uri`` names for the connection behind ``session``, reading
    it as whom ``caller()`` answers."""
    connection = _connection(session)
    watch = connection.state.get(_STATE_KEY)
    if watch is None:
        watch = connection.state[_STATE_KEY] = Watch(ws, connection, caller)
        connection.exit_stack.callback(watch.close)
    await watch.add(uri)


def unsubscribe(session: Any, uri: str) -> None:
    """Stop watching ``uri`` for the connection behind ``session``."""
    watch = _connection(session).state.get(_STATE_KEY)
    if watch is not None:
        watch.remove(uri)


def handlers(place: PlaceOf, *, subscriptions: bool) -> dict[str, Any]:
    """The ``Server`` keyword handlers for resources (and subscriptions when asked);
    ``place(ctx)`` says which workspace a request works in and as whom."""

    async def placed(ctx: Any) -> tuple[Workspace, Principal | None]:
        try:
            return await anyio.to_thread.run_sync(place, ctx)
        except ServiceError as err:
            raise MCPError(INVALID_PARAMS, err.body.get("message", str(err))) from err

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        ws, caller = await placed(ctx)
        found = await anyio.to_thread.run_sync(listing, ws, caller)
        return types.ListResourcesResult(resources=found)

    async def list_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=TEMPLATES)

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> Any:
        ws, caller = await placed(ctx)
        return await anyio.to_thread.run_sync(read, ws, str(params.uri), caller)

    out: dict[str, Any] = {
        "on_list_resources": list_resources,
        "on_list_resource_templates": list_templates,
        "on_read_resource": read_resource,
    }
    if not subscriptions:
        return out

    async def on_subscribe(ctx: Any, params: types.SubscribeRequestParams) -> types.EmptyResult:
        # A refused credential is refused here, not by the watch.
        ws, _caller = await placed(ctx)
        await subscribe(ws, ctx.session, str(params.uri), lambda: place(ctx)[1])
        return types.EmptyResult()

    async def on_unsubscribe(ctx: Any, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        unsubscribe(ctx.session, str(params.uri))
        return types.EmptyResult()

    return {**out, "on_subscribe_resource": on_subscribe, "on_unsubscribe_resource": on_unsubscribe}
