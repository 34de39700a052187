"""The generated JSON Schema describes the contract: it accepts whatever the validator accepts."""

from __future__ import annotations

import ast
import copy
import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from jsonschema import Draft202012Validator

from layoutkit.elements import (
    card_schema,
    card_variants,
    element_schema,
    schema_defs,
    validate_card,
    validate_element,
)
from layoutkit.elements._cards import BOARD_KINDS
from layoutkit.elements._element import ELEMENTS
from tests.elements.conftest import VALID_CARDS, VALID_ELEMENTS
from tests.elements.test_properties import SETTINGS, mutated

ROOT = Path(__file__).resolve().parents[2]
CARD = Draft202012Validator(card_schema())
ELEMENT = Draft202012Validator(element_schema())


def _literal_contents() -> list[dict[str, Any]]:
    """Every literal ``{kind, payload}`` dict written in the tests and the shipped examples."""
    found: list[dict[str, Any]] = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Dict):
                continue
            try:
                value = ast.literal_eval(node)
            except ValueError:
                continue
            if isinstance(value.get("kind"), str) and isinstance(value.get("payload"), dict):
                found.append(value)
    examples = resources.files("layoutkit.examples")
    found.append(json.loads(examples.joinpath("report.json").read_text()))
    board = json.loads(examples.joinpath("board.json").read_text())
    found += [card for batch in board["batches"] for card in batch.get("cards", ())]
    found += [{"kind": k, "payload": p} for k, p in VALID_ELEMENTS.items()]
    found += [{"kind": k, "payload": p} for k, p in VALID_CARDS.items()]
    return found


def _errors(validator: Draft202012Validator, value: Any) -> list[str]:
    return [f"{e.json_path}: {e.message[:200]}" for e in validator.iter_errors(value)]


def test_schemas_are_valid_draft_2020_12() -> None:
    Draft202012Validator.check_schema(card_schema())
    Draft202012Validator.check_schema(element_schema())


def test_every_kind_has_its_payload_shape_with_every_field() -> None:
    defs = schema_defs()
    for kinds, union in ((ELEMENTS, "element"), (BOARD_KINDS, "card")):
        assert sorted(defs[union]["properties"]["kind"]["enum"]) == sorted(kinds)
        for branch in defs[union]["oneOf"]:
            kind = kinds[branch["properties"]["kind"]["const"]]
            shape = defs[branch["properties"]["payload"]["$ref"].rsplit("/", 1)[1]]
            assert list(shape["properties"]) == [f.name for f in kind.spec.fields]
            assert shape.get("required", []) == list(kind.spec.required)
    assert card_variants() == defs["card"]["oneOf"]


def test_every_accepted_literal_of_the_tests_and_examples_fits_its_schema() -> None:
    checked = 0
    for value in _literal_contents():
        for validate, validator in ((validate_card, CARD), (validate_element, ELEMENT)):
            result = validate(copy.deepcopy(value))
            if not result.ok:
                continue
            checked += 1
            assert _errors(validator, value) == [], value
            assert _errors(validator, result.normalized) == [], result.normalized
    # The harvest reaches well past the minimal payloads of the conftest.
    assert checked > 3 * (len(VALID_CARDS) + len(VALID_ELEMENTS))


@SETTINGS
@given(mutated(VALID_CARDS))
def test_a_card_the_contract_accepts_fits_the_schema(value: Any) -> None:
    if validate_card(copy.deepcopy(value)).ok:
        assert _errors(CARD, value) == []


@SETTINGS
@given(mutated(VALID_ELEMENTS))
def test_an_element_the_contract_accepts_fits_the_schema(value: Any) -> None:
    if validate_element(copy.deepcopy(value)).ok:
        assert _errors(ELEMENT, value) == []


@pytest.mark.parametrize(
    "card",
    [
        {"kind": "text", "payload": {}},
        {"kind": "txt", "payload": {"md": "x"}},
        {"kind": "text", "payload": {"md": 3}},
        {"kind": "chart", "payload": {"viz": "pies", "data": {}}},
        {"kind": "doc", "payload": {"elements": [{"kind": "prose", "payload": {}}]}},
        {"kind": "diagram", "payload": {"groups": [{"title": "a", "groups": [{}]}]}},
        {"kind": "link", "payload": {"url": "ftp://x"}},
    ],
)
def test_what_the_contract_calls_an_error_the_schema_refuses(card: dict[str, Any]) -> None:
    assert not validate_card(copy.deepcopy(card)).ok
    assert _errors(CARD, card)


def test_what_the_contract_only_warns_about_the_schema_accepts() -> None:
    card = {
        "kind": "shape",
        "payload": {"tone": "chartreuse", "label": "x", "colour": "red"},
        "extra": 1,
    }
    result = validate_card(copy.deepcopy(card))
    assert result.ok and {f.code for f in result.findings} >= {"unknown_field"}
    assert _errors(CARD, card) == []
