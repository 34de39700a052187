"""The target axis of authorization (issue 27): ids of another workspace never reach its data.

Two workspaces on one store, "home" and "away", hold the same fixture data (their slugs,
names and texts carry the workspace's tag, so nothing of one is spelled like the other's).
For every registered operation row (each plain operation, each ``verb:kind`` of the
generic verbs) a sample builder fills the row's params from an :class:`Ids` of real ids:

1. the row called through HOME with AWAY's ids (as home's owner token, and as an
   in-process user) answers 404, and away's data is unchanged;
2. the same call with HOME's ids does not answer 404: the sample is real, so the 404 of
   (1) came from the workspace boundary;
3. a row that takes task ids answers 404 ``unknown_task`` for away's task in every
   written form (``<ws>/<n>``, a task URL with or without host, ``tk-<n>``, ``#<n>``);
4. every registered row has a sample or a reason it takes no id, so a new operation
   without one fails here.

A row may have several samples: the first names only away's ids; others name home's
board (or task) and one id of away's inside it (a card to anchor on, a ref to read, a
token to invite), or someone else's personal board, which home's caller is refused
(403) where away's answers 404. No answer to a call with away's ids may carry away's
content (its tag), no prompt the AI stub receives may either, and away's stored data
(boards, cards, tasks, findings, links, rules, runs, asks, tokens, memberships) is the
same after every row. The data is made once per backend; a sample that spends an id
(revokes, deletes, withdraws, accepts) has a throwaway id of its own.

Below the rows, one focused test per hole this test found.
"""

from __future__ import annotations

import base64
import hashlib
import io
import itertools
import json
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
from PIL import Image, ImageDraw

from layoutkit import Principal, ServiceError, Workspace
from layoutkit.service import REGISTRY
from layoutkit.service.road.registry import Operation
from layoutkit.storage import open_store
from tests.conftest import POSTGRES_URL
from tests.storage.conftest import drop_schema

HOME_TAG = "homeside"
AWAY_TAG = "awayside"
AGENT = Principal.agent("claude")
#: Another person, who owns the personal board (the callers below are not them).
PAT = Principal.user("pat")
USER = Principal.user("u")


def _rows() -> dict[str, Operation]:
    plain = {op.name: op for op in REGISTRY if not op.kinds}
    kinds = {f"{op.name}:{k}": v for op in REGISTRY if op.kinds for k, v in op.kinds.items()}
    return {**plain, **kinds}


ROWS = _rows()


def _png(color: str, w: int = 320, h: int = 200) -> str:
    """A screen-like picture (a review plan drops a blank one as a gap)."""
    img = Image.new("RGB", (w, h), "white")
    draw = ImageDraw.Draw(img)
    draw.rectangle([0, 0, w, 30], fill=color)
    for i in range(5):
        draw.rectangle([20, 50 + 25 * i, 40 + 40 * i, 62 + 25 * i], fill=color)
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return base64.b64encode(buf.getvalue()).decode("ascii")


# ------------------------------------------------------------------ the AI stub


@attrs.define
class StubAi:
    """An AI backend that answers every prompt with a fixed JSON object and keeps them."""

    prompts: list[str] = attrs.Factory(list)

    def complete(self, system: str, prompt: str, *, max_tokens: int) -> str:
        self.prompts.append(prompt)
        return json.dumps({"answer": "stub answer", "sources": [], "confidence": "low"})


# ------------------------------------------------------------------ fixture data


@attrs.frozen
class Ids:
    """Real ids of one workspace's fixture data."""

    ws: str
    tag: str
    board: str
    personal: str
    project: str
    spare_project: str
    section: str
    text_card: int
    spare_card: int
    trashed_card: int
    edge: int
    edge_remove: int
    image_card: int
    image_key: str
    checklist: int
    diagram: int
    pdf: int
    task: int
    child_task: int
    epic: int
    child_board: str
    task_ref: int
    task_ref_name: str
    draft_accept: int
    draft_decline: int
    trashed_task: int
    annotation: int
    annotation_withdraw: int
    comment: int
    comment_delete: int
    question: int
    ask: int
    link: str
    link_revoke: str
    rule: str
    rule_delete: str
    run: str
    sight: str
    doc_version: int
    doc_card: int
    doc_file: str
    token: int
    token_name: str
    sprint: int
    webhook: int
    webhook_delete: int
    delivery: int


def _one(result: dict[str, Any], *path: Any) -> Any:
    for step in path:
        result = result[step]
    return result


