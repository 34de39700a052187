"""The ``layoutkit`` command line: a thin shell over ``Workspace.call``.

Every command that touches a workspace takes ``--db URL`` (default
``sqlite:///./layoutkit.db``, or the ``LAYOUTKIT_DB`` environment variable), or
``--url`` and ``--token`` to run on a server instead (``cli_remote``), with the
same output. ``--json`` prints machine output; otherwise results are readable
lines and tables. Exit codes: 0 ok, 1 findings or a refused operation, 2 usage
errors. On the local database the command line acts as the workspace owner.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import json
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from layoutkit import __version__
from layoutkit.adapters import cli_admin, cli_remote
from layoutkit.adapters.cli_admin import run_in, workspace_option
from layoutkit.errors import EngineError, ServiceError
from layoutkit.files import MAX_FILE_BYTES, guess_mime
from layoutkit.limits import json_loads

if TYPE_CHECKING:
    from layoutkit.meaning import Embedder
    from layoutkit.service import Workspace

# Only click, the standard library and a few small modules load at start: the
# engines load inside the commands that use them, so `layoutkit --help`, and
# commands run on a server (--url), start in a fraction of a second.

EXIT_REFUSED = 1
DEFAULT_DB = "sqlite:///./layoutkit.db"
#: on/off: whether link cards are fetched. Servers (serve, mcp) fetch unless told
#: not to; one-shot commands do not (the process would end before the fetch).
FETCH_ENV = "LAYOUTKIT_FETCH"
#: The capture sidecar: an http(s) URL of a screenshot service, or ``chromium``.
CAPTURE_ENV = "LAYOUTKIT_CAPTURE"
#: How long a one-shot command waits for the link fetches it started.
ONE_SHOT_DRAIN_S = 30.0
#: How long a one-shot command spends sending the webhook deliveries it owes;
#: what is left waits for the next server on the database.
ONE_SHOT_SEND_S = 15.0
#: Names inside a pushed set directory that are the set itself, not its files.
SET_FILES = ("doc.json", "data.json")


def _emit_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False))


def _fail(err: ServiceError, as_json: bool) -> NoReturn:
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
    return _parse_json(text)


def _parse_json(text: str, source: str = "", param_hint: str | None = None) -> Any:
    """``json.loads`` whose failure is a usage error (exit 2) saying where the text broke.

    The value rules of every request apply while parsing (no NaN, no integer
    over 64 bits, no nesting past the parser's depth), so such text is a usage
    error here rather than a crash.
    """
    where = f"{source} is " if source else ""
    try:
        return json_loads(text, json.loads)
    except EngineError as exc:
        raise click.BadParameter(f"{where}refused: {exc.message}", param_hint=param_hint) from exc
    except json.JSONDecodeError as exc:
        raise click.BadParameter(
            f"{where}not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
            param_hint=param_hint,
        ) from exc


def _print_findings(findings: list[dict[str, Any]]) -> None:
    for f in findings:
        line = f"{f['severity']:<7} {f['path'] or '(root)'}  [{f['code']}] {f['message']}"
        click.echo(line)
        if f.get("fix"):
            click.echo(f"        fix: {f['fix']}")


def _table(rows: Sequence[dict[str, Any]], columns: Sequence[tuple[str, str]]) -> None:
    """Print ``rows`` as aligned columns; ``columns`` are (key, heading) pairs."""
    cells = [[_cell(row.get(key)) for key, _ in columns] for row in rows]
    heads = [head for _, head in columns]
    widths = [max([len(h), *(len(r[i]) for r in cells)]) for i, h in enumerate(heads)]
    click.echo("  ".join(h.ljust(w) for h, w in zip(heads, widths, strict=True)).rstrip())
    for r in cells:
        click.echo("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _size(n: int) -> str:
    for unit in ("B", "KiB", "MiB"):
        if n < 1024 or unit == "MiB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


def db_option(func: Callable[..., Any]) -> Callable[..., Any]:
    """``--db``, and ``--url``/``--token`` for running the command on a server."""
    return local_db_option(cli_remote.remote_options(func))


def local_db_option(func: Callable[..., Any]) -> Callable[..., Any]:
    """``--db`` alone, for commands that only work on this machine (the servers)."""
    return click.option(
        "--db",
        envvar="LAYOUTKIT_DB",
        default=DEFAULT_DB,
        show_default=True,
        metavar="URL",
        help="Workspace store: sqlite:///file.db or postgresql://... (env LAYOUTKIT_DB).",
    )(func)


def json_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")(func)


def fetch_setting(flag: bool | None, *, server: bool) -> bool:
    """Whether link cards are fetched: the flag, else ``LAYOUTKIT_FETCH``, else on for servers."""
    if flag is not None:
        return flag
    value = os.environ.get(FETCH_ENV, "").strip().lower()
    if value in ("1", "on", "true", "yes"):
        return True
    if value in ("0", "off", "false", "no"):
        return False
    if value:
        raise click.BadParameter(f"{FETCH_ENV} is on or off, not {value!r}")
    return server


def _unfurler(fetch: bool, capture: str | None) -> Any:
    from layoutkit.net import FetchError, unfurler_for

    try:
        return unfurler_for(fetch, capture)
    except FetchError as err:
        raise click.BadParameter(err.message, param_hint="--capture") from err


def _embedder() -> Embedder | None:
    from layoutkit.meaning import EMBED_ENV, embedder_from_env

    try:
        return embedder_from_env()
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint=EMBED_ENV) from err


def _open(db: str, *, fetch: bool | None = None, capture: str | None = None) -> Workspace:
    from layoutkit.service import Workspace
    from layoutkit.service.road.ai import backend_from_env

    unfurler = _unfurler(fetch_setting(fetch, server=False), capture)
    try:
        # The AI backend and the embedding sidecar are the deployment's: configured by
        # LAYOUTKIT_AI_URL and LAYOUTKIT_EMBED, none by default.
        return Workspace.open(db, unfurler=unfurler, ai=backend_from_env(), embedder=_embedder())
    except ServiceError as err:
        raise click.BadParameter(err.message, param_hint="--db") from err


def _scratch() -> Workspace:
    """An in-memory workspace, for commands that read the contract and store nothing."""
    from layoutkit.service import Workspace

    return Workspace.open()


@contextlib.contextmanager
def _session(db: str, workspace: str | None = None) -> Iterator[Any]:
    """What runs this command's operations: a client of the server named by --url,
    else the workspace at ``db`` (both answer ``.call(op, params)``). ``workspace``
    names another workspace of the deployment than its own (--workspace)."""
    remote = cli_remote.target()
    if remote is not None:
        with cli_remote.client(*remote, workspace=workspace) as client:
            yield client
        return
    ws = _open(db)
    try:
        there = ws if workspace is None else ws.at(workspace)
        if there is None:
            raise ServiceError(
                404, "unknown_workspace", f"no workspace {workspace!r}", field="workspace"
            )
        yield there
    finally:
        _finish_local(ws)


def _finish_local(ws: Workspace) -> None:
    """Close a one-shot command's workspace once its after-work is done: link fetches
    it started land (each is capped at a few seconds; any still queued after the
    wait say so on their card), then the webhook deliveries its writes owed are
    sent, as no server may be running to send them."""
    from layoutkit.service.workspaces.webhooks import Dispatcher

    try:
        ws.jobs.drain(ONE_SHOT_DRAIN_S)
        ws.extension(Dispatcher).send_owed_here(ONE_SHOT_SEND_S)
    finally:
        ws.close()


def _run(
    db: str, op: str, params: dict[str, Any], as_json: bool, workspace: str | None = None
) -> dict[str, Any]:
    """Run ``op`` on the server or the database; a refusal prints and exits 1."""
    try:
        with _session(db, workspace) as session:
            return session.call(op, params)
    except ServiceError as err:
        _fail(err, as_json)


def _run_upload(
    db: str, op: str, params: dict[str, Any], files: list[tuple[str, bytes, str]], as_json: bool
) -> dict[str, Any]:
    """An upload (``upload_files`` or ``attach_task_files``) of ``files`` with ``params``:
    on a server as multipart/form-data through the client's helpers (raw bytes, so
    files up to the upload limit fit where base64 in a JSON body would pass its
    8 MiB); here as the operation's base64 entries."""
    remote = cli_remote.target()
    if remote is None:
        return _run(db, op, {**params, "files": _encoded(files)}, as_json)
    rest = dict(params)
    try:
        with cli_remote.client(*remote) as client:
            if op == "upload_files":
                return client.upload_files(rest.pop("board"), files, **rest)
            return client.upload_task_files(rest.pop("id"), files, **rest)
    except ServiceError as err:
        _fail(err, as_json)


