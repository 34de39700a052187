"""annotate and the annotation lifecycle: one conformance test per item status and per
transition, identity, limits, review runs and share links."""

from __future__ import annotations

import base64
import io
import urllib.parse
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image

from layoutkit import Principal, ServiceError, Workspace
from layoutkit.storage import NewCard
from tests.review.test_review_plan import screen
from tests.service.helpers import err

AGENT = Principal.agent("claude")
ANA = Principal.user("ana")
BOB = Principal.user("bob")


def png(w: int, h: int, color: str = "teal") -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (w, h), color).save(buf, "PNG")
    return buf.getvalue()


def checklist(*labels: str) -> dict[str, Any]:
    return {
        "kind": "checklist",
        "payload": {"title": "Todo", "items": [{"text": t} for t in labels]},
    }


@pytest.fixture
def ws() -> Iterator[Workspace]:
    with Workspace.open() as workspace:
        workspace.call("create", {"kind": "board", "slug": "rev", "project": "shop"})
        workspace.call("create", {"kind": "board", "slug": "other", "project": "shop"})
        yield workspace


def face_card(ws: Workspace, *labels: str, board: str = "rev") -> int:
    cards = [checklist(*(labels or ("Sign in", "Sign out", "Sign in")))]
    return int(ws.call("compose_board", {"board": board, "cards": cards}, AGENT)["cards"][0]["id"])


def image_card(ws: Workspace, w: int = 640, h: int = 400, board: str = "rev") -> int:
    files = [{"name": "shot.png", "data": base64.b64encode(png(w, h)).decode()}]
    return int(ws.call("upload_files", {"board": board, "files": files}, AGENT)["cards"][0]["id"])


def item(card: int, key: str = "k1", **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "key": key,
        "cardId": card,
        "cardVersion": 1,
        "region": {"text": "Sign out"},
        "prompt": "The label says what it does",
    }
    return out | fields


def box(x: float, y: float, w: float, h: float, size: tuple[int, int] = (640, 400)) -> dict:
    return {
        "region": {"x": x, "y": y, "w": w, "h": h},
        "image": {"width": size[0], "height": size[1]},
    }


def annotate(
    ws: Workspace, items: list[dict[str, Any]], who: Principal = AGENT, **params: Any
) -> dict[str, Any]:
    return ws.call("annotate", {"board": "rev", "items": items, **params}, who)


def one(ws: Workspace, it: dict[str, Any], who: Principal = AGENT, **params: Any) -> dict:
    (result,) = annotate(ws, [it], who, **params)["results"]
    return result


def count(ws: Workspace) -> int:
    with ws.store.read() as tx:
        board = tx.board_by_slug(ws.workspace_id, "rev")
        assert board is not None
        return len(tx.annotations(board.id))


# ------------------------------------------------------------------ statuses


def test_created_resolves_a_text_region_and_files_a_staged_finding(any_ws: Workspace) -> None:
    any_ws.call("create", {"kind": "board", "slug": "rev"})
    card = face_card(any_ws)
    out = annotate(
        any_ws,
        [item(card, severity="high", category="copy", intent="redesign", related=["k0", 7])],
    )
    assert (out["created"], out["existing"], out["refused"]) == (1, 0, 0)
    assert out["author"] == "agent:claude" and out["via"] == "via claude"
    (r,) = out["results"]
    assert r["status"] == "created" and r["url"] == f"/boards/rev?annotation={r['id']}"
    assert r["region"]["form"] == "text" and not r["region"]["clamped"]
    got = any_ws.call("get_annotation", {"id": r["id"]})
    assert got["state"] == "staged"
    assert (got["author"], got["principal"], got["via"]) == (
        "agent:claude",
        "agent:claude",
        "via claude",
    )
    assert (got["intent"], got["severity"], got["category"]) == ("redesign", "high", "copy")
    assert got["related"] == ["k0", 7] and got["prompt"] == {
        "summary": "The label says what it does"
    }
    assert got["deck"]["before"]["region"] == r["region"]["rect"] and got["deck"]["attempts"] == []
    # The box is where the face draws "Sign out": the second row of the checklist.
    first = one(any_ws, item(card, "k2", region={"text": "Sign in", "nth": 0}))
    assert first["region"]["rect"]["y"] < r["region"]["rect"]["y"]


