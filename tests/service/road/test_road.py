"""The road every operation travels (``Workspace.call``): declared needs, done once.

An operation declares which param names its board, whether it writes, who may
call it and what it prepares before the transaction; the road opens the one
transaction, finds and access-checks the board, and replays or records the
requestKey. These tests pin each step, on real operations and on a registry of
test operations that observe what the road handed them.
"""

from __future__ import annotations

import ast
import base64
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator, SchemaError
from PIL import Image

import layoutkit.service
from layoutkit import Principal, ServiceError, Workspace
from layoutkit.service import REGISTRY, Registry
from layoutkit.service.road.generic import _HANDLERS
from layoutkit.service.road.registry import Operation, declare
from layoutkit.storage import NewCard, open_store
from tests.service.helpers import err

AGENT = Principal.agent("claude")


def _every_operation() -> list[Operation]:
    kinds = [op for verb in _HANDLERS.values() for op in verb.values()]
    return [op for op in REGISTRY if op.kinds is None] + kinds


def test_every_writing_operation_takes_a_request_key() -> None:
    writers = [op for op in _every_operation() if op.writes]
    assert len(writers) >= 12
    for op in writers:
        assert op.idempotent, op.name
        assert "requestKey" in op.params_schema["properties"], op.name


def test_reads_never_take_a_request_key() -> None:
    for op in _every_operation():
        if not op.writes:
            assert "requestKey" not in op.params_schema.get("properties", {}), op.name


def _board(ws: Workspace, slug: str = "road") -> None:
    ws.call("create", {"kind": "board", "slug": slug})


def _card(ws: Workspace, slug: str = "road") -> int:
    r = ws.call(
        "compose_board",
        {"board": slug, "cards": [{"kind": "text", "payload": {"md": "hello"}}]},
        AGENT,
    )
    return int(r["cards"][0]["id"])


def _png() -> str:
    buf = io.BytesIO()
    Image.new("RGB", (40, 20), "red").save(buf, "PNG")
    return base64.b64encode(buf.getvalue()).decode()


def _question(ws: Workspace) -> int:
    r = ws.call("ask_board", {"board": "road", "prompt": "Ship it?", "options": ["yes", "no"]})
    return int(r["question"]["id"])


# Each entry: set up the board, then the params of one keyed write. The road
# must answer the retry with the first receipt, without writing again.
KEYED: dict[str, Callable[[Workspace], dict[str, Any]]] = {
    "compose_board": lambda ws: {
        "board": "road",
        "cards": [{"kind": "note", "payload": {"md": "n"}}],
    },
    "set_board_meta": lambda ws: {"board": "road", "tags": ["a"]},
    "share_board": lambda ws: {"board": "road"},
    "ask_board": lambda ws: {"board": "road", "prompt": "Which?", "options": ["a", "b"]},
    "arrange": lambda ws: {"board": "road", "mode": "column", "scope": "all"},
    "update_cards": lambda ws: {"patch": [{"id": _card(ws), "payload": {"md": "changed"}}]},
    "refresh_card": lambda ws: {
        "id": ws.call(
            "compose_board",
            {
                "board": "road",
                "cards": [
                    {
                        "kind": "diagram",
                        "payload": {"title": "Flow", "diagram_text": "graph LR\n A-->B"},
                    }
                ],
            },
        )["cards"][0]["id"]
    },
    "upload_files": lambda ws: {
        "board": "road",
        "files": [{"name": "a.png", "data": _png()}],
    },
    "answer_question": lambda ws: {"id": _question(ws), "answer": "a"},
    "send_answers": lambda ws: {"board": "road"},
}


@pytest.mark.parametrize("op", sorted(KEYED))
def test_a_keyed_write_replays_its_first_receipt(ws: Workspace, op: str) -> None:
    _board(ws)
    params = {**KEYED[op](ws), "requestKey": f"key-{op}"}
    if op == "answer_question":
        params["answer"] = "yes"
    before = ws.call("scrape_board", {"board": "road"})
    first = ws.call(op, params)
    between = ws.call("scrape_board", {"board": "road"})
    again = ws.call(op, params)
    after = ws.call("scrape_board", {"board": "road"})
    assert again == first
    # The retry wrote nothing: the board reads the same as after the first call.
    assert after == between
    if op in ("compose_board", "upload_files", "ask_board"):
        assert between != before


def test_a_key_reused_with_other_input_conflicts(ws: Workspace) -> None:
    _board(ws)
    ws.call("set_board_meta", {"board": "road", "tags": ["a"], "requestKey": "k"})
    e = err(ws, "set_board_meta", {"board": "road", "tags": ["b"], "requestKey": "k"})
    assert (e.status, e.code) == (409, "request_key_conflict")