def fetch_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """``--fetch/--no-fetch`` and ``--capture`` for the commands that serve."""
    func = click.option(
        "--capture",
        envvar=CAPTURE_ENV,
        metavar="URL|chromium",
        help="Capture sidecar for link screenshots: a screenshot service URL, or "
        "'chromium' for a local headless Chromium (env LAYOUTKIT_CAPTURE). None by default.",
    )(func)
    return click.option(
        "--fetch/--no-fetch",
        default=None,
        help="Fetch link cards (title, icon, frameability) from public addresses. On by "
        "default for servers; env LAYOUTKIT_FETCH=on|off.",
    )(func)


def _read_files(
    paths: Iterable[tuple[str, Path]], label: str, as_json: bool
) -> list[tuple[str, bytes, str]]:
    """Read files as ``(name, bytes, mime)``, with a per-file progress bar on stderr; a
    file over the upload limit is refused before anything is sent."""
    items = list(paths)
    out: list[tuple[str, bytes, str]] = []
    with click.progressbar(
        items,
        label=label,
        file=sys.stderr,
        item_show_func=lambda item: item[0] if item else None,
        show_pos=True,
    ) as bar:
        for name, path in bar:
            size = path.stat().st_size
            if size > MAX_FILE_BYTES:
                _fail(
                    ServiceError(
                        413,
                        "payload_too_large",
                        f"{name} is {_size(size)}; files are at most {_size(MAX_FILE_BYTES)}",
                    ),
                    as_json,
                )
            out.append((name, path.read_bytes(), guess_mime(name)))
    return out


def _encoded(files: list[tuple[str, bytes, str]]) -> list[dict[str, Any]]:
    """Files as the ``{name, data, mime}`` entries operations take (base64 data)."""
    return [
        {"name": name, "data": base64.b64encode(data).decode("ascii"), "mime": mime}
        for name, data, mime in files
    ]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version=__version__, prog_name="layoutkit")
def main() -> None:
    """layoutkit: validate, lay out, render and store boards and documents."""


# ---------------------------------------------------------------- contract


@main.command()
@click.argument("file", type=click.File("r", encoding="utf-8"))
@click.option(
    "--card", is_flag=True, help="Check FILE as a board card instead of a document element."
)
@json_option
def validate(file: Any, card: bool, as_json: bool) -> None:
    """Check a document element (or a board card) in FILE against the content contract.

    FILE may be - for standard input. Exits 1 when there is any error finding.
    """
    # A file that is not JSON is a usage error (exit 2), like a missing one: the
    # contract was never consulted, so there are no findings to exit 1 with.
    try:
        text = file.read()
    except UnicodeDecodeError as exc:
        raise click.BadParameter(
            f"{file.name} is not UTF-8 text: {exc.reason}", param_hint="FILE"
        ) from exc
    value = _parse_json(text, file.name, "FILE")
    ws = _scratch()
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
@json_option
def docs(topic: str | None, as_json: bool) -> None:
    """Read the content contract: the topic index, or one TOPIC."""
    ws = _scratch()
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


# ---------------------------------------------------------------- any operation


@main.command()
@click.argument("operation")
@click.argument("params", required=False, default="{}")
@db_option
@click.option("--json", "as_json", is_flag=True, help="Accepted for symmetry; output is JSON.")
def call(operation: str, params: str, db: str, as_json: bool) -> None:
    """Run any registered OPERATION with PARAMS (JSON text, @file or -) and print the JSON result."""
    value = _read_json_arg(params)
    _emit_json(_run(db, operation, value, True))


@main.command()
@click.argument("text", nargs=-1, required=True)
@click.option("--resolve", is_flag=True, help="Read TEXT as one reference and give a verdict.")
@click.option("--limit", type=click.IntRange(1, 50), help="At most this many hits per group.")
@db_option
@json_option
def search(text: tuple[str, ...], resolve: bool, limit: int | None, db: str, as_json: bool) -> None:
    """Search every group of the workspace for TEXT (every word must occur; misspelt
    words are tried as their nearest workspace words), or resolve it with --resolve."""
    params: dict[str, Any] = {"q": " ".join(text)}
    if resolve:
        params["mode"] = "resolve"
    if limit is not None:
        params["limit"] = limit
    result = _run(db, "search", params, as_json)
    if as_json:
        _emit_json(result)
    elif resolve:
        _print_verdict(result)
    else:
        _print_hits(result)


#: Widest title and snippet the search table shows; --json has the whole of them.
_TITLE_CELL = 48
_SNIPPET_CELL = 60


def _clip(text: str | None, width: int) -> str:
    text = text or ""
    return text if len(text) <= width else text[: width - 1] + "…"


def _print_hits(result: dict[str, Any]) -> None:
    fixes = ", ".join(f"{c['from']} → {c['to']}" for c in result.get("corrections", []))
    if fixes:
        click.echo(f"also searched: {fixes}")
    rows = []
    for group, hits in result["groups"].items():
        for hit in hits:
            note = "pinned" if hit.get("pinned") else "corrected" if hit.get("corrected") else ""
            rows.append(
                {
                    "group": group,
                    "title": _clip(hit.get("title"), _TITLE_CELL),
                    "board": hit.get("board"),
                    "match": _clip(hit.get("snippet"), _SNIPPET_CELL),
                    "note": note,
                    "url": hit.get("url"),
                }
            )
    if not rows:
        click.echo("no hits")
        return
    _table(
        rows,
        [
            ("group", "GROUP"),
            ("title", "TITLE"),
            ("board", "BOARD"),
            ("match", "MATCH"),
            ("note", "NOTE"),
            ("url", "URL"),
        ],
    )


def _print_verdict(result: dict[str, Any]) -> None:
    """A resolve answer for a person: the verdict, the candidates, what was let go, what next."""
    click.echo(f"verdict: {result['verdict']}")
    if result["candidates"]:
        _table(
            result["candidates"],
            [
                ("id", "ID"),
                ("key", "KEY"),
                ("type", "TYPE"),
                ("status", "STATUS"),
                ("title", "TITLE"),
                ("why", "WHY"),
            ],
        )
    for relaxed in result["interpreted"].get("relaxed", []):
        click.echo(f"relaxed: {relaxed['word']} ({relaxed['why']}; {relaxed['as']})")
    for label in ("missing", "outside"):
        if result[label]:
            click.echo(f"{label}: {', '.join(str(i) for i in result[label])}")
    step = result["next"]
    click.echo(f"next: {step['operation']} {json.dumps(step['params'], ensure_ascii=False)}")


# ---------------------------------------------------------------- boards


@main.group()
def board() -> None:
    """Put files and document sets on a board; draw, export and import it; share it and
    revoke its links."""


