"""Link card bench: what the unfurl costs that is not the network.

Run: ``python benches/links_bench.py [--rounds N]``. No network is touched:
pages are made in memory and fed to the reader as a fetch would.

Prints the median and p95, wall and CPU, of: checking a URL against the
address rules (a public name, a decimal IPv4 spelling, a mapped IPv6
literal), reading the preview metadata of a small page and of a 2 MiB page
(the body cap), and the frameability probe, all engine only; then what a
caller waits for through ``Workspace.call``: the compose receipt of one link
card, and the time from that call to the landed unfurl with an in-memory
fetch (the job runner and the landing transaction), on SQLite and on
PostgreSQL when LAYOUTKIT_TEST_POSTGRES_URL is set.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import httpx
from _timing import CALLER, ENGINE, TIMING_HEADER, Timing, measure, table, workspaces

from layoutkit import Workspace
from layoutkit.net import (
    MAX_BYTES,
    Fetched,
    FetchError,
    Unfurled,
    framable,
    parse_target,
    read_page,
)

HEAD = (
    b'<html><head><meta charset="utf-8"><title>Bench page</title>'
    b'<meta property="og:title" content="OG"><meta property="og:site_name" content="Site">'
    b'<link rel="icon" href="/i.png"></head><body>'
)


def _page(size: int) -> Fetched:
    body = HEAD + b"<p>" + b"word " * max((size - len(HEAD)) // 5, 0) + b"</p></body></html>"
    headers = httpx.Headers({"content-type": "text/html", "x-frame-options": "DENY"})
    return Fetched("https://a.example.org/", "93.184.216.34", 200, headers, body[:size], False, ())


def _time(fn: Callable[[], object], rounds: int) -> Timing:
    return measure(lambda _: fn(), rounds, warmup=0)


def _check(url: str) -> Callable[[], object]:
    def run() -> object:
        try:
            return parse_target(url)
        except FetchError as err:
            return err

    return run


class _Instant:
    def unfurl(self, url: str) -> Unfurled:
        return Unfurled({"meta": {"url": url, "title": "t"}, "framable": True})


def _caller(rounds: int) -> list[list[str]]:
    rows = []
    for backend, ws in workspaces(unfurler=_Instant()):
        rows += [[backend, *row] for row in _landing(ws, rounds)]
    return rows


def _landing(ws: Workspace, rounds: int) -> list[list[str]]:
    ws.call("create", {"kind": "board", "slug": "b"})
    card = [{"kind": "link", "payload": {"url": "https://a.example.org/"}}]

    def receipt() -> None:
        ws.call("compose_board", {"board": "b", "cards": card})

    def landed() -> None:
        receipt()
        ws.jobs.drain(30)

    # Each receipt starts with no unfurl of an earlier round still running beside it.
    receipt_timing = measure(
        lambda _: receipt(), rounds, warmup=0, before=lambda: ws.jobs.drain(30)
    )
    ws.jobs.drain(30)
    return [
        ["compose receipt (one link card)", *receipt_timing.cells(3)],
        ["compose call -> unfurl landed", *_time(landed, rounds).cells(3)],
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=50)
    rounds = parser.parse_args().rounds
    small, big = _page(20_000), _page(MAX_BYTES)
    rows = [
        ("check https://www.example.org/x", _time(_check("https://www.example.org/x"), rounds)),
        ("check http://2130706433/ (refused)", _time(_check("http://2130706433/"), rounds)),
        (
            "check http://[::ffff:10.0.0.1]/ (refused)",
            _time(_check("http://[::ffff:10.0.0.1]/"), rounds),
        ),
        ("read a 20 kB page", _time(lambda: read_page(small), rounds)),
        ("read a 2 MiB page", _time(lambda: read_page(big), max(rounds // 5, 3))),
        ("frameability probe", _time(lambda: framable(small), rounds)),
    ]
    table(ENGINE, ["step", *TIMING_HEADER], [[name, *t.cells(3)] for name, t in rows])
    table(
        f"{CALLER}, in-memory fetch, CPU is this process only (the job runner's threads count)",
        ["backend", "step", *TIMING_HEADER],
        _caller(max(rounds // 2, 3)),
    )


if __name__ == "__main__":
    main()
