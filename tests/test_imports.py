"""The import graph stays a map a newcomer can walk: no circles, families in their order.

The graph is ``scripts/import_graph.py``'s (``python scripts/import_graph.py`` prints
it); ``docs/architecture.md`` explains the map these tests hold the code to.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from scripts.import_graph import (
    FAMILIES,
    SERVICE,
    build_graph,
    circles,
    family,
    upward_arrows,
)

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "layoutkit"


@pytest.fixture(scope="module")
def graph():  # type: ignore[no-untyped-def]
    return build_graph(PACKAGE)


def test_no_import_circle_anywhere_in_layoutkit(graph) -> None:  # type: ignore[no-untyped-def]
    assert circles(graph) == []


def test_service_families_import_only_down_the_map(graph) -> None:  # type: ignore[no-untyped-def]
    assert upward_arrows(graph) == []


def test_the_road_imports_no_family(graph) -> None:  # type: ignore[no-untyped-def]
    reached = {family(b) for a, b in graph.edges if family(a) == "road"} - {None}
    assert reached <= {"road"}, sorted(str(f) for f in reached)


def test_every_service_package_is_on_the_map() -> None:
    on_disk = {p.name for p in (PACKAGE / "service").iterdir() if (p / "__init__.py").exists()}
    assert on_disk == set(FAMILIES)
    loose = {p.name for p in (PACKAGE / "service").glob("*.py")}
    assert loose == {"__init__.py"}, "every service module belongs to a family"


def test_the_map_page_names_every_family() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for name in FAMILIES:
        assert f"`{name}`" in page, name


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "layoutkit"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def test_the_graph_sees_function_local_imports_and_skips_type_only_ones(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "def f():\n    from layoutkit import b\n",
            "b.py": "from layoutkit.c import x\n",
            "c.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from layoutkit.a import f\n"
                "x = 1\n"
            ),
            "d.py": "from . import e\n",
            "e.py": "import layoutkit.d\n",
        },
    )
    graph = build_graph(root)
    assert set(graph.edges) == {
        ("layoutkit.a", "layoutkit.b"),
        ("layoutkit.b", "layoutkit.c"),
        ("layoutkit.d", "layoutkit.e"),
        ("layoutkit.e", "layoutkit.d"),
    }
    assert circles(graph) == [["layoutkit.d", "layoutkit.e"]]


def test_an_import_up_the_families_is_named(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "__init__.py": "",
            "service/__init__.py": "",
            "service/road/__init__.py": "",
            "service/road/w.py": "from layoutkit.service.tasks import t\n",
            "service/tasks/__init__.py": "",
            "service/tasks/t.py": "from layoutkit.service.road import w\n",
        },
    )
    graph = build_graph(root)
    assert upward_arrows(graph) == [f"{SERVICE}.road.w -> {SERVICE}.tasks.t"]
