"""search: every group in one call, read from the full-text index (operations.md, Search
rules 1 to 3), on SQLite (in memory and on file) and PostgreSQL alike."""

from __future__ import annotations

import base64
import io
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from layoutkit import Principal, Workspace
from layoutkit.search_text import tokens
from layoutkit.service.search.search import GROUPS, MARK
from tests.conftest import POSTGRES_URL
from tests.service.helpers import join

AGENT = Principal.agent("claude")


def search(ws: Workspace, q: str, **params: Any) -> dict[str, Any]:
    return ws.call("search", {"q": q, **params})


def titles(reply: dict[str, Any], group: str) -> list[str]:
    return [h["title"] for h in reply["groups"][group]]


def task(ws: Workspace, title: str, **fields: Any) -> int:
    return int(ws.call("create", {"kind": "task", "title": title, **fields})["task"]["id"])


def png(w: int = 64, h: int = 40) -> str:
    buf = io.BytesIO()
    Image.new("RGB", (w, h), "teal").save(buf, "PNG")
    return base64.b64encode(buf.getvalue()).decode()


def other_workspace(ws: Workspace) -> Workspace:
    """A second workspace on the same store (another workspace of the organisation);
    ``ws`` becomes a multi-workspace deployment's, where ids may name the other."""
    ws.multi_workspace = True
    return Workspace(ws.store, name=f"other-{uuid.uuid4().hex[:8]}", multi_workspace=True)


# ------------------------------------------------------------------ groups


@pytest.fixture
def orchard(any_ws: Workspace) -> Workspace:
    """One orchid in every group."""
    ws = any_ws
    ws.call("create", {"kind": "board", "slug": "garden", "tags": ["Orchid care"]})
    ws.call("set_board_meta", {"board": "garden", "meta": {"title": "Orchid garden"}})
    ws.call("create", {"kind": "board", "slug": "orchid-session", "subgroup": "sessions"})
    ws.call(
        "compose_board",
        {
            "board": "garden",
            "cards": [
                {"kind": "text", "payload": {"md": "Water the orchid weekly"}},
                {"kind": "page", "payload": {"md": "# Orchid handbook\n\nRepotting in spring."}},
            ],
        },
    )
    files = [{"name": "orchid.png", "data": png()}]
    (shot,) = ws.call("upload_files", {"board": "garden", "files": files}, AGENT)["cards"]
    ws.call(
        "annotate",
        {
            "board": "garden",
            "items": [
                {
                    "key": "k1",
                    "cardId": shot["id"],
                    "cardVersion": 1,
                    "region": {"x": 0, "y": 0, "w": 10, "h": 10},
                    "image": {"width": 64, "height": 40},
                    "prompt": "The orchid petals are cut off",
                }
            ],
        },
        AGENT,
    )
    task(ws, "Photograph the orchid", body="For the spring catalogue")
    return ws


def test_every_group_answers_in_one_call(orchard: Workspace) -> None:
    reply = search(orchard, "ORCHID")
    assert set(reply["groups"]) == set(GROUPS)
    assert reply["corrections"] == []
    got = {group: len(rows) for group, rows in reply["groups"].items()}
    assert got == {
        "tasks": 1,
        "boards": 1,
        "pages": 1,
        "cards": 1,
        "sessions": 1,
        "shots": 1,
        "tags": 1,
        "annotations": 1,
    }
    groups = reply["groups"]
    assert groups["boards"][0] | {"snippet": None} == {
        "kind": "board",
        "board": "garden",
        "title": "Orchid garden",
        "snippet": None,
        "url": "/boards/garden",
        "subgroup": None,
    }
    assert groups["pages"][0]["title"] == "Orchid handbook"
    assert groups["pages"][0]["board"] == "garden"
    assert groups["cards"][0]["snippet"] == f"Water the {MARK[0]}orchid{MARK[1]} weekly"
    assert groups["cards"][0]["url"].startswith("/boards/garden?card=")
    assert groups["shots"][0]["cardKind"] == "media"
    assert groups["tags"][0] | {"snippet": None} == {
        "kind": "tag",
        "tag": "orchid care",
        "title": "orchid care",
        "snippet": None,
        "boards": 1,
        "url": "/?tag=orchid%20care",
        "board": None,
    }
    (finding,) = groups["annotations"]
    assert finding["title"] == "The orchid petals are cut off"
    assert finding["url"] == f"/boards/garden?annotation={finding['id']}"
    (hit,) = groups["tasks"]
    assert hit["title"] == "Photograph the orchid" and hit["url"] == f"/tasks/{hit['id']}"
    # Every hit marks the word it matched.
    for rows in groups.values():
        for row in rows:
            assert f"{MARK[0]}orchid{MARK[1]}" in row["snippet"].casefold(), row