@board.command("upload")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--board", "slug", required=True, help="Target board slug.")
@click.option("--section", help="Land inside this section frame (created on demand).")
@click.option("--anchor", type=int, help="Card id to place the files next to.")
@click.option("--side", type=click.Choice(["right", "below"]), help="Where next to --anchor.")
@click.option(
    "--create-section", is_flag=True, help="Make a new section even if a name nearly matches."
)
@click.option("--request-key", help="Idempotency key: a retry returns the first receipt.")
@db_option
@json_option
def upload(
    files: tuple[str, ...],
    slug: str,
    section: str | None,
    anchor: int | None,
    side: str | None,
    create_section: bool,
    request_key: str | None,
    db: str,
    as_json: bool,
) -> None:
    """Upload FILES to a board: images become media cards, PDFs A4 file cards, others chips."""
    if side is not None and anchor is None:
        raise click.UsageError("--side needs --anchor")
    read = _read_files(((Path(f).name, Path(f)) for f in files), "reading", as_json)
    params: dict[str, Any] = {"board": slug}
    for key, value in (("section", section), ("anchor", anchor), ("side", side)):
        if value is not None:
            params[key] = value
    if create_section:
        params["createSection"] = True
    if request_key:
        params["requestKey"] = request_key
    result = _run_upload(db, "upload_files", params, read, as_json)
    if as_json:
        _emit_json(result)
        return
    placed = {c["id"]: c for c in result["cards"]}
    rows = [
        {
            **f,
            "size": _size(f["size"]),
            "box": "{w:g}x{h:g} at {x:g},{y:g}".format(**placed[f["card"]]),
            "placedAs": placed[f["card"]]["placedAs"],
            "detail": f"{f['natW']}x{f['natH']} px"
            if "natW" in f
            else (f"{f['pages']} pages" if "pages" in f else f["mime"]),
        }
        for f in result["files"]
    ]
    _table(
        rows,
        [
            ("name", "FILE"),
            ("kind", "KIND"),
            ("card", "CARD"),
            ("size", "SIZE"),
            ("detail", "DETAIL"),
            ("box", "BOX"),
            ("placedAs", "PLACED AS"),
        ],
    )
    click.echo(f"{len(rows)} file(s) on board {result['board']}")


@board.command("render")
@click.argument("slug")
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(dir_okay=False, writable=True),
    help="File to write, .png or .svg; PNG tiles go beside it as NAME-tile-N.png.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["png", "svg"]),
    help="png or svg [default: the --out file's extension, else png].",
)
@click.option("--scale", type=float, help="PNG pixels per board pixel (1 reads like the board).")
@click.option("--section", help="Draw only this section frame.")
@click.option("--region", metavar="X,Y,W,H", help="Draw only this window (board pixels).")
@db_option
@json_option
def render_command(
    slug: str,
    out: str,
    fmt: str | None,
    scale: float | None,
    section: str | None,
    region: str | None,
    db: str,
    as_json: bool,
) -> None:
    """Draw board SLUG as PNG or SVG: the picture, and readable PNG tiles when it is large."""
    target = Path(out)
    _write_picture(slug, target, _render_format(target, fmt), scale, section, region, db, as_json)


def _write_picture(
    slug: str,
    target: Path,
    fmt: str,
    scale: float | None,
    section: str | None,
    region: str | None,
    db: str,
    as_json: bool,
    op: str = "render_board",
    extra: dict[str, Any] | None = None,
) -> None:
    """render_board's picture of ``slug`` written to ``target`` (tiles beside it); ``op``
    export_board draws the same picture (it takes no region), ``extra`` its other params."""
    params: dict[str, Any] = {"board": slug, "format": fmt, **(extra or {})}
    if scale is not None:
        params["scale"] = scale
    if section is not None:
        params["section"] = section
    if region is not None:
        try:
            x, y, w, h = (float(v) for v in region.split(","))
        except ValueError as exc:
            raise click.BadParameter("give X,Y,W,H as four numbers", param_hint="--region") from exc
        params["region"] = {"x": x, "y": y, "w": w, "h": h}
    result = _run(db, op, params, as_json)
    written = [target]
    if fmt == "svg":
        target.write_text(result["svg" if op == "render_board" else "document"], encoding="utf-8")
    else:
        target.write_bytes(base64.b64decode(result["image"]["data"]))
    for i, tile in enumerate(result.get("tiles", ()), start=1):
        path = target.with_name(f"{target.stem}-tile-{i}{target.suffix or '.png'}")
        path.write_bytes(base64.b64decode(tile["data"]))
        written.append(path)
    if as_json:
        files = [str(p) for p in written]
        shown = {k: v for k, v in result.items() if k not in ("image", "tiles", "svg", "document")}
        _emit_json(shown | {"files": files})
        return
    if fmt == "svg":
        extent = result["extent"]
        click.echo(
            f"{target}: SVG of {result['cards']} cards, {extent['w']:g}x{extent['h']:g} board px"
        )
        return
    image = result["image"]
    click.echo(f"{target}: {image['width']}x{image['height']} px at scale {image['scale']:g}")
    for path, tile in zip(written[1:], result.get("tiles", ()), strict=True):
        r = tile["region"]
        click.echo(f"{path}: board x {r['x']:g}, y {r['y']:g}, w {r['w']:g}, h {r['h']:g}")
    if result.get("moreTiles"):
        click.echo(f"{len(result['moreTiles'])} more tiles not drawn: ask for them with --region")


#: What ``board export --format`` writes: a picture or a file (all through export_board).
PICTURE_FORMATS = ("png", "svg")
FILE_FORMATS = ("canvas", "excalidraw")
_EXTENSIONS = {
    ".png": "png",
    ".svg": "svg",
    ".pdf": "pdf",
    ".canvas": "canvas",
    ".excalidraw": "excalidraw",
    ".mmd": "mermaid",
}


@board.command("export")
@click.argument("slug")
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(dir_okay=False, writable=True),
    help="File to write. A canvas's files go beside it under files/; a .zip holds both.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice([*FILE_FORMATS, "mermaid", "pdf", *PICTURE_FORMATS]),
    help="canvas (JSON Canvas 1.0), excalidraw, mermaid (one diagram card as .mmd text), "
    "pdf, png or svg [default: from --out's extension].",
)
@click.option("--section", help="Export only this section frame.")
@click.option(
    "--card",
    "cards",
    type=int,
    multiple=True,
    help="Export only these card ids (mermaid: the one diagram card to write; pdf: one "
    "doc card prints as a document, several cards print as a board of just them).",
)
@click.option("--scale", type=float, help="png: pixels per board pixel.")
@click.option(
    "--pages",
    type=click.Choice(["fit", "tile"]),
    help="pdf: the board on one page (fit, the default) or in numbered pages at print size (tile).",
)
@click.option("--paper", type=click.Choice(["a4", "letter"]), help="pdf: page size [default: a4].")
@db_option
@json_option
def export_command(
    slug: str,
    out: str,
    fmt: str | None,
    section: str | None,
    cards: tuple[int, ...],
    scale: float | None,
    pages: str | None,
    paper: str | None,
    db: str,
    as_json: bool,
) -> None:
    """Export board SLUG as a JSON Canvas, an Excalidraw scene, or a PDF, PNG or SVG
    picture; one of its diagram cards as Mermaid text (--format mermaid --card ID), or
    a doc card as a PDF (--format pdf --card ID)."""
    target = Path(out)
    fmt = fmt or _EXTENSIONS.get(target.suffix.lower())
    if fmt is None:
        raise click.BadParameter(
            f"{target.name} names no format; give --format", param_hint="--format"
        )
    only = {k: v for k, v in (("pages", pages), ("paper", paper)) if v is not None}
    if fmt in PICTURE_FORMATS:
        if cards:
            raise click.BadParameter("pictures take --section, not --card", param_hint="--card")
        _write_picture(
            slug, target, fmt, scale, section, None, db, as_json, op="export_board", extra=only
        )
        return
    params: dict[str, Any] = {"board": slug, "format": fmt, **only}
    if section is not None:
        params["section"] = section
    if scale is not None:
        params["scale"] = scale
    if fmt in ("mermaid", "pdf") and len(cards) == 1:
        params["card"] = cards[0]
    elif cards:
        params["cards"] = list(cards)
    result = _run(db, "export_board", params, as_json)
    if fmt == "pdf":
        _write_pdf(target, result, as_json)
    elif fmt == "mermaid":
        _write_mermaid(target, result, as_json)
    else:
        _write_board_file(target, result, as_json)


