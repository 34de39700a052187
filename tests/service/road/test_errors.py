"""Engine refusals get their status from the service's one table, body unchanged."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

from layoutkit import ServiceError, Workspace
from layoutkit.errors import DiagramError, LayoutError, show
from layoutkit.service.road.errors import (
    DEFAULT_STATUS,
    STATUS_BY_CODE,
    STORAGE_STATUS,
    to_service_error,
)
from layoutkit.service.road.registry import Registry, declare
from layoutkit.storage import BusyError, ConflictError, NotFoundError, StorageError


def test_engine_refusal_keeps_code_message_and_fields_in_order() -> None:
    err = to_service_error(
        LayoutError("section_near_match", "no section Reserch", didYouMean=["Research"], index=2)
    )
    assert (err.status, err.code, err.message) == (409, "section_near_match", "no section Reserch")
    assert list(err.body.items()) == [
        ("code", "section_near_match"),
        ("message", "no section Reserch"),
        ("didYouMean", ["Research"]),
        ("index", 2),
    ]


def test_status_comes_from_the_table_and_an_unlisted_code_is_a_bad_request() -> None:
    assert to_service_error(DiagramError("composition_findings", "m")).status == 422
    assert to_service_error(LayoutError("unknown_card", "m", id=7)).status == 404
    assert "no_such_code" not in STATUS_BY_CODE
    assert to_service_error(LayoutError("no_such_code", "m")).status == DEFAULT_STATUS == 400


# ------------------------------------------------------------------ storage errors


def _storage_exception_classes() -> set[type[BaseException]]:
    """Every exception class a module of the storage package defines."""
    import layoutkit.storage as storage

    found: set[type[BaseException]] = set()
    for info in pkgutil.walk_packages(storage.__path__, f"{storage.__name__}."):
        if ".migrations." in info.name:
            continue
        module = importlib.import_module(info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__ == module.__name__:
                found.add(value)
    return found


def test_every_exception_class_of_the_storage_package_has_a_status_and_code() -> None:
    classes = _storage_exception_classes()
    assert StorageError in classes and BusyError in classes
    assert classes <= set(STORAGE_STATUS), sorted(c.__name__ for c in classes - set(STORAGE_STATUS))


def _road(raised: Exception) -> Workspace:
    registry = Registry()
    registry.add(
        declare("fails", "raises a storage error", {"additionalProperties": False}, _raise(raised))
    )
    return Workspace(Workspace.open().store, registry=registry)


def _raise(err: Exception):  # type: ignore[no-untyped-def]
    def handler(call: object) -> dict:
        raise err

    return handler


@pytest.mark.parametrize(
    ("raised", "status", "code", "message"),
    [
        (ConflictError("project 'big' exists"), 409, "conflict", "project 'big' exists"),
        (NotFoundError("no row 7"), 404, "not_found", "no row 7"),
        (BusyError("database is locked"), 503, "busy", None),
        (StorageError("write in a read transaction"), 500, "storage_error", None),
    ],
)
def test_a_storage_error_leaves_the_road_as_a_service_error(
    raised: Exception, status: int, code: str, message: str | None
) -> None:
    """A storage error reaching Workspace.call was a crash for embedding code and a 500
    without a code over HTTP."""
    ws = _road(raised)
    with pytest.raises(ServiceError) as refused:
        ws.call("fails", {})
    err = refused.value
    assert (err.status, err.code) == (status, code)
    if message is not None:
        assert err.body["message"] == message
    else:
        # The store's own words name internals; the answer does not repeat them.
        assert str(raised) not in err.body["message"]
    assert ("retryAfter" in err.body) == (code == "busy")


def _refusal(ws: Workspace, op: str, params: dict) -> ServiceError:
    with pytest.raises(ServiceError) as err:
        ws.call(op, params)
    return err.value


def test_a_refusal_quotes_a_long_value_in_part_with_its_length() -> None:
    ws = Workspace.open()
    ws.call("create", {"kind": "board", "slug": "b"})
    slug = _refusal(ws, "get", {"kind": "board", "slug": "z" * 500})
    assert "… (500 characters) does not match" in slug.message
    assert "z" * 121 not in slug.message and len(slug.message) < 250
    colour = _refusal(
        ws,
        "compose_board",
        {"board": "b", "cards": [{"kind": "note", "payload": {"md": "x", "color": "c" * 4001}}]},
    )
    assert "(4,001 characters)" in colour.message and "c" * 121 not in colour.message
    shown = colour.body["findings"][0]["message"]
    assert "c" * 121 not in shown


def test_a_refusal_names_a_long_list_of_ids_by_its_first_and_its_count() -> None:
    ws = Workspace.open()
    ws.call("create", {"kind": "board", "slug": "b"})
    missing = list(range(10**6, 10**6 + 202))
    err = _refusal(ws, "agent_verdict", {"board": "b", "action": "accept", "ids": missing})
    assert "1000009, … (202 in all)" in err.message and "1000010" not in err.message
    assert show([1, 2, 3]) == "[1, 2, 3]"
    assert show(list(range(300))).endswith(", …] (300 items)")
