"""Create, read, update and delete every resource the store keeps."""

from __future__ import annotations

from datetime import timedelta

import pytest

from layoutkit.storage import (
    ConflictError,
    NewCard,
    NewEdge,
    NewQuestion,
    NotFoundError,
    SqlStore,
    SqlTx,
)
from tests.storage.conftest import FakeClock


def note(text: str, *, x: float = 0, author: str = "agent:claude", layer: str = "ai") -> NewCard:
    return NewCard("note", {"text": text}, x, 0, 200, 80, layer, author)  # type: ignore[arg-type]


def new_board(tx: SqlTx, slug: str = "roadmap", **kw: object) -> int:
    ws = tx.ensure_workspace()
    return tx.create_board(ws.id, slug, **kw).id  # type: ignore[arg-type]


def test_workspaces(store: SqlStore) -> None:
    with store.transaction() as tx:
        made = tx.create_workspace("acme", {"plan": "team"})
        assert tx.ensure_workspace("acme") == made
        other = tx.ensure_workspace("beta")
        with pytest.raises(ConflictError):
            tx.create_workspace("acme")
    with store.read() as tx:
        assert [w.name for w in tx.workspaces()] == ["acme", "beta"]
        assert tx.workspace(made.id) == made
        assert tx.workspace_by_name("beta") == other
        assert made.meta == {"plan": "team"}
        assert tx.workspace(9999) is None


def test_workspace_meta_items(store: SqlStore) -> None:
    with store.transaction() as tx:
        made = tx.create_workspace("acme", {"plan": "team"})
        tx.set_workspace_meta_item(made.id, "tags", "ux", {"name": "UX"})
        both = tx.set_workspace_meta_item(made.id, "tags", "qa", {"name": "QA"})
        assert both.meta == {"plan": "team", "tags": {"ux": {"name": "UX"}, "qa": {"name": "QA"}}}
        with pytest.raises(NotFoundError):
            tx.set_workspace_meta_item(9999, "tags", "ux", {})
    with store.transaction() as tx:
        tx.set_workspace_meta_item(made.id, "tags", "ux", None)
        assert tx.workspace(made.id).meta["tags"] == {"qa": {"name": "QA"}}  # type: ignore[union-attr]
        # The last item gone, the key goes too.
        assert tx.set_workspace_meta_item(made.id, "tags", "qa", None).meta == {"plan": "team"}


def test_projects(store: SqlStore, clock: FakeClock) -> None:
    with store.transaction() as tx:
        ws = tx.ensure_workspace()
        web = tx.create_project(ws.id, "web", name="Web app", meta={"color": "blue"})
        api = tx.create_project(ws.id, "api")
        with pytest.raises(ConflictError):
            tx.create_project(ws.id, "web")
        board = tx.create_board(ws.id, "plan", project_id=web.id)
    clock.advance(minutes=1)
    with store.transaction() as tx:
        renamed = tx.update_project(web.id, name="Website", archived=True)
        assert (renamed.name, renamed.archived, renamed.slug) == ("Website", True, "web")
        assert renamed.updated_at > web.updated_at
        with pytest.raises(ConflictError):
            tx.update_project(api.id, slug="web")
        with pytest.raises(ValueError, match="allowed"):
            tx.update_project(api.id, colour="red")
        with pytest.raises(NotFoundError):
            tx.update_project(9999, name="x")
    with store.read() as tx:
        assert [p.slug for p in tx.projects(ws.id)] == ["api", "web"]
        assert tx.project_by_slug(ws.id, "web") == renamed
        assert [b.slug for b in tx.boards(ws.id, project_id=web.id)] == ["plan"]
    with store.transaction() as tx:
        assert tx.delete_project(web.id) is True
        assert tx.delete_project(web.id) is False
        assert tx.board(board.id).project_id is None  # type: ignore[union-attr]
        assert tx.project(web.id) is None


