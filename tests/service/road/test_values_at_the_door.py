"""Values no request may carry are refused at the door, on every backend, with nothing written.

NaN and Infinity, integers over 64 bits, lone surrogates and runaway nesting
used to reach handlers: some answered 500, some were committed and then broke
every later read of the board (the HTTP layer cannot send NaN back).
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from layoutkit import Workspace
from layoutkit.limits import JSON_DEPTH, TITLE_CHARS

from ..helpers import err


def _board(ws: Workspace) -> list[int]:
    ws.call("create", {"kind": "board", "slug": "door"})
    receipt = ws.call(
        "compose_board",
        {
            "board": "door",
            "cards": [
                {"kind": "note", "payload": {"md": "a"}},
                {"kind": "note", "payload": {"md": "b"}},
            ],
        },
    )
    return [c["id"] for c in receipt["cards"]]


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def _hostile(ids: list[int]) -> list[tuple[str, str, dict[str, Any], str]]:
    a, b = ids
    region = {"x": math.nan, "y": 0, "w": 1, "h": 1}
    return [
        ("arrange gap NaN", "arrange", {"board": "door", "mode": "grid", "gap": math.nan}, "gap"),
        ("update x NaN", "update_cards", {"board": "door", "patch": [{"id": a, "x": math.nan}]},
         "patch[0].x"),
        ("update x -Infinity", "update_cards",
         {"board": "door", "patch": [{"id": a, "x": -math.inf}]}, "patch[0].x"),
        ("meta NaN", "set_board_meta", {"board": "door", "meta": {"k": math.nan}}, "meta.k"),
        ("meta Infinity deep", "set_board_meta",
         {"board": "door", "meta": {"k": [{"v": math.inf}]}}, "meta.k[0].v"),
        ("edge fromRegion NaN", "compose_board",
         {"board": "door", "cards": [], "edges": [{"from": a, "to": b, "fromRegion": region}]},
         "edges[0].fromRegion.x"),
        ("card payload NaN", "compose_board",
         {"board": "door", "cards": [{"kind": "note", "payload": {"md": "x", "n": math.nan}}]},
         "cards[0].payload.n"),
        ("meta integer of 5000 digits", "set_board_meta",
         {"board": "door", "meta": {"k": int("9" * 4000) * 10**1000}}, "meta.k"),
        ("anchor id over 64 bits", "compose_board",
         {"board": "door", "cards": [{"kind": "note", "payload": {"md": "x"}}],
          "anchor": {"cardId": 2**70, "relation": "after"}}, "anchor.cardId"),
        ("meta lone surrogate", "set_board_meta",
         {"board": "door", "meta": {"k": "a\ud800b"}}, "meta.k"),
        ("note md lone surrogate", "compose_board",
         {"board": "door", "cards": [{"kind": "note", "payload": {"md": "\udfff"}}]},
         "cards[0].payload.md"),
        ("key lone surrogate", "set_board_meta",
         {"board": "door", "meta": {"\ud83d": 1}}, "meta"),
        # PostgreSQL keeps no U+0000 in text or JSON: refused on every backend alike.
        ("note md NUL", "compose_board",
         {"board": "door", "cards": [{"kind": "note", "payload": {"md": "a\x00b"}}]},
         "cards[0].payload.md"),
        ("requestKey NUL", "compose_board",
         {"board": "door", "cards": [{"kind": "note", "payload": {"md": "x"}}],
          "requestKey": "k\x00"}, "requestKey"),
        ("key NUL", "set_board_meta", {"board": "door", "meta": {"a\x00": 1}}, "meta"),
    ]  # fmt: skip


def _code(name: str) -> str:
    if "surrogate" in name or "NUL" in name:
        return "invalid_text"
    return "invalid_number"


def test_hostile_values_are_refused_and_nothing_is_written(any_ws: Workspace) -> None:
    ids = _board(any_ws)
    before = any_ws.call("scrape_board", {"board": "door"})
    board_before = any_ws.call("get", {"kind": "board", "board": "door"})
    for name, op, params, field in _hostile(ids):
        e = err(any_ws, op, params)
        assert (e.status, e.code) == (400, _code(name)), name
        assert e.body["field"] == field, name
    assert any_ws.call("scrape_board", {"board": "door"}) == before
    assert any_ws.call("get", {"kind": "board", "board": "door"}) == board_before


def test_reads_still_work_after_hostile_writes(any_ws: Workspace) -> None:
    # The poisoning case: once NaN was stored, every later read of the board failed.
    ids = _board(any_ws)
    for _name, op, params, _field in _hostile(ids):
        err(any_ws, op, params)
    board = any_ws.call("get", {"kind": "board", "board": "door"})
    listed = any_ws.call("list", {"kind": "board"})
    scraped = any_ws.call("scrape_board", {"board": "door"})
    # Every answer can be sent as strict JSON (no NaN, no lone surrogate).
    for answer in (board, listed, scraped):
        json.dumps(answer, allow_nan=False).encode("utf-8")
    assert len(scraped["cards"]) == 2


def test_nesting_past_the_depth_limit_is_413_naming_it(ws: Workspace) -> None:
    _board(ws)
    deep = err(ws, "set_board_meta", {"board": "door", "meta": {"k": _nested(10_000)}})
    assert (deep.status, deep.code) == (413, "limit_exceeded")
    assert deep.body["limit"] == "jsonDepth"
    assert deep.body["max"] == JSON_DEPTH
    assert deep.body["value"] == JSON_DEPTH + 1
    # Depth just inside the limit is fine (params object + meta + k = 3 levels).
    ws.call("set_board_meta", {"board": "door", "meta": {"k": _nested(JSON_DEPTH - 3)}})


@pytest.mark.parametrize("value", [0.0, -0.0, 1e308, 2**63 - 1, -(2**63), "é😀"])
def test_ordinary_values_pass(ws: Workspace, value: Any) -> None:
    _board(ws)
    got = ws.call("set_board_meta", {"board": "door", "meta": {"k": value}})
    assert got["board"]["meta"]["k"] == value


def test_a_board_title_over_the_cap_is_refused_naming_the_limit(ws: Workspace) -> None:
    huge = "t" * 1_000_000
    created = err(ws, "create", {"kind": "board", "slug": "long", "meta": {"title": huge}})
    assert (created.status, created.code) == (413, "limit_exceeded")
    assert created.body["limit"] == "titleChars"
    assert created.body["max"] == TITLE_CHARS
    assert created.body["value"] == 1_000_000
    assert created.body["field"] == "meta.title"
    _board(ws)
    patched = err(ws, "set_board_meta", {"board": "door", "meta": {"title": huge}})
    assert (patched.code, patched.body["limit"]) == ("limit_exceeded", "titleChars")
    assert "title" not in ws.call("get", {"kind": "board", "board": "door"})["board"]["meta"]
    # At the cap it is accepted.
    ws.call("set_board_meta", {"board": "door", "meta": {"title": "t" * TITLE_CHARS}})
