"""Review plans: which screens a review judges, whole or by a crop, on which sheet.

Pure: each screen comes with a loader that decodes it (the caller fetches its
bytes), or with the reason there is nothing to decode; the plan comes back as
plain values. The rules, in the order they apply to each screen:

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

**Memory.** A plan never holds every screen decoded: up to 600 screens of 1440×900
would be 3 GB. It looks at each screen once, in order, keeping what the plan needs
from it (gap, natural size, theme, perceptual hash), and judges a near-duplicate
against its baseline as soon as it comes, since a group only looks back
(:class:`~layoutkit.review.neardup.NearDuplicates`). Decoded screens alive at once:
the one in hand, plus the baselines kept for the members that follow them, within
:data:`KEEP_BYTES` (always the latest one). A baseline dropped for room is decoded
again when a member of its group comes; a screen whose bytes were seen before (same
key) is not decoded again, unless a theme it needs was not worked out the first time.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import attrs
import numpy as np
from PIL import Image

from layoutkit.errors import EngineError
from layoutkit.review.diff import Box, Crop, Pixels, crop_for, diff_pixels
from layoutkit.review.neardup import NearDuplicates, perceptual_hash
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
#: Decoded baselines a plan keeps for the near-duplicates that follow them: six
#: 1440×900 screens (one per device and theme). The latest is kept however large.
KEEP_BYTES = 32 << 20

#: Decodes a screen: its pixels, None when it has no stored image (a ``failed``
#: gap), or an :class:`~layoutkit.errors.EngineError` when its bytes are no
#: picture (``undecodable``). Called once or more: equal answers each time.
Loader = Callable[[], Pixels | None]


@attrs.frozen
class Screen:
    """A screen to review: an image card as it is now.

    ``key`` is the blob key of its bytes (equal keys, equal bytes); ``load``
    decodes them (see :data:`Loader`). A screen with a ``gap`` already (or no
    loader: ``failed``) is not loaded.
    """

    card_id: int
    board: str
    version: int
    key: str | None
    load: Loader | None = attrs.field(default=None, eq=False, repr=False)
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
    #: Natural size of every screen that decoded (gaps found in its pixels too).
    sizes: dict[int, tuple[int, int]] = attrs.field(factory=dict)

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
    if int((small.max(axis=2) - small.min(axis=2)).max()) > SKELETON_TINT:
        return None  # not grey: no skeleton, whatever its colours
    # Each colour at 16 levels a channel as one number, 4 bits a channel: counting
    # numbers is a sort of ints, where counting rows of three took two fifths of a plan.
    levels = (small // 16).reshape(-1, 3)
    colours = np.unique(levels[:, 0] << 8 | levels[:, 1] << 4 | levels[:, 2])
    return "skeleton" if colours.size < SKELETON_COLOURS else None


def make_plan(
    screens: Sequence[Screen],
    *,
    judged: Iterable[str] = (),
    full: bool = False,
    keep_bytes: int = KEEP_BYTES,
) -> Plan:
    """The plan for ``screens`` (in review order); ``judged`` holds the blob keys
    judged in verified runs under the same rubric (reused unless ``full``);
    ``keep_bytes`` bounds the decoded baselines kept (see the module notes)."""
    planning = _Planning(set() if full else set(judged), keep_bytes)
    for screen in screens:
        planning.take(screen)
    return planning.plan()


@attrs.define
class _Seen:
    """What a look at a screen's bytes found, kept once its pixels are dropped."""

    gap: str | None
    natural: tuple[int, int] | None = None
    nbytes: int = 0
    #: Worked out only when a screen without a theme of its own needed it.
    theme: str | None = None


def _look(screen: Screen) -> tuple[Pixels | None, _Seen]:
    assert screen.load is not None
    try:
        pixels = screen.load()
    except EngineError:
        return None, _Seen("undecodable")
    if pixels is None:
        return None, _Seen("failed")
    return pixels, _Seen(gap_of(pixels), pixels.natural_size, pixels.words.nbytes)


def _again(screen: Screen) -> Pixels:
    """A screen decoded once already, decoded again."""
    pixels = screen.load() if screen.load is not None else None
    if pixels is None:
        raise RuntimeError(f"card {screen.card_id}: its image decoded once, then was gone")
    return pixels


