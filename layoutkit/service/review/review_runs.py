"""``review_plan``: plan a review of a project's screens, then take its receipt.

A plan call (``boards``) gathers the image cards of the boards in scope,
decodes their stored images outside the transaction, makes the plan
(:mod:`layoutkit.review.plan`) and stores it as a run in state ``planned``. The
images are read and decoded one at a time as the plan looks at them, never all
at once: 600 screens would be gigabytes decoded, and their stored bytes alone
can be hundreds of megabytes. A
receipt call (``run``) checks the sight code and, once every sheet was served
and the code echoed, verifies the run and reports each card's receipt state.

Which screens: the image cards (media and figure cards with a stored image; step
cards showing one, by blob key or by ``cardId``) of the named boards. ``scope``
``latest`` takes each journey's last pass (a board without journeys: every
screen), ``all`` every pass; ``sections`` narrows to those sections. Several
passes without a scope, or more than 600 screens, answer 409 ``needs_scope``
with the options, their screens and token costs, and the corrected call.
"""

from __future__ import annotations

import secrets
from typing import Any

import attrs

from layoutkit.errors import ServiceError, did_you_mean
from layoutkit.review import plan as planner
from layoutkit.review import rules as rule_engine
from layoutkit.review.diff import Pixels, decode
from layoutkit.review.sheets import image_tokens
from layoutkit.service.review import outputs
from layoutkit.service.review.review_rules import _resolved
from layoutkit.service.road.reach import may_reach, personal_board
from layoutkit.service.road.registry import REGISTRY
from layoutkit.service.road.workspace import Call
from layoutkit.service.shared.sections import containing_sections, section_title
from layoutkit.storage import BoardRecord, CardRecord, ReviewRunRecord, Tx

#: Card kinds whose payload ``ref`` names a stored image.
IMAGE_KINDS = ("media", "figure")
#: Wrong sight codes that lock a run.
SIGHT_TRIES = 3
#: The letters of a sight code: no 0/O or 1/I/L to misread.
_SIGHT_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
#: Boards of one plan and sections it narrows to. A plan reads every card of
#: each board it names, so the count is bounded before any is read; 50 boards of
#: a dozen screens each already reach the 600 screens one plan takes (beyond
#: that a plan needs sections or fewer boards anyway).
MAX_BOARDS = 50
MAX_SECTIONS = 50


def _names(cap: int, what: str) -> dict[str, Any]:
    # A repeated name adds nothing to a plan but the cost of reading it again.
    return {
        "type": "array",
        "items": {"type": "string", "minLength": 1, "maxLength": 200},
        "minItems": 1,
        "maxItems": cap,
        "uniqueItems": True,
        "description": f"{what}, each once, at most {cap}",
    }


@REGISTRY.operation(
    "review_plan",
    "Plan a review of the screens of one project's boards: sheets of whole screens (up to 12) "
    "or crops of near-duplicates (up to 24), capture gaps dropped and listed, screens judged "
    "before under the same rules reused (full: reuse nothing), byte-identical screens judged "
    "once. Reply: run, sheets, tiles, planned, gaps, prior, tokens, receipts. With run (and "
    "sight, the code printed on sheet 1): the receipt, which verifies the run once every "
    "sheet was served.",
    {
        "properties": {
            "boards": _names(MAX_BOARDS, "slugs of boards of one project"),
            "scope": {"enum": ["latest", "all"]},
            "sections": _names(MAX_SECTIONS, "titles of sections to narrow to"),
            "full": {"type": "boolean"},
            "run": {"type": "string", "minLength": 1, "maxLength": 40},
            "sight": {"type": "string", "minLength": 1, "maxLength": 16},
            "cards": {"type": "array", "items": {"type": "integer"}, "maxItems": 600},
        },
        "additionalProperties": False,
    },
    writes=True,
    snapshot=lambda tx, call: _gather(tx, call),
    prepare=lambda call: _prepare(call),
    output=outputs.REVIEW_PLAN,
)
def review_plan(call: Call) -> dict[str, Any]:
    if "run" in call.params:
        return _receipt(call)
    gathered: _Gathered = call.snapshot
    doc = call.prepared
    run = call.tx.insert_review_run(
        "rr_" + secrets.token_hex(8),
        call.workspace_id,
        gathered.project_id,
        rubric=gathered.rubric,
        sight="".join(secrets.choice(_SIGHT_ALPHABET) for _ in range(4)),
        plan=doc,
        author=call.principal.label,
    )
    return _view(run)