def _write_mermaid(target: Path, result: dict[str, Any], as_json: bool) -> None:
    target.write_text(result["document"], encoding="utf-8")
    if as_json:
        shown = {k: v for k, v in result.items() if k != "document"}
        _emit_json(shown | {"files": [str(target)]})
        return
    click.echo(
        f"{target}: Mermaid {result['family']} of card {result['card']}, "
        f"{result['nodes']} nodes and {result['edges']} edges"
    )


def _write_board_file(target: Path, result: dict[str, Any], as_json: bool) -> None:
    """A canvas or scene written to ``target``, a canvas's files beside it (or all in
    one zip when ``target`` is a .zip)."""
    written = [target]
    if target.suffix.lower() == ".zip":
        from layoutkit.service.pictures.travel import export_zip

        target.write_bytes(export_zip(result))
    else:
        target.write_text(
            json.dumps(result["document"], indent=2, ensure_ascii=False), encoding="utf-8"
        )
        for f in result["files"]:
            path = target.parent / f["path"]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(base64.b64decode(f["data"]))
            written.append(path)
    if as_json:
        shown = {k: v for k, v in result.items() if k not in ("document", "files")}
        _emit_json(shown | {"files": [str(p) for p in written]})
        return
    click.echo(
        f"{target}: {result['format']} of {result['cards']} cards and {result['edges']} wires"
        + (f", {len(written) - 1} file(s) beside it" if len(written) > 1 else "")
    )


def _write_pdf(target: Path, result: dict[str, Any], as_json: bool) -> None:
    target.write_bytes(base64.b64decode(result["data"]))
    if as_json:
        shown = {k: v for k, v in result.items() if k != "data"}
        _emit_json(shown | {"files": [str(target)]})
        return
    what = f"doc card {result['card']}" if "card" in result else f"{result['cards']} cards"
    how = f", {result['paging']}" if "paging" in result else ""
    click.echo(
        f"{target}: PDF of {what}, {result['pages']} page(s) on {result['paper']}{how}, "
        f"{result['size']} bytes"
    )


@board.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--board", "slug", required=True, help="Board to draw the file onto.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FILE_FORMATS),
    help="canvas or excalidraw [default: read from the file].",
)
@click.option("--auto", "auto", is_flag=True, help="Let the engine place everything afresh.")
@click.option("--request-key", help="Idempotency key: a retry returns the first receipt.")
@db_option
@json_option
def import_command(
    file: str,
    slug: str,
    fmt: str | None,
    auto: bool,
    request_key: str | None,
    db: str,
    as_json: bool,
) -> None:
    """Import FILE (a .canvas, an .excalidraw scene, or a zip of a canvas and its files)."""
    from layoutkit.service.pictures.travel import read_bundle

    source = Path(file)
    try:
        document, files = read_bundle(source.read_bytes())
    except ServiceError as err:
        _fail(err, as_json)
    if not files and isinstance(document, dict):
        files = _files_beside(source, document)
    params: dict[str, Any] = {"board": slug, "document": document}
    if files:
        params["files"] = files
    if fmt is not None:
        params["format"] = fmt
    if auto:
        params["layout"] = "auto"
    if request_key:
        params["requestKey"] = request_key
    result = _run(db, "import_board", params, as_json)
    if as_json:
        _emit_json(result)
        return
    click.echo(
        f"{len(result['cards'])} card(s) and {len(result['edges'])} wire(s) from {source.name} "
        f"({result['format']}) on board {result['board']}"
    )
    for line in result.get("skipped", ()):
        click.echo(f"skipped: {line}")


def _files_beside(source: Path, document: dict[str, Any]) -> dict[str, str]:
    """The files a canvas's file nodes name that lie beside it (as an export writes them)."""
    found: dict[str, str] = {}
    nodes = document.get("nodes")
    for node in nodes if isinstance(nodes, list) else ():
        name = node.get("file") if isinstance(node, dict) else None
        if not isinstance(name, str) or name in found:
            continue
        path = (source.parent / name).resolve()
        if path.is_relative_to(source.parent.resolve()) and path.is_file():
            found[name] = base64.b64encode(path.read_bytes()).decode("ascii")
    return found


def _render_format(target: Path, asked: str | None) -> str:
    """The picture's format: ``--format`` or the file's extension (.png, .svg), PNG for
    any other; an extension that names the other format is refused, not overwritten
    with bytes its name does not promise."""
    named = {".png": "png", ".svg": "svg"}.get(target.suffix.lower())
    if asked is not None and named is not None and asked != named:
        raise click.BadParameter(
            f"{target.name} names {named.upper()} but --format is {asked}; "
            f"change the extension or the format",
            param_hint="--format",
        )
    return asked or named or "png"


# ---------------------------------------------------------------- tasks


@main.group()
def task() -> None:
    """Attach files to tasks, compose briefs, and pick tasks up."""


@task.command("upload")
@click.argument("task_id", metavar="ID")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--kind",
    default="file",
    show_default=True,
    help="Document kind of the files (file, plan, brief, notes, ...).",
)
@click.option("--hint", help="One line saying when to load the files (meta.hint).")
@click.option(
    "--load", type=click.Choice(["first", "on-demand", "never"]), help="When readers load them."
)
@click.option("--version-of", help="Continue this lineage (one file only).")
@click.option("--request-key", help="Idempotency key: a retry returns the first receipt.")
@db_option
@json_option
def task_upload(
    task_id: str,
    files: tuple[str, ...],
    kind: str,
    hint: str | None,
    load: str | None,
    version_of: str | None,
    request_key: str | None,
    db: str,
    as_json: bool,
) -> None:
    """Attach FILES to task ID; a file named like one it has becomes its next version.

    Text files (.md .txt .json …) are read by agents; any other file (a screenshot,
    a PDF) is kept as it is, as a file ref."""
    read = _read_files(((Path(f).name, Path(f)) for f in files), "reading", as_json)
    params: dict[str, Any] = {"id": task_id, "kind": kind}
    for key, value in (
        ("hint", hint),
        ("load", load),
        ("versionOf", version_of),
        ("requestKey", request_key),
    ):
        if value is not None:
            params[key] = value
    result = _run_upload(db, "attach_task_files", params, read, as_json)
    if as_json:
        _emit_json(result)
        return
    rows = [{**u, "size": _size(u["size"])} for u in result["uploaded"]]
    _table(
        rows,
        [
            ("filename", "FILE"),
            ("kind", "KIND"),
            ("ref", "REF"),
            ("version", "VERSION"),
            ("size", "SIZE"),
            ("tokens", "TOKENS"),
        ],
    )
    click.echo(f"{len(rows)} file(s) on task {result['task']['id']}")


@task.command("brief")
@click.argument("task_id", metavar="ID")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, writable=True),
    help="Write the brief skeleton to this file instead of printing it.",
)
@db_option
@json_option
def task_brief(task_id: str, out: str | None, db: str, as_json: bool) -> None:
    """Compose the brief of epic ID: rebuild the Plan chapter on its brainstorm board and
    print (or write) the brief skeleton to complete."""
    result = _run(db, "compose_brief", {"id": task_id}, as_json)
    if out is not None:
        Path(out).write_text(result["skeleton"], encoding="utf-8")
    if as_json:
        _emit_json(result)
        return
    chapter, brief = result["chapter"], result["brief"]
    if out is None:
        click.echo(result["skeleton"], nl=False)
        return
    click.echo(f"{out}: the brief skeleton of task {result['task']['id']}")
    click.echo(
        f"board {result['board']}: chapter {chapter['title']} (section {chapter['section']}), "
        f"{chapter['decisions']} decision(s), {chapter['open']} open"
    )
    stored = "uploaded as" if brief["uploaded"] else "already at"
    click.echo(
        f"brief {brief['ref']} {stored} version {brief['version']}; upload the completed "
        f"file with: layoutkit task upload {result['task']['id']} {brief['filename']} "
        "--kind brief"
    )