def build(ws: Workspace, tag: str) -> Ids:
    """The fixture data every sample names, made in ``ws`` with ``tag`` in every name and text."""
    board, personal, project = f"{tag}-board", f"{tag}-mine", f"{tag}-proj"
    spare_project = f"{tag}-spare"
    ws.call("create", {"kind": "board", "slug": board, "project": project, "tags": [tag]})
    ws.call("create", {"kind": "board", "slug": f"{tag}-spareboard", "project": spare_project})
    ws.call("create", {"kind": "board", "slug": personal, "meta": {"personal": True}}, PAT)
    section = f"{tag} section"
    composed = ws.call(
        "compose_board",
        {
            "board": board,
            "section": section,
            "createSection": True,
            "cards": [
                {"kind": "text", "payload": {"md": f"{tag} secret text"}},
                {
                    "kind": "checklist",
                    "payload": {"title": f"{tag} list", "items": [{"text": f"{tag} item"}]},
                },
                {
                    "kind": "diagram",
                    "payload": {
                        "title": f"{tag} flow",
                        "diagram_text": "graph LR\n  A-->B",
                        "source": {"kind": "repo", "ref": f"{tag}/flow.mmd"},
                    },
                },
            ],
        },
        AGENT,
    )
    text_card, checklist, diagram = (c["id"] for c in composed["cards"][-3:])
    # Throwaway cards for update_cards: one to remove, one in the trash to restore.
    spare = [{"kind": "text", "payload": {"md": f"{tag} spare {i}"}} for i in range(2)]
    spare_card, trashed_card = (
        c["id"] for c in ws.call("compose_board", {"board": board, "cards": spare})["cards"]
    )
    ws.call("update_cards", {"remove": [trashed_card]})
    # Wires for update_edges: one to relabel, one to remove. Their cards are ones no
    # sample removes (update_cards' removes the spare card, which would take the wires
    # out with it on a worker that runs that row first).
    joined = [{"from": text_card, "to": checklist, "label": f"{tag} wire"}] * 2
    edge, edge_remove = (
        e["id"] for e in ws.call("compose_board", {"board": board, "edges": joined})["edges"]
    )
    files = [{"name": f"{tag}-shot.png", "data": _png("teal" if tag == HOME_TAG else "navy")}]
    (image,) = ws.call("upload_files", {"board": board, "files": files}, AGENT)["cards"]
    pdf = _pdf_card(ws, board, tag)
    with ws.store.read() as tx:
        stored = tx.card(image["id"])
        assert stored is not None
        image_key = stored.payload["ref"]
    # Findings on the image card: one shared, one of its own for withdraw_annotation.
    items = [
        {
            "key": f"k{i}",
            "cardId": image["id"],
            "cardVersion": 1,
            "region": {"x": 10 + 60 * i, "y": 10, "w": 40, "h": 40},
            "image": {"width": 320, "height": 200},
            "prompt": f"{tag} finding {i}",
        }
        for i in range(2)
    ]
    annotation, annotation_withdraw = (
        r["id"] for r in ws.call("annotate", {"board": board, "items": items}, AGENT)["results"]
    )
    ws.call("agent_verdict", {"board": board, "action": "accept", "ids": [annotation]})
    # Comment threads: one on the image card, one of its own for delete_comment.
    comment, comment_delete = (
        ws.call(
            "add_comment",
            {"board": board, "text": f"{tag} comment {i}", "cardId": image["id"]},
            USER,
        )["id"]
        for i in range(2)
    )
    question = ws.call(
        "ask_board", {"board": board, "prompt": f"{tag} question?", "options": ["yes", "no"]}
    )["question"]
    link = ws.call("share_board", {"board": board})["id"]
    link_revoke = ws.call("share_board", {"board": board})["id"]
    ask = ws.call("post_ask", {"question": f"{tag} ask?", "project": project})["ask"]["id"]
    rule_source = (
        f"---\nid: {tag}-tone\nfamily: copy\ncheck: judgment\nseverity: medium\n---\n\n"
        f"Words on the screen are kind ({tag}).\n\nVerify:\n\n- no blame in errors\n"
    )
    ws.call("put_review_rule", {"source": rule_source})
    ws.call("put_review_rule", {"source": rule_source.replace(f"{tag}-tone", f"{tag}-gone")})
    ws.call("put_review_rule", {"source": rule_source, "project": spare_project})
    planned = ws.call("review_plan", {"boards": [board], "cards": [image["id"]]}, AGENT)
    with ws.store.read() as tx:
        run = tx.review_run(ws.workspace_id, planned["run"])
        assert run is not None
        sight = run.sight
    after = [{"name": f"{tag}-after.png", "data": _png("white")}]
    doc = {
        "kind": "doc",
        "payload": {
            "title": f"{tag} fix",
            "elements": [{"kind": "prose", "payload": {"md": f"{tag} done"}}],
        },
    }
    pushed = ws.call(
        "push_doc",
        {"board": board, "doc": doc, "files": after, "shots": [f"{tag}-after.png"]},
        AGENT,
    )
    sprint = _one(ws.call("create", {"kind": "sprint", "key": f"{tag}-s1"}), "sprint", "id")
    ws.call(
        "create",
        {"kind": "project_memory", "project": project, "key": "notes", "text": f"{tag} secret"},
    )
    ws.call(
        "create",
        {"kind": "component", "board": board, "name": f"{tag}-parts", "cardIds": [text_card]},
    )
    task = ws.call(
        "create",
        {
            "kind": "task",
            "title": f"{tag} task",
            "body": f"{tag} secret body",
            "project": project,
            "gates": [{"title": f"{tag} step", "when": f"{tag} merged"}],
        },
    )["task"]["id"]
    (ref,) = ws.call(
        "upload_task_file",
        {"id": task, "filename": f"{tag}-notes.md", "content": f"{tag} secret notes"},
    )["uploaded"]
    drafts = ws.call(
        "propose_tasks",
        {"drafts": [{"title": f"{tag} draft one"}, {"title": f"{tag} draft two"}]},
        AGENT,
    )["drafts"]
    child = ws.call(
        "create", {"kind": "task", "title": f"{tag} child", "parentId": task, "project": project}
    )["task"]["id"]
    storm = f"{tag}-storm"
    ws.call("create", {"kind": "board", "slug": storm, "subgroup": "brainstorming"})
    epic = ws.call(
        "create", {"kind": "task", "title": f"{tag} epic", "type": "epic", "project": project}
    )["task"]["id"]
    ws.call("add_task_ref", {"id": epic, "kind": "board", "ref": storm})
    child_board = f"{tag}-kid"
    ws.call("create", {"kind": "board", "slug": child_board, "parentBoard": board})
    trashed = ws.call("create", {"kind": "task", "title": f"{tag} trashed"})["task"]["id"]
    with ws.store.transaction() as tx:
        tx.trash_task(trashed, reason="test", detail={}, by="owner:test")
    token_name = f"{tag}-spare"
    ws.create_token("user", token_name)
    token = next(t["id"] for t in ws.tokens() if t["name"] == token_name)
    hooks = [
        ws.call(
            "create_webhook",
            {"url": f"https://{tag}.example.com/{n}", "events": ["task.status_changed"]},
        )["webhook"]["id"]
        for n in ("hook", "gone")
    ]
    with ws.store.transaction() as tx:
        delivery = tx.queue_webhook_delivery(
            hooks[0], "task.status_changed", {"tag": tag}, due=tx.now()
        ).id
    ws.jobs.drain()
    ws.drawing.drain()
    return Ids(
        ws=ws.name,
        tag=tag,
        board=board,
        personal=personal,
        project=project,
        spare_project=spare_project,
        section=section,
        text_card=text_card,
        spare_card=spare_card,
        edge=edge,
        edge_remove=edge_remove,
        trashed_card=trashed_card,
        image_card=image["id"],
        image_key=image_key,
        checklist=checklist,
        diagram=diagram,
        pdf=pdf,
        task=task,
        child_task=child,
        epic=epic,
        child_board=child_board,
        task_ref=ref["id"],
        task_ref_name=ref["ref"],
        draft_accept=drafts[0]["id"],
        draft_decline=drafts[1]["id"],
        trashed_task=trashed,
        annotation=annotation,
        annotation_withdraw=annotation_withdraw,
        comment=comment,
        comment_delete=comment_delete,
        question=question["id"],
        ask=ask,
        link=link,
        link_revoke=link_revoke,
        rule=f"{tag}-tone",
        rule_delete=f"{tag}-gone",
        run=planned["run"],
        sight=sight,
        doc_version=pushed["version"],
        doc_card=pushed["card"],
        doc_file=f"{tag}-after.png",
        token=token,
        token_name=token_name,
        sprint=sprint,
        webhook=hooks[0],
        webhook_delete=hooks[1],
        delivery=delivery,
    )


GHOST_TAG = "ghostside"


def ghost_of(away: Ids) -> Ids:
    """Ids shaped like away's that name nothing in any workspace: away's ids must be
    answered as these are, so an answer tells nothing of whether they exist."""
    numbers = itertools.count(2**31 - 10_000)  # no id gets this far; versions fit too
    values = {
        f.name: next(numbers)
        if isinstance(v := getattr(away, f.name), int)
        else v.replace(AWAY_TAG, GHOST_TAG)
        for f in attrs.fields(Ids)
    }
    values.update(
        link="sh_ghost0",
        link_revoke="sh_ghost1",
        image_key="sha256:" + "0" * 64,
        run="rr_ghost",
        sight="ZZZZ",
    )
    return Ids(**values)


def _pdf_card(ws: Workspace, board: str, tag: str) -> int:
    """A PDF file card, its page images landed (no background job changes it later)."""
    img = Image.new("RGB", (200, 280), "white")
    out = io.BytesIO()
    img.save(out, format="PDF", resolution=72)
    data = base64.b64encode(out.getvalue()).decode("ascii")
    (card,) = ws.call(
        "upload_files", {"board": board, "files": [{"name": f"{tag}.pdf", "data": data}]}, AGENT
    )["cards"]
    ws.jobs.drain()
    return int(card["id"])


