"""A one-shot local CLI command sends the webhook deliveries its writes owe.

No server may be running on the database, so the command sends them itself
before it exits, debounce windows included: nothing later in the process will
fold into them. A real receiver on 127.0.0.1 answers.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from layoutkit.adapters.cli import main
from layoutkit.service.workspaces.webhooks import ALLOW_ENV
from tests.service.workspaces.test_webhooks import Receiver


@pytest.fixture
def receiver(monkeypatch: pytest.MonkeyPatch) -> Iterator[Receiver]:
    monkeypatch.setenv(ALLOW_ENV, "127.0.0.1")
    got = Receiver()
    yield got
    got.close()


def _call(db: str, op: str, params: dict[str, object]) -> dict[str, object]:
    result = CliRunner().invoke(main, ["call", op, json.dumps(params), "--db", db])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_a_local_command_sends_what_it_owes_before_it_exits(
    tmp_path: Path, receiver: Receiver
) -> None:
    db = f"sqlite:///{tmp_path / 'hooks.db'}"
    made = _call(db, "create_webhook", {"url": receiver.url, "events": ["board.changed"]})
    _call(db, "create", {"kind": "board", "slug": "plan"})
    card = {"kind": "text", "payload": {"md": "from the command line"}}
    _call(db, "compose_board", {"board": "plan", "cards": [card]})
    # Sent by the command itself, not left for a server: it is here already.
    assert len(receiver.got) == 1
    (headers, body) = receiver.got[0]
    doc = json.loads(body)
    assert (doc["event"], doc["data"]["board"]) == ("board.changed", "plan")
    assert headers["x-layoutkit-event"] == "board.changed"
    hook_id = made["webhook"]["id"]  # type: ignore[index]
    (sent,) = _call(db, "list_webhook_deliveries", {"id": hook_id})["deliveries"]  # type: ignore[misc]
    assert sent["status"] == "delivered"


def test_a_command_that_owes_nothing_sends_nothing(tmp_path: Path, receiver: Receiver) -> None:
    db = f"sqlite:///{tmp_path / 'quiet.db'}"
    _call(db, "create_webhook", {"url": receiver.url, "events": ["task.status_changed"]})
    _call(db, "create", {"kind": "board", "slug": "plan"})
    card = {"kind": "text", "payload": {"md": "nobody listens for this"}}
    _call(db, "compose_board", {"board": "plan", "cards": [card]})
    assert receiver.got == []