@task.command("pickup")
@click.argument("task_id", metavar="ID")
@click.option("--cap", type=int, help="Refs without a load stamp the rail shows (default 5).")
@db_option
@json_option
def task_pickup(task_id: str, cap: int | None, db: str, as_json: bool) -> None:
    """Print what to read when picking up task ID: the read rail and read-on-demand lines."""
    params: dict[str, Any] = {"id": task_id}
    if cap is not None:
        params["cap"] = cap
    result = _run(db, "pickup_task", params, as_json)
    if as_json:
        _emit_json(result)
        return
    click.echo(result["text"], nl=False)


def _set_contents(path: Path) -> tuple[Path, Path | None, list[tuple[str, Path]]]:
    """doc.json, optional data.json and the files of a set directory (or of doc.json's folder).

    Files are images (by name) and any other file whose relative name the doc
    or data.json mentions; hidden files are skipped.
    """
    if path.is_dir():
        folder, doc = path, path / "doc.json"
        if not doc.is_file():
            raise click.BadParameter(f"{path} holds no doc.json", param_hint="PATH")
    else:
        folder, doc = path.parent, path
    data = folder / "data.json"
    mentioned = doc.read_text(encoding="utf-8", errors="replace")
    if data.is_file():
        mentioned += data.read_text(encoding="utf-8", errors="replace")
    files = []
    for item in sorted(folder.rglob("*")):
        rel = item.relative_to(folder).as_posix()
        if not item.is_file() or any(part.startswith(".") for part in rel.split("/")):
            continue
        if item == doc or rel in SET_FILES:
            continue
        if guess_mime(rel).startswith("image/") or f'"{rel}"' in mentioned:
            files.append((rel, item))
    return doc, (data if data.is_file() else None), files


def _load_json_file(path: Path, what: str) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise click.BadParameter(
            f"cannot read {what} {path.name}: {exc}", param_hint="PATH"
        ) from exc
    return _parse_json(text, f"{what} {path.name}", "PATH")


@board.command("push")
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option("--board", "slug", required=True, help="Target board slug.")
@click.option("--branch", default="main", show_default=True, help="Set branch to version on.")
@click.option("--section", help="Land inside this section frame (created on demand).")
@click.option("--request-key", help="Idempotency key: a retry returns the first receipt.")
@db_option
@json_option
def push(
    path: Path,
    slug: str,
    branch: str,
    section: str | None,
    request_key: str | None,
    db: str,
    as_json: bool,
) -> None:
    """Push a document set (a directory with doc.json, or a doc.json) onto a board.

    The directory may hold data.json (its shots) and image files; the doc card
    takes the next free version on --branch.
    """
    doc_path, data_path, files = _set_contents(path)
    doc = _load_json_file(doc_path, "doc")
    params: dict[str, Any] = {"board": slug, "doc": doc, "branch": branch}
    if data_path is not None:
        data = _load_json_file(data_path, "data")
        shots = data.get("shots") if isinstance(data, dict) else data
        if shots:
            params["shots"] = shots
    if files:
        params["files"] = _encoded(_read_files(files, "reading set", as_json))
    if section:
        params["section"] = section
    if request_key:
        params["requestKey"] = request_key
    result = _run(db, "push_doc", params, as_json)
    if as_json:
        _emit_json(result)
        return
    previous = f" (previous: card {result['previous']})" if result.get("previous") else ""
    click.echo(
        f"pushed {result['branch']} v{result['version']} to board {result['board']}: "
        f"card {result['card']} {result['w']:g}x{result['h']:g} at "
        f"{result['x']:g},{result['y']:g}{previous}"
    )
    if result["files"]:
        _table(
            [{**f, "size": _size(f["size"])} for f in result["files"]],
            [("name", "FILE"), ("size", "SIZE"), ("ref", "BLOB")],
        )
    click.echo(f"shots: {result['shots']}  links expanded: {result['linksExpanded']}")
    for w in result.get("warnings") or []:
        click.echo(f"warning {w.get('path', '')}  [{w.get('code')}] {w.get('message')}")


@board.command("share")
@click.argument("slug")
@click.option("--mode", type=click.Choice(["view", "annotate"]), default="view", show_default=True)
@click.option("--card", type=int, default=None, help="The card the link opens on.")
@db_option
@json_option
def board_share(slug: str, mode: str, card: int | None, db: str, as_json: bool) -> None:
    """Mint a share link for board SLUG and print its id and URL (the URL is the credential)."""
    params: dict[str, Any] = {"board": slug, "mode": mode}
    if card is not None:
        params["cardId"] = card
    result = _run(db, "share_board", params, as_json)
    if as_json:
        _emit_json(result)
    else:
        click.echo(f"{result['id']}  {result['mode']}  {result['url']}")


@board.command("links")
@click.argument("slug")
@db_option
@json_option
def board_links(slug: str, db: str, as_json: bool) -> None:
    """List the share links of board SLUG (revoked ones too); never the URLs themselves."""
    result = _run(db, "list_share_links", {"board": slug}, as_json)
    if as_json:
        _emit_json(result)
    elif not result["links"]:
        click.echo("no share links")
    else:
        _table(
            [{**r, "revoked": r["revoked"] or "-"} for r in result["links"]],
            [("id", "ID"), ("mode", "MODE"), ("created", "CREATED"), ("revoked", "REVOKED")],
        )


@board.command("unshare")
@click.argument("slug")
@click.argument("link_id", metavar="LINK_ID")
@db_option
@json_option
def board_unshare(slug: str, link_id: str, db: str, as_json: bool) -> None:
    """Revoke share link LINK_ID of board SLUG; its URL stops working at once."""
    result = _run(db, "revoke_share_link", {"board": slug, "id": link_id}, as_json)
    if as_json:
        _emit_json(result)
    else:
        click.echo(f"revoked share link {result['link']['id']} of {result['board']}")


def _pair(text: str, what: str) -> tuple[float, float]:
    try:
        a, b = (float(v) for v in text.split(","))
    except ValueError:
        raise click.BadParameter(f"{what} is two numbers: A,B (not {text!r})") from None
    return a, b


@board.command("comment")
@click.argument("slug")
@click.argument("text")
@click.option("--at", "at", default=None, metavar="X,Y", help="A point of the board.")
@click.option("--card", type=int, default=None, help="The card the comment is on.")
@click.option(
    "--region", default=None, metavar="NX,NY", help="Where on the card, in fractions of its box."
)
@db_option
@json_option
def board_comment(
    slug: str,
    text: str,
    at: str | None,
    card: int | None,
    region: str | None,
    db: str,
    as_json: bool,
) -> None:
    """Pin a comment thread with TEXT on board SLUG: --at X,Y or --card ID (--region NX,NY)."""
    params: dict[str, Any] = {"board": slug, "text": text}
    if at is not None:
        x, y = _pair(at, "--at")
        params["at"] = {"x": x, "y": y}
    if card is not None:
        params["cardId"] = card
    if region is not None:
        nx, ny = _pair(region, "--region")
        params["region"] = {"nx": nx, "ny": ny}
    result = _run(db, "add_comment", params, as_json)
    if as_json:
        _emit_json(result)
    else:
        click.echo(f"comment {result['id']} on {result['board']}: {result['url']}")