def test_create_board_is_keyed_too(ws: Workspace) -> None:
    first = ws.call("create", {"kind": "board", "slug": "k1", "requestKey": "c"})
    assert ws.call("create", {"kind": "board", "slug": "k1", "requestKey": "c"}) == first
    e = err(ws, "create", {"kind": "board", "slug": "k2", "requestKey": "c"})
    assert e.code == "request_key_conflict"


def test_get_and_update_take_slug_as_well_as_board(ws: Workspace) -> None:
    _board(ws)
    by_slug = ws.call("get", {"kind": "board", "slug": "road"})
    assert by_slug == ws.call("get", {"kind": "board", "board": "road"})
    assert ws.call("get", {"kind": "board", "slug": "road", "board": "road"}) == by_slug
    r = ws.call("update", {"kind": "board", "slug": "road", "tags": ["x"]})
    assert r["board"]["tags"] == ["x"]


def test_slug_and_board_that_differ_are_refused(ws: Workspace) -> None:
    _board(ws)
    _board(ws, "other")
    e = err(ws, "get", {"kind": "board", "board": "road", "slug": "other"})
    assert (e.status, e.code, e.body["field"]) == (400, "invalid_params", "slug")


def test_neither_slug_nor_board_names_the_field_to_send(ws: Workspace) -> None:
    e = err(ws, "get", {"kind": "board"})
    assert (e.status, e.code, e.body["field"]) == (400, "invalid_params", "board")
    assert "slug" in e.body["message"]


def test_unknown_board_is_404_with_suggestions_for_every_board_operation(ws: Workspace) -> None:
    _board(ws, "roadmap")
    for op, params in (
        ("scrape_board", {"board": "roadmp"}),
        ("compose_board", {"board": "roadmp", "cards": [{"kind": "note", "payload": {"md": "n"}}]}),
        ("get", {"kind": "board", "slug": "roadmp"}),
        ("arrange", {"board": "roadmp", "mode": "grid"}),
        ("board_stamp", {"board": "roadmp"}),
    ):
        e = err(ws, op, params)
        assert (e.status, e.code) == (404, "unknown_board"), op
        assert e.body["didYouMean"] == ["roadmap"], op


def test_share_links_reach_only_declared_operations_on_their_board(ws: Workspace) -> None:
    _board(ws)
    _board(ws, "other")
    view = Principal.share("road", "view")
    for op, params in (
        ("scrape_board", {"board": "road"}),
        ("get", {"kind": "board", "board": "road"}),
        ("get", {"kind": "questions", "board": "road"}),
        ("board_stamp", {"board": "road"}),
        ("render_board", {"board": "road"}),
        ("docs", {}),
    ):
        ws.call(op, params, view)
    e = err(ws, "scrape_board", {"board": "other"}, view)
    assert (e.status, e.code) == (403, "forbidden")
    for op, params in (
        ("compose_board", {"board": "road", "cards": [{"kind": "note", "payload": {"md": "n"}}]}),
        ("share_board", {"board": "road"}),
        ("list", {"kind": "board"}),
        ("search", {"q": "road"}),
    ):
        e = err(ws, op, params, view)
        assert (e.status, e.code, e.body["operation"]) == (403, "forbidden", op)


def test_operations_for_people_refuse_agents_before_any_lookup(ws: Workspace) -> None:
    # The board does not exist: the refusal comes from the declaration, not the handler.
    e = err(ws, "send_answers", {"board": "nowhere"}, AGENT)
    assert (e.status, e.code) == (403, "forbidden")
    e = err(ws, "answer_question", {"id": 1, "answer": "a"}, Principal.service("ci"))
    assert (e.status, e.code, e.body["allowed"]) == (403, "forbidden", ["owner", "user"])


# --- the road itself, observed through test operations -----------------------------


class _Seen:
    def __init__(self) -> None:
        self.prepared = 0
        self.calls: list[Any] = []


def _test_workspace(seen: _Seen, *, fail_after_write: bool = False) -> Workspace:
    registry = Registry()

    def prepare(call: Any) -> str:
        seen.prepared += 1
        return "ready"

    @registry.operation(
        "touch",
        "Add a note to a board.",
        {"required": ["board"], "properties": {"board": {"type": "string"}}},
        board="board",
        writes=True,
        prepare=prepare,
    )
    def touch(call: Any) -> dict[str, Any]:
        seen.calls.append(call)
        call.tx.insert_cards(call.board.id, [NewCard("note", {"md": "x"}, 0, 0, 10, 10, "ai", "t")])
        if fail_after_write:
            raise ServiceError(409, "late_refusal", "refused after writing")
        return {"cards": call.tx.count_cards(call.board.id), "prepared": call.prepared}

    @registry.operation(
        "peek",
        "Count a board's cards.",
        {"required": ["board"], "properties": {"board": {"type": "string"}}},
        board="board",
        share=("view",),
    )
    def peek(call: Any) -> dict[str, Any]:
        seen.calls.append(call)
        return {"cards": call.tx.count_cards(call.board.id)}

    store = open_store(None)
    ws = Workspace(store, registry=registry)
    with store.transaction() as tx:
        tx.create_board(ws.workspace_id, "b", created_by="test")
        tx.create_board(ws.workspace_id, "alpha", created_by="test")
    return ws


