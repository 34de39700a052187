"""Cheap stand-ins for card faces: level of detail and a cache of drawn faces.

A board drawn small (a 5,000-card board in a 1,600 px picture puts a card in
about 30 px) shows none of a face's text: the PNG writer greys out text under
3 device pixels. Building those faces (markdown parsing, wrapping, tables)
costs most of the time and shows nothing, so :func:`card_glance` draws the
card's box in its face's colours and its title as one line, which at that
scale is what a person can make out: where cards are and of what kind.
:data:`GLANCES` keeps glances drawn at the origin, so a board drawn again
places them where its cards are now.

:class:`FaceCache` keeps the items and the SVG of faces already drawn, keyed
by everything a face depends on (:func:`face_key`: kind, payload, size and the
renderer's code, not the position), so a board drawn again, as a viewer
polling it does, builds only the faces of the cards that changed. The same
key lets a caller store faces' SVG text and hand it back (``stored``), so a
process that never drew a board draws only what no process drew before.
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from layoutkit.layout.cuts import Cut, collecting, told
from layoutkit.render._faces import card_face, shape_outline
from layoutkit.render._palette import CARD, FG, LINE, ROLE_STYLE, fill_color, tone
from layoutkit.render._scene import Box, Group, Item, Text, fit_line

Rect = tuple[float, float, float, float]

#: Below this drawing scale the largest face text (28 px headings) is under
#: 3 device pixels, drawn as a grey bar anyway: cards are drawn as glances.
GLANCE_SCALE = 0.1
GLANCE_TITLE = 18.0
_TITLE_KEYS = ("title", "label", "name", "md", "text", "url", "board", "question")
#: Every payload field a glance reads (title keys, colours, shape, tone, role): a
#: caller may hand glances only these, and text cut to 400 characters.
GLANCE_KEYS = (*_TITLE_KEYS, "color", "fill", "stroke", "shape", "tone", "role")


def card_title(kind: str, payload: Any) -> str:
    """The one line a card is known by: its title, label, name or first text line."""
    p = payload if isinstance(payload, dict) else {}
    for key in _TITLE_KEYS:
        value = p.get(key)
        if isinstance(value, str) and value.strip():
            # A long page's text is cut first: splitting all of it was a fifth of a glance PNG.
            for line in value[:400].splitlines():
                line = line.strip().lstrip("#>-*[] ").strip()
                if line:
                    return line
    return kind


def _box(rect: Rect, fill: str, stroke: str, radius: float = 10.0) -> list[Item]:
    # A face's box without its drop shadow: a shadow 2 px off is nothing at a tenth of size.
    return [Box(*rect, fill=fill, stroke=stroke, width=1.0, radius=radius)]


def card_glance(kind: str, payload: Any, rect: Rect) -> list[Item]:
    """A card drawn for a glance: its box in its face's colours and its title on one line."""
    p = payload if isinstance(payload, dict) else {}
    x, y, w, h = rect
    items: list[Item]
    if kind == "note":
        items = _box(rect, fill_color(p.get("color") or p.get("fill"), "#fff3bf"), "#e9d58a")
    elif kind == "shape":
        items = shape_outline(p, rect)
    elif kind == "callout":
        ink, wash = tone(p.get("tone") or "info")
        items = _box(rect, wash, ink, 8)
        items.append(Box(x, y, 5, h, fill=ink, radius=2))
    elif kind == "text":
        ink, wash = ROLE_STYLE.get(str(p.get("role") or "note"), ROLE_STYLE["note"])
        items = [] if wash.endswith("00000000") else _box(rect, wash, LINE)
    else:
        items = _box(rect, CARD, LINE)
    size = min(GLANCE_TITLE, max(h * 0.4, 6.0))
    title = fit_line(card_title(kind, p), max(w - 20, size), size, "sans-bold")
    anchor = "middle" if kind == "shape" else "start"
    tx = x + w / 2 if anchor == "middle" else x + 10
    ty = y + (h - size * 1.2) / 2 if kind == "shape" else y + min(10.0, h * 0.2)
    items.append(Text(tx, ty, (title,), size, "sans-bold", FG, 0.0, anchor))
    return items


class GlanceCache:
    """Least recently used glances drawn at the origin, at most ``size`` of them; safe
    across threads.

    A glance PNG of a large board drawn again (a viewer's overview after an edit)
    finds almost every card's glance here: building the title line and the box
    items was about a third of such a picture.
    """

    def __init__(self, size: int = 60000) -> None:
        self.size = size
        self._glances: OrderedDict[tuple, Group] = OrderedDict()
        self._lock = threading.Lock()

    def glance(self, kind: str, payload: Any, w: float, h: float) -> Group:
        """:func:`card_glance` of a ``w`` x ``h`` card at the origin, as a group."""
        # A glance reads a few short fields (GLANCE_KEYS), so the payload's repr is a cheap key.
        key = (kind, w, h, repr(payload))
        with self._lock:
            found = self._glances.get(key)
            if found is not None:
                self._glances.move_to_end(key)
                return found
        drawn = Group(tuple(card_glance(kind, payload, (0.0, 0.0, w, h))))  # type: ignore[arg-type]
        with self._lock:
            self._glances[key] = drawn
            while len(self._glances) > self.size:
                self._glances.popitem(last=False)
        return drawn

    def clear(self) -> None:
        with self._lock:
            self._glances.clear()

    def __len__(self) -> int:
        return len(self._glances)