@board.command("comments")
@click.argument("slug")
@click.option("--all", "everything", is_flag=True, help="Resolved threads too.")
@db_option
@json_option
def board_comments(slug: str, everything: bool, db: str, as_json: bool) -> None:
    """List the open comment threads of board SLUG (--all: resolved ones too)."""
    states = ["open", "resolved"] if everything else ["open"]
    result = _run(db, "get", {"kind": "comments", "board": slug, "states": states}, as_json)
    if as_json:
        _emit_json(result)
    elif not result["comments"]:
        click.echo("no comments")
    else:
        _table(
            [
                {
                    **c,
                    "where": f"card {c['cardId']}"
                    if c["cardId"] is not None
                    else f"{c['at']['x']:g},{c['at']['y']:g}",
                    "replies": len([r for r in c["replies"] if not r.get("deleted")]),
                }
                for c in result["comments"]
            ],
            [
                ("id", "ID"),
                ("state", "STATE"),
                ("where", "WHERE"),
                ("author", "AUTHOR"),
                ("replies", "REPLIES"),
                ("text", "TEXT"),
            ],
        )


# ---------------------------------------------------------------- tokens


@main.group()
def token() -> None:
    """API tokens for the HTTP API and the tool protocol."""


@token.command("create")
@click.argument("name")
@click.option(
    "--kind",
    type=click.Choice(["owner", "user", "agent", "service"]),
    required=True,
    help="Who the token stands for; an agent token's name is its runtime.",
)
@click.option(
    "--role",
    type=click.Choice(["owner", "admin", "member"]),
    help="Its role in the workspace (default: owner for an owner token, member otherwise).",
)
@workspace_option
@db_option
@json_option
def token_create(
    name: str, kind: str, role: str | None, workspace: str | None, db: str, as_json: bool
) -> None:
    """Mint a token called NAME, a member of the workspace, and print it once (only its
    hash is kept)."""
    params = {"kind": kind, "name": name} | ({} if role is None else {"role": role})
    plain = run_in(db, workspace, "create_token", params, as_json)["token"]
    if as_json:
        _emit_json({"kind": kind, "name": name, "token": plain})
    else:
        click.echo(plain)
        click.echo(f"{kind} token {name!r}: shown once, keep it private", err=True)


@token.command("list")
@workspace_option
@db_option
@json_option
def token_list(workspace: str | None, db: str, as_json: bool) -> None:
    """List the workspace's tokens (its own and its members from elsewhere): id, kind,
    name, created, revoked, purpose and home (the workspace that minted it). Tokens
    themselves are never shown (only their hashes are kept)."""
    rows = run_in(db, workspace, "list_tokens", {}, as_json)["tokens"]
    if as_json:
        _emit_json({"tokens": rows})
        return
    if not rows:
        click.echo("no tokens")
        return
    _table(
        [
            {
                **r,
                "revoked": r["revoked"] or "-",
                "purpose": r["purpose"] or "-",
                "home": r["home"] or "-",
            }
            for r in rows
        ],
        [
            ("id", "ID"),
            ("kind", "KIND"),
            ("name", "NAME"),
            ("created", "CREATED"),
            ("revoked", "REVOKED"),
            ("purpose", "PURPOSE"),
            ("home", "HOME"),
        ],
    )


@token.command("revoke")
@click.argument("ref", metavar="ID_OR_NAME")
@workspace_option
@db_option
@json_option
def token_revoke(ref: str, workspace: str | None, db: str, as_json: bool) -> None:
    """Revoke the live token with this id or name; it stops authenticating at once.

    A token minted by another workspace is not revoked: it stops being a member of this
    one and keeps working in its home. A name several live tokens share is refused:
    revoke by id (see 'token list').
    """
    revoked = run_in(db, workspace, "revoke_token", {"token": ref}, as_json)
    if as_json:
        _emit_json(revoked)
    elif revoked["membershipEnded"]:
        click.echo(
            f"ended the membership of {revoked['kind']} token {revoked['id']} "
            f"{revoked['name']!r} (its home {revoked['home']!r} keeps it)"
        )
    else:
        click.echo(f"revoked {revoked['kind']} token {revoked['id']} {revoked['name']!r}")


# ---------------------------------------------------------------- review


@main.group()
def review() -> None:
    """Review rules, the review brief and review plans."""


def _project_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--project", metavar="SLUG", help="Project whose rules apply (else the workspace's)."
    )(func)


def _with_project(params: dict[str, Any], project: str | None) -> dict[str, Any]:
    return {**params, "project": project} if project else params


@review.command("brief")
@_project_option
@click.option("--persona", help="Who the reviewer reviews as (the brief's last line).")
@db_option
@json_option
def review_brief(project: str | None, persona: str | None, db: str, as_json: bool) -> None:
    """Print the review brief: the enabled rules in force as one prompt block."""
    params = _with_project({"persona": persona} if persona else {}, project)
    result = _run(db, "review_brief", params, as_json)
    if as_json:
        _emit_json(result)
    else:
        click.echo(result["brief"], nl=False)


@review.command("plan")
@click.argument("boards", nargs=-1, required=True)
@click.option("--scope", type=click.Choice(["latest", "all"]), help="Capture passes to take.")
@click.option("--section", "sections", multiple=True, help="Only screens of this section.")
@click.option("--full", is_flag=True, help="Judge everything again; reuse nothing.")
@db_option
@json_option
def review_plan(
    boards: tuple[str, ...],
    scope: str | None,
    sections: tuple[str, ...],
    full: bool,
    db: str,
    as_json: bool,
) -> None:
    """Plan a review run of the screens of BOARDS (slugs of one project)."""
    params: dict[str, Any] = {"boards": list(boards)}
    if scope:
        params["scope"] = scope
    if sections:
        params["sections"] = list(sections)
    if full:
        params["full"] = True
    result = _run(db, "review_plan", params, as_json)
    if as_json:
        _emit_json(result)
        return
    tiles, planned, tokens = result["tiles"], result["planned"], result["tokens"]
    click.echo(
        f"{result['run']}: {result['sheets']} sheets, {tiles['whole']} whole screens and "
        f"{tiles['crop']} crops; {planned['exactDuplicates']} exact duplicates, "
        f"{planned['reused']} reused, {planned['gaps']} gaps; "
        f"about {tokens['plan']:,} image tokens ({tokens['saved']:,} saved)"
    )
    for gap in result["gaps"]:
        click.echo(f"  gap: card {gap['cardId']} on {gap['board']}: {gap['reason']}")


@review.group("rules")
def review_rules() -> None:
    """Review rules in layers: built-in, then the workspace's, then a project's."""


@review_rules.command("list")
@_project_option
@db_option
@json_option
def review_rules_list(project: str | None, db: str, as_json: bool) -> None:
    """List the rules in force with the layer each comes from."""
    result = _run(db, "list_review_rules", _with_project({}, project), as_json)
    if as_json:
        _emit_json(result)
        return
    _table(
        [
            {**r, "platform": "+".join(r["platform"]), "enabled": "yes" if r["enabled"] else "no"}
            for r in result["rules"]
        ],
        [
            ("id", "ID"),
            ("severity", "SEVERITY"),
            ("check", "CHECK"),
            ("platform", "PLATFORM"),
            ("enabled", "ENABLED"),
            ("layer", "LAYER"),
            ("version", "VERSION"),
        ],
    )


@review_rules.command("get")
@click.argument("rule_id", metavar="ID")
@_project_option
@db_option
@json_option
def review_rules_get(rule_id: str, project: str | None, db: str, as_json: bool) -> None:
    """Print the source of rule ID as it is in force (layer and version on stderr)."""
    result = _run(db, "get_review_rule", _with_project({"id": rule_id}, project), as_json)
    if as_json:
        _emit_json(result)
        return
    rule = result["rule"]
    click.echo(f"{rule['id']}: {rule['layer']} layer, version {rule['version']}", err=True)
    click.echo(result["source"], nl=False)


