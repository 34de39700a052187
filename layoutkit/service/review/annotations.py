"""Annotations: findings agents pin to the pixels or the text of one card version, and
the lifecycle people and agents move them through.

``annotate`` files a batch. Before its transaction opens it reads the pictures the
items name (a stored image, or the face the renderer draws of that version) and
works out their sizes and, for text regions, where the face draws each run of text
(:func:`layoutkit.render.card_text_lines`); the region geometry is the pure engine
:mod:`layoutkit.review.regions`. Text boxes are worked out from the face drawing on
demand, not stored: the picture of a version is always drawn by today's renderer
(see card_images), so boxes kept from an older drawing could point beside the text
a caller sees, while boxes taken from the same drawing land on it; the face cache
makes the drawing itself a lookup when the face was drawn before.

Lifecycle (see docs/annotations.md): filed findings are ``staged``; a person accepts
them (``open``) or dismisses them (``cancelled``) with ``agent_verdict``, a route of
the board UI; an agent moves an open finding to ``working``, attaches an after-shot
(``attach_after``), replies (``reply``) and moves it to ``in_review``; a person
accepts the fix (``resolved``) or withdraws the finding (``cancelled``) at any time.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import attrs
from jsonschema import Draft202012Validator

from layoutkit import imaging, render
from layoutkit.errors import EngineError, ServiceError, did_you_mean, show_ids
from layoutkit.review import regions
from layoutkit.service.review import outputs, review_runs
from layoutkit.service.review.annotation_views import (
    OPEN_STATES,
    STATES,
    annotation_url,
    annotation_view,
    by_person,
    crop_url,
    latest_person_message,
    via,
)
from layoutkit.service.review.card_images import FACE_MAX, Source, read_source
from layoutkit.service.road.generic import kind_handler
from layoutkit.service.road.reach import reachable_board
from layoutkit.service.road.registry import PEOPLE, REGISTRY
from layoutkit.service.road.workspace import Call
from layoutkit.service.shared.common import ID, SLUG
from layoutkit.service.shared.signals import signal_work
from layoutkit.service.shared.webhook_events import emit
from layoutkit.service.uploads.shots import set_shots, set_version
from layoutkit.storage import AnnotationRecord, BoardRecord, Tx

#: Items of one annotate batch, and bytes of one prompt (summary and detail, UTF-8).
MAX_ITEMS = 100
PROMPT_BYTES = 8 * 1024
#: Bytes of one message of a thread: a reply, and a comment that opens a thread.
REPLY_BYTES = 8 * 1024
#: Replies one thread holds (a finding's or a comment's): a thread is read whole.
MAX_REPLIES = 200
INTENTS = ("fix", "investigate", "refactor", "redesign", "comment", "other")
SEVERITIES = ("high", "medium", "low")
#: Statuses that file nothing: counted as refused.
REFUSED = ("stale", "out_of_bounds", "rejected", "duplicate", "basis_mismatch", "unresolved")

_COORD = {"type": "number", "minimum": -1e7, "maximum": 1e7}
_SIZE = {"type": "number", "exclusiveMinimum": 0, "maximum": 1e7}
REGION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "exactly one of: source pixels {x, y, w, h}; normalized {nx, ny, nw, nh} "
    "(fractions of the picture); text {text, nth?} (a run or line the face draws, exact "
    "and case-sensitive; nth from 0 when it is drawn more than once)",
    "properties": {
        "x": _COORD,
        "y": _COORD,
        "w": _SIZE,
        "h": _SIZE,
        "nx": {"type": "number", "minimum": -1e3, "maximum": 1e3},
        "ny": {"type": "number", "minimum": -1e3, "maximum": 1e3},
        "nw": {"type": "number", "minimum": -1e3, "maximum": 1e3},
        "nh": {"type": "number", "minimum": -1e3, "maximum": 1e3},
        "text": {"type": "string", "minLength": 1, "maxLength": 2000},
        "nth": {"type": "integer", "minimum": 0, "maximum": 100000},
    },
    "additionalProperties": False,
}
PROMPT_SCHEMA: dict[str, Any] = {
    "anyOf": [
        {"type": "string", "minLength": 1},
        {
            "type": "object",
            "required": ["summary"],
            "properties": {
                "summary": {"type": "string", "minLength": 1},
                "detail": {"type": "string"},
            },
            "additionalProperties": False,
        },
    ],
    "description": f"the finding: a summary line, or {{summary, detail}}; at most "
    f"{PROMPT_BYTES} bytes in all",
}
ITEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["key", "cardId", "cardVersion", "region", "prompt"],
    "properties": {
        "key": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200,
            "description": "names the finding on this board: the same key again answers existing",
        },
        "cardId": {**ID, "description": "the card the finding is on"},
        "cardVersion": {
            "type": "integer",
            "minimum": 1,
            "maximum": 2**31 - 1,
            "description": "the card version the region was measured on (get_card_image's "
            "cardVersion)",
        },
        "region": REGION_SCHEMA,
        "image": {
            "type": "object",
            "required": ["width", "height"],
            "properties": {
                "width": {"type": "integer", "minimum": 1, "maximum": 1_000_000},
                "height": {"type": "integer", "minimum": 1, "maximum": 1_000_000},
            },
            "additionalProperties": False,
            "description": "the size of the image the region was measured on (imageWidth, "
            "imageHeight); required with a pixel region",
        },
        "prompt": PROMPT_SCHEMA,
        "intent": {"enum": list(INTENTS), "default": "fix"},
        "severity": {"enum": list(SEVERITIES)},
        "category": {"type": "string", "minLength": 1, "maxLength": 100},
        "related": {
            "type": "array",
            "maxItems": 20,
            "items": {"anyOf": [ID, {"type": "string", "minLength": 1, "maxLength": 200}]},
            "description": "other findings (ids or keys) or cards this one relates to",
        },
    },
    "additionalProperties": False,
}
_ITEM = Draft202012Validator(ITEM_SCHEMA)
_AGENT = {
    "type": "string",
    "maxLength": 100,
    "description": "the runtime writing (shown as agent:<runtime>); required unless the "
    "caller has an agent token, whose registered name is the runtime",
}
_ANNOTATE_PARAMS: dict[str, Any] = {
    "board": SLUG,
    "run": {"type": "string", "minLength": 1, "maxLength": 40, "description": "a review run"},
    "sight": {
        "type": "string",
        "minLength": 1,
        "maxLength": 16,
        "description": "the sight code of the run (filing against a run needs it)",
    },
    "agent": _AGENT,
    "pinStale": {
        "type": "boolean",
        "description": "file items measured on an older card version against that version",
    },
    "dryRun": {"type": "boolean", "description": "resolve and check, write nothing"},
}


# ------------------------------------------------------------------ identity


@attrs.frozen
class Identity:
    """Who writes: ``author`` as shown (``agent:<runtime>``) and the verified principal."""

    author: str
    principal: str


def identity(call: Call, *, required: bool = True) -> Identity:
    """The author of a write: an agent token's registered name is the runtime; any other
    caller names it in ``agent`` (missing: 400 when ``required``, else the caller writes
    as itself; empty: 422)."""
    who = call.principal
    if who.kind == "agent":
        return Identity(f"agent:{who.name}", who.label)
    agent = call.params.get("agent")
    if agent is None:
        if required:
            raise ServiceError(
                400,
                "missing_param",
                "name the runtime writing in agent (an agent token names it by itself)",
                field="agent",
            )
        return Identity(who.label, who.label)
    if not agent.strip():
        raise ServiceError(
            422,
            "invalid_agent",
            "agent is empty: name the runtime writing (a user token cannot stand for it)",
            field="agent",
        )
    return Identity(f"agent:{agent.strip()}", who.label)


def check_message(text: str, field: str = "text") -> None:
    """Refuse a thread message over :data:`REPLY_BYTES` (413) or with nothing but
    blanks (400): the one rule for every message of every thread."""
    size = len(text.encode("utf-8"))
    if size > REPLY_BYTES:
        raise ServiceError(
            413,
            "limit_exceeded",
            f"{field}: {size} bytes is over the message limit of {REPLY_BYTES}",
            field=field,
            limit="replyBytes",
            max=REPLY_BYTES,
            value=size,
        )
    if not text.strip():
        raise ServiceError(400, "empty_text", f"{field} holds only blanks", field=field)


def append_reply(call: Call, a: AnnotationRecord, who: Identity, text: str) -> AnnotationRecord:
    """Post ``text`` on the thread of ``a`` as ``who``: the thread machinery findings and
    comment threads share (413 past :data:`MAX_REPLIES`). A person's reply on an open
    comment thread is new work for agents."""
    check_message(text)
    if len(a.replies) >= MAX_REPLIES:
        raise ServiceError(
            413,
            "limit_exceeded",
            f"annotation {a.id} holds {len(a.replies)} replies, the most a thread takes",
            field="id",
            limit="threadReplies",
            max=MAX_REPLIES,
            value=len(a.replies) + 1,
        )
    replies = [
        *a.replies,
        {
            "n": len(a.replies) + 1,
            "author": who.author,
            "principal": who.principal,
            "via": via(who.principal),
            "text": text,
            "at": call.tx.now().isoformat(),
        },
    ]
    if a.kind != "comment":
        return call.tx.update_annotation(a.id, replies=replies)
    attention = latest_person_message(a.author, a.principal, replies)
    a = call.tx.update_annotation(a.id, replies=replies, attention=attention)
    if a.state == "open" and by_person(who.author, who.principal):
        signal_work(call)
    return a


def finding_only(a: AnnotationRecord) -> None:
    """Refuse a finding's lifecycle move on a person's comment thread (409): a thread is
    resolved, reopened, edited and deleted with the comment operations."""
    if a.kind == "comment":
        raise ServiceError(
            409,
            "comment_thread",
            f"annotation {a.id} is a comment thread: resolve_comment, reopen_comment, "
            "edit_comment and delete_comment move it",
            field="id",
            id=a.id,
        )


# ------------------------------------------------------------------ pictures


@attrs.frozen
class Picture:
    """What the items on one card version resolve against: the picture's size (None when
    it cannot be read) and the texts its face draws (None for a stored image)."""

    width: int | None
    height: int | None
    text: regions.TextIndex | None


def _picture(source: Source, wants_text: bool) -> Picture:
    if source.data is not None:
        try:
            w, h = imaging.header(source.data).size
        except EngineError:
            return Picture(None, None, None)
        return Picture(w, h, None)
    face = source.face
    assert face is not None
    # As card_images.picture draws it: one pixel per board pixel, at most FACE_MAX.
    max_dim = min(FACE_MAX, math.ceil(max(float(face["w"]), float(face["h"]), 1.0)))
    w, h = render.card_png_size(face, max_dim=max_dim)
    lines = render.card_text_lines(face, max_dim=max_dim) if wants_text else []
    return Picture(w, h, regions.TextIndex.of(lines))


@attrs.frozen
class _Read:
    """What annotate reads before its transaction: picture sources by (card, version)."""

    sources: dict[tuple[int, int], Source]
    wants_text: set[tuple[int, int]]


def _snapshot(tx: Tx, call: Call) -> _Read | None:
    p = call.params
    items = p["items"]
    if len(items) > MAX_ITEMS:
        raise ServiceError(
            413,
            "limit_exceeded",
            f"items: {len(items)} is over the annotation batch limit of {MAX_ITEMS}",
            field="items",
            limit="annotationItems",
            max=MAX_ITEMS,
            value=len(items),
        )
    board = tx.board_by_slug(call.workspace_id, p["board"])
    if board is None:
        return None  # the road answers 404 with close slugs
    wanted: dict[int, set[int]] = {}
    wants_text: set[tuple[int, int]] = set()
    for item in items:
        card_id, version = item.get("cardId"), item.get("cardVersion")
        if type(card_id) is int and type(version) is int:
            wanted.setdefault(card_id, set()).add(version)
            region = item.get("region")
            if isinstance(region, dict) and "text" in region:
                wants_text.add((card_id, version))
    sources: dict[tuple[int, int], Source] = {}
    for card in tx.cards_by_id(list(wanted)):
        if card.board_id != board.id or card.deleted:
            continue
        for version in wanted[card.id]:
            # A stale item files nothing unless pinned: its older picture is not drawn.
            if version > card.version or (version < card.version and not p.get("pinStale")):
                continue
            try:
                sources[card.id, version] = read_source(tx, card, board.slug, version)
            except ServiceError:
                continue  # a version not kept: the item is refused in the handler
    return _Read(sources, wants_text)


def _prepare(call: Call) -> dict[tuple[int, int], Picture]:
    read: _Read | None = call.snapshot
    if read is None:
        return {}
    return {key: _picture(src, key in read.wants_text) for key, src in read.sources.items()}


# ------------------------------------------------------------------ annotate


def _prompt(value: Any) -> dict[str, str]:
    if isinstance(value, str):
        return {"summary": value}
    return {k: value[k] for k in ("summary", "detail") if k in value}


def _prompt_bytes(prompt: Mapping[str, str]) -> int:
    return sum(len(v.encode("utf-8")) for v in prompt.values())


def _run_for(call: Call) -> Any:
    """The verified review run the batch files against, under the sight rule."""
    p, tx = call.params, call.tx
    if call.principal.kind == "share":
        raise ServiceError(403, "forbidden", "a share link files on its board, not into runs")
    run = review_runs.load_run(tx, call.workspace_id, p["run"], lock=True)
    refused = review_runs.sight_refusal(tx, run, p.get("sight"))
    if refused is not None:
        raise refused
    if run.state != "verified":
        raise ServiceError(
            409,
            "run_not_verified",
            f"run {run.id} is {run.state}: serve every sheet and take its receipt "
            "(review_plan with run and sight) before filing",
            state=run.state,
        )
    if call.board.slug not in run.plan["boards"]:
        raise ServiceError(
            409,
            "board_not_in_run",
            f"run {run.id} reviews {', '.join(run.plan['boards'])}, not {call.board.slug}",
            boards=run.plan["boards"],
        )
    return run


@attrs.frozen
class _Filed:
    """A finding of this batch or a live one of the board, for duplicate checks."""

    card_id: int
    version: int
    category: str | None
    rect: regions.Rect
    id: int | None
    key: str


def _live(records: list[AnnotationRecord]) -> list[_Filed]:
    out = []
    for a in records:
        rect = a.region.get("rect")
        if isinstance(rect, dict):
            out.append(
                _Filed(
                    a.card_id,
                    a.card_version,
                    a.category,
                    regions.Rect(rect["x"], rect["y"], rect["w"], rect["h"]),
                    a.id,
                    a.key,
                )
            )
    return out


class _Batch:
    """One annotate call's items, judged in order against the board and each other."""

    def __init__(self, call: Call, who: Identity, run: Any) -> None:
        p = call.params
        self.call = call
        self.tx = call.tx
        self.board: BoardRecord = call.board
        self.who = who
        self.run = run
        self.dry = bool(p.get("dryRun"))
        self.pin = bool(p.get("pinStale"))
        self.pictures: dict[tuple[int, int], Picture] = call.prepared
        items = p["items"]
        ids = {i["cardId"] for i in items if isinstance(i, dict) and type(i.get("cardId")) is int}
        # Only where each card is and its version: its payload was read (and drawn)
        # before the transaction, for the version the item names.
        self.versions: dict[int, int] = {
            card: version
            for card, (board_id, version) in self.tx.card_heads(sorted(ids)).items()
            if board_id == self.board.id
        }
        keys = {i["key"] for i in items if isinstance(i, dict) and isinstance(i.get("key"), str)}
        self.stored = {
            a.key: a for a in self.tx.annotations(self.board.id, keys=sorted(keys), kind="finding")
        }
        # Open findings by what a restatement shares with them: card, version, category.
        self.filed: dict[tuple[int, int, str | None], list[_Filed]] = {}
        for found in _live(self.tx.annotations(self.board.id, states=OPEN_STATES)):
            self.filed.setdefault((found.card_id, found.version, found.category), []).append(found)
        self.keys: set[str] = set()
        self.pending: list[tuple[dict[str, Any], dict[str, Any]]] = []
        self.refs: list[tuple[dict[str, Any], str]] = []

    def judge(self, item: Any) -> dict[str, Any]:
        key = item.get("key") if isinstance(item, dict) else None
        out: dict[str, Any] = {"key": key if isinstance(key, str) else None}
        refusal = _malformed(item)
        if refusal is not None:
            return out | refusal
        if key in self.keys:
            # Earlier in this batch: its id is known once the batch is written.
            return self._refer(out | {"status": "existing"}, key)
        if key in self.stored:
            found = self.stored[key]
            return out | {
                "status": "existing",
                "id": found.id,
                "url": annotation_url(self.call.workspace, self.board.slug, found.id),
            }
        card, version = item["cardId"], item["cardVersion"]
        current = self.versions.get(card)
        refusal = self._off_screen(card, version, current)
        if refusal is not None:
            return out | refusal
        assert current is not None
        picture = self.pictures.get((card, version))
        if picture is None:
            return out | _status(
                "rejected",
                "unknown_version",
                f"card {card} keeps no picture of version {version}",
                currentVersion=current,
            )
        measured = _measure(item, picture)
        if isinstance(measured, dict):
            return out | measured
        form, resolved = measured
        rect = resolved.rect
        assert rect is not None and picture.width is not None and picture.height is not None
        category = item.get("category")
        same = self.filed.setdefault((card, version, category), [])
        duplicate = self._restatement(out, same, rect)
        if duplicate is not None:
            return duplicate
        shown = {
            "rect": rect.as_dict(),
            "normalized": {
                k: round(v, 6)
                for k, v in regions.to_normalized(rect, picture.width, picture.height).items()
            },
            "form": form,
            "sent": dict(item["region"]),
            "clamped": resolved.clamped,
            "image": {"width": picture.width, "height": picture.height},
        }
        crop = crop_url(self.board.slug, card, version, shown["rect"])
        result = out | {
            "status": "created",
            "region": shown,
            "crop": self.call.workspace.link(crop),
        }
        if version < current:
            result["currentVersion"] = current
        if not self.dry:
            prompt = _prompt(item["prompt"])
            self.pending.append(
                (result, self._row(item, card, version, current, shown, prompt, crop))
            )
            self._refer(result, key)
        self.keys.add(key)
        same.append(_Filed(card, version, category, rect, None, key))
        return result

    def _off_screen(self, card: int, version: int, current: int | None) -> dict[str, Any] | None:
        """Why a finding cannot be filed on ``card`` at ``version``: no such card, not a
        screen of the run, a version it never had, or one it moved on from (unless the
        batch pins stale versions); None when it can."""
        if current is None:
            return _status(
                "rejected", "unknown_card", f"no card {card} on board {self.board.slug!r}"
            )
        if self.run is not None and str(card) not in self.run.plan["receipts"]:
            return _status(
                "rejected",
                "card_not_in_run",
                f"card {card} is not one of the screens of run {self.run.id}",
            )
        if version > current:
            return _status(
                "rejected",
                "unknown_version",
                f"card {card} is at version {current}; it has no version {version}",
                currentVersion=current,
            )
        if version < current and not self.pin:
            return {
                "status": "stale",
                "currentVersion": current,
                "error": {
                    "code": "stale",
                    "message": f"card {card} moved on from version {version} to "
                    f"{current}: look again, or send pinStale to file against "
                    f"version {version}",
                },
            }
        return None

    def _restatement(
        self, out: dict[str, Any], same: list[_Filed], rect: regions.Rect
    ) -> dict[str, Any] | None:
        """The answer for a finding that restates an open one of its card version and
        category (their regions overlap enough), else None."""
        for other in same:
            if regions.restates(rect, other.rect):
                dup = out | _status(
                    "duplicate",
                    "duplicate",
                    f"restates the open finding {other.key!r} on this card version "
                    f"(same category, regions overlap by {regions.overlap_share(rect, other.rect):.0%}"
                    " of the smaller)",
                    duplicateOf=other.key,
                )
                if other.id is not None:
                    url = annotation_url(self.call.workspace, self.board.slug, other.id)
                    return dup | {"id": other.id, "url": url}
                return self._refer(dup, other.key)
        return None

    def _refer(self, result: dict[str, Any], key: str) -> dict[str, Any]:
        """``result`` names the finding of this batch filed under ``key``: it gets its id
        and url when :meth:`write` has stored the batch."""
        self.refs.append((result, key))
        return result

    def _row(
        self,
        item: dict[str, Any],
        card: int,
        version: int,
        current: int,
        region: dict[str, Any],
        prompt: dict[str, str],
        crop: str,
    ) -> dict[str, Any]:
        return {
            "board_id": self.board.id,
            "card_id": card,
            "card_version": version,
            "filed_version": current,
            "key": item["key"],
            "region": region,
            "prompt": prompt,
            "intent": item.get("intent", "fix"),
            "severity": item.get("severity"),
            "category": item.get("category"),
            "related": item.get("related"),
            "state": "staged",
            "author": self.who.author,
            "principal": self.who.principal,
            "run_id": self.run.id if self.run is not None else None,
            "replies": [],
            "deck": {
                "before": {
                    "cardId": card,
                    "cardVersion": version,
                    "region": region["rect"],
                    "url": crop,
                },
                "attempts": [],
            },
        }

    def write(self) -> None:
        """Store the batch's new findings in one statement and give the results their ids."""
        if not self.pending:
            return
        made = {a.key: a for a in self.tx.insert_annotations([row for _, row in self.pending])}
        for filed in made.values():
            tell(self.call, "annotation.filed", filed, self.board.slug)
        for result, row in self.pending:
            if row["key"] not in made:
                # Another writer filed the key first (the board lock makes this rare).
                made[row["key"]] = self.tx.annotations(self.board.id, keys=[row["key"]])[0]
                for gone in ("region", "crop", "currentVersion"):
                    result.pop(gone, None)
                result["status"] = "existing"
        slug = self.board.slug
        for result, key in self.refs:
            found = made.get(key)
            if found is not None:
                result |= {
                    "id": found.id,
                    "url": annotation_url(self.call.workspace, slug, found.id),
                }