def test_kind_narrows_the_groups_and_limit_caps_each(orchard: Workspace) -> None:
    assert set(search(orchard, "orchid", kind="card")["groups"]) == {"cards", "pages", "shots"}
    assert set(search(orchard, "orchid", kind="task")["groups"]) == {"tasks"}
    for n in range(4):
        task(orchard, f"Orchid task {n}")
    assert len(search(orchard, "orchid", limit=3)["groups"]["tasks"]) == 3
    assert len(search(orchard, "orchid")["groups"]["tasks"]) == 5


def test_every_word_must_occur_as_the_start_of_a_word(any_ws: Workspace) -> None:
    task(any_ws, "Dashboard filters reset on reload")
    task(any_ws, "Dashboard export")
    assert titles(search(any_ws, "dash reload"), "tasks") == ["Dashboard filters reset on reload"]
    assert len(titles(search(any_ws, "dash"), "tasks")) == 2
    # Inside a word is not the start of one.
    assert titles(search(any_ws, "board"), "tasks") == []


def test_title_words_outrank_body_words(any_ws: Workspace) -> None:
    task(any_ws, "Release notes", body="mention the invoice change")
    task(any_ws, "Invoice totals are rounded twice", body="seen in the March export")
    assert titles(search(any_ws, "invoice"), "tasks") == [
        "Invoice totals are rounded twice",
        "Release notes",
    ]


# ------------------------------------------------------------------ rule 2


def test_a_task_is_read_by_every_field_ref_and_comment_never_a_hand_back(
    any_ws: Workspace,
) -> None:
    ws = any_ws
    ws.call("create", {"kind": "board", "slug": "checkout-flow"})
    tid = task(
        ws,
        "Payment page",
        body="Cards declined on retry",
        nextAction="Ask finance about chargebacks",
        gates=[
            {"title": "QA signoff", "kind": "step", "evidence": "screencast of the refund path"}
        ],
        branch="feat/stripe-webhooks",
        fields={"customer": "Globex"},
    )
    ws.call(
        "add_task_ref",
        {
            "id": tid,
            "kind": "pr",
            "ref": "acme/shop#481",
            "meta": {"title": "Retry idempotency keys", "worktree": "shop-pay"},
        },
    )
    ws.call("add_task_ref", {"id": tid, "kind": "board", "ref": "checkout-flow"})
    with ws.store.transaction() as tx:
        tx.record_task_event(tid, "comment", "ana", {"text": "Saw the same with Maestro"})
    ws.call("hand_back", {"id": tid, "summary": "Zeppelin summary words stay out"})

    def where(q: str) -> tuple[list[str], str]:
        (hit,) = search(ws, q)["groups"]["tasks"]
        return hit["matchedIn"], hit["matchedLabel"]

    assert where("payment") == (["title"], "title")
    assert where("declined") == (["body"], "body")
    assert where("chargebacks") == (["field:nextAction"], "next action")
    assert where("refund") == (["field:gates"], "gates and evidence")
    assert where("webhooks") == (["field:branch"], "branch")
    assert where("globex") == (["field:customer"], "customer")
    assert where("idempotency") == (["ref"], "pr acme/shop#481 Retry idempotency keys shop-pay")
    assert where("481")[0] == ["ref"]
    assert where("acme shop")[0] == ["ref"]
    assert where("checkout flow")[0] == ["ref"]
    assert where("maestro") == (["comment"], "comment")
    assert where("retry") == (["body", "ref"], "body")
    assert search(ws, "zeppelin")["groups"]["tasks"] == []


def test_the_index_moves_with_every_write(any_ws: Workspace) -> None:
    ws = any_ws
    tid = task(ws, "Quarterly roadmap")
    ws.call("update", {"kind": "task", "id": tid, "title": "Yearly plan"})
    assert titles(search(ws, "quarterly"), "tasks") == []
    assert titles(search(ws, "yearly"), "tasks") == ["Yearly plan"]
    ws.call("create", {"kind": "board", "slug": "b"})
    # Four cards: removing one stays under the share of a board that needs a confirm.
    notes = [{"kind": "note", "payload": {"md": md}} for md in ("Mango", "a", "b", "c")]
    card = ws.call("compose_board", {"board": "b", "cards": notes})["cards"][0]
    ws.call("update_cards", {"patch": [{"id": card["id"], "payload": {"md": "Papaya"}}]})
    assert search(ws, "mango")["groups"]["cards"] == []
    assert [h["id"] for h in search(ws, "papaya")["groups"]["cards"]] == [card["id"]]
    ws.call("update_cards", {"remove": [card["id"]]})
    assert search(ws, "papaya")["groups"]["cards"] == []
    ws.call("update_cards", {"restore": [card["id"]]})
    assert [h["id"] for h in search(ws, "papaya")["groups"]["cards"]] == [card["id"]]
    ws.call("set_board_meta", {"board": "b", "tags": ["Tropical"]})
    assert [h["tag"] for h in search(ws, "tropical")["groups"]["tags"]] == ["tropical"]
    # A write that fails leaves the index as it was.
    with pytest.raises(RuntimeError), ws.store.transaction() as tx:
        tx.update_task(tid, title="Kiwi harvest")
        tx.flush_search_index()
        raise RuntimeError("rolled back")
    assert titles(search(ws, "kiwi"), "tasks") == []
    assert titles(search(ws, "yearly"), "tasks") == ["Yearly plan"]