def _print_lint(findings: list[dict[str, Any]], name: str) -> None:
    for f in findings:
        where = f"{name}:{f['line']}" if f.get("line") else name
        fix = " (fixable)" if f["fixable"] else ""
        click.echo(f"{where}: {f['severity']} [{f['code']}] {f['message']}{fix}")


@review_rules.command("lint")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--fix", is_flag=True, help="Repair what can be repaired and rewrite FILE.")
@json_option
def review_rules_lint(file: Path, fix: bool, as_json: bool) -> None:
    """Lint the rule file FILE; exit 1 while it has errors. Needs no workspace.

    A rule file reads (docs/review.md has the whole format):

    \b
        ---
        id: tone
        family: copy
        check: judgment
        severity: medium
        ---

    \b
        Words on the screen are kind and never blame the person.

    \b
        Verify:

    \b
        - error messages say what to do next
        - no exclamation marks in warnings

    The Verify list may also be a "- Verify:" bullet with the checks nested
    under it, bullets that each begin "Verify: ", or one "Verify: check" line.
    """
    raw = file.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise click.BadParameter(f"{file} is not UTF-8 text", param_hint="FILE") from exc
    ws = _scratch()
    try:
        result = ws.call("lint_review_rule", {"source": text, "filename": file.name, "fix": fix})
    except ServiceError as err:
        _fail(err, as_json)
    finally:
        ws.close()
    if fix and result["source"] != text:
        file.write_text(result["source"], encoding="utf-8")
    if as_json:
        _emit_json(result)
    else:
        for f in result["fixed"]:
            click.echo(f"{file}: fixed [{f['code']}] {f['message']}")
        _print_lint(result["findings"], str(file))
        if result["ok"] and not result["findings"]:
            click.echo(f"{file}: ok")
    if not result["ok"]:
        sys.exit(EXIT_REFUSED)


@review_rules.command("put")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@_project_option
@click.option("--workspace", is_flag=True, help="Write the workspace layer, not a project's.")
@db_option
@json_option
def review_rules_put(
    file: Path, project: str | None, workspace: bool, db: str, as_json: bool
) -> None:
    """Store the rule file FILE as the next version at a project's layer (--project) or
    the workspace's (--workspace)."""
    if workspace == bool(project):
        raise click.UsageError("name the layer: --project SLUG or --workspace (one of them)")
    text = file.read_text(encoding="utf-8")
    result = _run(db, "put_review_rule", _with_project({"source": text}, project), as_json)
    if as_json:
        _emit_json(result)
        return
    rule = result["rule"]
    click.echo(f"{rule['id']}: {result['layer']} layer, version {result['version']}")
    _print_lint(result["warnings"], str(file))


# ---------------------------------------------------------------- projects


@main.group()
def project() -> None:
    """Projects: copy, merge or move one into another workspace."""


@project.command("transfer")
@click.argument("slug", metavar="PROJECT")
@click.option("--to", "to", required=True, metavar="WORKSPACE", help="Destination workspace.")
@click.option(
    "--workspace",
    "source",
    default="default",
    show_default=True,
    envvar="LAYOUTKIT_WORKSPACE",
    help="The workspace the project is in (env LAYOUTKIT_WORKSPACE).",
)
@click.option("--dry-run", is_flag=True, help="Report what would happen; write nothing.")
@click.option(
    "--archive-source", is_flag=True, help="After the copy: archive the source's boards and tasks."
)
@click.option("--merge", is_flag=True, help="Append to a destination project of the same slug.")
@db_option
@json_option
def project_transfer(
    slug: str,
    to: str,
    source: str,
    dry_run: bool,
    archive_source: bool,
    merge: bool,
    db: str,
    as_json: bool,
) -> None:
    """Copy PROJECT into workspace --to of the same deployment (a multi-workspace one:
    LAYOUTKIT_MULTI_WORKSPACE=1) and print the report as a table."""
    params = {"project": slug, "to": to, "dryRun": dry_run, "archiveSource": archive_source}
    params["merge"] = merge
    remote = cli_remote.target()
    if remote is None:
        report = _transfer_here(db, source, params, as_json)
    else:
        # On a server the source workspace is chosen per request; the server's own
        # unless --workspace (or LAYOUTKIT_WORKSPACE) names one.
        chosen = click.get_current_context().get_parameter_source("source")
        named = None if chosen is click.core.ParameterSource.DEFAULT else source
        with cli_remote.client(*remote, workspace=named) as client:
            try:
                report = client.call("transfer_project", params)
            except ServiceError as err:
                _fail(err, as_json)
    if as_json:
        _emit_json(report)
        return
    _print_transfer(report)


def _transfer_here(db: str, source: str, params: dict[str, Any], as_json: bool) -> dict[str, Any]:
    """Transfer on the local database, with a progress bar of rows copied."""
    from layoutkit.principal import Principal
    from layoutkit.service import Workspace
    from layoutkit.service.workspaces import transfer

    try:
        ws = Workspace.open(db, name=source)
    except ServiceError as err:
        raise click.BadParameter(err.message, param_hint="--db") from err
    try:
        checked = ws.registry.get("transfer_project").check_params(params)
        with click.progressbar(
            length=max(1, transfer.source_rows(ws, params["project"])),
            label="transferring",
            file=sys.stderr,
        ) as bar:
            return transfer.transfer_project(
                ws, Principal.owner(), checked, progress=lambda _table, n: bar.update(n)
            )
    except ServiceError as err:
        _fail(err, as_json)
    finally:
        _finish_local(ws)


def _print_transfer(report: dict[str, Any]) -> None:
    verb = "would copy" if report["dryRun"] else "copied"
    click.echo(
        f"{report['project']}: {report['from']} -> {report['to']} "
        f"({verb} {report['boardsMoved']} boards)"
    )
    rows = [{"table": name, **tally} for name, tally in report["tables"].items()]
    _table(
        rows,
        [("table", "TABLE"), ("copied", "COPIED"), ("skipped", "SKIPPED"), ("merged", "MERGED")],
    )
    for rename in report["renamed"]:
        click.echo(f"renamed {rename['table']}: {rename['from']} -> {rename['to']}")
    blobs = report["blobs"]
    click.echo(f"blobs: {blobs['count']} ({_size(blobs['bytes'])}), missing {blobs['missing']}")
    click.echo(f"sets: {len(report['sets'])}")
    if report["archived"] or report["trashed"]:
        click.echo(
            f"source: {report['archived']} boards archived, {report['trashed']} tasks trashed"
        )


# ---------------------------------------------------------------- reaching a server

main.add_command(cli_remote.login)
main.add_command(cli_remote.logout)


@main.command()
@db_option
@json_option
def whoami(db: str, as_json: bool) -> None:
    """Say who commands run as, and where: the token's holder on a server (--url),
    the workspace owner on the local database."""
    result = _run(db, "whoami", {}, as_json)
    remote = cli_remote.target()
    where = remote[0] if remote is not None else db
    if as_json:
        _emit_json({**result, "at": where})
    else:
        click.echo(cli_remote.whoami_line(result, where))


#: Methods ``layoutkit api`` sends.
API_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD")


