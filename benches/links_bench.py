"""Link card bench: what the unfurl costs that is not the network.

Run: ``python benches/links_bench.py [--rounds N]``. No network is touched:
pages are made in memory and fed to the reader as a fetch would.

Prints the median and p95 of: checking a URL against the address rules (a
public name, a decimal IPv4 spelling, a mapped IPv6 literal), reading the
preview metadata of a small page and of a 2 MiB page (the body cap), and
the frameability probe; then the time from a compose receipt to the landed
unfurl with an in-memory fetch (the job runner and the landing transaction).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import httpx

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


def _time(fn: Callable[[], object], rounds: int) -> tuple[float, float]:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1]


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


def _landing(rounds: int) -> tuple[float, float]:
    ws = Workspace.open(unfurler=_Instant())  # type: ignore[arg-type]
    ws.call("create", {"kind": "board", "slug": "b"})
    card = [{"kind": "link", "payload": {"url": "https://a.example.org/"}}]

    def run() -> None:
        ws.call("compose_board", {"board": "b", "cards": card})
        ws.jobs.drain(30)

    try:
        return _time(run, rounds)
    finally:
        ws.close()


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
        ("compose receipt -> unfurl landed", _landing(max(rounds // 2, 3))),
    ]
    print(f"{'step':<44} {'median ms':>10} {'p95 ms':>10}")
    for name, (median, p95) in rows:
        print(f"{name:<44} {median:>10.3f} {p95:>10.3f}")


if __name__ == "__main__":
    main()
