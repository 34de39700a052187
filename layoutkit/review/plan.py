"""Review plans: which screens a review judges, whole or by a crop, on which sheet.

Pure: screens come decoded (or with the reason they could not be), the plan
comes back as plain values. The rules, in the order they apply to each screen:

1. **Gaps** are dropped and listed: a failed shot (no stored image), an
   undecodable one, a *blank* one (every channel within 2 levels over the whole
   screen) and a *skeleton* (a loading placeholder: reduced to 256 px, only greys
   and under :data:`SKELETON_COLOURS` distinct colours at 16 levels a channel).
2. **Reused**: a screen whose bytes were judged in a verified run under the same
   rubric hash is not judged again (unless the plan is ``full``).
3. **Exact duplicates**: byte-identical screens (one blob key) are judged once;
   the others are *represented* by the first.
4. **Near-duplicates** within one device and theme (perceptual hash, see
   :mod:`layoutkit.review.neardup`) are judged against their group's baseline
   (the earliest screen) by a crop of the differing pixels; a change over 35% of
   the screen or a different size makes the screen its own whole tile, and one
   whose pixels equal the baseline's is represented by it.
5. **Sheets** hold up to :data:`MAX_WHOLE` whole screens or :data:`MAX_CROPS`
   crops, never both; whole sheets come first.

Devices are read from the screen's width in pixels (under 600 a phone, under
1,100 a tablet, else a desktop) unless the card names one; the theme is dark
when the median luminance is under 0.4, unless the card names one.

A screen larger than the ``decodePixels`` limit comes decoded reduced by a whole
factor (:mod:`layoutkit.review.images`): sizes, devices and crops are still given in
its natural pixels (a crop found at the reduced size is scaled back up), and two
screens of different natural sizes are a size change even where their reduced sizes
agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import attrs
import numpy as np
from PIL import Image

from layoutkit.review.diff import Box, Crop, Pixels, crop_for, diff_pixels
from layoutkit.review.neardup import group_near_duplicates, perceptual_hash
from layoutkit.review.sheets import MAX_CROPS, MAX_WHOLE

#: Screens a plan takes without the caller narrowing the scope.
MAX_SCREENS = 600
#: A screen reduced to 256 px, every pixel grey (channels within SKELETON_TINT) and
#: fewer distinct colours than this at 16 levels a channel is a skeleton.
SKELETON_COLOURS = 8
SKELETON_TINT = 24
PHONE_MAX_WIDTH = 600
TABLET_MAX_WIDTH = 1100

DEVICES = ("desktop", "tablet", "phone")


@attrs.frozen
class Screen:
    """A screen to review: an image card as it is now.

    ``key`` is the blob key of its bytes (equal keys, equal bytes); ``pixels`` is
    None when there is no image to judge, with ``gap`` saying why (``failed`` or
    ``undecodable``).
    """

    card_id: int
    board: str
    version: int
    key: str | None
    pixels: Pixels | None = attrs.field(default=None, eq=False, repr=False)
    gap: str | None = None
    device: str | None = None
    theme: str | None = None


@attrs.frozen
class Tile:
    """One tile of a sheet: a whole screen, or a crop of it judged beside ``vs``."""

    card_id: int
    board: str
    version: int
    whole: bool
    width: int
    height: int
    crop: Box | None = None
    vs: int | None = None
    share: float | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "cardId": self.card_id,
            "board": self.board,
            "cardVersion": self.version,
            "whole": self.whole,
            "width": self.width,
            "height": self.height,
        }
        if self.crop is not None:
            out["crop"] = {
                "x": self.crop.x,
                "y": self.crop.y,
                "w": self.crop.width,
                "h": self.crop.height,
            }
            out["vs"] = self.vs
            out["share"] = round(self.share or 0.0, 4)
        return out


@attrs.frozen
class Plan:
    """Sheets of tiles and what happened to every screen (``receipts``: card id →
    inspected, represented, reused or gap; ``by``: the card that represents it)."""

    sheets: tuple[tuple[Tile, ...], ...]
    gaps: tuple[dict[str, Any], ...]
    receipts: dict[int, str]
    by: dict[int, int]
    exact: int
    devices: dict[int, str]
    themes: dict[int, str]
    #: Every duplicate (exact or near) → the card its group is judged by.
    dups: dict[int, int] = attrs.field(factory=dict)

    @property
    def tiles(self) -> list[Tile]:
        return [t for sheet in self.sheets for t in sheet]

    def counts(self) -> dict[str, int]:
        states = list(self.receipts.values())
        return {
            "judge": len(self.tiles),
            "exactDuplicates": self.exact,
            "reused": states.count("reused"),
            "gaps": len(self.gaps),
        }


def device_of(width: int) -> str:
    if width < PHONE_MAX_WIDTH:
        return "phone"
    return "tablet" if width < TABLET_MAX_WIDTH else "desktop"


def _small(pixels: Pixels, side: int = 64) -> np.ndarray:
    image = Image.fromarray(pixels.rgba(), "RGBA").convert("RGB")
    # Box filtering keeps text and thin lines as shades instead of dropping them.
    image.thumbnail((side, side), Image.Resampling.BOX)
    return np.asarray(image)


def theme_of(pixels: Pixels) -> str:
    rgb = _small(pixels).astype(np.float32) / 255.0
    luminance = rgb @ np.array([0.2126, 0.7152, 0.0722], dtype=np.float32)
    return "dark" if float(np.median(luminance)) < 0.4 else "light"


def gap_of(pixels: Pixels) -> str | None:
    """``blank``, ``skeleton`` or None for a screen worth judging."""
    rgba = pixels.rgba()[..., :3]
    if pixels.width == 0 or pixels.height == 0:
        return "blank"
    if int(rgba.max()) - int(rgba.min()) <= 2 or all(
        int(rgba[..., c].max()) - int(rgba[..., c].min()) <= 2 for c in range(3)
    ):
        return "blank"
    small = _small(pixels, 256).astype(np.int16)
    grey = int((small.max(axis=2) - small.min(axis=2)).max()) <= SKELETON_TINT
    colours = np.unique((small // 16).reshape(-1, 3), axis=0)
    return "skeleton" if grey and len(colours) < SKELETON_COLOURS else None


def make_plan(screens: Sequence[Screen], *, judged: Iterable[str] = (), full: bool = False) -> Plan:
    """The plan for ``screens`` (in review order); ``judged`` holds the blob keys
    judged in verified runs under the same rubric (reused unless ``full``)."""
    reusable = set() if full else set(judged)
    receipts: dict[int, str] = {}
    by: dict[int, int] = {}
    devices: dict[int, str] = {}
    themes: dict[int, str] = {}
    gaps: list[dict[str, Any]] = []
    dups: dict[int, int] = {}
    first_of_key: dict[str, Screen] = {}
    fresh: list[Screen] = []
    exact = 0
    for screen in screens:
        reason = screen.gap or (gap_of(screen.pixels) if screen.pixels is not None else "failed")
        if screen.pixels is not None:
            devices[screen.card_id] = screen.device or device_of(screen.pixels.natural_size[0])
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
    # A duplicate of a duplicate is judged by the first card of the chain.
    for card, judged_by in list(dups.items()):
        dups[card] = dups.get(judged_by, judged_by)
    return Plan(tuple(sheets), tuple(gaps), receipts, by, exact, devices, themes, dups)


def _crop(base: Pixels, screen: Pixels) -> Crop:
    """How ``screen`` shows beside ``base``, in ``screen``'s natural pixels."""
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


def _whole(screen: Screen) -> Tile:
    assert screen.pixels is not None
    return Tile(screen.card_id, screen.board, screen.version, True, *screen.pixels.natural_size)
