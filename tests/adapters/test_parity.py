"""One registry, three roads: the same compose gives the same receipt everywhere."""

from __future__ import annotations

import ast
import itertools
import json
import re
from pathlib import Path

import anyio
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from layoutkit import Workspace
from layoutkit.adapters.cli import main
from layoutkit.adapters.http import create_app, openapi_document
from layoutkit.adapters.mcp import _tools
from tests.adapters.conftest import Api, LiveServer, mcp_session

BATCH = {
    "board": "parity",
    "section": "Plan",
    "cards": [
        {"kind": "text", "ref": "a", "payload": {"md": "# Goal\nShip the engine"}},
        {"kind": "note", "ref": "b", "payload": {"md": "Remember the fonts"}},
        {
            "kind": "chart",
            "payload": {"viz": "pie", "data": {"items": [{"label": "x", "value": 2}]}},
        },
    ],
    "edges": [{"from": "a", "to": "b", "label": "then"}],
    "questions": [{"prompt": "Ship?", "options": ["yes", "no"], "cardRef": "a"}],
}


def _embedded() -> dict:
    with Workspace.open() as ws:
        ws.call("create", {"kind": "board", "slug": "parity"})
        return ws.call("compose_board", BATCH)


def _over_http() -> dict:
    ws = Workspace.open()
    with LiveServer(create_app(ws)) as server:
        api = Api(ws, server)
        api.op("create", {"kind": "board", "slug": "parity"})
        receipt = api.client.post(
            "/api/v1/boards/parity/compose", json={k: v for k, v in BATCH.items() if k != "board"}
        )
        api.client.close()
    ws.close()
    assert receipt.status_code == 200, receipt.text
    return receipt.json()


def _over_mcp() -> dict:
    ws = Workspace.open()
    token = ws.create_token("owner", "parity")

    async def main_() -> dict:
        with LiveServer(create_app(ws)) as server:
            async with mcp_session(server.url, token) as session:
                await session.call_tool("create", {"kind": "board", "slug": "parity"})
                result = await session.call_tool("compose_board", BATCH)
                assert result.is_error is False, result.structured_content
                return result.structured_content

    out = anyio.run(main_)
    ws.close()
    return out


def test_same_receipt_through_every_road() -> None:
    embedded = _embedded()
    assert embedded["cards"] and embedded["questions"]
    assert _over_http() == embedded
    assert _over_mcp() == embedded


# --------------------------------------------------------------------- declared params

#: Free-form objects on purpose, each with the reason it cannot be declared.
FREE_FORM = {
    ("create", "meta"): "a board's own metadata; the author decides its members",
    ("update", "meta"): "a board's own metadata; the author decides its members",
    ("set_board_meta", "meta"): "a board's own metadata; the author decides its members",
    ("compose_board", "params"): "template parameters; each template names its own",
    ("create", "fields"): "a task's custom fields; the workspace's field vocabulary names them",
    ("update", "fields"): "a task's custom fields; the workspace's field vocabulary names them",
    ("spot", "fields"): "a task's custom fields; the workspace's field vocabulary names them",
    ("create", "slots"): "a component's slots: the author names them (names by pattern, "
    "values the texts they stand for)",
    ("post_ask", "context"): "what an asker hands the AI answerer; the asker decides its members",
    ("import_board", "document"): "a JSON Canvas or Excalidraw file; the import reads it and "
    "answers with the path of any bad field",
    ("import_board", "files"): "a canvas's attachments by the paths its file nodes name",
}


def _free_form(schema: dict) -> bool:
    """An object schema that declares no members, or says any other member is fine.
    One that declares none and refuses any other takes nothing (``whoami``).

    Declared members with ``additionalProperties`` left out is not free-form:
    content shapes stay open because the contract only warns about unknown members.
    """
    is_object = schema.get("type") == "object" or "properties" in schema
    extra = schema.get("additionalProperties")
    return is_object and (extra is True or (not schema.get("properties") and extra is not False))


def test_no_operation_takes_undeclared_free_form_params() -> None:
    ws = Workspace.open()
    found = []
    for op in ws.operations():
        schema = op["params_schema"]
        if _free_form(schema):
            found.append(f"{op['name']}: the params object itself")
        for name, spec in schema.get("properties", {}).items():
            for where, sub in ((name, spec), (f"{name}[]", spec.get("items", {}))):
                reason = FREE_FORM.get((op["name"], name))
                if isinstance(sub, dict) and _free_form(sub) and reason is None:
                    found.append(f"{op['name']}: {where}")
    assert not found, "\n".join(found)


def test_the_free_form_allow_list_names_only_free_form_params() -> None:
    ops = {op["name"]: op["params_schema"] for op in Workspace.open().operations()}
    for name, param in FREE_FORM:
        assert _free_form(ops[name]["properties"][param]), (name, param)


def _literal_calls(root: Path) -> list[tuple[str, str, dict]]:
    """``(where, operation, params)`` of each ``x.call("op", {...})`` written with literals
    outside a ``pytest.raises`` block: calls the tests expect to succeed."""
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        refused = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.With)
            and any("raises" in ast.unparse(item.context_expr) for item in node.items)
            for inner in ast.walk(node)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and _callee(node) == "call"
                and isinstance(node.func, ast.Attribute)
                and len(node.args) >= 2
                and id(node) not in refused
            ):
                try:
                    name, params = ast.literal_eval(node.args[0]), ast.literal_eval(node.args[1])
                except ValueError:
                    continue
                if isinstance(name, str) and isinstance(params, dict):
                    found.append((f"{path.name}:{node.lineno}", name, params))
    return found


