"""kill -9 in the middle of large batches: nothing half-written, the database opens clean.

Each trial runs one big write (a compose of 2,000 cards, an update_cards of
500 patches, a push of a document set with files and shots, an upload of
many files, a project transfer into another workspace) in a child process
and kills it with SIGKILL at a random moment: half the trials at a random
SQL statement of the write transaction (counted
from a calibration run), half at a random time after the transaction began
(up to past its commit). Then the test opens the store and checks that the
batch is there whole or not at all and that the database passes its integrity
and consistency checks. A batch that did not land is tried again with the same
``requestKey`` by the next trial, killed again (up to ``ATTEMPTS`` killed tries
of one batch), and then retried to the end: afterwards the batch is there
exactly once. So each retry is also a crash after a crash, and the suite pays
for a third of the whole batches it would pay for with a retry after every kill.

Trials per operation and backend: ``LAYOUTKIT_RELIABILITY_KILL_TRIALS``
(default 30, as the issue asks); ``..._KILL_CARDS`` and ``..._KILL_PATCHES``
size the batches.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
from PIL import Image

from layoutkit import Principal, Workspace
from tests.reliability.conftest import Backend, consistency_problems, count

TRIALS = count("kill_trials", 30)
CARDS = count("kill_cards", 2000)
PATCHES = count("kill_patches", 500)
AGENT = Principal.agent("crash")
#: Killed tries of one batch (one ``requestKey``) before it is retried to the end.
ATTEMPTS = 3
REPO = Path(__file__).resolve().parents[2]


class Zygote:
    """The ``_zygote`` process: one job in, one forked child per job."""

    def __init__(self) -> None:
        # Multi-workspace, so the transfer scenario's children may transfer; the other
        # operations do not look at it.
        env = {**os.environ, "PYTHONPATH": str(REPO), "LAYOUTKIT_MULTI_WORKSPACE": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.reliability._zygote"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=REPO,
            env=env,
            text=True,
            bufsize=1,
        )

    def _line(self) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the zygote died (exit {self.proc.poll()})")
        return line.strip()

    def run(
        self,
        backend: Backend,
        op: str,
        params: dict[str, Any],
        *,
        kill_at: int | None = None,
        kill_after: float | None = None,
        principal: Principal = AGENT,
    ) -> list[str]:
        """Run one job; kill its child at SQL statement ``kill_at`` (counted from the
        start of its write transaction) or ``kill_after`` seconds after the transaction
        began. Returns every line the child and the zygote wrote, ending with ``exit``."""
        job = {
            "url": backend.url,
            "name": backend.name,
            "op": op,
            "params": params,
            "principal": [principal.kind, principal.name],
            "kill_at": kill_at,
        }
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        lines = [self._line()]
        assert lines[0].startswith("pid "), lines
        pid = int(lines[0].split()[1])
        while not lines[-1].startswith("exit "):
            lines.append(self._line())
            if lines[-1] == "began" and kill_after is not None:
                time.sleep(kill_after)
                # The child may have finished (and been reaped) already.
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        return lines

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def zygote() -> Iterator[Zygote]:
    z = Zygote()
    try:
        yield z
    finally:
        z.close()


@attrs.define
class Scenario:
    """One kind of big batch: how to seed it, the params of trial n, and how many
    of trial n's rows are on the board (0 or all is the only right answer)."""

    op: str
    seed: Callable[[Workspace], None]
    params: Callable[[int], dict[str, Any]]
    landed: Callable[[Workspace, int], int]
    whole: int
    #: The board trial n writes to.
    board: Callable[[int], str]
    #: Who runs the batch.
    principal: Principal = AGENT


def _notes(n: int, tag: str) -> list[dict[str, Any]]:
    return [{"kind": "note", "payload": {"md": f"{tag} {i}"}} for i in range(n)]


def _cards_on(ws: Workspace, slug: str) -> list[Any]:
    with ws.store.read() as tx:
        board = tx.board_by_slug(ws.workspace_id, slug)
        return [] if board is None else tx.cards(board.id, include_deleted=True)


# ------------------------------------------------------------------ compose


def _compose_params(n: int) -> dict[str, Any]:
    cards = _notes(CARDS - 12, f"t{n}")
    cards += [
        {"kind": "text", "ref": f"r{i}", "payload": {"md": f"t{n} framed {i}"}} for i in range(10)
    ]
    cards.append(
        {
            "kind": "section",
            "ref": "sec",
            "payload": {"title": f"t{n} section"},
            "children": [f"r{i}" for i in range(10)],
        }
    )
    cards.append({"kind": "cluster", "ref": "cl", "payload": {}, "children": []})
    return {
        "board": f"c{n}",
        "requestKey": f"compose-{n}",
        "cards": cards,
        "edges": [{"from": f"r{i}", "to": f"r{i + 1}"} for i in range(9)],
        "questions": [{"prompt": f"t{n} ok?", "options": ["yes", "no"], "cardRef": "r0"}],
    }


