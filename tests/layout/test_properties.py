"""Invariants over random compose sequences: no overlap unless one card contains the
other, children inside their frames, frames at most five deep, same input → same output."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layoutkit.errors import LayoutError, ServiceError
from layoutkit.layout import (
    ARRANGE_MODES,
    Board,
    CardPatch,
    apply_patches,
    arrange,
    place_batch,
)
from layoutkit.service.boards.layout_params import batch_from_params

from .conftest import assert_sound

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

leaf = st.one_of(
    st.builds(
        lambda w, h: {"kind": "shape", "payload": {"w": w, "h": h}},
        st.integers(20, 400),
        st.integers(20, 300),
    ),
    st.builds(lambda n: {"kind": "text", "payload": {"md": "word " * n}}, st.integers(1, 80)),
    st.just({"kind": "step", "payload": {"image": "a.png", "natW": 390, "natH": 844}}),
)


@st.composite
def batch(draw, existing: list) -> dict:
    n = draw(st.integers(1, 6))
    cards = [dict(draw(leaf), ref=f"r{i}") for i in range(n)]
    if draw(st.booleans()) and n >= 2:
        kind = draw(st.sampled_from(["cluster", "section"]))
        kids = [f"r{i}" for i in range(1, n)]
        payload = {"title": "F"} if draw(st.booleans()) else {}
        if kind == "section" and draw(st.booleans()):
            payload["layout"] = None
        cards[0] = {"kind": kind, "ref": "r0", "payload": payload, "children": kids}
    params: dict = {"cards": cards}
    choice = draw(st.sampled_from(["free", "layout", "anchor", "section", "journey", "flow"]))
    if choice == "layout":
        params["layout"] = draw(st.sampled_from(["column", "row", "grid"]))
    elif choice == "anchor" and existing:
        params["anchor"] = {
            "cardId": draw(st.sampled_from(existing)),
            "relation": draw(st.sampled_from(["after", "before", "under", "beside", "into"])),
        }
    elif choice == "section":
        params["section"] = draw(st.sampled_from(["Plan", "Risks", "Screens"]))
    elif choice == "journey":
        params["journey"] = "Checkout"
        p = draw(st.sampled_from([None, "next", 1]))
        if p is not None:
            params["pass"] = p
    elif choice == "flow":
        params["flow"] = "document"
    params["aspect"] = draw(st.sampled_from([None, 0, 1, 2.5, 9]))
    return params


def run_sequence(data, steps: int) -> tuple[Board, list]:
    board = Board()
    trace = []
    next_id = 1
    for _ in range(steps):
        params = data.draw(batch(sorted(k for k in board.cards if isinstance(k, int))))
        try:
            r = place_batch(board, batch_from_params(params))
        except (LayoutError, ServiceError) as e:
            trace.append(("error", e.code))
            continue
        mapping = {}
        for key in r.new_keys():
            mapping[key] = next_id
            next_id += 1
        board.rekey(mapping)
        trace.append(sorted((mapping[p.key], p.x, p.y, p.w, p.h) for p in r.placements))
    return board, trace


@SETTINGS
@given(st.data())
def test_random_compose_sequences_keep_the_board_sound(data):
    board, _ = run_sequence(data, data.draw(st.integers(1, 6)))
    assert_sound(board)


@SETTINGS
@given(st.data())
def test_patches_and_arrange_keep_the_board_sound(data):
    board, _ = run_sequence(data, 3)
    ids = sorted(k for k, c in board.cards.items() if not c.is_frame)
    if ids:
        target = data.draw(st.sampled_from(ids))
        apply_patches(
            board, [CardPatch(target, payload={"md": "grow " * data.draw(st.integers(1, 200))})]
        )
        assert_sound(board)
    mode = data.draw(st.sampled_from([m for m in ARRANGE_MODES if m != "compare"]))
    arrange(board, mode, scope=data.draw(st.sampled_from(["ai", "all"])))
    assert_sound(board)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000))
def test_same_input_same_output(seed):
    rng = random.Random(seed)
    batches = []
    for i in range(4):
        cards = [
            {"kind": "shape", "payload": {"w": rng.randint(20, 300), "h": rng.randint(20, 300)}}
            for _ in range(rng.randint(1, 5))
        ]
        params = {"cards": cards}
        if i and rng.random() < 0.5:
            params["section"] = rng.choice(["A", "Bb"])
        batches.append(params)

    def play():
        b = Board()
        out = []
        for params in batches:
            r = place_batch(b, batch_from_params(params))
            out.append([(p.key, p.x, p.y, p.w, p.h, p.container) for p in r.placements])
            out.append(sorted(r.changes.moves.items(), key=lambda kv: str(kv[0])))
        return out

    assert play() == play()
