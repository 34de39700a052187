"""Regions of annotations: where on a card version's picture a finding points.

Pure geometry (shapely for areas and overlaps), no storage. A region arrives in
one of three forms, all about the picture of one card version (``width`` x
``height`` pixels, as ``get_card_image`` reports ``imageWidth`` and
``imageHeight``):

- source pixels ``{x, y, w, h}``;
- normalized ``{nx, ny, nw, nh}``: fractions of the picture's width and height;
- text ``{text, nth?}``: a run or a line of text the face draws, matched exactly
  and case-sensitively; a text drawn more than once needs ``nth`` (from 0, in
  reading order: top to bottom, then left to right).

:func:`resolve` turns each into a rectangle in picture pixels, or says why not:

- ``out_of_bounds``: more than :data:`SMALL_OVERSHOOT` of the region's area lies
  outside the picture (mostly or wholly outside). Up to that share is a small
  overshoot: the region is clamped to the picture and marked ``clamped``.
- ``unresolved``: a text no run or line shows (or shown several times without a
  usable ``nth``), a normalized region whose origin or size is not a fraction of
  the picture, or a picture whose size is unknown.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any, Literal, Protocol

import attrs
from shapely import box as shapely_box

from layoutkit.errors import EngineError
from layoutkit.formatting import an

#: The share of a region's area that may lie outside the picture and still be
#: clamped to it (a small overshoot). Above it the region is mostly outside.
SMALL_OVERSHOOT = 0.5
#: Two findings restate each other when their regions overlap by at least this
#: share of the smaller region's area.
DUPLICATE_OVERLAP = 0.5
#: Matches listed when a text is ambiguous.
MAX_MATCHES = 10

RegionForm = Literal["pixels", "normalized", "text"]
_FORMS: dict[RegionForm, frozenset[str]] = {
    "pixels": frozenset({"x", "y", "w", "h"}),
    "normalized": frozenset({"nx", "ny", "nw", "nh"}),
    "text": frozenset({"text"}),
}


class RegionError(EngineError):
    """A region that is none of the three forms, or more than one."""


@attrs.frozen(slots=True)
class Rect:
    """A rectangle in picture pixels."""

    x: float
    y: float
    w: float
    h: float

    @property
    def area(self) -> float:
        return self.w * self.h

    def as_dict(self, digits: int = 2) -> dict[str, float]:
        return {
            "x": round(self.x, digits),
            "y": round(self.y, digits),
            "w": round(self.w, digits),
            "h": round(self.h, digits),
        }

    def shape(self) -> Any:
        return shapely_box(self.x, self.y, self.x + self.w, self.y + self.h)


class TextLineLike(Protocol):
    """A drawn line of text, as the renderer reports it (``layoutkit.render.TextLine``)."""

    @property
    def run(self) -> int: ...
    @property
    def line(self) -> int: ...
    @property
    def text(self) -> str: ...
    @property
    def x(self) -> float: ...
    @property
    def y(self) -> float: ...
    @property
    def w(self) -> float: ...
    @property
    def h(self) -> float: ...


@attrs.frozen(slots=True)
class Resolved:
    """What a region came to: ``status`` ok, out_of_bounds or unresolved; ``rect`` the
    rectangle in picture pixels (clamped when ``clamped``); ``outside`` the share of
    the region's area outside the picture; ``error`` why it is not ok."""

    form: RegionForm
    status: Literal["ok", "out_of_bounds", "unresolved"]
    rect: Rect | None = None
    clamped: bool = False
    outside: float = 0.0
    error: dict[str, Any] | None = None


def region_form(region: Mapping[str, Any]) -> RegionForm:
    """Which of the three forms ``region`` is; :class:`RegionError` ``invalid_region``
    when it holds none of them whole, or parts of several."""
    present = [f for f, keys in _FORMS.items() if keys & region.keys()]
    if len(present) == 1:
        form = present[0]
        missing = sorted(_FORMS[form] - region.keys())
        if not missing:
            return form
        raise RegionError(
            "invalid_region", f"{an(form)} region needs {', '.join(missing)} too", missing=missing
        )
    raise RegionError(
        "invalid_region",
        "a region is exactly one of {x, y, w, h}, {nx, ny, nw, nh} or {text, nth?}"
        + (f"; this one mixes {' and '.join(present)}" if present else ""),
    )


