"""The ``layoutkit`` command line: a thin shell over ``Workspace.call``.

Exit codes: 0 ok, 1 findings or a refused operation, 2 usage errors.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from importlib import resources
from typing import Any

import click

from layoutkit import ServiceError, Workspace

EXIT_REFUSED = 1


def _emit_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False))


def _fail(err: ServiceError, as_json: bool) -> None:
    if as_json:
        _emit_json({"status": err.status, **err.body})
    else:
        click.echo(f"error {err.status} {err.code}: {err.message}", err=True)
        hints = err.body.get("didYouMean")
        if hints:
            click.echo(f"  did you mean: {', '.join(hints)}", err=True)
    sys.exit(EXIT_REFUSED)


def _read_json_arg(source: str) -> Any:
    """Parse a JSON argument: inline text, ``@file`` or ``-`` for standard input."""
    if source == "-":
        text = sys.stdin.read()
    elif source.startswith("@"):
        try:
            with open(source[1:], encoding="utf-8") as fh:
                text = fh.read()
        except OSError as exc:
            raise click.BadParameter(f"cannot read {source[1:]}: {exc.strerror}") from exc
    else:
        text = source
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise click.BadParameter(
            f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from exc


def _print_findings(findings: list[dict[str, Any]]) -> None:
    for f in findings:
        line = f"{f['severity']:<7} {f['path'] or '(root)'}  [{f['code']}] {f['message']}"
        click.echo(line)
        if f.get("fix"):
            click.echo(f"        fix: {f['fix']}")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="layoutkit")
def main() -> None:
    """layoutkit: validate, lay out, render and store boards and documents."""


@main.command()
@click.argument("file", type=click.File("r", encoding="utf-8"))
@click.option(
    "--card", is_flag=True, help="Check FILE as a board card instead of a document element."
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def validate(file: Any, card: bool, as_json: bool) -> None:
    """Check a document element (or a board card) in FILE against the content contract.

    FILE may be - for standard input. Exits 1 when there is any error finding.
    """
    try:
        value = json.load(file)
    except json.JSONDecodeError as exc:
        click.echo(f"error: {file.name} is not JSON: {exc.msg} at line {exc.lineno}", err=True)
        sys.exit(EXIT_REFUSED)
    ws = Workspace.open()
    try:
        result = ws.call("validate", {"card" if card else "element": value})
    except ServiceError as err:
        _fail(err, as_json)
    if as_json:
        _emit_json(result)
    else:
        _print_findings(result["findings"])
        errors = sum(f["severity"] == "error" for f in result["findings"])
        warnings = len(result["findings"]) - errors
        click.echo(
            f"{'ok' if result['ok'] else 'invalid'}: {errors} error(s), {warnings} warning(s)"
        )
    sys.exit(0 if result["ok"] else EXIT_REFUSED)


@main.command()
@click.argument("topic", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def docs(topic: str | None, as_json: bool) -> None:
    """Read the content contract: the topic index, or one TOPIC."""
    ws = Workspace.open()
    try:
        result = ws.call("docs", {} if topic is None else {"topic": topic})
    except ServiceError as err:
        _fail(err, as_json)
    if as_json:
        _emit_json(result)
    elif topic is None:
        width = max((len(t["topic"]) for t in result["topics"]), default=0)
        for t in result["topics"]:
            click.echo(f"{t['topic']:<{width}}  {t['summary']}")
    else:
        click.echo(result["text"])


@main.command()
@click.argument("operation")
@click.argument("params", required=False, default="{}")
def call(operation: str, params: str) -> None:
    """Run any registered OPERATION with PARAMS (JSON text, @file or -) and print the JSON result."""
    ws = Workspace.open()
    try:
        result = ws.call(operation, _read_json_arg(params))
    except ServiceError as err:
        _fail(err, True)
    _emit_json(result)


@main.command()
def demo() -> None:
    """Validate the bundled example document and summarise what it holds."""
    doc = json.loads(
        resources.files("layoutkit.examples").joinpath("report.json").read_text("utf-8")
    )
    result = Workspace.open().call("validate", {"element": doc})
    kinds: Counter[str] = Counter()
    stack = [result["normalized"]]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("kind"), str) and isinstance(node.get("payload"), dict):
                kinds[node["kind"]] += 1
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    title = result["normalized"]["payload"].get("title", "(untitled)")
    click.echo(f"example document: {title}")
    click.echo(f"valid: {result['ok']}  findings: {len(result['findings'])}")
    for kind, n in sorted(kinds.items()):
        click.echo(f"  {kind:<10} {n}")
    _print_findings(result["findings"])


@main.command("mcp")
def mcp_command() -> None:
    """Serve every operation as a tool over the tool protocol (MCP) on stdio."""
    from layoutkit.adapters.mcp import run_stdio

    run_stdio(Workspace.open())


if __name__ == "__main__":
    main()
