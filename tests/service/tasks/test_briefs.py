"""compose_brief and pickup_task: the Plan chapter, the skeleton, versions, load stamps
and the read rail, on every storage backend (see operations.md, Briefs)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from layoutkit import Principal, Workspace
from layoutkit.service.tasks.brief_sections import SECTIONS, lint_brief
from layoutkit.service.tasks.briefs import CHAPTER
from tests.service.brainstorm import brainstorm
from tests.service.helpers import assert_tidy, err

PROSE = [
    s.title for s in SECTIONS if s.title not in ("Decisions that matter", "Open questions", "Refs")
]


def _sections(text: str) -> dict[str, list[str]]:
    """The skeleton's ``##`` sections in order, each with its non-blank lines."""
    out: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("## "):
            current = line[3:]
            out[current] = []
        elif current is not None and line.strip():
            out[current].append(line)
    return out


def _plans(ws: Workspace, slug: str) -> list[dict[str, Any]]:
    return [
        s
        for s in ws.call("list", {"kind": "section", "board": slug})["sections"]
        if s["title"] == CHAPTER
    ]


def test_the_chapter_is_rebuilt_at_the_end_never_duplicated(any_ws: Workspace) -> None:
    b = brainstorm(any_ws)
    first = any_ws.call("compose_brief", {"id": b.epic})["chapter"]
    second = any_ws.call("compose_brief", {"id": b.epic})["chapter"]
    assert second["replaced"] == [first["section"]]
    assert [s["id"] for s in _plans(any_ws, b.board)] == [second["section"]]
    cards = assert_tidy(any_ws, b.board)
    ids = {c["id"] for c in cards}
    # The old chapter and everything in it went to the trash.
    assert not ids & {first["section"], *first["cards"]}
    plan = next(c for c in cards if c["id"] == second["section"])
    others = [c for c in cards if c["parent"] is None and c["id"] != plan["id"]]
    assert plan["y"] >= max(c["y"] + c["h"] for c in others)


def test_each_chosen_take_is_a_ref_to_its_winning_card(any_ws: Workspace) -> None:
    b = brainstorm(any_ws)
    chapter = any_ws.call("compose_brief", {"id": b.epic})["chapter"]
    cards = {c["id"]: c for c in any_ws.call("scrape_board", {"board": b.board})["cards"]}
    members = [cards[i] for i in chapter["cards"]]
    refs = [c["payload"] for c in members if c["kind"] == "ref"]
    guest_card = next(
        q["cardId"]
        for q in any_ws.call("get", {"kind": "questions", "board": b.board})["questions"]
        if q["id"] == b.questions[2]
    )
    # A take with a card of its own points there; a take without one points at the
    # decision's card.
    assert [(r["card"], r["label"]) for r in refs] == [
        (b.takes["PostgreSQL"], "1. Which store keeps carts? → PostgreSQL"),
        (b.takes["Stripe"], "2. Payment provider? → Stripe"),
        (guest_card, "3. Guest checkout? → Yes"),
    ]
    assert refs[0]["target"]["title"] == "PostgreSQL"
    kinds = [c["kind"] for c in members]
    assert kinds == ["callout", "text", "ref", "ref", "ref", "diagram", "checklist"]
    intent, diagram, checklist = members[0], members[5], members[6]
    assert intent["payload"]["title"] == "Intent" and "Checkout v2" in intent["payload"]["md"]
    assert diagram["payload"]["title"] == "Checkout architecture"
    assert chapter["architecture"] == b.diagram
    assert checklist["payload"]["items"] == [
        {"text": "A guest pays by card", "done": False},
        {"text": "A cart survives a restart", "done": True},
    ]


def test_the_skeleton_has_every_section_in_order_with_placeholders(any_ws: Workspace) -> None:
    b = brainstorm(any_ws)
    text = any_ws.call("compose_brief", {"id": b.epic})["skeleton"]
    sections = _sections(text)
    assert list(sections) == [s.title for s in SECTIONS]
    for section in SECTIONS:
        assert sections[section.title][0] == section.placeholder()
        if section.cap is not None:
            assert f"at most {section.cap} " in section.placeholder()
    # Prose sections hold their placeholder and nothing else.
    for title in PROSE:
        assert sections[title] == [next(s for s in SECTIONS if s.title == title).placeholder()]
    table = sections["Decisions that matter"][1:]
    assert table[0] == "| # | Decision | Chosen | Rejected | Why |"
    assert table[2:] == [
        "| 1 | Which store keeps carts? | PostgreSQL | Redis | one database to run |",
        "| 2 | Payment provider? | Stripe | Adyen \\| Mollie |  |",
        "| 3 | Guest checkout? | Yes | No |  |",
    ]
    assert sections["Open questions"][1:] == ["- Decision 4: Coupons at launch? (stakes: scope)"]
    refs = "\n".join(sections["Refs"])
    assert f"/boards/{b.board}" in refs and f"section: {CHAPTER}" in refs
    assert f"card {b.takes['PostgreSQL']}" in refs and f"card {b.diagram}" in refs