def to_pixels(nx: float, ny: float, nw: float, nh: float, width: int, height: int) -> Rect:
    """A normalized region in the pixels of a ``width`` x ``height`` picture."""
    return Rect(nx * width, ny * height, nw * width, nh * height)


def to_normalized(rect: Rect, width: int, height: int) -> dict[str, float]:
    """A pixel rectangle as fractions of a ``width`` x ``height`` picture."""
    return {
        "nx": rect.x / width,
        "ny": rect.y / height,
        "nw": rect.w / width,
        "nh": rect.h / height,
    }


def clamp(rect: Rect, width: int, height: int, form: RegionForm = "pixels") -> Resolved:
    """``rect`` checked against a ``width`` x ``height`` picture: ok when inside, clamped
    when at most :data:`SMALL_OVERSHOOT` of its area is outside, else out_of_bounds."""
    if rect.w <= 0 or rect.h <= 0:
        return Resolved(
            form, "unresolved", error={"code": "empty_region", "message": "w and h must be > 0"}
        )
    if rect.x >= 0 and rect.y >= 0 and rect.x + rect.w <= width and rect.y + rect.h <= height:
        return Resolved(form, "ok", rect)
    picture = Rect(0, 0, width, height)
    inside = rect.shape().intersection(picture.shape())
    share_out = max(0.0, 1.0 - inside.area / rect.area)
    if share_out > SMALL_OVERSHOOT:
        return Resolved(
            form,
            "out_of_bounds",
            rect,
            outside=share_out,
            error={
                "code": "out_of_bounds",
                "message": f"{share_out:.0%} of the region lies outside the {width}x{height} "
                f"picture; at most {SMALL_OVERSHOOT:.0%} is clamped",
                "outside": round(share_out, 4),
                "imageWidth": width,
                "imageHeight": height,
            },
        )
    # Cut by plain min and max, not the intersection's bounds: an edge already inside
    # keeps its exact value.
    x0, y0 = max(rect.x, 0.0), max(rect.y, 0.0)
    x1, y1 = min(rect.x + rect.w, float(width)), min(rect.y + rect.h, float(height))
    return Resolved(form, "ok", Rect(x0, y0, x1 - x0, y1 - y0), clamped=True, outside=share_out)


@attrs.frozen
class TextIndex:
    """The texts a face draws, each with its boxes in reading order: every run (its
    lines joined by one space, boxed by their union) and every line of a run of
    several lines."""

    boxes: dict[str, list[Rect]]

    @classmethod
    def of(cls, lines: Iterable[TextLineLike]) -> TextIndex:
        runs: dict[int, list[TextLineLike]] = {}
        for line in lines:
            runs.setdefault(line.run, []).append(line)
        found: dict[str, list[Rect]] = {}
        for parts in runs.values():
            x0 = min(p.x for p in parts)
            y0 = min(p.y for p in parts)
            x1 = max(p.x + p.w for p in parts)
            y1 = max(p.y + p.h for p in parts)
            found.setdefault(" ".join(p.text for p in parts), []).append(
                Rect(x0, y0, x1 - x0, y1 - y0)
            )
            if len(parts) > 1:
                for p in parts:
                    found.setdefault(p.text, []).append(Rect(p.x, p.y, p.w, p.h))
        for rects in found.values():
            rects.sort(key=lambda r: (round(r.y, 3), round(r.x, 3)))
        return cls(found)

    def find(self, text: str, nth: int | None) -> Resolved:
        rects = self.boxes.get(text, [])
        if not rects:
            error: dict[str, Any] = {
                "code": "text_not_found",
                "message": f"no text run or line of this card version reads {text!r} exactly",
                "didYouMean": difflib.get_close_matches(text, list(self.boxes), n=3),
            }
            folded = [t for t in self.boxes if t.casefold() == text.casefold()]
            if folded:
                error["didYouMean"] = folded[:3]
                error["message"] += " (texts match case-sensitively)"
            return Resolved("text", "unresolved", error=error)
        matches = [{"nth": i, **r.as_dict()} for i, r in enumerate(rects[:MAX_MATCHES])]
        if nth is None and len(rects) > 1:
            return Resolved(
                "text",
                "unresolved",
                error={
                    "code": "ambiguous_text",
                    "message": f"{text!r} is drawn {len(rects)} times; send nth "
                    f"(0 to {len(rects) - 1}, top to bottom then left to right)",
                    "count": len(rects),
                    "matches": matches,
                },
            )
        index = nth or 0
        if index >= len(rects):
            return Resolved(
                "text",
                "unresolved",
                error={
                    "code": "nth_out_of_range",
                    "message": f"{text!r} is drawn {len(rects)} times; nth {index} is none "
                    "of them (nth counts from 0)",
                    "count": len(rects),
                    "matches": matches,
                },
            )
        return Resolved("text", "ok", rects[index])


