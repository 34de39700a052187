"""The HTTP adapter against a running uvicorn on 127.0.0.1."""

from __future__ import annotations

import httpx

from tests.adapters.conftest import LiveServer


def test_ops_route_runs_the_operation(live_server: LiveServer) -> None:
    res = httpx.post(f"{live_server.url}/api/v1/ops/docs", json={"topic": "chart"})
    assert res.status_code == 200
    assert res.json()["topic"] == "chart"


def test_errors_map_to_status_and_body(live_server: LiveServer) -> None:
    res = httpx.post(f"{live_server.url}/api/v1/ops/docs", json={"topic": "chrat"})
    assert res.status_code == 404
    body = res.json()
    assert body["code"] == "unknown_topic"
    assert "chart" in body["didYouMean"]


def test_unknown_operation_is_404(live_server: LiveServer) -> None:
    res = httpx.post(f"{live_server.url}/api/v1/ops/compose_bored", json={})
    assert res.status_code == 404
    assert res.json()["code"] == "unknown_operation"


def test_bad_json_is_400(live_server: LiveServer) -> None:
    res = httpx.post(
        f"{live_server.url}/api/v1/ops/docs",
        content=b"{not json",
        headers={"content-type": "application/json"},
    )
    assert res.status_code == 400
    assert res.json()["code"] == "invalid_json"


def test_invalid_params_name_the_field(live_server: LiveServer) -> None:
    res = httpx.post(f"{live_server.url}/api/v1/ops/docs", json={"topic": 3})
    assert res.status_code == 400
    assert res.json()["field"] == "topic"


def test_oversized_body_is_413(live_server: LiveServer) -> None:
    big = b'{"element": "' + b"x" * (8 * 1024 * 1024 + 10) + b'"}'
    res = httpx.post(
        f"{live_server.url}/api/v1/ops/validate",
        content=big,
        headers={"content-type": "application/json"},
        timeout=30,
    )
    assert res.status_code == 413
    assert res.json()["code"] == "payload_too_large"


def test_openapi_document_lists_every_operation(live_server: LiveServer) -> None:
    doc = httpx.get(f"{live_server.url}/api/v1/openapi.json").json()
    assert doc["openapi"].startswith("3.1")
    ops = httpx.post(f"{live_server.url}/api/v1/ops/docs", json={}).json()
    assert ops["topics"]
    ids = {m["operationId"] for path in doc["paths"].values() for m in path.values()}
    assert {"validate", "docs"} <= ids