def test_existing_is_the_same_key_again_and_writes_nothing(ws: Workspace) -> None:
    card = face_card(ws)
    first = one(ws, item(card))
    again = annotate(
        ws,
        [
            item(card, prompt="other words"),
            item(card, "k2", region={"text": "Todo"}),
            item(card, "k2"),
        ],
    )
    assert [r["status"] for r in again["results"]] == ["existing", "created", "existing"]
    assert again["results"][0]["id"] == first["id"]
    assert again["results"][2]["id"] == again["results"][1]["id"]
    assert (again["created"], again["existing"], again["refused"]) == (1, 2, 0)
    assert count(ws) == 2


def test_stale_carries_the_current_version_and_pin_stale_files_with_a_badge(ws: Workspace) -> None:
    card = face_card(ws)
    ws.call(
        "update_cards",
        {"patch": [{"id": card, "payload": checklist("Log in", "Sign out")["payload"]}]},
        AGENT,
    )
    stale = one(ws, item(card))
    assert stale["status"] == "stale" and stale["currentVersion"] == 2 and "id" not in stale
    assert count(ws) == 0
    pinned = one(ws, item(card, region={"text": "Sign in", "nth": 1}), pinStale=True)
    assert pinned["status"] == "created" and pinned["currentVersion"] == 2
    got = ws.call("get_annotation", {"id": pinned["id"]})
    assert got["cardVersion"] == 1 and got["versionBadge"]["current"] == 2
    # Version 1 drew "Sign in" twice; version 2 draws it nowhere.
    now = one(ws, item(card, "k3", cardVersion=2, region={"text": "Sign in"}))
    assert now["status"] == "unresolved"


def test_out_of_bounds_clamps_a_small_overshoot_at_both_edges(ws: Workspace) -> None:
    card = image_card(ws)
    half_left = one(ws, item(card, "a", **box(-50, 10, 100, 20)))
    assert half_left["status"] == "created" and half_left["region"]["clamped"]
    assert half_left["region"]["rect"] == {"x": 0, "y": 10, "w": 50, "h": 20}
    past_left = one(ws, item(card, "b", **box(-50.5, 10, 100, 20)))
    assert past_left["status"] == "out_of_bounds" and past_left["error"]["outside"] > 0.5
    half_bottom = one(ws, item(card, "c", **box(300, 390, 40, 20)))
    assert half_bottom["status"] == "created"
    assert half_bottom["region"]["rect"] == {"x": 300, "y": 390, "w": 40, "h": 10}
    past_bottom = one(ws, item(card, "d", **box(300, 390.5, 40, 20)))
    assert past_bottom["status"] == "out_of_bounds"
    wholly = one(ws, item(card, "e", **box(700, 10, 40, 20)))
    assert wholly["status"] == "out_of_bounds" and wholly["error"]["outside"] == 1.0
    assert count(ws) == 2


