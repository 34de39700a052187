"""Board resources: creation with lanes, metadata, tags, sharing and questions."""

from __future__ import annotations

import re
from typing import Any

from layoutkit.errors import ServiceError, did_you_mean
from layoutkit.limits import check_limit
from layoutkit.service.boards.placing import new_question
from layoutkit.service.boards.questions import MAX_OPTIONS, QUESTION_SCHEMA, normalize_question
from layoutkit.service.road.generic import kind_handler
from layoutkit.service.road.reach import may_reach, owns_board, reachable_board
from layoutkit.service.road.registry import PEOPLE, REGISTRY
from layoutkit.service.road.workspace import Call, Workspace
from layoutkit.service.shared.common import ID, SLUG, board_view, question_view
from layoutkit.service.shared.merge_patch import merge_patch
from layoutkit.service.shared.signals import signal_work
from layoutkit.service.shared.webhook_events import emit
from layoutkit.storage import BoardRecord, Tx, fold_tag

#: A question's states in order: asked, answered by a person, sent by the operator's Send.
QUESTION_STATES = ("staged", "answered", "released")
SUBGROUPS = ("reviews", "testing", "sessions", "brainstorming", "design", "journeys")
THEME_PATTERN = "^[a-z0-9][a-z0-9_-]{0,31}$"
THEME_BUNDLES = (
    "sketch",
    "light-paper",
    "dark-paper",
    "playful",
    "technical",
    "diary",
    "girlies",
    "release",
)
LANE_KEY_PATTERN = "^[a-z0-9][a-z0-9-]{0,31}$"
MAX_LANES = 12
#: Lanes the params check takes: over MAX_LANES the handler answers
#: too_many_lanes naming the spec's limit.
LANES_CHECKED = 100
#: Tags of one board (and of one board filter).
MAX_TAGS = 50
_TAGS: dict[str, Any] = {
    "type": "array",
    "items": {"type": "string", "minLength": 1, "maxLength": 80},
    "maxItems": MAX_TAGS,
}
#: meta keys only the server writes; an author's value for them is ignored.
SERVER_STAMPS = frozenset(
    {
        "task",
        "composed",
        "planComposed",
        "sessionId",
        "sessionHub",
        "bugBoard",
        "lane",
        # what imports kept of cards and wires for the next export (pictures/travel.py)
        "travel",
    }
)

# Words in a slug or board type that file a board under a subgroup. design is
# deliberately absent: it is only ever set explicitly.
_INFERENCE = (
    ("reviews", ("review", "reviews", "audit")),
    ("testing", ("test", "tests", "testing", "qa")),
    ("sessions", ("session", "sessions")),
    ("brainstorming", ("brainstorm", "brainstorming", "ideas")),
    ("journeys", ("journey", "journeys")),
)

_BOARD_FIELDS: dict[str, Any] = {
    "project": {"type": "string", "pattern": "^[a-z0-9][a-z0-9-]{0,79}$"},
    "subgroup": {"enum": list(SUBGROUPS)},
    "tags": _TAGS,
    "theme": {"type": "string", "pattern": f"{THEME_PATTERN}|^$"},
    "meta": {"type": "object"},
    "archived": {"type": "boolean"},
}


def infer_subgroup(slug: str, board_type: str | None) -> str | None:
    """The subgroup a slug or board type implies, or None."""
    words = set(re.split(r"[-_\s]+", slug.lower()))
    if board_type:
        words.add(board_type.lower())
    for subgroup, cues in _INFERENCE:
        if words & set(cues):
            return subgroup
    return None


def board_url(ws: Workspace, slug: str) -> str:
    """Where a person opens the board (absolute under the server's public address
    when it has one)."""
    return ws.link(f"/boards/{slug}")


def _project_id(call: Call, tx: Tx, slug: str | None) -> int | None:
    if slug is None:
        return None
    project = tx.project_by_slug(call.workspace_id, slug)
    if project is None:
        project = tx.create_project(call.workspace_id, slug)
    return project.id


def _clean_meta(meta: dict[str, Any]) -> dict[str, Any]:
    _check_title(meta)
    return {k: v for k, v in meta.items() if k not in SERVER_STAMPS}