# ------------------------------------------------------------------ samples


Params = dict[str, Any]
#: Builds a row's params from ``own`` (the ids under test: away's, then home's) and
#: ``home`` (home's ids, for a call that names home's board and another id of ``own``).
Builder = Callable[[Ids, Ids], Params]


@attrs.frozen
class Sample:
    """One call of a row: its params, and what a call with away's ids must answer.

    ``quiet`` says why the row may answer away's ids without a 404 (a filter, a
    search): such a call must still carry none of away's data. ``home`` is the
    status home's own ids must get instead of "anything but 404" (403 for a board
    personal to someone else). ``away`` is the status away's ids get: 404, or the
    documented status of the same refusal where an id sits inside content: 422 for a
    task field naming an unknown vocabulary word (``unknown_sprint``, docs/tasks.md),
    400 for a card a batch names that is not on the board (``unknown_card``). ``sane`` False skips the run with home's ids where
    the row's first sample already proved them real and a second run would spend
    a throwaway id twice.
    """

    params: Builder
    quiet: str | None = None
    home: int | None = None
    sane: bool = True
    away: int = 404


_fresh = itertools.count(1)


def _new_slug(own: Ids) -> str:
    return f"{own.tag}-new-{next(_fresh)}"


def _item(card: int, key: str) -> Params:
    return {
        "key": key,
        "cardId": card,
        "cardVersion": 1,
        "region": {"x": 200, "y": 100, "w": 30, "h": 30},
        "image": {"width": 320, "height": 200},
        "prompt": "the button is hidden",
    }


_TEXT = [{"kind": "text", "payload": {"md": "more"}}]
_DOC = {
    "kind": "doc",
    "payload": {"title": "Notes", "elements": [{"kind": "prose", "payload": {"md": "x"}}]},
}
_CANVAS = {
    "nodes": [{"id": "a", "type": "text", "text": "hi", "x": 0, "y": 0, "width": 90, "height": 40}]
}
_FILTER = "a filter: an unknown value lists nothing of this workspace, never another's rows"
_SEARCH = "search answers with what the caller may see; another workspace's rows are never among it"