def test_board_fields_round_trip(store: SqlStore) -> None:
    with store.transaction() as tx:
        ws = tx.ensure_workspace()
        parent = tx.create_board(ws.id, "index", meta={"index": True})
        made = tx.create_board(
            ws.id,
            "review-login",
            subgroup="reviews",
            tags=["Login", "Q3"],
            theme="sketch",
            meta={"task": 12, "nested": {"a": [1, 2]}},
            lanes=[{"key": "web", "slug": "review-login-web"}],
            parent_board_id=parent.id,
            section="Sprint 4",
            flow="document",
            created_by="user:ana",
        )
    with store.read() as tx:
        got = tx.board_by_slug(ws.id, "review-login")
    assert got == made
    assert got.tags == ("login", "q3")
    assert got.meta == {"task": 12, "nested": {"a": [1, 2]}}
    assert got.lanes == [{"key": "web", "slug": "review-login-web"}]
    assert (got.parent_board_id, got.section, got.flow) == (parent.id, "Sprint 4", "document")
    assert (got.subgroup, got.theme, got.archived, got.created_by) == (
        "reviews",
        "sketch",
        False,
        "user:ana",
    )


def test_board_slug_is_unique_per_workspace(store: SqlStore) -> None:
    with store.transaction() as tx:
        a = tx.create_workspace("a")
        b = tx.create_workspace("b")
        tx.create_board(a.id, "plan")
        tx.create_board(b.id, "plan")
        with pytest.raises(ConflictError):
            tx.create_board(a.id, "plan")
        # The refused insert did not spoil the transaction (PostgreSQL aborts on errors).
        tx.create_board(a.id, "plan-2")
    with store.read() as tx:
        assert tx.board_slugs(a.id) == ["plan", "plan-2"]


def test_update_board(store: SqlStore, clock: FakeClock) -> None:
    with store.transaction() as tx:
        board_id = new_board(tx, "plan")
        new_board(tx, "taken")
    clock.advance(seconds=5)
    with store.transaction() as tx:
        changed = tx.update_board(
            board_id, theme="dark-paper", archived=True, meta={"k": 1}, subgroup="design"
        )
        assert (changed.theme, changed.archived, changed.meta, changed.subgroup) == (
            "dark-paper",
            True,
            {"k": 1},
            "design",
        )
        assert changed.updated_at == clock.now
        assert tx.update_board(board_id, slug="plan-b").slug == "plan-b"
        with pytest.raises(ConflictError):
            tx.update_board(board_id, slug="taken")
        with pytest.raises(ValueError, match="allowed"):
            tx.update_board(board_id, tags=["x"])
        with pytest.raises(NotFoundError):
            tx.update_board(424242, theme="x")


def test_tags_fold_and_filter(store: SqlStore) -> None:
    with store.transaction() as tx:
        ws = tx.ensure_workspace()
        tx.create_board(ws.id, "a", tags=["Café", "Ideas"])
        tx.create_board(ws.id, "b", tags=["cafe", "Q3"])
        tx.create_board(ws.id, "c", tags=["IDEAS"], archived=True)
        tx.create_board(ws.id, "d")

    def slugs(**kw: object) -> list[str]:
        with store.read() as tx:
            return [b.slug for b in tx.boards(ws.id, **kw)]  # type: ignore[arg-type]

    assert slugs() == ["a", "b", "c", "d"]
    assert slugs(all_tags=["CAFÉ"]) == ["a", "b"]
    assert slugs(all_tags=["cafe", "ideas"]) == ["a"]
    assert slugs(any_tags=["q3", "ideas"]) == ["a", "b", "c"]
    assert slugs(without_tags=["ideas"]) == ["b", "d"]
    assert slugs(any_tags=["ideas"], archived=False) == ["a"]
    with store.read() as tx:
        assert tx.tags(ws.id) == [("cafe", 2), ("ideas", 2), ("q3", 1)]


