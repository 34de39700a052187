"""Diagram engine: Mermaid text import, layered layout, orthogonal routing, geometry output."""

from layoutkit.diagram.engine import lay_out
from layoutkit.diagram.mermaid import import_text, type_title

__all__ = ["import_text", "lay_out", "type_title"]