# ---------------------------------------------------------------- plan


def _boards(tx: Tx, call: Call) -> list[BoardRecord]:
    found = []
    for i, slug in enumerate(call.params["boards"]):
        board = tx.board_by_slug(call.workspace_id, slug)
        if board is None:
            slugs = [b.slug for b in tx.boards(call.workspace_id)]
            raise ServiceError(
                404,
                "unknown_board",
                f"no board {slug!r}",
                field=f"boards[{i}]",
                didYouMean=did_you_mean(slug, slugs),
            )
        if not may_reach(call.principal, board):
            raise personal_board(board)
        found.append(board)
    projects = {b.project_id for b in found}
    if len(projects) > 1:
        raise ServiceError(
            400, "mixed_projects", "the boards of one plan belong to one project", field="boards"
        )
    return found


def _passes(cards: dict[int, CardRecord]) -> dict[str, list[CardRecord]]:
    """Each journey's pass sections, by pass number."""
    journeys: dict[str, list[CardRecord]] = {}
    for card in cards.values():
        if card.kind == "section" and isinstance(card.payload.get("journey"), str):
            journeys.setdefault(card.payload["journey"], []).append(card)
    return {
        k: sorted(v, key=lambda c: (c.payload.get("pass") or 0, c.ordinal))
        for k, v in journeys.items()
    }


def _screens_of(
    cards: dict[int, CardRecord], scope: str, sections: list[str] | None
) -> list[CardRecord]:
    section_of = containing_sections(cards)
    passes = _passes(cards)
    keep: set[int] | None = None
    if sections is not None:
        names = set(sections)
        keep = {i for i, c in cards.items() if c.kind == "section" and section_title(c) in names}
    elif scope == "latest" and passes:
        keep = {v[-1].id for v in passes.values()}
    screens = []
    for card in sorted(cards.values(), key=lambda c: (c.ordinal, c.id)):
        if card.kind not in (*IMAGE_KINDS, "step"):
            continue
        if keep is not None and section_of.get(card.id) not in keep:
            continue
        screens.append(card)
    return screens


def _image_ref(tx: Tx, call: Call, card: CardRecord) -> str | None:
    ref = card.payload.get("ref") if card.kind in IMAGE_KINDS else card.payload.get("image")
    if card.kind == "step" and isinstance(card.payload.get("cardId"), int):
        shown = _shown_card(tx, call, card.payload["cardId"])
        ref = shown.payload.get("ref") if shown is not None else None
    return ref if isinstance(ref, str) and ref.startswith("sha256:") else None


def _shown_card(tx: Tx, call: Call, card_id: int) -> CardRecord | None:
    """The live card a step card shows, when the caller may read it: a step's cardId is
    payload a writer typed, so it may name a card of another workspace or of someone
    else's personal board, whose picture a plan must never read (the screen is a gap)."""
    shown = tx.card(card_id)
    board = tx.board(shown.board_id) if shown is not None and not shown.deleted else None
    if board is None or board.workspace_id != call.workspace_id:
        return None
    return shown if may_reach(call.principal, board) else None


def _needs_scope(boards: list[BoardRecord], counts: dict[str, int]) -> ServiceError:
    options = []
    for scope in ("latest", "all"):
        screens = counts[scope]
        options.append(
            {
                "scope": scope,
                "screens": screens,
                "tokens": screens * image_tokens(1440, 900),
                "call": {"boards": [b.slug for b in boards], "scope": scope},
            }
        )
    too_many = min(counts.values()) > planner.MAX_SCREENS
    return ServiceError(
        409,
        "needs_scope",
        (
            f"over {planner.MAX_SCREENS} screens: name sections or fewer boards"
            if too_many
            else "these boards hold several capture passes: choose scope latest or all"
        ),
        options=[o for o in options if o["screens"] <= planner.MAX_SCREENS] or options,
        limit=planner.MAX_SCREENS,
    )


@attrs.frozen
class _Gathered:
    """What a plan reads: the screens with the blob keys of their images (the bytes
    are read as the plan looks at them), the rubric in force and the blob keys
    judged under it in verified runs."""

    boards: list[str]
    project_id: int | None
    rubric: str
    prior: list[str]
    judged: set[str]
    screens: list[tuple[str, CardRecord, str | None]]