def _malformed(item: Any) -> dict[str, Any] | None:
    """Why ``item`` is no finding at all: it breaks the item schema, or its prompt is
    over :data:`PROMPT_BYTES`; None when it is well formed."""
    problems = sorted(_ITEM.iter_errors(item), key=lambda e: list(e.absolute_path))
    if problems:
        findings = [
            {"path": ".".join(str(x) for x in e.absolute_path), "message": e.message}
            for e in problems[:10]
        ]
        return _status(
            "rejected",
            "invalid_item",
            f"{findings[0]['path'] or 'item'}: {findings[0]['message']}",
            findings=findings,
        )
    size = _prompt_bytes(_prompt(item["prompt"]))
    if size > PROMPT_BYTES:
        return _status(
            "rejected",
            "limit_exceeded",
            f"prompt: {size} bytes is over the limit of {PROMPT_BYTES}",
            limit="promptBytes",
            max=PROMPT_BYTES,
            value=size,
        )
    return None


def _measure(item: dict[str, Any], picture: Picture) -> tuple[str, Any] | dict[str, Any]:
    """The region's form and where it lands on ``picture``; or why it lands nowhere
    (a bad region, a pixel region without its image size, another basis)."""
    region = item["region"]
    try:
        form = regions.region_form(region)
    except regions.RegionError as err:
        return _status("rejected", err.code, err.message, **err.fields)
    declared = item.get("image")
    if declared is None and form == "pixels":
        return _status(
            "rejected",
            "image_required",
            "a pixel region needs image {width, height}: the size it was measured on",
        )
    if declared is not None and picture.width is not None and picture.height is not None:
        mismatch = regions.basis_mismatch(declared, picture.width, picture.height)
        if mismatch is not None:
            return {"status": "basis_mismatch", "error": mismatch}
    resolved = regions.resolve(region, picture.width, picture.height, picture.text)
    if resolved.status != "ok":
        return {"status": resolved.status, "error": resolved.error}
    return form, resolved