def test_rejected_items_say_why(ws: Workspace) -> None:
    card = face_card(ws)
    other = face_card(ws, board="other")
    fat = "é" * 4096  # 8,192 bytes: exactly the limit
    out = annotate(
        ws,
        [
            {"cardId": card, "cardVersion": 1, "region": {"text": "Todo"}, "prompt": "no key"},
            item(card, "bad-intent", intent="panic"),
            item(other, "elsewhere"),
            item(card, "future", cardVersion=9),
            item(card, "pixels", region={"x": 1, "y": 1, "w": 5, "h": 5}),
            item(card, "mixed", region={"text": "Todo", "nx": 0.1}),
            item(card, "at-limit", prompt={"summary": fat}),
            item(card, "over", region={"text": "Todo"}, prompt={"summary": fat, "detail": "!"}),
        ],
    )
    codes = [
        (r["key"], r["status"], r["error"]["code"] if "error" in r else None)
        for r in out["results"]
    ]
    assert codes == [
        (None, "rejected", "invalid_item"),
        ("bad-intent", "rejected", "invalid_item"),
        ("elsewhere", "rejected", "unknown_card"),
        ("future", "rejected", "unknown_version"),
        ("pixels", "rejected", "image_required"),
        ("mixed", "rejected", "invalid_region"),
        ("at-limit", "created", None),
        ("over", "rejected", "limit_exceeded"),
    ]
    over = out["results"][-1]["error"]
    assert (over["limit"], over["max"], over["value"]) == ("promptBytes", 8192, 8193)
    assert out["results"][0]["error"]["findings"][0]["message"].startswith("'key'")


def test_duplicate_restates_an_open_finding_on_the_same_version_and_category(ws: Workspace) -> None:
    card = image_card(ws)
    first = one(ws, item(card, "a", category="contrast", **box(100, 100, 100, 40)))
    dup = one(ws, item(card, "b", category="contrast", **box(150, 100, 100, 40)))
    assert dup["status"] == "duplicate" and dup["id"] == first["id"]
    assert dup["error"]["duplicateOf"] == "a"
    # Less than half of the smaller region shared, or another category: a new finding.
    apart = one(ws, item(card, "c", category="contrast", **box(151, 100, 100, 40)))
    assert apart["status"] == "created"
    other = one(ws, item(card, "d", category="spacing", **box(100, 100, 100, 40)))
    assert other["status"] == "created"
    # Inside one batch the earlier item counts too.
    batch = annotate(
        ws, [item(card, "e", **box(0, 300, 50, 50)), item(card, "f", **box(10, 310, 50, 50))]
    )
    assert [r["status"] for r in batch["results"]] == ["created", "duplicate"]
    # A withdrawn finding is no longer open: restating it files a new one.
    ws.call("withdraw_annotation", {"id": first["id"]}, ANA)
    again = one(ws, item(card, "g", category="contrast", **box(100, 100, 100, 40)))
    assert again["status"] == "created"


def test_basis_mismatch_names_both_sizes_and_the_ratio(ws: Workspace) -> None:
    card = image_card(ws, 1280, 800)
    got = one(ws, item(card, **box(10, 10, 50, 50, size=(640, 400))))
    assert got["status"] == "basis_mismatch"
    e = got["error"]
    assert e["declared"] == {"width": 640, "height": 400}
    assert e["actual"] == {"width": 1280, "height": 800}
    assert e["ratio"] == {"x": 2.0, "y": 2.0} and "1280x800" in e["message"]
    assert count(ws) == 0


def test_unresolved_text_and_normalized_regions(ws: Workspace) -> None:
    face = face_card(ws)
    shot = image_card(ws)
    out = annotate(
        ws,
        [
            item(face, "amb", region={"text": "Sign in"}),
            item(face, "case", region={"text": "sign out"}),
            item(face, "far", region={"text": "Sign in", "nth": 2}),
            item(shot, "shot", region={"text": "Save"}),
            item(shot, "frac", region={"nx": 1.2, "ny": 0, "nw": 0.1, "nh": 0.1}),
            item(shot, "norm", region={"nx": 0.5, "ny": 0.5, "nw": 0.25, "nh": 0.25}),
        ],
    )
    got = {r["key"]: r for r in out["results"]}
    assert got["amb"]["status"] == "unresolved" and got["amb"]["error"]["count"] == 2
    assert got["case"]["error"]["didYouMean"] == ["Sign out"]
    assert got["far"]["error"]["code"] == "nth_out_of_range"
    assert got["shot"]["error"]["code"] == "no_text_boxes"
    assert got["frac"]["error"]["code"] == "not_a_fraction"
    assert got["norm"]["status"] == "created"
    assert got["norm"]["region"]["rect"] == {"x": 320, "y": 200, "w": 160, "h": 100}


