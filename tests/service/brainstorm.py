"""A brainstorm board with takes, decisions and an epic pointing at it, for brief tests."""

from __future__ import annotations

from typing import Any

import attrs

from layoutkit import Workspace

SLUG = "checkout-brainstorm"


@attrs.frozen
class Brainstorm:
    epic: int
    board: str
    takes: dict[str, int]  # take label -> its card
    questions: list[int]  # in the order asked
    diagram: int
    checklist: int


def brainstorm(ws: Workspace, *, slug: str = SLUG, send: bool = True) -> Brainstorm:
    """Board ``slug`` (inferred subgroup brainstorming) holding three take cards, a
    decision map of four questions (the first two answered with a take card, the
    third answered by a take without a card, the fourth left open), an architecture
    diagram and an acceptance checklist; an epic with a story, its board ref attached."""
    c = ws.call
    c("create", {"kind": "board", "slug": slug})
    made = c(
        "compose_board",
        {
            "board": slug,
            "section": "Takes",
            "cards": [
                {"kind": "text", "payload": {"md": "### PostgreSQL\nOne database we already run."}},
                {"kind": "text", "payload": {"md": "### Redis\nFast, but one more thing to run."}},
                {"kind": "text", "payload": {"md": "### Stripe\nHosted card fields."}},
            ],
        },
    )
    pg, redis, stripe = (card["id"] for card in made["cards"])
    decisions: list[dict[str, Any]] = [
        {
            "key": "store",
            "title": "Which store keeps carts?",
            "stakes": "ops cost",
            "options": [
                {"label": "PostgreSQL", "cardId": pg, "hint": "one database to run"},
                {"label": "Redis", "cardId": redis},
            ],
        },
        {
            "key": "pay",
            "title": "Payment provider?",
            "options": [{"label": "Stripe", "cardId": stripe}, "Adyen | Mollie"],
        },
        {"key": "guest", "title": "Guest checkout?", "options": ["Yes", "No"]},
        {
            "key": "coupons",
            "title": "Coupons at launch?",
            "stakes": "scope",
            "options": ["Yes", "No"],
        },
    ]
    c(
        "compose_board",
        {
            "board": slug,
            "template": "decision-map",
            "params": {
                "title": "Checkout decisions",
                "context": "How checkout works",
                "decisions": decisions,
            },
        },
    )
    extra = c(
        "compose_board",
        {
            "board": slug,
            "cards": [
                {
                    "kind": "diagram",
                    "payload": {
                        "title": "Checkout architecture",
                        "diagram_text": "flowchart LR\n  web --> api\n  api --> db[(PostgreSQL)]\n  api --> psp[Stripe]",
                    },
                },
                {
                    "kind": "checklist",
                    "payload": {
                        "title": "Acceptance",
                        "items": [
                            {"text": "A guest pays by card"},
                            {"text": "A cart survives a restart", "done": True},
                        ],
                    },
                },
            ],
        },
    )
    diagram, checklist = (card["id"] for card in extra["cards"])
    questions = [q["id"] for q in c("get", {"kind": "questions", "board": slug})["questions"]]
    c("answer_question", {"id": questions[0], "answer": "PostgreSQL"})
    c("answer_question", {"id": questions[1], "answer": "Stripe"})
    c("answer_question", {"id": questions[2], "answer": "Yes"})
    if send:
        c("send_answers", {"board": slug})
    epic = c(
        "create",
        {
            "kind": "task",
            "title": "Checkout v2",
            "type": "epic",
            "body": "Let people pay without an account and keep carts across restarts.\n\nLater.",
        },
    )["task"]["id"]
    c("create", {"kind": "task", "title": "Guest pays by card", "type": "story", "parentId": epic})
    c("add_task_ref", {"id": epic, "kind": "board", "ref": slug})
    return Brainstorm(
        epic,
        slug,
        {"PostgreSQL": pg, "Redis": redis, "Stripe": stripe},
        questions,
        diagram,
        checklist,
    )
