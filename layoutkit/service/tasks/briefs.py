"""``compose_brief``: a feature brief composed from an epic's brainstorm board.

An epic's brainstorm board is the board ref of the epic whose board sits in
the subgroup ``brainstorming`` (the newest such ref when there are several;
404 ``no_brainstorm_board`` without one). Its decisions are the board's
questions: a released answer is the chosen take, the other options are the
rejected ones, and the chosen option's ``cardId`` (else the question's own
card) is the winning card.

One call, one transaction:

- rebuilds the board's one Plan chapter, a section placed below everything
  on the board: the intent (the epic's words), a ref to each decision's
  winning card, a copy of the architecture diagram and the acceptance
  checklist. The chapter a previous call made (named in the board's
  ``meta.planComposed``) goes to the trash first, so there is never a
  second one.
- writes the brief skeleton (:func:`skeleton`): the sections of
  :data:`~layoutkit.service.tasks.brief_sections.SECTIONS` in order, each opened by a placeholder comment that
  states the section's cap, with the decision table, the open questions and
  the refs filled in.
- uploads the skeleton as version 1 of the epic's brief (lineage
  ``<slug>-brief``, file ``<slug>-brief.md``) the first time; a completed
  brief is the next version of that file (upload_task_file with kind brief).
- stamps the brief ref ``meta.load: first`` and the board ref
  ``meta.load: on-demand`` with ``meta.section: Plan``, which pickup reads.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

import attrs

from layoutkit import layout
from layoutkit.errors import ServiceError
from layoutkit.folding import fold
from layoutkit.formatting import an
from layoutkit.service.boards.board_model import BoardModels, write_changes
from layoutkit.service.boards.content_prep import Prepared, prepare_card
from layoutkit.service.boards.layout_params import batch_from_params
from layoutkit.service.boards.placing import store_batch
from layoutkit.service.boards.ref_targets import card_title, refresh_ref_targets
from layoutkit.service.road.ids import TASK_ID
from layoutkit.service.road.registry import REGISTRY
from layoutkit.service.road.workspace import Call, Workspace
from layoutkit.service.tasks.brief_sections import BY_TITLE, SECTIONS
from layoutkit.service.tasks.finding import find_task
from layoutkit.service.tasks.model import refs_view, task_file_url, task_view
from layoutkit.service.tasks.task_refs import _merged_meta, tokens_of
from layoutkit.storage import (
    BoardRecord,
    CardRecord,
    QuestionRecord,
    TaskRecord,
    TaskRefRecord,
    Tx,
)

#: The section title of the chapter on the board, and the ``meta.section`` of the board ref.
CHAPTER = "Plan"
#: The board subgroup that makes a board ref of an epic its brainstorm board.
BRAINSTORM_SUBGROUP = "brainstorming"
#: Characters of the epic's body the chapter's intent card quotes.
INTENT_CHARS = 600
#: Characters of a ref chip's label that fit the chip of a 480-wide ref card.
LABEL_CHARS = 64
BRIEF_HINT = "the feature brief: read it before any work on the epic"
BOARD_HINT = "the brainstorm board: its decisions, takes and the Plan chapter"


@attrs.frozen(slots=True)
class Decision:
    """One question of the brainstorm board as the brief reads it."""

    number: int
    prompt: str
    stakes: str | None
    chosen: tuple[str, ...]  # empty while unanswered
    rejected: tuple[str, ...]
    why: str
    cards: tuple[int, ...]  # the winning cards, one per chosen take that has one

    @property
    def answered(self) -> bool:
        return bool(self.chosen)


# ------------------------------------------------------------------ reading the board


def brainstorm_ref(tx: Tx, task: TaskRecord) -> tuple[TaskRefRecord, BoardRecord]:
    """The epic's brainstorm board ref (newest version) and its board; 404
    ``no_brainstorm_board`` when no board ref of the epic is a brainstorming board.
    Of several, the one attached last wins."""
    newest: dict[str, TaskRefRecord] = {}
    first: dict[str, int] = {}
    for row in tx.task_refs(task.id):
        if row.kind != "board":
            continue
        first[row.ref] = min(first.get(row.ref, row.id), row.id)
        if row.ref not in newest or row.version > newest[row.ref].version:
            newest[row.ref] = row
    for slug in sorted(newest, key=lambda s: first[s], reverse=True):
        board = tx.board_by_slug(task.workspace_id, slug)
        if board is not None and board.subgroup == BRAINSTORM_SUBGROUP:
            return newest[slug], board
    raise ServiceError(
        404,
        "no_brainstorm_board",
        f"epic {task.id} has no brainstorm board: attach a board of the subgroup "
        f"{BRAINSTORM_SUBGROUP} (add_task_ref kind board)",
        id=task.id,
    )


def _epic(call: Call, *, lock: bool) -> TaskRecord:
    task = find_task(call, call.params["id"], operation="compose_brief", lock=lock)
    if task.type != "epic":
        raise ServiceError(
            422,
            "not_an_epic",
            f"task {task.id} is {an(task.type)}; briefs are composed for epics",
            field="id",
            type=task.type,
        )
    return task


def _brief_board(tx: Tx, call: Call) -> BoardRecord:
    """The road's board of compose_brief: the epic's brainstorm board."""
    task = _epic(attrs.evolve(call, tx=tx), lock=False)
    return brainstorm_ref(tx, task)[1]


def _chapter_ids(tx: Tx, board: BoardRecord) -> list[int]:
    """The live cards of the chapter the last brief made: its section and every member."""
    stamp = board.meta.get("planComposed")
    section = stamp.get("section") if isinstance(stamp, dict) else None
    if not isinstance(section, int):
        return []
    (frame,) = tx.cards_by_id([section]) or (None,)
    if frame is None or frame.board_id != board.id or frame.deleted:
        return []
    out = [frame.id]
    stack = list(frame.children or [])
    while stack:
        found = tx.cards_by_id(stack)
        stack = []
        for card in found:
            if not card.deleted and card.board_id == board.id:
                out.append(card.id)
                stack.extend(card.children or [])
    return out


def decisions(tx: Tx, board: BoardRecord, live: dict[int, CardRecord]) -> list[Decision]:
    """The board's questions in the order they were asked, as decisions. Only a
    released answer counts: an answer staged but not sent is not a decision yet."""
    out = []
    for n, q in enumerate(sorted(tx.questions(board.id), key=lambda q: q.id), start=1):
        out.append(_decision(n, q, live))
    return out


def _decision(n: int, q: QuestionRecord, live: dict[int, CardRecord]) -> Decision:
    answers = q.answers if q.state == "released" and isinstance(q.answers, list) else []
    chosen = tuple(str(a) for a in answers if str(a).strip())
    options = [o for o in q.options if isinstance(o, dict) and not o.get("other")]
    by_label = {o.get("label"): o for o in options}
    rejected = tuple(str(o["label"]) for o in options if o.get("label") not in chosen)
    why = ""
    cards: list[int] = []
    for label in chosen:
        option = by_label.get(label) or {}
        why = why or _first_line(option.get("hint")) or _first_line(option.get("detail"))
        card = option.get("cardId")
        if not (isinstance(card, int) and card in live):
            # A take without a card of its own (or an Other answer) is shown by the
            # decision's own card.
            card = q.card_id if q.card_id in live else None
        if card is not None and card not in cards:
            cards.append(card)
    return Decision(
        number=n,
        prompt=q.prompt,
        stakes=q.stakes,
        chosen=chosen,
        rejected=rejected if chosen else (),
        why=why,
        cards=tuple(cards),
    )


def _first_line(value: Any) -> str:
    if not isinstance(value, str):
        return ""
    return next((line.strip() for line in value.splitlines() if line.strip()), "")


def _newest(cards: Iterable[CardRecord]) -> CardRecord | None:
    return max(cards, key=lambda c: c.ordinal, default=None)


def architecture(cards: Iterable[CardRecord]) -> CardRecord | None:
    """The architecture diagram: the newest diagram card whose title says architecture,
    else the newest diagram card."""
    diagrams = [c for c in cards if c.kind == "diagram"]
    named = [c for c in diagrams if "architecture" in fold(str(c.payload.get("title") or ""))]
    return _newest(named) or _newest(diagrams)


def units(payload: dict[str, Any]) -> int:
    """The nodes of a diagram payload, in every group and lane."""
    count = 0
    stack: list[Any] = [payload]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        count += len(node["nodes"]) if isinstance(node.get("nodes"), list) else 0
        for key in ("groups", "lanes"):
            if isinstance(node.get(key), list):
                stack.extend(node[key])
    return count


def acceptance(
    cards: Iterable[CardRecord], children: list[TaskRecord]
) -> tuple[list[dict[str, Any]], str]:
    """The acceptance checklist's items and where they came from: the newest checklist
    card titled with the word acceptance, else the epic's children (not cancelled)."""
    named = [
        c
        for c in cards
        if c.kind == "checklist" and "acceptance" in fold(str(c.payload.get("title") or ""))
    ]
    found = _newest(named)
    if found is not None:
        items = [
            {"text": str(i.get("text")), "done": bool(i.get("done"))}
            for i in found.payload.get("items") or []
            if isinstance(i, dict) and i.get("text")
        ]
        return items, f"card {found.id}"
    items = [
        {"text": f"#{t.id} {t.title}", "done": t.status == "done"}
        for t in sorted(children, key=lambda t: t.id)
        if t.status != "cancelled"
    ]
    return items, "children"


