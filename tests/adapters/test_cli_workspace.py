"""CLI commands that touch a workspace: board upload/push, search, token, call, serve, mcp."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from click.testing import CliRunner, Result
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from PIL import Image

from layoutkit import Workspace
from layoutkit.adapters import cli
from layoutkit.adapters.cli import main
from layoutkit.storage import blob_key


@pytest.fixture
def db(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'ws.db'}"
    with Workspace.open(url) as ws:
        ws.call("create", {"kind": "board", "slug": "demo"})
    return url


def run(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input)


def image(path: Path, w: int, h: int) -> Path:
    Image.new("RGB", (w, h), "orange").save(path)
    return path


def pdf(path: Path, pages: int) -> Path:
    sheets = [Image.new("RGB", (60, 85), "white") for _ in range(pages)]
    sheets[0].save(path, "PDF", save_all=True, append_images=sheets[1:])
    return path


def cards(db: str, slug: str = "demo") -> list[dict[str, Any]]:
    with Workspace.open(db) as ws:
        return ws.call("scrape_board", {"board": slug})["cards"]


# ---------------------------------------------------------------- board upload


def test_upload_prints_a_table_of_placed_files(db: str, tmp_path: Path) -> None:
    a = image(tmp_path / "hero.png", 640, 400)
    b = pdf(tmp_path / "spec.pdf", 2)
    c = tmp_path / "notes.txt"
    c.write_text("hello")
    res = run("board", "upload", str(a), str(b), str(c), "--board", "demo", "--db", db)
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0].split() == ["FILE", "KIND", "CARD", "SIZE", "DETAIL", "BOX", "PLACED", "AS"]
    assert "hero.png" in lines[1] and "media" in lines[1] and "640x400 px" in lines[1]
    assert "spec.pdf" in lines[2] and "2 pages" in lines[2] and "420x594" in lines[2]
    assert "notes.txt" in lines[3] and "text/plain" in lines[3]
    assert lines[-1] == "3 file(s) on board demo"
    assert "reading" in res.stderr  # the per-file progress goes to stderr
    assert [c["kind"] for c in cards(db)] == ["media", "file", "file"]


def test_upload_json_receipt_and_anchor_side(db: str, tmp_path: Path) -> None:
    a = image(tmp_path / "a.png", 100, 100)
    first = json.loads(
        run("board", "upload", str(a), "--board", "demo", "--db", db, "--json").stdout
    )
    anchor = first["cards"][0]
    b = image(tmp_path / "b.png", 50, 100)
    res = run(
        "board",
        "upload",
        str(b),
        "--board",
        "demo",
        "--anchor",
        str(anchor["id"]),
        "--side",
        "below",
        "--db",
        db,
        "--json",
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["cards"][0]["placedAs"] == "under"
    assert out["cards"][0]["y"] >= anchor["y"] + anchor["h"]
    assert out["files"][0]["ref"] == blob_key(b.read_bytes())


def test_upload_into_a_section_with_create_section(db: str, tmp_path: Path) -> None:
    f = tmp_path / "x.txt"
    f.write_text("x")
    run("board", "upload", str(f), "--board", "demo", "--section", "Evidence", "--db", db)
    near = run("board", "upload", str(f), "--board", "demo", "--section", "Evidense", "--db", db)
    assert near.exit_code == 1
    assert "section_near_match" in near.stderr and "Evidence" in near.stderr
    forced = run(
        "board", "upload", str(f), "--board", "demo", "--section", "Evidense", "--create-section",
        "--db", db, "--json",
    )  # fmt: skip
    assert forced.exit_code == 0, forced.output
    assert json.loads(forced.stdout)["sections"][0]["title"] == "Evidense"


def test_upload_refusals_exit_1_and_usage_errors_exit_2(db: str, tmp_path: Path) -> None:
    f = tmp_path / "x.txt"
    f.write_text("x")
    unknown = run("board", "upload", str(f), "--board", "demoo", "--db", db, "--json")
    assert unknown.exit_code == 1
    body = json.loads(unknown.stdout)
    assert (body["status"], body["code"], body["didYouMean"]) == (404, "unknown_board", ["demo"])
    assert (
        run("board", "upload", str(f), "--board", "demo", "--side", "right", "--db", db).exit_code
        == 2
    )
    assert (
        run(
            "board", "upload", str(tmp_path / "missing.png"), "--board", "demo", "--db", db
        ).exit_code
        == 2
    )
    assert run("board", "upload", str(f), "--db", db).exit_code == 2  # no --board
    assert (
        run("board", "upload", str(f), "--board", "demo", "--side", "up", "--db", db).exit_code == 2
    )


def test_upload_over_the_file_limit_stops_before_sending(
    db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli, "MAX_FILE_BYTES", 3)
    f = tmp_path / "big.txt"
    f.write_text("four")
    res = run("board", "upload", str(f), "--board", "demo", "--db", db, "--json")
    assert res.exit_code == 1
    assert json.loads(res.stdout)["status"] == 413
    assert cards(db) == []


# ---------------------------------------------------------------- board push


def make_set(folder: Path, title: str = "Checkout") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    image(folder / "home.png", 320, 200)
    (folder / "shots").mkdir(exist_ok=True)
    image(folder / "shots" / "cart.png", 200, 400)
    (folder / "notes.md").write_text("# unrelated, not mentioned")
    (folder / ".hidden.png").write_bytes(b"skip me")
    doc = {
        "kind": "doc",
        "payload": {
            "title": title,
            "sources": {"app": {"repo": "acme/shop", "ref": "v2"}},
            "elements": [
                {"kind": "prose", "payload": {"md": "Code: [cart](app:src/cart.py#L1-L5)"}},
                {"kind": "figure", "payload": {"shot": 0}},
                {"kind": "figure", "payload": {"src": "home.png", "alt": "Home"}},
            ],
        },
    }
    (folder / "doc.json").write_text(json.dumps(doc))
    (folder / "data.json").write_text(
        json.dumps({"shots": [{"file": "shots/cart.png", "title": "Cart"}]})
    )
    return folder


def test_push_a_set_directory(db: str, tmp_path: Path) -> None:
    folder = make_set(tmp_path / "set")
    res = run("board", "push", str(folder), "--board", "demo", "--db", db)
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0].startswith("pushed main v1 to board demo: card ")
    assert "home.png" in res.stdout and "shots/cart.png" in res.stdout
    assert "notes.md" not in res.stdout and ".hidden" not in res.stdout
    assert lines[-1] == "shots: 1  links expanded: 1"
    assert "reading set" in res.stderr
    (card,) = cards(db)
    els = card["payload"]["elements"]
    assert (
        els[0]["payload"]["md"]
        == "Code: [cart](https://github.com/acme/shop/blob/v2/src/cart.py#L1-L5)"
    )
    assert els[1]["payload"]["ref"] == blob_key((folder / "shots" / "cart.png").read_bytes())
    assert card["payload"]["set"]["version"] == 1


def test_re_push_and_branches_take_the_next_free_version(db: str, tmp_path: Path) -> None:
    folder = make_set(tmp_path / "set")
    outs = [
        json.loads(
            run(
                "board", "push", str(folder), "--board", "demo", "--db", db, "--json", *extra
            ).stdout
        )
        for extra in ((), (), ("--branch", "feature"), ())
    ]
    assert [(o["branch"], o["version"]) for o in outs] == [
        ("main", 1),
        ("main", 2),
        ("feature", 1),
        ("main", 3),
    ]
    assert outs[1]["previous"] == outs[0]["card"]


def test_push_a_doc_json_path_uses_its_folder(db: str, tmp_path: Path) -> None:
    folder = make_set(tmp_path / "set")
    res = run("board", "push", str(folder / "doc.json"), "--board", "demo", "--db", db, "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["shots"] == 1


def test_push_a_lone_doc_without_data(db: str, tmp_path: Path) -> None:
    doc = tmp_path / "report.json"
    doc.write_text(
        json.dumps(
            {"kind": "doc", "payload": {"elements": [{"kind": "prose", "payload": {"md": "x"}}]}}
        )
    )
    res = run("board", "push", str(doc), "--board", "demo", "--db", db, "--section", "Reports")
    assert res.exit_code == 0, res.output
    assert "pushed main v1" in res.stdout


def test_push_refusals_and_usage(db: str, tmp_path: Path) -> None:
    folder = make_set(tmp_path / "set")
    (folder / "data.json").write_text(json.dumps({"shots": []}))  # figure shot 0 now dangles
    res = run("board", "push", str(folder), "--board", "demo", "--db", db, "--json")
    assert res.exit_code == 1
    body = json.loads(res.stdout)
    assert (body["status"], body["code"]) == (400, "unknown_shot")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run("board", "push", str(empty), "--board", "demo", "--db", db).exit_code == 2
    broken = tmp_path / "broken.json"
    broken.write_text("{nope")
    assert run("board", "push", str(broken), "--board", "demo", "--db", db).exit_code == 2
    assert run("board", "push", str(folder), "--db", db).exit_code == 2


# ---------------------------------------------------------------- search, token, call


def test_search_and_resolve(db: str, tmp_path: Path) -> None:
    with Workspace.open(db) as ws:
        ws.call("create", {"kind": "board", "slug": "checkout-flow"})
        ws.call(
            "compose_board",
            {"board": "demo", "cards": [{"kind": "text", "payload": {"md": "Checkout totals"}}]},
        )
        ws.call("create", {"kind": "task", "title": "Checkout button misaligned"})
    res = run("search", "checkout", "--db", db)
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0].split() == ["GROUP", "TITLE", "BOARD", "MATCH", "NOTE", "URL"]
    assert [line.split()[0] for line in lines[1:]] == ["tasks", "boards", "cards"]
    assert "«Checkout» totals" in res.stdout and "/boards/checkout-flow" in res.stdout
    groups = json.loads(run("search", "checkout", "totals", "--db", db, "--json").stdout)["groups"]
    assert [(g, h["kind"]) for g, hits in groups.items() for h in hits] == [("cards", "card")]
    typo = run("search", "chekout", "--db", db)
    assert typo.stdout.splitlines()[0] == "also searched: chekout → checkout"
    assert "corrected" in typo.stdout
    with Workspace.open(db) as ws:
        task = ws.call("create", {"kind": "task", "title": "Checkout totals wrong", "type": "bug"})
        ws.call("create", {"kind": "task", "title": "Checkout copy"})
    resolved = run("search", "chekout", "totals", "chyba", "--resolve", "--db", db)
    lines = resolved.stdout.splitlines()
    assert lines[0] == "verdict: confident"
    assert lines[1].split() == ["ID", "KEY", "TYPE", "STATUS", "TITLE", "WHY"]
    assert lines[2].split()[:4] == [str(task["task"]["id"]), "-", "bug", "backlog"]
    assert lines[-1] == f'next: get {{"kind": "task", "id": {task["task"]["id"]}}}'
    pin = f"#{task['task']['id']}"
    exact = json.loads(run("search", pin, "--resolve", "--db", db, "--json").stdout)
    assert exact["verdict"] == "exact"
    relaxed = run("search", "project:nope", "checkout", "copy", "--resolve", "--db", db).stdout
    assert "relaxed: project:nope (names nothing here; dropped)" in relaxed
    assert run("search", "zzz", "--db", db).stdout.strip() == "no hits"
    assert run("search", "--db", db).exit_code == 2


def test_token_create_prints_a_working_token_once(db: str) -> None:
    res = run("token", "create", "--kind", "agent", "claude", "--db", db)
    assert res.exit_code == 0, res.output
    plain = res.stdout.strip()
    assert "shown once" in res.stderr
    with Workspace.open(db) as ws:
        who = ws.authenticate(plain)
    assert (who.kind, who.name) == ("agent", "claude")
    out = json.loads(run("token", "create", "--kind", "service", "ci", "--db", db, "--json").stdout)
    assert (out["kind"], out["name"]) == ("service", "ci")
    assert run("token", "create", "--kind", "root", "x", "--db", db).exit_code == 2
    assert run("token", "create", "x", "--db", db).exit_code == 2


def test_token_create_takes_a_role_in_the_workspace(db: str) -> None:
    res = run("token", "create", "--kind", "user", "ana", "--role", "admin", "--db", db)
    assert res.exit_code == 0, res.output
    with Workspace.open(db) as ws:
        who = ws.authenticate(res.stdout.strip())
        assert who is not None and who.role == "admin"
        # Another workspace of the same database does not know the token.
        with Workspace(ws.store, name="elsewhere") as other:
            assert other.authenticate(res.stdout.strip()) is None
    assert (
        run("token", "create", "--kind", "user", "x", "--role", "root", "--db", db).exit_code == 2
    )


def _token_line(output: str) -> str | None:
    lines = [line for line in output.splitlines() if line.startswith("owner token (keep")]
    return lines[0].split(": ", 1)[1] if lines else None


def test_token_list_never_shows_a_token_and_revoke_stops_it(db: str) -> None:
    first = run("token", "create", "--kind", "agent", "bot", "--db", db).stdout.strip()
    second = run("token", "create", "--kind", "agent", "bot", "--db", db).stdout.strip()
    ann = run("token", "create", "--kind", "user", "ann", "--db", db).stdout.strip()
    listed = run("token", "list", "--db", db)
    assert listed.exit_code == 0, listed.output
    assert listed.stdout.splitlines()[0].split() == [
        "ID",
        "KIND",
        "NAME",
        "CREATED",
        "REVOKED",
        "PURPOSE",
        "HOME",
    ]
    assert "ann" in listed.stdout
    rows = json.loads(run("token", "list", "--db", db, "--json").stdout)["tokens"]
    assert [(r["kind"], r["name"], r["revoked"]) for r in rows] == [
        ("agent", "bot", None),
        ("agent", "bot", None),
        ("user", "ann", None),
    ]
    for plain in (first, second, ann):
        assert plain[4:] not in listed.stdout + json.dumps(rows)

    ambiguous = run("token", "revoke", "bot", "--db", db, "--json")
    assert ambiguous.exit_code == 1
    body = json.loads(ambiguous.stdout)
    assert (body["code"], body["ids"]) == ("ambiguous_token", [rows[0]["id"], rows[1]["id"]])

    assert run("token", "revoke", "ann", "--db", db).stdout.startswith("revoked user token")
    by_id = json.loads(run("token", "revoke", str(rows[0]["id"]), "--db", db, "--json").stdout)
    assert by_id["revoked"] is not None
    with Workspace.open(db) as ws:
        assert ws.authenticate(ann) is None
        assert ws.authenticate(first) is None
        assert ws.authenticate(second).name == "bot"  # type: ignore[union-attr]
    # With one live "bot" left, the name is no longer ambiguous.
    assert run("token", "revoke", "bot", "--db", db).exit_code == 0
    gone = run("token", "revoke", "ann", "--db", db)
    assert gone.exit_code == 1
    assert "unknown_token" in gone.stderr


def test_a_token_from_elsewhere_joins_by_invitation_and_revoke_ends_its_membership(
    db: str,
) -> None:
    invited = run("call", "invite_member", '{"role": "admin"}', "--db", db)
    assert invited.exit_code == 0, invited.output
    secret = json.loads(invited.stdout)["invitation"]
    # The CLI is the deployment itself, with no token to make a member.
    refused = run("call", "accept_invitation", json.dumps({"invitation": secret}), "--db", db)
    assert refused.exit_code == 1
    assert json.loads(refused.stdout)["code"] == "token_required"
    with Workspace.open(db) as ws, Workspace(ws.store, name="studio") as studio:
        plain = studio.create_token("user", "ana")
        ana = studio.authenticate(plain)
        assert studio.call("accept_invitation", {"invitation": secret}, ana)["role"] == "admin"
        assert ws.authenticate(plain) is not None
    (row,) = [line.split() for line in run("token", "list", "--db", db).stdout.splitlines()[1:]]
    assert (row[1], row[2], row[-1]) == ("user", "ana", "studio")
    ended = run("token", "revoke", "ana", "--db", db)
    assert ended.exit_code == 0, ended.output
    assert ended.stdout.startswith("ended the membership of user token")
    with Workspace.open(db) as ws, Workspace(ws.store, name="studio") as studio:
        assert ws.authenticate(plain) is None
        assert studio.authenticate(plain) is not None


def test_a_revoked_token_stops_working_over_http(db: str) -> None:
    from layoutkit.adapters.http import create_app
    from tests.adapters.conftest import LiveServer

    plain = run("token", "create", "--kind", "agent", "claude", "--db", db).stdout.strip()
    with Workspace.open(db) as ws, LiveServer(create_app(ws)) as server:
        headers = {"authorization": f"Bearer {plain}"}
        url = f"{server.url}/api/v1/ops/scrape_board"
        assert httpx.post(url, json={"board": "demo"}, headers=headers).status_code == 200
        assert run("token", "revoke", "claude", "--db", db).exit_code == 0
        refused = httpx.post(url, json={"board": "demo"}, headers=headers)
        assert refused.status_code == 401
        assert refused.json()["code"] == "unauthenticated"


def test_call_reads_file_and_stdin(db: str, tmp_path: Path) -> None:
    params = tmp_path / "p.json"
    params.write_text(
        json.dumps({"board": "demo", "cards": [{"kind": "note", "payload": {"md": "n"}}]})
    )
    res = run("call", "compose_board", f"@{params}", "--db", db)
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["cards"][0]["kind"] == "note"
    res = run("call", "scrape_board", "-", "--db", db, input='{"board": "demo"}')
    assert [c["kind"] for c in json.loads(res.stdout)["cards"]] == ["note"]
    assert run("call", "docs", "@missing.json", "--db", db).exit_code == 2


def test_db_comes_from_the_environment(db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAYOUTKIT_DB", db)
    with Workspace.open(db) as ws:
        ws.call("create", {"kind": "task", "title": "Demo day"})
    res = run("search", "demo", "day", "--resolve", "--json")
    assert json.loads(res.stdout)["verdict"] == "exact"


def test_unusable_db_url_is_a_usage_error() -> None:
    res = run("search", "x", "--db", "mysql://nowhere/x")
    assert res.exit_code == 2
    assert "--db" in res.output


def test_default_db_is_a_file_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LAYOUTKIT_DB", raising=False)
    monkeypatch.chdir(tmp_path)
    assert run("token", "create", "--kind", "user", "ann").exit_code == 0
    assert (tmp_path / "layoutkit.db").is_file()


# ---------------------------------------------------------------- servers


def test_serve_calls_run_server_with_the_workspace(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import uvicorn

    started: dict[str, Any] = {}

    def serve(server: uvicorn.Server, sockets: list[socket.socket]) -> None:
        started.update(app=server.config.app, address=sockets[0].getsockname())
        server.started = True
        server.listened()  # type: ignore[attr-defined]  # what uvicorn's startup calls

    monkeypatch.setattr(uvicorn.Server, "run", serve)
    res = run("serve", "--db", db, "--port", "0", "--example", "--workers", "1")
    assert res.exit_code == 0, res.output
    host, port = started["address"]
    assert host == "127.0.0.1" and port != 0  # port 0: the port the kernel gave is printed
    assert f"example board: http://127.0.0.1:{port}/boards/" in res.stdout
    token = next(
        line.split(": ", 1)[1] for line in res.stdout.splitlines() if "owner token" in line
    )
    with Workspace.open(db) as ws:
        assert ws.authenticate(token).kind == "owner"


def test_serve_keeps_its_owner_token_until_asked_for_a_new_one(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import uvicorn

    def serve(server: uvicorn.Server, sockets: list[socket.socket]) -> None:
        server.started = True
        server.listened()  # type: ignore[attr-defined]  # what uvicorn's startup calls

    monkeypatch.setattr(uvicorn.Server, "run", serve)
    first = run("serve", "--db", db, "--port", "0", "--workers", "1")
    token = _token_line(first.stdout)
    assert token is not None and token.startswith("lkt_")

    again = run("serve", "--db", db, "--port", "0", "--example", "--workers", "1")
    assert again.exit_code == 0, again.output
    assert _token_line(again.stdout) is None
    assert "lkt_" not in again.stdout
    assert "printed when this database was first served" in again.stdout
    assert "--new-token" in again.stdout
    assert "?token=<owner token>" in again.stdout

    fresh = _token_line(
        run("serve", "--db", db, "--port", "0", "--new-token", "--workers", "1").stdout
    )
    assert fresh is not None and fresh != token
    with Workspace.open(db) as ws:
        assert ws.authenticate(token) is None
        assert ws.authenticate(fresh).kind == "owner"  # type: ignore[union-attr]
        serve_tokens = [t for t in ws.tokens() if t["purpose"] == "serve"]
    assert [t["revoked"] is None for t in serve_tokens] == [False, True]
    assert "--new-token" in run("serve", "--help").stdout


def test_serve_defaults_to_one_worker_per_core_and_one_for_memory(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from layoutkit.adapters import http

    seen: list[int] = []
    monkeypatch.setattr(http, "run_server", lambda ws, **kw: seen.append(kw["workers"]))
    monkeypatch.setattr(os, "cpu_count", lambda: 6)
    assert run("serve", "--db", db).exit_code == 0
    assert run("serve", "--db", "sqlite://").exit_code == 0
    assert run("serve", "--db", db, "--workers", "3").exit_code == 0
    assert seen == [6, 1, 3]
    refused = run("serve", "--db", "sqlite://", "--workers", "2")
    assert refused.exit_code == 2 and "in-memory database" in refused.output


def test_mcp_over_stdio_lists_and_runs_the_new_operations(db: str, tmp_path: Path) -> None:
    async def main_() -> tuple[set[str], Any]:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "layoutkit.adapters.cli", "mcp", "--db", db, "--toolsets", "documents"],
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name for t in (await session.list_tools()).tools}
            pushed = await session.call_tool(
                "push_doc",
                {
                    "board": "demo",
                    "doc": {
                        "kind": "doc",
                        "payload": {"elements": [{"kind": "prose", "payload": {"md": "m"}}]},
                    },
                },
            )
            return tools, pushed

    tools, pushed = anyio.run(main_)
    assert {"upload_files", "push_doc"} <= tools
    assert pushed.is_error is False
    assert pushed.structured_content["version"] == 1
    assert [c["kind"] for c in cards(db)] == ["doc"]


def test_module_and_console_script_entry_points(tmp_path: Path) -> None:
    env = {**os.environ, "LAYOUTKIT_DB": f"sqlite:///{tmp_path / 'e.db'}"}
    out = subprocess.run(
        [sys.executable, "-m", "layoutkit.adapters.cli", "board", "--help"],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    assert "push" in out.stdout and "upload" in out.stdout
    from importlib.metadata import entry_points

    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "layoutkit"]
    assert script.value == "layoutkit.adapters.cli:main"


def test_board_share_links_are_listed_and_revoked(db: str) -> None:
    minted = json.loads(run("board", "share", "demo", "--db", db, "--json").stdout)
    assert minted["url"].startswith("/s/")
    listed = run("board", "links", "demo", "--db", db)
    assert listed.exit_code == 0 and minted["id"] in listed.stdout
    assert minted["url"] not in listed.stdout
    out = run("board", "unshare", "demo", minted["id"], "--db", db)
    assert out.exit_code == 0, out.output
    assert out.stdout.startswith(f"revoked share link {minted['id']}")
    with Workspace.open(db) as ws:
        assert ws.authenticate(minted["url"].rsplit("/", 1)[-1]) is None
    again = run("board", "unshare", "demo", minted["id"], "--db", db, "--json")
    assert (again.exit_code, json.loads(again.stdout)["code"]) == (1, "unknown_share_link")


def test_board_share_can_open_on_a_card(db: str) -> None:
    with Workspace.open(db) as ws:
        note = {"kind": "note", "payload": {"md": "here"}}
        card = ws.call("compose_board", {"board": "demo", "cards": [note]})["cards"][0]["id"]
    minted = json.loads(
        run("board", "share", "demo", "--card", str(card), "--db", db, "--json").stdout
    )
    with Workspace.open(db) as ws:
        who = ws.authenticate(minted["url"].rsplit("/", 1)[-1])
    assert who is not None and who.card == card
    missing = run("board", "share", "demo", "--card", "999999", "--db", db, "--json")
    assert (missing.exit_code, json.loads(missing.stdout)["code"]) == (1, "unknown_card")


def test_board_comment_pins_threads_and_board_comments_lists_them(db: str) -> None:
    with Workspace.open(db) as ws:
        note = {"kind": "note", "payload": {"md": "here"}}
        card = ws.call("compose_board", {"board": "demo", "cards": [note]})["cards"][0]["id"]
    out = run("board", "comment", "demo", "Room for a legend?", "--at", "10,-20", "--db", db)
    assert out.exit_code == 0, out.output
    assert out.stdout.startswith("comment ") and "?comment=" in out.stdout
    made = json.loads(
        run(
            "board", "comment", "demo", "Too loud", "--card", str(card), "--region", "0.5,0.25",
            "--db", db, "--json",
        ).stdout
    )  # fmt: skip
    assert (made["cardId"], made["region"]["normalized"]["ny"]) == (card, 0.25)
    listed = run("board", "comments", "demo", "--db", db)
    lines = listed.stdout.splitlines()
    assert lines[0].split() == ["ID", "STATE", "WHERE", "AUTHOR", "REPLIES", "TEXT"]
    assert "10,-20" in lines[1] and "Room for a legend?" in lines[1]
    assert f"card {card}" in lines[2] and "Too loud" in lines[2]
    with Workspace.open(db) as ws:
        ws.call("resolve_comment", {"id": made["id"]})
        with ws.store.read() as tx:
            assert tx.annotation(made["id"]).state == "resolved"  # type: ignore[union-attr]
    assert len(run("board", "comments", "demo", "--db", db).stdout.splitlines()) == 2
    assert len(run("board", "comments", "demo", "--all", "--db", db).stdout.splitlines()) == 3
    bad = run("board", "comment", "demo", "x", "--db", db, "--json")
    assert bad.exit_code == 1 and json.loads(bad.stdout)["field"] == "at"