def test_a_batch_takes_at_most_100_items(ws: Workspace) -> None:
    card = image_card(ws)
    items = [item(card, f"k{i}", **box(i * 6, 0, 5, 5)) for i in range(101)]
    e = err(ws, "annotate", {"board": "rev", "items": items}, AGENT)
    assert (e.status, e.code, e.body["max"], e.body["value"]) == (413, "limit_exceeded", 100, 101)
    assert annotate(ws, items[:100])["created"] == 100


def test_dry_run_writes_nothing_and_hands_out_a_version_pinned_crop(ws: Workspace) -> None:
    card = face_card(ws)
    out = annotate(ws, [item(card)], dryRun=True)
    (r,) = out["results"]
    assert out["dryRun"] is True and r["status"] == "created" and "id" not in r
    assert count(ws) == 0
    url = urllib.parse.urlsplit(r["crop"])
    assert url.path == f"/api/v1/boards/rev/cards/{card}/image"
    query = dict(urllib.parse.parse_qsl(url.query))
    assert query["version"] == "1"
    # What the URL serves (the HTTP adapter maps it onto get_card_image): that crop.
    region = {k: float(query[k]) for k in ("x", "y", "w", "h")}
    crop = ws.call(
        "get_card_image", {"board": "rev", "cardId": card, "version": 1, "region": region}
    )
    assert crop["cropped"] and crop["region"]["w"] >= region["w"]
    assert Image.open(io.BytesIO(base64.b64decode(crop["image"]["data"]))).format == "PNG"
    # The URL stays on version 1 after the card moves on.
    ws.call(
        "update_cards", {"patch": [{"id": card, "payload": checklist("Other")["payload"]}]}, AGENT
    )
    assert one(ws, item(card), dryRun=True)["status"] == "stale"


# ------------------------------------------------------------------ identity and access


def test_the_agent_is_named_unless_the_token_is_an_agents(ws: Workspace) -> None:
    card = face_card(ws)
    e = err(ws, "annotate", {"board": "rev", "items": [item(card)]}, ANA)
    assert (e.status, e.code) == (400, "missing_param")
    e = err(ws, "annotate", {"board": "rev", "agent": "  ", "items": [item(card)]}, ANA)
    assert (e.status, e.code) == (422, "invalid_agent")
    out = annotate(ws, [item(card)], ANA, agent="codex")
    assert (out["author"], out["via"]) == ("agent:codex", "via ana")
    got = ws.call("get_annotation", {"id": out["results"][0]["id"]})
    assert (got["author"], got["principal"]) == ("agent:codex", "user:ana")
    # An agent token's registered name is the runtime, whatever agent says.
    mine = annotate(ws, [item(card, "k2", region={"text": "Todo"})], AGENT, agent="")
    assert mine["author"] == "agent:claude"


def test_an_annotate_share_link_annotates_its_board_only(ws: Workspace) -> None:
    card = face_card(ws)
    link = Principal.share("rev", "annotate")
    assert one(ws, item(card), link, agent="claude")["status"] == "created"
    e = err(ws, "annotate", {"board": "other", "agent": "x", "items": [item(card)]}, link)
    assert (e.status, e.code) == (403, "forbidden")
    view = Principal.share("rev", "view")
    e = err(ws, "annotate", {"board": "rev", "agent": "x", "items": [item(card, "k2")]}, view)
    assert (e.status, e.code) == (403, "forbidden")


# ------------------------------------------------------------------ review runs


def sight_of(ws: Workspace, run: str) -> str:
    with ws.store.read() as tx:
        found = tx.review_run(ws.workspace_id, run)
        assert found is not None
        return found.sight


