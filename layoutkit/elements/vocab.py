"""Closed and open vocabularies of the content contract, declared once.

The diagram engine and the renderers read the same tables, so a tone or a
shape the validator accepts is one the engines know how to draw.
"""

from __future__ import annotations

#: Tones of chart items, stat and meter items, table cells.
ITEM_TONES = ("good", "warn", "bad", "neutral")

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
)
NODE_SHAPE_DEFAULT = "rect"

#: Diagram edge styles (open vocabulary; unknown falls back to ``EDGE_STYLE_DEFAULT``).
#: ``plain`` is a line without an arrowhead, ``both`` has arrowheads at both ends,
#: ``circle``/``cross`` end in that marker, ``invisible`` constrains layout only.
EDGE_STYLES = ("solid", "dashed", "dotted", "thick", "plain", "both", "circle", "cross", "invisible")
EDGE_STYLE_DEFAULT = "solid"

#: Named accent colours of a doc (also hashed from ``project``).
ACCENT_NAMES = ("red", "coral", "amber", "olive", "teal", "azure", "violet", "magenta")

AUDIENCES = ("public", "technical", "internal")