def _status(status: str, code: str, message: str, **fields: Any) -> dict[str, Any]:
    return {"status": status, "error": {"code": code, "message": message, **fields}}


@REGISTRY.operation(
    "annotate",
    "File findings on card versions: items of {key, cardId, cardVersion, region, image?, "
    "prompt, intent?, severity?, category?, related?} (at most 100; prompt at most 8 KiB). "
    "region is one of pixels {x, y, w, h}, normalized {nx, ny, nw, nh} or text {text, nth?}. "
    "Each item answers {key, status, id?, url?, currentVersion?, error?} with status created, "
    "existing, stale, out_of_bounds, rejected, duplicate, basis_mismatch or unresolved; "
    "findings are staged until a person accepts them. run (with sight) files against a "
    "verified review run; pinStale files stale items against their older version; dryRun "
    "checks and resolves without writing and gives each item a crop URL.",
    {
        "required": ["board", "items"],
        "properties": {
            **_ANNOTATE_PARAMS,
            # Over MAX_ITEMS the snapshot answers 413 limit_exceeded naming the batch
            # limit; this bound only keeps the check's own work finite.
            "items": {
                "type": "array",
                "items": {"type": "object"},
                "minItems": 1,
                "maxItems": 10 * MAX_ITEMS,
            },
        },
        "additionalProperties": False,
    },
    shown={
        "required": ["board", "items"],
        "properties": {
            **_ANNOTATE_PARAMS,
            "items": {"type": "array", "items": ITEM_SCHEMA, "minItems": 1, "maxItems": MAX_ITEMS},
        },
        "additionalProperties": False,
    },
    board="board",
    writes=True,
    share=("annotate",),
    snapshot=_snapshot,
    prepare=_prepare,
    output=outputs.ANNOTATE,
)
def annotate(call: Call) -> dict[str, Any]:
    who = identity(call)
    run = _run_for(call) if "run" in call.params else None
    batch = _Batch(call, who, run)
    results = [batch.judge(item) for item in call.params["items"]]
    batch.write()
    if not batch.dry and any(r["status"] == "created" for r in results):
        signal_work(call)
    counts = {s: sum(r["status"] == s for r in results) for s in ("created", "existing")}
    return {
        "board": call.board.slug,
        "run": run.id if run is not None else None,
        "dryRun": batch.dry,
        "author": who.author,
        "via": via(who.principal),
        "results": results,
        **counts,
        "refused": sum(r["status"] in REFUSED for r in results),
    }