def test_set_board_tags_add_and_set(store: SqlStore) -> None:
    with store.transaction() as tx:
        board_id = new_board(tx, tags=["One"])
        assert tx.set_board_tags(board_id, ["Two", "ONE"], mode="add") == ("one", "two")
        assert tx.set_board_tags(board_id, ["Three", "three"]) == ("three",)
        with pytest.raises(ValueError):
            tx.set_board_tags(board_id, ["x"], mode="merge")  # type: ignore[arg-type]
        with pytest.raises(NotFoundError):
            tx.set_board_tags(999999, ["x"])
    with store.read() as tx:
        assert tx.board(board_id).tags == ("three",)  # type: ignore[union-attr]


def test_delete_board_takes_everything_on_it(store: SqlStore) -> None:
    with store.transaction() as tx:
        board_id = new_board(tx, tags=["x"])
        a, b = tx.insert_cards(board_id, [note("a"), note("b")])
        tx.insert_edges(board_id, [NewEdge(a.id, b.id)])
        tx.insert_questions(board_id, [NewQuestion("Which?", ["x", "y"], card_id=a.id)])
        tx.create_share_link(board_id)
        tx.record_event("board.create", "user:ana", board_id=board_id)
    with store.transaction() as tx:
        assert tx.delete_board(board_id) is True
        assert tx.delete_board(board_id) is False
        assert tx.cards_by_id([a.id, b.id]) == []
        assert tx.edges(board_id, include_trashed_ends=True) == []
        assert tx.questions(board_id) == []
        assert tx.share_links(board_id) == []
        assert tx.tags(tx.ensure_workspace().id) == []
        # The audit trail outlives the board.
        assert tx.events(action="board.create")[0].board_id is None


def test_insert_cards_assigns_ids_ordinals_and_version_one(store: SqlStore) -> None:
    with store.transaction() as tx:
        board_id = new_board(tx)
        first = tx.insert_cards(board_id, [note(f"n{i}", x=i * 10) for i in range(3)])
        second = tx.insert_cards(
            board_id,
            [
                NewCard(
                    "section",
                    {"title": "S"},
                    0,
                    100,
                    400,
                    300,
                    "human",
                    "user:ana",
                    children=[first[0].id, first[1].id],
                    sized_by="user",
                )
            ],
        )
        assert tx.insert_cards(board_id, []) == []
        with pytest.raises(NotFoundError):
            tx.insert_cards(777777, [note("x")])
    assert [c.ordinal for c in first + second] == [1, 2, 3, 4]
    assert len({c.id for c in first + second}) == 4
    assert all(c.version == 1 for c in first + second)
    with store.read() as tx:
        stored = tx.cards(board_id)
        assert stored == first + second
        assert stored[3].children == [first[0].id, first[1].id]
        assert stored[3].sized_by == "user" and stored[3].layer == "human"
        assert tx.card(first[2].id) == first[2]
        assert tx.count_cards(board_id) == 4
        boxes = tx.card_boxes(board_id)
        assert [(b.id, b.x, b.w, b.kind) for b in boxes] == [
            (c.id, c.x, c.w, c.kind) for c in stored
        ]


def test_card_outline_is_the_live_boxes_as_tuples(store: SqlStore) -> None:
    with store.transaction() as tx:
        board_id = new_board(tx)
        a, b, c = tx.insert_cards(board_id, [note("a"), note("b", x=500), note("c", x=900)])
        tx.update_cards([{"id": b.id, "parent_id": a.id}])
        tx.remove_cards([c.id], by="user:ana")
    with store.read() as tx:
        rows = tx.card_outline(board_id)
        boxes = tx.card_boxes(board_id)
        assert rows == [(x.id, x.kind, x.x, x.y, x.w, x.h, x.parent_id) for x in boxes]
        assert [r[0] for r in rows] == [a.id, b.id] and rows[1][6] == a.id
        # Only the boxes reaching into the window (x0, y0, x1, y1).
        assert [r[0] for r in tx.card_outline(board_id, within=(450, -10, 600, 10))] == [b.id]
        assert tx.card_outline(board_id, within=(5000, 5000, 5100, 5100)) == []