def _compose_seed(ws: Workspace) -> None:
    for n in range(TRIALS + 1):  # the last one is the calibration run's
        ws.call("create", {"kind": "board", "slug": f"c{n}"})


def _compose_landed(ws: Workspace, n: int) -> int:
    cards = _cards_on(ws, f"c{n}")
    with ws.store.read() as tx:
        board = tx.board_by_slug(ws.workspace_id, f"c{n}")
        edges = len(tx.edges(board.id, include_trashed_ends=True))
        questions = len(tx.questions(board.id))
    # Cards, wires and questions land together or not at all.
    return len(cards) + edges + questions


# ------------------------------------------------------------------ update_cards


def _update_seed(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "u"})
    ws.call("compose_board", {"board": "u", "cards": _notes(PATCHES, "seed")}, AGENT)


def _update_ids(ws: Workspace) -> list[int]:
    return sorted(c.id for c in _cards_on(ws, "u"))


_UPDATE_IDS: list[int] = []


def _update_params(n: int) -> dict[str, Any]:
    return {
        "requestKey": f"update-{n}",
        "patch": [
            {"id": cid, "payload": {"md": f"t{n} " + "word " * (i % 7)}, "x": 10_000 + n}
            for i, cid in enumerate(_UPDATE_IDS)
        ],
    }


def _update_landed(ws: Workspace, n: int) -> int:
    cards = _cards_on(ws, "u")
    versions = {c.version for c in cards}
    mine = sum(1 for c in cards if c.payload["md"].startswith(f"t{n} "))
    # Every card took every committed patch: one version for all of them.
    assert len(versions) == 1, f"cards of one batch disagree on version: {sorted(versions)}"
    return mine


# ------------------------------------------------------------------ push_doc


def _png(seed: int) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (8 + seed % 5, 8), (seed % 256, (seed // 256) % 256, 7)).save(buf, "PNG")
    return buf.getvalue()


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


FILES_PER_BATCH = 40


def _push_params(n: int) -> dict[str, Any]:
    files = [
        {"name": f"shots/s{i}.png", "data": _b64(_png(n * 100 + i))} for i in range(FILES_PER_BATCH)
    ]
    elements = [{"kind": "prose", "payload": {"md": f"t{n} paragraph {i}"}} for i in range(150)]
    elements += [
        {"kind": "figure", "payload": {"src": f"shots/s{i}.png", "alt": f"s{i}"}}
        for i in range(FILES_PER_BATCH)
    ]
    return {
        "board": "p",
        "requestKey": f"push-{n}",
        "doc": {"kind": "doc", "payload": {"title": f"t{n} set", "elements": elements}},
        "files": files,
        "shots": [f"shots/s{i}.png" for i in range(FILES_PER_BATCH)],
    }


def _push_seed(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "p"})


def _push_landed(ws: Workspace, n: int) -> int:
    docs = [c for c in _cards_on(ws, "p") if c.payload.get("title") == f"t{n} set"]
    versions = sorted(c.payload["set"]["version"] for c in _cards_on(ws, "p"))
    # A version number is never handed out twice, even across crashes.
    assert len(versions) == len(set(versions)), versions
    with ws.store.read() as tx:
        for card in docs:
            for key in card.payload["set"]["shots"]:
                assert tx.blobs.has(key), f"push card {card.id} names missing blob {key}"
    return len(docs)


# ------------------------------------------------------------------ upload_files


def _upload_params(n: int) -> dict[str, Any]:
    return {
        "board": "up",
        "requestKey": f"upload-{n}",
        "section": f"t{n} uploads",
        "files": [
            {"name": f"t{n}-{i}.png", "data": _b64(_png(50_000 + n * 100 + i))}
            for i in range(FILES_PER_BATCH)
        ],
    }


def _upload_seed(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "up"})


def _upload_landed(ws: Workspace, n: int) -> int:
    cards = _cards_on(ws, "up")
    mine = [c for c in cards if str(c.payload.get("alt", "")).startswith(f"t{n}-")]
    frames = [c for c in cards if c.payload.get("title") == f"t{n} uploads"]
    with ws.store.read() as tx:
        for card in mine:
            assert tx.blobs.has(card.payload["ref"]), f"card {card.id} names a missing blob"
    return len(mine) + len(frames)


# ------------------------------------------------------------------ transfer_project

TRANSFER_BOARDS = 4
OWNER = Principal.owner("crash")


