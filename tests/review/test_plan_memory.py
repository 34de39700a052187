"""review_plan holds a bounded number of decoded screens, and plans as it did when it
held them all.

The planner looks at each screen once and judges a near-duplicate as soon as it
comes; these tests check its plans against the eager planner it replaced
(:mod:`tests.review.plan_reference`) on generated screens, count the decodes it
does, and count the decoded screens alive at once in a plan of 60 screens.
"""

from __future__ import annotations

import collections
import tracemalloc
import weakref
from collections.abc import Callable
from typing import Any

import attrs
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layoutkit import Workspace
from layoutkit.errors import EngineError
from layoutkit.review import plan as planner
from layoutkit.review.diff import Pixels
from layoutkit.service.review import review_runs as runs
from tests.review import plan_reference as reference
from tests.review.test_review_plan import AGENT, board, screen


@attrs.frozen
class Design:
    """A generated picture: ``kind`` ``app`` (a layout, maybe with a changed block),
    ``blank``, ``skeleton``, or one with nothing to decode (``failed``,
    ``undecodable``). ``factor`` 2: decoded reduced from a natural size of twice the
    size, less ``trim`` pixels of width."""

    kind: str
    layout: int = 0
    width: int = 96
    height: int = 40
    dark: bool = False
    change: tuple[int, int, int, int] | None = None
    factor: int = 1
    trim: int = 0


