"""Closed and open vocabularies of the content contract, declared once.

The diagram engine and the renderers read the same tables, so a tone or a
shape the validator accepts is one the engines know how to draw.
"""

from __future__ import annotations

#: Tones of chart items, stat and meter items, table cells.
ITEM_TONES = ("good", "warn", "bad", "neutral")

#: How a finding's status word reads; words outside the list read as nothing.
FINDING_STATUS_READING = {
    "verified": "resolved",
    "confirmed": "resolved",
    "fixed": "resolved",
    "suspected": "pending",
    "likely": "pending",
    "open": "pending",
    "refuted": "refuted",
    "wont-fix": "wont-fix",
}

#: Diagram tones (open vocabulary: unknown values fall back to ``DIAGRAM_TONE_DEFAULT``).
DIAGRAM_TONES = (
    "neutral",
    "good",
    "warn",
    "bad",
    "info",
    "accent",
    "muted",
    "blue",
    "green",
    "amber",
    "red",
    "violet",
    "teal",
    "gray",
)
DIAGRAM_TONE_DEFAULT = "neutral"

#: Diagram node types (closed).
NODE_TYPES = ("box", "entity", "endpoint", "service", "note")

#: Diagram node shapes (open vocabulary; unknown falls back to ``NODE_SHAPE_DEFAULT``).
NODE_SHAPES = (
    "rect",
    "round",
    "stadium",
    "subroutine",
    "cylinder",
    "circle",
    "double-circle",
    "diamond",
    "hexagon",
    "parallelogram",
    "parallelogram-alt",
    "trapezoid",
    "trapezoid-alt",
    "asymmetric",
    "document",
    "cloud",
    "person",
    "start",
    "end",
    "fork",
    "choice",
    "ellipse",
    "text",
    "notched-rect",
    "lined-rect",
    "divided-rect",
    "window-pane",
    "stacked-rect",
    "tagged-rect",
    "stacked-document",
    "lined-document",
    "tagged-document",
    "triangle",
    "flipped-triangle",
    "hourglass",
    "bolt",
    "delay",
    "h-cylinder",
    "lined-cylinder",
    "curved-trapezoid",
    "bow-rect",
    "crossed-circle",
    "notched-pentagon",
    "sloped-rect",
    "flag",
    "brace-left",
    "brace-right",
    "braces",
    "filled-circle",
    "datastore",
    "folder",
    "bang",
    "console",
    "browser",
    "bucket",
)
NODE_SHAPE_DEFAULT = "rect"

#: Diagram edge styles (open vocabulary; unknown falls back to ``EDGE_STYLE_DEFAULT``).
#: ``plain`` is a line without an arrowhead, ``both`` has arrowheads at both ends,
#: ``circle``/``cross`` end in that marker, ``invisible`` constrains layout only.
EDGE_STYLES = (
    "solid",
    "dashed",
    "dotted",
    "thick",
    "plain",
    "both",
    "circle",
    "cross",
    "invisible",
)
EDGE_STYLE_DEFAULT = "solid"

#: Edge end marks (``head``/``tail``), for styles that do not fix their ends.
EDGE_ENDS = ("arrow", "none", "circle", "cross")

#: How an edge's routed wire is drawn (open vocabulary; unknown falls back to the first):
#: right-angled runs, straight cuts across its corners, or one smooth curve.
EDGE_CURVES = ("orthogonal", "straight", "smooth")

#: Named accent colours of a doc (also hashed from ``project``).
ACCENT_NAMES = ("red", "coral", "amber", "olive", "teal", "azure", "violet", "magenta")

AUDIENCES = ("public", "technical", "internal")

#: Card kinds that contain other cards (frames): their children are member cards, and
#: their size comes from those children, never from their own payload.
FRAME_KINDS = frozenset({"cluster", "section"})

#: The light/dark pair each named accent stands for (a doc stores accentColor as a pair).
ACCENT_PAIRS = {
    "red": {"light": "#c62828", "dark": "#ef6b6b"},
    "coral": {"light": "#d8573c", "dark": "#f08a70"},
    "amber": {"light": "#b26a00", "dark": "#f0b541"},
    "olive": {"light": "#6b7a1f", "dark": "#b5c45a"},
    "teal": {"light": "#00796b", "dark": "#4fc3b5"},
    "azure": {"light": "#1565c0", "dark": "#64a8f0"},
    "violet": {"light": "#6a3fc1", "dark": "#a78bfa"},
    "magenta": {"light": "#ad1457", "dark": "#f06ba8"},
}

#: Card vocabulary additions the spec leaves open (see the card topics).
NOTE_COLORS = ("yellow", "pink", "blue", "green", "purple", "gray")
CARD_SHAPES = ("rect", "round", "circle", "diamond", "hexagon", "triangle", "arrow", "line")
CALLOUT_TONES = ("info", "good", "warn", "bad")
TEXT_ROLES = ("idea", "note", "pro", "con", "risk", "heading", "caption")
LINK_DISPLAYS = ("preview", "phone", "widget", "live")
CHAT_ROLES = ("user", "assistant", "system")
