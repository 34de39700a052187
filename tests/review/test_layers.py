"""Rule layers: built-in, then workspace, then project; replace by id, append new ids."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from layoutkit.review.rules import LAYERS, LayerRule, Rule, resolve

IDS = ("aa", "bb", "cc", "dd", "ee")


def rule(rid: str, tag: str, enabled: bool = True) -> Rule:
    return Rule(rid, tag, "judgment", "low", f"{tag} says {rid}.", ("look",), enabled=enabled)


def test_a_higher_layer_replaces_the_rule_whole_and_keeps_its_place() -> None:
    builtin = [LayerRule(rule("aa", "builtin")), LayerRule(rule("bb", "builtin"))]
    workspace = [LayerRule(rule("cc", "workspace"), 1), LayerRule(rule("aa", "workspace"), 3)]
    project = [LayerRule(rule("aa", "project", enabled=False), 2)]
    out = resolve([("builtin", builtin), ("workspace", workspace), ("project", project)])
    assert [(r.rule.id, r.layer, r.version) for r in out] == [
        ("aa", "project", 2),
        ("bb", "builtin", 0),
        ("cc", "workspace", 1),
    ]
    assert out[0].hides == ("builtin", "workspace")
    assert out[0].rule.family == "project" and out[0].rule.enabled is False


def test_deleting_an_override_lets_the_lower_layer_show() -> None:
    builtin = [LayerRule(rule("aa", "builtin"))]
    with_override = resolve([("builtin", builtin), ("project", [LayerRule(rule("aa", "p"), 1)])])
    without = resolve([("builtin", builtin), ("project", [])])
    assert with_override[0].layer == "project"
    assert without[0].layer == "builtin" and without[0].rule.family == "builtin"


layer_rules = st.lists(
    st.tuples(st.sampled_from(IDS), st.booleans()), unique_by=lambda t: t[0], max_size=5
)


@given(st.tuples(layer_rules, layer_rules, layer_rules))
def test_resolution_invariants(spec: tuple[list, list, list]) -> None:
    layers = [
        (name, [LayerRule(rule(rid, name, on), i) for i, (rid, on) in enumerate(entries)])
        for name, entries in zip(LAYERS, spec, strict=True)
    ]
    out = resolve(layers)
    ids = [r.rule.id for r in out]
    # every id of every layer once, nothing else
    assert sorted(ids) == sorted(
        {rid for _, entries in layers for e in entries for rid in [e.rule.id]}
    )
    for r in out:
        # the highest layer defining an id wins, whole
        top = max(
            (
                LAYERS.index(name)
                for name, entries in layers
                if any(e.rule.id == r.rule.id for e in entries)
            )
        )
        assert r.layer == LAYERS[top] and r.rule.family == LAYERS[top]
        # it hides exactly the lower layers that define the id, lowest first
        assert r.hides == tuple(
            name for name, entries in layers[:top] if any(e.rule.id == r.rule.id for e in entries)
        )
    # ids keep the place the lowest layer gave them; a layer's new ids follow in its order
    expected: list[str] = []
    for _, entries in layers:
        expected.extend(e.rule.id for e in entries if e.rule.id not in expected)
    assert ids == expected


@given(layer_rules, layer_rules)
def test_an_empty_layer_changes_nothing(low: list, high: list) -> None:
    base = [
        ("builtin", [LayerRule(rule(rid, "builtin", on)) for rid, on in low]),
        ("workspace", [LayerRule(rule(rid, "workspace", on), 1) for rid, on in high]),
    ]
    assert resolve(base) == resolve([*base, ("project", [])])
    assert resolve(base) == resolve([("builtin", []), *base])