S = Sample
SAMPLES: dict[str, list[Sample]] = {
    # ---- share links, tokens, members
    "list_share_links": [S(lambda o, h: {"board": o.board})],
    "revoke_share_link": [
        S(lambda o, h: {"board": o.board, "id": o.link_revoke}),
        S(lambda o, h: {"board": h.board, "id": o.link}),
    ],
    "revoke_token": [
        S(lambda o, h: {"token": str(o.token)}),
        S(lambda o, h: {"token": o.token_name}, sane=False),
    ],
    "set_member": [S(lambda o, h: {"token": o.token, "role": "member"})],
    # ---- webhooks
    "update_webhook": [S(lambda o, h: {"id": o.webhook, "events": ["board.changed"]})],
    "delete_webhook": [S(lambda o, h: {"id": o.webhook_delete})],
    "list_webhook_deliveries": [S(lambda o, h: {"id": o.webhook})],
    "redeliver_webhook": [S(lambda o, h: {"delivery": o.delivery})],
    # ---- stored files
    "card_file": [S(lambda o, h: {"id": o.image_card})],
    "card_blob": [
        S(lambda o, h: {"id": o.image_card, "key": o.image_key}),
        S(lambda o, h: {"id": h.image_card, "key": o.image_key, "data": False}),
    ],
    "scrape_board": [S(lambda o, h: {"board": o.board, "section": o.section})],
    # ---- review rules, runs
    "review_brief": [S(lambda o, h: {"project": o.project})],
    "request_review": [
        S(lambda o, h: {"board": o.board}),
        S(lambda o, h: {"project": o.project}),
    ],
    "list_review_rules": [S(lambda o, h: {"project": o.project})],
    "get_review_rule": [
        S(lambda o, h: {"id": o.rule}),
        S(lambda o, h: {"id": o.rule, "project": o.spare_project}),
    ],
    "put_review_rule": [S(lambda o, h: {"id": o.rule, "severity": "low"})],
    "delete_review_rule": [S(lambda o, h: {"id": o.rule_delete})],
    "clear_review_rules": [S(lambda o, h: {"project": o.spare_project})],
    "review_plan": [
        S(lambda o, h: {"boards": [o.board], "cards": [o.image_card]}),
        S(lambda o, h: {"run": o.run, "sight": o.sight}),
        S(lambda o, h: {"boards": [o.personal]}, home=403),
    ],
    # ---- work
    "peek_work": [
        S(lambda o, h: {"board": o.board}),
        S(lambda o, h: {"project": o.project}),
        S(lambda o, h: {"board": o.personal}, home=403),
    ],
    "take_work": [
        S(lambda o, h: {"board": o.board, "agent": "x"}),
        S(lambda o, h: {"project": o.project, "agent": "x"}),
        S(lambda o, h: {"board": o.personal, "agent": "x"}, home=403),
    ],
    "wait_for_work": [
        S(lambda o, h: {"board": o.board, "agent": "x", "timeout": 0}),
        S(lambda o, h: {"project": o.project, "agent": "x", "timeout": 0}),
        S(lambda o, h: {"board": o.personal, "agent": "x", "timeout": 0}, home=403),
    ],
    "heartbeat_work": [
        S(
            lambda o, h: {
                "agent": "x",
                "done": [f"ask:{o.ask}", f"annotation:{o.annotation}"],
                "release": [f"choice:{o.question}"],
            },
            quiet="a heartbeat reports which of the caller's own leases it kept; an item it "
            "holds no lease on is left alone, in any workspace",
        )
    ],
    "post_ask": [
        S(lambda o, h: {"question": "why?", "board": o.board}),
        S(lambda o, h: {"question": "why?", "project": o.project}),
        S(lambda o, h: {"question": "why?", "board": o.personal}, home=403),
    ],
    "get_ask": [S(lambda o, h: {"id": o.ask})],
    "answer_ask": [S(lambda o, h: {"id": o.ask, "answer": "because", "agent": "x"})],
    # ---- pictures and annotations
    "get_card_image": [
        S(lambda o, h: {"board": o.board, "cardId": o.image_card}),
        S(lambda o, h: {"board": o.board, "cardIds": [o.image_card, o.text_card]}),
        S(lambda o, h: {"run": o.run, "sheet": 1}),
        S(lambda o, h: {"board": h.board, "cardId": o.image_card}),
    ],
    "annotate": [
        S(lambda o, h: {"board": o.board, "agent": "x", "items": [_item(o.image_card, "t1")]}),
        S(
            lambda o, h: {
                "board": h.board,
                "agent": "x",
                "dryRun": True,
                "items": [_item(o.image_card, "t2")],
            },
            quiet="a batch answers item by item: a card not on the board is a rejected item",
        ),
        S(
            lambda o, h: {
                "board": h.board,
                "agent": "x",
                "run": o.run,
                "sight": o.sight,
                "items": [_item(h.image_card, "t3")],
            }
        ),
    ],
    "set_status": [S(lambda o, h: {"id": o.annotation, "status": "working"})],
    "attach_after": [
        S(
            lambda o, h: {
                "id": o.annotation,
                "version": o.doc_version,
                "file": o.doc_file,
                "agent": "x",
            }
        ),
        S(
            lambda o, h: {
                "id": h.annotation,
                "version": o.doc_version,
                "file": o.doc_file,
                "setBoard": o.board,
                "agent": "x",
            }
        ),
        S(
            lambda o, h: {
                "id": o.annotation,
                "version": 1,
                "file": "x.png",
                "setBoard": o.personal,
                "agent": "x",
            },
            home=403,
        ),
    ],
    "reply": [S(lambda o, h: {"id": o.annotation, "text": "on it", "agent": "x"})],
    "agent_verdict": [
        S(lambda o, h: {"board": o.board, "action": "accept", "ids": [o.annotation]}),
        S(lambda o, h: {"board": h.board, "action": "accept", "ids": [o.annotation]}),
    ],
    "retriage_annotation": [S(lambda o, h: {"id": o.annotation, "intent": "fix"})],
    "withdraw_annotation": [S(lambda o, h: {"id": o.annotation_withdraw})],
    "get_annotation": [S(lambda o, h: {"id": o.annotation})],
    "add_comment": [
        S(lambda o, h: {"board": o.board, "text": "hi", "at": {"x": 1, "y": 2}}),
        S(lambda o, h: {"board": h.board, "text": "hi", "cardId": o.image_card}),
    ],
    "resolve_comment": [S(lambda o, h: {"id": o.comment})],
    "reopen_comment": [S(lambda o, h: {"id": o.comment})],
    # The author (USER) is who changes its messages; the owner hears 403 on home's own.
    "edit_comment": [S(lambda o, h: {"id": o.comment, "text": "edited"}, home=403)],
    "delete_comment": [S(lambda o, h: {"id": o.comment_delete}, home=403)],
    # ---- boards
    "board_outline": [S(lambda o, h: {"board": o.board})],
    "card_history": [
        S(lambda o, h: {"board": o.board, "id": o.text_card}),
        S(lambda o, h: {"board": h.board, "id": o.text_card}),
    ],
    "board_changes": [S(lambda o, h: {"board": o.board, "since": 0})],
    "board_presence": [
        S(lambda o, h: {"board": o.board, "cursor": {"x": 1, "y": 2}}),
        S(lambda o, h: {"board": h.board, "selection": [o.text_card]}),
        S(lambda o, h: {"board": h.board, "dragging": {"id": o.text_card, "x": 0, "y": 0}}),
    ],
    "tick_checklist": [S(lambda o, h: {"id": o.checklist, "item": 0, "done": True})],
    "set_board_meta": [S(lambda o, h: {"board": o.board, "tags": ["seen"], "tags_mode": "add"})],
    "share_board": [
        S(lambda o, h: {"board": o.board, "cardId": o.text_card}),
        S(lambda o, h: {"board": h.board, "cardId": o.text_card}),
    ],
    "ask_board": [
        S(lambda o, h: {"board": o.board, "prompt": "ok?", "options": ["y", "n"]}),
        S(
            lambda o, h: {
                "board": h.board,
                "prompt": "ok?",
                "options": ["y", "n"],
                "cardId": o.text_card,
            }
        ),
    ],
    "answer_question": [
        S(lambda o, h: {"id": o.question, "answer": "yes"}),
        S(lambda o, h: {"board": h.board, "id": o.question, "answer": "yes"}),
    ],
    "send_answers": [S(lambda o, h: {"board": o.board})],
    # ---- tasks
    "fire_gates": [
        S(lambda o, h: {"id": o.task, "when": "nothing fires on this"}),
        S(lambda o, h: {"project": o.project, "when": f"{o.tag} merged"}, quiet=_FILTER),
    ],
    "add_task_ref": [
        S(lambda o, h: {"id": o.task, "kind": "session", "ref": "s-1"}),
        S(lambda o, h: {"id": h.task, "kind": "board", "ref": o.board}),
    ],
    "upload_task_file": [S(lambda o, h: {"id": o.task, "filename": "n.md", "content": "more"})],
    "attach_task_files": [
        S(lambda o, h: {"id": o.task, "files": [{"name": "shot.png", "data": _png("red")}]})
    ],
    "read_task_ref": [
        S(lambda o, h: {"id": o.task, "refId": o.task_ref}),
        S(lambda o, h: {"id": h.task, "refId": o.task_ref}),
        S(lambda o, h: {"id": h.task, "ref": o.task_ref_name}),
    ],
    "ask_task": [
        S(lambda o, h: {"id": o.task, "question": "what next?"}),
        S(lambda o, h: {"project": o.project, "question": "what next?"}),
    ],
    "task_file": [
        S(lambda o, h: {"id": o.task, "refId": o.task_ref}),
        S(lambda o, h: {"id": h.task, "refId": o.task_ref}),
    ],
    "compose_brief": [S(lambda o, h: {"id": o.epic})],
    "bulk_update_tasks": [
        S(lambda o, h: {"ids": [o.task], "patch": {"priority": "high"}}),
        S(lambda o, h: {"ids": [h.task, o.task], "patch": {"priority": "high"}}),
        S(lambda o, h: {"ids": [h.child_task], "patch": {"parentId": o.task}}),
        S(lambda o, h: {"ids": [h.child_task], "patch": {"sprintId": o.sprint}}, away=422),
    ],
    "update_cards": [
        S(lambda o, h: {"patch": [{"id": o.text_card, "x": -400}]}),
        S(lambda o, h: {"remove": [o.spare_card]}),
        S(lambda o, h: {"restore": [o.trashed_card]}),
        S(lambda o, h: {"patch": [{"id": h.text_card, "x": -400}, {"id": o.text_card, "x": 0}]}),
        S(lambda o, h: {"board": h.board, "patch": [{"id": o.text_card, "x": 0}]}),
        # A stale version on their card is 404 too, never 409 with their card's box.
        S(lambda o, h: {"patch": [{"id": o.text_card, "x": 0, "version": 999}]}),
    ],
    # Framing the diagram (a frame inside the section; nothing else names it); unframing
    # the text card, no frame (400 at home), so no sample takes a frame away.
    "frame_cards": [
        S(lambda o, h: {"board": o.board, "ids": [o.diagram]}),
        S(lambda o, h: {"board": h.board, "ids": [o.diagram]}),
    ],
    "unframe_cards": [
        S(lambda o, h: {"board": o.board, "id": o.text_card}),
        S(lambda o, h: {"board": h.board, "id": o.text_card}),
    ],
    "update_edges": [
        S(lambda o, h: {"board": o.board, "set": [{"id": o.edge, "label": "x"}]}),
        S(lambda o, h: {"board": o.board, "remove": [o.edge_remove]}),
        S(lambda o, h: {"board": h.board, "set": [{"id": o.edge, "label": "x"}]}),
        S(lambda o, h: {"board": h.board, "remove": [o.edge_remove]}, sane=False),
        # A stale counter on their wire is 404 too, never 409 with their wire.
        S(lambda o, h: {"board": h.board, "remove": [o.edge], "edgesRev": 0}, sane=False),
    ],
    "arrange": [
        S(lambda o, h: {"board": o.board, "mode": "grid"}),
        S(lambda o, h: {"board": h.board, "mode": "grid", "scope": [o.text_card, o.checklist]}),
    ],
    "compose_board": [
        S(lambda o, h: {"board": o.board, "cards": _TEXT}),
        S(lambda o, h: {"board": h.board, "cards": _TEXT, "anchorCardId": o.text_card}),
        S(lambda o, h: {"board": h.board, "cards": _TEXT, "anchor": {"cardId": o.text_card}}),
        S(
            lambda o, h: {
                "board": h.board,
                "cards": [{"kind": "ref", "payload": {"card": o.text_card}}],
            },
            away=400,  # a ref in a batch to no card of the workspace: 400 unknown_card
        ),
        S(
            lambda o, h: {
                "board": h.board,
                "edges": [{"from": h.text_card, "to": o.text_card}],
            },
            away=400,  # a wire to no card of the board: 400 unknown_card
        ),
        S(
            lambda o, h: {
                "board": h.board,
                "questions": [{"prompt": "ok?", "options": ["y", "n"], "cardId": o.text_card}],
            },
            away=400,  # a question on no card of the board: 400 unknown_card
        ),
    ],
    "hand_back": [S(lambda o, h: {"id": o.task, "summary": "did it"})],
    "propose_tasks": [S(lambda o, h: {"drafts": [{"title": "more", "parentId": o.task}]})],
    "accept_tasks": [S(lambda o, h: {"ids": [o.draft_accept]})],
    "decline_tasks": [S(lambda o, h: {"ids": [o.draft_decline]})],
    "render_pages": [S(lambda o, h: {"id": o.pdf})],
    "pickup_task": [S(lambda o, h: {"id": o.task})],
    "upload_files": [
        S(lambda o, h: {"board": o.board, "files": [{"name": "u.png", "data": _png("red")}]}),
        S(
            lambda o, h: {
                "board": h.board,
                "files": [{"name": "u.png", "data": _png("red")}],
                "anchor": o.text_card,
            }
        ),
    ],
    "push_doc": [S(lambda o, h: {"board": o.board, "doc": _DOC})],
    "spot": [S(lambda o, h: {"parentId": o.task, "title": "follow up"})],
    "transfer_project": [S(lambda o, h: {"project": o.project, "to": o.ws, "dryRun": True})],
    "restore_task": [S(lambda o, h: {"id": o.trashed_task})],
    "render_board": [S(lambda o, h: {"board": o.board})],
    "export_board": [
        S(lambda o, h: {"board": o.board, "format": "canvas"}),
        S(lambda o, h: {"board": o.board, "format": "excalidraw", "section": o.section}),
        # Their card named on a board of mine: a card that is not there, 404 unknown_card.
        S(lambda o, h: {"board": h.board, "format": "canvas", "cards": [o.text_card]}),
        S(lambda o, h: {"board": o.board, "format": "mermaid", "card": o.diagram}),
        # Their diagram named on a board of mine: 404 unknown_card, never their text.
        S(lambda o, h: {"board": h.board, "format": "mermaid", "card": o.diagram}),
        S(lambda o, h: {"board": o.board, "format": "pdf", "pages": "tile"}),
        S(lambda o, h: {"board": o.board, "format": "pdf", "card": o.doc_card}),
        # Their doc card named on a board of mine: 404 unknown_card, never their pages.
        S(lambda o, h: {"board": h.board, "format": "pdf", "card": o.doc_card}),
        S(lambda o, h: {"board": o.board, "format": "png"}),
    ],
    "import_board": [S(lambda o, h: {"board": o.board, "document": _CANVAS})],
    "board_stamp": [S(lambda o, h: {"board": o.board})],
    "refresh_card": [S(lambda o, h: {"id": o.diagram})],
    # ---- generic verbs
    "create:board": [
        S(lambda o, h: {"kind": "board", "slug": _new_slug(o), "parentBoard": o.board}),
        S(
            lambda o, h: {"kind": "board", "slug": _new_slug(o), "parentBoard": o.personal},
            home=403,
        ),
    ],
    "create:task": [
        S(lambda o, h: {"kind": "task", "title": "sub", "parentId": o.task}),
        S(lambda o, h: {"kind": "task", "title": "sub", "sprintId": o.sprint}, away=422),
    ],
    "update:board": [
        S(lambda o, h: {"kind": "board", "board": o.board, "tags": ["x"], "tags_mode": "add"})
    ],
    "update:task": [
        S(lambda o, h: {"kind": "task", "id": o.task, "priority": "low"}),
        S(lambda o, h: {"kind": "task", "id": h.task, "parentId": o.epic}),
        S(lambda o, h: {"kind": "task", "id": h.task, "sprintId": o.sprint}, away=422),
    ],
    "list:section": [S(lambda o, h: {"kind": "section", "board": o.board})],
    "create:section": [S(lambda o, h: {"kind": "section", "board": o.board, "title": "Later"})],
    "list:questions": [S(lambda o, h: {"kind": "questions", "board": o.board})],
    "get:tag": [S(lambda o, h: {"kind": "tag", "tag": o.tag})],
    "update:tag": [S(lambda o, h: {"kind": "tag", "tag": o.tag, "colour": "#112233"})],
    "create:project_memory": [
        S(lambda o, h: {"kind": "project_memory", "project": o.project, "key": "n", "text": "t"})
    ],
    "update:project_memory": [
        S(
            lambda o, h: {
                "kind": "project_memory",
                "project": o.project,
                "key": "notes",
                "text": "u",
            }
        )
    ],
    "list:project_memory": [S(lambda o, h: {"kind": "project_memory", "project": o.project})],
    "list:shot": [S(lambda o, h: {"kind": "shot", "board": o.board})],
    "get:shot": [
        S(lambda o, h: {"kind": "shot", "board": o.board, "name": o.doc_file}),
        S(lambda o, h: {"kind": "shot", "board": h.board, "name": o.doc_file}),
    ],
    "create:component": [
        S(
            lambda o, h: {
                "kind": "component",
                "board": o.board,
                "name": "c",
                "cardIds": [o.text_card],
            }
        ),
        S(
            lambda o, h: {
                "kind": "component",
                "board": h.board,
                "name": "c",
                "cardIds": [o.text_card],
            }
        ),
    ],
    "get:component": [S(lambda o, h: {"kind": "component", "name": f"{o.tag}-parts"})],
    "get:project_memory": [
        S(lambda o, h: {"kind": "project_memory", "project": o.project, "key": "notes"})
    ],
    "list:board": [
        S(lambda o, h: {"kind": "board", "parentBoard": o.board}),
        S(lambda o, h: {"kind": "board", "parentBoard": o.personal}, home=403),
        S(lambda o, h: {"kind": "board", "project": o.project}, quiet=_FILTER),
    ],
    "list:task": [
        S(lambda o, h: {"kind": "task", "f": {"parentId": o.task}}, quiet=_FILTER),
        S(lambda o, h: {"kind": "task", "f": {"project": o.project}}, quiet=_FILTER),
    ],
    **{
        f"list:{kind}": [S(lambda o, h, k=kind: {"kind": k, "project": o.project}, quiet=_FILTER)]
        for kind in ("field", "sprint", "milestone", "view", "rule", "state", "label")
    },
    "get:comments": [
        S(lambda o, h: {"kind": "comments", "board": o.board}),
        S(
            lambda o, h: {"kind": "comments", "board": h.board, "cardId": o.image_card},
            quiet=_FILTER,
        ),
    ],
    "get:annotations": [
        S(lambda o, h: {"kind": "annotations", "board": o.board}),
        S(
            lambda o, h: {"kind": "annotations", "board": h.board, "cardId": o.image_card},
            quiet=_FILTER,
        ),
    ],
    "get:edges": [
        S(lambda o, h: {"kind": "edges", "board": o.board}),
        S(
            lambda o, h: {"kind": "edges", "board": h.board, "ids": [o.edge]},
            quiet="ids not on the board are listed as missing",
        ),
    ],
    "get:cards": [
        S(lambda o, h: {"kind": "cards", "board": o.board, "ids": [o.text_card]}),
        S(
            lambda o, h: {"kind": "cards", "board": h.board, "ids": [o.text_card]},
            quiet="ids not on the board are listed as missing",
        ),
    ],
    "get:board": [
        S(lambda o, h: {"kind": "board", "board": o.board}),
        S(lambda o, h: {"kind": "board", "slug": o.personal}, home=403),
    ],
    "get:questions": [S(lambda o, h: {"kind": "questions", "board": o.board})],
    "get:task": [S(lambda o, h: {"kind": "task", "id": o.task})],
    **{
        f"search:{kind}": [
            S(lambda o, h, k=kind: {"kind": k, "q": "secret"}, quiet=_SEARCH),
            S(lambda o, h, k=kind: {"kind": k, "q": f"{o.ws}/{o.task}"}, quiet=_SEARCH),
            S(lambda o, h, k=kind: {"kind": k, "q": f"#{o.task}"}, quiet=_SEARCH),
            S(
                lambda o, h, k=kind: {"kind": k, "q": f"{o.ws}/{o.task}", "mode": "resolve"},
                quiet=_SEARCH,
            ),
        ]
        for kind in ("any", "board", "card", "task")
    },
}