# ------------------------------------------------------------------ the chapter


def _intent_md(epic: TaskRecord) -> str:
    body = (epic.body or "").strip()
    para = body.split("\n\n", 1)[0].strip()
    if len(para) > INTENT_CHARS:
        para = para[: INTENT_CHARS - 1].rstrip() + "…"
    return f"**{epic.title}**" + (f"\n\n{para}" if para else "")


def _take_label(d: Decision) -> str:
    """``<n>. <decision> → <chosen>``, the decision cut at a word so the whole label fits
    on the ref chip (:data:`LABEL_CHARS`); the skeleton keeps the words whole."""
    chosen = _cut(", ".join(d.chosen), LABEL_CHARS // 2)
    prompt = _cut(d.prompt, LABEL_CHARS - len(chosen) - len(str(d.number)) - 5)
    return f"{d.number}. {prompt} → {chosen}"


def _cut(text: str, room: int) -> str:
    if len(text) <= room:
        return text
    head = text[: room - 1]
    return (head.rsplit(" ", 1)[0] if " " in head else head) + "…"


def chapter_cards(
    epic: TaskRecord,
    found: list[Decision],
    diagram: CardRecord | None,
    items: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[Prepared]]:
    """The chapter as a compose batch (the section first, its members after) and the
    members checked against the content contract."""
    members: list[dict[str, Any]] = [
        {"kind": "callout", "payload": {"title": "Intent", "md": _intent_md(epic), "tone": "info"}}
    ]
    answered = [d for d in found if d.answered]
    if answered:
        members.append(
            {"kind": "text", "payload": {"md": "### Decisions", "role": "heading", "level": 3}}
        )
    for d in answered:
        for card in d.cards:
            members.append({"kind": "ref", "payload": {"card": card, "label": _take_label(d)}})
        if not d.cards:
            # Nothing on the board shows this take: the chapter says it in words.
            members.append({"kind": "text", "payload": {"md": f"**{_take_label(d)}**"}})
    if diagram is None:
        members.append(
            {
                "kind": "callout",
                "payload": {
                    "title": "Architecture",
                    "md": "No architecture diagram on the board yet: compose a diagram "
                    "titled Architecture, then compose the brief again.",
                    "tone": "warn",
                },
            }
        )
    if items:
        members.append({"kind": "checklist", "payload": {"title": "Acceptance", "items": items}})
    else:
        members.append(
            {
                "kind": "callout",
                "payload": {
                    "title": "Acceptance",
                    "md": "No acceptance checklist yet: add a checklist titled Acceptance to "
                    "the board, or stories under the epic.",
                    "tone": "warn",
                },
            }
        )
    prepared = [prepare_card(m, i + 1, authored=False) for i, m in enumerate(members)]
    if diagram is not None:
        # The diagram as it stands, geometry and all: its copy needs no new layout.
        at = len(prepared) - 1
        prepared.insert(at, Prepared("diagram", copy.deepcopy(diagram.payload), [], {}))
        members.insert(at, {"kind": "diagram", "payload": prepared[at].payload})
    raw = [{**m, "ref": f"plan-{i}"} for i, m in enumerate(members)]
    section = {
        "kind": "section",
        "ref": "plan",
        "payload": {"title": CHAPTER, "layout": {"mode": "grid", "cols": 1}},
        "children": [m["ref"] for m in raw],
    }
    frame = prepare_card({"kind": "section", "payload": section["payload"]}, 0, authored=False)
    return [section, *raw], [frame, *prepared]


# ------------------------------------------------------------------ the skeleton


def _cell(text: str) -> str:
    return re.sub(r"\s+", " ", text).replace("|", "\\|").strip()


def skeleton(
    ws: Workspace,
    epic: TaskRecord,
    board: BoardRecord,
    found: list[Decision],
    diagram: CardRecord | None,
) -> str:
    """The brief skeleton: every section of :data:`SECTIONS` in order, opened by its
    placeholder; the decision table, the open questions and the refs filled in."""
    lines = [f"# Brief: {epic.title}", ""]
    for section in SECTIONS:
        lines += [f"## {section.title}", "", section.placeholder(), ""]
        if section.title == "Decisions that matter":
            answered = [d for d in found if d.answered]
            if answered:
                lines += ["| # | Decision | Chosen | Rejected | Why |", "|---|---|---|---|---|"]
                lines += [
                    f"| {d.number} | {_cell(d.prompt)} | {_cell(', '.join(d.chosen))} | "
                    f"{_cell('; '.join(d.rejected))} | {_cell(d.why)} |"
                    for d in answered
                ]
                lines.append("")
        elif section.title == "Open questions":
            open_ = [d for d in found if not d.answered]
            for d in open_:
                stakes = f" (stakes: {_cell(d.stakes)})" if d.stakes else ""
                lines.append(f"- Decision {d.number}: {_cell(d.prompt)}{stakes}")
            if open_:
                lines.append("")
        elif section.title == "Refs":
            lines += [*_refs_lines(ws, epic, board, found, diagram), ""]
    return "\n".join(lines).rstrip() + "\n"


def _refs_lines(
    ws: Workspace,
    epic: TaskRecord,
    board: BoardRecord,
    found: list[Decision],
    diagram: CardRecord | None,
) -> list[str]:
    where = ws.link(f"/boards/{board.slug}")
    lines = [
        f"- Epic: #{epic.id} {epic.title} (/tasks/{epic.id})",
        f"- Brainstorm board: {board.slug} ({where}); the {CHAPTER} chapter alone: "
        f"scrape_board {{board: {board.slug}, section: {CHAPTER}}}",
    ]
    if diagram is not None:
        title = card_title(diagram.payload) or "diagram"
        lines.append(f"- Architecture: {title}, card {diagram.id} ({where}?card={diagram.id})")
    for d in found:
        for card in d.cards:
            lines.append(f"- Decision {d.number}, chosen take: card {card} ({where}?card={card})")
    return lines


# ------------------------------------------------------------------ the operation


def _stamp(tx: Tx, row: TaskRefRecord, patch: dict[str, Any]) -> TaskRefRecord:
    """Merge ``patch`` into a ref's newest meta, writing only when it changes."""
    meta = _merged_meta(row.meta, patch)
    return tx.set_task_ref_meta(row.id, meta) if meta != row.meta else row


@REGISTRY.operation(
    "compose_brief",
    "Compose the brief of an epic (id) from its brainstorm board (a board ref of the "
    "subgroup brainstorming; 404 no_brainstorm_board without one). Rebuilds the one Plan "
    "chapter at the end of the board: the intent, a ref to each decision's winning card, "
    "the architecture diagram and the acceptance checklist. Answers the brief skeleton "
    "(markdown): sections in order with their caps as placeholder comments, the decision "
    "table, open questions and refs. The first call uploads it as version 1 of the "
    "epic's brief <slug>-brief.md; upload the completed brief as the next version "
    "(upload_task_file kind brief). Stamps the brief ref load first and the board ref "
    "load on-demand with section Plan.",
    {
        "required": ["id"],
        "properties": {"id": TASK_ID},
        "additionalProperties": False,
    },
    board=_brief_board,
    writes=True,
)
def compose_brief(call: Call) -> dict[str, Any]:
    tx, board = call.tx, call.board
    assert board is not None  # the road found it: the epic's brainstorm board
    epic = _epic(call, lock=True)
    who = call.principal.label
    board_ref, _ = brainstorm_ref(tx, epic)

    old = _chapter_ids(tx, board)
    if old:
        # The last chapter goes to the trash (kept 30 days) before the new one is placed.
        model = call.workspace.extension(BoardModels).load(tx, board)
        tx.remove_cards(old, by=who)
        write_changes(tx, layout.remove_cards(model, [i for i in old if i in model]))
        refresh_ref_targets(tx, board, old)
    live = {c.id: c for c in tx.cards(board.id)}
    found = decisions(tx, board, live)
    diagram = architecture(live.values())
    items, source = acceptance(live.values(), tx.tasks(epic.workspace_id, parent_id=epic.id))
    raw, prepared = chapter_cards(epic, found, diagram, items)
    batch = attrs.evolve(
        batch_from_params(
            {
                "layer": call.principal.layer,
                "cards": [
                    {**r, "kind": p.kind, "payload": p.payload}
                    for r, p in zip(raw, prepared, strict=True)
                ],
            }
        ),
        at_end=True,
    )
    receipt = store_batch(
        call.principal,
        tx,
        board,
        batch,
        prepared,
        raw,
        [],
        [],
        [],
        models=call.workspace.extension(BoardModels),
    )
    section_id = receipt["cards"][0]["id"]
    stamp = {
        "task": epic.id,
        "section": section_id,
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    tx.update_board(board.id, meta={**board.meta, "planComposed": stamp})

    text = skeleton(call.workspace, epic, board, found, diagram)
    lineage = f"{board.slug}-brief"
    rows = tx.task_refs(epic.id)
    versions = [r for r in rows if (r.kind, r.ref) == ("brief", lineage)]
    if versions:
        brief = _stamp(tx, max(versions, key=lambda r: r.version), {"load": "first"})
        uploaded = False
    else:
        data = text.encode("utf-8")
        brief = tx.add_task_ref_version(
            epic.id,
            "brief",
            lineage,
            meta={
                "filename": f"{lineage}.md",
                "mime": "text/markdown",
                "tokens": tokens_of(text),
                "load": "first",
                "hint": BRIEF_HINT,
            },
            author=who,
            blob=tx.blobs.put(data),
            size=len(data),
        )
        uploaded = True
    board_patch: dict[str, Any] = {"load": "on-demand", "section": CHAPTER}
    if not board_ref.meta.get("hint"):
        board_patch["hint"] = BOARD_HINT
    _stamp(tx, board_ref, board_patch)
    tx.record_task_event(
        epic.id,
        "task.brief",
        who,
        {
            "board": board.slug,
            "section": section_id,
            "replaced": old[:1],
            "brief": {"ref": lineage, "version": brief.version, "uploaded": uploaded},
        },
    )
    answered = sum(d.answered for d in found)
    warnings = list(receipt["warnings"])
    cap = BY_TITLE["Architecture"].cap
    if diagram is not None and cap is not None and units(diagram.payload) > cap:
        warnings.append(
            {
                "code": "over_cap",
                "section": "Architecture",
                "message": f"the architecture diagram has {units(diagram.payload)} units; "
                f"a brief's diagram holds at most {cap}",
                "count": units(diagram.payload),
                "cap": cap,
            }
        )
    return {
        "task": task_view(tx, tx.task(epic.id) or epic),
        "board": board.slug,
        "chapter": {
            "section": section_id,
            "title": CHAPTER,
            "cards": [c["id"] for c in receipt["cards"][1:]],
            "replaced": old[:1],
            "decisions": answered,
            "open": len(found) - answered,
            "architecture": diagram.id if diagram is not None else None,
            "acceptance": source if items else None,
        },
        "brief": {
            "ref": lineage,
            "filename": f"{lineage}.md",
            "version": brief.version,
            "uploaded": uploaded,
            "url": task_file_url(call.workspace, epic.id, brief.id),
        },
        "skeleton": text,
        "refs": refs_view(call.workspace, epic, tx.task_refs(epic.id)),
        "warnings": warnings,
    }