def _gather(tx: Tx, call: Call) -> _Gathered | None:
    p = call.params
    if "run" in p:
        if "boards" in p:
            raise ServiceError(
                400, "exclusive_params", "send boards (a plan) or run (a receipt)", field="run"
            )
        return None
    if "boards" not in p:
        raise ServiceError(400, "missing_param", "send boards to plan, or run", field="boards")
    boards = _boards(tx, call)
    sections, scope = p.get("sections"), p.get("scope")
    chosen: dict[str, list[tuple[BoardRecord, CardRecord]]] = {"latest": [], "all": []}
    several = False
    for board in boards:
        cards = {c.id: c for c in tx.cards(board.id)}
        several = several or any(len(v) > 1 for v in _passes(cards).values())
        for option in chosen:
            chosen[option] += [(board, c) for c in _screens_of(cards, option, sections)]
    counts = {k: len(v) for k, v in chosen.items()}
    if (scope is None and several and sections is None) or counts[
        scope or "latest"
    ] > planner.MAX_SCREENS:
        raise _needs_scope(boards, counts)
    picked = chosen[scope or "latest"]
    if "cards" in p:
        wanted = set(p["cards"])
        picked = [(b, c) for b, c in picked if c.id in wanted]
    project = tx.project(boards[0].project_id) if boards[0].project_id is not None else None
    rubric = rule_engine.rubric_hash(_resolved(tx, call, project))
    prior = tx.verified_runs(call.workspace_id, boards[0].project_id, rubric)
    screens = [(board.slug, card, _image_ref(tx, call, card)) for board, card in picked]
    return _Gathered(
        [b.slug for b in boards],
        boards[0].project_id,
        rubric,
        [r.id for r in prior],
        {key for run in prior for key in run.plan.get("judged", [])},
        screens,
    )


def _loader(call: Call, ref: str) -> planner.Loader:
    """Reads the blob ``ref`` and decodes it, each time the plan asks: blobs are
    never changed nor deleted, so a read after the snapshot's finds what it would
    have found (a missing one is a ``failed`` gap either way)."""

    def load() -> Pixels | None:
        # Through the workspace: only the road and its helpers open transactions.
        data = call.workspace.cache_read(lambda tx: tx.blobs.get(ref))
        return decode(data) if data is not None else None

    return load


def _screen(call: Call, board: str, card: CardRecord, ref: str | None) -> planner.Screen:
    device = card.payload.get("device")
    theme = card.payload.get("theme")
    return planner.Screen(
        card.id,
        board,
        card.version,
        ref,
        _loader(call, ref) if ref is not None else None,
        "failed" if ref is None else None,
        device=device if device in planner.DEVICES else None,
        theme=theme if theme in ("light", "dark") else None,
    )


def _prepare(call: Call) -> dict[str, Any] | None:
    """Decode the screens and make the plan, outside any transaction."""
    gathered: _Gathered | None = call.snapshot
    if gathered is None:
        return None
    screens = [_screen(call, *s) for s in gathered.screens]
    made = planner.make_plan(screens, judged=gathered.judged, full=bool(call.params.get("full")))
    keys = {s.card_id: s.key for s in screens}
    tiles = made.tiles
    baseline = sum(image_tokens(*size) for size in made.sizes.values())
    cost = sum(
        image_tokens(t.crop.width if t.crop else t.width, t.crop.height if t.crop else t.height)
        for t in tiles
    )
    return {
        "boards": gathered.boards,
        "sheets": [[t.as_dict() for t in sheet] for sheet in made.sheets],
        "gaps": list(made.gaps),
        "receipts": {str(k): v for k, v in made.receipts.items()},
        "by": {str(k): v for k, v in made.by.items()},
        "devices": {str(k): v for k, v in made.devices.items()},
        "dups": {str(k): v for k, v in made.dups.items()},
        "judged": sorted({k for t in tiles if (k := keys[t.card_id])}),
        "prior": gathered.prior,
        "counts": made.counts(),
        "tokens": {"baseline": baseline, "plan": cost, "saved": max(0, baseline - cost)},
    }