# ------------------------------------------------------------------ rule 1


def test_pins_come_first_in_every_form(any_ws: Workspace) -> None:
    ws = any_ws
    ws.call("create", {"kind": "board", "slug": "login-map"})
    first = task(ws, "Login fails on Safari")
    ws.call("add_task_ref", {"id": first, "kind": "board", "ref": "login-map"})
    second = task(ws, "Login copy review")

    def pinned(q: str) -> list[int]:
        return [h["id"] for h in search(ws, q)["groups"]["tasks"] if h.get("pinned")]

    assert pinned(f"#{first}") == [first]
    assert pinned(f"feat/tk-{first}-safari") == [first]
    assert pinned(f"Fix login (tk-{second})") == [second]
    assert pinned(str(first)) == [first]
    assert pinned(f"login {first}") == []
    assert pinned(f"https://lk.example.com/tasks/{second}") == [second]
    reply = search(ws, f"login #{second}")
    assert [h["id"] for h in reply["groups"]["tasks"]] == [second, first]
    assert reply["groups"]["tasks"][0]["matchedLabel"] == f"#{second}"
    boards = search(ws, f"#{first}")["groups"]["boards"]
    assert [(b["board"], b.get("pinned")) for b in boards] == [("login-map", True)]
    # A number naming no task pins nothing.
    assert search(ws, "#987654")["groups"]["tasks"] == []


def test_a_pin_into_another_workspace_carries_it_and_an_unopenable_one_gives_no_row(
    any_ws: Workspace,
) -> None:
    other = other_workspace(any_ws)
    there = task(other, "Billing export")
    name = _workspace_name(other)
    (hit,) = search(any_ws, f"{name}/{there}")["groups"]["tasks"]
    assert hit["pinned"] is True and hit["id"] == there
    assert hit["workspace"] == {"name": name, "url": f"/{name}"}
    assert hit["url"] == f"/{name}/tasks/{there}"
    assert search(any_ws, f"nowhere-{uuid.uuid4().hex[:6]}/{there}")["groups"]["tasks"] == []
    assert search(any_ws, f"{name}/{there + 1000}")["groups"]["tasks"] == []
    # A task of another workspace is not this workspace's #n.
    assert all(h["id"] != there for h in search(any_ws, f"#{there}")["groups"]["tasks"])


def test_a_pin_into_a_workspace_the_caller_is_no_member_of_gives_no_row(
    any_ws: Workspace,
) -> None:
    other = other_workspace(any_ws)
    there = task(other, "Secret plan")
    name = _workspace_name(other)
    mallory = any_ws.authenticate(any_ws.create_token("user", "mallory"))
    for q in (
        f"{name}/{there}",
        f"/{name}/vp/tasks/{there}",
        f"https://lk.test/{name}/tasks/{there}",
    ):
        found = any_ws.call("search", {"q": q}, mallory)
        assert found["groups"]["tasks"] == [], q
        resolved = any_ws.call("search", {"q": q, "mode": "resolve"}, mallory)
        assert resolved["candidates"] == [] and resolved["missing"] == [f"{name}/{there}"], q
    # A member there sees it, in words and in resolve mode.
    join(other, mallory, "member", via=any_ws)
    (hit,) = any_ws.call("search", {"q": f"{name}/{there}"}, mallory)["groups"]["tasks"]
    assert hit["id"] == there and hit["workspace"]["name"] == name
    resolved = any_ws.call("search", {"q": f"{name}/{there}", "mode": "resolve"}, mallory)
    assert [c["id"] for c in resolved["candidates"]] == [there]


def _workspace_name(ws: Workspace) -> str:
    with ws.store.read() as tx:
        found = tx.workspace(ws.workspace_id)
        assert found is not None
        return found.name


# ------------------------------------------------------------------ rule 3