def draw(d: Design) -> Pixels:
    """Fresh pixels of ``d`` on every call, as a decode would give."""
    h, w = d.height, d.width
    bg = (24, 26, 32) if d.dark else (250, 250, 252)
    rgba = np.empty((h, w, 4), dtype=np.uint8)
    rgba[...] = (*bg, 255)
    if d.kind == "skeleton":
        rgba[..., :3] = 245
        rgba[8:14, 4 : w // 2, :3] = 225
        rgba[20:26, 4 : w // 2, :3] = 225
    elif d.kind == "app":
        rgba[:6, :, :3] = (60, 90, 200)
        fg = 230 if d.dark else 30
        for row in range(8 + d.layout, h - 4, 7 + d.layout):
            rgba[row, 4 : w - 4, :3] = fg
            rgba[row + 2, 6 : 6 + (w // (2 + d.layout)), :3] = fg
        if d.change is not None:
            x, y, cw, ch = d.change
            rgba[y : y + ch, x : x + cw, :3] = (200, 40, 40)
    pixels = Pixels.from_rgba(rgba)
    if d.factor == 1:
        return pixels
    natural = (w * d.factor - d.trim, h * d.factor)
    return attrs.evolve(pixels, factor=d.factor, natural=natural)


def loader(d: Design, calls: collections.Counter[str], key: str) -> planner.Loader:
    def load() -> Pixels | None:
        calls[key] += 1
        if d.kind == "failed":
            return None
        if d.kind == "undecodable":
            raise EngineError("image_undecodable", "image: not a decodable image")
        return draw(d)

    return load


def eager(screen: planner.Screen) -> reference.EagerScreen:
    """``screen`` decoded up front, as the service did before."""
    pixels, gap = None, screen.gap
    if gap is None:
        if screen.load is None:
            gap = "failed"
        else:
            try:
                pixels = screen.load()
            except EngineError:
                gap = "undecodable"
            else:
                gap = "failed" if pixels is None else None
    return reference.EagerScreen(
        screen.card_id,
        screen.board,
        screen.version,
        screen.key,
        pixels,
        gap,
        screen.device,
        screen.theme,
    )


def same_plan(lazy: planner.Plan, old: planner.Plan) -> None:
    assert lazy == old
    # The service writes these out in their order: the order is part of the plan.
    for field in ("receipts", "by", "dups", "devices", "themes", "sizes"):
        assert list(getattr(lazy, field).items()) == list(getattr(old, field).items()), field


change = st.tuples(
    st.integers(0, 300), st.integers(10, 100), st.integers(1, 40), st.integers(1, 12)
)
changes = st.one_of(st.none(), change, change, change)

bases = st.builds(
    Design,
    kind=st.just("app"),
    layout=st.integers(0, 1),
    width=st.sampled_from([330, 330, 640, 1280]),
    height=st.just(120),
    dark=st.booleans(),
    factor=st.sampled_from([1, 1, 1, 2]),
    trim=st.integers(0, 1),
)


def _pictures(made: tuple[list[Design], list[Any]]) -> list[Design]:
    layouts, picks = made
    return [
        Design(p) if isinstance(p, str) else attrs.evolve(layouts[p[0] % len(layouts)], change=p[1])
        for p in picks
    ]


# Ten pictures: most are one of a few layouts with a block changed here or there
# (near-duplicates of each other), the others gaps of each kind.
pictures = st.tuples(
    st.lists(bases, min_size=1, max_size=2),
    st.lists(
        st.one_of(
            st.tuples(st.integers(0, 2), changes),
            st.tuples(st.integers(0, 2), changes),
            st.sampled_from(["blank", "skeleton", "failed", "undecodable"]),
        ),
        min_size=10,
        max_size=10,
    ),
).map(_pictures)
screen_specs = st.lists(
    st.tuples(
        st.integers(0, 9),  # which picture: repeats are byte-identical screens
        st.sampled_from([None] * 7 + ["failed"]),  # a gap the caller knew of
        st.sampled_from([None] * 5 + ["phone", "desktop"]),
        st.sampled_from([None] * 5 + ["light", "dark"]),
        st.sampled_from([False] * 7 + [True]),  # no loader at all
    ),
    min_size=3,
    max_size=24,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pictures=pictures,
    specs=screen_specs,
    judged=st.sets(st.integers(0, 9), max_size=3),
    full=st.booleans(),
    keep=st.sampled_from([0, 20_000, planner.KEEP_BYTES]),
)
def test_the_bounded_planner_plans_as_the_eager_one_did(
    pictures: list[Design],
    specs: list[tuple[int, str | None, str | None, str | None, bool]],
    judged: set[int],
    full: bool,
    keep: int,
) -> None:
    calls: collections.Counter[str] = collections.Counter()
    screens = []
    for card, (picture, gap, device, theme, no_loader) in enumerate(specs, start=1):
        key = f"sha256:{picture}"
        load = None if no_loader else loader(pictures[picture], calls, key)
        screens.append(planner.Screen(card, "app", 1, key, load, gap, device, theme))
    keys = {f"sha256:{i}" for i in judged}
    old = reference.make_plan([eager(s) for s in screens], judged=keys, full=full)
    calls.clear()
    lazy = planner.make_plan(screens, judged=keys, full=full, keep_bytes=keep)
    same_plan(lazy, old)
    if keep == planner.KEEP_BYTES and all(s.theme is None for s in screens):
        # Room for every baseline and no theme left to work out later: one decode a picture.
        assert set(calls.values()) <= {1}


def counted(pictures: dict[str, Design]) -> tuple[list[planner.Screen], collections.Counter[str]]:
    calls: collections.Counter[str] = collections.Counter()
    screens = [
        planner.Screen(card, "app", 1, key, loader(d, calls, key))
        for card, (key, d) in enumerate(pictures.items(), start=1)
    ]
    return screens, calls


def app(**kw: Any) -> Design:
    return Design("app", **kw)


def test_byte_identical_and_reused_screens_decode_once() -> None:
    screens, calls = counted({"sha256:a": app(), "sha256:b": app(dark=True)})
    a, b = screens
    twice = [a, attrs.evolve(a, card_id=3), b, attrs.evolve(b, card_id=4)]
    made = planner.make_plan(twice, judged={"sha256:b"})
    assert made.receipts == {1: "inspected", 3: "represented", 2: "reused", 4: "reused"}
    assert calls == {"sha256:a": 1, "sha256:b": 1}
    assert made.sizes == {1: (96, 40), 3: (96, 40), 2: (96, 40), 4: (96, 40)}


def test_a_dropped_baseline_is_decoded_again_for_its_next_member() -> None:
    # Light and dark screens in turn: two groups whose members alternate.
    pictures = {
        f"sha256:{i}": app(width=330, dark=i % 2 == 1, change=(10 + i, 20, 4, 4)) for i in range(6)
    }
    screens, calls = counted(pictures)
    roomy = planner.make_plan(screens)
    assert set(calls.values()) == {1}
    calls.clear()
    tight = planner.make_plan(screens, keep_bytes=0)
    # Only the latest baseline is kept: each member needs the other group's baseline.
    assert calls == {"sha256:0": 3, "sha256:1": 3, **{f"sha256:{i}": 1 for i in range(2, 6)}}
    same_plan(tight, roomy)
    assert [t.vs for t in roomy.tiles if not t.whole] == [1, 1, 2, 2]


def test_a_size_change_does_not_decode_the_baseline_again() -> None:
    screens, calls = counted(
        {"sha256:a": app(width=330), "sha256:b": app(dark=True), "sha256:c": app(width=331)}
    )
    made = planner.make_plan(screens, keep_bytes=0)
    assert [(t.card_id, t.whole) for t in made.tiles] == [(1, True), (3, True), (2, True)]
    assert set(calls.values()) == {1}


def test_a_theme_left_to_work_out_decodes_the_screen_again() -> None:
    # The first card names its theme, so the theme of its bytes was not worked out.
    screens, calls = counted({"sha256:a": app(dark=True)})
    (a,) = screens
    made = planner.make_plan([attrs.evolve(a, theme="light"), attrs.evolve(a, card_id=2)])
    assert made.themes == {1: "light", 2: "dark"}
    assert calls == {"sha256:a": 2}


class Alive:
    """Decoded screens alive at once: counted up on each decode, down as each is freed."""

    def __init__(self, decode: Callable[..., Pixels]) -> None:
        self._decode = decode
        self.now = self.most = self.decodes = 0

    def __call__(self, data: bytes, **kw: Any) -> Pixels:
        pixels = self._decode(data, **kw)
        self.decodes += 1
        self.now += 1
        self.most = max(self.most, self.now)
        weakref.finalize(pixels.words, self._freed)
        return pixels

    def _freed(self) -> None:
        self.now -= 1


def test_a_plan_of_sixty_screens_holds_three_decoded_at_most(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 60 distinct 1440 x 900 screens, light and dark in turn: two near-duplicate groups.
    # Held all at once they were 60 x 5.2 MB = 311 MB decoded.
    with Workspace.open() as ws:
        board(ws, "app", [screen(seed=i, dark=i % 2 == 1) for i in range(60)])
        alive = Alive(runs.decode)
        monkeypatch.setattr(runs, "decode", alive)
        tracemalloc.start()
        try:
            out = ws.call("review_plan", {"boards": ["app"]}, AGENT)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    # Two baselines judged whole, the others by crops (a few equal their baseline).
    assert out["tiles"]["whole"] == 2 and out["tiles"]["crop"] > 50
    # Both groups' baselines kept and the screen in hand; none decoded twice.
    assert alive.most == 3 and alive.decodes == 60
    assert alive.now == 0
    one = 1440 * 900 * 4
    assert peak < 10 * one, f"{peak / one:.1f} screens' worth traced at the peak"