def test_what_hosts_are_shown_accepts_the_calls_the_tests_make() -> None:
    ops = {op.name: op for op in Workspace.open().registry}
    checked, refused = 0, []
    for where, name, params in _literal_calls(Path(__file__).resolve().parent.parent):
        op = ops.get(name)
        if op is None or next(op.validator.iter_errors(params), None) is not None:
            continue
        checked += 1
        shown = Draft202012Validator(op.params_schema)
        refused += [f"{where} {name}: {e.message[:200]}" for e in shown.iter_errors(params)]
    assert not refused, "\n".join(refused)
    assert checked > 100


# --------------------------------------------------------------------- tested


_HTTP_METHODS = frozenset({"get", "post", "put", "patch", "delete"})
_OPS_PATH = re.compile(r"/api/v1/ops/([a-z_]+)")


def _callee(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _operation_arg(node: ast.Call) -> ast.expr | None:
    """The argument naming the operation in a real call of one, if ``node`` is one.

    Workspace ``call``, an MCP ``call_tool`` (session method, or the adapter's
    function taking the workspace first), an HTTP request to ``/api/v1/ops/<name>``
    and a CLI ``invoke`` whose arguments start with ``call <name>`` or the command.
    """
    name, args = _callee(node), node.args
    if name == "call" and args:
        return args[0]
    if name == "call_tool" and args:
        return args[0] if isinstance(node.func, ast.Attribute) else args[1:2] and args[1]
    if name in _HTTP_METHODS and args:
        return args[0]
    if name == "invoke" and len(args) > 1 and isinstance(args[1], ast.List) and args[1].elts:
        words = args[1].elts
        return words[1] if _constant(words[0]) == "call" and len(words) > 1 else words[0]
    return None


def _constant(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _named(node: ast.Call, arg: ast.expr) -> str | None:
    """The operation ``arg`` names: a plain name, or one inside an ops URL."""
    text = _constant(arg)
    if _callee(node) in _HTTP_METHODS:
        hit = _OPS_PATH.search(text or "")
        return hit.group(1) if hit else None
    return text


def _forwarded(node: ast.Call, arg: ast.expr) -> str | None:
    """The parameter passed on as the operation, in a helper such as ``err(ws, op, ...)``."""
    if isinstance(arg, ast.Name):
        return arg.id
    if isinstance(arg, ast.JoinedStr) and _callee(node) in _HTTP_METHODS:
        for before, value in itertools.pairwise(arg.values):
            if (
                (_constant(before) or "").endswith("/api/v1/ops/")
                and isinstance(value, ast.FormattedValue)
                and isinstance(value.value, ast.Name)
            ):
                return value.value.id
    return None


def _called_operations(root: Path) -> set[str]:
    """Operations some test really calls, found in the syntax trees of the test modules."""
    trees = [ast.parse(p.read_text(encoding="utf-8")) for p in sorted(root.rglob("*.py"))]
    # Helpers that pass one of their parameters on as the operation: name -> position.
    helpers: dict[str, int] = {}
    for tree in trees:
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef):
                continue
            params = [a.arg for a in fn.args.args]
            for node in ast.walk(fn):
                arg = _operation_arg(node) if isinstance(node, ast.Call) else None
                forwarded = _forwarded(node, arg) if arg is not None else None
                if forwarded in params:
                    helpers[fn.name] = params.index(forwarded) - (params[:1] == ["self"])
    called: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            arg = _operation_arg(node)
            if arg is not None and (name := _named(node, arg)):
                called.add(name)
            position = helpers.get(_callee(node))
            if position is not None and len(node.args) > position:
                name = _constant(node.args[position])
                called |= {name} if name else set()
    return called


def test_the_tested_check_reads_calls_not_strings(tmp_path: Path) -> None:
    (tmp_path / "test_a.py").write_text(
        "def err(ws, op, params):\n"
        "    ws.call(op, params)\n"
        "def test():\n"
        '    ws.call("docs", {})\n'
        '    err(ws, "validate", {})\n'
        '    client.post("/api/v1/ops/scrape_board", json={})\n'
        '    runner.invoke(main, ["call", "board_stamp", "{}"])\n'
        '    session.call_tool("arrange", {})\n'
        '    note = "render_board"\n'
        '    ws.call(note, {"get": 1})\n',
        encoding="utf-8",
    )
    assert _called_operations(tmp_path) == {
        "docs",
        "validate",
        "scrape_board",
        "board_stamp",
        "arrange",
    }


def test_every_operation_is_offered_everywhere_documented_and_tested(tmp_path: Path) -> None:
    ws = Workspace.open()
    names = [op["name"] for op in ws.operations()]
    tools = {t.name for t in _tools(ws)}
    openapi = {m["operationId"] for p in openapi_document(ws)["paths"].values() for m in p.values()}
    topics = {t["topic"] for t in ws.call("docs", {})["topics"]}
    called = _called_operations(Path(__file__).resolve().parent.parent)
    runner = CliRunner()
    missing: list[str] = []
    for name in names:
        if name not in tools and ws.registry.get(name).tool:
            missing.append(f"{name}: no MCP tool")
        elif name in tools and not ws.registry.get(name).tool:
            missing.append(f"{name}: a board-UI route offered as an MCP tool")
        if name not in openapi:
            missing.append(f"{name}: not in the OpenAPI document")
        if f"op:{name}" not in topics:
            missing.append(f"{name}: no docs topic")
        if name not in called:
            missing.append(f"{name}: no test calls it")
        with runner.isolated_filesystem(temp_dir=tmp_path):
            res = runner.invoke(main, ["call", name, "{}"])
        if res.exit_code not in (0, 1):
            missing.append(f"{name}: layoutkit call exits {res.exit_code}")
        elif res.exit_code == 1 and json.loads(res.output).get("code") == "unknown_operation":
            missing.append(f"{name}: layoutkit call does not know it")
    assert not missing, "\n".join(missing)