def test_answers_not_sent_are_open_questions(any_ws: Workspace) -> None:
    b = brainstorm(any_ws, send=False)
    reply = any_ws.call("compose_brief", {"id": b.epic})
    assert (reply["chapter"]["decisions"], reply["chapter"]["open"]) == (0, 4)
    sections = _sections(reply["skeleton"])
    assert sections["Decisions that matter"][1:] == []
    assert len(sections["Open questions"]) == 5


def test_the_brief_is_version_1_then_the_same_file_continues_it(any_ws: Workspace) -> None:
    b = brainstorm(any_ws)
    lineage = f"{b.board}-brief"
    first = any_ws.call("compose_brief", {"id": b.epic})["brief"]
    assert (first["ref"], first["version"], first["uploaded"]) == (lineage, 1, True)
    stored = any_ws.call("read_task_ref", {"id": b.epic, "ref": lineage})
    assert stored["version"] == 1 and stored["content"].startswith("# Brief: Checkout v2")
    # A later run composes again but never writes over the brief being completed.
    again = any_ws.call("compose_brief", {"id": b.epic})["brief"]
    assert (again["version"], again["uploaded"]) == (1, False)
    done = any_ws.call(
        "upload_task_file",
        {"id": b.epic, "kind": "brief", "filename": f"{lineage}.md", "content": "# Brief v2\n"},
    )["uploaded"][0]
    assert (done["ref"], done["version"]) == (lineage, 2)
    named = any_ws.call(
        "upload_task_file",
        {
            "id": b.epic,
            "kind": "brief",
            "filename": "brief-final.md",
            "content": "# Brief v3\n",
            "versionOf": lineage,
            "hint": "the final brief",
        },
    )["uploaded"][0]
    assert (named["ref"], named["version"]) == (lineage, 3)
    read = any_ws.call("read_task_ref", {"id": b.epic, "ref": lineage})
    assert (read["version"], read["content"]) == (3, "# Brief v3\n")
    refs = {
        (r["kind"], r["ref"]): r for r in any_ws.call("get", {"kind": "task", "id": b.epic})["refs"]
    }
    brief = refs[("brief", lineage)]
    assert (brief["versions"], brief["meta"]["load"], brief["meta"]["hint"]) == (
        3,
        "first",
        "the final brief",
    )


def test_the_door_stamps_load_first_and_on_demand_with_the_section(any_ws: Workspace) -> None:
    b = brainstorm(any_ws)
    any_ws.call(
        "add_task_ref", {"id": b.epic, "kind": "board", "ref": b.board, "meta": {"hint": "mine"}}
    )
    refs = {r["kind"]: r for r in any_ws.call("compose_brief", {"id": b.epic})["refs"]}
    assert refs["brief"]["meta"]["load"] == "first"
    board = refs["board"]
    assert (board["ref"], board["meta"]["load"], board["meta"]["section"]) == (
        b.board,
        "on-demand",
        CHAPTER,
    )
    assert board["meta"]["hint"] == "mine"  # a hint the epic had is kept
    # A brief someone set to load on demand is stamped first again by the next run.
    any_ws.call("add_task_ref", {"id": b.epic, "kind": "brief", "ref": "/elsewhere"})
    lineage = f"{b.board}-brief"
    with any_ws.store.transaction() as tx:
        row = next(r for r in tx.task_refs(b.epic) if r.ref == lineage)
        tx.set_task_ref_meta(row.id, {**row.meta, "load": "on-demand"})
    again = {r["ref"]: r for r in any_ws.call("compose_brief", {"id": b.epic})["refs"]}
    assert again[lineage]["meta"]["load"] == "first"


