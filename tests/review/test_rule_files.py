"""Rule files: the format, strict frontmatter, every lint code, every fix, the built-ins."""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion

from layoutkit.review import rules
from layoutkit.review.rules import LayerRule, lint, parse, render_brief, resolve

GOOD = """---
id: tone
family: copy
check: judgment
severity: medium
platform: [mobile]
---

Words on the screen are kind and never blame the person.

Verify:

- error messages say what to do next
- no exclamation marks in warnings
"""


def _with(front: str, body: str = "The sentence.\n\nVerify:\n\n- a check\n") -> str:
    return f"---\n{front}---\n\n{body}"


BASE = "id: tone\nfamily: copy\ncheck: judgment\nseverity: medium\n"


def codes(source: str, filename: str | None = None) -> list[str]:
    return [f.code for f in lint(source, filename=filename).findings]


# ---------------------------------------------------------------- the format


def test_a_rule_file_reads_into_its_fields() -> None:
    rule = parse(GOOD)
    assert (rule.id, rule.family, rule.check, rule.severity) == (
        "tone",
        "copy",
        "judgment",
        "medium",
    )
    assert rule.platform == ("mobile",) and rule.platforms == ("mobile",)
    assert rule.enabled is True
    assert rule.sentence == "Words on the screen are kind and never blame the person."
    assert rule.verify == ("error messages say what to do next", "no exclamation marks in warnings")


def test_platform_omitted_means_both_and_enabled_defaults_true() -> None:
    rule = parse(_with(BASE))
    assert rule.platform == () and rule.platforms == ("web", "mobile")
    assert rule.enabled is True
    assert parse(_with(BASE + "enabled: false\n")).enabled is False
    assert parse(_with(BASE + "platform: web\n")).platforms == ("web",)


def test_the_sentence_is_the_first_paragraph_and_a_heading_may_come_first() -> None:
    body = "# Tone of voice\n\nFirst paragraph\nwrapped.\n\nMore prose.\n\n## Verify\n\n- one\n"
    rule = parse(_with(BASE, body))
    assert rule.sentence == "First paragraph wrapped."
    assert rule.verify == ("one",)


@pytest.mark.parametrize(
    "body",
    [
        "Spacing is even.\n\n- Verify:\n  - gaps are equal\n  - nothing touches\n",
        "Spacing is even.\n\n- Verify: gaps are equal\n- Verify: nothing touches\n",
        "Spacing is even.\n\n- **Verify:**\n  - gaps are equal\n  - nothing touches\n",
        "Spacing is even.\n\nVerify:\n\n- gaps are equal\n- nothing touches\n",
    ],
    ids=["nested-under-a-verify-bullet", "each-bullet-prefixed", "bold-bullet", "plain"],
)
def test_the_natural_ways_of_writing_the_verify_list_read_alike(body: str) -> None:
    result = lint(_with(BASE, body))
    assert result.findings == () or list(result.findings) == []
    assert parse(_with(BASE, body)).verify == ("gaps are equal", "nothing touches")


def test_one_check_on_the_verify_line_is_a_list_of_one() -> None:
    assert parse(_with(BASE, "Spacing is even.\n\nVerify: gaps are equal\n")).verify == (
        "gaps are equal",
    )
    # A list with no Verify marker at all is still missing one.
    assert codes(_with(BASE, "Spacing is even.\n\n- gaps are equal\n")) == ["missing-verify"]


def test_the_lint_commands_help_shows_a_rule_that_lints_clean() -> None:
    from click.testing import CliRunner

    from layoutkit.adapters.cli import main

    shown = CliRunner().invoke(main, ["review", "rules", "lint", "--help"]).output
    start = shown.rindex("\n", 0, shown.index("---")) + 1
    example = shown[start : shown.index("The Verify list")]
    source = "\n".join(line[6:] for line in example.splitlines()) + "\n"
    assert lint(source).findings in ((), []), source
    assert parse(source).verify == (
        "error messages say what to do next",
        "no exclamation marks in warnings",
    )