def tell(call: Call, event: str, a: AnnotationRecord, slug: str, before: str | None = None) -> None:
    """Owe the workspace's webhooks ``event`` about finding ``a`` (moved from ``before``)."""
    view = annotation_view(call.workspace, a, slug)
    emit(call, event, {"annotation": view, **({"from": before} if before else {})})


# ------------------------------------------------------------------ lifecycle


def _annotation_board(tx: Tx, call: Call) -> BoardRecord:
    found = tx.annotation(call.params["id"])
    board = tx.board(found.board_id) if found is not None else None
    if board is None or board.workspace_id != call.workspace_id:
        raise ServiceError(
            404, "unknown_annotation", f"no annotation {call.params['id']}", id=call.params["id"]
        )
    return board


def _load(call: Call) -> AnnotationRecord:
    # Read again under the board's lock: the road found it before the lock was taken.
    found = call.tx.annotation(call.params["id"])
    assert found is not None
    return found


def _cancelled(a: AnnotationRecord) -> ServiceError:
    return ServiceError(
        409,
        "cancelled",
        f"annotation {a.id} was withdrawn: revert any change made for it and move on",
        id=a.id,
    )


def _needs_live(a: AnnotationRecord) -> None:
    if a.state == "cancelled":
        raise _cancelled(a)
    if a.state == "staged":
        raise ServiceError(
            409,
            "not_accepted",
            f"annotation {a.id} is staged: a person accepts it before work starts",
            id=a.id,
            state=a.state,
        )
    if a.state == "resolved":
        raise ServiceError(
            409, "resolved", f"annotation {a.id} is resolved", id=a.id, state=a.state
        )


