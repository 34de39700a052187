"""Review rules: lint of one rule file, and what a caller waits for a brief and a rule write.

Run: ``python benches/review_rules_bench.py [--rounds N]``. The engine rows time
``lint`` of a built-in rule (a cold parse: the cache of ``parse`` is not used)
and rendering the built-in brief. The caller rows time ``review_brief`` with
every built-in overridden at the project layer (19 stored rules to read and
resolve) and ``put_review_rule`` (lint, a new version, an audit event) on
SQLite, and on PostgreSQL when LAYOUTKIT_TEST_POSTGRES_URL is set. Wall and
CPU time side by side.
"""

from __future__ import annotations

import argparse

from _timing import CALLER, ENGINE, TIMING_HEADER, measure, table, workspaces

from layoutkit import Workspace
from layoutkit.review import rules


def _caller_rows(backend: str, ws: Workspace, rounds: int) -> list[list[str]]:
    for text in rules.builtin_sources().values():
        ws.call("put_review_rule", {"project": "shop", "source": text + "\n"})
    timed = measure(lambda _: ws.call("review_brief", {"project": "shop"}), rounds)
    copy = rules.builtin_sources()["copy"]
    # Sources differ round to round, so the parse cache is not what is timed.
    put = measure(
        lambda r: ws.call("put_review_rule", {"project": "shop", "source": copy + "\n" * r}),
        rounds,
    )
    return [
        ["review_brief, 19 project rules", CALLER, backend, *timed.cells(2)],
        ["put_review_rule", CALLER, backend, *put.cells(2)],
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=200)
    rounds = parser.parse_args().rounds
    rows: list[list[str]] = []
    source = rules.builtin_sources()["data-honesty"]
    lint = measure(lambda _: rules.lint(source), rounds)
    rows.append(["lint one rule file", ENGINE, "-", *lint.cells(3)])
    resolved = rules.resolve([("builtin", [rules.LayerRule(r) for r in rules.builtin_rules()])])
    brief = measure(lambda _: rules.render_brief(resolved, project="shop"), rounds)
    rows.append(["render the built-in brief", ENGINE, "-", *brief.cells(3)])
    for backend, ws in workspaces():
        rows.extend(_caller_rows(backend, ws, rounds))
    table(
        f"review rules ({rounds} rounds)",
        ["what", "measured", "backend", *TIMING_HEADER],
        rows,
    )


if __name__ == "__main__":
    main()