def test_the_handler_receives_the_transaction_the_board_and_what_was_prepared() -> None:
    seen = _Seen()
    ws = _test_workspace(seen)
    assert ws.call("touch", {"board": "b"}) == {"cards": 1, "prepared": "ready"}
    call = seen.calls[0]
    assert call.board.slug == "b"
    assert call.params == {"board": "b"}
    assert ws.call("peek", {"board": "b"}, Principal.share("b")) == {"cards": 1}


def test_a_replayed_key_skips_the_prepare_step_and_the_handler() -> None:
    seen = _Seen()
    ws = _test_workspace(seen)
    first = ws.call("touch", {"board": "b", "requestKey": "once"})
    again = ws.call("touch", {"board": "b", "requestKey": "once"})
    assert again == first
    assert (seen.prepared, len(seen.calls)) == (1, 1)


def test_a_refusal_after_a_write_leaves_nothing_behind_and_no_key() -> None:
    seen = _Seen()
    ws = _test_workspace(seen, fail_after_write=True)
    e = err(ws, "touch", {"board": "b", "requestKey": "k"})
    assert e.code == "late_refusal"
    assert ws.call("peek", {"board": "b"}) == {"cards": 0}
    with ws.store.read() as tx:
        assert tx.request_key(f"{ws.workspace_id}:owner:owner", "k") is None


def test_the_road_refuses_an_unknown_board_before_the_handler_runs() -> None:
    seen = _Seen()
    ws = _test_workspace(seen)
    e = err(ws, "touch", {"board": "alpah"})
    assert (e.status, e.code, e.body["didYouMean"]) == (404, "unknown_board", ["alpha"])
    assert seen.calls == []


# --- the shape: handlers hold only what is particular to them ----------------------

_SERVICE = Path(layoutkit.service.__file__).parent


def _calls(tree: ast.AST) -> list[str]:
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            names.append(f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", ""))
    return names


def test_only_the_road_opens_transactions() -> None:
    for path in sorted(_SERVICE.rglob("*.py")):
        if path.name == "workspace.py":
            continue
        calls = _calls(ast.parse(path.read_text()))
        assert "transaction" not in calls, path.name
        assert "read" not in calls, path.name
        assert "lock_board" not in calls, path.name


def test_no_operation_imports_another_operations_handler() -> None:
    handlers = {
        (op.handler.__module__, op.handler.__name__)
        for op in _every_operation()
        if op.handler.__module__.startswith("layoutkit.service.")
    }
    assert len(handlers) >= 20
    for path in sorted(_SERVICE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    assert (node.module, alias.name) not in handlers, (path.name, alias.name)


def test_integer_params_take_only_integers(ws: Workspace) -> None:
    # JSON Schema alone counts 1.0 as an integer; handlers slice and look up by them.
    e = err(ws, "search", {"q": "x", "limit": 1.0})
    assert (e.status, e.code, e.body["field"]) == (400, "invalid_params", "limit")
    e = err(ws, "refresh_card", {"id": True})
    assert (e.status, e.body["field"]) == (400, "id")
    found = ws.call("search", {"q": "x", "limit": 1})
    assert found["groups"]["cards"] == [] and found["corrections"] == []


def test_every_schema_of_every_operation_is_valid_json_schema() -> None:
    # declare() meta-checks none (that cost most of a second of every start): the
    # checked schema is meta-checked before its first use, and every schema here.
    for op in _every_operation():
        Draft202012Validator.check_schema(op.validator.schema)
        Draft202012Validator.check_schema(op.params_schema)
        for variant in op.variants:
            Draft202012Validator.check_schema(variant)
        if op.output is not None:
            Draft202012Validator.check_schema(op.output)


def test_an_unsound_checked_schema_is_refused_before_it_checks_params() -> None:
    op = declare("unsound", "d", {"properties": {"n": {"type": 12}}}, lambda call: {}, pure=True)
    with pytest.raises(SchemaError):
        op.check_params({"n": 1})
