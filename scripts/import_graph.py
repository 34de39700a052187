"""The import graph of ``layoutkit``: figures, circles and the map of the service families.

    python scripts/import_graph.py            # figures, circles, the family table
    python scripts/import_graph.py --mermaid  # the family map as a Mermaid flowchart
    python scripts/import_graph.py --picture docs/architecture.png

An arrow is one module importing another, wherever the import stands (a
function-local import is still an import). Imports under ``if TYPE_CHECKING:``
do not count: they never run, and they are how a low module names a type of a
higher one without depending on it. ``from package import module`` is an arrow
to that module, not to the package's ``__init__``.

The test suite holds the same graph to two rules (``tests/test_architecture.py``):
no circle anywhere, and every import between service families runs down
:data:`FAMILIES`.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import Counter
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent / "layoutkit"

#: The service packages from the bottom up: each may import those before it, never
#: one after it. ``road`` is the call path itself and imports no family.
FAMILIES = (
    "road",
    "shared",
    "boards",
    "uploads",
    "pictures",
    "review",
    "delivery",
    "tasks",
    "search",
    "workspaces",
)
SERVICE = "layoutkit.service"


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_only(tree: ast.AST) -> set[int]:
    """The ids of the nodes inside ``if TYPE_CHECKING:`` blocks."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
            if name == "TYPE_CHECKING":
                inside.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return inside


def _targets(node: ast.AST, package: str, modules: set[str]) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:
        parent = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join(parent + ([node.module] if node.module else []))
    submodules = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules]
    return submodules + ([base] if len(submodules) < len(node.names) else [])


def build_graph(root: Path = ROOT) -> nx.DiGraph:
    """Modules of ``root`` as nodes (with their line counts), imports between them as arrows."""
    paths = {module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    graph = nx.DiGraph()
    for name, path in paths.items():
        text = path.read_text(encoding="utf-8")
        graph.add_node(name, lines=text.count("\n"))
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(text)
        skip = _type_only(tree)
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            for target in _targets(node, package, set(paths)):
                if target in paths and target != name:
                    graph.add_edge(name, target)
    return graph


def circles(graph: nx.DiGraph) -> list[list[str]]:
    """Every group of modules that import each other round a circle."""
    return sorted(sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1)


def family(module: str) -> str | None:
    """The service family a module belongs to, or None outside the service's packages."""
    parts = module.split(".")
    if module.startswith(SERVICE + ".") and len(parts) >= 3:
        return parts[2]
    return None


def family_arrows(graph: nx.DiGraph) -> Counter[tuple[str, str]]:
    """How many module imports run from one family to another."""
    arrows: Counter[tuple[str, str]] = Counter()
    for a, b in graph.edges:
        fa, fb = family(a), family(b)
        if fa and fb and fa != fb:
            arrows[(fa, fb)] += 1
    return arrows


def upward_arrows(graph: nx.DiGraph) -> list[str]:
    """Imports that run up :data:`FAMILIES` (or touch a family it does not list)."""
    rank = {name: i for i, name in enumerate(FAMILIES)}
    wrong = []
    for a, b in sorted(graph.edges):
        fa, fb = family(a), family(b)
        if fa and fb and fa != fb and (fa not in rank or fb not in rank or rank[fa] < rank[fb]):
            wrong.append(f"{a} -> {b}")
    return wrong


def figures(graph: nx.DiGraph) -> dict[str, object]:
    service = [m for m in graph if m == SERVICE or m.startswith(SERVICE + ".")]
    largest = max(graph.nodes, key=lambda m: graph.nodes[m]["lines"])
    return {
        "modules": graph.number_of_nodes(),
        "import arrows": graph.number_of_edges(),
        "circles": len(circles(graph)),
        "modules in circles": sum(len(c) for c in circles(graph)),
        "service modules": len(service),
        "service arrows": graph.subgraph(service).number_of_edges(),
        "largest module": f"{largest} ({graph.nodes[largest]['lines']} lines)",
    }


def mermaid(graph: nx.DiGraph) -> str:
    """The family map as a Mermaid flowchart: adapters on top, the road at the bottom."""
    sizes: Counter[str] = Counter()
    for m in graph:
        f = family(m)
        if f:
            sizes[f] += 1
    lines = ["---", "title: layoutkit, who imports whom", "---", "flowchart TB"]
    lines.append('  adapters["adapters: Python, MCP, HTTP, CLI"]')
    for f in reversed(FAMILIES):
        lines.append(f'  {f}["{f} ({sizes[f]} modules)"]')
    lines.append('  engines["engines: elements, layout, diagram, render, review, imaging, travel"]')
    lines.append('  storage["storage: SQLite, PostgreSQL, memory"]')
    arrows = family_arrows(graph)
    lines.append("  adapters --> workspaces & search & tasks & road")
    for a, b in sorted(arrows):
        if b != "road" and b != "shared":
            lines.append(f"  {a} --> {b}")
    # Every family imports shared and the road: one arrow from the lowest family says it.
    lines.append("  boards --> shared")
    lines.append("  shared --> road")
    lines.append("  road --> engines")
    lines.append("  engines ~~~ storage")
    lines.append("  road --> storage")
    return "\n".join(lines) + "\n"


def picture(graph: nx.DiGraph) -> bytes:
    """The family map drawn by layoutkit itself: a board of one diagram card, as PNG."""
    import base64

    from layoutkit import Workspace

    ws = Workspace.open()
    try:
        card = {"kind": "diagram", "payload": {"diagram_text": mermaid(graph)}}
        ws.call("create", {"kind": "board", "slug": "architecture"})
        ws.call("compose_board", {"board": "architecture", "cards": [card]})
        image = ws.call("render_board", {"board": "architecture", "format": "png", "scale": 1})
        return base64.b64decode(image["image"]["data"])
    finally:
        ws.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mermaid", action="store_true", help="print the family map")
    parser.add_argument("--picture", type=Path, help="draw the family map to this .png")
    args = parser.parse_args(argv)
    graph = build_graph()
    if args.mermaid:
        print(mermaid(graph), end="")
        return 0
    if args.picture:
        args.picture.write_bytes(picture(graph))
        print(f"{args.picture}: the family map")
        return 0
    for key, value in figures(graph).items():
        print(f"{key:>20}: {value}")
    for circle in circles(graph):
        print("circle:", " ".join(circle))
    print("\nimports between families (from -> to: modules importing):")
    for (a, b), n in sorted(family_arrows(graph).items()):
        print(f"  {a:>10} -> {b:<10} {n}")
    for wrong in upward_arrows(graph):
        print("upward:", wrong)
    return 0


if __name__ == "__main__":
    sys.exit(main())