def _view(run: ReviewRunRecord, cards: list[int] | None = None) -> dict[str, Any]:
    plan = run.plan
    tiles = [t for sheet in plan["sheets"] for t in sheet]
    receipts = plan["receipts"]
    if run.state != "verified":
        # Until the run is verified a judged card is only planned for.
        receipts = {k: ("blocked" if v == "inspected" else v) for k, v in receipts.items()}
    if cards is not None:
        receipts = {k: v for k, v in receipts.items() if int(k) in set(cards)}
    return {
        "run": run.id,
        "state": run.state,
        "boards": plan["boards"],
        "sheets": len(plan["sheets"]),
        "served": sorted(run.served),
        "tiles": {
            "whole": sum(t["whole"] for t in tiles),
            "crop": sum(not t["whole"] for t in tiles),
        },
        "planned": plan["counts"],
        "gaps": plan["gaps"],
        "prior": plan["prior"],
        "tokens": plan["tokens"],
        "receipts": [
            {"cardId": int(k), "state": v} | ({"by": plan["by"][k]} if k in plan["by"] else {})
            for k, v in receipts.items()
        ],
    }


# ---------------------------------------------------------------- sight rule and receipt


def load_run(tx: Tx, workspace_id: int, run_id: str, *, lock: bool = False) -> ReviewRunRecord:
    run = tx.review_run(workspace_id, run_id, lock=lock)
    if run is None:
        raise ServiceError(404, "unknown_run", f"no review run {run_id!r}", field="run")
    return run


def _locked() -> ServiceError:
    return ServiceError(409, "sight_locked", "three wrong sight codes locked this run")


def sight_refusal(tx: Tx, run: ReviewRunRecord, sight: str | None) -> ServiceError | None:
    """The sight rule, in a write transaction: None when ``sight`` is the run's code;
    else the refusal (a locked run 409 ``sight_locked``, a missing code 403
    ``sight_required``), a wrong code counted first (the third locks the run). The
    refusal keeps that count: the caller commits before raising it."""
    if run.state == "locked":
        return _locked()
    if sight is None:
        return ServiceError(
            403, "sight_required", "echo the sight code printed on sheet 1 as sight", field="sight"
        )
    if sight.strip().upper() == run.sight:
        return None
    misses = run.misses + 1
    locked = misses >= SIGHT_TRIES
    tx.update_review_run(run.id, misses=misses, state="locked" if locked else run.state)
    if locked:
        return _locked().keeping_writes()
    return ServiceError(
        403,
        "sight_required",
        f"wrong sight code; {SIGHT_TRIES - misses} tries left",
        field="sight",
        triesLeft=SIGHT_TRIES - misses,
    ).keeping_writes()


def sheet_count(run: ReviewRunRecord, sheet: int) -> int:
    """How many sheets the run has; 404 ``unknown_sheet`` when ``sheet`` is not one."""
    count = len(run.plan["sheets"])
    if not 1 <= sheet <= count:
        raise ServiceError(
            404, "unknown_sheet", f"run {run.id} has {count} sheets", field="sheet", sheets=count
        )
    return count


def serve_sheet(
    tx: Tx, workspace_id: int, run_id: str, sheet: int, sight: str | None
) -> ReviewRunRecord | ServiceError:
    """Record sheet ``sheet`` (1-based) of a run as served, under the sight rule:
    sheet 1 needs no code (it prints it), every later sheet does. Returns the run,
    or the refusal to raise once the transaction has committed (it counted a miss)."""
    run = load_run(tx, workspace_id, run_id, lock=True)
    if run.state == "locked":
        return _locked()
    sheet_count(run, sheet)
    if sheet > 1:
        refused = sight_refusal(tx, run, sight)
        if refused is not None:
            return refused
    served = sorted({*run.served, sheet})
    state = "pending" if run.state == "planned" else run.state
    return tx.update_review_run(run.id, served=served, state=state)


def _receipt(call: Call) -> dict[str, Any]:
    p = call.params
    run = load_run(call.tx, call.workspace_id, p["run"], lock=True)
    if run.state == "verified":
        return _view(run, p.get("cards"))
    refused = sight_refusal(call.tx, run, p.get("sight"))
    if refused is not None:
        raise refused
    every = set(range(1, len(run.plan["sheets"]) + 1))
    if every <= set(run.served):
        run = call.tx.update_review_run(run.id, state="verified")
    return _view(run, p.get("cards"))
