"""Several processes writing one board at once: nothing lost, nothing doubled, no overlaps.

Each process runs a seeded mix of writes against the same board: free
composes, composes into shared sections (created on demand by whichever
process comes first), composes anchored beside or under its own cards, payload
patches that resize a card, and removes followed by restores. Every write must
succeed (a lock timeout or "database is locked" reaching the caller fails the
test), and afterwards the board holds every card each process believes it
wrote, once, with unique ids, one frame per section name and no overlaps.

``LAYOUTKIT_RELIABILITY_WRITERS`` processes (default 6) each make
``LAYOUTKIT_RELIABILITY_WRITES`` writes (default 60).
"""

from __future__ import annotations

import multiprocessing
import random
from collections import Counter
from typing import Any

from layoutkit import Principal, Workspace
from tests.reliability.conftest import Backend, consistency_problems, count
from tests.service.helpers import geometry_problems

WRITERS = count("writers", 6)
WRITES = count("writes", 60)
SECTIONS = ("Alpha", "Beta", "Gamma")


def _writer(url: str, name: str, who: str, start: Any, out: Any) -> None:
    """Runs in a child process; reports (who, "ok", live notes) or (who, error)."""
    rng = random.Random(who)
    agent = Principal.agent(who)
    live: dict[str, int] = {}  # note text -> card id
    trashed: dict[str, int] = {}
    try:
        with Workspace.open(url, name=name) as ws:
            start.wait(timeout=60)
            for i in range(WRITES):
                roll = rng.random()
                texts = [f"{who} {i}.{j}" for j in range(rng.randint(1, 4))]
                cards = [{"kind": "note", "payload": {"md": t}} for t in texts]
                params: dict[str, Any] = {"board": "shared", "cards": cards}
                if roll < 0.35:
                    pass  # free placement
                elif roll < 0.6:
                    params["section"] = rng.choice(SECTIONS)
                elif roll < 0.72 and live:
                    params["anchor"] = {
                        "cardId": rng.choice(sorted(live.values())),
                        "relation": rng.choice(["beside", "under", "after"]),
                    }
                elif roll < 0.86 and live:
                    text = rng.choice(sorted(live))
                    ws.call(
                        "update_cards",
                        {"patch": [{"id": live[text], "payload": {"md": text + "\n\nmore " * 3}}]},
                        agent,
                    )
                    continue
                elif live:
                    text = rng.choice(sorted(live))
                    ws.call("update_cards", {"remove": [live[text]]}, agent)
                    trashed[text] = live.pop(text)
                    if rng.random() < 0.5:
                        ws.call("update_cards", {"restore": [trashed[text]]}, agent)
                        live[text] = trashed.pop(text)
                    continue
                receipt = ws.call("compose_board", params, agent)
                for text, card in zip(texts, receipt["cards"], strict=True):
                    live[text] = card["id"]
        out.put((who, "ok", live))
    except BaseException as exc:  # reported to the parent, which fails the test
        out.put((who, repr(exc), live))


def test_concurrent_writers_lose_nothing_and_never_overlap(backend: Backend) -> None:
    with backend.open() as ws:
        ws.call("create", {"kind": "board", "slug": "shared"})
        # Removing one card of a nearly empty board is over 30% of it and needs a
        # confirm handshake; a seeded board keeps every remove under that line.
        seed = [{"kind": "note", "payload": {"md": f"seed {i}"}} for i in range(10)]
        seeded = ws.call(
            "compose_board", {"board": "shared", "cards": seed}, Principal.agent("seed")
        )
    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    start = ctx.Barrier(WRITERS)
    procs = [
        ctx.Process(target=_writer, args=(backend.url, backend.name, f"w{n}", start, out))
        for n in range(WRITERS)
    ]
    for p in procs:
        p.start()
    results = [out.get(timeout=300) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    errors = [(who, status) for who, status, _ in results if status != "ok"]
    assert not errors, errors
    expected = {text: cid for _, _, live in results for text, cid in live.items()}
    expected.update({f"seed {i}": c["id"] for i, c in enumerate(seeded["cards"])})

    with backend.open() as ws:
        assert not consistency_problems(backend, ws)
        cards = ws.call("scrape_board", {"board": "shared"})["cards"]
    ids = [c["id"] for c in cards]
    assert len(ids) == len(set(ids)), "duplicate card ids"
    notes = Counter(c["payload"]["md"].split("\n")[0] for c in cards if c["kind"] == "note")
    assert {t: n for t, n in notes.items() if n > 1} == {}, "a note landed twice"
    assert set(notes) == set(expected), (
        f"lost: {sorted(set(expected) - set(notes))[:10]}, "
        f"unexpected: {sorted(set(notes) - set(expected))[:10]}"
    )
    by_id = {c["id"]: c["payload"]["md"].split("\n")[0] for c in cards if c["kind"] == "note"}
    assert all(by_id[cid] == text for text, cid in expected.items())
    frames = Counter(c["payload"]["title"] for c in cards if c["kind"] == "section")
    assert all(n == 1 for n in frames.values()), frames
    problems = geometry_problems(cards)
    assert not problems, problems[:10]
    print(f"\n{backend.kind}: {WRITERS} processes x {WRITES} writes, {len(cards)} cards")