_ID_PARAMS = {"id": {**ID, "description": "the annotation"}}


@REGISTRY.operation(
    "set_status",
    "Move an annotation to working (an agent picks up an open one) or in_review (once an "
    "after-shot is attached with attach_after and a reply posted). Agents never set "
    "resolved: a person accepts the fix. A withdrawn annotation answers 409 cancelled.",
    {
        "required": ["id", "status"],
        "properties": {
            **_ID_PARAMS,
            "status": {"type": "string", "minLength": 1, "maxLength": 20},
        },
        "additionalProperties": False,
    },
    shown={
        "required": ["id", "status"],
        "properties": {**_ID_PARAMS, "status": {"enum": ["working", "in_review"]}},
        "additionalProperties": False,
    },
    board=_annotation_board,
    writes=True,
)
def set_status(call: Call) -> dict[str, Any]:
    status = call.params["status"]
    if status == "resolved":
        raise ServiceError(
            403,
            "people_resolve",
            "a finding is resolved when a person accepts the fix on the board; move it to "
            "in_review",
            field="status",
        )
    if status not in ("working", "in_review"):
        raise ServiceError(
            400,
            "invalid_status",
            f"set_status moves an annotation to working or in_review, not {status!r}",
            field="status",
            allowed=["working", "in_review"],
        )
    a = _load(call)
    finding_only(a)
    if a.state != status:
        _needs_live(a)
        allowed = {"working": ("open", "in_review"), "in_review": ("working",)}[status]
        if a.state not in allowed:
            raise ServiceError(
                409,
                "invalid_transition",
                f"annotation {a.id} is {a.state}; {status} follows {' or '.join(allowed)}",
                id=a.id,
                state=a.state,
                allowed=list(allowed),
            )
        if status == "in_review":
            if not a.deck.get("attempts"):
                raise ServiceError(
                    409,
                    "needs_after_shot",
                    "attach the after-shot first (attach_after), then reply, then in_review",
                    id=a.id,
                )
            if not a.replies:
                raise ServiceError(
                    409,
                    "needs_reply",
                    "post a reply saying what changed (reply) before in_review",
                    id=a.id,
                )
        before = a.state
        a = call.tx.update_annotation(a.id, state=status)
        tell(call, "annotation.moved", a, call.board.slug, before)
    return annotation_view(call.workspace, a, call.board.slug)


