"""``scrape_board``: everything an agent needs to read a board back."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from layoutkit import render
from layoutkit.elements.vocab import FRAME_KINDS
from layoutkit.errors import ServiceError
from layoutkit.layout.reading import reading_order
from layoutkit.review.plan import DEVICES, device_of
from layoutkit.service.review import outputs
from layoutkit.service.review.annotation_views import (
    COMMENT_STATES,
    OPEN_STATES,
    SCRAPE_THREADS,
    annotation_view,
    comment_digest,
)
from layoutkit.service.road.registry import REGISTRY
from layoutkit.service.road.workspace import Call, Workspace
from layoutkit.service.shared.common import (
    SLUG,
    board_view,
    card_view,
    edge_view,
    question_view,
)
from layoutkit.service.shared.sections import (
    containing_sections,
    find_section,
    members,
    section_summary,
    section_title,
)
from layoutkit.service.uploads.files import file_url, is_blob_key
from layoutkit.storage import BoardRecord, CardRecord, Tx

#: How much of a page card's markdown a preview carries.
PAGE_PREVIEW_CHARS = 600
_IMAGE_KINDS = ("step", "media", "figure")


def _image_file(card: CardRecord) -> str | None:
    for key in ("image", "src", "ref", "file", "name"):
        value = card.payload.get(key)
        if isinstance(value, str) and value:
            return value.rsplit("/", 1)[-1]
    return None


def _picture_urls(card: CardRecord, view: dict[str, Any], link: Callable[[str], str]) -> None:
    """The image URLs of a card: its stored picture (``image``) and a PDF's page images
    (``pageImages``), each at the blob route, which checks the reader's access;
    ``link`` makes them absolute (:meth:`Workspace.link`)."""
    p = card.payload
    ref = p.get("ref")
    base = render.card_blob_base(card.id)
    mime = p.get("mime")
    if (
        card.kind in ("media", "figure")
        and is_blob_key(ref)
        and (not isinstance(mime, str) or mime.startswith("image/"))
    ):
        view["image"] = link(base + ref)
    pages = p.get("pageImages") if card.kind == "file" else None
    if isinstance(pages, list):
        urls = [
            link(base + i["ref"])
            for i in pages
            if isinstance(i, dict) and is_blob_key(i.get("ref"))
        ]
        if urls:
            view["pageImages"] = urls


def _flow_chains(cards: dict[int, CardRecord], edges: list[Any]) -> list[list[int]]:
    """Runs of cards joined by plain flow arrows (wires without rel), start to end."""
    nxt: dict[int, int] = {}
    has_prev: set[int] = set()
    for e in edges:
        if e.rel is None and e.from_card in cards and e.to_card in cards and e.from_card not in nxt:
            nxt[e.from_card] = e.to_card
            has_prev.add(e.to_card)
    chains = []
    for start in sorted(nxt):
        if start in has_prev:
            continue
        chain = [start]
        while chain[-1] in nxt and nxt[chain[-1]] not in chain:
            chain.append(nxt[chain[-1]])
        chains.append(chain)
    return chains


def _marks(tx: Tx, board: BoardRecord) -> tuple[dict[str, str], dict[str, int]]:
    """Devices and near-duplicate groups of the board's image cards, as the newest
    review plan that took the board found them (card id as text → value)."""
    for run in tx.recent_review_runs(board.workspace_id, board.project_id):
        if board.slug in run.plan.get("boards", ()):
            return run.plan.get("devices", {}), run.plan.get("dups", {})
    return {}, {}


def _shape_card(
    card: CardRecord,
    section: str | None,
    pages: str,
    link: Callable[[str], str],
    marks: tuple[dict[str, str], dict[str, int]] = ({}, {}),
) -> dict[str, Any]:
    view = card_view(card, section)
    if card.kind == "page" and pages == "preview":
        md = card.payload.get("md", "")
        payload = {k: v for k, v in card.payload.items() if k not in ("md", "pm")}
        payload["md"] = md[:PAGE_PREVIEW_CHARS]
        payload["truncated"] = len(md) > PAGE_PREVIEW_CHARS
        view["payload"] = payload
    url = file_url(card)
    if url is not None and card.kind == "file":
        # The contract: file cards carry their document URL under artifact.
        view["artifact"] = link(url)
    _picture_urls(card, view, link)
    if card.kind in _IMAGE_KINDS:
        devices, dups = marks
        width = card.payload.get("natW")
        if card.payload.get("device") in DEVICES:
            view["device"] = card.payload["device"]
        elif str(card.id) in devices:
            view["device"] = devices[str(card.id)]
        elif isinstance(width, int) and width > 0:
            view["device"] = device_of(width)
        if str(card.id) in dups:
            view["dup"] = dups[str(card.id)]
        # vs stays absent until a score is given: nothing scores screens yet.
        if isinstance(card.payload.get("vs"), int | float):
            view["vs"] = card.payload["vs"]
    return view


@REGISTRY.operation(
    "scrape_board",
    "Read a board back: every card as {id, kind, payload, x, y, w, h, layer, version, "
    "parent, section}, wires, notes, flow chains, the questions digest, sections and "
    "journeys, open findings, open comment threads (comments: counts and up to "
    f"{SCRAPE_THREADS} digests), and lanes on run boards. A stored picture's card adds image (its URL); a "
    "file card adds artifact (its document URL) and, for a PDF, pageImages (the URLs of "
    "its rasterised pages). section isolates one section; diff pairs the cards of two "
    "sections; pages preview (default) or full.",
    {
        "required": ["board"],
        "properties": {
            "board": SLUG,
            "section": {"type": "string", "minLength": 1},
            "pages": {"enum": ["preview", "full"]},
            "diff": {
                "type": "array",
                "items": {"type": "string", "minLength": 1},
                "minItems": 2,
                "maxItems": 2,
            },
        },
        "additionalProperties": False,
    },
    board="board",
    share=("view", "annotate"),
    output=outputs.SCRAPE_BOARD,
)
def scrape_board(call: Call) -> dict[str, Any]:
    return scrape(call.workspace, call.tx, call.board, call.params)


def scrape(ws: Workspace, tx: Tx, board: BoardRecord, p: dict[str, Any]) -> dict[str, Any]:
    """A board read back as scrape_board answers it (``p``: section, diff, pages).

    Shared by every operation that needs the board's content (pictures read less: see pictures.py).
    """
    if "section" in p and "diff" in p:
        raise ServiceError(400, "exclusive_params", "send section or diff, not both", field="diff")
    cards = {c.id: c for c in tx.cards(board.id)}
    edges = tx.edges(board.id)
    section_of = containing_sections(cards)
    titles = {cid: section_title(c) for cid, c in cards.items() if c.kind == "section"}
    pages = p.get("pages", "preview")

    marks = _marks(tx, board)

    def shaped(ids: list[int]) -> list[dict[str, Any]]:
        return [
            _shape_card(
                cards[i],
                titles.get(section_of[i]) if section_of[i] else None,
                pages,
                ws.link,
                marks,
            )
            for i in ids
        ]

    out: dict[str, Any] = {"board": board_view(tx, board)}
    out["board"]["meta"] = {k: v for k, v in board.meta.items() if k != "createdWith"}
    if "diff" in p:
        a, b = (find_section(cards, name) for name in p["diff"])
        out["diff"] = _diff(cards, a, b)
        return out
    if "section" in p:
        frame = find_section(cards, p["section"])
        keep = [frame.id, *members(cards, frame.id)]
    else:
        keep = sorted(cards, key=lambda i: cards[i].ordinal)
    kept = set(keep)
    out["cards"] = shaped(keep)
    out["edges"] = [edge_view(e) for e in edges if e.from_card in kept and e.to_card in kept]
    out["notes"] = [
        {"id": c.id, "text": c.payload.get("md") or c.payload.get("text") or ""}
        for c in (cards[i] for i in keep)
        if c.kind == "note" or (c.kind == "text" and c.payload.get("role") == "note")
    ]
    out["flows"] = [chain for chain in _flow_chains(cards, edges) if set(chain) <= kept]
    questions = tx.questions(board.id)
    out["questions"] = {
        "staged": sum(q.state == "staged" for q in questions),
        "answered": sum(q.state == "answered" for q in questions),
        "released": sum(q.state == "released" for q in questions),
        "items": [question_view(q) for q in questions],
    }
    out["sections"] = [
        section_summary(c, cards=len(members(cards, c.id)))
        for c in sorted((cards[i] for i in titles), key=lambda c: c.ordinal)
    ]
    journeys: dict[str, list[dict[str, Any]]] = {}
    for s in out["sections"]:
        if "journey" in s:
            journeys.setdefault(s["journey"], []).append(
                {"pass": s["pass"], "section": s["id"], "title": s["title"]}
            )
    out["journeys"] = {k: sorted(v, key=lambda x: x["pass"] or 0) for k, v in journeys.items()}
    out["annotations"] = [
        annotation_view(ws, a, board.slug)
        for a in tx.annotations(board.id, states=OPEN_STATES, kind="finding")
        if a.card_id in kept
    ]
    out["comments"] = _comments(tx, board, cards, kept, None if "section" not in p else keep[0])
    out.update(_lanes(tx, board))
    return out


def _comments(
    tx: Tx, board: BoardRecord, cards: dict[int, CardRecord], kept: set[int], frame: int | None
) -> dict[str, Any]:
    """The comment threads of what is read back (a card kept, or a board point inside
    the section read): how many are open and resolved, and the newest open ones as
    digests, oldest first (at most SCRAPE_THREADS; the rest are get comments')."""

    def here(a: Any) -> bool:
        if a.card_id is not None:
            return a.card_id in kept
        if frame is None:
            return True
        f, at = cards[frame], a.region["at"]
        return f.x <= at["x"] <= f.x + f.w and f.y <= at["y"] <= f.y + f.h

    threads = [
        a for a in tx.annotations(board.id, states=COMMENT_STATES, kind="comment") if here(a)
    ]
    live = [a for a in threads if a.state == "open"]
    return {
        "open": len(live),
        "resolved": len(threads) - len(live),
        "items": [comment_digest(a) for a in live[-SCRAPE_THREADS:]],
    }


def _lanes(tx: Tx, board: BoardRecord) -> dict[str, Any]:
    if board.lanes:
        slugs = [lane.get("slug") for lane in board.lanes]
        ids = {
            slug: found.id
            for slug in slugs
            if isinstance(slug, str)
            and (found := tx.board_by_slug(board.workspace_id, slug)) is not None
        }
        counts = tx.count_annotations(ids.values(), OPEN_STATES)
        return {
            "lanes": [
                {**lane, "openAnnotations": counts.get(ids.get(lane.get("slug"), 0), 0)}
                for lane in board.lanes
            ]
        }
    parent_slug = board.meta.get("parentBoard")
    if isinstance(parent_slug, str):
        parent = tx.board_by_slug(board.workspace_id, parent_slug)
        if parent is not None:
            return {
                "siblings": [
                    {**lane, "active": lane.get("slug") == board.slug} for lane in parent.lanes
                ]
            }
    return {}


def _id(card: CardRecord) -> int:
    return card.id


def _diff(cards: dict[int, CardRecord], a: CardRecord, b: CardRecord) -> dict[str, Any]:
    """Pair the cards of two sections: same file first, then reading order."""
    left = reading_order(
        [cards[i] for i in members(cards, a.id) if cards[i].kind not in FRAME_KINDS], tie=_id
    )
    right = reading_order(
        [cards[i] for i in members(cards, b.id) if cards[i].kind not in FRAME_KINDS], tie=_id
    )
    pairs: list[dict[str, Any]] = []
    used: set[int] = set()
    by_file: dict[str, list[CardRecord]] = {}
    for card in right:
        name = _image_file(card)
        if name:
            by_file.setdefault(name, []).append(card)
    rest_left: list[CardRecord] = []
    for card in left:
        name = _image_file(card)
        match = (
            next((c for c in by_file.get(name or "", []) if c.id not in used), None)
            if name
            else None
        )
        if match is not None:
            used.add(match.id)
            pairs.append({"a": card.id, "b": match.id, "by": "file"})
        else:
            rest_left.append(card)
    rest_right = [c for c in right if c.id not in used]
    for la, rb in zip(rest_left, rest_right, strict=False):
        pairs.append({"a": la.id, "b": rb.id, "by": "order"})
    n = min(len(rest_left), len(rest_right))
    return {
        "a": section_title(a),
        "b": section_title(b),
        "pairs": pairs,
        "unpairedA": [c.id for c in rest_left[n:]],
        "unpairedB": [c.id for c in rest_right[n:]],
    }
