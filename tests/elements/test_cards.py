"""Board vocabulary: every card kind, element kinds as cards, the card envelope."""

from __future__ import annotations

import copy

import pytest

from layoutkit import layout
from layoutkit.elements import CARD_KINDS, ELEMENT_KINDS, validate_card
from layoutkit.elements.vocab import FRAME_KINDS
from layoutkit.layout.sizing import is_content_sized
from tests.elements.conftest import VALID_CARDS, VALID_ELEMENTS, P, codes, errors, warnings


def card(kind: str, payload: object, **extra: object) -> dict:
    return {"kind": kind, "payload": payload, **extra}


def test_every_card_kind_has_a_valid_case() -> None:
    assert set(VALID_CARDS) == set(CARD_KINDS)
    assert len(CARD_KINDS) == 18


@pytest.mark.parametrize("kind", sorted(VALID_CARDS))
def test_valid_card_passes(kind: str) -> None:
    v = validate_card(card(kind, copy.deepcopy(VALID_CARDS[kind])))
    assert v.ok and errors(v) == [], codes(v)
    assert v.normalized["kind"] == kind


@pytest.mark.parametrize("kind", sorted(set(ELEMENT_KINDS) - set(CARD_KINDS)))
def test_element_kinds_are_cards_with_the_element_payload(kind: str) -> None:
    v = validate_card(card(kind, copy.deepcopy(VALID_ELEMENTS[kind])))
    assert v.ok, codes(v)


def test_where_a_name_is_both_the_card_meaning_wins() -> None:
    # A section card is a frame: the element's required elements list does not apply.
    v = validate_card(card("section", {"title": "Pass 1"}))
    assert v.ok
    assert v.normalized["payload"]["layout"] == {"mode": "grid", "cols": 2}
    # A compare card names two existing cards.
    assert not validate_card(card("compare", VALID_ELEMENTS["compare"])).ok


@pytest.mark.parametrize(("old", "new"), [("viz", "chart"), ("wireframe", "mockup")])
def test_retired_card_kinds_name_the_replacement(old: str, new: str) -> None:
    v = validate_card(card(old, {}))
    (f,) = v.findings
    assert (f.path, f.code, f.severity) == ("kind", "retired_kind", "error")
    assert repr(new) in f.message and repr(new) in (f.fix or "")
    assert v.normalized is None


def test_unknown_card_kind_lists_the_board_vocabulary() -> None:
    f = validate_card(card("sticky", {})).findings[0]
    assert f.code == "unknown_kind"
    assert "checklist" in f.message and "chart" in f.message


def test_doc_card_rejects_the_old_node_grammar() -> None:
    v = validate_card(card("doc", {"nodes": [{"type": "p", "text": "x"}]}))
    assert ("payload.nodes", "retired_grammar") in errors(v)


def test_doc_card_validates_its_elements_recursively() -> None:
    v = validate_card(card("doc", {"elements": [P, {"kind": "prose", "payload": {}}]}))
    assert ("payload.elements[1].payload.md", "missing_field") in errors(v)


def test_section_card_layout_null_is_kept() -> None:
    v = validate_card(card("section", {"title": "s", "layout": None}))
    assert v.ok and v.normalized["payload"]["layout"] is None


CARD_BAD = [
    ("text", {"md": "x", "role": "quote"}, ("payload.role", "unknown_value"), "error"),
    (
        "text",
        {"md": "x", "role": "heading", "level": 4},
        ("payload.level", "out_of_range"),
        "error",
    ),
    (
        "text",
        {"md": "x", "role": "heading", "level": 0},
        ("payload.level", "out_of_range"),
        "error",
    ),
    ("text", {"md": "x", "level": 2}, ("payload.level", "ignored_field"), "warning"),
    ("text", {"role": "idea"}, ("payload.md", "missing_field"), "error"),
    ("note", {"md": "x", "color": "orange"}, ("payload.color", "unknown_value"), "error"),
    ("shape", {"shape": "star"}, ("payload.shape", "unknown_value"), "error"),
    ("shape", {"tone": "purpel"}, ("payload.tone", "unknown_vocabulary"), "warning"),
    ("callout", {"md": "x", "tone": "danger"}, ("payload.tone", "unknown_value"), "error"),
    ("checklist", {"items": [{"done": True}]}, ("payload.items[0].text", "missing_field"), "error"),
    ("cluster", {"layout": {"mode": "column"}}, ("payload.layout.mode", "unknown_value"), "error"),
    (
        "cluster",
        {"layout": {"mode": "grid", "cols": 0}},
        ("payload.layout.cols", "out_of_range"),
        "error",
    ),
    ("section", {"layout": {"mode": "journey"}}, ("payload.layout.mode", "unknown_value"), "error"),
    ("step", {}, ("payload", "missing_field"), "error"),
    ("step", {"image": "a.png", "cardId": 3}, ("payload.cardId", "conflicting_fields"), "error"),
    ("compare", {"a": 1, "b": 2, "mode": "slide"}, ("payload.mode", "unknown_value"), "error"),
    ("compare", {"a": 1}, ("payload.b", "missing_field"), "error"),
    ("link", {"url": "ftp://example.com"}, ("payload.url", "bad_url"), "error"),
    ("link", {"url": "javascript:alert(1)"}, ("payload.url", "bad_url"), "error"),
    (
        "link",
        {"url": "https://x.example", "display": "full"},
        ("payload.display", "unknown_value"),
        "error",
    ),
    ("board", {}, ("payload.board", "missing_field"), "error"),
    ("api", {"paths": {}}, ("payload.openapi", "missing_field"), "error"),
    ("api", {"openapi": "3.0.0"}, ("payload.paths", "missing_field"), "error"),
    (
        "api",
        {"openapi": "3.0.0", "paths": {"/x": {"d": "y" * (512 * 1024)}}},
        ("payload", "too_large"),
        "error",
    ),
    ("artifact", {}, ("payload", "missing_field"), "error"),
    (
        "artifact",
        {"html": "<!doctype html>", "body": "<p>"},
        ("payload.body", "conflicting_fields"),
        "error",
    ),
    (
        "artifact",
        {"html": "<div>not a document</div>"},
        ("payload.html", "not_a_document"),
        "error",
    ),
    (
        "artifact",
        {"html": "<!doctype html>" + "x" * (8 * 1024 * 1024)},
        ("payload.html", "too_large"),
        "error",
    ),
    ("artifact", {"body": "<p>x</p>"}, ("payload.runtime", "missing_field"), "error"),
    (
        "artifact",
        {"body": "<p>x</p>", "runtime": "tw3"},
        ("payload.runtime", "unknown_value"),
        "error",
    ),
    ("chat", {"turns": []}, ("payload.turns", "too_few"), "error"),
    (
        "chat",
        {"turns": [{"role": "bot", "text": "x"}]},
        ("payload.turns[0].role", "unknown_value"),
        "error",
    ),
    ("file", {"size": 3}, ("payload.name", "missing_field"), "error"),
]