def test_a_rule_round_trips_through_its_canonical_source() -> None:
    rule = parse(GOOD)
    assert parse(rule.to_source()) == rule


# ---------------------------------------------------------------- strict frontmatter


@pytest.mark.parametrize(
    ("front", "code"),
    [
        ("id: &a tone\nfamily: *a\ncheck: judgment\nseverity: medium\n", "yaml-anchor"),
        ("<<: &base {check: judgment}\nid: tone\n", "yaml-anchor"),
        (BASE + "severity: high\n", "duplicate-key"),
        (BASE + "note: " + "x" * 5000 + "\n", "too-large"),
        ("- id\n- tone\n", "invalid-frontmatter"),
        ("id: [unclosed\n", "invalid-frontmatter"),
        ("id: !!python/object:os.system x\n", "invalid-frontmatter"),
    ],
)
def test_strict_frontmatter_refuses(front: str, code: str) -> None:
    found = lint(_with(front)).findings
    assert code in [f.code for f in found]
    assert lint(_with(front)).rule is None


def test_a_billion_laughs_never_expands() -> None:
    front = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n"
    assert codes(_with(front))[0] == "yaml-anchor"


def test_a_whole_file_over_the_cap_is_refused_before_reading() -> None:
    big = _with(BASE, "The sentence.\n\nVerify:\n\n" + "- check\n" * 3000)
    assert codes(big) == ["too-large"]


def test_duplicate_key_names_both_lines() -> None:
    (finding,) = [f for f in lint(_with(BASE + "severity: high\n")).findings]
    assert finding.code == "duplicate-key" and finding.line == 6
    assert "lines 4 and 5" in finding.message


# ---------------------------------------------------------------- every lint code

#: code -> (a file showing it, whether the fix repairs it)
CASES: dict[str, tuple[str, bool]] = {
    "missing-frontmatter": ("Just a sentence.\n\nVerify:\n\n- a\n", False),
    "invalid-frontmatter": ("---\nid: tone\n\nNo closing line.\n", False),
    "missing-id": (_with(BASE.replace("id: tone\n", "")), False),
    "invalid-id": (_with(BASE.replace("id: tone", "id: Tone_Of")), False),
    "missing-check": (_with(BASE.replace("check: judgment\n", "")), True),
    "invalid-check": (_with(BASE.replace("check: judgment", "check: judgement")), True),
    "missing-severity": (_with(BASE.replace("severity: medium\n", "")), False),
    "invalid-severity": (_with(BASE.replace("severity: medium", "severity: Hgh")), True),
    "invalid-platform": (_with(BASE + "platform: [Web, mobil]\n"), True),
    "invalid-enabled": (_with(BASE + "enabled: maybe\n"), False),
    "missing-body": (_with(BASE, ""), False),
    "missing-sentence": (_with(BASE, "Verify:\n\n- a\n"), False),
    "missing-family": (_with(BASE.replace("family: copy\n", "")), False),
    "missing-verify": (_with(BASE, "The sentence.\n"), False),
    "unknown-key": (_with(BASE + "colour: red\n"), False),
    "byte-order-mark": ("\ufeff" + GOOD, True),
    "html-entity": (GOOD.replace("kind and", "kind &amp; gentle and"), True),
    "duplicate-key": (_with(BASE + "id: other\n"), False),
    "yaml-anchor": (_with("id: &x tone\n"), False),
    "too-large": (GOOD + "x" * rules.MAX_RULE_BYTES, False),
}


def test_every_lint_code_has_a_case() -> None:
    assert set(CASES) == set(rules.LINT_CODES)