def test_pickup_lists_first_refs_ahead_of_the_cap_and_hides_never(any_ws: Workspace) -> None:
    b = brainstorm(any_ws)
    any_ws.call("compose_brief", {"id": b.epic})
    for name in ("a.md", "b.md", "c.md"):
        any_ws.call("upload_task_file", {"id": b.epic, "filename": name, "content": name})
    any_ws.call(
        "upload_task_file", {"id": b.epic, "filename": "old.log", "content": "x", "load": "never"}
    )
    capped = any_ws.call("pickup_task", {"id": b.epic, "cap": 1})
    rail = [(e["kind"], e["ref"]) for e in capped["rail"]]
    # The brief comes first even with the cap at 1; then the newest unstamped file.
    assert rail == [("brief", f"{b.board}-brief"), ("file", "c.md")]
    assert capped["more"] == 2
    assert capped["rail"][0]["read"] == {
        "operation": "read_task_ref",
        "params": {"id": b.epic, "refId": capped["rail"][0]["read"]["params"]["refId"]},
    }
    (line,) = capped["onDemand"]
    assert line["read"] == {
        "operation": "scrape_board",
        "params": {"board": b.board, "section": CHAPTER},
    }
    listed = [e["ref"] for e in capped["rail"] + capped["onDemand"]]
    assert "old.log" not in listed and "old.log" not in capped["text"]
    text = capped["text"]
    assert (
        text.index("## Read now")
        < text.index(f"brief {b.board}-brief")
        < text.index("## Read on demand")
    )
    assert re.search(rf"^- board {b.board} \(section {CHAPTER}\)", text, re.M)
    nothing = any_ws.call("pickup_task", {"id": b.epic, "cap": 0})
    assert [e["kind"] for e in nothing["rail"]] == ["brief"] and nothing["more"] == 3


def test_scrape_section_plan_reads_the_chapter_alone(any_ws: Workspace) -> None:
    b = brainstorm(any_ws)
    chapter = any_ws.call("compose_brief", {"id": b.epic})["chapter"]
    scraped = any_ws.call("scrape_board", {"board": b.board, "section": CHAPTER})
    assert [c["id"] for c in scraped["cards"]] == [chapter["section"], *chapter["cards"]]
    assert {c["section"] for c in scraped["cards"][1:]} == {CHAPTER}


def test_refusals(any_ws: Workspace) -> None:
    b = brainstorm(any_ws)
    bare = any_ws.call("create", {"kind": "task", "title": "No board", "type": "epic"})["task"][
        "id"
    ]
    e = err(any_ws, "compose_brief", {"id": bare})
    assert (e.status, e.code) == (404, "no_brainstorm_board")
    # A board ref that is not a brainstorming board is not the brainstorm board.
    any_ws.call("create", {"kind": "board", "slug": "checkout-design", "subgroup": "design"})
    any_ws.call("add_task_ref", {"id": bare, "kind": "board", "ref": "checkout-design"})
    assert err(any_ws, "compose_brief", {"id": bare}).code == "no_brainstorm_board"
    story = any_ws.call("create", {"kind": "task", "title": "A story", "type": "story"})["task"][
        "id"
    ]
    any_ws.call("add_task_ref", {"id": story, "kind": "board", "ref": b.board})
    e = err(any_ws, "compose_brief", {"id": story})
    assert (e.status, e.code) == (422, "not_an_epic")
    assert err(any_ws, "compose_brief", {"id": 9999}).code == "unknown_task"
    assert err(any_ws, "compose_brief", {"id": "checkout v2"}).code == "task_reference"
    # Nothing was written by the refusals.
    assert _plans(any_ws, b.board) == []


def test_without_diagram_or_checklist_the_chapter_says_so(any_ws: Workspace) -> None:
    any_ws.call("create", {"kind": "board", "slug": "tiny-brainstorm"})
    epic = any_ws.call("create", {"kind": "task", "title": "Tiny", "type": "epic"})["task"]["id"]
    any_ws.call("add_task_ref", {"id": epic, "kind": "board", "ref": "tiny-brainstorm"})
    bare = any_ws.call("compose_brief", {"id": epic})
    cards = {c["id"]: c for c in any_ws.call("scrape_board", {"board": "tiny-brainstorm"})["cards"]}
    titles = [cards[i]["payload"].get("title") for i in bare["chapter"]["cards"]]
    assert titles == ["Intent", "Architecture", "Acceptance"]
    assert bare["chapter"]["acceptance"] is None
    # The epic's children make the acceptance checklist when the board has none.
    child = any_ws.call(
        "create", {"kind": "task", "title": "Tiny story", "type": "story", "parentId": epic}
    )
    chapter = any_ws.call("compose_brief", {"id": epic})["chapter"]
    cards = {c["id"]: c for c in any_ws.call("scrape_board", {"board": "tiny-brainstorm"})["cards"]}
    checklist = cards[chapter["cards"][-1]]
    assert checklist["kind"] == "checklist"
    assert checklist["payload"]["items"] == [
        {"text": f"#{child['task']['id']} Tiny story", "done": False}
    ]


def test_an_agent_composes_the_brief(any_ws: Workspace) -> None:
    b = brainstorm(any_ws)
    reply = any_ws.call("compose_brief", {"id": str(b.epic)}, Principal.agent("planner"))
    assert reply["brief"]["version"] == 1
    events = any_ws.call("get", {"kind": "task", "id": b.epic})["events"]
    assert any(e["action"] == "task.brief" and e["by"] == "agent:planner" for e in events)


def test_the_skeleton_snapshot(ws: Workspace, snapshot: Any) -> None:
    b = brainstorm(ws)
    assert ws.call("compose_brief", {"id": b.epic})["skeleton"] == snapshot