@pytest.mark.parametrize(("kind", "payload", "expected", "severity"), CARD_BAD)
def test_card_rule_violation_is_reported(
    kind: str, payload: dict, expected: tuple, severity: str
) -> None:
    v = validate_card(card(kind, payload))
    assert expected in (errors(v) if severity == "error" else warnings(v)), codes(v)


def test_api_card_title_defaults_to_info_title_and_keeps_the_description() -> None:
    spec = {
        "openapi": "3.1.0",
        "info": {"title": "Pets", "version": "1"},
        "paths": {"/pets": {}},
        "components": {"schemas": {}},
    }
    v = validate_card(card("api", spec))
    assert v.ok and v.findings == []
    assert v.normalized["payload"] == {**spec, "title": "Pets"}
    v = validate_card(card("api", {**spec, "title": "Mine"}))
    assert v.normalized["payload"]["title"] == "Mine"
    assert validate_card(card("api", {"swagger": "2.0", "paths": {}})).ok


def test_api_card_that_is_not_plain_json_is_refused() -> None:
    v = validate_card(card("api", {"openapi": "3", "paths": {}, "x": float("nan")}))
    assert ("payload", "not_serializable") in errors(v)


@pytest.mark.parametrize("start", ["<!DOCTYPE html>", "  \n<html lang=en>", "<!doctype HTML>"])
def test_artifact_html_starts_with_doctype_or_html(start: str) -> None:
    assert validate_card(card("artifact", {"html": start + "<body></body>"})).ok


def test_link_display_defaults_to_preview() -> None:
    v = validate_card(card("link", {"url": "http://example.com/a"}))
    assert v.normalized["payload"]["display"] == "preview"


def test_checklist_items_default_to_not_done() -> None:
    v = validate_card(card("checklist", {"items": [{"text": "a"}]}))
    assert v.normalized["payload"]["items"] == [{"text": "a", "done": False}]


def test_card_envelope_fields_are_type_checked_lightly() -> None:
    ok = card(
        "text",
        {"md": "x"},
        ref="t1",
        children=["a", 7],
        anchor={"ref": "t0", "relation": "under"},
        x=10,
        y=20,
        w=300,
        h=120,
    )
    v = validate_card(ok)
    assert v.ok and v.findings == []
    assert v.normalized["children"] == ["a", 7]
    bad = card("text", {"md": "x"}, ref=3, children="a", anchor={"relation": "inside"}, w=-1, z=1)
    v = validate_card(bad)
    assert {
        ("ref", "wrong_type"),
        ("children", "wrong_type"),
        ("anchor.relation", "unknown_value"),
        ("w", "out_of_range"),
    } <= set(errors(v))
    assert ("z", "unknown_field") in warnings(v)


def test_chart_card_may_carry_a_data_ref() -> None:
    v = validate_card(card("chart", {"viz": "pie"}, dataRef="sha256:abc"))
    assert v.ok and v.normalized["dataRef"] == "sha256:abc"
    assert ("dataRef", "misplaced_field") in errors(
        validate_card(card("text", {"md": "x"}, dataRef="r"))
    )


def test_frame_cards_are_not_document_sections() -> None:
    v = validate_card(card("section", {"title": "Pass 2"}))
    assert "id" not in v.normalized["payload"]
    v = validate_card(card("compare", {"a": 1, "b": 2}))
    assert v.normalized["payload"] == {"a": 1, "b": 2, "mode": "wipe"}


@pytest.mark.parametrize("kind", CARD_KINDS)
def test_frame_kinds_are_one_rule_for_the_contract_layout_and_sizing(kind: str) -> None:
    frame = kind in ("cluster", "section")
    assert (kind in FRAME_KINDS) is frame
    assert layout.Card(1, kind, {}, 0, 0, 10, 10).is_frame is frame
    assert is_content_sized(kind) is not frame