def test_card_version_goes_up_on_every_change(store: SqlStore) -> None:
    with store.transaction() as tx:
        board_id = new_board(tx)
        frame, card = tx.insert_cards(board_id, [note("frame"), note("child")])
    with store.transaction() as tx:
        (moved,) = tx.update_cards([{"id": card.id, "x": 40, "y": 50}])
        assert (moved.x, moved.y, moved.version) == (40, 50, 2)
        (edited,) = tx.update_cards([{"id": card.id, "payload": {"text": "new"}}])
        assert (edited.payload, edited.version, edited.x) == ({"text": "new"}, 3, 40)
        both = tx.update_cards(
            [
                {"id": card.id, "parent_id": frame.id},
                {"id": frame.id, "children": [card.id], "h": 300},
            ]
        )
        assert [(c.id, c.version) for c in both] == [(card.id, 4), (frame.id, 2)]
        assert both[0].parent_id == frame.id and both[1].children == [card.id]
        assert tx.remove_cards([card.id], by="user:ana") == [card.id]
        assert tx.card(card.id).version == 5  # type: ignore[union-attr]
        assert tx.restore_cards([card.id]) == [card.id]
        assert tx.card(card.id).version == 6  # type: ignore[union-attr]


def test_update_cards_refuses_unknown_fields_and_ids(store: SqlStore) -> None:
    with store.transaction() as tx:
        board_id = new_board(tx)
        (card,) = tx.insert_cards(board_id, [note("x")])
    with pytest.raises(ValueError, match="allowed"), store.transaction() as tx:
        tx.update_cards([{"id": card.id, "author": "someone"}])
    with pytest.raises(NotFoundError), store.transaction() as tx:
        tx.update_cards([{"id": card.id, "x": 1}, {"id": 987654, "x": 1}])
    with store.read() as tx:
        assert tx.card(card.id) == card


def test_many_card_updates_in_one_call(store: SqlStore) -> None:
    with store.transaction() as tx:
        board_id = new_board(tx)
        cards = tx.insert_cards(board_id, [note(str(i)) for i in range(300)])
    with store.transaction() as tx:
        moved = tx.update_cards(
            [{"id": c.id, "x": float(i), "y": float(2 * i)} for i, c in enumerate(cards)]
        )
    assert [(c.x, c.y, c.version) for c in moved] == [
        (float(i), float(2 * i), 2) for i in range(300)
    ]


def test_soft_delete_restore_and_purge_after_30_days(store: SqlStore, clock: FakeClock) -> None:
    with store.transaction() as tx:
        board_id = new_board(tx)
        a, b, c = tx.insert_cards(board_id, [note("a"), note("b"), note("c")])
        tx.insert_edges(board_id, [NewEdge(a.id, b.id), NewEdge(b.id, c.id)])
        (q,) = tx.insert_questions(board_id, [NewQuestion("Why?", card_id=a.id)])
        assert tx.remove_cards([a.id, b.id, 123456], by="agent:claude") == [a.id, b.id]
        assert tx.remove_cards([a.id], by="agent:claude") == []
    with store.read() as tx:
        assert [x.id for x in tx.cards(board_id)] == [c.id]
        assert [x.id for x in tx.cards(board_id, include_deleted=True)] == [a.id, b.id, c.id]
        assert {x.id for x in tx.trash(board_id)} == {a.id, b.id}
        assert tx.trash(board_id, deleted_by="user:other") == []
        assert tx.card(a.id).deleted_at == clock.now  # type: ignore[union-attr]
        assert tx.card(a.id).deleted_by == "agent:claude"  # type: ignore[union-attr]
        # Wires touching a trashed card drop out of the live view only.
        assert tx.edges(board_id) == []
        assert len(tx.edges(board_id, include_trashed_ends=True)) == 2
        assert tx.count_cards(board_id) == 1
    clock.advance(days=1)
    with store.transaction() as tx:
        assert tx.restore_cards([b.id, c.id]) == [b.id]
        assert tx.card(b.id).deleted_at is None  # type: ignore[union-attr]
    clock.advance(days=29, hours=-1)
    with store.transaction() as tx:
        assert tx.purge_deleted_cards() == 0
    clock.advance(hours=2)
    with store.transaction() as tx:
        assert tx.purge_deleted_cards() == 1
        assert tx.card(a.id) is None
        assert [(e.from_card, e.to_card) for e in tx.edges(board_id)] == [(b.id, c.id)]
        assert tx.question(q.id).card_id is None  # type: ignore[union-attr]


