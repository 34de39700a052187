"""The layers stay honest: engine packages never reach into the service, storage or adapters."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "layoutkit"
ENGINES = ("elements", "layout", "diagram", "render", "review")
FORBIDDEN = ("layoutkit.service", "layoutkit.storage", "layoutkit.adapters")
IO_MODULES = ("socket", "sqlite3", "sqlalchemy", "httpx", "urllib.request", "subprocess")


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return names


@pytest.mark.parametrize("engine", ENGINES)
def test_engine_packages_stay_pure(engine: str) -> None:
    offenders = []
    for path in sorted((PACKAGE / engine).rglob("*.py")):
        for name in _imports(path):
            io = name in IO_MODULES or name.startswith(tuple(m + "." for m in IO_MODULES))
            if name.startswith(FORBIDDEN) or io:
                offenders.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert not offenders, "\n".join(offenders)


def test_adapters_hold_no_rules_of_their_own() -> None:
    # Adapters reach the engine only through Workspace.call; they never touch the store.
    offenders = []
    for path in sorted((PACKAGE / "adapters").rglob("*.py")):
        for name in _imports(path):
            if name.startswith("layoutkit.storage") or name.startswith(
                ("layoutkit.layout", "layoutkit.elements", "layoutkit.diagram")
            ):
                offenders.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert not offenders, "\n".join(offenders)
