"""The params door takes jsonschema-rs's yes (``registry._compiled``): it must never
let through what the project's own validator refuses.

Instances are drawn from each operation's schema, most of them close to valid and
some wrong in one place (a type, a missing key, an extra key, a bound), so both
answers are exercised on every operation.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layoutkit.errors import ServiceError
from layoutkit.limits import check_json_value
from layoutkit.service.road.registry import _compiled
from layoutkit.service.road.workspace import Workspace

_WS = Workspace.open("sqlite://")
#: Every operation, and each kind of the verbs that take one (create, search, ...).
_CHECKED = {
    **{op.name: op for op in _WS.registry},
    **{
        f"{op.name}:{kind}": chosen
        for op in _WS.registry
        for kind, chosen in (op.kinds or {}).items()
    },
}
_OPS = sorted(_CHECKED)

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([0.5, 2.0, -1.0, 1e300]),
    st.text(max_size=4),
)
_ANY = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)


def _pattern(regex: str) -> st.SearchStrategy[str]:
    # Python's $ matches before a final newline, which jsonschema-rs does not: the
    # strategy draws those too.
    return st.from_regex(re.compile(regex), fullmatch=False)


def _value(schema: Any, depth: int = 0) -> st.SearchStrategy[Any]:
    """A value mostly fitting ``schema``, now and then off in one place."""
    if not isinstance(schema, dict) or depth > 6:
        return _ANY
    fitting = _fitting(schema, depth)
    return st.one_of(fitting, fitting, fitting, fitting, _ANY)


def _fitting(schema: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            rest = {k: v for k, v in schema.items() if k != key}
            return st.one_of([_value({**rest, **sub}, depth + 1) for sub in schema[key]])
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind else ["object"]
    return st.one_of([_of_type(t, schema, depth) for t in kinds])


def _of_type(kind: str, schema: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
    if kind == "string":
        if isinstance(schema.get("pattern"), str):
            return _pattern(schema["pattern"])
        low = schema.get("minLength", 0)
        high = schema.get("maxLength", low + 8)
        return st.text(min_size=max(0, low - 1), max_size=min(high + 1, low + 12))
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", -5))
        high = schema.get("maximum", low + 50)
        ints = st.integers(int(low) - 1, int(min(high, low + 60)) + 1)
        return ints | st.floats(low - 1, high + 1, allow_nan=False) if kind == "number" else ints
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        item = schema.get("items", {})
        low = schema.get("minItems", 0)
        high = min(schema.get("maxItems", low + 3), low + 3)
        return st.lists(_value(item, depth + 1), min_size=max(0, low - 1), max_size=high + 1)
    props = schema.get("properties", {})
    required = set(schema.get("required", []))
    if not props:
        return st.dictionaries(st.text(max_size=4), _ANY, max_size=3)
    return st.fixed_dictionaries(
        {k: _value(v, depth + 1) for k, v in props.items() if k in required},
        optional={
            **{k: _value(v, depth + 1) for k, v in props.items() if k not in required},
            "unknownField": _ANY,
        },
    )


@pytest.mark.parametrize("name", _OPS)
@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_the_fast_yes_never_passes_what_the_validator_refuses(name: str, data: Any) -> None:
    op = _CHECKED[name]
    params = data.draw(_value(op.validator.schema))
    try:
        whole_floats = check_json_value(params)
    except Exception:
        return  # refused before either validator looks
    if whole_floats or not _compiled(op.validator).is_valid(params):
        return
    assert not list(op.validator.iter_errors(params)), params


def test_a_whole_float_where_an_integer_belongs_is_still_refused() -> None:
    # jsonschema-rs counts 2.0 as an integer; the params door does not.
    op = _CHECKED["search:any"]
    params = {"kind": "any", "q": "x", "limit": 2.0}
    assert _compiled(op.validator).is_valid(params)
    with pytest.raises(ServiceError) as err:
        _WS.call("search", params)
    assert err.value.body["code"] == "invalid_params"
    assert err.value.body["field"] == "limit"


def test_a_value_only_python_accepts_is_accepted() -> None:
    # Python's $ takes "a-board\n" for ^...$; jsonschema-rs says no, and the
    # validator's yes stands, as before the fast check.
    op = _CHECKED["create:board"]
    params = {"kind": "board", "slug": "a-board\n"}
    assert not _compiled(op.validator).is_valid(params)
    assert op.check_params(params) is params
