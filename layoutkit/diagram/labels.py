"""Node labels and shape boxes, shared by the layout (which sizes a node) and the
drawing (which writes its text), so both see the same lines.

A node's text block is its title (bold) over its body, each wrapped by
:func:`wrap_lines`. Each shape has an outer size for a text block
(:func:`outer_size`) and an inner box where text may go (:func:`inner_box`):
never across a slanted or curved border. Circles and diamonds try a few wrap
widths and keep the one that gives the smallest shape, so a long label becomes
a few balanced lines instead of one long one.
"""

from __future__ import annotations

import math
import re
from typing import Any

import attrs

from layoutkit.icons import icon_key
from layoutkit.layout.text import line_height, text_width, wrap

TITLE_SIZE = 14.0
BODY_SIZE = 12.0
MAX_TEXT = 220.0
PAD_X = 14.0
PAD_Y = 10.0
#: Gap between the title and the body.
BODY_GAP = 4.0
#: Room an icon takes left of the title.
ICON_W = 26.0

# ``fa:fa-car``, ``fab:fa-github``: Mermaid's Font Awesome prefixes (never printed).
_FA = re.compile(r"\b(?:fa[bsrkl]?|fa-\w+):fa-([\w-]+)\s*")
# Markdown bold: ``__`` only around text that starts and ends with a non-underscore and
# stands apart from a word, so ``Transition1_____`` and ``snake__case`` keep theirs.
_BOLD = re.compile(r"\*\*(.+?)\*\*|(?<![\w])__([^_\s](?:.*?[^_\s])?)__(?![\w])")
# Markdown emphasis (``_it_``, ``*it*``) by the same rule: the markers go, the words stay
# upright (a line is drawn in one face).
_EMPHASIS = re.compile(
    r"(?<![\w*])\*([^*\s](?:[^*]*?[^*\s])?)\*(?![\w*])|(?<![\w_])_([^_\s](?:[^_]*?[^_\s])?)_(?![\w_])"
)

#: Shapes drawn without text (markers and bars).
NO_TEXT = frozenset({"start", "end", "fork", "choice", "filled-circle"})
#: Shapes whose figure sits above the label (the figure has no room for text).
FIGURE_ABOVE = frozenset({"hourglass", "bolt", "crossed-circle"})
FIGURE = 36.0
#: Shapes that try narrower wraps to stay round or square.
_BALANCED = frozenset({"circle", "double-circle", "diamond", "ellipse"})


#: A character's face in a label: (bold, italic) from the markdown around it.
Face = tuple[bool, bool]


def display_text(text: str) -> tuple[str, str | None]:
    """``text`` as drawn: Font Awesome prefixes and markdown bold and emphasis markers removed.

    Returns the text and the first icon name found (``fa:fa-car`` gives ``car``).
    """
    shown, _faces, icon = styled_text(text)
    return shown, icon


def styled_text(text: str) -> tuple[str, list[Face], str | None]:
    """:func:`display_text` with the face of each character it keeps: ``**bold**`` and
    ``_emphasis_`` lose their markers and mark the words they held."""
    icon = None
    names = [m.group(1) for m in _FA.finditer(text)]
    if names:
        # The first Font Awesome name the project draws becomes the icon; others drop.
        icon = next((key for key in map(icon_key, names) if key), None)
        text = _FA.sub(" ", text)
        if icon is None and not text.strip():
            # A node that is only an icon nobody draws says which it was, rather than
            # showing an empty box.
            text = names[0].replace("-", " ")
    chars = [(ch, (False, False)) for ch in text]
    chars = _unmark(chars, _BOLD, (True, False))
    chars = _unmark(chars, _EMPHASIS, (False, True))
    # Blanks as display_text always had them: one between words, none at line ends.
    out: list[tuple[str, Face]] = []
    for k, line in enumerate(_split(chars, "\n")):
        words = [w for w in _split(line, None) if w]
        if k:
            out.append(("\n", (False, False)))
        for j, word in enumerate(words):
            if j:
                out.append(
                    (" ", word[0][1] if word[0][1] == words[j - 1][-1][1] else (False, False))
                )
            out.extend(word)
    while out and out[0][0] == "\n":
        out.pop(0)
    while out and out[-1][0] == "\n":
        out.pop()
    return "".join(ch for ch, _ in out), [face for _, face in out], icon


