"""The review planner as it was before it decoded screens one at a time: every screen
decoded up front and held until the plan is made.

The reference the bounded planner (:func:`layoutkit.review.plan.make_plan`) is checked
against on generated screens: the same rules, line by line, over screens that carry
their decoded pixels. It shares the planner's pure helpers (gap, theme and device
rules, the hash and the diff); what it keeps apart is the order of the work and what
is held while it is done. It also gives each decoded screen's natural size
(``Plan.sizes``), which the service used to read off the screens it held.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from layoutkit.review.diff import Box, Crop, Pixels, crop_for, diff_pixels
from layoutkit.review.neardup import group_near_duplicates, perceptual_hash
from layoutkit.review.plan import Plan, Tile, device_of, gap_of, theme_of
from layoutkit.review.sheets import MAX_CROPS, MAX_WHOLE


@attrs.frozen
class EagerScreen:
    """A screen decoded beforehand: ``pixels`` None with ``gap`` saying why."""

    card_id: int
    board: str
    version: int
    key: str | None
    pixels: Pixels | None = attrs.field(default=None, eq=False, repr=False)
    gap: str | None = None
    device: str | None = None
    theme: str | None = None


def make_plan(
    screens: Sequence[EagerScreen], *, judged: Iterable[str] = (), full: bool = False
) -> Plan:
    reusable = set() if full else set(judged)
    receipts: dict[int, str] = {}
    by: dict[int, int] = {}
    devices: dict[int, str] = {}
    themes: dict[int, str] = {}
    sizes: dict[int, tuple[int, int]] = {}
    gaps: list[dict[str, Any]] = []
    dups: dict[int, int] = {}
    first_of_key: dict[str, EagerScreen] = {}
    fresh: list[EagerScreen] = []
    exact = 0
    for screen in screens:
        reason = screen.gap or (gap_of(screen.pixels) if screen.pixels is not None else "failed")
        if screen.pixels is not None:
            devices[screen.card_id] = screen.device or device_of(screen.pixels.natural_size[0])
            sizes[screen.card_id] = screen.pixels.natural_size
        if reason is not None:
            receipts[screen.card_id] = "gap"
            gaps.append({"cardId": screen.card_id, "board": screen.board, "reason": reason})
            continue
        assert screen.pixels is not None and screen.key is not None
        themes[screen.card_id] = screen.theme or theme_of(screen.pixels)
        if screen.key in reusable:
            receipts[screen.card_id] = "reused"
            continue
        seen = first_of_key.get(screen.key)
        if seen is not None:
            receipts[screen.card_id] = "represented"
            by[screen.card_id] = seen.card_id
            dups[screen.card_id] = seen.card_id
            exact += 1
            continue
        first_of_key[screen.key] = screen
        fresh.append(screen)
    wholes: list[Tile] = []
    crops: list[Tile] = []
    hashes = [
        ((devices[s.card_id], themes[s.card_id]), perceptual_hash(s.pixels))
        for s in fresh
        if s.pixels is not None
    ]
    for group in group_near_duplicates(hashes):
        base = fresh[group.baseline]
        wholes.append(_whole(base))
        receipts[base.card_id] = "inspected"
        for position in group.others:
            screen = fresh[position]
            dups[screen.card_id] = base.card_id
            assert base.pixels is not None and screen.pixels is not None
            crop = _crop(base.pixels, screen.pixels)
            if crop.whole:
                wholes.append(_whole(screen))
                receipts[screen.card_id] = "inspected"
            elif crop.rect is None:
                receipts[screen.card_id] = "represented"
                by[screen.card_id] = base.card_id
            else:
                crops.append(
                    Tile(
                        screen.card_id,
                        screen.board,
                        screen.version,
                        False,
                        *screen.pixels.natural_size,
                        crop.rect,
                        base.card_id,
                        crop.share,
                    )
                )
                receipts[screen.card_id] = "inspected"
    sheets = [tuple(wholes[i : i + MAX_WHOLE]) for i in range(0, len(wholes), MAX_WHOLE)]
    sheets += [tuple(crops[i : i + MAX_CROPS]) for i in range(0, len(crops), MAX_CROPS)]
    for card, judged_by in list(dups.items()):
        dups[card] = dups.get(judged_by, judged_by)
    return Plan(tuple(sheets), tuple(gaps), receipts, by, exact, devices, themes, dups, sizes)


def _crop(base: Pixels, screen: Pixels) -> Crop:
    if base.natural_size != screen.natural_size:
        return Crop(True, None, 1.0, "size")
    crop = crop_for(diff_pixels(base, screen))
    factor, rect = screen.factor, crop.rect
    if factor == 1 or rect is None:
        return crop
    width, height = screen.natural_size
    x, y = rect.x * factor, rect.y * factor
    scaled = Box(
        x,
        y,
        min(width - x, rect.width * factor),
        min(height - y, rect.height * factor),
        rect.pixels,
    )
    return attrs.evolve(crop, rect=scaled)


def _whole(screen: EagerScreen) -> Tile:
    assert screen.pixels is not None
    return Tile(screen.card_id, screen.board, screen.version, True, *screen.pixels.natural_size)
