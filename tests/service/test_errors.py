"""Engine refusals get their status from the service's one table, body unchanged."""

from __future__ import annotations

from layoutkit.errors import DiagramError, LayoutError
from layoutkit.service.errors import DEFAULT_STATUS, STATUS_BY_CODE, to_service_error


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
