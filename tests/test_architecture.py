"""The layers stay honest: engine packages never reach into the service, storage or adapters."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "layoutkit"
ENGINES = ("elements", "layout", "diagram", "render", "review", "imaging", "travel")
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


def _status_talk(path: Path) -> list[str]:
    """Places where engine code names ``ServiceError`` or a ``status`` (attribute, keyword,
    parameter): transport statuses belong to the service's one table, not to engines.

    Read from the syntax tree, so a comment or a payload field such as ``p.get("status")``
    does not count and an aliased import does.
    """
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.ImportFrom):
            found += [
                f"{line}: imports ServiceError" for a in node.names if a.name == "ServiceError"
            ]
        elif isinstance(node, ast.Name) and node.id == "ServiceError":
            found.append(f"{line}: names ServiceError")
        elif isinstance(node, ast.Attribute) and node.attr in ("ServiceError", "status"):
            found.append(f"{line}: .{node.attr}")
        elif isinstance(node, ast.keyword) and node.arg == "status":
            found.append(f"{line}: status= keyword")
        elif isinstance(node, ast.arg) and node.arg == "status":
            found.append(f"{line}: status parameter")
    return found


@pytest.mark.parametrize("engine", ENGINES)
def test_engines_speak_in_codes_not_statuses(engine: str) -> None:
    offenders = [
        f"{path.relative_to(PACKAGE)}:{where}"
        for path in sorted((PACKAGE / engine).rglob("*.py"))
        for where in _status_talk(path)
    ]
    assert not offenders, "\n".join(offenders)


def test_status_talk_is_caught_and_payload_fields_are_not(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from layoutkit.errors import ServiceError as E\n"
        "def f(p, status=400):\n"
        "    e = errors.ServiceError(1, 'c', 'm')\n"
        "    raise Refusal('c', status=404) if e.status else None\n"
        "# ServiceError(400) in a comment, and a payload field:\n"
        "x = p.get('status')\n",
        encoding="utf-8",
    )
    assert sorted(_status_talk(probe)) == [
        "1: imports ServiceError",
        "2: status parameter",
        "3: .ServiceError",
        "4: .status",
        "4: status= keyword",
    ]


def test_every_engine_code_has_a_status() -> None:
    # The service's table must know each code an engine raises, or a refusal would
    # answer with the fallback status by accident.
    from layoutkit.service.road.errors import STATUS_BY_CODE

    raisers = {"EngineError", "LayoutError", "DiagramError", "_fail"}
    codes: set[str] = set()
    for engine in ENGINES:
        for path in sorted((PACKAGE / engine).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.Call) or not node.args:
                    continue
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                first = node.args[0]
                if name in raisers and isinstance(first, ast.Constant):
                    codes.add(first.value)
    assert codes, "no engine refusal found: the scan itself is broken"
    assert sorted(codes - set(STATUS_BY_CODE)) == []


def test_the_network_package_sits_below_the_service() -> None:
    # layoutkit.net fetches and reads pages; storing what it found is the service's job.
    offenders = [
        f"{path.relative_to(PACKAGE)} imports {name}"
        for path in sorted((PACKAGE / "net").rglob("*.py"))
        for name in _imports(path)
        if name.startswith(FORBIDDEN)
    ]
    assert not offenders, "\n".join(offenders)


def test_only_the_network_package_fetches() -> None:
    # Outside net/ no module may reach the network on its own; the HTTP client is
    # httpx in net/ only (the adapters serve, they do not fetch). The one other is
    # client.py, the Python client of a layoutkit server its caller names: it is
    # for programs using a server, and the service never loads it.
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.is_relative_to(PACKAGE / "net") or path == PACKAGE / "client.py":
            continue
        for name in _imports(path):
            if name == "httpx" or name.startswith("httpx.") or name == "urllib.request":
                offenders.append(f"{path.relative_to(PACKAGE)} imports {name}")
            if name == "layoutkit.client" and path.is_relative_to(PACKAGE / "service"):
                offenders.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert not offenders, "\n".join(offenders)
