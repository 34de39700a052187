"""Review rule operations on every storage backend: layers, versions, audit, access, errors."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from layoutkit import Principal, Workspace
from layoutkit.review import rules
from tests.service.helpers import err

SOURCE = """---
id: tone
family: copy
check: judgment
severity: medium
---

Words on the screen are kind.

Verify:

- no blame in error messages
"""


def _rule(ws: Workspace, rule_id: str, project: str | None = None) -> dict:
    params = {"id": rule_id, **({"project": project} if project else {})}
    return ws.call("get_review_rule", params)["rule"]


def _events(ws: Workspace, action: str = "review.rules.update") -> list:
    # PostgreSQL tests share one database: keep this workspace's events.
    with ws.store.read() as tx:
        return [e for e in tx.events(action=action) if e.detail.get("workspace") == ws.workspace_id]


@pytest.fixture
def shop(any_ws: Workspace) -> Workspace:
    any_ws.call("create", {"kind": "board", "slug": "home", "project": "shop"})
    return any_ws


def test_without_writes_the_built_ins_are_in_force(shop: Workspace) -> None:
    listed = shop.call("list_review_rules", {"project": "shop"})["rules"]
    assert [r["id"] for r in listed] == list(rules.BUILTIN_IDS)
    assert {r["layer"] for r in listed} == {"builtin"}
    assert all(r["version"] == 0 and r["enabled"] for r in listed)


def test_workspace_replaces_built_in_and_project_replaces_both(shop: Workspace) -> None:
    ws_copy = rules.builtin_sources()["copy"].replace("severity: medium", "severity: high")
    shop.call("put_review_rule", {"source": ws_copy})
    assert _rule(shop, "copy", "shop")["layer"] == "workspace"
    assert _rule(shop, "copy", "shop")["severity"] == "high"
    shop.call("put_review_rule", {"project": "shop", "id": "copy", "severity": "low"})
    got = _rule(shop, "copy", "shop")
    assert (got["layer"], got["severity"], got["overrides"]) == (
        "project",
        "low",
        ["builtin", "workspace"],
    )
    # the workspace's own view does not see the project's layer
    assert _rule(shop, "copy")["layer"] == "workspace"
    # a project's view of a workspace rule shows the workspace's source
    shop.call("put_review_rule", {"source": SOURCE})
    assert shop.call("get_review_rule", {"project": "shop", "id": "tone"})["source"] == SOURCE
    builtin = shop.call("get_review_rule", {"project": "shop", "id": "states"})["source"]
    assert builtin == rules.builtin_sources()["states"]
    # the replaced rule keeps its place in the list
    ids = [r["id"] for r in shop.call("list_review_rules", {"project": "shop"})["rules"]]
    assert ids == [*rules.BUILTIN_IDS, "tone"]


def test_a_new_id_is_appended_after_the_lower_layers(shop: Workspace) -> None:
    shop.call("put_review_rule", {"project": "shop", "source": SOURCE})
    shop.call("put_review_rule", {"source": SOURCE.replace("id: tone", "id: tone-ws")})
    ids = [r["id"] for r in shop.call("list_review_rules", {"project": "shop"})["rules"]]
    assert ids == [*rules.BUILTIN_IDS, "tone-ws", "tone"]


def test_deleting_an_override_lets_the_lower_layer_show(shop: Workspace) -> None:
    shop.call("put_review_rule", {"project": "shop", "id": "states", "enabled": False})
    assert _rule(shop, "states", "shop")["enabled"] is False
    out = shop.call("delete_review_rule", {"project": "shop", "id": "states"})
    assert out["now"]["layer"] == "builtin" and out["now"]["enabled"] is True
    e = err(shop, "delete_review_rule", {"project": "shop", "id": "states"})
    assert (e.status, e.code, e.body["field"]) == (404, "unknown_rule", "id")
    assert "enabled false" in e.message
    # deleting a new id takes it out altogether
    shop.call("put_review_rule", {"project": "shop", "source": SOURCE})
    assert shop.call("delete_review_rule", {"project": "shop", "id": "tone"})["now"] is None
    e = err(shop, "get_review_rule", {"project": "shop", "id": "tone"})
    assert (e.status, e.code) == (404, "unknown_rule")


def test_disabled_rules_leave_the_brief(shop: Workspace) -> None:
    before = shop.call("review_brief", {"project": "shop"})
    assert "[dark-theme, web+mobile, medium]" in before["brief"]
    shop.call("put_review_rule", {"project": "shop", "id": "dark-theme", "enabled": False})
    after = shop.call("review_brief", {"project": "shop", "persona": "a night-shift nurse"})
    assert "[dark-theme," not in after["brief"]
    assert after["rules"] == before["rules"] - 1
    assert after["rubricHash"] != before["rubricHash"]
    assert after["brief"].rstrip().endswith("Persona: review as a night-shift nurse.")


def test_every_write_is_a_new_version_with_history(shop: Workspace) -> None:
    v1 = shop.call("put_review_rule", {"project": "shop", "source": SOURCE})
    v2 = shop.call("put_review_rule", {"project": "shop", "id": "tone", "severity": "high"})
    v3 = shop.call("delete_review_rule", {"project": "shop", "id": "tone"})
    v4 = shop.call("put_review_rule", {"project": "shop", "source": SOURCE})
    assert [v["version"] for v in (v1, v2, v3, v4)] == [1, 2, 3, 4]
    got = shop.call(
        "get_review_rule", {"project": "shop", "id": "tone", "history": True, "version": 2}
    )
    assert [(h["version"], h["deleted"]) for h in got["history"]] == [
        (1, False),
        (2, False),
        (3, True),
        (4, False),
    ]
    assert "severity: high" in got["version"]["source"]
    assert got["source"] == SOURCE and got["rule"]["version"] == 4
    # the same write twice is still two versions
    again = shop.call("put_review_rule", {"project": "shop", "source": SOURCE})
    assert again["version"] == 5
    e = err(shop, "get_review_rule", {"project": "shop", "id": "tone", "version": 9})
    assert (e.status, e.code, e.body["versions"]) == (404, "unknown_version", [1, 2, 3, 4, 5])


def test_layers_version_apart(shop: Workspace) -> None:
    assert shop.call("put_review_rule", {"source": SOURCE})["version"] == 1
    assert shop.call("put_review_rule", {"project": "shop", "source": SOURCE})["version"] == 1
    assert shop.call("put_review_rule", {"source": SOURCE})["version"] == 2


def test_every_write_is_audited_as_review_rules_update(shop: Workspace) -> None:
    shop.call("put_review_rule", {"project": "shop", "source": SOURCE})
    shop.call("put_review_rule", {"source": SOURCE})
    shop.call("delete_review_rule", {"project": "shop", "id": "tone"})
    shop.call("clear_review_rules", {})
    events = _events(shop)
    assert [(e.detail["action"], e.detail["layer"], e.detail["version"]) for e in events] == [
        ("put", "project", 1),
        ("put", "workspace", 1),
        ("delete", "project", 2),
        ("delete", "workspace", 2),
    ]
    assert all(e.principal == "owner:owner" and e.detail["id"] == "tone" for e in events)
    assert events[0].detail["project"] == "shop"


@pytest.mark.parametrize(
    "who",
    [
        Principal.user("ann"),
        Principal.agent("claude"),
        Principal.service("ci"),
        Principal.share("home"),
    ],
)
@pytest.mark.parametrize(
    ("op", "params"),
    [
        ("put_review_rule", {"project": "shop", "source": SOURCE}),
        ("put_review_rule", {"id": "copy", "enabled": False}),
        ("delete_review_rule", {"id": "tone"}),
        ("clear_review_rules", {"project": "shop"}),
    ],
)
def test_only_admins_write_rules(shop: Workspace, who: Principal, op: str, params: dict) -> None:
    e = err(shop, op, params, who)
    assert (e.status, e.code) == (403, "forbidden")
    assert _events(shop) == []


def test_everyone_but_share_links_reads_rules(shop: Workspace) -> None:
    for who in (Principal.user("ann"), Principal.agent("claude")):
        assert shop.call("review_brief", {"project": "shop"}, who)["rules"] == 19
        assert shop.call("get_review_rule", {"id": "copy"}, who)["rule"]["id"] == "copy"


def test_a_source_that_does_not_lint_is_refused_with_its_findings(shop: Workspace) -> None:
    bad = SOURCE.replace("severity: medium", "severity: loud")
    e = err(shop, "put_review_rule", {"project": "shop", "source": bad})
    assert (e.status, e.code, e.body["field"]) == (422, "invalid_rule", "source")
    assert [f["code"] for f in e.body["findings"]] == ["invalid-severity"]
    assert e.body["findings"][0]["line"] == 5
    e = err(shop, "put_review_rule", {"id": "copy", "severity": "loud"})
    assert (e.status, e.code, e.body["field"]) == (422, "invalid_rule", "severity")
    e = err(shop, "put_review_rule", {"id": "copy", "body": "Verify:\n\n- x\n"})
    assert (e.status, e.body["field"]) == (422, "body")
    assert _events(shop) == []


def test_warnings_do_not_stop_a_write() -> None:
    with Workspace.open() as ws:
        out = ws.call("put_review_rule", {"source": SOURCE.replace("kind.", "kind &amp; calm.")})
        assert [w["code"] for w in out["warnings"]] == ["html-entity"]


def test_put_refusals_name_the_field(shop: Workspace) -> None:
    e = err(shop, "put_review_rule", {"id": "other", "source": SOURCE})
    assert (e.status, e.code, e.body["field"]) == (400, "id_mismatch", "id")
    e = err(shop, "put_review_rule", {"source": SOURCE, "enabled": False})
    assert (e.status, e.code, e.body["field"]) == (400, "exclusive_params", "enabled")
    e = err(shop, "put_review_rule", {"id": "coppy", "enabled": False})
    assert (e.status, e.code, e.body["didYouMean"]) == (404, "unknown_rule", ["copy"])
    e = err(shop, "put_review_rule", {"enabled": False})
    assert (e.status, e.body["field"]) == (400, "id")
    e = err(shop, "put_review_rule", {"id": "copy"})
    assert (e.status, e.body["field"]) == (400, "source")
    e = err(shop, "put_review_rule", {"id": "Bad_Id", "enabled": False})
    assert (e.status, e.code, e.body["field"]) == (400, "invalid_params", "id")
    e = err(shop, "review_brief", {"project": "shopp"})
    assert (e.status, e.code, e.body["didYouMean"]) == (404, "unknown_project", ["shop"])


def test_a_field_patch_keeps_the_rest_of_the_rule(shop: Workspace) -> None:
    shop.call("put_review_rule", {"project": "shop", "id": "layout-width", "platform": None})
    got = _rule(shop, "layout-width", "shop")
    builtin = rules.parse(rules.builtin_sources()["layout-width"])
    assert got["platform"] == ["web", "mobile"] and got["sentence"] == builtin.sentence
    body = "Line length stays readable.\n\nVerify:\n\n- under 80 characters\n"
    shop.call("put_review_rule", {"project": "shop", "id": "layout-width", "body": body})
    got = _rule(shop, "layout-width", "shop")
    assert got["verify"] == ["under 80 characters"] and got["platform"] == ["web", "mobile"]


def test_a_project_write_creates_the_project(any_ws: Workspace) -> None:
    any_ws.call("put_review_rule", {"project": "fresh", "source": SOURCE})
    assert _rule(any_ws, "tone", "fresh")["layer"] == "project"


def test_review_brief_is_the_resolved_enabled_rules(shop: Workspace) -> None:
    out = shop.call("review_brief", {"project": "shop"})
    resolved = rules.resolve([("builtin", [rules.LayerRule(r) for r in rules.builtin_rules()])])
    assert out["brief"] == rules.render_brief(resolved, project="shop")
    assert out["rules"] == 19 and out["rubricHash"] == rules.rubric_hash(resolved)


def test_request_review_sends_exactly_the_brief_without_instructions(shop: Workspace) -> None:
    brief = shop.call("review_brief", {"project": "shop", "persona": "a buyer"})["brief"]
    out = shop.call(
        "request_review", {"project": "shop", "persona": "a buyer"}, Principal.agent("claude")
    )
    assert out["sent"] == brief and out["source"] == "brief" and out["chars"] == len(brief)
    (event,) = _events(shop, "review.request")
    assert event.detail["sent"] == brief and event.id == out["request"]
    assert event.principal == "agent:claude"


def test_request_review_instructions_win_for_that_pass(shop: Workspace) -> None:
    text = "Only check the checkout button colour."
    out = shop.call("request_review", {"project": "shop", "instructions": text})
    assert (out["sent"], out["source"], out["rubricHash"]) == (text, "instructions", None)
    # the next pass without instructions is sent the brief again
    assert shop.call("request_review", {"project": "shop"})["source"] == "brief"
    e = err(shop, "request_review", {"project": "shop", "instructions": "x" * 12_001})
    assert (e.status, e.code, e.body["field"]) == (400, "invalid_params", "instructions")
    assert shop.call("request_review", {"instructions": "y" * 12_000})["chars"] == 12_000


def test_request_review_takes_a_board_and_one_of_its_sections(shop: Workspace) -> None:
    shop.call(
        "compose_board",
        {
            "board": "home",
            "section": "Checkout",
            "cards": [{"kind": "note", "payload": {"md": "x"}}],
        },
    )
    out = shop.call("request_review", {"board": "home", "section": "checkout"})
    assert (out["project"], out["board"], out["section"]) == ("shop", "home", "Checkout")
    assert "the project shop" in out["sent"]
    e = err(shop, "request_review", {"board": "home", "section": "Chekout"})
    assert (e.status, e.code) == (404, "unknown_section")
    e = err(shop, "request_review", {"section": "Checkout"})
    assert (e.status, e.code) == (400, "invalid_params")
    e = err(shop, "request_review", {"board": "home", "project": "other"})
    assert (e.status, e.body["field"]) == (400, "project")


def test_lint_operation_needs_no_storage_and_fixes() -> None:
    with Workspace.open() as ws:
        out = ws.call(
            "lint_review_rule",
            {"source": SOURCE.replace("check: judgment\n", ""), "fix": True},
            Principal.agent("claude"),
        )
        assert out["ok"] and [f["code"] for f in out["fixed"]] == ["missing-check"]
        assert "check: judgment" in out["source"]


def test_writers_at_once_each_take_their_own_version(shop: Workspace) -> None:
    # Writers of one layer queue on its project row: no two take the same version.
    def write(_: int) -> int:
        return shop.call("put_review_rule", {"project": "shop", "source": SOURCE})["version"]

    with ThreadPoolExecutor(max_workers=4) as pool:
        versions = list(pool.map(write, range(12)))
    assert sorted(versions) == list(range(1, 13))
    history = shop.call("get_review_rule", {"project": "shop", "id": "tone", "history": True})
    assert [h["version"] for h in history["history"]] == list(range(1, 13))