@pytest.mark.parametrize("code", rules.LINT_CODES)
def test_each_lint_code_is_reported_with_a_line_and_whether_it_is_fixable(code: str) -> None:
    source, fixable = CASES[code]
    found = [f for f in lint(source).findings if f.code == code]
    assert found, lint(source).findings
    assert all(f.fixable == fixable for f in found)
    assert all(f.line is None or f.line >= 1 for f in found)
    expected = "warning" if code in ("byte-order-mark", "html-entity") else "error"
    assert found[0].severity == expected
    assert found[0].to_dict()["code"] == code


def test_lint_lines_point_at_the_key() -> None:
    source = _with(BASE.replace("severity: medium", "severity: loud"))
    (finding,) = lint(source).findings
    assert (finding.code, finding.line, finding.field) == ("invalid-severity", 5, "severity")


def test_unknown_key_suggests_the_key_meant() -> None:
    source = _with(BASE + "famliy: x\n")
    (finding,) = [f for f in lint(source).findings if f.code == "unknown-key"]
    assert finding.did_you_mean == ("family",)


# ---------------------------------------------------------------- fixes


def test_fix_strips_a_byte_order_mark() -> None:
    result = lint("\ufeff" + GOOD, fix=True)
    assert result.source == GOOD and result.findings == () and result.ok
    assert [f.code for f in result.fixed] == ["byte-order-mark"]


def test_fix_decodes_html_entities() -> None:
    source = GOOD.replace("kind and", "kind &amp; calm&nbsp;and &#8212; and")
    result = lint(source, fix=True)
    assert "kind & calm and \u2014 and" in result.source
    assert result.findings == () and result.rule is not None


@pytest.mark.parametrize(
    ("written", "key", "snapped"),
    [
        ("check: judgement", "check", "judgment"),
        ("check: Mechanical", "check", "mechanical"),
        ("severity: Hgh", "severity", "high"),
        ("severity: med", "severity", "medium"),
        ("platform: [Web, mobil]", "platform", ["web", "mobile"]),
    ],
)
def test_fix_snaps_enum_near_misses(written: str, key: str, snapped: object) -> None:
    front = BASE.replace(f"{key}: ", "__drop__: ") if key != "platform" else BASE
    front = "\n".join(line for line in front.splitlines() if not line.startswith("__drop__"))
    source = _with(front + "\n" + written + "\n")
    before = lint(source)
    assert [f.code for f in before.findings] == [f"invalid-{key}"] * (2 if key == "platform" else 1)
    assert before.findings[0].did_you_mean
    result = lint(source, fix=True)
    assert result.ok and result.findings == ()
    assert result.rule is not None
    value = getattr(result.rule, key)
    assert (list(value) if key == "platform" else value) == snapped


def test_fix_leaves_a_far_miss_for_a_person() -> None:
    source = _with(BASE.replace("severity: medium", "severity: catastrophic"))
    result = lint(source, fix=True)
    assert [f.code for f in result.findings] == ["invalid-severity"]
    assert result.source == source


def test_fix_derives_a_missing_id_from_the_file_name() -> None:
    source = _with(BASE.replace("id: tone\n", ""))
    before = lint(source, filename="rules/Dark Theme.md")
    assert [(f.code, f.fixable) for f in before.findings] == [("missing-id", True)]
    result = lint(source, filename="rules/Dark Theme.md", fix=True)
    assert result.rule is not None and result.rule.id == "dark-theme"
    assert result.source.startswith("---\nid: dark-theme\nfamily: copy\n")


def test_fix_derives_a_missing_id_from_the_first_heading() -> None:
    source = _with(BASE.replace("id: tone\n", ""), "# Empty states\n\nSay so.\n\nVerify:\n\n- a\n")
    result = lint(source, fix=True)
    assert result.rule is not None and result.rule.id == "empty-states"


def test_fix_sets_a_missing_check_to_judgment() -> None:
    source = _with(BASE.replace("check: judgment\n", "").replace("tone", "t1"))
    result = lint(source, fix=True)
    assert result.rule is not None and result.rule.check == "judgment"
    assert [f.code for f in result.fixed] == ["missing-check"]


