"""Shared checks for the board-operation tests: geometry invariants and error capture."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest

from layoutkit import Principal, ServiceError, Workspace
from layoutkit.geometry import Rect

#: Sub-pixel slack: boxes that merely touch (or overlap by float noise) are fine.
EPS = 0.01


def err(
    ws: Workspace, op: str, params: dict[str, Any], principal: Principal | None = None
) -> ServiceError:
    """Run ``op`` expecting a refusal; return the ServiceError."""
    with pytest.raises(ServiceError) as exc:
        ws.call(op, params, principal)
    return exc.value


def rect(card: dict[str, Any]) -> Rect:
    return Rect(card["x"], card["y"], card["w"], card["h"])


def _ancestors(cards: dict[int, dict[str, Any]], cid: int) -> set[int]:
    out: set[int] = set()
    parent = cards[cid]["parent"]
    while parent is not None and parent not in out:
        out.add(parent)
        parent = cards[parent]["parent"] if parent in cards else None
    return out


def geometry_problems(cards_list: Iterable[dict[str, Any]]) -> list[str]:
    """Every overlap between cards that are not ancestor and descendant, and every
    child that pokes out of its frame. An empty list means the board is tidy."""
    cards = {c["id"]: c for c in cards_list}
    ancestors = {cid: _ancestors(cards, cid) for cid in cards}
    problems: list[str] = []
    ids = sorted(cards)
    for n, a in enumerate(ids):
        ra = rect(cards[a])
        for b in ids[n + 1 :]:
            if a in ancestors[b] or b in ancestors[a]:
                continue
            rb = rect(cards[b])
            if ra.overlaps(rb, eps=EPS):
                problems.append(
                    f"cards {a} {tuple(ra.as_dict().values())} and {b} "
                    f"{tuple(rb.as_dict().values())} overlap"
                )
    for cid, card in cards.items():
        parent = card["parent"]
        if parent is None:
            continue
        if parent not in cards:
            problems.append(f"card {cid} names missing parent {parent}")
            continue
        if not rect(cards[parent]).contains(rect(card), eps=EPS):
            problems.append(f"card {cid} sticks out of its frame {parent}")
    return problems


def board_cards(ws: Workspace, slug: str) -> list[dict[str, Any]]:
    return ws.call("scrape_board", {"board": slug})["cards"]


def assert_tidy(ws: Workspace, slug: str) -> list[dict[str, Any]]:
    cards = board_cards(ws, slug)
    problems = geometry_problems(cards)
    assert not problems, "\n".join(problems)
    return cards


def count_rows(ws: Workspace, table_counter: Callable[[Any], int]) -> int:
    with ws.store.read() as tx:
        return table_counter(tx)


def join(into: Workspace, who: Principal, role: str, *, via: Workspace) -> dict[str, Any]:
    """Make ``who``'s token a member of ``into`` with ``role`` the one way there is: an
    invitation of ``into``'s, accepted through ``via``, where the token works."""
    secret = into.call("invite_member", {"role": role})["invitation"]
    return via.call("accept_invitation", {"invitation": secret}, who)