def screens(ws: Workspace, n: int) -> list[int]:
    with ws.store.transaction() as tx:
        board = tx.board_by_slug(ws.workspace_id, "rev")
        assert board is not None
        cards = [
            NewCard(
                "media",
                {"ref": tx.blobs.put(screen(c, size=(640, 400), seed=i)), "mime": "image/png"},
                i * 700.0,
                0.0,
                640.0,
                400.0,
                "ai",
                AGENT.label,
            )
            for i, c in enumerate(("red", "navy", "olive")[:n])
        ]
        return [c.id for c in tx.insert_cards(board.id, cards)]


def test_filing_into_a_run_needs_it_verified_its_sight_code_and_its_cards(ws: Workspace) -> None:
    ids = screens(ws, 2)
    loose = face_card(ws)  # composed after the plan: not one of its screens
    planned = ws.call("review_plan", {"boards": ["rev"], "cards": ids}, AGENT)
    run = planned["run"]
    code = sight_of(ws, run)
    params = {"board": "rev", "run": run, "items": [item(ids[0], **box(10, 10, 40, 40))]}
    e = err(ws, "annotate", params, AGENT)
    assert (e.status, e.code) == (403, "sight_required")
    e = err(ws, "annotate", {**params, "sight": "ZZZZ"}, AGENT)
    assert e.code == "sight_required" and e.body["triesLeft"] == 2  # the miss was counted
    e = err(ws, "annotate", {**params, "sight": code}, AGENT)
    assert (e.status, e.code, e.body["state"]) == (409, "run_not_verified", "planned")
    ws.call("get_card_image", {"run": run, "sheet": 1}, AGENT)
    for sheet in range(2, planned["sheets"] + 1):
        ws.call("get_card_image", {"run": run, "sheet": sheet, "sight": code}, AGENT)
    ws.call("review_plan", {"run": run, "sight": code}, AGENT)
    out = ws.call(
        "annotate",
        {**params, "sight": code, "items": [params["items"][0], item(loose, "loose")]},
        AGENT,
    )
    assert out["run"] == run
    assert [r["status"] for r in out["results"]] == ["created", "rejected"]
    assert out["results"][1]["error"]["code"] == "card_not_in_run"
    assert ws.call("get_annotation", {"id": out["results"][0]["id"]})["run"] == run
    e = err(ws, "annotate", {**params, "board": "other", "sight": code}, AGENT)
    assert (e.status, e.code) == (409, "board_not_in_run")
    link = Principal.share("rev", "annotate")
    e = err(ws, "annotate", {**params, "sight": code, "agent": "x"}, link)
    assert (e.status, e.code) == (403, "forbidden")


# ------------------------------------------------------------------ lifecycle


def filed(ws: Workspace, n: int = 1) -> list[int]:
    card = image_card(ws)
    items = [item(card, f"k{i}", **box(i * 60, 0, 50, 50)) for i in range(n)]
    return [r["id"] for r in annotate(ws, items)["results"]]


def state(ws: Workspace, annotation: int) -> str:
    return str(ws.call("get_annotation", {"id": annotation})["state"])


def verdict(ws: Workspace, action: str, ids: list[int] | None = None, who: Principal = ANA) -> dict:
    params: dict[str, Any] = {"board": "rev", "action": action}
    if ids is not None:
        params["ids"] = ids
    return ws.call("agent_verdict", params, who)


