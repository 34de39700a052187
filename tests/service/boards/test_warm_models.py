"""Warm board models: a write reads only the rows changed since the model's rev.

Every test here runs with ``LAYOUTKIT_VERIFY_MODELS=1`` (tests/conftest.py),
so each model a write takes from the cache is compared with one built from
the database; a stale model fails the call. Two workspaces opened on one
database have a cache each, as two server processes do.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from layoutkit import Principal, Workspace
from layoutkit.errors import ServiceError
from layoutkit.service.boards.board_model import BoardModels
from tests.conftest import POSTGRES_URL

AGENT = Principal.agent("claude")


def text(md: str) -> dict[str, Any]:
    return {"kind": "text", "payload": {"md": md}}


def compose(ws: Workspace, **params: Any) -> dict[str, Any]:
    return ws.call("compose_board", {"board": "b", **params}, AGENT)


def remove(ws: Workspace, ids: list[int]) -> None:
    """Remove cards, going through the confirm handshake when the service asks for it."""
    try:
        ws.call("update_cards", {"remove": ids}, AGENT)
    except ServiceError as asked:
        if asked.code != "needs_confirm":
            raise
        confirmed = {
            "remove": ids,
            "confirm": asked.body["token"],
            "reason": "tidying the board up for review",
        }
        ws.call("update_cards", confirmed, AGENT)


@pytest.fixture(params=["sqlite", "postgres"])
def pair(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Workspace, Workspace]]:
    """Two workspaces on one database, each with its own warm models."""
    if request.param == "sqlite":
        url, name = f"sqlite:///{tmp_path / 'ws.db'}", "default"
    else:
        if not POSTGRES_URL:
            pytest.skip("LAYOUTKIT_TEST_POSTGRES_URL is not set; PostgreSQL tests need a server")
        url, name = POSTGRES_URL, f"test-{uuid.uuid4().hex[:12]}"
    with Workspace.open(url, name=name) as one, Workspace.open(url, name=name) as two:
        one.call("create", {"kind": "board", "slug": "b"})
        yield one, two


def test_the_verify_switch_is_on_for_the_suite(ws: Workspace) -> None:
    assert ws.extension(BoardModels).verify


def test_a_second_write_reads_back_only_the_rows_the_first_changed(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "b"})
    compose(ws, cards=[text(f"seed {i}") for i in range(30)])
    assert ws.extension(BoardModels).last == "fresh"
    out = compose(ws, cards=[text(f"more {i}") for i in range(3)])
    assert ws.extension(BoardModels).last.startswith("delta:")
    compose(ws, cards=[text("again")])
    changed = 3 + len(out["moved"])
    assert ws.extension(BoardModels).last == f"delta:{changed}"


def test_another_process_write_is_read_as_a_delta(pair: tuple[Workspace, Workspace]) -> None:
    one, two = pair
    compose(one, cards=[text(f"seed {i}") for i in range(20)])
    compose(two, cards=[text("two's first")])
    assert two.extension(BoardModels).last == "fresh"
    # One's model is 20 cards old; two added one card since.
    compose(one, cards=[text("one's second")])
    assert one.extension(BoardModels).last.startswith("delta:")
    rows = int(one.extension(BoardModels).last.split(":")[1])
    assert 20 <= rows <= 21  # its own 20 read back once, plus the card from two
    compose(two, cards=[text("two's second")])
    assert two.extension(BoardModels).last == "delta:2"  # its own card and one's


def test_a_refused_batch_keeps_the_model_warm(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "b"})
    compose(ws, cards=[text("a")])
    compose(ws, cards=[text("b")])
    with pytest.raises(ServiceError) as refused:
        compose(ws, cards=[text("c")], anchorCardId=999_999)
    assert refused.value.code == "unknown_anchor"
    # The refused call caught up with "b" and changed nothing: the model is current.
    compose(ws, cards=[text("d")])
    assert ws.extension(BoardModels).last == "warm"


def test_removals_and_restores_of_this_process_are_deltas(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "b"})
    out = compose(ws, section="Plan", createSection=True, cards=[text("in the plan")])
    loose = compose(ws, cards=[text("loose")])["cards"][0]["id"]
    remove(ws, [loose])
    ws.call("update_cards", {"restore": [loose]}, AGENT)
    remove(ws, [out["sections"][0]["id"]])
    compose(ws, cards=[text("after the section went")])
    assert ws.extension(BoardModels).last.startswith("delta:")


def test_a_frame_removed_or_a_card_restored_elsewhere_rebuilds(
    pair: tuple[Workspace, Workspace],
) -> None:
    one, two = pair
    out = compose(one, section="Plan", createSection=True, cards=[text("in the plan")])
    loose = compose(one, cards=[text("loose")])["cards"][0]["id"]
    remove(one, [loose])
    compose(two, cards=[text("two")])
    one.call("update_cards", {"restore": [loose]}, AGENT)
    compose(two, cards=[text("sees the restored card")])
    assert two.extension(BoardModels).last == "fresh"
    remove(one, [out["sections"][0]["id"]])
    compose(two, cards=[text("sees the section go")])
    assert two.extension(BoardModels).last == "fresh"


def test_a_purge_makes_other_models_rebuild(own_pair: tuple[Workspace, Workspace]) -> None:
    one, two = own_pair
    one.call("create", {"kind": "board", "slug": "b"})
    ids = [c["id"] for c in compose(one, cards=[text(f"c{i}") for i in range(4)])["cards"]]
    compose(two, cards=[text("two")])
    remove(one, ids[:2])
    with one.store.transaction() as tx:
        assert tx.purge_deleted_cards(timedelta(0)) == 2
    compose(two, cards=[text("after the purge")])
    assert two.extension(BoardModels).last == "fresh"


def test_wires_follow_edges_added_elsewhere(pair: tuple[Workspace, Workspace]) -> None:
    one, two = pair
    a, b = (c["id"] for c in compose(one, cards=[text("a"), text("b")])["cards"])
    compose(two, cards=[text("two")])
    compose(one, edges=[{"from": a, "to": b}])
    compose(two, cards=[text("sees the wire")])
    with two.store.transaction() as tx:
        board = tx.board_by_slug(two.workspace_id, "b")
        assert board is not None
        model = two.extension(BoardModels).load(tx, board)
        assert [(w.src, w.dst) for w in model.wires] == [(a, b)]


def test_a_cache_bound_evicts_the_least_recent_board(ws: Workspace) -> None:
    ws.extension(BoardModels).max_cards = 5
    for slug in ("b", "c"):
        ws.call("create", {"kind": "board", "slug": slug})
        ws.call("compose_board", {"board": slug, "cards": [text("x"), text("y"), text("z")]}, AGENT)
    assert len(ws.extension(BoardModels)) == 1  # 3 + 3 cards do not fit in 5
    ws.call("compose_board", {"board": "b", "cards": [text("w")]}, AGENT)
    assert ws.extension(BoardModels).last == "fresh"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_two_writers_in_any_order_never_see_a_stale_model(
    pair: tuple[Workspace, Workspace], seed: int
) -> None:
    """Random writes through both workspaces; each checkout is verified against the database."""
    rng = random.Random(seed)
    one, two = pair
    live: list[int] = []
    trashed: list[int] = []
    for step in range(40):
        ws = rng.choice(pair)
        roll = rng.random()
        if roll < 0.35 or len(live) < 3:
            params: dict[str, Any] = {
                "cards": [text(f"{step}.{j}") for j in range(rng.randint(1, 4))]
            }
            if rng.random() < 0.3:
                params.update(section=rng.choice(["Plan", "Risks"]), createSection=True)
            elif rng.random() < 0.3:
                params["anchorCardId"] = rng.choice(live)
            live += [c["id"] for c in compose(ws, **params)["cards"]]
        elif roll < 0.55:
            card = rng.choice(live)
            patch = {"id": card, "x": rng.randint(-400, 3000), "y": rng.randint(-400, 3000)}
            ws.call("update_cards", {"patch": [patch]}, AGENT)
        elif roll < 0.65:
            card = rng.choice(live)
            remove(ws, [card])
            live.remove(card)
            trashed.append(card)
        elif roll < 0.72 and trashed:
            card = trashed.pop()
            ws.call("update_cards", {"restore": [card]}, AGENT)
            live.append(card)
        elif roll < 0.85:
            a, b = rng.sample(live, 2)
            compose(ws, edges=[{"from": a, "to": b}])
        elif roll < 0.92:
            ws.call("arrange", {"board": "b", "mode": "grid", "scope": "all"}, AGENT)
        else:
            compose(ws, cards=[text(f"doc {step}")], flow="document")
    for ws in (one, two):
        compose(ws, cards=[text("last")])


def _writer(url: str, name: str, seed: int, steps: int) -> list[str]:
    """One process's share of the two-process test: composes, moves and removals
    on board "b", with every warm model it takes checked against the database."""
    import os

    os.environ["LAYOUTKIT_VERIFY_MODELS"] = "1"
    rng = random.Random(seed)
    seen: list[str] = []
    with Workspace.open(url, name=name) as ws:
        assert ws.extension(BoardModels).verify
        mine: list[int] = []
        for step in range(steps):
            roll = rng.random()
            if roll < 0.6 or len(mine) < 2:
                cards = [text(f"p{seed}.{step}.{j}") for j in range(rng.randint(1, 3))]
                mine += [c["id"] for c in compose(ws, cards=cards)["cards"]]
            elif roll < 0.85:
                patch = {
                    "id": rng.choice(mine),
                    "x": rng.randint(0, 4000),
                    "y": rng.randint(0, 4000),
                }
                ws.call("update_cards", {"patch": [patch]}, AGENT)
            else:
                remove(ws, [mine.pop(rng.randrange(len(mine)))])
            seen.append(ws.extension(BoardModels).last)
    return seen


def test_two_processes_writing_one_board_read_each_others_rows_as_deltas(
    tmp_path: Path,
) -> None:
    """Real processes, one SQLite file: each sees the other's writes as deltas, never stale."""
    import concurrent.futures
    import multiprocessing

    url = f"sqlite:///{tmp_path / 'ws.db'}"
    with Workspace.open(url) as ws:
        ws.call("create", {"kind": "board", "slug": "b"})
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=context) as pool:
        runs = [pool.submit(_writer, url, "default", seed, 30) for seed in (11, 12)]
        seen = [run.result(timeout=120) for run in runs]
    for kinds in seen:
        # Only each process's first write builds its model from scratch.
        assert kinds[0] == "fresh"
        assert all(k.startswith("delta:") or k == "warm" for k in kinds[1:]), kinds
    with Workspace.open(url) as ws:
        compose(ws, cards=[text("a last look, checked against the database")])


