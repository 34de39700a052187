"""board_presence: who has a board open, where their cursor is, what they selected and
what they drag; as board_changes lists it for every reader, agents included."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from layoutkit import ServiceError, Workspace
from layoutkit.principal import Principal
from layoutkit.service.boards.presence import COLOURS, MAX_SELECTION, PRESENCE_TTL_S
from layoutkit.storage import open_store
from tests.storage.conftest import FakeClock

ANA = Principal.user("ana")
BO = Principal.user("bo")
AGENT = Principal.agent("claude")


def _board(ws: Workspace, slug: str = "b") -> list[int]:
    ws.call("create", {"kind": "board", "slug": slug})
    notes = [{"kind": "note", "payload": {"md": f"n{i}"}} for i in range(3)]
    return [c["id"] for c in ws.call("compose_board", {"board": slug, "cards": notes})["cards"]]


def _err(ws: Workspace, params: dict[str, Any], who: Principal = ANA) -> ServiceError:
    with pytest.raises(ServiceError) as info:
        ws.call("board_presence", {"board": "b", **params}, who)
    return info.value


def _present(ws: Workspace, who: Principal, **extra: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = ws.call("board_changes", {"board": "b", "since": 0, **extra}, who)[
        "presence"
    ]
    return out


def test_a_report_reaches_the_others_and_not_its_author(any_ws: Workspace) -> None:
    one, two, _ = _board(any_ws)
    rev = any_ws.call("board_outline", {"board": "b"})["rev"]
    first = any_ws.call(
        "board_presence",
        {"board": "b", "cursor": {"x": 10.5, "y": -4}, "selection": [one, two]},
        ANA,
    )
    assert first["presence"] == [] and first["ttl"] == PRESENCE_TTL_S
    # Bo's report answers with Ana's; each sees the other and never themselves.
    drag = {"id": two, "x": 300, "y": 40}
    out = any_ws.call("board_presence", {"board": "b", "dragging": drag}, BO)
    (ana,) = out["presence"]
    assert ana["who"] == {"kind": "user", "name": "ana"}
    assert (ana["cursor"], ana["selection"], ana["dragging"]) == (
        {"x": 10.5, "y": -4},
        [one, two],
        None,
    )
    assert ana["colour"] in COLOURS and ana["seen"]
    (bo,) = _present(any_ws, ANA)
    assert (bo["who"]["name"], bo["cursor"], bo["dragging"]) == ("bo", None, drag)
    assert bo["colour"] != ana["colour"]
    # An agent reading the board sees both, as a person's page would.
    assert [p["who"]["name"] for p in _present(any_ws, AGENT)] == ["ana", "bo"]
    # Each report replaces the last; leaving drops it at once.
    any_ws.call("board_presence", {"board": "b", "cursor": {"x": 1, "y": 2}}, ANA)
    (ana,) = _present(any_ws, BO)
    assert (ana["cursor"], ana["selection"]) == ({"x": 1, "y": 2}, [])
    assert any_ws.call("board_presence", {"board": "b", "leave": True}, ANA)["left"] is True
    assert _present(any_ws, BO) == []
    assert any_ws.call("board_presence", {"board": "b", "leave": True}, ANA)["left"] is False
    # None of it touched the board: no rev moved, no card changed.
    after = any_ws.call("board_changes", {"board": "b", "since": rev})
    assert (after["rev"], after["cards"]) == (rev, [])


def test_a_person_with_two_pages_is_one_to_the_others_and_never_drawn_back(
    ws: Workspace,
) -> None:
    _board(ws)
    ws.call("board_presence", {"board": "b", "page": "tab1", "cursor": {"x": 1, "y": 1}}, ANA)
    ws.call("board_presence", {"board": "b", "page": "tab2", "cursor": {"x": 2, "y": 2}}, ANA)
    # Two pages, two cursors for Bo (one colour: one person)...
    seen = _present(ws, BO)
    assert [p["cursor"]["x"] for p in seen] == [1, 2]
    assert len({p["id"] for p in seen}) == 2
    assert seen[0]["who"] == seen[1]["who"]
    # ...and neither is shown to Ana herself, in either of her pages.
    assert _present(ws, ANA, page="tab1") == []


def test_view_links_may_report_and_show_as_guests_each_their_own(ws: Workspace) -> None:
    one, _, _ = _board(ws)
    url = ws.call("share_board", {"board": "b", "mode": "view"})["url"]
    guest = ws.authenticate(url.rsplit("/", 1)[-1])
    assert guest is not None and guest.kind == "share"
    ws.call("board_presence", {"board": "b", "page": "g1", "selection": [one]}, guest)
    ws.call("board_presence", {"board": "b", "page": "g2", "cursor": {"x": 5, "y": 5}}, guest)
    names = [p["who"] for p in _present(ws, ANA)]
    assert names == [{"kind": "share", "name": "Guest"}] * 2
    # One link, two visitors: each sees the other guest, not their own page.
    (other,) = _present(ws, guest, page="g1")
    assert other["cursor"] == {"x": 5, "y": 5}
    # The link reaches its own board only.
    ws.call("create", {"kind": "board", "slug": "c"})
    with pytest.raises(ServiceError) as info:
        ws.call("board_presence", {"board": "c", "page": "g1"}, guest)
    assert info.value.status == 403


def test_reports_expire_without_a_heartbeat(tmp_path: Path) -> None:
    clock = FakeClock()
    for url in (None, f"sqlite:///{tmp_path / 'ws.db'}"):
        with Workspace(open_store(url, clock=clock)) as ws:
            _board(ws)
            ws.call("board_presence", {"board": "b", "cursor": {"x": 1, "y": 1}}, ANA)
            clock.advance(seconds=PRESENCE_TTL_S - 1)
            ws.call("board_presence", {"board": "b", "cursor": {"x": 2, "y": 2}}, BO)
            assert [p["who"]["name"] for p in _present(ws, AGENT)] == ["ana", "bo"]
            clock.advance(seconds=2)  # Ana's page stopped reporting 31 s ago
            assert [p["who"]["name"] for p in _present(ws, AGENT)] == ["bo"]
            assert _stored(ws) == ["user:ana", "user:bo"]  # hidden, not yet cleared
            # A heartbeat (the same report again) keeps a page present, and clears
            # what expired on the way: the table keeps only live pages.
            ws.call("board_presence", {"board": "b", "cursor": {"x": 2, "y": 2}}, BO)
            assert _stored(ws) == ["user:bo"]
            clock.advance(seconds=PRESENCE_TTL_S - 1)
            assert [p["who"]["name"] for p in _present(ws, AGENT)] == ["bo"]
            clock.advance(seconds=2)
            assert _present(ws, AGENT) == []


def _stored(ws: Workspace) -> list[str]:
    """Every presence row of board b, however old."""
    with ws.store.read() as tx:
        board = tx.board_by_slug(ws.workspace_id, "b")
        assert board is not None
        return [r.who for r in tx.presence(board.id, datetime(2000, 1, 1, tzinfo=UTC))]


def test_limits_and_bad_values_answer_with_their_path(ws: Workspace) -> None:
    one, two, _ = _board(ws)
    cases: list[tuple[dict[str, Any], int, str, str]] = [
        ({"selection": list(range(1, MAX_SELECTION + 2))}, 400, "invalid_params", "selection"),
        ({"selection": [one, one]}, 400, "invalid_params", "selection[1]"),
        ({"cursor": {"x": 2e7, "y": 0}}, 400, "invalid_params", "cursor.x"),
        ({"cursor": {"x": 1}}, 400, "invalid_params", "cursor.y"),
        ({"cursor": {"x": float("inf"), "y": 0}}, 400, "invalid_number", "cursor.x"),
        ({"cursor": {"x": 0, "y": float("nan")}}, 400, "invalid_number", "cursor.y"),
        ({"dragging": {"id": one, "x": "left", "y": 0}}, 400, "invalid_params", "dragging.x"),
        ({"page": "a page"}, 400, "invalid_params", "page"),
        ({"page": "p" * 41}, 400, "invalid_params", "page"),
        ({"selection": [one, 999_999]}, 404, "unknown_card", "selection[1]"),
        ({"dragging": {"id": 999_999, "x": 0, "y": 0}}, 404, "unknown_card", "dragging.id"),
    ]
    for params, status, code, field in cases:
        err = _err(ws, params)
        assert (err.status, err.code, err.body.get("field")) == (status, code, field), params
    # A card in the trash is no longer on the board.
    try:
        ws.call("update_cards", {"remove": [two]})
    except ServiceError as asked:  # a third of a small board: confirmed with a reason
        assert asked.code == "needs_confirm"
        again = {
            "remove": [two],
            "confirm": asked.body["token"],
            "reason": "the test trashes it to see it refused",
        }
        ws.call("update_cards", again)
    err = _err(ws, {"selection": [one, two]})
    assert (err.status, err.code, err.body["field"]) == (404, "unknown_card", "selection[1]")
    # Nothing refused was kept.
    assert _present(ws, BO) == []


def test_another_workspaces_board_and_cards_answer_404(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ws.db'}"
    with Workspace.open(url, name="home") as home, Workspace.open(url, name="away") as away:
        _board(home)
        away_cards = _board(away, "elsewhere")
        ghost = _err(home, {"board": "nowhere"})
        err = _err(home, {"board": "elsewhere"})
        assert (err.status, err.code) == (ghost.status, ghost.code) == (404, "unknown_board")
        err = _err(home, {"selection": [away_cards[0]]})
        assert (err.status, err.code, err.body["field"]) == (404, "unknown_card", "selection[0]")
        err = _err(home, {"dragging": {"id": away_cards[1], "x": 0, "y": 0}})
        assert (err.status, err.code, err.body["field"]) == (404, "unknown_card", "dragging.id")
        # Away's own readers see nobody from home.
        away.call("board_presence", {"board": "elsewhere", "cursor": {"x": 1, "y": 1}}, BO)
        home.call("board_presence", {"board": "b", "cursor": {"x": 1, "y": 1}}, BO)
        assert [
            p["who"]["name"]
            for p in away.call("board_changes", {"board": "elsewhere", "since": 0}, ANA)["presence"]
        ] == ["bo"]
        assert len(_present(home, ANA)) == 1


def test_two_processes_on_one_database_see_each_others_people(
    pair: tuple[Workspace, Workspace],
) -> None:
    one, two = pair
    _board(one)
    one.call("board_presence", {"board": "b", "cursor": {"x": 3, "y": 4}}, ANA)
    (ana,) = _present(two, BO)
    assert ana["cursor"] == {"x": 3, "y": 4}
    two.call("board_presence", {"board": "b", "leave": True}, ANA)
    assert _present(one, BO) == []


def test_colours_differ_while_there_are_colours_left(ws: Workspace) -> None:
    _board(ws)
    for i in range(len(COLOURS)):
        ws.call("board_presence", {"board": "b"}, Principal.user(f"person{i}"))
    seen = _present(ws, AGENT)
    assert sorted(p["colour"] for p in seen) == sorted(COLOURS)
    # Everyone sees the same colours: the reader's own row takes part in the choice.
    mine = {p["id"]: p["colour"] for p in _present(ws, Principal.user("person0"))}
    assert all(mine[p["id"]] == p["colour"] for p in seen if p["id"] in mine)
