"""Diagram engine: Mermaid text import, layered layout, orthogonal routing, geometry output."""

from layoutkit.diagram.engine import lay_out
from layoutkit.diagram.mermaid import import_text, type_title
from layoutkit.diagram.options import LayoutOptions

__all__ = ["LayoutOptions", "import_text", "lay_out", "type_title"]