#: Rows that take no id of any workspace's data, each with why.
NO_IDS: dict[str, str] = {
    "list_tokens": "lists the tokens that are members of the caller's workspace; takes no id",
    "list_workspaces": "lists the caller's own memberships; takes no id",
    "whoami": "describes the caller itself; takes no id",
    "list_members": "lists the members of the caller's workspace; takes no id",
    "lint_review_rule": "lints the rule text it is sent; touches no storage",
    "validate": "checks the element it is sent against the contract; touches no storage",
    "docs": "answers documentation topics; touches no storage",
    "list:tag": "lists the tags of the caller's workspace; takes no id",
    "create:tag": "makes a word of the caller's workspace's tag vocabulary; a name is made "
    "there, never looked up in another workspace",
    "list:component": "lists the components of the caller's workspace; takes no id",
    "invite_member": "mints an invitation into the caller's own workspace; takes only a role",
    "create_webhook": "registers a webhook of the caller's workspace; takes a URL and events",
    "list_webhooks": "lists the webhooks of the caller's workspace; takes no id",
    "create_workspace": "takes a new name; another workspace's name answers 409 "
    "workspace_exists (names are unique in a deployment) and reaches none of its data "
    "(tests/service/workspaces/test_admin.py)",
    "rename_workspace": "renames the caller's own workspace; another's name answers 409 "
    "workspace_exists and changes nothing there (tests/service/workspaces/test_admin.py)",
    "archive_workspace": "archives the caller's own workspace; takes no id",
    "create_token": "mints a token of the caller's own workspace; takes a kind, a name, a role",
    "accept_invitation": "takes an invitation secret, which is the other workspace's consent "
    "to be joined (tests/service/workspaces/test_memberships.py walks its refusals)",
    **{
        f"create:{kind}": "makes a vocabulary word of the caller's workspace; a project slug "
        "here is a name made on first use, not a lookup"
        for kind in ("field", "sprint", "milestone", "view", "rule")
    },
}