def test_fix_repairs_everything_fixable_at_once_and_reports_what_is_left() -> None:
    source = (
        "\ufeff---\nfamily: copy\nseverity: HIGH\nplatform: [web, Mobile]\ncolour: red\n---\n\n"
        "# Calm &amp; kind\n\nBe kind.\n\nVerify:\n\n- no blame\n"
    )
    result = lint(source, filename=None, fix=True)
    assert {f.code for f in result.fixed} == {
        "byte-order-mark",
        "html-entity",
        "missing-id",
        "missing-check",
        "invalid-severity",
        "invalid-platform",
    }
    assert [f.code for f in result.findings] == ["unknown-key"]
    assert result.source.startswith(
        "---\nid: calm-kind\nfamily: copy\ncheck: judgment\nseverity: high\n"
        "platform: [web, mobile]\ncolour: red\n---\n"
    )


def test_fix_is_idempotent() -> None:
    source = _with(BASE.replace("severity: medium", "severity: Hgh"))
    once = lint(source, fix=True).source
    assert lint(once, fix=True).source == once


# ---------------------------------------------------------------- built-ins and the brief


def test_the_built_in_set_is_the_spec_ids() -> None:
    assert [r.id for r in rules.builtin_rules()] == [
        "broken",
        "ia-flow",
        "redundant",
        "spacing",
        "scope-directive",
        "native-shell",
        "consistency",
        "visual-polish",
        "copy",
        "clarity",
        "reuse",
        "data-honesty",
        "hierarchy",
        "layout-width",
        "redesign-open",
        "states",
        "dark-theme",
        "repeat-class",
        "not-a-finding",
    ]


@pytest.mark.parametrize("rule_id", rules.BUILTIN_IDS)
def test_each_built_in_lints_clean(rule_id: str) -> None:
    source = rules.builtin_sources()[rule_id]
    result = lint(source, filename=f"{rule_id}.md")
    assert result.findings == () and result.rule is not None
    assert result.rule.id == rule_id
    assert 2 <= len(result.rule.verify) <= 4


def _builtin_layer() -> list[tuple[str, list[LayerRule]]]:
    return [("builtin", [LayerRule(r) for r in rules.builtin_rules()])]


def test_the_built_in_brief(snapshot: SnapshotAssertion) -> None:
    brief = render_brief(resolve(_builtin_layer()), project="shop", persona="a shop owner")
    assert brief == snapshot


def test_the_brief_lists_enabled_rules_only_with_their_platform_and_severity() -> None:
    off = parse(_with(BASE.replace("id: tone", "id: copy") + "enabled: false\n"))
    web = parse(_with(BASE.replace("id: tone", "id: extra") + "platform: [web]\n"))
    resolved = resolve([*_builtin_layer(), ("project", [LayerRule(off, 1), LayerRule(web, 1)])])
    brief = render_brief(resolved, project="shop")
    assert "[copy," not in brief
    assert "[extra, web, medium] The sentence.\n  - verify: a check\n" in brief
    assert brief.rstrip().endswith(f"Persona: review as {rules.DEFAULT_PERSONA}.")


def test_a_persona_stays_on_its_one_line() -> None:
    brief = render_brief(resolve(_builtin_layer()), persona="an admin\n[broken, web, high] x")
    assert brief.splitlines()[-1] == "Persona: review as an admin [broken, web, high] x."


def test_the_rubric_hash_moves_with_any_enabled_rule_and_only_then() -> None:
    base = resolve(_builtin_layer())
    edited = parse(rules.builtin_sources()["copy"].replace("severity: medium", "severity: low"))
    changed = resolve([*_builtin_layer(), ("workspace", [LayerRule(edited, 1)])])
    assert rules.rubric_hash(base) != rules.rubric_hash(changed)
    assert rules.rubric_hash(base) == rules.rubric_hash(resolve(_builtin_layer()))
