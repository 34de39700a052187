"""The hierarchy types live in their own module, so layered and ordering need not import each other."""

from __future__ import annotations

import ast
from pathlib import Path

from layoutkit.diagram import hierarchy, layered, placement

DIAGRAM = Path(layered.__file__).parent


def _imported_modules(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_ordering_does_not_import_layered() -> None:
    assert "layoutkit.diagram.layered" not in _imported_modules(DIAGRAM / "ordering.py")


def test_hierarchy_imports_no_phase() -> None:
    imported = _imported_modules(DIAGRAM / "hierarchy.py")
    assert not {m for m in imported if m.startswith("layoutkit.diagram")}


def test_layered_still_exports_the_hierarchy_types() -> None:
    assert layered.Hierarchy is hierarchy.Hierarchy
    assert layered.Item is hierarchy.Item
    assert placement.Hierarchy is hierarchy.Hierarchy
