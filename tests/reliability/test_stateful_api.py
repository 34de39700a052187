"""schemathesis stateful runs over the HTTP API on SQLite and PostgreSQL: zero 5xx.

The OpenAPI document links each operation's answer to the calls that take its
values (a created board's slug to compose, scrape, share...; a composed card's
id to update_cards, refresh_card...; an asked question's id to
answer_question), so the stateful phase builds real sequences: create a board,
write to it, patch the cards it wrote, remove and restore them. Every answer
must be below 500 (501 is the documented "needs a sidecar" answer).

Scenarios start where schemathesis finds an entry point, and from one more:
``create`` with kind board. Schemathesis takes every ``*Id`` field of a body
as a foreign key, optional or not, and drops a POST whose keys name a
resource no answer produces from its entry points; ``create`` declares the
task kind's optional ``sprintId``, ``milestoneId``, ``parentId`` and
``assigneeId``, so without this rule no scenario would ever make a board.

``LAYOUTKIT_RELIABILITY_STATEFUL_EXAMPLES`` scenarios (default 25) of up to
``LAYOUTKIT_RELIABILITY_STATEFUL_STEPS`` calls (default 12) per backend.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import schemathesis
from hypothesis import Phase
from hypothesis.errors import FlakyStrategyDefinition
from hypothesis.stateful import Bundle, rule
from schemathesis.generation.stateful.state_machine import StepInput
from sqlalchemy import text

from layoutkit import Workspace
from layoutkit.adapters.http import create_app
from layoutkit.storage import _schema as s
from layoutkit.storage._schema import metadata
from tests.reliability.conftest import Backend, count, stateful_settings

EXAMPLES = count("stateful_examples", 25)
STEPS = count("stateful_steps", 12)


def _empty(ws: Workspace) -> None:
    """Delete every row but the API tokens, and restart the id sequences."""
    tables = [t for t in reversed(metadata.sorted_tables) if t.name != "api_tokens"]
    with ws.store.transaction() as tx:
        if ws.store.dialect == "postgresql":
            # Row by row, not TRUNCATE: a scenario leaves a handful of rows, and
            # TRUNCATE pays a fixed cost per table (new files, locks) that made this
            # reset most of the PostgreSQL run. Tokens stay, without a home.
            tx.conn.execute(s.api_tokens.update().values(home_workspace_id=None))
            for table in tables:
                tx.conn.execute(table.delete())
            sequences = tx.conn.execute(
                text(
                    "SELECT pg_get_serial_sequence(c.table_name, c.column_name) "
                    "FROM information_schema.columns c WHERE c.table_schema = current_schema() "
                    "AND c.table_name <> 'api_tokens' AND (c.column_default LIKE 'nextval(%' OR c.is_identity = 'YES')"
                )
            ).scalars()
            for seq in sequences:
                tx.conn.execute(text(f"ALTER SEQUENCE {seq} RESTART"))
        else:
            for table in tables:  # children first; SQLite reuses ids from max + 1
                tx.conn.execute(table.delete())


class _Switch:
    """An ASGI app that forwards to the app of the current scenario's workspace."""

    def __init__(self) -> None:
        self.app: Any = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)


def test_stateful_api_runs_never_answer_5xx(backend: Backend) -> None:
    ws: Workspace = backend.open()
    stopped = False
    switch = _Switch()
    scenarios = [0]
    # Whether a call reached the database since it was last emptied: most scenarios
    # hypothesis starts are dropped before their first call, and an untouched
    # database needs no emptying (it was most of the run's time).
    touched = [True]

    def fresh() -> None:
        # Every scenario starts from an empty database (ids from 1 again), so the
        # same calls meet the same state and get the same answers when hypothesis
        # replays them; anything else is flaky data generation to hypothesis.
        scenarios[0] += 1
        if not touched[0]:
            return
        touched[0] = False
        _empty(ws)
        fresh_ws = Workspace(ws.store, name=backend.name)
        # The emptied database lost the token's membership with its workspace, and its home.
        with ws.store.transaction() as tx:
            record = tx.verify_api_token(token)
            assert record is not None
            tx.set_membership(fresh_ws.workspace_id, record.id, "owner")
            tx.conn.execute(
                s.api_tokens.update()
                .where(s.api_tokens.c.id == record.id)
                .values(home_workspace_id=fresh_ws.workspace_id)
            )
        switch.app = create_app(fresh_ws, mcp=False)

    try:
        token = ws.create_token("owner", "stateful")  # kept by _empty; rejoined by fresh
        fresh()
        schema = schemathesis.openapi.from_asgi("/api/v1/openapi.json", switch)
        seen: Counter[str] = Counter()
        failures: list[str] = []

        boards = (
            schema["/api/v1/ops/create"]["POST"]
            .as_strategy()
            .filter(lambda case: isinstance(case.body, dict) and case.body.get("kind") == "board")
        )

        class Machine(schema.as_state_machine()):  # type: ignore[misc]
            def setup(self) -> None:
                fresh()

            @rule(target=Bundle("catch_all"), case=boards)
            def create_a_board(self, case: Any) -> Any:
                # Recorded as schemathesis records its own entry points; the answer lands
                # in the bundle create's links are followed from.
                step = StepInput.initial(case)
                self.recorder.record_case(case=case)
                self.control.record_step(step, self.recorder)
                return self.step(step)

            def get_call_kwargs(self, case: Any) -> dict[str, Any]:
                touched[0] = True
                return {"headers": {"authorization": f"Bearer {token}"}}

            def validate_response(self, response: Any, case: Any, **kwargs: Any) -> None:
                status = response.status_code
                seen[f"{case.operation.label} {status // 100}xx"] += 1
                # Collected, not raised: every 5xx of the run is reported at the end,
                # and hypothesis does not replay (and shrink) against a changed database.
                if status >= 500 and status != 501:
                    failures.append(
                        f"{case.method} {case.path} {case.body!r:.300} -> {status}: "
                        f"{response.text[:300]}"
                    )

        run = lambda: Machine.run(  # noqa: E731
            settings=stateful_settings(
                EXAMPLES,
                STEPS,
                # Generation only: 5xx are collected, not raised, so there is nothing
                # to shrink, and no replay of a scenario against a changed database.
                phases=[Phase.generate],
                database=None,
            )
        )
        try:
            run()
        except FlakyStrategyDefinition:
            # Known open problem: on PostgreSQL (only) hypothesis reports the
            # scenarios' data generation as flaky partway through, although the same
            # calls got the same statuses; the calls made until then were checked.
            if backend.kind != "postgres":
                raise
            stopped = True
    finally:
        ws.close()
    calls = sum(seen.values())
    ok = sum(n for k, n in seen.items() if k.endswith("2xx"))
    print(
        f"\n{backend.kind}: {scenarios[0] - 1} scenarios, {calls} calls, {ok} answered 2xx"
        + (" (stopped early: hypothesis reported flaky generation)" if stopped else "")
    )
    assert not failures, "\n".join(failures[:20])
    assert ok > 0, seen
    assert calls >= (30 if stopped else 100), f"only {calls} calls were made"
