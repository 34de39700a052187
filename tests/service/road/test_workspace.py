"""The public face: Workspace.call, the registry and ServiceError."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutkit
from layoutkit import Principal, ServiceError, Workspace


def test_public_surface_is_pinned() -> None:
    assert sorted(layoutkit.__all__) == [
        "AsyncClient",
        "Client",
        "Principal",
        "ServiceError",
        "Workspace",
    ]


def test_unknown_operation_is_404_with_suggestions(ws: Workspace) -> None:
    with pytest.raises(ServiceError) as exc:
        ws.call("validat", {})
    err = exc.value
    assert err.status == 404
    assert err.code == "unknown_operation"
    assert err.body["code"] == "unknown_operation"
    assert "validate" in err.body["didYouMean"]
    assert err.body["message"]


def test_params_must_be_an_object(ws: Workspace) -> None:
    with pytest.raises(ServiceError) as exc:
        ws.call("docs", ["topic"])  # type: ignore[arg-type]
    assert (exc.value.status, exc.value.code) == (400, "invalid_params")


def test_invalid_params_names_the_field(ws: Workspace) -> None:
    with pytest.raises(ServiceError) as exc:
        ws.call("docs", {"topic": 7})
    assert exc.value.status == 400
    assert exc.value.code == "invalid_params"
    assert exc.value.body["field"] == "topic"


def test_unexpected_param_is_named(ws: Workspace) -> None:
    with pytest.raises(ServiceError) as exc:
        ws.call("docs", {"topc": "chart"})
    assert exc.value.body["field"] == "topc"


def test_validate_needs_exactly_one_of_element_or_card(ws: Workspace) -> None:
    with pytest.raises(ServiceError) as exc:
        ws.call("validate", {})
    assert exc.value.code == "invalid_params"
    with pytest.raises(ServiceError):
        ws.call("validate", {"element": {}, "card": {}})


def test_operations_come_from_one_registry(ws: Workspace) -> None:
    ops = ws.operations()
    names = [op["name"] for op in ops]
    assert {"validate", "docs"} <= set(names)
    assert len(names) == len(set(names))
    for op in ops:
        assert set(op) == {"name", "description", "params_schema"}
        assert op["params_schema"]["type"] == "object"
        assert op["description"]
        json.dumps(op)  # the schema is plain JSON


def test_results_are_json_serialisable(ws: Workspace) -> None:
    result = ws.call("validate", {"element": {"kind": "prose", "payload": {"md": "Hi"}}})
    assert json.loads(json.dumps(result)) == result
    assert result["ok"] is True


def test_principals_map_to_layers() -> None:
    assert Principal.agent("claude").layer == "ai"
    assert Principal.service("ci").layer == "ai"
    assert Principal.user("ana").layer == "human"
    assert Principal.owner().layer == "human"
    assert Principal.agent("claude").label == "agent:claude"
    share = Principal.share("roadmap", "annotate")
    assert (share.board, share.mode) == ("roadmap", "annotate")


@settings(max_examples=60, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
        ),
        max_leaves=20,
    )
)
def test_any_json_params_give_a_result_or_a_service_error(value: object) -> None:
    ws = Workspace.open()
    for op in ("validate", "docs"):
        try:
            ws.call(op, value)  # type: ignore[arg-type]
        except ServiceError as err:
            assert 400 <= err.status < 500