@REGISTRY.operation(
    "attach_after",
    "Attach the after-shot of a fix to an annotation: a file of an already pushed set "
    "version (push_doc), named by version, file and branch (default main), on the "
    "annotation's board or setBoard. Appends a fix attempt to the before/after deck.",
    {
        "required": ["id", "version", "file"],
        "properties": {
            **_ID_PARAMS,
            "version": {"type": "integer", "minimum": 1, "maximum": 2**31 - 1},
            "file": {"type": "string", "minLength": 1, "maxLength": 500},
            "branch": {"type": "string", "minLength": 1, "maxLength": 100, "default": "main"},
            "setBoard": {**SLUG, "description": "the board the set was pushed to"},
            "agent": _AGENT,
        },
        "additionalProperties": False,
    },
    board=_annotation_board,
    writes=True,
)
def attach_after(call: Call) -> dict[str, Any]:
    p, tx = call.params, call.tx
    who = identity(call, required=False)
    a = _load(call)
    finding_only(a)
    _needs_live(a)
    board = call.board
    if "setBoard" in p and p["setBoard"] != board.slug:
        board = reachable_board(tx, call.workspace_id, p["setBoard"], call.principal)
    branch = p.get("branch", "main")
    doc = set_version(tx, board, branch, p["version"])
    files = doc.payload["set"].get("files") or {}
    # A shot's name (kind shot) names its bytes too, also for a shot pushed by blob ref.
    named = {s["name"]: s["ref"] for s in set_shots(doc)} | files
    if p["file"] not in named:
        raise ServiceError(
            404,
            "unknown_file",
            f"{p['file']!r} is neither a file nor a shot of set version {p['version']}",
            field="file",
            didYouMean=did_you_mean(p["file"], named),
        )
    attempts = list(a.deck.get("attempts") or [])
    attempts.append(
        {
            "n": len(attempts) + 1,
            "board": board.slug,
            "branch": branch,
            "version": p["version"],
            "file": p["file"],
            "ref": named[p["file"]],
            "cardId": doc.id,
            "author": who.author,
            "via": via(who.principal),
            "at": tx.now().isoformat(),
        }
    )
    a = tx.update_annotation(a.id, deck={**a.deck, "attempts": attempts})
    return annotation_view(call.workspace, a, call.board.slug)


