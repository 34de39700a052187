"""Board resources: creation, lanes, metadata, tags, sharing, questions."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from layoutkit import Principal, ServiceError, Workspace
from tests.through_client import Through


# Every test here runs in-process and again through layoutkit.Client on a live server
# (tests/through_client.py): the same answers, refusals and bodies on both roads.
@pytest.fixture
def ws(ws: Workspace, through: Through) -> Iterator[Workspace]:
    with through(ws) as served:
        yield served


@pytest.fixture
def any_ws(any_ws: Workspace, through: Through) -> Iterator[Workspace]:
    with through(any_ws) as served:
        yield served


def _err(ws: Workspace, op: str, params: dict, principal: Principal | None = None) -> ServiceError:
    with pytest.raises(ServiceError) as exc:
        ws.call(op, params, principal)
    return exc.value


def test_create_and_get_board(any_ws: Workspace) -> None:
    out = any_ws.call("create", {"kind": "board", "slug": "roadmap", "project": "atlas"})
    assert out["board"]["slug"] == "roadmap"
    assert out["board"]["project"] == "atlas"
    got = any_ws.call("get", {"kind": "board", "board": "roadmap"})
    assert got["board"]["cards"] == 0


@pytest.mark.parametrize(
    ("slug", "board_type", "expected"),
    [
        ("checkout-review", None, "reviews"),
        ("qa-pass", None, "testing"),
        ("login-session-3", None, "sessions"),
        ("brainstorm-pricing", None, "brainstorming"),
        ("onboarding-journey", None, "journeys"),
        ("pricing", "brainstorm", "brainstorming"),
        ("design-system", None, None),  # design is never inferred
        ("plain", None, None),
    ],
)
def test_subgroup_inference(
    ws: Workspace, slug: str, board_type: str | None, expected: str | None
) -> None:
    params = {"kind": "board", "slug": slug}
    if board_type:
        params["type"] = board_type
    assert ws.call("create", params)["board"]["subgroup"] == expected


def test_explicit_design_subgroup(ws: Workspace) -> None:
    out = ws.call("create", {"kind": "board", "slug": "ui", "subgroup": "design"})
    assert out["board"]["subgroup"] == "design"


def test_lanes_create_child_boards_in_tab_order(any_ws: Workspace) -> None:
    out = any_ws.call(
        "create",
        {
            "kind": "board",
            "slug": "run-7",
            "lanes": [{"key": "web"}, {"key": "ios", "label": "iOS"}],
        },
    )
    lanes = out["board"]["meta"]["lanes"]
    assert [lane["key"] for lane in lanes] == ["web", "ios"]
    assert [lane["slug"] for lane in lanes] == ["run-7-web", "run-7-ios"]
    child = any_ws.call("get", {"kind": "board", "board": "run-7-ios"})["board"]
    assert child["meta"]["parentBoard"] == "run-7"
    assert child["meta"]["lane"] == "ios"
    assert child["parentBoard"] == "run-7"


def test_repeat_create_returns_the_same_receipt(any_ws: Workspace) -> None:
    params = {"kind": "board", "slug": "run-8", "lanes": [{"key": "a"}], "tags": ["x"]}
    first = any_ws.call("create", params)
    assert any_ws.call("create", params) == first
    err = _err(any_ws, "create", {**params, "tags": ["y"]})
    assert (err.status, err.code) == (409, "board_exists")


def test_lane_limits(ws: Workspace) -> None:
    err = _err(
        ws, "create", {"kind": "board", "slug": "r", "lanes": [{"key": f"l{i}"} for i in range(13)]}
    )
    assert (err.status, err.code) == (400, "too_many_lanes")
    err = _err(ws, "create", {"kind": "board", "slug": "r", "lanes": [{"key": "overview"}]})
    assert err.code == "invalid_lane"
    err = _err(ws, "create", {"kind": "board", "slug": "r", "lanes": [{"key": "a"}, {"key": "a"}]})
    assert err.code == "invalid_lane"
    err = _err(ws, "create", {"kind": "board", "slug": "r", "lanes": [{"key": "Bad Key"}]})
    assert (err.code, err.body["field"]) == ("invalid_params", "lanes[0].key")


def test_index_board_flag(ws: Workspace) -> None:
    out = ws.call("create", {"kind": "board", "slug": "home", "meta": {"index": True}})
    assert out["board"]["meta"]["index"] is True


def test_unknown_board_is_404_with_suggestion(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "roadmap"})
    err = _err(ws, "get", {"kind": "board", "board": "roadmpa"})
    assert (err.status, err.code) == (404, "unknown_board")
    assert err.body["didYouMean"] == ["roadmap"]


def test_unknown_kind_lists_allowed(ws: Workspace) -> None:
    err = _err(ws, "create", {"kind": "boards", "slug": "x"})
    assert err.status == 400
    assert "board" in err.body["allowed"]


def test_tags_fold_and_filter(any_ws: Workspace) -> None:
    any_ws.call("create", {"kind": "board", "slug": "a", "tags": ["Été", "Q3"]})
    any_ws.call("create", {"kind": "board", "slug": "b", "tags": ["ete"]})
    any_ws.call("create", {"kind": "board", "slug": "c", "tags": ["q3"]})

    def slugs(params: dict) -> list[str]:
        return [b["slug"] for b in any_ws.call("list", {"kind": "board", **params})["boards"]]

    assert slugs({"tags": ["ÉTÉ"]}) == ["a", "b"]
    assert slugs({"tags": ["ete", "q3"]}) == ["a"]
    assert slugs({"tags": ["ete", "q3"], "match": "any"}) == ["a", "b", "c"]
    assert slugs({"tags": ["q3", "-ete"]}) == ["c"]
    tags = any_ws.call("list", {"kind": "tag"})["tags"]
    assert {"tag": "ete", "count": 2} in tags


def test_set_board_meta(any_ws: Workspace) -> None:
    any_ws.call("create", {"kind": "board", "slug": "m", "tags": ["one"], "theme": "sketch"})
    out = any_ws.call(
        "set_board_meta",
        {"board": "m", "meta": {"title": "Map", "color": "red"}, "tags": ["two"], "archived": True},
    )["board"]
    assert out["tags"] == ["one", "two"]
    assert out["archived"] is True
    assert out["meta"]["title"] == "Map"
    out = any_ws.call(
        "set_board_meta",
        {"board": "m", "meta": {"color": None}, "tags": ["three"], "tags_mode": "set"},
    )["board"]
    assert out["tags"] == ["three"]
    assert "color" not in out["meta"] and out["meta"]["title"] == "Map"
    assert any_ws.call("set_board_meta", {"board": "m", "theme": ""})["board"]["theme"] is None


def test_server_stamps_survive_meta_patches(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "run-9", "lanes": [{"key": "web"}]})
    out = ws.call(
        "set_board_meta", {"board": "run-9-web", "meta": {"lane": "hacked", "parentBoard": "x"}}
    )
    assert out["board"]["meta"]["lane"] == "web"
    assert out["warnings"] == [
        "meta lane is a server stamp and stayed as the server set it; the rest of meta was applied"
    ]
    # Sending a stamp back as it was read is a round trip, not an attempt to change it.
    again = ws.call("set_board_meta", {"board": "run-9-web", "meta": {"lane": "web", "n": 1}})
    assert "warnings" not in again and again["board"]["meta"]["n"] == 1


def test_theme_pattern_and_unknown_bundle_warning(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "t"})
    err = _err(ws, "set_board_meta", {"board": "t", "theme": "Bad Theme"})
    assert (err.code, err.body["field"]) == ("invalid_params", "theme")
    out = ws.call("set_board_meta", {"board": "t", "theme": "my-own"})
    assert out["board"]["theme"] == "my-own"
    assert out["warnings"]
    near = ws.call("set_board_meta", {"board": "t", "theme": "lightpaper"})
    assert near["warnings"][0].endswith("did you mean 'light-paper'?")


def test_share_links(any_ws: Workspace) -> None:
    any_ws.call("create", {"kind": "board", "slug": "s"})
    link = any_ws.call("share_board", {"board": "s", "mode": "annotate"})
    assert link["mode"] == "annotate"
    assert link["id"].startswith("sh_")
    assert link["url"].startswith("/s/")
    assert any_ws.call("share_board", {"board": "s"})["mode"] == "view"


def test_personal_boards_never_mint_links(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "mine", "meta": {"personal": True}})
    err = _err(ws, "share_board", {"board": "mine"})
    assert (err.status, err.code) == (403, "personal_board")


ANA = Principal.user("ana")
BEN = Principal.user("ben")
AGENT = Principal.agent("claude")


def test_only_the_boards_owner_changes_personal(any_ws: Workspace) -> None:
    any_ws.call("create", {"kind": "board", "slug": "diary", "meta": {"personal": True}}, ANA)
    any_ws.call("create", {"kind": "board", "slug": "team"}, ANA)
    for who in (BEN, AGENT, Principal.owner()):
        for board, value in (("diary", False), ("diary", None), ("team", True)):
            e = _err(any_ws, "set_board_meta", {"board": board, "meta": {"personal": value}}, who)
            assert e.status == 403, (who, board)
    # Another writer can still change what is not personal about the shared board.
    any_ws.call("set_board_meta", {"board": "team", "meta": {"title": "Team"}}, BEN)
    # The owner clears and sets it.
    any_ws.call("set_board_meta", {"board": "diary", "meta": {"personal": None}}, ANA)
    any_ws.call("update", {"kind": "board", "board": "diary", "meta": {"personal": True}}, ANA)
    got = any_ws.call("get", {"kind": "board", "board": "diary"}, ANA)
    assert got["board"]["meta"]["personal"] is True


def test_a_personal_board_is_its_owners_alone(any_ws: Workspace) -> None:
    any_ws.call("create", {"kind": "board", "slug": "diary", "meta": {"personal": True}}, ANA)
    card = {"kind": "text", "payload": {"md": "private note"}}
    (mine,) = any_ws.call("compose_board", {"board": "diary", "cards": [card]}, ANA)["cards"]
    for who in (BEN, AGENT, Principal.owner(), Principal.share("diary")):
        for op, params in (
            ("scrape_board", {"board": "diary"}),
            ("get", {"kind": "board", "board": "diary"}),
            ("render_board", {"board": "diary"}),
            ("compose_board", {"board": "diary", "cards": [card]}),
            ("update_cards", {"patch": [{"id": mine["id"], "x": 5}]}),
        ):
            e = _err(any_ws, op, params, who)
            assert e.status == 403, (who, op, e.code)
        listed = any_ws.call("list", {"kind": "board"}, who if who.kind != "share" else None)
        if who.kind != "share":
            assert "diary" not in {b["slug"] for b in listed["boards"]}
    for who in (BEN, AGENT):
        found = any_ws.call("search", {"q": "private"}, who)["groups"]
        assert not [h for rows in found.values() for h in rows if h.get("board") == "diary"]
    again = _err(
        any_ws, "create", {"kind": "board", "slug": "diary", "meta": {"personal": True}}, BEN
    )
    assert (again.status, again.code) == (409, "board_exists")
    assert any_ws.call("scrape_board", {"board": "diary"}, ANA)["cards"]
    assert "diary" in {b["slug"] for b in any_ws.call("list", {"kind": "board"}, ANA)["boards"]}


def test_a_ref_cannot_read_a_card_of_someone_elses_personal_board(any_ws: Workspace) -> None:
    any_ws.call("create", {"kind": "board", "slug": "diary", "meta": {"personal": True}}, ANA)
    any_ws.call("create", {"kind": "board", "slug": "team"}, BEN)
    secret = {"kind": "text", "payload": {"md": "Secret plan"}}
    (card,) = any_ws.call("compose_board", {"board": "diary", "cards": [secret]}, ANA)["cards"]
    ref = {"kind": "ref", "payload": {"card": card["id"]}}
    e = _err(any_ws, "compose_board", {"board": "team", "cards": [ref]}, BEN)
    assert (e.status, e.code) == (400, "unknown_card")
    # Its owner may point at it from another board.
    any_ws.call("compose_board", {"board": "team", "cards": [ref]}, ANA)


def test_a_portal_cannot_reveal_someone_elses_personal_board(any_ws: Workspace) -> None:
    any_ws.call("create", {"kind": "board", "slug": "diary", "meta": {"personal": True}}, ANA)
    any_ws.call("create", {"kind": "board", "slug": "team"}, BEN)
    portal = {"kind": "board", "payload": {"board": "diary"}}
    hidden = _err(any_ws, "compose_board", {"board": "team", "cards": [portal]}, BEN)
    missing = _err(
        any_ws,
        "compose_board",
        {"board": "team", "cards": [{"kind": "board", "payload": {"board": "nowhere"}}]},
        BEN,
    )
    # The same answer as for a board that does not exist, so it tells nothing.
    assert (hidden.status, hidden.code) == (missing.status, missing.code)
    assert hidden.code == "unknown_portal_board"
    # Its owner may show it on a shared board.
    any_ws.call("compose_board", {"board": "team", "cards": [portal]}, ANA)


def test_marking_a_board_personal_revokes_its_share_links(any_ws: Workspace) -> None:
    any_ws.call("create", {"kind": "board", "slug": "notes"}, ANA)
    url = any_ws.call("share_board", {"board": "notes"}, ANA)["url"]
    token = url.rsplit("/", 1)[-1]
    link = any_ws.authenticate(token)
    assert link is not None
    any_ws.call("scrape_board", {"board": "notes"}, link)
    out = any_ws.call("set_board_meta", {"board": "notes", "meta": {"personal": True}}, ANA)
    assert len(out["revokedLinks"]) == 1
    assert any_ws.authenticate(token) is None
    # Clearing personal again does not bring the old link back.
    any_ws.call("set_board_meta", {"board": "notes", "meta": {"personal": False}}, ANA)
    assert any_ws.authenticate(token) is None


def test_questions_stage_until_send(any_ws: Workspace) -> None:
    any_ws.call("create", {"kind": "board", "slug": "q"})
    q = any_ws.call(
        "ask_board",
        {"board": "q", "prompt": "Which store?", "stakes": "cost", "options": ["SQLite", "PG"]},
    )["question"]
    assert [o["label"] for o in q["options"]] == ["SQLite", "PG", "Other"]
    assert q["state"] == "staged"
    any_ws.call("answer_question", {"id": q["id"], "answer": "PG"}, Principal.user("ana"))
    agent = Principal.agent("claude")
    seen = any_ws.call("get", {"kind": "questions", "board": "q"}, agent)["questions"][0]
    assert seen["answers"] is None  # held until Send
    any_ws.call("send_answers", {"board": "q"}, Principal.user("ana"))
    seen = any_ws.call("get", {"kind": "questions", "board": "q"}, agent)["questions"][0]
    assert (seen["state"], seen["answers"]) == ("released", ["PG"])


@pytest.mark.parametrize(
    ("question", "field"),
    [
        ({"options": []}, "question.options"),
        ({"options": [str(i) for i in range(13)]}, "question.options"),
        ({"options": [{"label": "a", "hint": "h" * 301}]}, "question.options[0].hint"),
        ({"options": [{"label": "a", "detail": "d" * 4001}]}, "question.options[0].detail"),
        ({"options": ["a", "Other"]}, "question.options"),
        ({"kind": "text", "options": ["a"]}, "question.options"),
    ],
)
def test_question_limits(ws: Workspace, question: dict, field: str) -> None:
    ws.call("create", {"kind": "board", "slug": "q"})
    err = _err(ws, "ask_board", {"board": "q", "prompt": "?", **question})
    assert (err.status, err.code, err.body["field"]) == (400, "invalid_question", field)


def test_agents_cannot_release_answers(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "q"})
    err = _err(ws, "send_answers", {"board": "q"}, Principal.agent("bot"))
    assert err.status == 403
