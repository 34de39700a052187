"""Comment threads (docs/annotations.md, "Comment threads"): pinning on a board point
or a card region, replies from people and agents, resolve and reopen, editing and
deleting one's own messages, limits, share links, scrape_board and wait_for_work.

Each test runs in-process and again through layoutkit.Client on a live server (the
``through`` fixture), so every operation is also exercised over HTTP end to end.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from layoutkit import Principal, ServiceError, Workspace
from layoutkit.service.review import annotation_views, annotations, comments
from tests.service.review.test_annotations import filed, verdict
from tests.through_client import Through

ANA = Principal.user("ana")
BOB = Principal.user("bob")
AGENT = Principal.agent("claude")
LINK = Principal.share("rev", "annotate")
LOOK = Principal.share("rev", "view")


@pytest.fixture
def ws(through: Through) -> Iterator[Workspace]:
    with Workspace.open() as workspace, through(workspace) as served:
        served.call("create", {"kind": "board", "slug": "rev", "project": "shop"})
        served.call("create", {"kind": "board", "slug": "other", "project": "shop"})
        yield served


def note(ws: Workspace, board: str = "rev") -> int:
    cards = [{"kind": "note", "payload": {"md": "A note"}}]
    out = ws.call("compose_board", {"board": board, "cards": cards}, ANA)
    return int(out["cards"][0]["id"])


def refused(ws: Workspace, op: str, params: dict[str, Any], who: Principal = ANA) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        ws.call(op, params, who)
    return caught.value


def stored(ws: Workspace, thread: int) -> Any:
    with ws.store.read() as tx:
        return tx.annotation(thread)


def board_point(ws: Workspace, text: str = "Room for a legend here?", who: Principal = ANA) -> int:
    out = ws.call("add_comment", {"board": "rev", "text": text, "at": {"x": 120, "y": -40}}, who)
    return int(out["id"])


# ------------------------------------------------------------------ pinning


def test_a_comment_on_a_board_point_is_an_open_thread_stored_as_an_annotation(
    ws: Workspace,
) -> None:
    out = ws.call(
        "add_comment", {"board": "rev", "text": "Room here?", "at": {"x": 120, "y": -40}}, ANA
    )
    assert (out["kind"], out["state"], out["intent"]) == ("comment", "open", "comment")
    assert (out["text"], out["at"], out["cardId"]) == ("Room here?", {"x": 120, "y": -40}, None)
    assert (out["author"], out["via"]) == ("user:ana", "via ana")
    assert out["url"].endswith(f"/boards/rev?comment={out['id']}")
    row = stored(ws, out["id"])
    assert (row.kind, row.card_id, row.card_version, row.state) == ("comment", None, None, "open")
    assert row.prompt == {"summary": "Room here?"} and row.region == {"at": {"x": 120, "y": -40}}
    # A comment is not a finding: the findings list and the finding counts leave it out.
    assert ws.call("get", {"kind": "annotations", "board": "rev"}, ANA)["annotations"] == []
    listed = ws.call("get", {"kind": "comments", "board": "rev"}, ANA)["comments"]
    assert [c["id"] for c in listed] == [out["id"]]


def test_a_comment_on_a_card_region_keeps_fractions_of_the_card_and_its_version(
    ws: Workspace,
) -> None:
    card = note(ws)
    region = {"nx": 0.25, "ny": 0.5, "nw": 0.5, "nh": 0.25}
    out = ws.call(
        "add_comment", {"board": "rev", "text": "Too loud", "cardId": card, "region": region}, BOB
    )
    assert (out["cardId"], out["cardVersion"], out["at"]) == (card, 1, None)
    assert out["region"]["normalized"] == region
    row = stored(ws, out["id"])
    assert (row.card_id, row.card_version, row.region["normalized"]) == (card, 1, region)
    # Without region the whole card.
    whole = ws.call("add_comment", {"board": "rev", "text": "All of it", "cardId": card}, BOB)
    assert whole["region"]["normalized"] == {"nx": 0, "ny": 0, "nw": 1, "nh": 1}
    by_card = ws.call("get", {"kind": "comments", "board": "rev", "cardId": card}, BOB)
    assert [c["id"] for c in by_card["comments"]] == [out["id"], whole["id"]]


@pytest.mark.parametrize(
    ("params", "status", "code", "field"),
    [
        ({"text": "x"}, 400, "missing_param", "at"),
        (
            {"text": "x", "at": {"x": 1, "y": 1}, "cardId": "CARD"},
            400,
            "exclusive_params",
            "cardId",
        ),
        (
            {"text": "x", "at": {"x": 1, "y": 1}, "region": {"nx": 0, "ny": 0}},
            400,
            "invalid_region",
            "region",
        ),
        (
            {"text": "x", "cardId": "CARD", "region": {"nx": 0.8, "ny": 0, "nw": 0.5}},
            400,
            "invalid_region",
            "region.nw",
        ),
        ({"text": "x", "cardId": "OTHER"}, 404, "unknown_card", "cardId"),
        ({"text": "x", "cardId": 999999}, 404, "unknown_card", "cardId"),
        ({"text": "   ", "at": {"x": 1, "y": 1}}, 400, "empty_text", "text"),
        ({"text": "é" * 4097, "at": {"x": 1, "y": 1}}, 413, "limit_exceeded", "text"),
        ({"text": "x", "at": {"x": 1}}, 400, "invalid_params", "at"),
    ],
)
def test_add_comment_refusals_name_status_code_and_field(
    ws: Workspace, params: dict[str, Any], status: int, code: str, field: str
) -> None:
    card, other = note(ws), note(ws, "other")
    fixed = {k: card if v == "CARD" else other if v == "OTHER" else v for k, v in params.items()}
    got = refused(ws, "add_comment", {"board": "rev", **fixed})
    assert (got.status, got.code) == (status, code), got.body
    fields = [got.body.get("field")] + [f["path"] for f in got.body.get("findings", ())]
    assert any(f is not None and f.startswith(field) for f in fields), got.body
    with ws.store.read() as tx:
        board = tx.board_by_slug(ws.workspace_id, "rev")
        assert board is not None and tx.annotations(board.id, kind="comment") == []


def test_threads_per_board_and_replies_per_thread_are_limited(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(comments, "MAX_THREADS", 2)
    monkeypatch.setattr(annotations, "MAX_REPLIES", 2)
    first = board_point(ws)
    board_point(ws)
    got = refused(ws, "add_comment", {"board": "rev", "text": "third", "at": {"x": 0, "y": 0}})
    assert (got.status, got.code, got.body["field"], got.body["limit"]) == (
        413,
        "limit_exceeded",
        "board",
        "commentThreads",
    )
    for text in ("one", "two"):
        ws.call("reply", {"id": first, "text": text}, BOB)
    got = refused(ws, "reply", {"id": first, "text": "three"}, BOB)
    assert (got.status, got.code, got.body["field"], got.body["limit"]) == (
        413,
        "limit_exceeded",
        "id",
        "threadReplies",
    )
    assert len(stored(ws, first).replies) == 2


# ------------------------------------------------------------------ thread


def test_people_and_agents_reply_and_people_resolve_and_reopen(ws: Workspace) -> None:
    thread = board_point(ws)
    ws.call("reply", {"id": thread, "text": "Agreed"}, BOB)
    ws.call("reply", {"id": thread, "text": "Added one"}, AGENT)
    row = stored(ws, thread)
    assert [(r["n"], r["author"], r["text"]) for r in row.replies] == [
        (1, "user:bob", "Agreed"),
        (2, "agent:claude", "Added one"),
    ]
    out = ws.call("resolve_comment", {"id": thread}, BOB)
    assert out["state"] == "resolved" and out["resolved"]["by"] == "user:bob"
    assert stored(ws, thread).state == "resolved"
    # Again: nothing changes.
    assert ws.call("resolve_comment", {"id": thread}, ANA)["resolved"]["by"] == "user:bob"
    assert ws.call("get", {"kind": "comments", "board": "rev"}, ANA)["comments"] == []
    both = ws.call("get", {"kind": "comments", "board": "rev", "states": ["open", "resolved"]}, ANA)
    assert [c["state"] for c in both["comments"]] == ["resolved"]
    out = ws.call("reopen_comment", {"id": thread}, ANA)
    assert (out["state"], out["resolved"]) == ("open", None)
    assert stored(ws, thread).state == "open"
    # Agents reply, never resolve: a person decides the thread is done.
    got = refused(ws, "resolve_comment", {"id": thread}, AGENT)
    assert (got.status, got.code) == (403, "forbidden")


def test_authors_edit_and_delete_only_their_own_messages(ws: Workspace) -> None:
    thread = board_point(ws, "Frist")
    ws.call("reply", {"id": thread, "text": "Me too"}, BOB)
    ws.call("reply", {"id": thread, "text": "Noted"}, AGENT)
    out = ws.call("edit_comment", {"id": thread, "text": "First"}, ANA)
    assert out["text"] == "First" and out["editedAt"]
    assert stored(ws, thread).prompt["summary"] == "First"
    got = refused(ws, "edit_comment", {"id": thread, "text": "Mine now"}, BOB)
    assert (got.status, got.code, got.body["field"]) == (403, "not_author", "id")
    got = refused(ws, "edit_comment", {"id": thread, "n": 1, "text": "Hijack"}, ANA)
    assert (got.status, got.code, got.body["field"]) == (403, "not_author", "n")
    got = refused(ws, "edit_comment", {"id": thread, "n": 7, "text": "?"}, ANA)
    assert (got.status, got.code, got.body["field"]) == (404, "unknown_reply", "n")
    ws.call("edit_comment", {"id": thread, "n": 2, "text": "Noted, fixed"}, AGENT)
    out = ws.call("delete_comment", {"id": thread, "n": 1}, BOB)
    assert out["deleted"] and out["thread"]["replies"][0]["deleted"] is True
    row = stored(ws, thread)
    assert [(r["n"], r["text"], r.get("deleted", False)) for r in row.replies] == [
        (1, "", True),
        (2, "Noted, fixed", False),
    ]
    got = refused(ws, "edit_comment", {"id": thread, "n": 1, "text": "back"}, BOB)
    assert (got.status, got.code) == (409, "deleted")
    got = refused(ws, "delete_comment", {"id": thread}, BOB)
    assert (got.status, got.code) == (403, "not_author")
    assert ws.call("delete_comment", {"id": thread}, ANA) == {
        "id": thread,
        "n": 0,
        "deleted": True,
        "thread": None,
    }
    assert stored(ws, thread) is None
    got = refused(ws, "get_annotation", {"id": thread})
    assert (got.status, got.code) == (404, "unknown_annotation")


def test_findings_and_comment_threads_keep_their_own_lifecycles(ws: Workspace) -> None:
    (finding,) = filed(ws)
    thread = board_point(ws)
    for op, params in (
        ("set_status", {"id": thread, "status": "working"}),
        ("withdraw_annotation", {"id": thread}),
        ("retriage_annotation", {"id": thread, "intent": "fix"}),
    ):
        got = refused(ws, op, params, AGENT if op == "set_status" else ANA)
        assert (got.status, got.code, got.body["field"]) == (409, "comment_thread", "id"), op
    got = refused(ws, "resolve_comment", {"id": finding})
    assert (got.status, got.code, got.body["field"]) == (409, "not_a_comment", "id")
    got = refused(ws, "agent_verdict", {"board": "rev", "action": "accept", "ids": [thread]})
    assert (got.status, got.code) == (404, "unknown_annotation")
    # The finding's thread is the same machinery: a person replies to it as to a comment.
    verdict(ws, "accept", [finding])
    out = ws.call("reply", {"id": finding, "text": "Seen"}, ANA)
    assert [r["text"] for r in out["replies"]] == ["Seen"]
    assert stored(ws, thread).state == "open"


# ------------------------------------------------------------------ share links


def test_an_annotate_link_comments_and_replies_and_a_view_link_only_reads(ws: Workspace) -> None:
    card = note(ws)
    out = ws.call("add_comment", {"board": "rev", "text": "From the link", "cardId": card}, LINK)
    ws.call("reply", {"id": out["id"], "text": "And more"}, LINK)
    ws.call("edit_comment", {"id": out["id"], "text": "From the link!"}, LINK)
    ws.call("resolve_comment", {"id": out["id"]}, LINK)
    row = stored(ws, out["id"])
    assert (row.author, row.state, len(row.replies)) == ("share:share:rev", "resolved", 1)
    for op, params in (
        ("add_comment", {"board": "rev", "text": "no", "at": {"x": 0, "y": 0}}),
        ("reply", {"id": out["id"], "text": "no"}),
        ("reopen_comment", {"id": out["id"]}),
        ("delete_comment", {"id": out["id"]}),
    ):
        got = refused(ws, op, params, LOOK)
        assert (got.status, got.code) == (403, "forbidden"), op
    assert (
        ws.call("get", {"kind": "comments", "board": "rev", "states": ["resolved"]}, LOOK)[
            "comments"
        ][0]["text"]
        == "From the link!"
    )
    # A link is bound to its board.
    other = note(ws, "other")
    got = refused(ws, "add_comment", {"board": "other", "text": "no", "cardId": other}, LINK)
    assert got.status == 403
    assert stored(ws, out["id"]).replies[0]["text"] == "And more"


# ------------------------------------------------------------------ agents


def test_scrape_board_shows_open_threads_as_short_digests(ws: Workspace) -> None:
    card = note(ws)
    on_card = ws.call(
        "add_comment",
        {"board": "rev", "text": "x" * 900, "cardId": card, "region": {"nx": 0.1, "ny": 0.2}},
        ANA,
    )["id"]
    on_board = board_point(ws)
    done = board_point(ws, "Settled")
    ws.call("resolve_comment", {"id": done}, ANA)
    for i in range(5):
        ws.call("reply", {"id": on_card, "text": f"reply {i}"}, BOB if i % 2 else AGENT)
    out = ws.call("scrape_board", {"board": "rev"}, AGENT)["comments"]
    assert (out["open"], out["resolved"]) == (2, 1)
    assert [c["id"] for c in out["items"]] == [on_card, on_board]
    first = out["items"][0]
    assert len(first["text"]) == annotation_views.SCRAPE_TEXT and first["text"].endswith("…")
    assert (first["cardId"], first["region"]["nx"], first["replyCount"]) == (card, 0.1, 5)
    assert [r["text"] for r in first["lastReplies"]] == ["reply 2", "reply 3", "reply 4"]
    assert out["items"][1]["at"] == {"x": 120, "y": -40}
    assert ws.call("scrape_board", {"board": "rev"}, AGENT)["annotations"] == []


def test_wait_for_work_delivers_a_new_comment_and_each_new_person_reply_once(
    ws: Workspace,
) -> None:
    def wait() -> dict[str, Any]:
        return ws.call("wait_for_work", {"board": "rev", "timeout": 0}, AGENT)

    thread = board_point(ws)
    got = wait()
    (capsule,) = got["comments"]
    assert capsule["item"] == f"comment:{thread}.0"
    assert (capsule["id"], capsule["message"]["text"]) == (thread, "Room for a legend here?")
    assert capsule["ack"] == {"operation": "heartbeat_work", "params": {"done": [capsule["item"]]}}
    ws.call("heartbeat_work", {"done": [capsule["item"]]}, AGENT)
    assert wait().get("idle") is True
    # The agent's own reply is no work; a person's reply is a new item.
    ws.call("reply", {"id": thread, "text": "On it"}, AGENT)
    assert wait().get("idle") is True
    ws.call("reply", {"id": thread, "text": "Make it blue"}, BOB)
    (capsule,) = wait()["comments"]
    assert capsule["item"] == f"comment:{thread}.2"
    assert capsule["message"]["text"] == "Make it blue"
    with ws.store.read() as tx:
        claim = tx.work_claims(ws.workspace_id, [capsule["item"]])[capsule["item"]]
        assert (claim["agent"], claim["state"]) == ("agent:claude", "leased")
    ws.call("heartbeat_work", {"done": [capsule["item"]]}, AGENT)
    assert wait().get("idle") is True
    # A resolved thread is no work, even with a person's new reply.
    ws.call("resolve_comment", {"id": thread}, ANA)
    ws.call("reply", {"id": thread, "text": "PS"}, ANA)
    assert wait().get("idle") is True
    ws.call("reopen_comment", {"id": thread}, ANA)
    (capsule,) = wait()["comments"]
    assert capsule["item"] == f"comment:{thread}.3"


def test_work_on_a_board_out_of_scope_is_not_delivered(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "elsewhere", "project": "garden"})
    ws.call("add_comment", {"board": "elsewhere", "text": "hi", "at": {"x": 0, "y": 0}}, ANA)
    got = ws.call("wait_for_work", {"project": "shop", "timeout": 0}, AGENT)
    assert got.get("idle") is True
    got = ws.call("wait_for_work", {"project": "garden", "timeout": 0}, AGENT)
    assert [c["text"] for c in got["comments"]] == ["hi"]


def test_the_annotations_stamp_moves_with_comment_threads(ws: Workspace) -> None:
    def stamp() -> str:
        return str(ws.call("board_changes", {"board": "rev", "since": 0}, ANA)["annotations"])

    seen = [stamp()]
    thread = board_point(ws)
    seen.append(stamp())
    ws.call("reply", {"id": thread, "text": "Yes"}, BOB)
    seen.append(stamp())
    ws.call("resolve_comment", {"id": thread}, BOB)
    seen.append(stamp())
    ws.call("delete_comment", {"id": thread}, ANA)
    seen.append(stamp())
    # Each write moves it (deleting the only thread brings back the empty board's).
    assert all(a != b for a, b in itertools.pairwise(seen)), seen
    assert seen[-1] == seen[0]


def test_search_finds_a_comment_thread_and_links_to_its_pin(ws: Workspace) -> None:
    thread = board_point(ws, "Where does the legend go?")
    ws.call("reply", {"id": thread, "text": "Under the chart, bottom left"}, BOB)
    hits = ws.call("search", {"q": "chart legend"}, ANA)["groups"]["annotations"]
    assert [(h["kind"], h["id"]) for h in hits] == [("comment", thread)]
    assert hits[0]["url"].endswith(f"/boards/rev?comment={thread}")