def test_people_accept_or_dismiss_staged_findings_one_or_all(ws: Workspace) -> None:
    a, b, c, d = filed(ws, 4)
    assert [x["id"] for x in verdict(ws, "accept", [a])["changed"]] == [a]
    assert state(ws, a) == "open"
    assert [x["id"] for x in verdict(ws, "dismiss", [b])["changed"]] == [b]
    assert state(ws, b) == "cancelled"
    everything = verdict(ws, "accept")
    assert [x["id"] for x in everything["changed"]] == [c, d]
    assert state(ws, c) == state(ws, d) == "open"
    again = verdict(ws, "dismiss", [a])
    assert again["changed"] == [] and again["skipped"] == [{"id": a, "state": "open"}]
    e = err(ws, "agent_verdict", {"board": "rev", "action": "accept", "ids": [999]}, ANA)
    assert (e.status, e.code, e.body["ids"]) == (404, "unknown_annotation", [999])


def test_agents_never_give_a_verdict(ws: Workspace) -> None:
    (a,) = filed(ws)
    e = err(ws, "agent_verdict", {"board": "rev", "action": "accept"}, AGENT)
    assert (e.status, e.code) == (403, "forbidden")
    e = err(
        ws,
        "agent_verdict",
        {"board": "rev", "action": "accept"},
        Principal.share("rev", "annotate"),
    )
    assert e.status == 403
    assert state(ws, a) == "staged"


def test_intent_is_retriaged_before_accepting_only(ws: Workspace) -> None:
    (a,) = filed(ws)
    assert (
        ws.call("retriage_annotation", {"id": a, "intent": "investigate"}, ANA)["intent"]
        == "investigate"
    )
    e = err(ws, "retriage_annotation", {"id": a, "intent": "fix"}, AGENT)
    assert (e.status, e.code) == (403, "forbidden")
    verdict(ws, "accept", [a])
    e = err(ws, "retriage_annotation", {"id": a, "intent": "fix"}, ANA)
    assert (e.status, e.code) == (409, "not_staged")


def push_after(ws: Workspace) -> dict[str, Any]:
    files = [{"name": "after.png", "data": base64.b64encode(png(640, 400, "white")).decode()}]
    doc = {
        "kind": "doc",
        "payload": {"title": "Fix", "elements": [{"kind": "prose", "payload": {"md": "done"}}]},
    }
    return ws.call("push_doc", {"board": "rev", "doc": doc, "files": files}, AGENT)


def test_the_fix_loop_open_working_in_review_resolved(any_ws: Workspace) -> None:
    ws = any_ws
    ws.call("create", {"kind": "board", "slug": "rev"})
    (a,) = filed(ws)
    e = err(ws, "set_status", {"id": a, "status": "working"}, AGENT)
    assert (e.status, e.code) == (409, "not_accepted")
    verdict(ws, "accept", [a])
    e = err(ws, "set_status", {"id": a, "status": "in_review"}, AGENT)
    assert (e.status, e.code, e.body["allowed"]) == (409, "invalid_transition", ["working"])
    assert ws.call("set_status", {"id": a, "status": "working"}, AGENT)["state"] == "working"
    e = err(ws, "set_status", {"id": a, "status": "in_review"}, AGENT)
    assert (e.status, e.code) == (409, "needs_after_shot")
    pushed = push_after(ws)
    e = err(
        ws, "attach_after", {"id": a, "version": pushed["version"] + 1, "file": "after.png"}, AGENT
    )
    assert (e.status, e.code, e.body["versions"]) == (404, "unknown_set_version", [1])
    e = err(ws, "attach_after", {"id": a, "version": 1, "file": "afte.png"}, AGENT)
    assert (e.status, e.code, e.body["didYouMean"]) == (404, "unknown_file", ["after.png"])
    deck = ws.call("attach_after", {"id": a, "version": 1, "file": "after.png"}, AGENT)["deck"]
    (attempt,) = deck["attempts"]
    assert (attempt["n"], attempt["version"], attempt["file"], attempt["cardId"]) == (
        1,
        1,
        "after.png",
        pushed["card"],
    )
    assert attempt["ref"].startswith("sha256:") and attempt["author"] == "agent:claude"
    e = err(ws, "set_status", {"id": a, "status": "in_review"}, AGENT)
    assert (e.status, e.code) == (409, "needs_reply")
    thread = ws.call("reply", {"id": a, "text": "Raised the contrast"}, AGENT)["replies"]
    assert [(r["n"], r["author"], r["text"]) for r in thread] == [
        (1, "agent:claude", "Raised the contrast")
    ]
    assert ws.call("set_status", {"id": a, "status": "in_review"}, AGENT)["state"] == "in_review"
    e = err(ws, "set_status", {"id": a, "status": "resolved"}, AGENT)
    assert (e.status, e.code) == (403, "people_resolve")
    assert verdict(ws, "accept", [a])["changed"][0]["state"] == "resolved"
    assert state(ws, a) == "resolved"


