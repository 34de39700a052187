"""search's answers held to a record: a seeded workspace (tasks with fields, refs and
comments, boards open and personal, sessions, cards of every kind, findings, tags,
another workspace beside it) asked a broad set of queries (prefixes, misspellings,
pins, identifiers, narrowed kinds, limits) by callers who may reach different boards.

search_answers.json holds what the code answered when the record was made, per
backend family (SQLite, PostgreSQL: their rankings are bm25 and ts_rank). A change
made for speed must give the same hits in the same order with the same views; one
meant to change answers rewrites the record (``LAYOUTKIT_UPDATE_SEARCH_ANSWERS=1``)
and the diff shows what moved."""

from __future__ import annotations

import base64
import io
import json
import os
import random
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from layoutkit import Principal, Workspace
from layoutkit.search_text import index_text, task_parts, tokens
from layoutkit.service.search.search import MARK, Term, _holds, _snippet, _Views, matches, snippet
from layoutkit.storage import SearchTaskRef, SearchTaskRow
from tests.conftest import POSTGRES_URL, pg_schema
from tests.service.search.test_search import other_workspace

ANSWERS = Path(__file__).with_name("search_answers.json")
UPDATE = os.environ.get("LAYOUTKIT_UPDATE_SEARCH_ANSWERS") == "1"

ANA = Principal.user("ana")
BEN = Principal.user("ben")
AGENT = Principal.agent("claude")
CALLERS = {"owner": Principal.owner(), "ana": ANA, "ben": BEN, "agent": AGENT}

_PARTS = """dashboard invoice checkout login export refund webhook calendar sidebar tooltip
payment gallery shipping coupon printer scanner ledger payroll gateway firewall""".split()  # noqa: SIM905
_VERBS = "Fix Add Remove Improve Investigate Document Support Redesign".split()  # noqa: SIM905
_FILLER = """the a and when after before users page button value list stale slow broken
again only still customers report screen""".split()  # noqa: SIM905
_NAMES = "Globex Initech Umbrella Hooli Vandelay Zorblax Quuxly Maestro".split()  # noqa: SIM905


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(_FILLER) for _ in range(rng.randint(4, 9))]
    words.insert(rng.randrange(len(words)), rng.choice(_PARTS))
    if rng.random() < 0.4:
        words.insert(rng.randrange(len(words)), rng.choice(_NAMES))
    return " ".join(words).capitalize() + "."


def _png() -> str:
    buf = io.BytesIO()
    Image.new("RGB", (64, 40), "teal").save(buf, "PNG")
    return base64.b64encode(buf.getvalue()).decode()