def test_purge_clears_parent_references(store: SqlStore, clock: FakeClock) -> None:
    with store.transaction() as tx:
        board_id = new_board(tx)
        (frame,) = tx.insert_cards(board_id, [note("frame")])
        (child,) = tx.insert_cards(
            board_id, [NewCard("note", {}, 0, 0, 10, 10, "ai", "agent:x", parent_id=frame.id)]
        )
        tx.remove_cards([frame.id], by="agent:x")
    clock.advance(days=31)
    with store.transaction() as tx:
        assert tx.purge_deleted_cards() == 1
        assert tx.card(child.id).parent_id is None  # type: ignore[union-attr]


def test_edges(store: SqlStore) -> None:
    with store.transaction() as tx:
        board_id = new_board(tx)
        a, b = tx.insert_cards(board_id, [note("a"), note("b")])
        region = {"x": 1, "y": 2, "w": 30, "h": 40}
        made = tx.insert_edges(
            board_id,
            [
                NewEdge(a.id, b.id, rel="blocks", label="waits on", from_region=region),
                NewEdge(b.id, a.id, author="user:ana"),
            ],
        )
    with store.transaction() as tx:
        assert tx.edges(board_id) == made
        assert made[0].from_region == region and made[0].to_region is None
        changed = tx.update_edge(made[0].id, label="needs", to_region=region)
        assert (changed.label, changed.to_region, changed.rel) == ("needs", region, "blocks")
        with pytest.raises(NotFoundError):
            tx.update_edge(55555, label="x")
        with pytest.raises(ValueError):
            tx.update_edge(made[0].id, from_card=b.id)
        assert tx.delete_edges([made[1].id, 55555]) == 1
        assert [e.id for e in tx.edges(board_id)] == [made[0].id]


def test_questions_staged_answered_released(store: SqlStore, clock: FakeClock) -> None:
    with store.transaction() as tx:
        board_id = new_board(tx)
        (card,) = tx.insert_cards(board_id, [note("anchor")])
        options = ["Postgres", {"label": "SQLite", "hint": "embedded", "recommended": True}]
        q1, q2 = tx.insert_questions(
            board_id,
            [
                NewQuestion(
                    "Which database?",
                    options,
                    stakes="hard to change later",
                    pivot=True,
                    card_id=card.id,
                    author="agent:claude",
                ),
                NewQuestion("Anything else?", kind="text", multi_select=False),
            ],
        )
    assert (q1.state, q1.options, q1.pivot, q1.stakes) == (
        "staged",
        options,
        True,
        "hard to change later",
    )
    clock.advance(minutes=3)
    with store.transaction() as tx:
        answered = tx.answer_question(q1.id, ["SQLite"])
        assert (answered.state, answered.answers, answered.answered_at) == (
            "answered",
            ["SQLite"],
            clock.now,
        )
        with pytest.raises(NotFoundError):
            tx.answer_question(31337, "x")
        assert [q.id for q in tx.questions(board_id, state="staged")] == [q2.id]
    clock.advance(minutes=1)
    with store.transaction() as tx:
        released = tx.release_questions(board_id)
        assert [(q.id, q.state, q.released_at) for q in released] == [
            (q1.id, "released", clock.now)
        ]
        assert tx.release_questions(board_id) == []
        assert tx.delete_questions([q2.id]) == 1
        assert [q.id for q in tx.questions(board_id)] == [q1.id]