def test_a_withdrawn_finding_answers_409_cancelled(ws: Workspace) -> None:
    a, b = filed(ws, 2)
    verdict(ws, "accept", [a])
    ws.call("set_status", {"id": a, "status": "working"}, AGENT)
    e = err(ws, "withdraw_annotation", {"id": a}, AGENT)
    assert (e.status, e.code) == (403, "forbidden")
    assert ws.call("withdraw_annotation", {"id": a}, ANA)["state"] == "cancelled"
    e = err(ws, "set_status", {"id": a, "status": "in_review"}, AGENT)
    assert (e.status, e.code) == (409, "cancelled")
    e = err(ws, "attach_after", {"id": a, "version": 1, "file": "x.png"}, AGENT)
    assert (e.status, e.code) == (409, "cancelled")
    assert ws.call("withdraw_annotation", {"id": b}, BOB)["state"] == "cancelled"  # staged too


def test_replies_take_agent_and_people_reply_as_themselves(ws: Workspace) -> None:
    (a,) = filed(ws)
    ws.call("reply", {"id": a, "text": "Looking", "agent": "codex"}, ANA)
    ws.call("reply", {"id": a, "text": "Thanks"}, ANA)
    e = err(ws, "reply", {"id": a, "text": "x", "agent": ""}, ANA)
    assert (e.status, e.code) == (422, "invalid_agent")
    thread = ws.call("get_annotation", {"id": a})["replies"]
    assert [(r["author"], r["via"]) for r in thread] == [
        ("agent:codex", "via ana"),
        ("user:ana", "via ana"),
    ]
    e = err(ws, "get_annotation", {"id": 12345})
    assert (e.status, e.code) == (404, "unknown_annotation")


def test_scrape_lists_open_findings_and_lanes_count_them(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "run-1", "lanes": [{"key": "web"}, {"key": "ios"}]})
    shot = image_card(ws, board="run-1-web")
    items = [item(shot, f"k{i}", **box(i * 60, 0, 50, 50)) for i in range(3)]
    ids = [
        r["id"]
        for r in ws.call("annotate", {"board": "run-1-web", "items": items}, AGENT)["results"]
    ]
    verdict_params = {"board": "run-1-web", "action": "dismiss", "ids": [ids[0]]}
    ws.call("agent_verdict", verdict_params, ANA)
    lanes = ws.call("scrape_board", {"board": "run-1"})["lanes"]
    assert [(lane["key"], lane["openAnnotations"]) for lane in lanes] == [("web", 2), ("ios", 0)]
    listed = ws.call("scrape_board", {"board": "run-1-web"})["annotations"]
    assert [(a["id"], a["state"]) for a in listed] == [(ids[1], "staged"), (ids[2], "staged")]
    assert ws.call("scrape_board", {"board": "rev"})["annotations"] == []


def test_a_request_key_replays_the_batch(ws: Workspace) -> None:
    card = face_card(ws)
    first = annotate(ws, [item(card)], requestKey="batch-1")
    assert annotate(ws, [item(card)], requestKey="batch-1") == first
    with pytest.raises(ServiceError) as e:
        annotate(ws, [item(card, "other")], requestKey="batch-1")
    assert e.value.status == 409
