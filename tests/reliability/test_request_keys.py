"""requestKey under retries and races, on SQLite and PostgreSQL.

- the same key and body answer the first receipt and write nothing more, for
  every kind of write;
- a changed body under a used key answers 409 request_key_conflict;
- the same key sent at the same moment from two processes writes once: one
  caller gets the receipt of the write, the other the replay of it
  (``LAYOUTKIT_RELIABILITY_KEY_RACES`` keys, default 50);
- keys belong to the calling principal: another principal's identical key is
  a fresh request.
"""

from __future__ import annotations

import base64
import io
import multiprocessing
from typing import Any

import pytest
from PIL import Image

from layoutkit import Principal, ServiceError, Workspace
from tests.reliability.conftest import Backend, consistency_problems, count

RACES = count("key_races", 50)
AGENT = Principal.agent("keys")
OTHER = Principal.agent("other")


def _png() -> str:
    buf = io.BytesIO()
    Image.new("RGB", (12, 9), "teal").save(buf, "PNG")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _state(ws: Workspace, slug: str) -> tuple[Any, ...]:
    """Everything a write can add to a board, compared before and after a replay."""
    with ws.store.read() as tx:
        board = tx.board_by_slug(ws.workspace_id, slug)
        assert board is not None
        return (
            sorted((c.id, c.version, c.deleted) for c in tx.cards(board.id, include_deleted=True)),
            len(tx.edges(board.id, include_trashed_ends=True)),
            len(tx.questions(board.id)),
            len(tx.events(board_id=board.id)),
            board.meta,
            len(tx.share_links(board.id)),
        )


def _writes(ws: Workspace) -> dict[str, dict[str, Any]]:
    """One keyed call of every write operation, on board ``k``."""
    ws.call("create", {"kind": "board", "slug": "k"})
    first = ws.call(
        "compose_board",
        {"board": "k", "cards": [{"kind": "note", "payload": {"md": f"n{i}"}} for i in range(6)]},
        AGENT,
    )
    ids = [c["id"] for c in first["cards"]]
    return {
        "compose_board": {
            "board": "k",
            "cards": [
                {"kind": "text", "ref": "a", "payload": {"md": "a"}},
                {"kind": "text", "ref": "b", "payload": {"md": "b"}},
            ],
            "edges": [{"from": "a", "to": "b"}],
            "questions": [{"prompt": "ok?", "options": ["yes"]}],
        },
        "update_cards": {"patch": [{"id": ids[0], "payload": {"md": "changed"}, "x": 900}]},
        "ask_board": {"board": "k", "prompt": "which?", "options": ["a", "b"]},
        "set_board_meta": {"board": "k", "tags": ["x"], "meta": {"note": "n"}},
        "share_board": {"board": "k", "mode": "view"},
        "push_doc": {
            "board": "k",
            "doc": {"kind": "doc", "payload": {"title": "D", "elements": []}},
        },
        "upload_files": {"board": "k", "files": [{"name": "a.png", "data": _png()}]},
        "arrange": {"board": "k", "mode": "grid", "scope": "ai"},
    }


def test_same_key_and_body_replays_and_writes_nothing(backend: Backend) -> None:
    with backend.open() as ws:
        for n, (op, params) in enumerate(_writes(ws).items()):
            keyed = {**params, "requestKey": f"key-{n}"}
            try:
                first = ws.call(op, keyed, AGENT)
            except ServiceError as exc:  # an op this build does not key is reported, not hidden
                pytest.fail(f"{op} with a requestKey: {exc}")
            before = _state(ws, "k")
            assert ws.call(op, keyed, AGENT) == first, op
            assert _state(ws, "k") == before, f"{op}: the replay wrote"
            changed = _changed(op, keyed)
            with pytest.raises(ServiceError) as exc:
                ws.call(op, changed, AGENT)
            assert (exc.value.status, exc.value.code) == (409, "request_key_conflict"), op
            assert _state(ws, "k") == before, f"{op}: the refused call wrote"
        assert not consistency_problems(backend, ws)