def _seed(ws: Workspace) -> dict[str, dict[int, str]]:
    """The seeded workspace; returns the labels of the ids it made, by kind, so answers
    read the same whatever ids the backend hands out."""
    rng = random.Random(34)
    labels: dict[str, dict[int, str]] = {"task": {}, "card": {}, "annotation": {}, "workspace": {}}
    boards = []
    for n in range(8):
        a, b = rng.sample(_PARTS, 2)
        slug = f"{a}-{b}-{n}"
        params: dict[str, Any] = {"kind": "board", "slug": slug, "tags": rng.sample(_PARTS, 1)}
        who = Principal.owner()
        if n == 2:
            params["meta"] = {"personal": True}
            who = ANA  # ana's alone: the others never see it nor its cards
        if n == 5:
            params["subgroup"] = "sessions"
        ws.call("create", params, who)
        if n % 2 == 0:
            title = f"{a.capitalize()} {b} {rng.choice(_NAMES)}"
            ws.call("set_board_meta", {"board": slug, "meta": {"title": title}}, who)
        kinds = ["note", "text", "page", "checklist", "text"]
        cards = []
        for kind in kinds:
            md = " ".join(_sentence(rng) for _ in range(rng.randint(1, 3)))
            payload: dict[str, Any] = {"md": md}
            if kind == "page":
                payload = {"md": f"# {rng.choice(_PARTS).capitalize()} handbook\n\n{md}"}
            if kind == "checklist":
                payload = {"title": md[:30], "items": [{"text": _sentence(rng)} for _ in range(2)]}
            cards.append({"kind": kind, "payload": payload})
        made = ws.call("compose_board", {"board": slug, "cards": cards}, who)["cards"]
        for i, card in enumerate(made):
            labels["card"][card["id"]] = f"C{n}.{i}"
        boards.append((slug, who))
    for n, (slug, who) in enumerate(boards[:4]):
        files = [{"name": f"shot{n}.png", "data": _png()}]
        (shot,) = ws.call("upload_files", {"board": slug, "files": files}, who)["cards"]
        labels["card"][shot["id"]] = f"S{n}"
        a = ws.call(
            "annotate",
            {
                "board": slug,
                "items": [
                    {
                        "key": f"k{n}",
                        "cardId": shot["id"],
                        "cardVersion": 1,
                        "region": {"x": 10, "y": 10, "w": 20, "h": 20},
                        "image": {"width": 64, "height": 40},
                        "prompt": f"The {rng.choice(_PARTS)} {rng.choice(_PARTS)} is cut off",
                    }
                ],
                **({"agent": "claude"} if who is ANA else {}),
            },
            AGENT if who is not ANA else ANA,
        )
        (filed,) = a["results"]
        labels["annotation"][filed["id"]] = f"A{n}"
    for n in range(60):
        a, b = rng.sample(_PARTS, 2)
        title = f"{rng.choice(_VERBS)} {a} {b}"
        if rng.random() < 0.5:
            title += f" for {rng.choice(_NAMES)}"
        fields: dict[str, Any] = {
            "body": " ".join(_sentence(rng) for _ in range(rng.randint(1, 4)))
        }
        if n % 4 == 0:
            fields["nextAction"] = _sentence(rng)
        if n % 5 == 0:
            fields["branch"] = f"feat/{a}-{b}"
        if n % 7 == 0:
            fields["gates"] = [{"title": "QA signoff", "kind": "step", "evidence": _sentence(rng)}]
        if n % 9 == 0:
            fields["fields"] = {"customer": rng.choice(_NAMES)}
        if n % 6 == 0:
            fields["project"] = "web" if n % 12 == 0 else "api"
        tid = int(ws.call("create", {"kind": "task", "title": title, **fields})["task"]["id"])
        labels["task"][tid] = f"T{n}"
        if n % 3 == 0:
            ws.call(
                "add_task_ref",
                {
                    "id": tid,
                    "kind": "pr",
                    "ref": f"acme/{rng.choice(['web', 'api'])}#{700 + n}",
                    "meta": {"title": f"{rng.choice(_VERBS)} {rng.choice(_PARTS)} retries"},
                },
            )
        if n % 4 == 1:
            slug = boards[n % len(boards)][0]
            ws.call("add_task_ref", {"id": tid, "kind": "board", "ref": slug})
        if n % 5 == 2:
            with ws.store.transaction() as tx:
                tx.record_task_event(tid, "comment", "ana", {"text": _sentence(rng)})
    with ws.store.transaction() as tx:
        # Trashed: out of the index, yet a pin naming it is answered as before.
        trashed = next(i for i, label in labels["task"].items() if label == "T11")
        tx.trash_task(trashed, reason="test", detail={}, by="owner")
    other = other_workspace(ws)
    other.call("create", {"kind": "board", "slug": "dashboard-elsewhere"})
    away = int(
        other.call("create", {"kind": "task", "title": "Fix dashboard invoice"})["task"]["id"]
    )
    labels["task"][away] = "AWAY"
    labels["workspace"] = {0: other.name}
    return labels