def _check_title(meta: dict[str, Any]) -> None:
    """A board title is one line of the board's header: longer ones are refused (413)."""
    title = meta.get("title")
    if isinstance(title, str):
        check_limit("titleChars", len(title), field="meta.title")


def _check_lanes(lanes: list[dict[str, Any]]) -> None:
    if len(lanes) > MAX_LANES:
        raise ServiceError(
            400, "too_many_lanes", f"a run board takes at most {MAX_LANES} lanes", field="lanes"
        )
    seen: set[str] = set()
    for i, lane in enumerate(lanes):
        key = lane["key"]
        if key == "overview":
            raise ServiceError(
                400, "invalid_lane", "lane key 'overview' is reserved", field=f"lanes[{i}].key"
            )
        if key in seen:
            raise ServiceError(
                400, "invalid_lane", f"lane key {key!r} repeats", field=f"lanes[{i}].key"
            )
        seen.add(key)


def _create_request(call: Call) -> dict[str, Any]:
    """The parts of a create call that decide whether a repeat is the same request."""
    p = call.params
    return {
        k: p.get(k)
        for k in (
            "project",
            "subgroup",
            "tags",
            "theme",
            "lanes",
            "meta",
            "parentBoard",
            "section",
            "type",
            "flow",
        )
    }


@kind_handler(
    "create",
    "board",
    {
        "slug": SLUG,
        **_BOARD_FIELDS,
        "type": {"type": "string", "maxLength": 40, "description": "board type word"},
        "lanes": {
            "type": "array",
            "maxItems": LANES_CHECKED,
            "description": f"at most {MAX_LANES} lanes",
            "items": {
                "type": "object",
                "required": ["key"],
                "properties": {
                    "key": {"type": "string", "pattern": LANE_KEY_PATTERN},
                    "label": {"type": "string", "maxLength": 120},
                },
                "additionalProperties": False,
            },
        },
        "parentBoard": SLUG,
        "section": {"type": "string", "maxLength": 200},
        "flow": {"enum": ["document"]},
    },
    required=("slug",),
    writes=True,
)
def create_board(call: Call) -> dict[str, Any]:
    p, tx = call.params, call.tx
    lanes = p.get("lanes") or []
    _check_lanes(lanes)
    ws_id = call.workspace_id
    existing = tx.board_by_slug(ws_id, p["slug"])
    if existing is not None:
        # Someone else's personal board is not theirs to read, even as a create receipt.
        if existing.meta.get("createdWith") == _create_request(call) and may_reach(
            call.principal, existing
        ):
            return _create_receipt(call.workspace, tx, existing)
        raise ServiceError(409, "board_exists", f"board {p['slug']!r} exists with other settings")
    parent = (
        reachable_board(tx, ws_id, p["parentBoard"], call.principal) if "parentBoard" in p else None
    )
    meta = _clean_meta(p.get("meta") or {})
    meta["createdWith"] = _create_request(call)
    lane_rows = [
        {
            "key": lane["key"],
            "label": lane.get("label", lane["key"]),
            "slug": f"{p['slug']}-{lane['key']}",
            "url": board_url(call.workspace, f"{p['slug']}-{lane['key']}"),
        }
        for lane in lanes
    ]
    if lane_rows:
        meta["lanes"] = lane_rows
    project_id = _project_id(call, tx, p.get("project"))
    board = tx.create_board(
        ws_id,
        p["slug"],
        project_id=project_id,
        subgroup=p.get("subgroup") or infer_subgroup(p["slug"], p.get("type")),
        tags=p.get("tags") or [],
        theme=p.get("theme") or None,
        meta=meta,
        lanes=lane_rows,
        parent_board_id=parent.id if parent else None,
        section=p.get("section"),
        flow=p.get("flow"),
        created_by=call.principal.label,
    )
    for lane in lane_rows:
        if tx.board_by_slug(ws_id, lane["slug"]) is not None:
            raise ServiceError(409, "board_exists", f"lane board {lane['slug']!r} exists already")
        tx.create_board(
            ws_id,
            lane["slug"],
            project_id=project_id,
            subgroup=board.subgroup,
            meta={"parentBoard": board.slug, "lane": lane["key"], "title": lane["label"]},
            parent_board_id=board.id,
            created_by=call.principal.label,
        )
    tx.record_event("board.create", call.principal.label, board_id=board.id, detail={})
    return _create_receipt(call.workspace, tx, board)