def test_a_misspelt_word_is_searched_as_its_nearest_words(any_ws: Workspace) -> None:
    ws = any_ws
    for n in range(5):
        task(ws, f"Refund button {n} is hidden")
    task(ws, "Refunds report", body="mentions the refnd typo itself")
    reply = search(ws, "refnd")
    assert reply["corrections"] == [{"from": "refnd", "to": "refund"}]
    rows = reply["groups"]["tasks"]
    # The row holding the typed word ranks first; rows found by the correction follow.
    assert [(r["title"], r.get("corrected", False)) for r in rows] == [
        ("Refunds report", False),
        *((f"Refund button {n} is hidden", True) for n in range(5)),
    ]
    # A word as common as its neighbours is taken as typed.
    task(ws, "refnd again")
    assert search(ws, "refnd")["corrections"] == []


def test_what_is_corrected_and_what_never_is(any_ws: Workspace) -> None:
    ws = any_ws
    task(ws, "Translation pipeline", body="uses the glossary")
    task(ws, "Onboarding checklist")

    def fixes(q: str) -> list[dict[str, str]]:
        return search(ws, q)["corrections"]

    # Two edits from 8 letters, one below.
    assert fixes("tarnslation") == [{"from": "tarnslation", "to": "translation"}]
    assert fixes("glosary") == [{"from": "glosary", "to": "glossary"}]
    assert fixes("glssry") == []
    # The first letter must agree.
    assert fixes("flossary") == []
    # Short words, words with digits, dashes or slashes are never corrected.
    assert fixes("pipe2line") == []
    assert fixes("onbaording-checklist") == []
    assert fixes("onbaording/checklist") == []
    assert fixes("glo") == []
    # A word that starts a vocabulary word is typed right.
    assert fixes("transl") == []


def test_the_vocabulary_forgets_words_no_row_holds(any_ws: Workspace) -> None:
    ws = any_ws
    tid = task(ws, "Kaleidoscope view")
    assert search(ws, "kaleidoscpe")["corrections"] == [
        {"from": "kaleidoscpe", "to": "kaleidoscope"}
    ]
    ws.call("update", {"kind": "task", "id": tid, "title": "Prism view"})
    assert search(ws, "kaleidoscpe")["corrections"] == []


# ------------------------------------------------------------------ invariants

_WORDS = ["café", "cafe", "menu", "menus", "mentor", "plan", "planning", "złoty", "zloty", "east"]


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    docs=st.lists(
        st.tuples(
            st.lists(st.sampled_from(_WORDS), min_size=1, max_size=4),
            st.lists(st.sampled_from(_WORDS), max_size=4),
        ),
        min_size=1,
        max_size=8,
    ),
    query=st.lists(st.sampled_from([*_WORDS, "me", "pla", "MENU", "Cafè"]), min_size=1, max_size=2),
)
def test_the_index_answers_as_a_scan_would(
    any_ws: Workspace, docs: list[tuple[list[str], list[str]]], query: list[str]
) -> None:
    ws = other_workspace(any_ws)
    made = {}
    for i, (title, body) in enumerate(docs):
        name = f"{' '.join(title)} {i}"
        made[name] = tokens(f"{name} {' '.join(body)}")
        task(ws, name, body=" ".join(body))
    wanted = tokens(" ".join(query))
    scan = {
        n for n, toks in made.items() if all(any(t.startswith(w) for t in toks) for w in wanted)
    }
    rows = search(ws, " ".join(query), limit=50)["groups"]["tasks"]
    assert {r["title"] for r in rows if not r.get("corrected")} == scan
    for row in rows:
        assert row["snippet"] and MARK[0] in row["snippet"]


@pytest.fixture
def both() -> Iterator[tuple[Workspace, Workspace]]:
    if not POSTGRES_URL:
        pytest.skip("LAYOUTKIT_TEST_POSTGRES_URL is not set; PostgreSQL tests need a server")
    with (
        Workspace.open() as lite,
        Workspace.open(POSTGRES_URL, name=f"test-{uuid.uuid4().hex[:12]}") as pg,
    ):
        yield lite, pg


def test_both_backends_give_the_same_rows(both: tuple[Workspace, Workspace]) -> None:
    replies = []
    for ws in both:
        ws.call("create", {"kind": "board", "slug": "ops", "tags": ["Incident review"]})
        ws.call(
            "compose_board",
            {
                "board": "ops",
                "cards": [
                    {"kind": "note", "payload": {"md": "Incident timeline, 2026-03-04"}},
                    {"kind": "text", "payload": {"md": "Postmortem actions for the incident"}},
                ],
            },
        )
        task(ws, "Incident: pager storm", body="alerts fired 400 times")
        task(ws, "Write the postmortem", nextAction="collect the incident timeline")
        task(ws, "Résumé parser", body="handles naïve dates")
        replies.append(
            [
                {g: sorted(titles(search(ws, q), g)) for g in GROUPS}
                for q in ("incident", "inc time", "resume naive", "incidnet", "2026", "400")
            ]
        )
    assert replies[0] == replies[1]