Runs = list[list[tuple[str, Face]]]


def title_runs(node: dict[str, Any], lines: tuple[str, ...]) -> Runs | None:
    """The title ``lines`` of ``node`` (as :func:`label` wrapped them) cut into runs of
    one face each, or None when its title has no markdown bold or emphasis."""
    return text_runs(str(node.get("title") or node.get("id") or ""), lines)


def text_runs(text: str, lines: tuple[str, ...] | list[str]) -> Runs | None:
    """``lines`` wrapped from ``text`` cut into runs of one face each, or None when the
    text has no markdown bold or emphasis (or a line cannot be found in it)."""
    shown, faces, _ = styled_text(text)
    if not any(bold or italic for bold, italic in faces):
        return None
    out: list[list[tuple[str, Face]]] = []
    at = 0
    for line in lines:
        start = shown.find(line, at)
        if start < 0:
            return None  # a line the wrap changed: drawn in one face
        runs: list[tuple[str, Face]] = []
        for ch, face in zip(line, faces[start : start + len(line)], strict=True):
            if runs and runs[-1][1] == face:
                runs[-1] = (runs[-1][0] + ch, face)
            else:
                runs.append((ch, face))
        out.append(runs)
        at = start + len(line)
    return out


def _unmark(
    chars: list[tuple[str, Face]], pattern: re.Pattern[str], mark: Face
) -> list[tuple[str, Face]]:
    """``chars`` with each ``pattern`` match replaced by its group, that group's
    characters taking ``mark`` on top of the face they had."""
    text = "".join(ch for ch, _ in chars)
    out: list[tuple[str, Face]] = []
    at = 0
    for m in pattern.finditer(text):
        group = 1 if m.group(1) is not None else 2
        out.extend(chars[at : m.start()])
        for ch, (bold, italic) in chars[m.start(group) : m.end(group)]:
            out.append((ch, (bold or mark[0], italic or mark[1])))
        at = m.end()
    out.extend(chars[at:])
    return out


def _split(chars: list[tuple[str, Face]], sep: str | None) -> list[list[tuple[str, Face]]]:
    """``chars`` split at ``sep`` (None: at runs of blanks), as ``str.split`` does."""
    parts: list[list[tuple[str, Face]]] = [[]]
    for item in chars:
        ch = item[0]
        if ch == sep if sep is not None else ch.isspace():
            parts.append([])
        else:
            parts[-1].append(item)
    return parts


def _icon_name(value: Any) -> str | None:
    """An icon field as a plain name: Mermaid's ``fa:user`` or ``fa:fa-user`` gives ``user``."""
    if not value:
        return None
    name = str(value).rsplit(":", 1)[-1]
    name = name[3:] if name.startswith("fa-") else name
    return icon_key(name) or name


def wrap_lines(text: str, width: float, size: float, font: str = "sans") -> list[str]:
    """Lines of ``text`` wrapped at ``min(width, MAX_TEXT)``; hard breaks are kept.

    A word wider than the line breaks at identifier boundaries (``layout.text.wrap``)
    rather than between any two letters.
    """
    if not text:
        return []
    return wrap(text, max(min(width, MAX_TEXT), size), size, font)  # type: ignore[arg-type]


def _width(lines: list[str], size: float, font: str) -> float:
    return max((text_width(s, size, font) for s in lines), default=0.0)  # type: ignore[arg-type]


@attrs.frozen
class Label:
    """A node's text as drawn: wrapped lines and the block they make."""

    title: tuple[str, ...]
    body: tuple[str, ...]
    icon: str | None
    width: float
    height: float

    @property
    def title_h(self) -> float:
        # An icon alone stands on a title line of its own.
        return line_height(TITLE_SIZE) * max(len(self.title), 1 if self.icon else 0)

    @property
    def body_h(self) -> float:
        return line_height(BODY_SIZE) * len(self.body)