GLANCES = GlanceCache()


def _code_digest() -> str:
    """A digest of the code a face depends on: a face stored by an older renderer,
    text measure or payload rule must not be served by a newer one."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.blake2b(digest_size=8)
    for package in ("render", "layout", "elements", "fonts"):
        for path in sorted((root / package).iterdir()):
            if path.suffix in (".py", ".json"):
                digest.update(path.name.encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


@functools.cache
def code_digest() -> str:
    """16 hex digits that change whenever the code faces are drawn by changes."""
    return _code_digest()


def face_key(kind: str, payload: Any, w: float, h: float) -> str:
    """What a card's face depends on, as 32 hex digits: its kind, payload and size
    (not its position: faces are drawn at the origin) and the renderer's code.

    Equal keys mean equal faces, so a face drawn once can be stored and shown
    again, by any process of the same code.
    """
    # Keys sorted: PostgreSQL hands a payload back with its keys in another order
    # than they were written, and the face drawn at the write must be found again.
    # Sizes as floats: 240 and 240.0 are one size.
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{code_digest()}|{kind}|{float(w)!r}|{float(h)!r}|".encode())
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=repr)
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


class FaceCache:
    """Least recently used faces, at most ``size`` of them and about ``budget`` bytes;
    safe across threads.

    A face's weight is its payload's text plus a fixed share for its items and SVG
    (about 6 KB a card on the bench board), so a few huge payloads (inlined
    screenshots, long documents) cannot hold the memory of thousands of cards.
    """

    def __init__(self, size: int = 12000, budget: int = 96_000_000) -> None:
        self.size = size
        self.budget = budget
        self._faces: OrderedDict[str, Group] = OrderedDict()
        self._weights: dict[str, int] = {}
        # What each face drawn here left out: a compose checks a new card's face
        # for cuts, and the drawing behind the write then finds the face here.
        self._cuts: dict[str, tuple[Cut, ...]] = {}
        self._weight = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def face(
        self,
        kind: str,
        payload: Any,
        w: float,
        h: float,
        *,
        key: str | None = None,
        stored: Mapping[str, str] | None = None,
        items: bool = True,
    ) -> Group:
        """The face of a ``w`` x ``h`` card at the origin, drawn now or taken from an
        earlier drawing: this cache, or ``stored`` SVG text by :func:`face_key`
        (used only when ``items`` is False: a PNG needs the items)."""
        return self._face(kind, payload, w, h, key, stored, items)[0]

    def cuts(self, kind: str, payload: Any, w: float, h: float) -> tuple[Cut, ...]:
        """What the face of a ``w`` x ``h`` card leaves out, drawing it (and keeping
        it for the next drawing) unless a drawing of it is kept here."""
        return self._face(kind, payload, w, h, None, None, True)[1]

    def _face(
        self,
        kind: str,
        payload: Any,
        w: float,
        h: float,
        key: str | None,
        stored: Mapping[str, str] | None,
        items: bool,
    ) -> tuple[Group, tuple[Cut, ...]]:
        key = key or face_key(kind, payload, w, h)
        with self._lock:
            found = self._faces.get(key)
            kept = self._cuts.get(key)
            if found is not None and kept is not None and (found.items is not None or not items):
                self._faces.move_to_end(key)
                self.hits += 1
                told(kept)
                return found, kept
        svg = None if items or stored is None else stored.get(key)
        if svg is not None:
            drawn = Group(None, svg)
            weight = len(svg)
            cuts: tuple[Cut, ...] | None = None
        else:
            with collecting() as sink:
                drawn = Group(tuple(card_face(kind, payload, (0.0, 0.0, w, h))))  # type: ignore[arg-type]
            # A plan a face reads twice reports its cut twice.
            cuts = tuple(dict.fromkeys(sink))
            told(cuts)
            weight = len(repr(payload)) + _ITEMS_WEIGHT
        with self._lock:
            self.misses += 1
            if key in self._faces:
                self._weight -= self._weights[key]
            self._faces[key] = drawn
            self._weights[key] = weight
            self._weight += weight
            if cuts is None:
                self._cuts.pop(key, None)  # read back as SVG: what it cut is not known
            else:
                self._cuts[key] = cuts
            while self._faces and (len(self._faces) > self.size or self._weight > self.budget):
                gone, _ = self._faces.popitem(last=False)
                self._weight -= self._weights.pop(gone)
                self._cuts.pop(gone, None)
        return drawn, cuts or ()

    def clear(self) -> None:
        with self._lock:
            self._faces.clear()
            self._weights.clear()
            self._cuts.clear()
            self._weight = 0
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._faces)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._faces


_ITEMS_WEIGHT = 6000
FACES = FaceCache()
