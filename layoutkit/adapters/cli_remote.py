"""Where a command runs: the local database, or a server reached over HTTP.

Every command that works on a workspace takes ``--url`` and ``--token`` (env
``LAYOUTKIT_URL``, ``LAYOUTKIT_TOKEN``) beside ``--db``. With a URL it runs on
that server through :class:`layoutkit.Client`, as the token's holder; without
one, on the local database as its owner. A token left out is read from the
credentials ``layoutkit login`` stored for that server: one JSON file in the
user's config directory (``LAYOUTKIT_CONFIG_DIR`` overrides it), mode 0600.

Only ``click`` and the standard library are imported here: the engines load in
the commands that need them, so ``--help`` and remote commands start quickly.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import click

URL_ENV = "LAYOUTKIT_URL"
TOKEN_ENV = "LAYOUTKIT_TOKEN"
CONFIG_ENV = "LAYOUTKIT_CONFIG_DIR"
CREDENTIALS = "credentials.json"
_META = "layoutkit.remote"


def server_key(url: str) -> str:
    """``url`` as credentials are filed under: scheme, host and port, and any path
    prefix the server is mounted at, without a trailing slash."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise click.BadParameter(
            f"{url!r} is not a server address; give http(s)://host[:port]", param_hint="URL"
        )
    if parts.query or parts.fragment:
        raise click.BadParameter(
            f"{url!r} has a query or fragment; give the server's address only", param_hint="URL"
        )
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path.rstrip('/')}"


def config_dir() -> Path:
    override = os.environ.get(CONFIG_ENV)
    return Path(override) if override else Path(click.get_app_dir("layoutkit"))


class Credentials:
    """The tokens ``layoutkit login`` keeps, one per server."""

    def __init__(self, folder: Path | None = None) -> None:
        self.path = (folder or config_dir()) / CREDENTIALS

    def servers(self) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            raise click.ClickException(f"cannot read {self.path}: {exc}") from exc
        servers = data.get("servers") if isinstance(data, dict) else None
        return servers if isinstance(servers, dict) else {}

    def get(self, url: str) -> dict[str, Any] | None:
        return self.servers().get(server_key(url))

    def put(self, url: str, entry: dict[str, Any]) -> None:
        servers = self.servers()
        servers[server_key(url)] = entry
        self._write(servers)

    def forget(self, url: str) -> bool:
        servers = self.servers()
        gone = servers.pop(server_key(url), None) is not None
        if gone:
            self._write(servers)
        return gone

    def _write(self, servers: dict[str, dict[str, Any]]) -> None:
        folder = self.path.parent
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        # Written aside with mode 0600 from its first byte, then renamed over the old
        # file: no moment where a token sits in a file others may read, nor a torn one.
        fd, aside = tempfile.mkstemp(prefix=".credentials-", dir=folder)
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump({"servers": servers}, out, indent=2, sort_keys=True)
            os.replace(aside, self.path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(aside)
            raise


def _remember(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value:
        ctx.meta.setdefault(_META, {})[param.name] = value


def remote_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """``--url`` and ``--token``: run the command on a server instead of the database."""
    # Named apart from any option of a command's own (``member accept --as-token`` is
    # ``token``): click files parsed values by name, and two of one name share a value.
    func = click.option(
        "--token",
        "remote_token",
        envvar=TOKEN_ENV,
        metavar="TOKEN",
        expose_value=False,
        callback=_remember,
        help="API token for --url (env LAYOUTKIT_TOKEN); default: the one 'layoutkit login' "
        "stored for that server.",
    )(func)
    return click.option(
        "--url",
        "remote_url",
        envvar=URL_ENV,
        metavar="URL",
        expose_value=False,
        callback=_remember,
        help="Run on the server at URL instead of the local database (env LAYOUTKIT_URL).",
    )(func)


def target() -> tuple[str, str] | None:
    """(server URL, token) when this command runs on a server, else None."""
    chosen = click.get_current_context().meta.get(_META, {})
    url = chosen.get("remote_url")
    if not url:
        if chosen.get("remote_token"):
            raise click.UsageError("--token needs --url (or LAYOUTKIT_URL): the server to use")
        return None
    key = server_key(url)
    token = chosen.get("remote_token")
    if not token:
        stored = Credentials().get(key)
        if stored is None:
            raise click.UsageError(
                f"not logged in to {key}: run 'layoutkit login {key}', or pass --token"
            )
        token = stored["token"]
    return key, token


@contextlib.contextmanager
def client(url: str, token: str, workspace: str | None = None) -> Iterator[Any]:
    """A client of the server at ``url``; ``workspace`` picks one of a deployment's."""
    from layoutkit.client import Client

    with Client(url, token, workspace=workspace) as c:
        yield c


# ---------------------------------------------------------------- commands


@click.command()
@click.argument("url")
@click.option("--token", "given", metavar="TOKEN", help="The API token (else asked for).")
@click.option("--with-token", is_flag=True, help="Read the token from standard input.")
def login(url: str, given: str | None, with_token: bool) -> None:
    """Check a token against the server at URL and keep it for later commands.

    Commands then run there with --url URL (or LAYOUTKIT_URL=URL) and need no
    --token. The token is kept in the user's config directory, readable by the
    user alone (mode 0600); 'layoutkit logout URL' forgets it.
    """
    from layoutkit.errors import ServiceError

    key = server_key(url)
    if given and with_token:
        raise click.UsageError("give --token or --with-token, not both")
    if with_token:
        given = click.get_text_stream("stdin").readline()
    token = (given or click.prompt("token", hide_input=True)).strip()
    if not token:
        raise click.UsageError("the token is empty")
    try:
        with client(key, token) as c:
            who = c.call("whoami", {})
    except ServiceError as err:
        if err.status == 401:
            raise click.ClickException(f"{key} does not accept this token") from err
        raise click.ClickException(f"{key}: {err.message} ({err.code})") from err
    Credentials().put(key, {"token": token, "label": who["label"], "workspace": who["workspace"]})
    click.echo(f"logged in to {key} as {_who(who)}")
    click.echo(f"run commands there with --url {key} (or export {URL_ENV}={key})", err=True)


@click.command()
@click.argument("url")
def logout(url: str) -> None:
    """Forget the token kept for the server at URL (the token itself stays valid:
    revoke it with 'layoutkit token revoke' to end it)."""
    key = server_key(url)
    if not Credentials().forget(key):
        raise click.ClickException(f"not logged in to {key}")
    click.echo(f"logged out of {key}")


def _who(who: dict[str, Any]) -> str:
    role = f", {who['role']}" if who.get("role") else ""
    return f"{who['label']} ({who['workspace']}{role})"


def whoami_line(who: dict[str, Any], where: str) -> str:
    """``whoami``'s answer for a person: who, in which workspace, with what role, where."""
    return f"{_who(who)} at {where}"