def label(node: dict[str, Any], width: float = MAX_TEXT) -> Label:
    """The title and body of a box-type ``node`` wrapped at ``width`` (capped at ``MAX_TEXT``)."""
    raw = str(node.get("title") or node.get("id") or "")
    title_text, fa = display_text(raw)
    icon = _icon_name(node.get("icon")) or fa
    body_text = display_text(str(node["body"]))[0] if node.get("body") else ""
    room = width - (ICON_W if icon else 0.0)
    title = wrap_lines(title_text, room, TITLE_SIZE, "sans-bold")
    body = wrap_lines(body_text, width, BODY_SIZE)
    w = max(
        _width(title, TITLE_SIZE, "sans-bold") + (ICON_W if icon else 0.0),
        _width(body, BODY_SIZE, "sans"),
    )
    h = line_height(TITLE_SIZE) * max(len(title), 1 if icon else 0)
    if body:
        h += BODY_GAP + line_height(BODY_SIZE) * len(body)
    return Label(tuple(title), tuple(body), str(icon) if icon else None, w, h)


def balanced_label(node: dict[str, Any], shape: str) -> Label:
    """The label a node of ``shape`` is sized for (the same call sizes and draws it)."""
    best = label(node)
    if shape not in _BALANCED or len(best.title) + len(best.body) == 0:
        return best
    best_area = _area(shape, best)
    # Never narrower than the longest word: a balanced label breaks between words only.
    title_text, fa = display_text(str(node.get("title") or node.get("id") or ""))
    icon = ICON_W if (node.get("icon") or fa) else 0.0
    body_text = display_text(str(node["body"]))[0] if node.get("body") else ""
    floor = max(
        max((text_width(w, TITLE_SIZE, "sans-bold") for w in title_text.split()), default=0.0)
        + icon,
        max((text_width(w, BODY_SIZE, "sans") for w in body_text.split()), default=0.0),
    )
    for width in (180.0, 150.0, 120.0, 100.0, 80.0, 60.0):
        if width >= best.width or width < floor:
            continue
        cand = label(node, width)
        if len(cand.title) > 2 and len(cand.title) > len(best.title):
            # A round or pointed shape grows to fit its text before taking a third line.
            continue
        area = _area(shape, cand)
        if area < best_area - 1e-6:
            best, best_area = cand, area
    return best


def _area(shape: str, lab: Label) -> float:
    w, h = outer_size(shape, lab.width, lab.height)
    return w * h


def outer_size(shape: str, tw: float, th: float) -> tuple[float, float]:
    """Outer box of ``shape`` that holds a ``tw`` x ``th`` text block in its inner box."""
    bw, bh = tw + 2 * PAD_X, th + 2 * PAD_Y
    if shape in ("start", "end", "filled-circle"):
        return 28.0, 28.0
    if shape == "choice":
        return 28.0, 28.0
    if shape == "fork":
        return 90.0, 10.0
    if shape in ("circle", "double-circle"):
        d = math.hypot(tw + 16, th + 12) + (10 if shape == "double-circle" else 0)
        return max(d, 40.0), max(d, 40.0)
    if shape == "ellipse":
        return max((tw + 16) * math.sqrt(2), 60.0), max((th + 12) * math.sqrt(2), 40.0)
    if shape == "diamond":
        s = max((tw + 12) + (th + 12), 48.0)
        return s, s
    if shape in FIGURE_ABOVE:
        return max(bw, FIGURE + 8), FIGURE + 6 + max(th + PAD_Y, 0.0)
    h = max(bh, 40.0)
    w = max(bw, 80.0)
    if shape == "stadium":
        return max(tw + 16 + h, 80.0), h
    if shape in SLANTS:
        return max(tw + 24 + 2 * SLANTS[shape] * h, 80.0), h
    if shape in ("triangle", "flipped-triangle"):
        return max(2 * (tw + 12), 60.0), max(2 * (th + 12), 40.0)
    extra_w, extra_h = _FRAMED.get(shape, (0.0, 0.0))
    return w + extra_w, h + extra_h


