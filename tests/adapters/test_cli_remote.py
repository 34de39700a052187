"""The command line on a server: ``--url``/``--token``, login and logout, whoami and api.

A real ``layoutkit serve`` runs as a child process on loopback; the commands run
through click's runner in this process and reach it over HTTP. The same commands
run on a local database must print the same thing.
"""

from __future__ import annotations

import json
import re
import stat
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from PIL import Image

from layoutkit import Workspace
from layoutkit.adapters.cli import main
from layoutkit.adapters.cli_remote import CONFIG_ENV, Credentials, server_key
from tests.conftest import POSTGRES_URL

from .test_serve_workers import Served, start_served, stop_served


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    # One server per backend for the whole module: each test works on boards of its own.
    if request.param == "postgres":
        if not POSTGRES_URL:
            pytest.skip("LAYOUTKIT_TEST_POSTGRES_URL is not set; PostgreSQL tests need a server")
        db = POSTGRES_URL
    else:
        db = f"sqlite:///{tmp_path_factory.mktemp('served') / 'served.db'}"
    # A token of this module's own, and no --new-token: on the database other tests
    # share, a new serve token would revoke the one their server printed.
    with Workspace.open(db) as ws:
        token = ws.create_token("user", f"cli-{uuid.uuid4().hex[:8]}", role="owner")
    s = start_served(db, 1, token=token)
    try:
        yield s
    finally:
        stop_served(s)


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    # Credentials go to a folder of this test's; no LAYOUTKIT_URL leaks in from outside.
    monkeypatch.setenv(CONFIG_ENV, str(tmp_path / "config"))
    for name in ("LAYOUTKIT_URL", "LAYOUTKIT_TOKEN", "LAYOUTKIT_DB"):
        monkeypatch.delenv(name, raising=False)
    return CliRunner()


def _ok(res: Result) -> str:
    assert res.exit_code == 0, res.output + (str(res.exception) if res.exception else "")
    return res.output


def _session(runner: CliRunner, where: list[str], folder: Path, board: str) -> list[str]:
    """A person's first steps, on a server or the local database: each command's output."""
    folder.mkdir()
    note = folder / "notes.txt"
    note.write_text("plain words travel too\n", encoding="utf-8")
    picture = folder / "dot.png"
    Image.new("RGB", (40, 30), "teal").save(picture)
    # The board's slug is a word of its notes: search finds this test's cards only, on
    # a database other tests share too.
    notes = [
        {"kind": "note", "payload": {"md": f"ship the **client** first ({board})"}},
        {"kind": "note", "payload": {"md": f"webhooks after the client ({board})"}},
    ]
    cards = json.dumps({"board": board, "cards": notes})
    outputs = [
        _ok(
            runner.invoke(
                main, ["call", "create", json.dumps({"kind": "board", "slug": board}), *where]
            )
        ),
        _ok(runner.invoke(main, ["call", "compose_board", cards, *where])),
        _ok(
            runner.invoke(
                main, ["board", "upload", str(note), str(picture), "--board", board, *where]
            )
        ),
        _ok(runner.invoke(main, ["search", board, *where])),
    ]
    png = folder / "board.png"
    rendered = _ok(runner.invoke(main, ["board", "render", board, "--out", str(png), *where]))
    outputs.append(rendered.replace(str(png), "<png>"))
    outputs.append(png.read_bytes().hex())
    return outputs


def _comparable(text: str, shared: bool) -> str:
    """Output with what differs between two databases by nature masked: times; and
    against PostgreSQL (shared by other tests, a search engine of its own) the ids it
    handed out before and the order of hits that rank alike."""
    text = re.sub(r"\d{4}-\d\d-\d\dT[0-9:.+]+", "<time>", text)
    if not shared:
        return text
    # Wider ids widen the table columns too.
    masked = re.sub(r" +", " ", re.sub(r"\b\d+\b", "<n>", text))
    return "\n".join(sorted(masked.splitlines()))


def test_a_session_on_a_server_prints_what_it_prints_locally(
    served: Served, runner: CliRunner, tmp_path: Path
) -> None:
    key = server_key(served.url)
    res = runner.invoke(main, ["login", served.url, "--with-token"], input=served.token + "\n")
    label = json.loads(served.post("whoami", {}).text)["label"]
    assert f"logged in to {key} as {label}" in _ok(res)
    kept = Credentials().path
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert json.loads(kept.read_text())["servers"][key]["token"] == served.token

    who = _ok(runner.invoke(main, ["whoami", "--url", served.url]))
    assert who.strip() == f"{label} (default, owner) at {key}"
    # The server's database and a local one, each fresh for this board, given the same steps.
    board = f"cli-{uuid.uuid4().hex[:10]}"
    remote = _session(runner, ["--url", served.url], tmp_path / "remote", board)
    local_db = f"sqlite:///{tmp_path / 'local.db'}"
    local = _session(runner, ["--db", local_db], tmp_path / "local", board)
    shared = served.db == POSTGRES_URL
    # The server makes the addresses people follow absolute (its public address); a
    # local database has none to give, and keeps them relative.
    remote = [o.replace(served.url, "") for o in remote]
    assert [_comparable(o, shared) for o in remote] == [_comparable(o, shared) for o in local]

    assert "logged out of " + key in _ok(runner.invoke(main, ["logout", served.url]))
    gone = runner.invoke(main, ["whoami", "--url", served.url])
    assert gone.exit_code == 2 and f"not logged in to {key}" in gone.output
    again = runner.invoke(main, ["logout", served.url])
    assert again.exit_code == 1 and "not logged in" in again.output


