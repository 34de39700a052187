"""An agent that reads only the tool list and the errors can compose every kind.

For each card kind (through ``compose_board``) and each document element kind
(inside a doc, through ``push_doc``), a call carrying ONE mistake goes over a
real MCP client session; the scripted agent reads the tool error, corrects the
call from the error's machine-readable fields alone (tests/adapters/naive_agent.py)
and sends it again, until the call is accepted.
"""

from __future__ import annotations

import copy
from typing import Any

from mcp.client.session import ClientSession

from layoutkit import Workspace, elements
from tests.adapters.kind_examples import CARDS, ELEMENTS
from tests.adapters.mcp_memory import in_memory
from tests.adapters.naive_agent import until_accepted

#: Rounds an agent may need for one mistake (a placeholder may draw a second finding).
ROUNDS = 3


def _payload_shape(union: str, kind: str) -> dict[str, Any]:
    defs = elements.schema_defs()
    for variant in defs[union]["oneOf"]:
        if variant["properties"]["kind"]["const"] == kind:
            return defs[variant["properties"]["payload"]["$ref"].rsplit("/", 1)[-1]]
    raise KeyError(kind)


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    return elements.schema_defs()[ref.rsplit("/", 1)[-1]] if isinstance(ref, str) else node


def _top_mistake(shape: dict[str, Any], wrong: dict[str, Any]) -> str | None:
    props = {n: p for n, p in shape.get("properties", {}).items() if n not in _NAMES_A_RECORD}
    scalar = ("string", "number", "integer")
    for name in shape.get("required", ()):
        if name in wrong and props.get(name, {}).get("type") in scalar:
            del wrong[name]
            return "missing field"
    text = next((n for n in wrong if props.get(n, {}).get("type") == "string"), None)
    if text is not None:
        wrong[text] = 42
        return "wrong type"
    # (A wrong kind is a mistake of its own, made apart.)
    word = next((n for n in wrong if "enum" in props.get(n, {}) and n != "kind"), None)
    if word is not None:
        wrong[word] = "bogus"
        return "unknown value"
    return None


def _mistake(shape: dict[str, Any], wrong: dict[str, Any]) -> str | None:
    how = _top_mistake(shape, wrong)
    if how is not None:
        return how
    # Else one level down: an object member, or the first item of a list.
    for name, value in wrong.items():
        member = _resolve(shape.get("properties", {}).get(name, {}))
        if isinstance(value, dict) and name != "payload":
            how = _mistake(member, value)
            if how is not None:
                return f"{how} in {name}"
        inner = _resolve(member.get("items", {}))
        if isinstance(value, list) and value and isinstance(value[0], dict):
            how = _mistake(inner, value[0])
            if how is not None:
                return f"{how} in {name}[0]"
        if isinstance(value, list) and value and "string" in str(inner.get("type")):
            value[0] = 42
            return f"wrong type in {name}[0]"
    return None


def _payload_mistake(shape: dict[str, Any], payload: dict[str, Any]) -> tuple[str, dict]:
    """One mistake in ``payload``: a required text or number left out, else a text
    field sent as a number, else a word outside its field's allowed values, else the
    same in its first list's first item. (Content an agent never wrote, a whole list
    of columns, no error can give back.)"""
    wrong = copy.deepcopy(payload)
    how = _mistake(shape, wrong)
    assert how is not None, f"no mistake to make in {payload}"
    return how, wrong


#: Fields whose value names something else (a board, a file of the set, a page): no
#: error can say which one the caller means (nor, for a board it may not read, that
#: it exists), so the mistakes leave them alone. A board card has no other field.
_NAMES_A_RECORD = {"board", "src", "ref", "image", "page", "card", "section"}


def _card_calls() -> list[tuple[str, str, dict[str, Any]]]:
    calls = []
    for kind, payload in CARDS.items():
        if kind != "board":
            how, wrong = _payload_mistake(_payload_shape("card", kind), payload)
            calls.append((kind, how, {"kind": kind, "payload": wrong}))
        calls.append((kind, "misspelt kind", {"kind": kind + "z", "payload": payload}))
        calls.append((kind, "unknown field", {"kind": kind, "payload": payload, "colour": 1}))
    return calls


def _element_calls() -> list[tuple[str, str, dict[str, Any]]]:
    calls = []
    for kind, payload in ELEMENTS.items():
        how, wrong = _payload_mistake(_payload_shape("element", kind), payload)
        calls.append((kind, how, {"kind": kind, "payload": wrong}))
        calls.append((kind, "misspelt kind", {"kind": kind + "z", "payload": payload}))
    return calls


def _run(tool: str, calls: list[tuple[str, str, dict[str, Any]]], wrap: Any) -> list[Any]:
    ws = Workspace.open()
    ws.call("create", {"kind": "board", "slug": "other"})

    async def script(session: ClientSession) -> list[Any]:
        listed = {t.name for t in (await session.list_tools()).tools}
        assert {"create", tool} <= listed
        await session.call_tool("create", {"kind": "board", "slug": "naive"})

        async def send(arguments: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
            result = await session.call_tool(tool, arguments)
            return not result.is_error, dict(result.structured_content or {})

        outcomes = []
        for kind, how, item in calls:
            sent = wrap(item)
            accepted, errors = await until_accepted(send, sent, rounds=ROUNDS + 1)
            outcomes.append((kind, how, sent, accepted, errors))
        return outcomes

    return in_memory(ws, script)


def _check(outcomes: list[Any]) -> None:
    for kind, how, _sent, _accepted, errors in outcomes:
        assert errors, (kind, how)  # the mistake was refused...
        assert len(errors) <= ROUNDS, (kind, how, errors)  # ...and corrected from the errors
        first = errors[0]
        assert first["status"] == 400 and first["code"], (kind, how)
        # Every refusal names its path and where to read the shape, or the fix itself.
        assert first.get("hint") or first.get("docs"), (kind, how, first)
        assert first.get("path") or first.get("field"), (kind, how, first)
        if how in ("misspelt kind", "unknown field"):
            # The service knows the corrected call: one round, by the hint's patch.
            assert len(errors) == 1 and first["hint"]["patch"], (kind, how, first)
        if how == "misspelt kind":
            assert first["hint"]["patch"][0]["value"] == kind


def test_every_card_kind_is_composed_after_one_mistake() -> None:
    outcomes = _run(
        "compose_board", _card_calls(), lambda card: {"board": "naive", "cards": [card]}
    )
    assert {kind for kind, *_ in outcomes} == set(elements.BOARD_VOCABULARY)
    _check(outcomes)


def test_every_element_kind_is_pushed_in_a_doc_after_one_mistake() -> None:
    def doc(element: dict[str, Any]) -> dict[str, Any]:
        payload = {"title": "Report", "elements": [element]}
        return {"board": "naive", "doc": {"kind": "doc", "payload": payload}}

    outcomes = _run("push_doc", _element_calls(), doc)
    assert {kind for kind, *_ in outcomes} | {"doc"} == set(elements.ELEMENT_KINDS)
    _check(outcomes)