def _create_receipt(ws: Workspace, tx: Tx, board: BoardRecord) -> dict[str, Any]:
    return {"board": _public_view(tx, board), "url": board_url(ws, board.slug)}


def _public_view(tx: Tx, board: BoardRecord) -> dict[str, Any]:
    view = board_view(tx, board)
    view["meta"] = {k: v for k, v in view["meta"].items() if k != "createdWith"}
    return view


@kind_handler(
    "get",
    "board",
    {"board": SLUG, "slug": SLUG},
    required=(("board", "slug"),),
    board=("board", "slug"),
    share=("view", "annotate"),
)
def get_board(call: Call) -> dict[str, Any]:
    view = _public_view(call.tx, call.board)
    view["cards"] = call.tx.count_cards(call.board.id)
    return {"board": view}


@kind_handler(
    "list",
    "board",
    {
        # A tag, or a minus and a tag to leave out.
        "tags": {
            "type": "array",
            "items": {"type": "string", "minLength": 1, "maxLength": 81},
            "maxItems": MAX_TAGS,
        },
        "match": {"enum": ["all", "any"]},
        "project": {"type": "string"},
        "subgroup": {"enum": list(SUBGROUPS)},
        "archived": {"type": "boolean"},
        "parentBoard": SLUG,
    },
)
def list_boards(call: Call) -> dict[str, Any]:
    p = call.params
    include = [fold_tag(t) for t in p.get("tags", []) if not t.startswith("-")]
    exclude = [fold_tag(t[1:]) for t in p.get("tags", []) if t.startswith("-") and len(t) > 1]
    ws_id, tx = call.workspace_id, call.tx
    project_id = None
    if "project" in p:
        project = tx.project_by_slug(ws_id, p["project"])
        if project is None:
            return {"boards": []}
        project_id = project.id
    parent_id = (
        reachable_board(tx, ws_id, p["parentBoard"], call.principal).id
        if "parentBoard" in p
        else None
    )
    boards = tx.boards(
        ws_id,
        project_id=project_id,
        all_tags=include if p.get("match", "all") == "all" else (),
        any_tags=include if p.get("match") == "any" else (),
        without_tags=exclude,
        archived=p.get("archived", False),
        parent_board_id=parent_id,
    )
    if "subgroup" in p:
        boards = [b for b in boards if b.subgroup == p["subgroup"]]
    boards = [b for b in boards if may_reach(call.principal, b)]
    return {"boards": [_public_view(tx, b) for b in boards]}


_META_SCHEMA: dict[str, Any] = {
    "board": SLUG,
    "subgroup": {"enum": list(SUBGROUPS)},
    "theme": {"type": "string", "pattern": f"{THEME_PATTERN}|^$"},
    "tags": _TAGS,
    "tags_mode": {"enum": ["add", "set"]},
    "archived": {"type": "boolean"},
    "meta": {"type": "object"},
}