#: Slant of each slanted shape's sides, as a share of its height, on each side.
SLANTS = {
    "hexagon": 0.25,
    "parallelogram": 0.3,
    "parallelogram-alt": 0.3,
    "trapezoid": 0.3,
    "trapezoid-alt": 0.3,
    "curved-trapezoid": 0.25,
    "notched-pentagon": 0.25,
    "asymmetric": 0.25,
}
#: Extra (width, height) of framed shapes around their text.
_FRAMED = {
    "subroutine": (16.0, 0.0),
    "cylinder": (0.0, 20.0),
    "lined-cylinder": (0.0, 26.0),
    "h-cylinder": (24.0, 0.0),
    "document": (0.0, 10.0),
    "lined-document": (12.0, 10.0),
    "tagged-document": (0.0, 10.0),
    "stacked-document": (8.0, 18.0),
    "stacked-rect": (8.0, 8.0),
    "lined-rect": (10.0, 0.0),
    "divided-rect": (0.0, 10.0),
    "window-pane": (10.0, 10.0),
    "notched-rect": (8.0, 0.0),
    "delay": (12.0, 0.0),
    "bow-rect": (20.0, 0.0),
    "flag": (0.0, 12.0),
    "sloped-rect": (0.0, 12.0),
    "brace-left": (12.0, 0.0),
    "brace-right": (12.0, 0.0),
    "braces": (24.0, 0.0),
    "person": (0.0, 24.0),
    "cloud": (32.0, 16.0),
    "folder": (0.0, 10.0),
    "bang": (40.0, 24.0),
    "console": (0.0, 14.0),
    "browser": (0.0, 16.0),
    "bucket": (16.0, 18.0),
}


def inner_box(shape: str, w: float, h: float) -> tuple[float, float, float, float]:
    """(dx, dy, width, height) of the area text may use inside a ``w`` x ``h`` ``shape``."""
    if shape in ("circle", "double-circle"):
        # The inscribed square; a wider, flatter block fits too (``text_box`` checks
        # the block against the circle itself) and is centred the same way.
        side = (min(w, h) - (10.0 if shape == "double-circle" else 0.0)) / math.sqrt(2)
        return (w - side) / 2, (h - side) / 2, side, side
    if shape == "ellipse":
        iw, ih = w / math.sqrt(2), h / math.sqrt(2)
        return (w - iw) / 2, (h - ih) / 2, iw, ih
    if shape == "diamond":
        return w / 4, h / 4, w / 2, h / 2
    if shape in ("triangle", "flipped-triangle"):
        return w / 4, (h / 2 if shape == "triangle" else 0.0), w / 2, h / 2
    if shape in FIGURE_ABOVE:
        return 0.0, FIGURE + 6, w, h - FIGURE - 6
    if shape == "stadium":
        return h / 2 - 8, 0.0, w - h + 16, h
    if SLANTS.get(shape):
        d = SLANTS[shape] * h
        return d, 0.0, w - 2 * d, h
    ew, eh = _FRAMED.get(shape, (0.0, 0.0))
    top = {
        "cylinder": eh * 0.75,
        "lined-cylinder": eh * 0.8,
        "stacked-document": 8.0,
        "stacked-rect": 8.0,
        "divided-rect": eh,
        "window-pane": eh,
        "person": eh,
        "cloud": eh / 2,
        "folder": eh,
        "bang": eh / 2,
        "console": eh,
        "browser": eh,
        "bucket": eh * 2 / 3,
    }.get(shape, 0.0)
    left = {
        "lined-rect": ew,
        "lined-document": ew,
        "window-pane": ew,
        "brace-left": ew,
        "braces": ew / 2,
        "subroutine": ew / 2,
        "h-cylinder": 0.0,
        "notched-rect": ew,
        "cloud": ew / 2,
        "bang": ew / 2,
        "bucket": ew / 2,
    }.get(shape, 0.0)
    return left, top, w - ew, h - eh