def test_share_links_store_only_a_hash(store: SqlStore) -> None:
    with store.transaction() as tx:
        board_id = new_board(tx)
        (card,) = tx.insert_cards(board_id, [note("first")])
        link, token = tx.create_share_link(
            board_id, "annotate", card_id=card.id, created_by="user:ana"
        )
        view, view_token = tx.create_share_link(board_id)
        with pytest.raises(ValueError):
            tx.create_share_link(board_id, "edit")  # type: ignore[arg-type]
    assert link.id.startswith("sh_") and token != view_token
    assert (link.mode, link.card_id, view.mode) == ("annotate", card.id, "view")
    with store.transaction() as tx:
        assert tx.verify_share_token(token) == link
        assert tx.verify_share_token(token + "x") is None
        assert tx.share_link(link.id) == link
        assert {x.id for x in tx.share_links(board_id)} == {link.id, view.id}
        stored = tx.conn.exec_driver_sql("SELECT token_hash FROM share_links").scalars().all()
        assert token not in stored and len(stored) == 2
        assert tx.revoke_share_link(link.id) is True
        assert tx.revoke_share_link(link.id) is False
        assert tx.verify_share_token(token) is None
        assert tx.verify_share_token(view_token) == view


def test_api_tokens(store: SqlStore) -> None:
    with store.transaction() as tx:
        record, token = tx.create_api_token("agent", "claude")
        _, user_token = tx.create_api_token("user", "ana")
        with pytest.raises(ValueError):
            tx.create_api_token("robot", "x")  # type: ignore[arg-type]
    assert token.startswith("lkt_") and (record.kind, record.name) == ("agent", "claude")
    with store.transaction() as tx:
        assert tx.verify_api_token(token) == record
        assert tx.verify_api_token("lkt_wrong") is None
        assert [t.name for t in tx.api_tokens()] == ["claude", "ana"]
        assert tx.revoke_api_token(record.id) is True
        assert tx.revoke_api_token(record.id) is False
        assert tx.verify_api_token(token) is None
        assert tx.verify_api_token(user_token).name == "ana"  # type: ignore[union-attr]


def test_request_keys_kept_a_day_then_purged(store: SqlStore, clock: FakeClock) -> None:
    receipt = {"cards": [{"id": 1, "x": 0}], "warnings": []}
    with store.transaction() as tx:
        saved = tx.save_request_key(
            "agent:claude", "k-1", operation="compose_board", input_hash="abc", receipt=receipt
        )
        with pytest.raises(ConflictError):
            tx.save_request_key(
                "agent:claude", "k-1", operation="compose_board", input_hash="def", receipt={}
            )
        # Keys are per principal.
        tx.save_request_key("user:ana", "k-1", operation="update_cards", input_hash="x", receipt={})
    with store.read() as tx:
        assert tx.request_key("agent:claude", "k-1") == saved
        assert saved.receipt == receipt and saved.created_at == clock.now
        assert tx.request_key("agent:claude", "k-2") is None
    clock.advance(hours=23, minutes=59)
    with store.transaction() as tx:
        assert tx.purge_request_keys() == 0
        tx.save_request_key("agent:claude", "k-2", operation="op", input_hash="h", receipt={})
    clock.advance(minutes=2)
    with store.transaction() as tx:
        assert tx.purge_request_keys() == 2
        assert tx.request_key("agent:claude", "k-1") is None
        assert tx.request_key("agent:claude", "k-2") is not None


def test_audit_events(store: SqlStore, clock: FakeClock) -> None:
    with store.transaction() as tx:
        board_id = new_board(tx)
        first = tx.record_event("board.create", "user:ana", board_id=board_id, detail={"a": 1})
        clock.advance(seconds=1)
        tx.record_event("review.rules.update", "user:ana", detail={"version": 2})
        clock.advance(seconds=1)
        last = tx.record_event("cards.remove", "agent:x", board_id=board_id)
    with store.read() as tx:
        assert [e.action for e in tx.events()] == [
            "board.create",
            "review.rules.update",
            "cards.remove",
        ]
        assert tx.events(board_id=board_id) == [first, last]
        assert [e.action for e in tx.events(action="review.rules.update")] == [
            "review.rules.update"
        ]
        assert tx.events(limit=1) == [last]
        assert tx.events(since=clock.now - timedelta(seconds=1))[0].action == "review.rules.update"
        assert first.detail == {"a": 1} and first.at < last.at