def _set_meta(call: Call) -> dict[str, Any]:
    p, tx, board = call.params, call.tx, call.board
    warnings: list[str] = []
    fields: dict[str, Any] = {}
    if "subgroup" in p:
        fields["subgroup"] = p["subgroup"]
    if "theme" in p:
        fields["theme"] = p["theme"] or None
        if p["theme"] and p["theme"] not in THEME_BUNDLES:
            near = did_you_mean(p["theme"], THEME_BUNDLES, n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            warnings.append(
                f"theme {p['theme']!r} is not a known bundle ({', '.join(THEME_BUNDLES)}){hint}"
            )
    if "archived" in p:
        fields["archived"] = p["archived"]
    revoked: list[str] = []
    if "meta" in p:
        _check_title(p["meta"])
        kept = SERVER_STAMPS | {"createdWith"}
        meta = merge_patch(board.meta, p["meta"], ignore=kept)
        ignored = sorted(k for k in p["meta"] if k in kept and p["meta"][k] != board.meta.get(k))
        if ignored:
            warnings.append(
                f"meta {', '.join(ignored)} {'is a server stamp' if len(ignored) == 1 else 'are server stamps'}"
                " and stayed as the server set it; the rest of meta was applied"
            )
        was, now = bool(board.meta.get("personal")), bool(meta.get("personal"))
        if was != now and not owns_board(call.principal, board):
            raise ServiceError(
                403,
                "not_board_owner",
                f"only the owner of board {board.slug!r} ({board.created_by or 'the workspace owner'}) "
                "may change personal",
                field="meta.personal",
            )
        if now and not was:
            # A personal board is its owner's alone: links minted before stop working.
            revoked = [
                link.id
                for link in tx.share_links(board.id)
                if link.revoked_at is None and tx.revoke_share_link(link.id)
            ]
        fields["meta"] = meta
    if fields:
        board = tx.update_board(board.id, **fields)
    if "tags" in p:
        tx.set_board_tags(board.id, p["tags"], mode=p.get("tags_mode", "add"))
        board = tx.board(board.id) or board
    tx.record_event(
        "board.meta",
        call.principal.label,
        board_id=board.id,
        detail={"fields": sorted(p), **({"revokedLinks": revoked} if revoked else {})},
    )
    out: dict[str, Any] = {"board": _public_view(tx, board)}
    if revoked:
        out["revokedLinks"] = revoked
    if warnings:
        out["warnings"] = warnings
    return out


REGISTRY.operation(
    "set_board_meta",
    "Change a board's subgroup, theme (empty string restores the default), tags "
    "(tags_mode add or set), archived flag, or meta (merge-patch of top-level keys; "
    "server stamps are kept). meta.personal makes the board its owner's alone (to read and "
    "write); only the owner (its creator) changes it, and setting it revokes the board's "
    "share links.",
    {"required": ["board"], "properties": _META_SCHEMA, "additionalProperties": False},
    board="board",
    writes=True,
)(_set_meta)

kind_handler(
    "update",
    "board",
    {**_META_SCHEMA, "slug": SLUG},
    required=(("board", "slug"),),
    board=("board", "slug"),
    writes=True,
)(_set_meta)


@REGISTRY.operation(
    "share_board",
    "Mint a share link for a board: mode view (default) or annotate; cardId picks what "
    "opens first. The returned url is itself the credential. Personal boards never mint links.",
    {
        "required": ["board"],
        "properties": {
            "board": SLUG,
            "mode": {"enum": ["view", "annotate"]},
            "cardId": ID,
        },
        "additionalProperties": False,
    },
    board="board",
    writes=True,
)
def share_board(call: Call) -> dict[str, Any]:
    p, tx, board = call.params, call.tx, call.board
    if board.meta.get("personal"):
        raise ServiceError(
            403, "personal_board", f"board {board.slug!r} is personal; it never mints links"
        )
    card_id = p.get("cardId")
    if card_id is not None:
        card = tx.card(card_id)
        if card is None or card.board_id != board.id or card.deleted:
            raise ServiceError(404, "unknown_card", f"no card {card_id} on this board")
    link, token = tx.create_share_link(
        board.id, p.get("mode", "view"), card_id=card_id, created_by=call.principal.label
    )
    tx.record_event("board.share", call.principal.label, board_id=board.id, detail={"id": link.id})
    return {"id": link.id, "mode": link.mode, "url": call.workspace.link(f"/s/{token}")}


@REGISTRY.operation(
    "ask_board",
    "Ask one question on a board: choice (one-click options, 1 to 12; an Other escape is "
    "added) or kind text. Answers stay staged until the operator presses Send; read them "
    "with get kind questions.",
    {
        "required": ["board", "prompt"],
        "properties": {"board": SLUG, **QUESTION_SCHEMA["properties"]},
        "additionalProperties": False,
    },
    board="board",
    writes=True,
)
def ask_board(call: Call) -> dict[str, Any]:
    p = dict(call.params)
    p.pop("board")
    p.pop("requestKey", None)
    if "cardRef" in p:
        raise ServiceError(
            400,
            "invalid_question",
            "cardRef names a card of a compose batch; use cardId here",
            field="cardRef",
        )
    q = normalize_question(p)
    tx, board = call.tx, call.board
    card_id = p.get("cardId")
    if card_id is not None:
        card = tx.card(card_id)
        if card is None or card.board_id != board.id or card.deleted:
            raise ServiceError(404, "unknown_card", f"no card {card_id} on this board")
    (record,) = tx.insert_questions(board.id, [new_question(q, card_id, call.principal)])
    return {"question": question_view(record)}


@kind_handler(
    "get",
    "questions",
    {"board": SLUG, "state": {"enum": list(QUESTION_STATES)}},
    required=("board",),
    board="board",
    share=("view", "annotate"),
)
def get_questions(call: Call) -> dict[str, Any]:
    records = call.tx.questions(call.board.id, state=call.params.get("state"))
    people = call.principal.kind in PEOPLE
    return {"questions": [question_view(q, staged_answers=people) for q in records]}


@kind_handler(
    "list",
    "questions",
    {"board": SLUG, "state": {"enum": list(QUESTION_STATES)}},
    required=("board",),
    board="board",
    share=("view", "annotate"),
)
def list_questions(call: Call) -> dict[str, Any]:
    """get kind questions' records with how many are in each state: staged (asked, no
    answer yet), answered (answered, held until Send) and released (sent)."""
    out = get_questions(call)
    every = call.tx.questions(call.board.id)
    out["counts"] = {state: sum(q.state == state for q in every) for state in QUESTION_STATES}
    return out


@REGISTRY.operation(
    "answer_question",
    "Record a person's answer to a staged question (board UI). Answers are held until "
    "send_answers releases them as one batch. board, when sent, must be the question's board.",
    {
        "required": ["id", "answer"],
        "properties": {
            "id": ID,
            # Optional: the question's board, checked (every board operation takes one).
            "board": SLUG,
            # Every option of a multi-select question and a text of one's own.
            "answer": {
                "type": ["string", "array"],
                "items": {"type": "string"},
                "maxItems": MAX_OPTIONS + 1,
            },
        },
        "additionalProperties": False,
    },
    board=lambda tx, call: _question_board(tx, call),
    writes=True,
    principals=PEOPLE,
)
def answer_question(call: Call) -> dict[str, Any]:
    tx = call.tx
    q = tx.question(call.params["id"])
    assert q is not None  # the road found its board
    answer = call.params["answer"]
    labels = [o["label"] for o in q.options]
    chosen = [answer] if isinstance(answer, str) else list(answer)
    if q.kind == "choice":
        bad = [a for a in chosen if a not in labels and q.options[-1].get("other") is None]
        if bad:
            raise ServiceError(
                400, "invalid_answer", f"{bad[0]!r} is not an option", field="answer"
            )
        if len(chosen) > 1 and not q.multi_select:
            raise ServiceError(
                400, "invalid_answer", "this question takes one answer", field="answer"
            )
    record = tx.answer_question(q.id, chosen)
    return {"question": question_view(record, staged_answers=True)}


@REGISTRY.operation(
    "send_answers",
    "Release every answered question of a board at once (the operator's Send); agents "
    "then read the answers with get kind questions.",
    {
        "required": ["board"],
        "properties": {"board": SLUG, "regenerate": {"type": "boolean"}},
        "additionalProperties": False,
    },
    board="board",
    writes=True,
    principals=PEOPLE,
)
def send_answers(call: Call) -> dict[str, Any]:
    tx, board = call.tx, call.board
    released = tx.release_questions(board.id)
    regenerate = bool(call.params.get("regenerate", False))
    if released:
        # The audit trail keeps which press released what (Regenerate asks for a fresh take).
        tx.record_event(
            "questions.send",
            call.principal.label,
            board_id=board.id,
            detail={"released": [q.id for q in released], "regenerate": regenerate},
        )
        signal_work(call)
        emit(
            call,
            "questions.sent",
            {
                "board": board.slug,
                "url": board_url(call.workspace, board.slug),
                "questions": [question_view(q) for q in released],
                "regenerate": regenerate,
            },
        )
    return {
        "released": [question_view(q) for q in released],
        "regenerate": regenerate,
    }


def _question_board(tx: Tx, call: Call) -> BoardRecord:
    """The board a question id belongs to; 404 for another workspace's question."""
    q = tx.question(call.params["id"])
    board = tx.board(q.board_id) if q is not None else None
    if q is None or board is None or board.workspace_id != call.workspace_id:
        raise ServiceError(404, "unknown_question", f"no question {call.params['id']}")
    return board