def resolve(
    region: Mapping[str, Any],
    width: int | None,
    height: int | None,
    text: TextIndex | None = None,
) -> Resolved:
    """Resolve ``region`` on a ``width`` x ``height`` picture (None: size unknown) whose
    drawn texts are ``text`` (None: the picture is a stored image, with no text boxes).

    Raises :class:`RegionError` for a region of no form (see :func:`region_form`).
    """
    form = region_form(region)
    if form == "text":
        if text is None:
            return Resolved(
                "text",
                "unresolved",
                error={
                    "code": "no_text_boxes",
                    "message": "this card version shows a stored image: only what the "
                    "renderer draws has text boxes; send a pixel or normalized region",
                },
            )
        nth = region.get("nth")
        return text.find(str(region["text"]), nth if isinstance(nth, int) else None)
    if width is None or height is None:
        return Resolved(
            form,
            "unresolved",
            error={
                "code": "unknown_size",
                "message": "the picture of this card version cannot be read, so its size "
                "is unknown",
            },
        )
    if form == "normalized":
        nx, ny, nw, nh = (float(region[k]) for k in ("nx", "ny", "nw", "nh"))
        if not (0.0 <= nx <= 1.0 and 0.0 <= ny <= 1.0 and 0.0 < nw <= 1.0 and 0.0 < nh <= 1.0):
            return Resolved(
                form,
                "unresolved",
                error={
                    "code": "not_a_fraction",
                    "message": "nx and ny are fractions from 0 to 1, nw and nh above 0 up "
                    "to 1, of the picture's width and height",
                },
            )
        return clamp(to_pixels(nx, ny, nw, nh, width, height), width, height, form)
    rect = Rect(float(region["x"]), float(region["y"]), float(region["w"]), float(region["h"]))
    return clamp(rect, width, height, form)


def overlap_share(a: Rect, b: Rect) -> float:
    """The area ``a`` and ``b`` share, as a share of the smaller one's area."""
    smaller = min(a.area, b.area)
    if smaller <= 0:
        return 0.0
    # Boxes apart share nothing: said without building shapes (a batch compares each
    # region with every open finding on its card version).
    if a.x >= b.x + b.w or b.x >= a.x + a.w or a.y >= b.y + b.h or b.y >= a.y + a.h:
        return 0.0
    return float(a.shape().intersection(b.shape()).area) / smaller


def restates(a: Rect, b: Rect) -> bool:
    """Whether two regions overlap by at least :data:`DUPLICATE_OVERLAP` of the smaller."""
    return overlap_share(a, b) >= DUPLICATE_OVERLAP


def basis_mismatch(declared: Mapping[str, Any], width: int, height: int) -> dict[str, Any] | None:
    """None when the declared image size is the picture's size; else the refusal's
    fields: both sizes and the ratio that rescales declared pixels to the picture's."""
    dw, dh = declared.get("width"), declared.get("height")
    if dw == width and dh == height:
        return None
    rx, ry = width / float(dw), height / float(dh)  # type: ignore[arg-type]
    uniform = abs(rx - ry) <= 1e-3 * max(rx, ry)
    return {
        "code": "basis_mismatch",
        "message": f"the region was measured on {an(f'{dw}x{dh}')} image; this card version's "
        f"picture is {width}x{height}: multiply x and w by {rx:.6g}, y and h by {ry:.6g}"
        + (" (the same ratio: a scaled copy)" if uniform else ""),
        "declared": {"width": dw, "height": dh},
        "actual": {"width": width, "height": height},
        "ratio": {"x": round(rx, 6), "y": round(ry, 6)},
        "uniform": uniform,
    }
