"""The generic kinds tag, section and questions: what create, get, update and list answer."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from layoutkit import Principal, ServiceError, Workspace
from tests.through_client import Through


# In-process and again through layoutkit.Client on a live server (tests/through_client.py).
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


# ------------------------------------------------------------------ tag


def test_create_tag_folds_like_board_tags_and_repeats_its_receipt(any_ws: Workspace) -> None:
    any_ws.call("create", {"kind": "board", "slug": "plan", "tags": ["Design"]})
    first = any_ws.call("create", {"kind": "tag", "name": "Désign", "colour": "#cc3366"})
    assert first["tag"]["tag"] == "design"
    assert first["tag"]["name"] == "Désign"
    assert first["tag"]["count"] == 1  # the board's "Design" is the same tag
    assert first["url"].endswith("/?tag=design")
    again = any_ws.call("create", {"kind": "tag", "name": "DESIGN", "colour": "#cc3366"})
    assert again == first
    e = _err(any_ws, "create", {"kind": "tag", "name": "design", "colour": "#000000"})
    assert (e.status, e.code, e.body["field"]) == (409, "tag_exists", "name")


def test_list_tag_counts_boards_and_lists_vocabulary_words(any_ws: Workspace) -> None:
    any_ws.call("create", {"kind": "board", "slug": "a", "tags": ["ops", "Web"]})
    any_ws.call("create", {"kind": "board", "slug": "b", "tags": ["web"]})
    any_ws.call("create", {"kind": "tag", "name": "Later", "description": "parked work"})
    tags = {t["tag"]: t for t in any_ws.call("list", {"kind": "tag"})["tags"]}
    assert {k: t["count"] for k, t in tags.items()} == {"later": 0, "ops": 1, "web": 2}
    assert tags["later"]["description"] == "parked work"
    assert "description" not in tags["web"]


def test_get_tag_lists_the_boards_the_caller_reaches(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "open", "tags": ["ux"]})
    ws.call("create", {"kind": "board", "slug": "gone", "tags": ["ux"]})
    ws.call("update", {"kind": "board", "board": "gone", "archived": True})
    mine = Principal.user("ana")
    ws.call(
        "create",
        {"kind": "board", "slug": "mine", "tags": ["UX"], "meta": {"personal": True}},
        mine,
    )
    got = ws.call("get", {"kind": "tag", "tag": "Ux"})
    assert got["tag"]["tag"] == "ux"
    # The owner's token does not reach ana's personal board; archived boards stay out.
    assert [b["slug"] for b in got["boards"]] == ["open"]
    assert got["boards"][0]["url"].endswith("/boards/open")
    assert [b["slug"] for b in ws.call("get", {"kind": "tag", "tag": "ux"}, mine)["boards"]] == [
        "mine",
        "open",
    ]


def test_unknown_tag_is_404_with_did_you_mean(ws: Workspace) -> None:
    ws.call("create", {"kind": "tag", "name": "design"})
    e = _err(ws, "get", {"kind": "tag", "tag": "desgin"})
    assert (e.status, e.code, e.body["field"]) == (404, "unknown_tag", "tag")
    assert e.body["didYouMean"] == ["design"]
    e = _err(ws, "update", {"kind": "tag", "tag": "nothing", "colour": "#ffffff"})
    assert (e.status, e.code, e.body["field"]) == (404, "unknown_tag", "tag")


def test_a_name_that_folds_to_nothing_is_refused(ws: Workspace) -> None:
    e = _err(ws, "create", {"kind": "tag", "name": "  "})
    assert (e.status, e.code, e.body["field"]) == (400, "invalid_tag", "name")


def test_bad_colour_names_the_field(ws: Workspace) -> None:
    e = _err(ws, "create", {"kind": "tag", "name": "x", "colour": "red"})
    assert e.status == 400
    assert e.body["field"] == "colour"


def test_update_tag_sets_and_clears_and_adopts_a_board_tag(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "a", "tags": ["qa"]})
    out = ws.call("update", {"kind": "tag", "tag": "QA", "colour": "#112233", "description": "x"})
    assert out["tag"]["colour"] == "#112233" and out["tag"]["count"] == 1
    out = ws.call("update", {"kind": "tag", "tag": "qa", "colour": ""})
    assert "colour" not in out["tag"] and out["tag"]["description"] == "x"
    listed = ws.call("list", {"kind": "tag"})["tags"]
    assert listed == [out["tag"]]


def test_share_links_and_agents(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "a", "tags": ["qa"]})
    e = _err(ws, "create", {"kind": "tag", "name": "x"}, Principal.share("a"))
    assert e.status == 403
    assert ws.call("create", {"kind": "tag", "name": "bots"}, Principal.agent("claude"))["tag"][
        "createdBy"
    ].startswith("agent")


# ------------------------------------------------------------------ section


def test_create_section_is_a_compose_naming_a_new_section(any_ws: Workspace) -> None:
    any_ws.call("create", {"kind": "board", "slug": "plan"})
    made = any_ws.call("create", {"kind": "section", "board": "plan", "title": "Intro"})
    assert made["created"] is True
    assert made["section"]["title"] == "Intro"
    assert (made["section"]["cards"], made["section"]["children"]) == (0, 0)
    # The same name again is that section; compose fills it rather than making another.
    again = any_ws.call("create", {"kind": "section", "board": "plan", "title": "Intro"})
    assert again == {**made, "created": False}
    receipt = any_ws.call(
        "compose_board",
        {"board": "plan", "section": "Intro", "cards": [{"kind": "text", "payload": {"md": "a"}}]},
    )
    assert receipt["cards"][0]["container"] == made["section"]["id"]
    other = any_ws.call("create", {"kind": "section", "board": "plan", "title": "Outro"})
    listed = any_ws.call("list", {"kind": "section", "board": "plan"})["sections"]
    assert [(s["title"], s["cards"], s["children"]) for s in listed] == [
        ("Intro", 1, 1),
        ("Outro", 0, 0),
    ]
    # Placed by the compose rule: beside the first, not on it.
    a, b = listed
    assert b["id"] == other["section"]["id"]
    assert b["x"] >= a["x"] + a["w"] or b["y"] >= a["y"] + a["h"]


def test_create_section_near_match_is_409_unless_forced(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "plan"})
    ws.call("create", {"kind": "section", "board": "plan", "title": "Findings"})
    e = _err(ws, "create", {"kind": "section", "board": "plan", "title": "findings!"})
    assert (e.status, e.code, e.body["field"]) == (409, "section_near_match", "title")
    assert e.body["didYouMean"] == ["Findings"]
    forced = ws.call(
        "create", {"kind": "section", "board": "plan", "title": "findings!", "createSection": True}
    )
    assert forced["created"] is True
    assert len(ws.call("list", {"kind": "section", "board": "plan"})["sections"]) == 2


def test_list_section_shows_a_saved_layout(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "plan"})
    ws.call("create", {"kind": "section", "board": "plan", "title": "Grid"})
    ws.call(
        "compose_board",
        {"board": "plan", "section": "Grid", "cards": [{"kind": "text", "payload": {"md": "a"}}]},
    )
    ws.call(
        "arrange",
        {"board": "plan", "mode": "grid", "scope": "section:Grid", "save": True, "cols": 2},
    )
    (listed,) = ws.call("list", {"kind": "section", "board": "plan"})["sections"]
    assert listed["layout"]["mode"] == "grid"


def test_create_section_refusals(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "plan"})
    e = _err(ws, "create", {"kind": "section", "board": "plan"})
    assert (e.status, e.body["field"]) == (400, "title")
    e = _err(ws, "create", {"kind": "section", "board": "nope", "title": "x"})
    assert (e.status, e.code) == (404, "unknown_board")
    e = _err(
        ws, "create", {"kind": "section", "board": "plan", "title": "x"}, Principal.share("plan")
    )
    assert e.status == 403


# ------------------------------------------------------------------ questions


def test_list_questions_with_their_states(any_ws: Workspace) -> None:
    any_ws.call("create", {"kind": "board", "slug": "plan"})
    ids = [
        any_ws.call("ask_board", {"board": "plan", "prompt": p, "options": ["yes", "no"]})[
            "question"
        ]["id"]
        for p in ("Ship?", "Wait?", "Cut?")
    ]
    person = Principal.user("ana")
    any_ws.call("answer_question", {"id": ids[0], "answer": "yes"}, person)
    any_ws.call("send_answers", {"board": "plan"}, person)
    any_ws.call("answer_question", {"id": ids[1], "answer": "no"}, person)
    listed = any_ws.call("list", {"kind": "questions", "board": "plan"})
    assert [q["state"] for q in listed["questions"]] == ["released", "answered", "staged"]
    assert listed["counts"] == {"staged": 1, "answered": 1, "released": 1}
    # The same records as get kind questions: a person sees answers not sent yet, an
    # agent only sent ones.
    got = any_ws.call("get", {"kind": "questions", "board": "plan"})
    assert listed["questions"] == got["questions"]
    assert [q["answers"] for q in listed["questions"]] == [["yes"], ["no"], None]
    agent = Principal.agent("claude")
    seen = any_ws.call("list", {"kind": "questions", "board": "plan"}, agent)["questions"]
    assert [q["answers"] for q in seen] == [["yes"], None, None]
    only = any_ws.call("list", {"kind": "questions", "board": "plan", "state": "staged"})
    assert [q["id"] for q in only["questions"]] == [ids[2]]
    assert only["counts"] == listed["counts"]


def test_list_questions_refusals(ws: Workspace) -> None:
    e = _err(ws, "list", {"kind": "questions", "board": "nope"})
    assert (e.status, e.code) == (404, "unknown_board")
    ws.call("create", {"kind": "board", "slug": "plan"})
    e = _err(ws, "list", {"kind": "questions", "board": "plan", "state": "sent"})
    assert (e.status, e.body["field"]) == (400, "state")
    assert ws.call("list", {"kind": "questions", "board": "plan"}, Principal.share("plan")) == {
        "questions": [],
        "counts": {"staged": 0, "answered": 0, "released": 0},
    }