@REGISTRY.operation(
    "reply",
    "Post a reply on an annotation's thread: a finding's or a person's comment thread "
    f"(at most {MAX_REPLIES} replies a thread, {REPLY_BYTES} bytes each). An agent names "
    "its runtime in agent (an agent token names it by itself); a person without agent "
    "replies as themself, and so does an annotate share link.",
    {
        "required": ["id", "text"],
        "properties": {
            **_ID_PARAMS,
            "text": {"type": "string", "minLength": 1, "maxLength": REPLY_BYTES},
            "agent": _AGENT,
        },
        "additionalProperties": False,
    },
    board=_annotation_board,
    writes=True,
    share=("annotate",),
)
def reply(call: Call) -> dict[str, Any]:
    who = identity(call, required=False)
    a = append_reply(call, _load(call), who, call.params["text"])
    return annotation_view(call.workspace, a, call.board.slug)


@REGISTRY.operation(
    "agent_verdict",
    "The board UI's verdict on agents' findings, for people: action accept moves staged "
    "findings to open (and a fix in review to resolved), dismiss moves staged findings to "
    "cancelled. ids names some; without ids every staged finding of the board.",
    {
        "required": ["board", "action"],
        "properties": {
            "board": SLUG,
            "action": {"enum": ["accept", "dismiss"]},
            "ids": {"type": "array", "items": ID, "minItems": 1, "maxItems": 1000},
        },
        "additionalProperties": False,
    },
    board="board",
    writes=True,
    principals=PEOPLE,
    tool=False,
)
def agent_verdict(call: Call) -> dict[str, Any]:
    p, tx, board = call.params, call.tx, call.board
    accept = p["action"] == "accept"
    if "ids" in p:
        ids = list(dict.fromkeys(p["ids"]))
        found = {a.id: a for a in tx.annotations(board.id, ids=ids, kind="finding")}
        missing = [i for i in ids if i not in found]
        if missing:
            raise ServiceError(
                404,
                "unknown_annotation",
                f"no annotation {show_ids(missing)} on board {board.slug!r}",
                field="ids",
                ids=missing,
            )
        chosen = [found[i] for i in ids]
    else:
        chosen = tx.annotations(board.id, states=["staged"])
    moves = {"staged": "open", "in_review": "resolved"} if accept else {"staged": "cancelled"}
    changed, skipped = [], []
    for a in chosen:
        target = moves.get(a.state)
        if target is None:
            skipped.append({"id": a.id, "state": a.state})
            continue
        moved = tx.update_annotation(a.id, state=target)
        tell(call, "annotation.moved", moved, board.slug, a.state)
        changed.append(annotation_view(call.workspace, moved, board.slug))
    if any(c["state"] == "open" for c in changed):
        # Accepted findings are open work for agents waiting on this board.
        signal_work(call)
    if changed:
        tx.record_event(
            f"annotations.{p['action']}",
            call.principal.label,
            board_id=board.id,
            detail={"ids": [c["id"] for c in changed]},
        )
    return {"board": board.slug, "action": p["action"], "changed": changed, "skipped": skipped}