def test_arrange_reads_the_payloads_of_the_cards_it_places_from_a_warm_model(
    ws: Workspace,
) -> None:
    """Lanes come from content (here a text's role): on a warm model, which holds
    payloads of frames only, arrange still reads those of the cards it places."""
    ws.call("create", {"kind": "board", "slug": "b"})
    lanes = ["pro", "con", "pro", "con", "pro"]
    cards = [
        {"kind": "text", "payload": {"md": f"point {i}", "role": lane}}
        for i, lane in enumerate(lanes)
    ]
    ids = [c["id"] for c in compose(ws, cards=cards)["cards"]]
    compose(ws, cards=[text("warms the model")])
    out = ws.call("arrange", {"board": "b", "mode": "lanes", "scope": ids}, AGENT)
    assert ws.extension(BoardModels).last.startswith("delta:")
    rows = {c["id"]: c["y"] for c in out["cards"]}
    pros = {rows[i] for i, lane in zip(ids, lanes, strict=True) if lane == "pro"}
    cons = {rows[i] for i, lane in zip(ids, lanes, strict=True) if lane == "con"}
    assert len(pros) == 1 and len(cons) == 1 and pros != cons


def test_threads_of_one_process_share_a_board_model_in_turn(
    pair: tuple[Workspace, Workspace],
) -> None:
    """Threads writing one board take its model in turn (the board lock orders them,
    the lease hands the model over); every model is checked against the database."""
    from concurrent.futures import ThreadPoolExecutor

    one, _ = pair

    def writer(i: int) -> int:
        placed = 0
        for j in range(8):
            placed += len(compose(one, cards=[text(f"thread {i} card {j}")])["cards"])
        return placed

    with ThreadPoolExecutor(4) as pool:
        assert sum(pool.map(writer, range(4))) == 32
    assert one.extension(BoardModels).counts["bypass"] == 0
    assert one.extension(BoardModels).counts["fresh"] == 1
    compose(one, cards=[text("checked against the database")])
    assert len(one.call("scrape_board", {"board": "b"})["cards"]) == 33