# ------------------------------------------------------------------ two workspaces


@attrs.frozen
class World:
    """Home and away on one store, their ids, home's owner token and home's AI stub."""

    home: Workspace
    away: Workspace
    h: Ids
    a: Ids
    owner: Principal
    ai: StubAi

    @property
    def g(self) -> Ids:
        """Ghost ids: shaped like away's, naming nothing anywhere."""
        return ghost_of(self.a)


def _open(kind: str, tmp: Path, name: str, ai: StubAi) -> Workspace:
    if kind == "memory":
        return Workspace.open(name=name, multi_workspace=True, ai=ai)
    if kind == "sqlite":
        return Workspace.open(f"sqlite:///{tmp / 'ws.db'}", name=name, multi_workspace=True, ai=ai)
    if not POSTGRES_URL:
        pytest.skip("LAYOUTKIT_TEST_POSTGRES_URL is not set; PostgreSQL tests need a server")
    # A schema of its own: the shared database's public schema is also where other
    # tests purge expired trash deployment-wide (home's trashed card with it).
    store = open_store(POSTGRES_URL, schema=f"lk_test_{name.replace('-', '_')}")
    return Workspace(store, name=name, multi_workspace=True, ai=ai)


@pytest.fixture(scope="module", params=["memory", "sqlite", "postgres"])
def world(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[World]:
    """The fixture data made once per backend: every test of the module shares it, so no
    call of a test spends what another needs (throwaway ids are the samples' own)."""
    run = uuid.uuid4().hex[:8]
    ai = StubAi()
    home = _open(request.param, tmp_path_factory.mktemp("targets"), f"{HOME_TAG}-{run}", ai)
    away = Workspace(home.store, name=f"{AWAY_TAG}-{run}", multi_workspace=True, ai=StubAi())
    try:
        h, a = build(home, HOME_TAG), build(away, AWAY_TAG)
        owner = home.authenticate(home.create_token("owner", "o"))
        assert owner is not None and owner.token is not None
        yield World(home, away, h, a, owner, ai)
    finally:
        away.jobs.shutdown()
        away.drawing.shutdown()
        home.close()
        if request.param == "postgres":
            drop_schema(f"lk_test_{HOME_TAG}_{run}".replace("-", "_"))


def _record(value: Any) -> Any:
    return attrs.asdict(value) if attrs.has(type(value)) else value


def away_digest(world: World) -> str:
    """Everything of away's data the samples could reach, as one hash."""
    ws, a = world.away, world.a
    wid = ws.workspace_id
    # Faces drawn and links fetched in the background land when they land: an
    # earlier row's job must not pass for a change this row made.
    for space in (world.home, world.away):
        space.jobs.drain(timeout=60)
        space.drawing.drain(timeout=60)
    rows: list[Any] = []
    with ws.store.read() as tx:
        rows.append(tx.workspace(wid))
        projects = tx.projects(wid)
        rows += projects
        for board in tx.boards(wid):
            rows += [board, *tx.cards(board.id, include_deleted=True), *tx.edges(board.id)]
            rows += [*tx.questions(board.id), *tx.annotations(board.id)]
            rows += [*tx.share_links(board.id), *tx.events(board_id=board.id)]
        ids = {t.id for t in tx.tasks(wid)}
        ids |= {a.task, a.child_task, a.epic, a.draft_accept, a.draft_decline, a.trashed_task}
        for task_id in sorted(ids):
            rows += [tx.task(task_id), *tx.task_refs(task_id), *tx.task_events(task_id)]
        rows += tx.trashed_tasks(wid)
        for project in [None, *projects]:
            rows += tx.review_rules(wid, None if project is None else project.id)
        rows += [tx.review_run(wid, a.run), tx.work_ask(a.ask)]
        for kind in ("state", "label", "field", "sprint", "milestone", "view", "rule"):
            rows += tx.task_vocab(wid, kind)
        rows += tx.memberships(workspace_id=wid)
        rows += tx.api_tokens(wid)
        for hook in tx.webhooks(wid):
            rows += [hook, *tx.webhook_deliveries(hook.id, limit=200)]
        items = [f"ask:{a.ask}", f"annotation:{a.annotation}", f"choice:{a.question}"]
        rows.append(tx.work_claims(wid, items))
    text = json.dumps([_record(r) for r in rows], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


# ------------------------------------------------------------------ calling a row


@attrs.frozen
class Outcome:
    status: int
    code: str | None
    body: Any


def attempt(ws: Workspace, row: str, params: Params, who: Principal) -> Outcome:
    op = row.split(":")[0]
    try:
        return Outcome(200, None, ws.call(op, params, who))
    except ServiceError as exc:
        return Outcome(exc.status, exc.code, exc.body)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def carries_away(answer: Any, params: Params, away: Ids) -> bool:
    """Whether ``answer`` holds anything of away's (its tag) beyond echoing the params
    (and the workspace name a task id in them spells, which a reading of it echoes)."""
    text = json.dumps(answer, default=str)
    echoed = set(_strings(params))
    if any(away.ws in s for s in echoed):
        echoed.add(away.ws)
    for sent in sorted(echoed, key=len, reverse=True):
        text = text.replace(json.dumps(sent)[1:-1], "")
    return AWAY_TAG in text


def _why(row: str, params: Params, who: Principal, out: Outcome) -> str:
    return f"{row} {params} as {who.label}: {out.status} {out.code} {str(out.body)[:400]}"


def _check_away_call(world: World, row: str, sample: Sample, who: Principal) -> None:
    params = sample.params(world.a, world.h)
    world.ai.prompts.clear()
    out = attempt(world.home, row, params, who)
    assert not any(AWAY_TAG in p for p in world.ai.prompts), "away's data reached the AI: " + row
    assert not carries_away(out.body, params, world.a), "leaks away's data: " + _why(
        row, params, who, out
    )
    if sample.quiet is not None:
        return
    # Away's ids are answered as ids that never were: the answer is no oracle.
    ghost = attempt(world.home, row, sample.params(world.g, world.h), who)
    assert (out.status, out.code) == (ghost.status, ghost.code), (
        f"unlike a ghost's {ghost.status} {ghost.code}: " + _why(row, params, who, out)
    )
    if out.status == 403:
        # A refusal made before anything is looked up: the same call with home's ids
        # is refused the same way.
        mine = attempt(world.home, row, sample.params(world.h, world.h), who)
        assert (mine.status, mine.code) == (403, out.code), _why(row, params, who, out)
        return
    assert out.status == sample.away, f"not a {sample.away}: " + _why(row, params, who, out)


@pytest.mark.parametrize("row", sorted(SAMPLES))
def test_another_workspaces_ids_answer_404_and_change_nothing(world: World, row: str) -> None:
    before = away_digest(world)
    for sample in SAMPLES[row]:
        for who in (world.owner, USER):
            _check_away_call(world, row, sample, who)
    assert away_digest(world) == before, f"{row} changed away's data"
    for sample in SAMPLES[row]:
        if not sample.sane:
            continue
        params = sample.params(world.h, world.h)
        mine = attempt(world.home, row, params, world.owner)
        if sample.home is not None:
            assert mine.status == sample.home, "home's ids: " + _why(row, params, world.owner, mine)
        else:
            assert mine.status != 404, "home's own ids: " + _why(row, params, world.owner, mine)


#: The ways a task id may be written, filled with away's name, project and task number.
TASK_ID_FORMS: tuple[Callable[[Ids, int], str], ...] = (
    lambda a, n: f"{a.ws}/{n}",
    lambda a, n: f"/{a.ws}/{a.project}/tasks/{n}",
    lambda a, n: f"https://lk.test/{a.ws}/tasks/{n}",
    lambda a, n: f"tk-{n}",
    lambda a, n: f"#{n}",
)


def _with_task_ids(value: Any, path: tuple[str, ...], write: Callable[[int], str]) -> Any:
    if not path:
        assert isinstance(value, int), value
        return write(value)
    step, rest = path[0], path[1:]
    if step == "*":
        return [_with_task_ids(v, rest, write) for v in value]
    assert step in value, f"the sample lacks the task id at {path}"
    return {**value, step: _with_task_ids(value[step], rest, write)}


@pytest.mark.parametrize("row", sorted(r for r, op in ROWS.items() if op.task_ids))
def test_task_ids_of_another_workspace_in_every_form_answer_unknown_task(
    world: World, row: str
) -> None:
    before = away_digest(world)
    for form in TASK_ID_FORMS:
        params = SAMPLES[row][0].params(world.a, world.h)
        for path in ROWS[row].task_ids:
            params = _with_task_ids(params, path, lambda n, f=form: f(world.a, n))
        out = attempt(world.home, row, params, world.owner)
        assert (out.status, out.code) == (404, "unknown_task"), _why(row, params, world.owner, out)
        assert not carries_away(out.body, params, world.a)
    assert away_digest(world) == before, f"{row} changed away's data"


SHARED_ROWS = sorted(r for r, op in ROWS.items() if op.share and op.board is not None)


@pytest.mark.parametrize("row", SHARED_ROWS)
def test_a_share_link_reaches_no_other_board_of_its_workspace(world: World, row: str) -> None:
    """A share link is bound to the board it was minted for: home's ids of another
    board are refused (403 forbidden) for every mode the row admits."""
    home = world.home
    slug = f"{HOME_TAG}-elsewhere"
    if slug not in {b["slug"] for b in home.call("list", {"kind": "board"})["boards"]}:
        home.call("create", {"kind": "board", "slug": slug})
    for mode in sorted(ROWS[row].share):
        link = home.call("share_board", {"board": slug, "mode": mode})["url"]
        elsewhere = home.authenticate(link.rsplit("/", 1)[-1])
        mine = home.call("share_board", {"board": world.h.board, "mode": mode})["url"]
        here = home.authenticate(mine.rsplit("/", 1)[-1])
        assert elsewhere is not None and here is not None
        for sample in SAMPLES[row]:
            params = sample.params(world.h, world.h)
            names = ROWS[row].board
            names = (
                (names,) if isinstance(names, str) else names if isinstance(names, tuple) else ()
            )
            named = [params[n] for n in names if n in params]
            if any(slug != world.h.board for slug in named):
                continue  # a sample on another board (a personal one) proves other things
            out = attempt(home, row, params, elsewhere)
            assert (out.status, out.code) == (403, "forbidden"), _why(row, params, elsewhere, out)
            ok = attempt(home, row, params, here)
            assert "another board" not in str(ok.body), _why(row, params, here, ok)


def test_every_row_has_a_sample_or_takes_no_id() -> None:
    assert not set(NO_IDS) - set(ROWS), "NO_IDS names rows that are not registered"
    assert not set(NO_IDS) & set(SAMPLES), "a row both takes no id and has a sample"
    missing = set(ROWS) - set(NO_IDS) - set(SAMPLES)
    assert not missing, f"operations without a target sample: {sorted(missing)}"
    assert not set(SAMPLES) - set(ROWS), "samples of rows that are not registered"


# ------------------------------------------------------------------ the holes it found


@pytest.fixture
def pair(any_ws: Workspace) -> Iterator[tuple[Workspace, Workspace]]:
    """Home (``any_ws``) and away on one store, a multi-workspace deployment."""
    any_ws.multi_workspace = True
    away = Workspace(any_ws.store, name=f"{AWAY_TAG}-{uuid.uuid4().hex[:8]}", multi_workspace=True)
    try:
        yield any_ws, away
    finally:
        away.jobs.shutdown()
        away.drawing.shutdown()


def _refused(ws: Workspace, op: str, params: Params, who: Principal | None = None) -> Outcome:
    out = attempt(ws, op, params, who or Principal.owner())
    assert out.status != 200, f"{op} {params} answered 200"
    return out


def _text_card(ws: Workspace, board: str, md: str) -> int:
    cards = [{"kind": "text", "payload": {"md": md}}]
    return int(ws.call("compose_board", {"board": board, "cards": cards})["cards"][0]["id"])


def test_update_cards_says_nothing_of_where_another_workspaces_card_sits(pair) -> None:  # type: ignore[no-untyped-def]
    home, away = pair
    home.call("create", {"kind": "board", "slug": "mine"})
    away.call("create", {"kind": "board", "slug": "theirs"})
    mine, theirs = _text_card(home, "mine", "mine"), _text_card(away, "theirs", "theirs")
    for n in range(4):  # removing one card of a few needs no confirmation
        _text_card(home, "mine", f"kept {n}"), _text_card(away, "theirs", f"kept {n}")
    # It answered 400 mixed_boards: the other card exists, on another board.
    for params in (
        {"patch": [{"id": mine, "x": 5}, {"id": theirs, "x": 5}]},
        {"remove": [mine, theirs]},
        {"patch": [{"id": mine, "x": 5}, {"id": theirs, "x": 5, "version": 999}]},
    ):
        out = _refused(home, "update_cards", params)
        assert (out.status, out.code, out.body["id"]) == (404, "unknown_card", theirs)
    away.call("update_cards", {"remove": [theirs]})
    out = _refused(home, "update_cards", {"patch": [{"id": mine, "x": 5}], "restore": [theirs]})
    assert (out.status, out.code) == (404, "unknown_card")
    assert home.call("update_cards", {"patch": [{"id": mine, "x": 5}]})["cards"][0]["x"] == 5


def test_a_review_plan_reads_no_screen_a_step_card_names_out_of_reach(pair) -> None:  # type: ignore[no-untyped-def]
    home, away = pair
    away.call("create", {"kind": "board", "slug": "theirs"})
    home.call("create", {"kind": "board", "slug": "diary", "meta": {"personal": True}}, PAT)
    files = [{"name": "s.png", "data": _png("navy")}]
    (far,) = away.call("upload_files", {"board": "theirs", "files": files})["cards"]
    (hidden,) = home.call("upload_files", {"board": "diary", "files": files}, PAT)["cards"]
    home.call("create", {"kind": "board", "slug": "steps"})
    steps = [
        {"kind": "step", "payload": {"title": f"step {n}", "cardId": card["id"]}}
        for n, card in enumerate((far, hidden))
    ]
    made = home.call("compose_board", {"board": "steps", "cards": steps})["cards"]
    # It judged both screens from their pictures: their size, blankness and likeness
    # to this workspace's screens showed in the plan, their keys in its judged list.
    plan = home.call("review_plan", {"boards": ["steps"]}, AGENT)
    assert plan["sheets"] == 0 and plan["tokens"]["baseline"] == 0
    assert {(g["cardId"], g["reason"]) for g in plan["gaps"]} == {(c["id"], "failed") for c in made}
    with home.store.read() as tx:
        run = tx.review_run(home.workspace_id, plan["run"])
        assert run is not None and run.plan["judged"] == []


def test_work_plans_and_board_parents_refuse_someone_elses_personal_board(
    any_ws: Workspace,
) -> None:
    ws = any_ws
    ws.call(
        "create",
        {"kind": "board", "slug": "diary", "project": "p", "meta": {"personal": True}},
        PAT,
    )
    ws.call("create", {"kind": "board", "slug": "team", "project": "p"})
    ws.call("post_ask", {"question": "pat's own question", "board": "diary"}, PAT)
    ben = Principal.user("ben")
    # Each answered 200: an ask on the board (its text) was delivered to ben, a plan
    # of its screens made, a board filed under it, its children listed.
    for op, params in (
        ("peek_work", {"board": "diary"}),
        ("take_work", {"board": "diary"}),
        ("wait_for_work", {"board": "diary", "timeout": 0}),
        ("post_ask", {"question": "q", "board": "diary"}),
        ("review_plan", {"boards": ["diary"]}),
        ("create", {"kind": "board", "slug": "under", "parentBoard": "diary"}),
        ("list", {"kind": "board", "parentBoard": "diary"}),
    ):
        out = _refused(ws, op, params, ben)
        assert (out.status, out.code) == (403, "personal_board"), op
    taken = ws.call("take_work", {"project": "p"}, ben)
    assert taken.get("idle") is True, taken
    # Its owner reaches it as before.
    asks = ws.call("take_work", {"board": "diary"}, PAT)["asks"]
    assert [a["question"] for a in asks] == ["pat's own question"]
    ws.call("create", {"kind": "board", "slug": "under", "parentBoard": "diary"}, PAT)
    listed = ws.call("list", {"kind": "board", "parentBoard": "diary"}, PAT)["boards"]
    assert [b["slug"] for b in listed] == ["under"]


def test_a_snapshot_hands_no_work_on_another_workspaces_card(
    pair,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from layoutkit.service.pictures import views
    from layoutkit.service.uploads import page_images

    home, away = pair
    away.call("create", {"kind": "board", "slug": "theirs"})
    pdf = _pdf_card(away, "theirs", AWAY_TAG)
    flow = {"title": "flow", "diagram_text": "graph LR\n  A-->B"}
    (diagram,) = away.call(
        "compose_board", {"board": "theirs", "cards": [{"kind": "diagram", "payload": flow}]}
    )["cards"]
    done: list[str] = []
    monkeypatch.setattr(page_images.pdf_pages, "rasterise", lambda data: done.append("pdf"))
    monkeypatch.setattr(views.offload, "run", lambda fn, *args: done.append("layout"))
    # Both read the card and did its CPU work before the road refused the call.
    for op, card in (("render_pages", pdf), ("refresh_card", diagram["id"])):
        out = _refused(home, op, {"id": card})
        assert (out.status, out.code) == (404, "unknown_card")
    assert done == []