@REGISTRY.operation(
    "retriage_annotation",
    "Change the intent of a staged annotation before accepting it (people only).",
    {
        "required": ["id", "intent"],
        "properties": {**_ID_PARAMS, "intent": {"enum": list(INTENTS)}},
        "additionalProperties": False,
    },
    board=_annotation_board,
    writes=True,
    principals=PEOPLE,
)
def retriage_annotation(call: Call) -> dict[str, Any]:
    a = _load(call)
    finding_only(a)
    if a.state != "staged":
        raise ServiceError(
            409,
            "not_staged",
            f"annotation {a.id} is {a.state}: intent is retriaged before it is accepted",
            id=a.id,
            state=a.state,
        )
    a = call.tx.update_annotation(a.id, intent=call.params["intent"])
    return annotation_view(call.workspace, a, call.board.slug)


@REGISTRY.operation(
    "withdraw_annotation",
    "Withdraw an annotation in any state (people only): it becomes cancelled, and a later "
    "set_status answers 409 cancelled.",
    {"required": ["id"], "properties": _ID_PARAMS, "additionalProperties": False},
    board=_annotation_board,
    writes=True,
    principals=PEOPLE,
    destroys=True,
)
def withdraw_annotation(call: Call) -> dict[str, Any]:
    a = _load(call)
    finding_only(a)
    if a.state != "cancelled":
        before = a.state
        a = call.tx.update_annotation(a.id, state="cancelled")
        tell(call, "annotation.moved", a, call.board.slug, before)
    return annotation_view(call.workspace, a, call.board.slug)


@REGISTRY.operation(
    "get_annotation",
    "One annotation with its thread (replies) and before/after deck.",
    {"required": ["id"], "properties": _ID_PARAMS, "additionalProperties": False},
    board=_annotation_board,
    share=("view", "annotate"),
)
def get_annotation(call: Call) -> dict[str, Any]:
    return annotation_view(call.workspace, _load(call), call.board.slug)


@kind_handler(
    "get",
    "annotations",
    {
        "board": SLUG,
        "states": {
            "type": "array",
            "items": {"enum": list(STATES)},
            "minItems": 1,
            "maxItems": len(STATES),
            "uniqueItems": True,
            "description": "the states to list; the open ones (staged, open, working, "
            "in_review) when left out",
        },
        "cardId": {**ID, "description": "only the findings on this card"},
    },
    required=("board",),
    board="board",
    share=("view", "annotate"),
)
def get_annotations(call: Call) -> dict[str, Any]:
    """A board's findings as the board viewer lists them, oldest first (people's
    comment threads are get comments')."""
    p = call.params
    records = call.tx.annotations(
        call.board.id,
        states=p.get("states", OPEN_STATES),
        card_id=p.get("cardId"),
        kind="finding",
    )
    return {
        "board": call.board.slug,
        "annotations": [annotation_view(call.workspace, a, call.board.slug) for a in records],
    }