#: The queries, each asked with its params; ``{T3}`` stands for task T3's id.
QUERIES: list[tuple[str, dict[str, Any]]] = [
    ("dashboard", {}),
    ("dash", {}),
    ("invoice checkout", {}),
    ("inv chec", {}),
    ("payment gateway", {}),
    ("refund", {"limit": 3}),
    ("webhook", {"limit": 50}),
    ("globex", {}),
    ("zorblax", {}),
    ("maestro", {}),
    ("handbook", {}),
    ("cut off", {}),
    ("dashbaord", {}),
    ("invocie", {}),
    ("chekcout login", {}),
    ("paymnet", {}),
    ("calender", {}),
    ("firewal", {}),
    ("shiping coupon", {}),
    ("acme web", {}),
    ("retries", {}),
    ("qa signoff", {}),
    ("feat", {}),
    ("stale customers", {}),
    ("printer", {"kind": "card"}),
    ("ledger", {"kind": "board"}),
    ("payroll", {"kind": "task"}),
    ("scanner", {"kind": "task", "limit": 2}),
    ("tooltip sidebar", {}),
    ("nothingmatcheshere", {}),
    ("the", {}),
    ("#{T3}", {}),
    ("#{T1} login", {}),
    ("tk-{T5}", {}),
    ("{T7}", {}),
    ("#{AWAY}", {}),
    ("/tasks/{T9}", {}),
    ("#{T11}", {}),
    ("#{T11} #{T3}", {}),
    ("{WS}/{AWAY}", {}),
    ("{WS}/{AWAY} dashboard", {"kind": "task"}),
]
#: Every query asked by the owner; these by each of the others too.
BY_ALL = ("dashboard", "handbook", "cut off", "dashbaord", "stale customers", "#{T1} login")


def _fill(template: str, ids: dict[str, Any]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: str(ids[m.group(1)]), template)


def _normal(value: Any, labels: dict[str, dict[int, str]], key: str = "") -> Any:
    """``value`` with every id the seed made replaced by its label."""
    if isinstance(value, dict):
        kind = value.get("kind")
        out = {}
        for k, v in value.items():
            if k == "id" and kind in labels and isinstance(v, int):
                out[k] = labels[kind].get(v, f"?{v}")
            elif k == "cardId" and isinstance(v, int):
                out[k] = labels["card"].get(v, f"?{v}")
            elif k == "workspace" and isinstance(v, dict):
                out[k] = {"name": "OTHER", "url": "/OTHER"}
            else:
                out[k] = _normal(v, labels, k)
        return out
    if isinstance(value, list):
        return [_normal(v, labels, key) for v in value]
    if isinstance(value, str) and key == "url":
        value = re.sub(r"^/other-[0-9a-f]{8}/", "/OTHER/", value)
        for pattern, kind in (
            (r"/tasks/(\d+)", "task"),
            (r"card=(\d+)", "card"),
            (r"annotation=(\d+)", "annotation"),
        ):
            value = re.sub(
                pattern,
                lambda m, k=kind: m.group(0).replace(
                    m.group(1), labels[k].get(int(m.group(1)), "?")
                ),
                value,
            )
    return value


def answers(ws: Workspace, labels: dict[str, dict[int, str]]) -> dict[str, Any]:
    ids: dict[str, Any] = {label: i for i, label in labels["task"].items()}
    ids["WS"] = labels["workspace"][0]
    out: dict[str, Any] = {}
    for who, principal in CALLERS.items():
        for template, params in QUERIES:
            if who != "owner" and template not in BY_ALL:
                continue
            q = _fill(template, ids)
            reply = ws.call("search", {"q": q, **params}, principal)
            reply["q"] = template
            for rows in reply["groups"].values():
                for row in rows:
                    if row.get("pinned") and row["kind"] == "task":
                        row["matchedLabel"] = template  # the pin's text, as asked
            key = f"{who} {template} {json.dumps(params, sort_keys=True)}"
            out[key] = _normal(reply, labels)
    return out


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def seeded_ws(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Workspace]:
    """A workspace on each backend whose ids start at 1 (on PostgreSQL a schema of
    its own): ties in relevance are broken by document id, and the documents of one
    write are indexed in the order of their ids as text, so answers are only the
    same run after run when the ids are."""
    if request.param == "memory":
        with Workspace.open() as ws:
            yield ws
    elif request.param == "sqlite":
        with Workspace.open(f"sqlite:///{tmp_path / 'ws.db'}") as ws:
            yield ws
    else:
        if not POSTGRES_URL:
            pytest.skip("LAYOUTKIT_TEST_POSTGRES_URL is not set; PostgreSQL tests need a server")
        with pg_schema() as url, Workspace.open(url, name=f"t-{uuid.uuid4().hex[:8]}") as ws:
            yield ws


