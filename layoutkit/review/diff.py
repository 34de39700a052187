"""Screenshot diffs for review: is a screen the same, and if not, where did it change?

Two screenshots are compared in tiers, each cheaper than the next and each
ending the work when it can answer:

1. **bytes** – the encoded files are byte-identical (a ``bytes`` compare; the
   blob store's content keys say the same thing when the caller has them).
2. **size** – the decoded images differ in width or height: a size change, with
   no pixel diff (it counts as a change of the whole screen, ``share`` 1).
3. **pixels** – the decoded RGBA buffers, viewed as 32-bit words, are equal over
   the whole buffer (a re-encoded file, a different PNG writer).
4. **colour** – pixelmatch 7's colour distance, computed only at the words that
   differ: the YIQ delta against ``35215 * threshold²`` (threshold 0.1 unless
   told), then its anti-aliasing test on the pixels over it, against both
   images (``include_aa`` false). ``changed_pixels`` equals pixelmatch's count.

The colour tier takes one of two ways to the same answer. Where little
differs, it works on lists of the differing pixels. Where at least
:data:`MASK_SHARE` of the words differ (a sample decides) and both images are
opaque, it works on whole-image masks instead (a theme change differs in 94%
of its pixels, and a million-entry index list costs more to gather than a pass
over every pixel); tests hold both ways to equal results.

Counted pixels are then sorted into real changes and shifts: a counted pixel
whose colour lies, channel by channel, within the range of the other image's
3×3 neighbourhood around it – and the other image's colour within the range of
this one's – is content moved by at most one pixel (or re-sampled edges), not a
change. On the image's edge one of the two suffices (the other half of content
that moved in or out lies beyond the edge). The real-change pixels are grouped
into boxes: 16-pixel cells joined when they touch (8-connected labelling),
groups of fewer than 4 pixels dropped as specks, boxes within 16 pixels of each
other merged. Each box then grows, once, over the counted pixels within 16
pixels of it, so a changed label is boxed whole even where some of its letters
match the old ones.

**Share** is the area of the union of the change boxes over the screen's area.
Boxes, not pixel counts, because a crop shows rectangles: a scrolled page
changes only its text strokes (14% of the pixels of the corpus' ``scroll40``)
yet every region of the screen (72%). A share over :data:`CROP_SHARE` (35%;
exactly 35% is not over) makes the screen its own tile in a review; so does a
size change. :func:`crop_for` gives that decision and, below it, the crop: the
union rectangle of the boxes, padded.

Pure: the only input is bytes or arrays given by the caller.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from layoutkit import imaging
from layoutkit.errors import EngineError
from layoutkit.review import _pixelmatch as pm
from layoutkit.review import images
from layoutkit.review._scratch import KEEP_BYTES
from layoutkit.review.images import Pixels, Words, decode

#: A change over this share of the screen (area of the change boxes) makes its own tile.
CROP_SHARE = 0.35
#: pixelmatch's default matching threshold (0..1; smaller is more sensitive).
DEFAULT_THRESHOLD = 0.1
#: Side of the cells real-change pixels are grouped on.
CELL = 16
#: Changes this close (pixels) belong to one box.
MERGE_GAP = 16
#: A group with fewer real-change pixels than this is a speck, not a change.
MIN_PIXELS = 4
#: Padding around the union of the boxes when cropping.
CROP_PAD = 16


@attrs.frozen
class Box:
    """A rectangle of the screen, in pixels; ``pixels`` counts the real-change pixels in it."""

    x: int
    y: int
    width: int
    height: int
    pixels: int = 0

    @property
    def right(self) -> int:
        return self.x + self.width

    @property
    def bottom(self) -> int:
        return self.y + self.height

    @property
    def area(self) -> int:
        return self.width * self.height

    def union(self, other: Box) -> Box:
        x, y = min(self.x, other.x), min(self.y, other.y)
        right, bottom = max(self.right, other.right), max(self.bottom, other.bottom)
        return Box(x, y, right - x, bottom - y, self.pixels + other.pixels)

    def padded(self, pad: int, width: int, height: int) -> Box:
        """Grown by ``pad`` on each side, kept inside a ``width`` × ``height`` screen."""
        x, y = max(self.x - pad, 0), max(self.y - pad, 0)
        right, bottom = min(self.right + pad, width), min(self.bottom + pad, height)
        return Box(x, y, right - x, bottom - y, self.pixels)

    def as_dict(self) -> dict[str, int]:
        return attrs.asdict(self)


@attrs.frozen
class DiffResult:
    """What changed between screenshot ``a`` (before) and ``b`` (after).

    ``tier`` says which step answered: ``bytes``, ``size``, ``pixels`` or
    ``colour`` (see the module's text). Pixel counts: ``differing_pixels``
    RGBA words differ at all; ``changed_pixels`` pixelmatch's count;
    ``antialiased_pixels`` over the threshold but anti-aliasing;
    ``shifted_pixels`` counted but explained by a shift of at most one pixel.
    """

    tier: str
    size_a: tuple[int, int]
    size_b: tuple[int, int]
    differing_pixels: int = 0
    changed_pixels: int = 0
    antialiased_pixels: int = 0
    shifted_pixels: int = 0
    boxes: tuple[Box, ...] = ()
    share: float = 0.0

    @property
    def identical(self) -> bool:
        """Same pixels (identical bytes or identical decoded words)."""
        return self.tier in ("bytes", "pixels")

    @property
    def same_size(self) -> bool:
        return self.size_a == self.size_b

    @property
    def changed(self) -> bool:
        """A change a person would call one: a size change or at least one box."""
        return not self.same_size or bool(self.boxes)

    @property
    def over_threshold(self) -> bool:
        """The change covers more than :data:`CROP_SHARE` of the screen."""
        return self.share > CROP_SHARE

    @property
    def whole_tile(self) -> bool:
        """The screen is its own tile: a size change or a change over the crop share."""
        return not self.same_size or self.over_threshold

    def as_dict(self) -> dict[str, Any]:
        out = attrs.asdict(self, recurse=True)
        out["size_a"], out["size_b"] = list(self.size_a), list(self.size_b)
        out["boxes"] = [b.as_dict() for b in self.boxes]
        out.update(
            identical=self.identical,
            same_size=self.same_size,
            changed=self.changed,
            over_threshold=self.over_threshold,
            whole_tile=self.whole_tile,
        )
        return out


@attrs.frozen
class Crop:
    """How a review shows screen ``b`` beside its baseline ``a``.

    ``whole`` is true for a size change or a change over :data:`CROP_SHARE`;
    otherwise ``rect`` is the padded union of the change boxes (``None`` when
    nothing changed). ``reason``: ``identical``, ``unchanged`` (differences but
    no real change), ``size``, ``over_threshold`` or ``crop``.
    """

    whole: bool
    rect: Box | None
    share: float
    reason: str


_pool: tuple[int, ThreadPoolExecutor] | None = None


def _decode_pair(a: bytes, b: bytes) -> tuple[Pixels, Pixels]:
    # libspng (and Pillow's PNG decoder) let go of the GIL, so two screenshots
    # decode side by side on two cores: the wall time of one decode instead of two. The pool is
    # per process: a forked engine worker must not inherit the parent's threads.
    global _pool
    if _pool is None or _pool[0] != os.getpid():
        _pool = (os.getpid(), ThreadPoolExecutor(1, thread_name_prefix="review-decode"))
    # Both decode into this thread's work buffers (the pixels do not outlive the
    # diff): a fresh 5 MB array is a page fault per 4 KB, a fifth of a decode.
    into_a, into_b = _decode_buffer(a, "decode.a"), _decode_buffer(b, "decode.b")
    later = _pool[1].submit(decode, b, field="b", out=into_b)
    first = decode(a, field="a", out=into_a)
    return first, later.result()


def _decode_buffer(data: bytes, name: str) -> np.ndarray | None:
    """A work buffer for the pixels of a PNG, or None when the header says no size."""
    head = images.png_size(data)
    if head is None:
        return None
    width, height = head
    if width * height * 4 > KEEP_BYTES:
        return None
    return pm.scratch.get(name, (height, width, 4))


def diff_png(
    a: bytes, b: bytes, threshold: float = DEFAULT_THRESHOLD, *, include_aa: bool = False
) -> DiffResult:
    """Compare two encoded screenshots (``a`` before, ``b`` after); see the module text."""
    if a == b:
        pa = _header_size(a)
        return DiffResult("bytes", pa, pa)
    pa, pb = _decode_pair(a, b)
    return diff_pixels(pa, pb, threshold, include_aa=include_aa)


def _header_size(data: bytes) -> tuple[int, int]:
    return imaging.header(data).size


def _pixels(image: Pixels | npt.NDArray[np.uint8]) -> Pixels:
    return image if isinstance(image, Pixels) else Pixels.from_rgba(image)


def diff_pixels(
    a: Pixels | npt.NDArray[np.uint8],
    b: Pixels | npt.NDArray[np.uint8],
    threshold: float = DEFAULT_THRESHOLD,
    *,
    include_aa: bool = False,
) -> DiffResult:
    """Compare two decoded screenshots (``Pixels`` or ``(h, w, 4)`` uint8 RGBA arrays)."""
    if not 0 <= threshold <= 1:
        raise EngineError("invalid_number", f"threshold {threshold} is not within 0..1")
    pa, pb = _pixels(a), _pixels(b)
    if pa.size != pb.size:
        return DiffResult("size", pa.size, pb.size, share=1.0)
    width, height = pa.size
    if _mostly_different(pa.words, pb.words, width, height):
        return _diff_masks(pa, pb, threshold, include_aa)
    found = pm.mismatch(pa.words, pb.words, width, height, threshold, include_aa=include_aa)
    differing = found.differing
    if differing.size == 0:
        return DiffResult("pixels", pa.size, pb.size)
    counted = found.counted
    shifted = shifted_pixels(pa.words, pb.words, counted, width, height)
    real = counted[~shifted]
    boxes = grow_boxes(change_boxes(real, width, height), counted, width)
    return DiffResult(
        "colour",
        pa.size,
        pb.size,
        differing_pixels=int(differing.size),
        changed_pixels=int(counted.size),
        antialiased_pixels=int(found.antialiased.size),
        shifted_pixels=int(np.count_nonzero(shifted)),
        boxes=boxes,
        share=union_area(boxes, width, height) / (width * height),
    )


#: A pair is compared over whole-image masks when a sample of its words says at
#: least this share differ. The masks cost a fixed dozen passes over both images
#: and then little per pixel; the index way costs little up front and much per
#: pixel. On the corpus they cross between an eighth and a fifth (a page moved
#: by one pixel differs in a fifth of its words and is faster over masks; a
#: re-sampled page differs in an eighth and a tenth and is faster by index).
MASK_SHARE = 0.15
#: Words sampled (evenly spaced) to decide.
_SAMPLE = 4096


def _mostly_different(a32: Words, b32: Words, width: int, height: int) -> bool:
    """Whether the mask way suits the pair: opaque, at least 3×3, and a sample of
    its words differs in at least :data:`MASK_SHARE` of them. Both ways give the
    same answer; this only picks the faster."""
    if min(width, height) < pm._MASK_MIN_SIDE:
        return False
    every = max(1, a32.size // _SAMPLE)
    sa, sb = a32[::every], b32[::every]
    if np.count_nonzero(sa != sb) < MASK_SHARE * sa.size:
        return False
    return pm.opaque(a32, b32)


def _diff_masks(pa: Pixels, pb: Pixels, threshold: float, include_aa: bool) -> DiffResult:
    """:func:`diff_pixels` over whole-image masks: :func:`pm.mismatch_masks` and
    :func:`shifted_mask`, a band at a time, both for one band before the next. The
    masks are work buffers (:data:`pm.scratch`): none of them outlives the call.

    (Two halves of the rows side by side on the helper thread measured slower:
    the work is hundreds of short numpy calls, and the two threads' hand-offs of
    the GIL and their share of the memory bandwidth cost more than they save.)"""
    width, height = pa.size
    a32, b32 = pa.words, pb.words
    counted = pm.scratch.get("diff.counted", (height, width), bool)
    aa = pm.scratch.get("diff.aa", (height, width), bool)
    shifted = pm.scratch.get("diff.shifted", (height, width), bool)
    # _mostly_different, which sent the pair here, checked that both are opaque and
    # at least 3×3.
    differing, rim = _mask_rows(a32, b32, pm.max_delta(threshold), include_aa, counted, aa, shifted)
    if differing == 0:
        return DiffResult("pixels", pa.size, pb.size)
    if rim:
        pm._rim_antialiased(a32, b32, width, height, np.unique(np.concatenate(rim)), counted, aa)
    _shifted_on_rim(a32, b32, counted, shifted)
    # The real changes go straight into a mask a whole number of cells high and
    # wide, as change_boxes_mask would copy them.
    gh, gw = -(-height // CELL), -(-width // CELL)
    real = pm.scratch.get("diff.real", (gh * CELL, gw * CELL), bool)
    real[height:] = False  # only the padding: the image's part is written next
    real[:height, width:] = False
    np.greater(counted, shifted, out=real[:height, :width])  # counted and not shifted
    cells = _boxes_of_cells(real, CELL, MERGE_GAP, MIN_PIXELS) if real.any() else ()
    boxes = _grow_in_mask(cells, counted)
    return DiffResult(
        "colour",
        pa.size,
        pb.size,
        differing_pixels=differing,
        changed_pixels=int(np.count_nonzero(counted)),
        antialiased_pixels=int(np.count_nonzero(aa)),
        shifted_pixels=int(np.count_nonzero(shifted)),
        boxes=boxes,
        share=union_area(boxes, width, height) / (width * height),
    )


def _mask_rows(
    a32: Words,
    b32: Words,
    limit: float,
    include_aa: bool,
    counted: np.ndarray,
    aa: np.ndarray,
    shifted: np.ndarray,
) -> tuple[int, list[npt.NDArray[np.intp]]]:
    """The mask way a band at a time: the band's counted and anti-aliased masks
    (:func:`pm._mask_band`), then its shifted pixels off the image's edge, while its
    rows are still in the CPU's caches. Returns how many words differ, and the
    anti-aliasing candidates on the image's edge, which are left counted for
    :func:`pm._rim_antialiased` (the edge's shift test then reads the final counts)."""
    height, width = counted.shape
    differing = 0
    rim: list[npt.NDArray[np.intp]] = []
    rows = pm.band_rows(width)
    for y0 in range(0, height, rows):
        y1 = min(y0 + rows, height)
        differing += pm._mask_band(
            a32, b32, width, height, (y0, y1), limit, include_aa, counted[y0:y1], aa[y0:y1], rim
        )
        _shifted_band(a32, b32, counted, y0, y1, shifted)
    return differing, rim


def shifted_mask(
    a32: Words, b32: Words, counted: np.ndarray, out: np.ndarray | None = None
) -> np.ndarray:
    """:func:`shifted_pixels` for the pixels of an ``(h, w)`` mask, as a mask (into
    ``out`` when given).

    A band of rows at a time (see :data:`pm.MASK_BAND`). Where the band's counted
    pixels are few (a page moved by one pixel counts only its strokes' edges),
    both ways are gathered at them. Otherwise the first way (``a`` within ``b``'s
    range) is asked of the red channel of every pixel of the band in whole-band
    passes, and both ways are gathered only where it holds: after a theme change
    the red alone holds at under 1% of the counted pixels. The pixels on the
    image's edge, where one way suffices, are asked once after the bands."""
    height, width = counted.shape
    if out is None:
        out = np.empty((height, width), dtype=bool)
    if min(width, height) < 3:  # no inside: every pixel is on the edge
        out[...] = False
        rim = np.flatnonzero(counted)
        out.reshape(-1)[rim[_shifted_rim(a32, b32, rim, width, height)]] = True
        return out
    rows = pm.band_rows(width)
    for y0 in range(0, height, rows):
        _shifted_band(a32, b32, counted, y0, min(y0 + rows, height), out)
    _shifted_on_rim(a32, b32, counted, out)
    return out


def _shifted_band(
    a32: Words, b32: Words, counted: np.ndarray, y0: int, y1: int, out: np.ndarray
) -> None:
    """:func:`shifted_mask` for rows ``y0..y1`` of an image of at least 3×3, off its
    edge (``counted`` and ``out``: the whole ``(h, w)`` masks; the band's rows of
    ``out`` are set, its edge pixels to False)."""
    height, width = counted.shape
    here = counted[y0:y1]
    out[y0:y1] = False
    n = int(np.count_nonzero(here))
    if n == 0:
        return
    if n * _GATHER_SHARE < here.size:
        ask = pm.scratch.get("shift.ask", here.shape, bool)
        np.copyto(ask, here)
    else:
        # Many: the first way's red channel over the whole band sets aside most
        # of them (after a theme change all but 1%); the rest are gathered.
        ask = _red_within(a32, b32, y0, y1, width, height)
        ask &= here
    # Off the image's edge: the edge is asked after the bands.
    ask[:, 0] = ask[:, -1] = False
    if y0 == 0:
        ask[0] = False
    if y1 == height:
        ask[-1] = False
    at = np.flatnonzero(ask)
    found = _shifted_inside(a32, b32, at + y0 * width, width)
    out[y0:y1].reshape(-1)[at[found]] = True


def _shifted_on_rim(a32: Words, b32: Words, counted: np.ndarray, out: np.ndarray) -> None:
    """:func:`shifted_mask` on the edge of an image of at least 3×3: sets ``out`` at the
    counted pixels of its outermost rows and columns that are shifts (the bands
    left them False)."""
    height, width = counted.shape
    rim = _rim(width, height)
    rim = rim[counted.reshape(-1)[rim]]
    if rim.size:
        out.reshape(-1)[rim[_shifted_rim(a32, b32, rim, width, height)]] = True


@functools.lru_cache(maxsize=8)
def _rim(width: int, height: int) -> npt.NDArray[np.intp]:
    """The flat indices of the image's outermost rows and columns, ascending (read-only)."""
    sides = np.arange(1, height - 1) * width
    rim = np.unique(
        np.concatenate(
            (
                np.arange(width),
                sides,
                sides + (width - 1),
                np.arange((height - 1) * width, height * width),
            )
        )
    )
    rim.setflags(write=False)
    return rim


def _shifted_rim(
    a32: Words, b32: Words, idx: npt.NDArray[np.intp], width: int, height: int
) -> np.ndarray:
    """:func:`shifted_pixels` at pixels ``idx`` on the image's edge, where one way
    suffices (see there)."""
    hood = pm.SparseHood(idx, width, height)
    every = np.arange(idx.size)
    return _within_gathered(a32, b32, hood, every) | _within_gathered(b32, a32, hood, every)


def _offsets(width: int) -> npt.NDArray[np.intp]:
    """The nine flat offsets of a 3×3 neighbourhood in an image ``width`` wide."""
    return np.array([dy * width + dx for dy in (-1, 0, 1) for dx in (-1, 0, 1)], dtype=np.intp)


def _shifted_inside(a32: Words, b32: Words, idx: npt.NDArray[np.intp], width: int) -> np.ndarray:
    """:func:`shifted_pixels` at pixels ``idx``, none on the image's edge, both ways
    (the second asked only where the first holds)."""
    m = idx.size
    if m == 0:
        return np.zeros(0, dtype=bool)
    first = _within_near(a32[idx], b32, idx, width)
    ask = np.flatnonzero(first)
    second = _within_near(b32[idx[ask]], a32, idx[ask], width)
    out = np.zeros(m, dtype=bool)
    out[ask[second]] = True
    return out


#: Pixels of a set whose words are compared with all nine neighbours first, to
#: choose how to ask the rest (see :func:`_within_near`).
_ORDER_SAMPLE = 256
#: The share of that sample one offset must match for the offsets to be asked one
#: at a time.
_ONE_BY_ONE = 0.5


def _within_near(colour: Words, img: Words, idx: npt.NDArray[np.intp], width: int) -> np.ndarray:
    """Per pixel of ``idx`` (none on the edge): ``colour`` lies, channel by channel,
    within the range of ``img``'s 3×3 neighbourhood there (nine fixed offsets).

    A colour equal to one of the nine words lies within their range, and after a
    move by one pixel most are equal to the word at the offset of the move. When
    one offset matches at least half of a sample, the offsets are asked one at a
    time, most matched first, each only of the pixels none before matched (most
    of the other eight gathers are spared), and the ranges are worked out for
    the rest; otherwise (a theme change) the ranges for all, straight away (see
    :data:`_ONE_BY_ONE`)."""
    step = max(1, idx.size // _ORDER_SAMPLE)
    hits = (_nine(img, idx[::step], width) == colour[::step]).sum(axis=1)
    if int(hits.max()) < _ONE_BY_ONE * -(-idx.size // step):
        return _within_nine(colour, _nine(img, idx, width))
    offsets = _offsets(width)
    order = np.argsort(-hits, kind="stable")
    found = img[idx + offsets[order[0]]] == colour
    todo = np.flatnonzero(~found)
    for k in order[1:]:
        if todo.size == 0:
            break
        hit = img[idx[todo] + offsets[k]] == colour[todo]
        found[todo[hit]] = True
        todo = todo[~hit]
    if todo.size:
        found[todo] = _within_nine(colour[todo], _nine(img, idx[todo], width))
    return found


def _nine(img: Words, idx: npt.NDArray[np.intp], width: int) -> np.ndarray:
    """``(9, n)``: ``img``'s words over the 3×3 neighbourhoods of pixels ``idx`` (none on
    the edge), in a work buffer (fresh ones page-fault), good until the next call."""
    n = idx.size
    at = np.add(idx, _offsets(width)[:, None], out=pm.scratch.get("nine.at", (9, n), np.intp))
    # mode "clip": in range anyway, and "raise" would buffer the output.
    return np.take(img, at, out=pm.scratch.get("nine.words", (9, n), np.uint32), mode="clip")


def _within_nine(own: Words, near: np.ndarray) -> np.ndarray:
    """Each colour of ``own`` lies, channel by channel, within the range of its column
    of ``near`` (``(9, n)`` words)."""
    if own.size == 0:
        return np.zeros(0, dtype=bool)
    channels = np.ascontiguousarray(near).view(np.uint8).reshape(*near.shape, 4)
    low, high = channels.min(axis=0), channels.max(axis=0)
    mine = own.view(np.uint8).reshape(own.size, 4)
    ok = (mine >= low) & (mine <= high)
    return ok.view(np.uint32).reshape(-1) == np.uint32(0x01010101)


#: A band whose counted pixels are fewer than one in this many gathers both ways
#: at them; more, and whole-band passes for the first way cost less.
_GATHER_SHARE = 12


def shifted_pixels(
    a32: Words, b32: Words, idx: npt.NDArray[np.intp], width: int, height: int
) -> np.ndarray:
    """Which of the pixels ``idx`` are a shift of at most one pixel: the colour of each
    image lies, channel by channel, within the range of the other's 3×3
    neighbourhood (the pixel and its 8 neighbours).

    On the image's edge one direction suffices: content that moved in from
    beyond the edge, or out past it, has its other half outside the image.
    """
    out = np.zeros(idx.size, dtype=bool)
    for hood, which, at in pm.hoods(idx, width, height):
        if isinstance(hood, pm.WindowHood):
            ways = [way[at] for way in _within_range_window(a32, b32, hood)]
        else:
            ways = _within_range_gathered(a32, b32, hood, at)
        both = ways[0] & ways[1]
        one = np.flatnonzero(ways[0] ^ ways[1])
        # One way only: a shift only on the image's edge. When those are few (a
        # theme change), only their positions are worked out; otherwise (a page
        # moved by one pixel) every pixel's, which is then cheaper.
        if 4 * one.size < both.size:
            y, x = np.divmod(idx[which[one]], width)
            both[one] = (x == 0) | (y == 0) | (x == width - 1) | (y == height - 1)
            out[which] = both
        else:
            y, x = np.divmod(idx[which], width)
            edge = (x == 0) | (y == 0) | (x == width - 1) | (y == height - 1)
            out[which] = both | (edge & (ways[0] | ways[1]))
    return out


def _within_range_gathered(
    a32: Words, b32: Words, hood: pm.Hood, at: npt.NDArray[np.intp]
) -> list[np.ndarray]:
    return [_within_gathered(a32, b32, hood, at), _within_gathered(b32, a32, hood, at)]


def _within_gathered(
    mine: Words, other: Words, hood: pm.Hood, at: npt.NDArray[np.intp]
) -> np.ndarray:
    """At pixels ``at`` of the hood: ``mine``'s colour lies within the range of
    ``other``'s 3×3 neighbourhood."""
    # Neighbours beyond the edge are clamped onto the edge, which lies inside
    # the same 3×3 neighbourhood: they widen nothing.
    near = np.empty((9, at.size), dtype=np.uint32)
    near[:8] = hood.near(other)[:, at]
    near[8] = hood.centre(other)[at]
    channels = near.view(np.uint8).reshape(9, at.size, 4)
    low, high = channels.min(axis=0), channels.max(axis=0)
    own = hood.centre(mine)[at].view(np.uint8).reshape(at.size, 4)
    # All four channels within range: the four booleans read as one word (see
    # _within_range_window).
    return ((own >= low) & (own <= high)).view(np.uint32).reshape(-1) == np.uint32(0x01010101)


def _range3(pixels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per channel, the minimum and maximum over each pixel's 3×3 neighbourhood (the
    array's edge clamps) of ``(h, w, 4)`` uint8 pixels, separably: a row pass, then
    a column pass. The channels stay interleaved – a neighbour's channel sits 4
    bytes away – so each pass is one numpy call on the whole block, not four.
    The results are work buffers (:data:`pm.scratch`), good until the next call."""
    h, w = pixels.shape[:2]
    flat = np.ascontiguousarray(pixels).reshape(h, w * 4)
    low = _extreme3(flat, np.minimum, pm.scratch.get("range3.low", flat.shape))
    high = _extreme3(flat, np.maximum, pm.scratch.get("range3.high", flat.shape))
    return low.reshape(h, w, 4), high.reshape(h, w, 4)


def _extreme3(flat: np.ndarray, op: np.ufunc, out: np.ndarray, k: int = 4) -> np.ndarray:
    """``op`` (minimum or maximum) over each pixel's 3×3 neighbourhood of an ``(h, w * k)``
    byte array of ``k`` channels, edges clamped, into ``out``. Each pass takes
    pairs first: the extreme of three neighbours is that of two overlapping
    pairs, two calls per pass, written into work buffers. The row pass runs over
    the rows as one run of bytes (a third of the cost of 2-D slices); what it
    computes across a row's end is only at each row's first and last pixel,
    which are then set apart."""
    h, wk = flat.shape
    pairs = pm.scratch.get("extreme3.pairs", flat.shape)
    rows = pm.scratch.get("extreme3.rows", flat.shape)
    if wk > k:
        run, paired, both = flat.reshape(-1), pairs.reshape(-1), rows.reshape(-1)
        op(run[:-k], run[k:], out=paired[:-k])
        op(paired[: -2 * k], paired[k:-k], out=both[k:-k])
        rows[:, :k], rows[:, -k:] = pairs[:, :k], pairs[:, -2 * k : -k]
    else:
        rows[...] = flat
    if h == 1:
        out[...] = rows
        return out
    op(rows[:-1], rows[1:], out=pairs[:-1])
    op(pairs[:-2], pairs[1:-1], out=out[1:-1])
    out[0], out[-1] = pairs[0], pairs[-2]
    return out


def _red_within(a32: Words, b32: Words, y0: int, y1: int, width: int, height: int) -> np.ndarray:
    """``(y1 - y0, width)``: at each pixel of rows ``y0..y1``, ``a``'s red lies within
    the range of ``b``'s reds over its 3×3 neighbourhood. A condition of the first
    way of the shift test, on a quarter of the bytes. A work buffer, good until
    the next call."""
    top, bottom = max(y0 - 1, 0), min(y1 + 1, height)
    # Red is the low byte of each little-endian word, so a cast that keeps the low
    # byte reads it contiguously, in a fraction of a strided byte view's time (and
    # compares between contiguous bytes cost a tenth of those with strided ones).
    red = pm.scratch.get("red.b", (bottom - top, width))
    np.copyto(red.reshape(-1), b32[top * width : bottom * width], casting="unsafe")
    own = pm.scratch.get("red.a", (y1 - y0, width))
    np.copyto(own.reshape(-1), a32[y0 * width : y1 * width], casting="unsafe")
    low = _extreme3(red, np.minimum, pm.scratch.get("red.low", red.shape), 1)
    high = _extreme3(red, np.maximum, pm.scratch.get("red.high", red.shape), 1)
    inner = slice(y0 - top, y1 - top)
    ok = np.greater_equal(own, low[inner], out=pm.scratch.get("red.ok", own.shape, bool))
    also = np.less_equal(own, high[inner], out=pm.scratch.get("red.also", own.shape, bool))
    ok &= also
    return ok


def _within_range_window(
    a32: Words, b32: Words, hood: pm.WindowHood, first_only: bool = False
) -> list[np.ndarray]:
    """Per pixel of the window (flat), each way (``a`` in ``b``, then ``b`` in ``a``;
    only the first when ``first_only``): its colour lies within the range of the
    other image's 3×3 neighbourhood."""
    top, left = max(hood.y0 - 1, 0), max(hood.x0 - 1, 0)
    bottom, right = min(hood.y1 + 1, hood.height), min(hood.x1 + 1, hood.width)
    inner = (slice(hood.y0 - top, hood.y1 - top), slice(hood.x0 - left, hood.x1 - left))
    ways = []
    for mine, other in ((a32, b32), (b32, a32))[: 1 if first_only else 2]:
        theirs = other.view(np.uint8).reshape(hood.height, hood.width, 4)[top:bottom, left:right]
        own = mine.view(np.uint8).reshape(hood.height, hood.width, 4)[
            hood.y0 : hood.y1, hood.x0 : hood.x1
        ]
        low, high = _range3(theirs)
        # All four channels within range: the four bytes of (own >= low) & (own <=
        # high) read as one word are all ones (numpy's .all over an axis of 4 is
        # an order of magnitude slower than this compare).
        ok = pm.scratch.get("within.ok", own.shape, bool)
        also = pm.scratch.get("within.also", own.shape, bool)
        np.greater_equal(own, low[inner], out=ok)
        np.less_equal(own, high[inner], out=also)
        ok &= also
        within = ok.view(np.uint32) == np.uint32(0x01010101)
        ways.append(within.reshape(-1))
    return ways


def change_boxes(
    idx: npt.NDArray[np.intp],
    width: int,
    height: int,
    *,
    cell: int = CELL,
    gap: int = MERGE_GAP,
    min_pixels: int = MIN_PIXELS,
) -> tuple[Box, ...]:
    """Group the pixels ``idx`` (flat indices) into change boxes, top to bottom then left
    to right: touching cells of ``cell`` pixels joined, groups under ``min_pixels``
    dropped, boxes that come within ``gap`` of each other merged."""
    from scipy import ndimage

    if idx.size == 0:
        return ()
    gh, gw = -(-height // cell), -(-width // cell)
    if idx.size > _SCAN_ABOVE:
        # Many pixels: whole-image passes beat per-pixel index work.
        mask = np.zeros((gh * cell, gw * cell), dtype=bool)
        # When the width is a whole number of cells, mask rows are image rows and
        # the flat indices need no division (a million of them for a theme change).
        at = idx if gw * cell == width else (idx // width) * (gw * cell) + idx % width
        mask.reshape(-1)[at] = True
        return _boxes_of_cells(mask, cell, gap, min_pixels)
    y, x = np.divmod(idx, width)
    cells = np.zeros((gh, gw), dtype=bool)
    cells[y // cell, x // cell] = True
    # Touching cells join here; boxes that still come within ``gap`` merge below.
    labels, count = ndimage.label(cells, structure=np.ones((3, 3)))
    of = labels[y // cell, x // cell] - 1
    per = np.bincount(of, minlength=count)
    x0 = np.full(count, width)
    y0 = np.full(count, height)
    x1 = np.zeros(count, dtype=np.int64)
    y1 = np.zeros(count, dtype=np.int64)
    np.minimum.at(x0, of, x)
    np.minimum.at(y0, of, y)
    np.maximum.at(x1, of, x + 1)
    np.maximum.at(y1, of, y + 1)
    return _boxes(x0, y0, x1, y1, per, gap, min_pixels)


def change_boxes_mask(
    mask: np.ndarray, *, cell: int = CELL, gap: int = MERGE_GAP, min_pixels: int = MIN_PIXELS
) -> tuple[Box, ...]:
    """:func:`change_boxes` of the pixels of an ``(h, w)`` mask."""
    height, width = mask.shape
    gh, gw = -(-height // cell), -(-width // cell)
    if not mask.any():
        return ()
    padded = np.zeros((gh * cell, gw * cell), dtype=bool)
    padded[:height, :width] = mask
    return _boxes_of_cells(padded, cell, gap, min_pixels)


_BYTE_SUM = np.uint64(0x0101010101010101)


def _boxes_of_cells(mask: np.ndarray, cell: int, gap: int, min_pixels: int) -> tuple[Box, ...]:
    """Change boxes of a mask a whole number of cells high and wide: whole-image passes,
    cheaper than per-pixel index work when many pixels are set. Each cell's own
    first and last row and column holding a pixel give, per label, the exact
    pixel bounds without a full-size label image."""
    from scipy import ndimage

    gh, gw = mask.shape[0] // cell, mask.shape[1] // cell
    grid = mask.reshape(gh, cell, gw, cell)
    if cell % 8 == 0:
        # Each row of a cell is cell / 8 words of 8 booleans: or-ing the words says
        # whether the row is in use, and a multiply adds a word's bytes into its
        # top byte (at most 8: no carry). numpy's sums and "any" over an axis of a
        # few bytes cost several times more.
        # (A reduction over an axis of 2 words is slower than or-ing them by hand.)
        words = mask.view(np.uint64).reshape(gh, cell, gw, cell // 8)
        used = words[..., 0].copy()
        in_rows = (words[..., 0] * _BYTE_SUM) >> np.uint64(56)
        for k in range(1, cell // 8):
            used |= words[..., k]
            in_rows += (words[..., k] * _BYTE_SUM) >> np.uint64(56)
        row_used = used != 0
        per_cell = in_rows.sum(axis=1, dtype=np.int64)
    else:
        row_used = grid.any(axis=3)
        per_cell = grid.sum(axis=(1, 3))
    labels, count = ndimage.label(per_cell > 0, structure=np.ones((3, 3)))
    cy, cx = np.nonzero(labels)
    of = labels[cy, cx] - 1
    per = np.bincount(of, weights=per_cell[cy, cx], minlength=count).astype(np.int64)
    rows = row_used[cy, :, cx]  # (cells, cell): rows of the cell in use
    cols = grid.any(axis=1)[cy, cx, :]
    first_row, last_row = rows.argmax(axis=1), cell - 1 - rows[:, ::-1].argmax(axis=1)
    first_col, last_col = cols.argmax(axis=1), cell - 1 - cols[:, ::-1].argmax(axis=1)
    y0 = np.full(count, gh * cell)
    x0 = np.full(count, gw * cell)
    y1 = np.zeros(count, dtype=np.int64)
    x1 = np.zeros(count, dtype=np.int64)
    np.minimum.at(y0, of, cy * cell + first_row)
    np.minimum.at(x0, of, cx * cell + first_col)
    np.maximum.at(y1, of, cy * cell + last_row + 1)
    np.maximum.at(x1, of, cx * cell + last_col + 1)
    return _boxes(x0, y0, x1, y1, per, gap, min_pixels)


def _boxes(
    x0: np.ndarray,
    y0: np.ndarray,
    x1: np.ndarray,
    y1: np.ndarray,
    per: np.ndarray,
    gap: int,
    min_pixels: int,
) -> tuple[Box, ...]:
    """The groups' bounds as boxes: specks dropped, near ones merged, top to bottom."""
    boxes = [
        Box(int(x0[i]), int(y0[i]), int(x1[i] - x0[i]), int(y1[i] - y0[i]), int(per[i]))
        for i in range(per.size)
        if per[i] >= min_pixels
    ]
    return tuple(sorted(_merge(boxes, gap), key=lambda b: (b.y, b.x)))


#: Above this many pixels, box bounds come from one scan of a label image.
_SCAN_ABOVE = 50_000
#: Growing boxes over nearby counted pixels stops above this many box × pixel tests.
_GROW_WORK = 20_000_000


def grow_boxes(
    boxes: tuple[Box, ...], counted: npt.NDArray[np.intp], width: int, gap: int = MERGE_GAP
) -> tuple[Box, ...]:
    """Grow each box over the counted pixels within ``gap`` of it, once (not from pixel
    to pixel, so a box never creeps along a shifted edge across the screen).

    The shift test drops a changed label's letters that happen to match the old
    ones ("Save" → "Send" keeps its "S"); this gives the box back the whole label.
    """
    if not boxes or counted.size == 0:
        return boxes
    if counted.size > _SCAN_ABOVE:
        mask = np.zeros((int(counted.max()) // width + 1, width), dtype=bool)
        mask.reshape(-1)[counted] = True
        return _grow_in_mask(boxes, mask, gap)
    if len(boxes) * counted.size > _GROW_WORK:
        return boxes
    y, x = np.divmod(counted, width)
    grown = []
    for box in boxes:
        near = (
            (x >= box.x - gap) & (x < box.right + gap) & (y >= box.y - gap) & (y < box.bottom + gap)
        )
        if not near.any():
            grown.append(box)
            continue
        nx, ny = x[near], y[near]
        x0, y0 = min(box.x, int(nx.min())), min(box.y, int(ny.min()))
        x1, y1 = max(box.right, int(nx.max()) + 1), max(box.bottom, int(ny.max()) + 1)
        grown.append(Box(x0, y0, x1 - x0, y1 - y0, box.pixels))
    return tuple(sorted(_merge(grown, gap), key=lambda b: (b.y, b.x)))


def _grow_in_mask(
    boxes: tuple[Box, ...], mask: np.ndarray, gap: int = MERGE_GAP
) -> tuple[Box, ...]:
    """:func:`grow_boxes` over the counted pixels of an ``(h, w)`` mask: many pixels
    are cheaper looked at in each box's surroundings than one by one."""
    if not boxes:
        return boxes
    grown = []
    for box in boxes:
        top, left = max(box.y - gap, 0), max(box.x - gap, 0)
        near = mask[top : box.bottom + gap, left : box.right + gap]
        rows, cols = np.flatnonzero(near.any(axis=1)), np.flatnonzero(near.any(axis=0))
        if rows.size == 0:
            grown.append(box)
            continue
        x0, y0 = min(box.x, left + int(cols[0])), min(box.y, top + int(rows[0]))
        x1 = max(box.right, left + int(cols[-1]) + 1)
        y1 = max(box.bottom, top + int(rows[-1]) + 1)
        grown.append(Box(x0, y0, x1 - x0, y1 - y0, box.pixels))
    return tuple(sorted(_merge(grown, gap), key=lambda b: (b.y, b.x)))


def _near(a: Box, b: Box, gap: int) -> bool:
    return (
        a.x - gap < b.right
        and b.x - gap < a.right
        and a.y - gap < b.bottom
        and b.y - gap < a.bottom
    )


def _merge(boxes: list[Box], gap: int) -> list[Box]:
    """Merge boxes that come within ``gap`` of each other until none do."""
    merged = True
    while merged:
        merged = False
        out: list[Box] = []
        for box in boxes:
            for i, kept in enumerate(out):
                if _near(box, kept, gap):
                    out[i] = kept.union(box)
                    merged = True
                    break
            else:
                out.append(box)
        boxes = out
    return boxes


def union_area(boxes: Sequence[Box], width: int, height: int) -> int:
    """Pixels of a ``width`` × ``height`` screen covered by at least one of ``boxes``."""
    if not boxes:
        return 0
    if len(boxes) == 1:
        return boxes[0].area
    covered = np.zeros((height, width), dtype=bool)
    for b in boxes:
        covered[b.y : b.bottom, b.x : b.right] = True
    return int(np.count_nonzero(covered))


def crop_for(result: DiffResult, pad: int = CROP_PAD) -> Crop:
    """Whole tile or crop, and the crop rectangle (the union of the change boxes grown
    by ``pad`` and kept on screen ``b``)."""
    if not result.same_size:
        return Crop(True, None, result.share, "size")
    if result.identical:
        return Crop(False, None, 0.0, "identical")
    if not result.boxes:
        return Crop(False, None, result.share, "unchanged")
    if result.over_threshold:
        return Crop(True, None, result.share, "over_threshold")
    rect = result.boxes[0]
    for box in result.boxes[1:]:
        rect = rect.union(box)
    width, height = result.size_b
    return Crop(False, rect.padded(pad, width, height), result.share, "crop")