def text_box(
    node: dict[str, Any], shape: str, w: float, h: float
) -> tuple[Label, tuple[float, float, float, float]]:
    """The label to draw in a ``w`` x ``h`` node of ``shape`` and where its block goes.

    The label is the one the layout sized the node for; a box made smaller than
    that (an override, a fixed size) re-wraps to its inner width instead.
    Returns the label and (dx, dy, width, height) of the block, centred in the
    inner box.
    """
    lab = balanced_label(node, shape)
    ix, iy, iw, ih = inner_box(shape, w, h)
    need_w, need_h = outer_size(shape, lab.width, lab.height)
    if need_w > w + 0.5 or need_h > h + 0.5:
        tight = shape in ("circle", "double-circle", "ellipse", "diamond")
        room = iw - (8.0 if tight else 2 * PAD_X)
        lab = label(node, max(room, TITLE_SIZE))
    return lab, (ix + (iw - lab.width) / 2, iy + (ih - lab.height) / 2, lab.width, lab.height)


#: Edge labels: font size, widest line, and the padding of their box.
EDGE_LABEL_SIZE = 12.0
EDGE_LABEL_MAX = 160.0
EDGE_LABEL_PAD_X = 4.0
EDGE_LABEL_PAD_Y = 2.0


def edge_label_lines(text: str, width: float = EDGE_LABEL_MAX) -> list[str]:
    """An edge label's lines, wrapped at ``width`` (at most ``EDGE_LABEL_MAX``)."""
    return wrap_lines(display_text(text)[0], min(width, EDGE_LABEL_MAX), EDGE_LABEL_SIZE)


def runs_width(runs: list[tuple[str, Face]], size: float) -> float:
    """The width of one line of runs, bold ones in the bold face."""
    return sum(text_width(t, size, "sans-bold" if bold else "sans") for t, (bold, _) in runs)


def edge_label_size(text: str) -> tuple[float, float]:
    """The box the layout reserves for an edge label: its lines plus padding (markdown
    bold words measured bold, as they are drawn)."""
    lines = edge_label_lines(text)
    runs = text_runs(text, lines)
    if runs:
        wide = max(runs_width(line, EDGE_LABEL_SIZE) for line in runs)
    else:
        wide = _width(lines, EDGE_LABEL_SIZE, "sans")
    return (
        wide + 2 * EDGE_LABEL_PAD_X,
        line_height(EDGE_LABEL_SIZE) * max(len(lines), 1) + 2 * EDGE_LABEL_PAD_Y,
    )


#: A picture node (``picture``): the frame's side when the author gives none, the gap
#: between the frame and the title, and the size of the line that names the picture.
PICTURE_SIDE = 60.0
PICTURE_GAP = 6.0
PICTURE_NAME_SIZE = 10.0


@attrs.frozen
class PictureBlock:
    """How a picture node stacks: the title, then the frame and the line naming the
    picture under it (``pos: t``), or the frame and its name, then the title.

    The picture itself is never fetched here; the drawing shows a stored or inline
    picture in the frame and, for a site's, only names it.
    """

    frame_w: float
    frame_h: float
    name: str
    label: Label
    top: bool

    @property
    def name_h(self) -> float:
        return line_height(PICTURE_NAME_SIZE) if self.name else 0.0

    @property
    def width(self) -> float:
        named = text_width(self.name, PICTURE_NAME_SIZE, "mono") if self.name else 0.0
        return max(self.frame_w, self.label.width, named) + 2 * PAD_X

    @property
    def height(self) -> float:
        return self.frame_h + self.name_h + PICTURE_GAP + self.label.height + 2 * PICTURE_GAP


def picture_block(node: dict[str, Any]) -> PictureBlock | None:
    """The picture stack of ``node``, or None when it has no ``picture`` with a ``src``."""
    pic = node.get("picture")
    if not isinstance(pic, dict) or not isinstance(pic.get("src"), str) or not pic["src"]:
        return None
    w, h = _side(pic.get("w")), _side(pic.get("h"))
    w = w or h or PICTURE_SIDE
    return PictureBlock(w, h or w, picture_name(pic["src"]), label(node), pic.get("pos") == "t")


def _side(v: Any) -> float | None:
    return float(v) if type(v) in (int, float) and v > 0 else None


def picture_name(src: str) -> str:
    """The line that names a picture under its frame: a site's host (what a reader
    needs to find it), nothing for an inline or stored picture, which is shown."""
    m = re.match(r"\s*(?:[a-zA-Z][a-zA-Z0-9+.-]*:)?//([^/?#\s]+)", src)
    return m.group(1).rsplit("@", 1)[-1] if m else ""