def _changed(op: str, params: dict[str, Any]) -> dict[str, Any]:
    """The same call with one value changed (still a valid call)."""
    out = dict(params)
    if op == "compose_board":
        out["cards"] = [*params["cards"], {"kind": "note", "payload": {"md": "extra"}}]
    elif op == "update_cards":
        out["patch"] = [{**params["patch"][0], "x": 901}]
    elif op == "ask_board":
        out["prompt"] = "which one?"
    elif op == "set_board_meta":
        out["tags"] = ["y"]
    elif op == "share_board":
        out["mode"] = "annotate"
    elif op == "push_doc":
        out["branch"] = "other"
    elif op == "upload_files":
        out["files"] = [{"name": "b.png", "data": params["files"][0]["data"]}]
    elif op == "arrange":
        out["mode"] = "column"
    return out


def test_keys_are_scoped_to_the_principal(backend: Backend) -> None:
    with backend.open() as ws:
        ws.call("create", {"kind": "board", "slug": "k"})

        def compose(who: Principal, md: str) -> dict[str, Any]:
            params = {"board": "k", "requestKey": "shared-key"}
            return ws.call(
                "compose_board", {**params, "cards": [{"kind": "note", "payload": {"md": md}}]}, who
            )

        mine = compose(AGENT, "mine")
        theirs = compose(OTHER, "theirs")  # another principal: a fresh write, not a 409
        person = compose(Principal.user("keys"), "person")  # same name, another kind
        ids = {mine["cards"][0]["id"], theirs["cards"][0]["id"], person["cards"][0]["id"]}
        assert len(ids) == 3
        assert compose(AGENT, "mine") == mine
        assert compose(OTHER, "theirs") == theirs
        with pytest.raises(ServiceError) as exc:
            compose(OTHER, "mine")
        assert exc.value.code == "request_key_conflict"
        cards = ws.call("scrape_board", {"board": "k"})["cards"]
        assert sorted(c["payload"]["md"] for c in cards) == ["mine", "person", "theirs"]
    # Another workspace in the same database knows nothing of these keys.
    other = Backend(backend.kind, backend.url, backend.name + "-2", backend.sqlite_path)
    with other.open() as ws2:
        ws2.call("create", {"kind": "board", "slug": "k"})
        fresh = ws2.call(
            "compose_board",
            {
                "board": "k",
                "requestKey": "shared-key",
                "cards": [{"kind": "note", "payload": {"md": "x"}}],
            },
            AGENT,
        )
        assert fresh["cards"][0]["id"] not in ids


def _racer(url: str, name: str, start: Any, out: Any) -> None:
    receipts: list[Any] = []
    try:
        with Workspace.open(url, name=name) as ws:
            for n in range(RACES):
                params = {
                    "board": "race",
                    "requestKey": f"race-{n}",
                    "cards": [
                        {"kind": "note", "payload": {"md": f"race {n}.{j}"}} for j in range(20)
                    ],
                }
                start.wait(timeout=60)
                receipts.append(ws.call("compose_board", params, AGENT))
        out.put(("ok", receipts))
    except BaseException as exc:  # reported to the parent
        out.put((repr(exc), receipts))


def test_same_key_at_once_from_two_processes_writes_once(backend: Backend) -> None:
    with backend.open() as ws:
        ws.call("create", {"kind": "board", "slug": "race"})
    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    start = ctx.Barrier(2)
    procs = [
        ctx.Process(target=_racer, args=(backend.url, backend.name, start, out)) for _ in range(2)
    ]
    for p in procs:
        p.start()
    (s1, r1), (s2, r2) = out.get(timeout=300), out.get(timeout=300)
    for p in procs:
        p.join(timeout=60)
    assert (s1, s2) == ("ok", "ok")
    # Both callers hold the same receipt for every key: one wrote, one replayed.
    assert r1 == r2
    with backend.open() as ws:
        assert not consistency_problems(backend, ws)
        cards = ws.call("scrape_board", {"board": "race"})["cards"]
    texts = sorted(c["payload"]["md"] for c in cards)
    assert texts == sorted(f"race {n}.{j}" for n in range(RACES) for j in range(20))
    assert sorted(c["id"] for c in cards) == sorted(c["id"] for r in r1 for c in r["cards"])