def _transfer_seed(ws: Workspace) -> None:
    per_board = max(1, CARDS // 10 // TRANSFER_BOARDS)
    for b in range(TRANSFER_BOARDS):
        ws.call("create", {"kind": "board", "slug": f"t{b}", "project": "big"})
        ws.call("compose_board", {"board": f"t{b}", "cards": _notes(per_board, f"t{b}")}, AGENT)
    for i in range(20):
        ws.call("create", {"kind": "task", "title": f"task {i}", "project": "big"})
    with ws.store.transaction() as tx:
        for n in range(TRIALS + 1):  # each trial copies into a workspace of its own
            tx.ensure_workspace(f"dest-{n}")


def _transfer_params(n: int) -> dict[str, Any]:
    return {"project": "big", "to": f"dest-{n}"}


def _transfer_landed(ws: Workspace, n: int) -> int:
    with ws.store.read() as tx:
        dest = tx.workspace_by_name(f"dest-{n}")
        assert dest is not None
        project = tx.project_by_slug(dest.id, "big")
        if project is None:
            return 0
        boards = tx.boards(dest.id, project_id=project.id)
        cards = sum(len(tx.cards(b.id)) for b in boards)
        tasks = len(tx.tasks(dest.id, project_id=project.id))
    return len(boards) + cards + tasks


SCENARIOS = {
    "compose_board": Scenario(
        "compose_board",
        _compose_seed,
        _compose_params,
        _compose_landed,
        CARDS + 9 + 1,
        lambda n: f"c{n}",
    ),
    "update_cards": Scenario(
        "update_cards", _update_seed, _update_params, _update_landed, PATCHES, lambda n: "u"
    ),
    "push_doc": Scenario("push_doc", _push_seed, _push_params, _push_landed, 1, lambda n: "p"),
    "upload_files": Scenario(
        "upload_files",
        _upload_seed,
        _upload_params,
        _upload_landed,
        FILES_PER_BATCH + 1,
        lambda n: "up",
    ),
    "transfer_project": Scenario(
        "transfer_project",
        _transfer_seed,
        _transfer_params,
        _transfer_landed,
        TRANSFER_BOARDS + TRANSFER_BOARDS * max(1, CARDS // 10 // TRANSFER_BOARDS) + 20,
        lambda n: "t0",
        OWNER,
    ),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_kill_9_mid_batch_leaves_all_or_nothing(
    name: str, backend: Backend, zygote: Zygote, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LAYOUTKIT_MULTI_WORKSPACE", "1")  # the retries' workspaces
    scenario = SCENARIOS[name]
    rng = random.Random(f"{name}-{backend.kind}")
    with backend.open() as ws:
        scenario.seed(ws)
        if name == "update_cards":
            _UPDATE_IDS[:] = _update_ids(ws)
    # Calibrate: a run that is not killed says how many statements and how long
    # the write transaction takes; trial -1 is not checked beyond that.
    calibration = zygote.run(
        backend, scenario.op, scenario.params(TRIALS), principal=scenario.principal
    )
    assert calibration[-1] == "exit 0" and calibration[-2].startswith("stmts "), calibration
    _, stmts, seconds = calibration[-2].split()
    statements, spent = int(stmts), float(seconds)
    assert statements > 2, calibration

    outcomes = {"killed": 0, "finished": 0, "landed": 0, "absent": 0, "batches": 0}
    batch, tries = 0, 0
    for n in range(TRIALS):
        params = scenario.params(batch)
        if n % 2 == 0:
            lines = zygote.run(
                backend,
                scenario.op,
                params,
                kill_at=rng.randint(1, statements),
                principal=scenario.principal,
            )
        else:
            lines = zygote.run(
                backend,
                scenario.op,
                params,
                kill_after=rng.uniform(0, spent * 1.3),
                principal=scenario.principal,
            )
        assert not any(line.startswith("error") for line in lines), lines
        outcomes["killed" if lines[-1] == "exit -9" else "finished"] += 1
        tries += 1
        with backend.open() as ws:
            problems = consistency_problems(backend, ws, [scenario.board(batch)])
            assert not problems, f"trial {n}: {problems}"
            landed = scenario.landed(ws, batch)
            assert landed in (0, scenario.whole), (
                f"trial {n} ({lines}): {landed} of {scenario.whole} rows of the batch landed"
            )
            outcomes["landed" if landed else "absent"] += 1
            if landed or tries == ATTEMPTS or n == TRIALS - 1:
                # The caller never saw a receipt, so it retries with the same key:
                # afterwards the batch is there exactly once.
                ws.call(scenario.op, params, scenario.principal)
                assert scenario.landed(ws, batch) == scenario.whole, f"trial {n} after the retry"
                outcomes["batches"] += 1
                batch, tries = batch + 1, 0
    print(f"\n{name} on {backend.kind}: {TRIALS} trials, {outcomes}, {statements} statements")
    # Kills inside the transaction must have happened (every statement-timed one).
    assert outcomes["killed"] >= TRIALS // 2
    assert outcomes["absent"] >= 1