def test_a_token_given_or_from_the_environment_needs_no_login(
    served: Served, runner: CliRunner
) -> None:
    out = _ok(
        runner.invoke(main, ["whoami", "--json", "--url", served.url, "--token", served.token])
    )
    assert json.loads(out)["role"] == "owner"
    env = {"LAYOUTKIT_URL": served.url, "LAYOUTKIT_TOKEN": served.token}
    out = _ok(runner.invoke(main, ["call", "whoami"], env=env))
    assert json.loads(out)["role"] == "owner"


def test_refusals_are_the_servers_with_its_status_and_code(
    served: Served, runner: CliRunner
) -> None:
    bad = runner.invoke(main, ["login", served.url, "--token", "lk_not_a_token"])
    assert bad.exit_code == 1 and "does not accept this token" in bad.output
    assert not Credentials().path.exists()
    where = ["--url", served.url, "--token", served.token]
    res = runner.invoke(
        main,
        [
            "call",
            "compose_board",
            '{"board": "nowhere", "cards": [{"kind": "note", "payload": {"md": "x"}}]}',
            *where,
        ],
    )
    assert res.exit_code == 1
    body = json.loads(res.output)
    assert (body["status"], body["code"]) == (404, "unknown_board")
    res = runner.invoke(main, ["search", "x", "--url", served.url, "--token", "lk_wrong"])
    assert res.exit_code == 1 and "error 401 unauthenticated" in res.output


def test_api_sends_any_request_and_fails_on_an_error_status(
    served: Served, runner: CliRunner, tmp_path: Path
) -> None:
    where = ["--url", served.url, "--token", served.token]
    health = runner.invoke(main, ["api", "GET", "/api/v1/health", "-i", *where])
    assert _ok(health).startswith("HTTP/1.1 200 OK\n")
    assert json.loads(health.output.split("\n\n", 1)[1]) == {"ok": True}
    slug = f"by-api-{uuid.uuid4().hex[:8]}"
    body = json.dumps({"kind": "board", "slug": slug})
    made = runner.invoke(main, ["api", "POST", "api/v1/ops/create", "-d", body, *where])
    assert json.loads(_ok(made))["board"]["slug"] == slug
    missing = runner.invoke(main, ["api", "POST", "/api/v1/ops/nope", "-d", "{}", *where])
    assert missing.exit_code == 1 and json.loads(missing.output)["code"] == "unknown_operation"
    header = runner.invoke(main, ["api", "GET", "/api/v1/health", "-H", "nonsense", *where])
    assert header.exit_code == 2 and "Name: value" in header.output
    # The same command on the local database: its API in this process, as the owner.
    local = runner.invoke(
        main, ["api", "GET", "/api/v1/health", "--db", f"sqlite:///{tmp_path / 'local.db'}"]
    )
    assert json.loads(_ok(local)) == {"ok": True}


def test_usage_errors_name_what_is_missing(runner: CliRunner) -> None:
    res = runner.invoke(main, ["whoami", "--token", "lk_x"])
    assert res.exit_code == 2 and "--token needs --url" in res.output
    res = runner.invoke(main, ["whoami", "--url", "ftp://example.com"])
    assert res.exit_code == 2 and "not a server address" in res.output
    res = runner.invoke(main, ["login", "http://127.0.0.1:9/?x=1", "--token", "t"])
    assert res.exit_code == 2 and "query or fragment" in res.output
    # The servers themselves run here only: they take no --url.
    res = runner.invoke(main, ["serve", "--url", "http://127.0.0.1:9"])
    assert res.exit_code == 2 and "--url" in res.output


def test_an_unreachable_server_is_a_refusal_not_a_traceback(runner: CliRunner) -> None:
    res = runner.invoke(main, ["whoami", "--url", "http://127.0.0.1:9", "--token", "lk_x"])
    assert res.exit_code == 1 and "unreachable" in res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)


def test_help_and_a_remote_command_load_no_engine() -> None:
    # What makes `layoutkit --help` quick: the command line's module loads click and
    # a few small modules, never the service or an engine (benches/cli_start_bench.py).
    probe = (
        "import sys; import layoutkit.adapters.cli; import layoutkit.client; "
        "heavy = [m for m in sys.modules if m.startswith(('layoutkit.service', "
        "'layoutkit.render', 'layoutkit.layout', 'layoutkit.diagram', 'numpy', 'PIL', "
        "'sqlalchemy', 'shapely'))]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