def test_search_answers_as_recorded(seeded_ws: Workspace) -> None:
    family = "postgresql" if seeded_ws.store.dialect == "postgresql" else "sqlite"
    got = answers(seeded_ws, _seed(seeded_ws))
    recorded = json.loads(ANSWERS.read_text("utf-8")) if ANSWERS.exists() else {}
    if UPDATE:
        recorded[family] = got
        ANSWERS.write_text(
            json.dumps(recorded, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
        )
        return
    assert family in recorded, "no record for this backend: LAYOUTKIT_UPDATE_SEARCH_ANSWERS=1"
    want = recorded[family]
    assert sorted(got) == sorted(want)
    for key in want:
        assert got[key] == want[key], key


# ------------------------------------------------------------------ marking


def _word_by_word(text: str, wanted: list[tuple[str, bool]]) -> tuple[bool, list[tuple[int, int]]]:
    """Matching and marking as search did before it scanned with regular expressions:
    each word folded and tested in turn (the reference the scans must agree with).
    Whether ``text`` matches, and the spans of its words a snippet marks."""

    def hit(word: str) -> bool:
        folded = word.lower() if word.isascii() else index_text(word)
        return any((t.startswith(w) if p else t == w) for t in folded.split() for w, p in wanted)

    folded = index_text(text).split()
    found = any((t.startswith(w) if p else t == w) for w, p in wanted for t in folded)
    flat = " ".join(text.split())
    return found, [m.span() for m in re.finditer(r"[^\W_]+", flat) if hit(m.group())]


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.text(alphabet="abcdeABCDE019 _-.,/\n", max_size=60)
    | st.text(alphabet="abcdeéÉßſKK019 _-.,/\n", max_size=60),
    wanted=st.lists(
        # ı: a letter that case-blind matching pairs with the ASCII i, which folding never does.
        st.tuples(st.text(alphabet="abcdeé019ssı", min_size=1, max_size=4), st.booleans()),
        max_size=3,
    ),
)
def test_matching_and_marking_agree_with_reading_word_by_word(
    text: str, wanted: list[tuple[str, bool]]
) -> None:
    # Wanted words are index tokens, as the query's words are.
    wanted = [(t, p) for w, p in wanted for t in tokens(w)]
    found, spans = _word_by_word(text, wanted)
    assert matches(text, wanted) == found
    got = snippet(text, wanted)
    if not spans:
        assert got is None
        return
    assert got is not None
    flat = " ".join(text.split())
    # The snippet marks the matched words of the window it shows, the first always.
    shown = re.findall(f"{MARK[0]}([^{MARK[1]}]*){MARK[1]}", got)
    assert shown == [flat[s:e] for s, e in spans][: len(shown)]
    assert shown
    assert got.replace(MARK[0], "").replace(MARK[1], "").strip("…") in flat


_PART = st.text(alphabet="abcdeABCé019 _-.,/\n\t\u00a0", max_size=40)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    title=_PART,
    body=_PART,
    branch=_PART,
    comment=_PART,
    ref=st.none() | _PART,
    words=st.lists(st.text(alphabet="abcdeé019", min_size=1, max_size=3), min_size=1, max_size=3),
)
def test_a_task_hit_shows_where_every_part_read_alone_matches(
    title: str,
    body: str,
    branch: str,
    comment: str,
    ref: str | None,
    words: list[str],
) -> None:
    # A task view reads its first matching part once, for the match and the snippet:
    # what it shows is what testing every part and marking the first one gives.
    terms = [Term(t) for w in words for t in tokens(w)]
    # A task's view reads nothing more through the call: a stand-in serves.
    views = _Views(SimpleNamespace(tx=None), terms)  # type: ignore[arg-type]
    refs = (SearchTaskRef("pr", ref, {"title": ref}),) if ref is not None else ()
    task = SearchTaskRow(
        1,
        1,
        None,
        title,
        body,
        "task",
        "backlog",
        None,
        None,
        [],
        "",
        "",
        "",
        branch,
        {},
        refs,
        (comment,),
    )
    row = views.task(task)
    parts = task_parts(task._asdict(), [r._asdict() for r in refs], task.comments)
    matched = [name for name, value in parts.items() if _holds(views.found, value)]
    assert row["matchedIn"] == matched
    if matched:
        assert row["snippet"] == _snippet(views.found, parts[matched[0]])
    else:
        assert "snippet" not in row