class _Baselines:
    """Decoded baselines kept for the members that follow them: least recently used
    out first, within ``budget`` bytes, yet always the latest one."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.kept: OrderedDict[int, Pixels] = OrderedDict()

    def get(self, position: int, screen: Screen, nbytes: int) -> Pixels:
        pixels = self.kept.get(position)
        if pixels is not None:
            self.kept.move_to_end(position)
            return pixels
        # Room first: the others go before this one is decoded, not after.
        self._room(nbytes)
        pixels = _again(screen)
        self.kept[position] = pixels
        return pixels

    def keep(self, position: int, pixels: Pixels) -> None:
        self._room(pixels.words.nbytes)
        self.kept[position] = pixels

    def _room(self, nbytes: int) -> None:
        while self.kept and sum(p.words.nbytes for p in self.kept.values()) + nbytes > self.budget:
            self.kept.popitem(last=False)


class _Planning:
    """One plan, screen by screen: :meth:`take` each in review order, then :meth:`plan`.

    A screen's pixels live in :meth:`take` only (and in the kept baselines), so each
    is dropped before the next is decoded.
    """

    def __init__(self, reusable: set[str], keep_bytes: int) -> None:
        self.reusable = reusable
        self.receipts: dict[int, str] = {}
        self.by: dict[int, int] = {}
        self.devices: dict[int, str] = {}
        self.themes: dict[int, str] = {}
        self.sizes: dict[int, tuple[int, int]] = {}
        self.gaps: list[dict[str, Any]] = []
        self.dups: dict[int, int] = {}
        self.exact = 0
        self.seen: dict[str, _Seen] = {}
        self.first_of_key: dict[str, int] = {}
        # Screens judged (first of their bytes), with their near-duplicate groups and
        # how each one that is no baseline shows beside its baseline.
        self.fresh: list[tuple[Screen, _Seen]] = []
        self.grouping = NearDuplicates()
        self.crops: dict[int, Crop] = {}
        self.baselines = _Baselines(keep_bytes)

    def take(self, screen: Screen) -> None:
        card = screen.card_id
        pixels, seen = None, None
        # Without a loader it is this screen that has no image, not its bytes: what
        # other screens of its key show is theirs to find.
        reason = screen.gap or ("failed" if screen.load is None else None)
        if reason is None:
            seen = self.seen.get(screen.key) if screen.key is not None else None
            if seen is None:
                pixels, seen = _look(screen)
                if screen.key is not None:
                    self.seen[screen.key] = seen
            reason = seen.gap
            if seen.natural is not None:
                self.devices[card] = screen.device or device_of(seen.natural[0])
                self.sizes[card] = seen.natural
        if reason is not None:
            self.receipts[card] = "gap"
            self.gaps.append({"cardId": card, "board": screen.board, "reason": reason})
            return
        assert seen is not None and screen.key is not None
        theme = screen.theme
        if theme is None:
            if seen.theme is None:
                seen.theme = theme_of(pixels if pixels is not None else _again(screen))
            theme = seen.theme
        self.themes[card] = theme
        if screen.key in self.reusable:
            self.receipts[card] = "reused"
            return
        first = self.first_of_key.get(screen.key)
        if first is not None:
            self.receipts[card] = "represented"
            self.by[card] = first
            self.dups[card] = first
            self.exact += 1
            return
        self.first_of_key[screen.key] = card
        # The first screen of its bytes was decoded just now.
        assert pixels is not None
        self._judge(screen, seen, pixels)

    def _judge(self, screen: Screen, seen: _Seen, pixels: Pixels) -> None:
        position = len(self.fresh)
        self.fresh.append((screen, seen))
        key = (self.devices[screen.card_id], self.themes[screen.card_id])
        baseline = self.grouping.add(key, perceptual_hash(pixels))
        if baseline == position:
            self.baselines.keep(position, pixels)
            return
        base, base_seen = self.fresh[baseline]
        if base_seen.natural != seen.natural:
            # A size change needs no pixels of the baseline (_crop answers the same).
            self.crops[position] = Crop(True, None, 1.0, "size")
            return
        kept = self.baselines.get(baseline, base, base_seen.nbytes)
        self.crops[position] = _crop(kept, pixels)

    def plan(self) -> Plan:
        self.baselines.kept.clear()
        wholes: list[Tile] = []
        crops: list[Tile] = []
        for group in self.grouping.groups:
            base = self.fresh[group.baseline][0]
            wholes.append(self._whole(group.baseline))
            self.receipts[base.card_id] = "inspected"
            for position in group.others:
                screen, seen = self.fresh[position]
                self.dups[screen.card_id] = base.card_id
                crop = self.crops[position]
                if crop.whole:
                    wholes.append(self._whole(position))
                    self.receipts[screen.card_id] = "inspected"
                elif crop.rect is None:
                    self.receipts[screen.card_id] = "represented"
                    self.by[screen.card_id] = base.card_id
                else:
                    assert seen.natural is not None
                    crops.append(
                        Tile(
                            screen.card_id,
                            screen.board,
                            screen.version,
                            False,
                            *seen.natural,
                            crop.rect,
                            base.card_id,
                            crop.share,
                        )
                    )
                    self.receipts[screen.card_id] = "inspected"
        sheets = [tuple(wholes[i : i + MAX_WHOLE]) for i in range(0, len(wholes), MAX_WHOLE)]
        sheets += [tuple(crops[i : i + MAX_CROPS]) for i in range(0, len(crops), MAX_CROPS)]
        dups = self.dups
        # A duplicate of a duplicate is judged by the first card of the chain.
        for card, judged_by in list(dups.items()):
            dups[card] = dups.get(judged_by, judged_by)
        return Plan(
            tuple(sheets),
            tuple(self.gaps),
            self.receipts,
            self.by,
            self.exact,
            self.devices,
            self.themes,
            dups,
            self.sizes,
        )

    def _whole(self, position: int) -> Tile:
        screen, seen = self.fresh[position]
        assert seen.natural is not None
        return Tile(screen.card_id, screen.board, screen.version, True, *seen.natural)


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