def test_the_docs_table_of_caps_is_the_one_in_the_code() -> None:
    docs = (Path(__file__).resolve().parents[3] / "docs" / "briefs.md").read_text(encoding="utf-8")
    start = docs.index("| section | cap |")
    rows = re.findall(r"^\| ([^|]+) \| ([^|]+) \|$", docs[start:].split("\n\n", 1)[0], re.M)
    assert rows[1:] == [
        (s.title, f"{s.cap} {s.unit}" if s.cap is not None else "none") for s in SECTIONS
    ]


GOOD = """# Brief: Checkout v2

## Intent

Guests pay without an account. Carts survive restarts.

## Vocabulary

- Cart: what a person is about to buy.

## As-is

Checkout needs an account.

## To-be

1. As a guest I pay by card.
2. As a buyer my cart survives a restart.

## Architecture

```mermaid
flowchart LR
  web --> api
```

- web
- api

## Decisions that matter

| # | Decision | Chosen | Rejected | Why |
|---|---|---|---|---|
| 1 | Store | PostgreSQL | Redis | one database |

## Prerequisites

- A Stripe account.

## Acceptance criteria

- Story 1: a guest pays; test seam: the checkout API.
- S2: a cart survives a restart; seam: the cart store.

## Work packages

1. Cart table in `cart/store.py`.
2. Guest payment in `pay/guest.py`.

## Out of scope

Coupons.

## Open questions

- Decision 4: Coupons at launch?

## Refs

- Epic: #1
"""


def test_a_completed_brief_fits_and_the_skeleton_says_what_is_left(any_ws: Workspace) -> None:
    b = brainstorm(any_ws)
    skeleton = any_ws.call("compose_brief", {"id": b.epic})["skeleton"]
    assert lint_brief(GOOD) == []
    left = {(f["section"], f["code"]) for f in lint_brief(skeleton)}
    assert left == {(t, "placeholder_left") for t in [*PROSE, "Decisions that matter"]}
    up = any_ws.call(
        "upload_task_file",
        {"id": b.epic, "kind": "brief", "filename": f"{b.board}-brief.md", "content": GOOD},
    )["uploaded"][0]
    assert (up["version"], up["lint"]) == (2, [])
    plain = any_ws.call("upload_task_file", {"id": b.epic, "filename": "n.md", "content": "x"})
    assert "lint" not in plain["uploaded"][0]


def test_lint_names_each_way_a_brief_strays() -> None:
    stories = "\n".join(f"{n}. Story {n}." for n in range(1, 17))
    bad = (
        GOOD.replace("Carts survive restarts.", "Carts survive. Fast. Cheap.")
        .replace("1. As a guest I pay by card.\n2. As a buyer my cart survives a restart.", stories)
        .replace("- S2: a cart survives a restart; seam: the cart store.", "- A cart survives.")
        .replace("2. Guest payment in `pay/guest.py`.", "- Guest payment in `cart/store.py`.")
        .replace("## Vocabulary", "## Prerequisites0")
    )
    codes = {(f["section"], f["code"]) for f in lint_brief(bad)}
    assert codes == {
        ("Intent", "over_cap"),
        ("To-be", "over_cap"),
        ("Vocabulary", "missing_section"),
        ("Acceptance criteria", "missing_story"),
        ("Acceptance criteria", "missing_seam"),
        ("Work packages", "not_ordered"),
        ("Work packages", "shared_file"),
    }
    over = next(f for f in lint_brief(bad) if f["section"] == "To-be")
    assert (over["count"], over["cap"]) == (16, 15)
    swapped = GOOD.replace("## Intent", "## X").replace("## Vocabulary", "## Intent")
    assert "section_order" in {
        f["code"] for f in lint_brief(swapped.replace("## X", "## Vocabulary"))
    }


def test_an_architecture_over_ten_units_is_warned(any_ws: Workspace) -> None:
    b = brainstorm(any_ws)
    small = any_ws.call("compose_brief", {"id": b.epic})["warnings"]
    assert [w for w in small if w.get("section") == "Architecture"] == []
    chain = "\n".join(f"  n{i} --> n{i + 1}" for i in range(11))
    any_ws.call(
        "compose_board",
        {
            "board": b.board,
            "cards": [
                {
                    "kind": "diagram",
                    "payload": {
                        "title": "Big architecture",
                        "diagram_text": f"flowchart LR\n{chain}",
                    },
                }
            ],
        },
    )
    reply = any_ws.call("compose_brief", {"id": b.epic})
    (warning,) = [w for w in reply["warnings"] if w.get("section") == "Architecture"]
    assert (warning["code"], warning["count"], warning["cap"]) == ("over_cap", 12, 10)
