"""Invariants over arbitrary input: never raise, ok iff no error, normalizing is a fixed point."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layoutkit.elements import (
    CARD_KINDS,
    ELEMENT_KINDS,
    Validation,
    filter_audience,
    validate_card,
    validate_element,
)
from layoutkit.elements._cards import BOARD_KINDS
from layoutkit.elements._element import ELEMENTS
from layoutkit.elements.vocab import AUDIENCES
from tests.elements.conftest import VALID_CARDS, VALID_ELEMENTS

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

FIELD_NAMES = sorted(
    {f.name for k in BOARD_KINDS.values() for f in k.spec.fields}
    | {"kind", "payload", "audience", "dataRef", "v", "cells", "k", "label", "points"}
)
ENUM_WORDS = [
    "line",
    "bars",
    "scatter",
    "compare",
    "grid",
    "bento",
    "TD",
    "showcase",
    "tw4",
    "heading",
    "public",
    "internal",
    "1:1",
    "2:1",
    "eq",
    "asc",
    "sum",
    "formula",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=2**62, max_value=2**80),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(ENUM_WORDS + FIELD_NAMES[:20]),
)
keys = st.one_of(st.sampled_from(FIELD_NAMES), st.text(max_size=6))


def json_like(leaves: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(keys, inner, max_size=5),
        ),
        max_leaves=25,
    )


# Element-shaped values reach deep into the validators instead of failing at the envelope.
elementish = st.deferred(
    lambda: st.fixed_dictionaries(
        {
            "kind": st.sampled_from(ELEMENT_KINDS + CARD_KINDS + ("viz", "nope")),
            "payload": st.dictionaries(
                keys,
                st.one_of(json_like(scalars), st.lists(elementish, max_size=3)),
                max_size=6,
            ),
        },
        optional={
            "audience": st.one_of(st.lists(st.sampled_from(AUDIENCES), max_size=4), scalars),
            "dataRef": scalars,
            "ref": scalars,
        },
    )
)
anything = st.one_of(json_like(scalars), elementish)


def check_result(v: Validation) -> None:
    assert v.ok == (not any(f.severity == "error" for f in v.findings))
    d = v.as_dict()
    assert d["ok"] is v.ok
    for f in d["findings"]:
        assert f["severity"] in ("error", "warning")
        assert isinstance(f["path"], str) and isinstance(f["code"], str)
    # The result is always plain, strict JSON.
    json.dumps(d, allow_nan=False)


@SETTINGS
@given(anything)
def test_validate_element_never_raises(value: Any) -> None:
    check_result(validate_element(value))


@SETTINGS
@given(anything)
def test_validate_card_never_raises(value: Any) -> None:
    check_result(validate_card(value))


@SETTINGS
@given(elementish)
def test_normalizing_is_a_fixed_point(value: Any) -> None:
    first = validate_element(value)
    if first.normalized is None:
        return
    second = validate_element(first.normalized)
    assert second.normalized == first.normalized
    if first.ok:
        assert second.ok, [f.as_dict() for f in second.findings]
    assert second.spilled == {}


@SETTINGS
@given(elementish)
def test_card_normalizing_is_a_fixed_point(value: Any) -> None:
    first = validate_card(value)
    if first.normalized is None:
        return
    second = validate_card(first.normalized)
    assert second.normalized == first.normalized
    if first.ok:
        assert second.ok


@SETTINGS
@given(elementish, st.sampled_from(AUDIENCES))
def test_audience_filter_never_raises_and_only_removes(value: Any, audience: str) -> None:
    normalized = validate_element(value).normalized
    if normalized is None:
        return
    seen = filter_audience(normalized, audience)
    if seen is not None:
        assert seen["kind"] == normalized["kind"]
        assert len(json.dumps(seen)) <= len(json.dumps(normalized)) + 16


def test_deep_nesting_thousands_of_levels() -> None:
    deep: Any = {"kind": "prose", "payload": {"md": "x"}}
    for _ in range(5000):
        deep = {"kind": "section", "payload": {"elements": [deep]}}
    v = validate_element(deep)
    assert not v.ok and "nesting_too_deep" in {f.code for f in v.findings}
    v = validate_card({"kind": "doc", "payload": {"elements": [deep]}})
    assert not v.ok
    nested: Any = []
    for _ in range(20000):
        nested = [nested]
    for kind in ELEMENTS:
        check_result(validate_element({"kind": kind, "payload": {"items": nested, "x": nested}}))
    check_result(validate_card({"kind": "api", "payload": {"openapi": "3", "paths": nested}}))
    tree: Any = [{"t": "leaf"}]
    for _ in range(3000):
        tree = [{"t": "box", "children": tree}]
    check_result(
        validate_element({"kind": "mockup", "payload": {"frames": [{"name": "a", "tree": tree}]}})
    )


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*prefix, i))
    return out


@st.composite
def mutated(draw: st.DrawFn, pool: dict[str, Any]) -> dict[str, Any]:
    """A valid element or card with one spot replaced by an arbitrary value."""
    kind = draw(st.sampled_from(sorted(pool)))
    value = {"kind": kind, "payload": copy.deepcopy(pool[kind])}
    for _ in range(draw(st.integers(1, 3))):
        spots = _paths(value)[1:]
        if not spots:
            break
        path = draw(st.sampled_from(spots))
        *head, last = path
        target = value
        for step in head:
            target = target[step]
        if draw(st.booleans()) and isinstance(target, dict):
            target.pop(last, None)
        else:
            target[last] = draw(json_like(scalars))
    return value


@SETTINGS
@given(mutated(VALID_ELEMENTS))
def test_mutated_elements_normalize_to_a_fixed_point(value: Any) -> None:
    first = validate_element(value)
    check_result(first)
    if first.normalized is not None:
        second = validate_element(first.normalized)
        assert second.normalized == first.normalized
        if first.ok:
            assert second.ok, [f.as_dict() for f in second.findings]


@SETTINGS
@given(mutated(VALID_CARDS))
def test_mutated_cards_normalize_to_a_fixed_point(value: Any) -> None:
    first = validate_card(value)
    check_result(first)
    if first.normalized is not None:
        second = validate_card(first.normalized)
        assert second.normalized == first.normalized
        if first.ok:
            assert second.ok, [f.as_dict() for f in second.findings]


def test_example_and_valid_cases_are_fixed_points() -> None:
    from importlib import resources

    raw = resources.files("layoutkit.examples").joinpath("report.json").read_text()
    cases = [json.loads(raw)] + [{"kind": k, "payload": p} for k, p in VALID_ELEMENTS.items()]
    for case in cases:
        first = validate_element(copy.deepcopy(case))
        second = validate_element(first.normalized)
        assert second.normalized == first.normalized and second.findings == first.findings