@main.command()
@click.argument("method", type=click.Choice(API_METHODS, case_sensitive=False))
@click.argument("path")
@click.option("--data", "-d", metavar="JSON", help="JSON body: text, @file or - (stdin).")
@click.option("--header", "-H", "headers", multiple=True, metavar="'NAME: VALUE'")
@click.option("--include", "-i", is_flag=True, help="Print the status line and headers too.")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Write the body to this file (a binary body is never printed to a terminal).",
)
@db_option
def api(
    method: str,
    path: str,
    data: str | None,
    headers: tuple[str, ...],
    include: bool,
    out: Path | None,
    db: str,
) -> None:
    """Send METHOD PATH to the server (--url) with the token, or to this machine's
    database as its owner, and print the answer: JSON pretty-printed, text as is.
    Exits 1 when the answer is an error (status 400 or more).

    \b
    layoutkit api GET /api/v1/health
    layoutkit api POST /api/v1/ops/list_boards -d '{}'
    layoutkit api GET /api/v1/boards/welcome/cards/3/image --out card.png
    """
    sent: dict[str, str] = {}
    for line in headers:
        name, colon, value = line.partition(":")
        if not colon or not name.strip():
            raise click.BadParameter(f"{line!r} is not 'Name: value'", param_hint="--header")
        sent[name.strip()] = value.strip()
    body = None if data is None else _read_json_arg(data)
    target = path if path.startswith("/") else "/" + path
    with _api_session(db) as session:
        answer = session.request(method.upper(), target, json=body, headers=sent)
    _print_answer(answer, include, out)
    if answer.status_code >= 400:
        sys.exit(EXIT_REFUSED)


@contextlib.contextmanager
def _api_session(db: str) -> Iterator[Any]:
    """Something with ``request(method, path, json=, headers=)`` answering httpx
    responses: the client of --url, else the API of the local database served in
    this process (no socket), as its owner."""
    remote = cli_remote.target()
    if remote is not None:
        with cli_remote.client(*remote) as client:
            yield client
        return
    from starlette.testclient import TestClient

    from layoutkit.adapters.http import create_app

    ws = _open(db)
    try:
        with TestClient(create_app(ws, require_auth=False, mcp=False)) as local:
            yield local
    finally:
        _finish_local(ws)


def _print_answer(answer: Any, include: bool, out: Path | None) -> None:
    if include:
        click.echo(f"HTTP/1.1 {answer.status_code} {answer.reason_phrase}")
        for name, value in answer.headers.items():
            click.echo(f"{name}: {value}")
        click.echo()
    kind = answer.headers.get("content-type", "")
    if out is not None:
        out.write_bytes(answer.content)
        click.echo(f"{out}: {len(answer.content)} bytes ({kind or 'no type'})", err=True)
    elif kind.startswith("application/json") and answer.content:
        _emit_json(answer.json())
    elif kind.startswith("text/") or not answer.content:
        click.echo(answer.text, nl=False)
    elif sys.stdout.isatty():
        raise click.ClickException(
            f"the answer is {len(answer.content)} bytes of {kind}; write it with --out FILE"
        )
    else:
        sys.stdout.buffer.write(answer.content)
        sys.stdout.buffer.flush()


# ---------------------------------------------------------------- servers


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
@click.option("--example", is_flag=True, help="Compose the example board first (once).")
@click.option(
    "--new-token",
    is_flag=True,
    help="Mint a new owner token for this database and revoke the one serve printed before.",
)
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=None,
    help="Processes that serve requests, sharing the database (see docs/deploy.md); "
    "default: one per core (one for an in-memory database).",
)
@click.option(
    "--public-url",
    envvar="LAYOUTKIT_PUBLIC_URL",
    callback=lambda ctx, param, value: _public_url(value),
    help="The address people reach this server at (http or https; behind a proxy, say): "
    "share links and viewer addresses are made absolute under it. "
    "Default: the address it listens on.",
)
@fetch_options
@local_db_option
def serve(
    host: str,
    port: int,
    example: bool,
    new_token: bool,
    workers: int | None,
    public_url: str | None,
    db: str,
    fetch: bool | None,
    capture: str | None,
) -> None:
    """Serve the HTTP API, the board viewer and MCP over HTTP until interrupted.

    The first start on a database prints an owner token; later starts reuse it
    and do not print it again (only its hash is kept). Lost it? Start with
    --new-token: a fresh one is printed and the old one stops working.

    Link cards are unfurled from public internet addresses in the background;
    --no-fetch (or LAYOUTKIT_FETCH=off) keeps an air-gapped install off the network.

    --workers N serves from N processes that share the database (on SQLite one
    write at a time still holds); the API, the viewer and MCP answer on every one.
    The default is one process per core.
    """
    from layoutkit.adapters._workers import CannotListen
    from layoutkit.adapters.http import run_server

    # A wrong LAYOUTKIT_TOOLSETS (what /mcp offers) stops the server before it starts.
    _toolsets(click.get_current_context(), None, os.environ.get("LAYOUTKIT_TOOLSETS"))
    fetching = fetch_setting(fetch, server=True)
    ws = _open(db, fetch=fetching, capture=capture)
    # Each process of an in-memory database would hold a database of its own.
    private = bool(getattr(ws.store, "memory", False))
    if workers is None:
        workers = 1 if private else os.cpu_count() or 1
    elif workers > 1 and private:
        ws.close()
        raise click.UsageError(
            "an in-memory database cannot be shared by several workers; "
            "serve a SQLite file or PostgreSQL, or pass --workers 1"
        )
    for name in ws.resumable():  # in the background: it reads every board
        ws.jobs.submit(functools.partial(ws.resume, name))
    try:
        run_server(
            ws,
            host=host,
            port=port,
            example=example,
            new_token=new_token,
            echo=click.echo,
            workers=workers,
            db=db,
            fetch=fetching,
            capture=capture,
            public_url=public_url,
        )
    except CannotListen as err:
        # Two servers on one port would split its clients between two databases.
        advice = "; stop it or choose another --port" if err.in_use else ""
        raise click.ClickException(f"{err}{advice}") from err
    finally:
        ws.close()


def _public_url(value: str | None) -> str | None:
    """``--public-url``: an http(s) address with a host, no query or fragment; a
    trailing slash is dropped (paths are joined onto it)."""
    if value is None or value == "":
        return None
    from urllib.parse import urlsplit

    parts = urlsplit(value)
    try:
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError as err:
        raise click.BadParameter(f"{value!r} has a bad port: {err}") from err
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise click.BadParameter(
            f"{value!r} is not an http:// or https:// address with a host, "
            "e.g. https://boards.example.com"
        )
    if parts.query or parts.fragment or "?" in value or "#" in value:
        raise click.BadParameter(f"{value!r} has a query or fragment; give the address alone")
    if parts.username or parts.password:
        raise click.BadParameter(f"{value!r} carries a user name or password; leave them out")
    return value.rstrip("/")


def _toolsets(
    ctx: click.Context, param: click.Parameter | None, value: str | None
) -> frozenset[str]:
    from layoutkit.service.road import toolsets

    try:
        return toolsets.parse(value)
    except ServiceError as err:
        raise click.BadParameter(err.message) from err


@main.command("mcp")
@fetch_options
@local_db_option
@click.option(
    "--toolsets",
    "selected",
    envvar="LAYOUTKIT_TOOLSETS",
    callback=_toolsets,
    help="Comma-separated toolsets to offer (boards, search, documents, review, "
    "annotations, tasks, work, admin), or all; default: boards,search.",
)
def mcp_command(db: str, fetch: bool | None, capture: str | None, selected: frozenset[str]) -> None:
    """Serve the selected toolsets' operations as tools over the tool protocol (MCP) on stdio."""
    from layoutkit.adapters.mcp import run_stdio

    ws = _open(db, fetch=fetch_setting(fetch, server=True), capture=capture)
    for name in ws.resumable():  # in the background: it reads every board
        ws.jobs.submit(functools.partial(ws.resume, name))
    try:
        run_stdio(ws, selected=selected)
    finally:
        ws.close()


# ---------------------------------------------------------------- demo


@main.command()
def demo() -> None:
    """Validate the bundled example document and summarise what it holds."""
    from layoutkit import examples

    doc = examples.load("report.json")
    result = _scratch().call("validate", {"element": doc})
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


cli_admin.attach(
    main,
    cli_admin.Helpers(_run, _open, _fail, _emit_json, _table, DEFAULT_DB, ONE_SHOT_DRAIN_S),
)

if __name__ == "__main__":
    main()
