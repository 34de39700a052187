"""Sequence diagrams: Mermaid 11's sequence grammar in, a true sequence drawing out."""

from __future__ import annotations

import copy
import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit.diagram import import_text, lay_out
from layoutkit.diagram.findings import composition_findings
from layoutkit.errors import DiagramError
from tests.refusal import refused


def seq(text: str) -> dict[str, Any]:
    return import_text("sequenceDiagram\n" + text)["sequence"]


def messages(text: str) -> list[dict[str, Any]]:
    return seq(text)["messages"]


# --- the grammar, family by family ------------------------------------------------------

ARROWS = [
    ("->>", "solid", "solid", "none", "arrow"),
    ("-->>", "dotted", "dotted", "none", "arrow"),
    ("->", "solid_open", "solid", "none", "none"),
    ("-->", "dotted_open", "dotted", "none", "none"),
    ("-x", "solid_cross", "solid", "none", "cross"),
    ("--x", "dotted_cross", "dotted", "none", "cross"),
    ("-)", "solid_point", "solid", "none", "async"),
    ("--)", "dotted_point", "dotted", "none", "async"),
    ("<<->>", "bidirectional_solid", "solid", "arrow", "arrow"),
    ("<<-->>", "bidirectional_dotted", "dotted", "arrow", "arrow"),
    ("-|\\", "solid_top", "solid", "none", "half-top"),
    ("-|/", "solid_bottom", "solid", "none", "half-bottom"),
    ("-\\\\", "stick_top", "solid", "none", "stick-top"),
    ("-//", "stick_bottom", "solid", "none", "stick-bottom"),
    ("--|\\", "solid_top_dotted", "dotted", "none", "half-top"),
    ("--|/", "solid_bottom_dotted", "dotted", "none", "half-bottom"),
    ("--\\\\", "stick_top_dotted", "dotted", "none", "stick-top"),
    ("--//", "stick_bottom_dotted", "dotted", "none", "stick-bottom"),
    ("/|-", "solid_arrow_top_reverse", "solid", "half-top", "none"),
    ("\\|-", "solid_arrow_bottom_reverse", "solid", "half-bottom", "none"),
    ("//-", "stick_arrow_top_reverse", "solid", "stick-top", "none"),
    ("\\\\-", "stick_arrow_bottom_reverse", "solid", "stick-bottom", "none"),
    ("/|--", "solid_arrow_top_reverse_dotted", "dotted", "half-top", "none"),
    ("\\|--", "solid_arrow_bottom_reverse_dotted", "dotted", "half-bottom", "none"),
    ("//--", "stick_arrow_top_reverse_dotted", "dotted", "stick-top", "none"),
    ("\\\\--", "stick_arrow_bottom_reverse_dotted", "dotted", "stick-bottom", "none"),
]


@pytest.mark.parametrize(
    ("arrow", "kind", "line", "start", "end"), ARROWS, ids=[a[1] for a in ARROWS]
)
def test_every_message_arrow(arrow: str, kind: str, line: str, start: str, end: str) -> None:
    for text in (f"Alice{arrow}Bob: hi there", f"Alice {arrow} Bob : hi there"):
        payload = import_text(f"sequenceDiagram\n{text}")
        (m,) = payload["sequence"]["messages"]
        assert (m["from"], m["to"], m["text"]) == ("Alice", "Bob", "hi there")
        assert (m["arrow"], m["line"], m["start"], m["end"]) == (kind, line, start, end)
        assert payload["edges"] == [
            {"from": "Alice", "to": "Bob", "label": "hi there", **_style(kind)}
        ]


def _style(kind: str) -> dict[str, str]:
    style = {
        "solid_open": "plain",
        "dotted_open": "dotted",
        "dotted": "dashed",
        "solid_cross": "cross",
        "dotted_cross": "cross",
        "dotted_point": "dashed",
        "bidirectional_solid": "both",
        "bidirectional_dotted": "both",
    }.get(kind)
    return {"style": style} if style else {}


def test_hyphenated_names_and_activation_marks() -> None:
    (m,) = messages("my-client->>+auth-svc: login")
    assert (m["from"], m["to"]) == ("my-client", "auth-svc")
    events = seq("A->>+B: go\nB-->>-A: back")["events"]
    assert [e["event"] for e in events] == ["message", "activate", "message", "deactivate"]
    assert [e.get("actor") for e in events] == [None, "B", None, "B"]


def test_central_connections() -> None:
    ms = messages("A->>()B: one\nA()->>B: two\nA()->>()B: three")
    assert [m.get("central") for m in ms] == ["end", "start", "both"]


@pytest.mark.parametrize(
    "decl",
    [
        'participant API@{ "type": "boundary" } as Public API',
        "participant API@{ type: boundary } as Public API",
        'participant API@{\n  "type": "boundary",\n  "alias": "ignored"\n} as Public API',
        'participant API@{ "type": "boundary", "alias": "Public API" }',
    ],
)
def test_participant_metadata_and_alias(decl: str) -> None:
    payload = import_text(f"sequenceDiagram\n{decl}\nAPI->>API: self")
    assert payload["lanes"][0]["nodes"] == [{"id": "API", "title": "Public API"}]
    assert payload["sequence"]["participants"][0]["kind"] == "boundary"


def test_participant_kinds_and_shapes() -> None:
    payload = import_text(
        "sequenceDiagram\nactor U as User\nparticipant D@{ type: database }\n"
        "participant Q@{ type: queue }\nparticipant C@{ type: collections }\nU->>D: x"
    )
    nodes = payload["lanes"][0]["nodes"]
    assert [(n["id"], n.get("shape")) for n in nodes] == [
        ("U", "person"),
        ("D", "cylinder"),
        ("Q", "cylinder"),
        ("C", "document"),
    ]
    assert [p["kind"] for p in payload["sequence"]["participants"]] == [
        "actor",
        "database",
        "queue",
        "collections",
    ]


def test_properties_links_and_details_attach_to_the_participant() -> None:
    s = seq(
        'participant A\nproperties A: {"class": "internal"}\n'
        "link A: Dashboard @ https://dash.example\n"
        'links A: {"Repo": "https://repo.example"}\ndetails A: {"x": 1}\nA->>A: ok'
    )
    (a,) = s["participants"]
    assert a["properties"] == {"class": "internal"}
    assert a["links"] == {"Dashboard": "https://dash.example", "Repo": "https://repo.example"}


@pytest.mark.parametrize(
    ("line", "title"),
    [("title: Login flow", "Login flow"), ("title Login flow", "Login flow")],
)
def test_title_lines(line: str, title: str) -> None:
    assert import_text(f"sequenceDiagram\n{line}\nA->>B: x")["title"] == title


def test_accessibility_lines_including_multi_line_descriptions() -> None:
    s = seq("accTitle: Login\naccDescr {\n  Two lines\n  of text; with a semicolon\n}\nA->>B: x")
    assert s["accTitle"] == "Login"
    assert s["accDescr"] == "Two lines of text; with a semicolon"
    assert [m["text"] for m in s["messages"]] == ["x"]


def test_par_over_keeps_its_branches() -> None:
    s = seq("par_over first\nA->>B: one\nand second\nA->>C: two\nend")
    assert s["blocks"] == [
        {"type": "par_over", "label": "first", "branches": [{"kind": "and", "label": "second"}]}
    ]
    edges = import_text("sequenceDiagram\npar_over first\nA->>B: one\nand second\nA->>C: two\nend")[
        "edges"
    ]
    assert [e["label"] for e in edges] == ["[par first] one", "[and second] two"]


def test_semicolons_separate_statements() -> None:
    payload = import_text("sequenceDiagram; A->>B: hi; alt; B->>A: yes; else; B->>A: no; end")
    assert [e["label"] for e in payload["edges"]] == ["hi", "[alt] yes", "[else] no"]
    assert payload["sequence"]["blocks"][0]["branches"] == [{"kind": "else", "label": ""}]


def test_comments_and_entity_codes() -> None:
    ms = messages("%% a comment line\nA->>B: say #quot;hi#quot; # trailing comment\n# whole line")
    assert [m["text"] for m in ms] == ['say "hi"']


def test_keywords_are_case_insensitive() -> None:
    s = seq("LOOP every day\nNote Right Of A: n\nA->>B: x\nEnd")
    assert s["blocks"][0]["type"] == "loop"
    assert s["notes"] == [{"placement": "right", "actors": ["A"], "text": "n"}]


def test_autonumber_start_step_and_off() -> None:
    payload = import_text(
        "sequenceDiagram\nautonumber 10 5\nA->>B: a\nA->>B: b\nautonumber off\nA->>B: c\n"
        "autonumber\nA->>B: d"
    )
    assert [m.get("number") for m in payload["sequence"]["messages"]] == [10, 15, None, 25]
    assert [e["label"] for e in payload["edges"]] == ["10. a", "15. b", "c", "25. d"]


def test_notes_over_two_participants() -> None:
    s = seq("note over A,B: shared\nnote left of C: l")
    assert s["notes"] == [
        {"placement": "over", "actors": ["A", "B"], "text": "shared"},
        {"placement": "left", "actors": ["C"], "text": "l"},
    ]
    assert [p["id"] for p in s["participants"]] == ["A", "B", "C"]


def test_boxes_hold_their_participants() -> None:
    s = seq(
        "box rgb(200,220,255) Front\nparticipant A\nend\nbox Back end\nparticipant B\nend\nA->>B: x"
    )
    assert s["boxes"] == [
        {"label": "Front", "members": ["A"], "color": "rgb(200,220,255)"},
        {"label": "Back end", "members": ["B"]},
    ]
    assert [p["box"] for p in s["participants"]] == [0, 1]


def test_create_and_destroy_point_at_their_messages() -> None:
    s = seq("A->>B: hi\ncreate participant C\nA->>C: make\ndestroy C\nC-xA: bye")
    people = {p["id"]: p for p in s["participants"]}
    assert people["C"]["created"] == 1
    assert people["C"]["destroyed"] == 2


@pytest.mark.parametrize(
    "body",
    [
        "else x\nA->>B: y",  # a branch outside any block
        "loop\nA->>B: y\nelse\nend",  # else divides only alt
        "deactivate A",  # never activated
        "create participant C\nA->>B: not to C",
        "A->>B: x\ncreate participant A\nA->>B: y",  # exists already
        "A->>B no text",
        "loop forever\nA->>B: x",  # never closed
        "box Group\nA->>B: x\nend",  # only participants inside a box
    ],
)
def test_text_mermaid_rejects_is_refused_with_a_line(body: str) -> None:
    with refused(DiagramError) as info:
        import_text("sequenceDiagram\n" + body)
    assert info.value.code == "diagram_text_invalid"
    assert all(f["line"] >= 2 for f in info.value.body["findings"])


# --- the drawing ----------------------------------------------------------------------------

RICH = """---
title: Checkout
---
sequenceDiagram
    autonumber
    actor U as Shopper
    participant W as Web
    participant P as Payments
    participant D@{ "type": "database" } as Orders
    Note over U,W: signed in
    U->>+W: Buy
    loop until paid
        W->>P: Charge card
        alt approved
            P-->>W: ok
        else declined
            P--xW: no
            W->>W: retry later
        end
    end
    W->>D: Save order
    Note right of D: durable
    W-->>-U: Receipt
"""


def laid(text: str = RICH, **extra: Any) -> dict[str, Any]:
    return lay_out({"diagram_text": text, **extra})


def test_heads_across_the_top_in_declaration_order() -> None:
    geo = laid()["geo"]
    order = ["U", "W", "P", "D"]
    boxes = [geo["nodes"][p] for p in order]
    assert [b["x"] for b in boxes] == sorted(b["x"] for b in boxes)
    assert len({round(b["y"] + b["h"], 2) for b in boxes}) == 1  # heads stand on one line
    for a, b in itertools.pairwise(boxes):
        assert a["x"] + a["w"] < b["x"]
    lines = {line["id"]: line for line in geo["sequence"]["lifelines"]}
    for p in order:
        head = geo["nodes"][p]
        assert lines[p]["x"] == pytest.approx(head["x"] + head["w"] / 2, abs=0.02)
        assert lines[p]["y0"] == pytest.approx(head["y"] + head["h"], abs=0.02)
        assert lines[p]["y1"] == geo["sequence"]["mirrors"][p]["y"]
    assert geo["sequence"]["kinds"]["U"] == "actor"


def test_messages_run_top_down_in_order_between_their_lifelines() -> None:
    out = laid()
    geo = out["geo"]
    lines = {line["id"]: line["x"] for line in geo["sequence"]["lifelines"]}
    ys = []
    for k, e in enumerate(geo["edges"]):
        assert e["index"] == k
        pts = e["points"]
        ys.append(pts[0][1])
        if e.get("loop"):
            assert len(pts) == 4 and pts[0][1] < pts[-1][1]
            assert all(p[0] >= lines[e["from"]] - 5 for p in pts)
            continue
        assert len(pts) == 2 and pts[0][1] == pts[1][1]
        # Each end meets its lifeline or the side of an activation bar on it.
        assert abs(pts[0][0] - lines[e["from"]]) <= 10
        assert abs(pts[1][0] - lines[e["to"]]) <= 10
        assert (pts[1][0] - pts[0][0]) * (lines[e["to"]] - lines[e["from"]]) > 0
        label = e["label"]
        assert label["y"] + label["h"] <= pts[0][1]
    assert ys == sorted(ys) and len(set(ys)) == len(ys)
    assert composition_findings(geo) == []


def test_each_label_shows_its_text_once_and_the_frame_shows_the_block() -> None:
    out = laid()
    texts = [e["label"]["text"] for e in out["geo"]["edges"]]
    assert texts == [
        "Buy",
        "Charge card",
        "ok",
        "no",
        "retry later",
        "Save order",
        "Receipt",
    ]
    # The payload keeps the contract's labels: numbers and block prefixes.
    assert out["edges"][2]["label"] == "3. [loop until paid] [alt approved] ok"
    frames = out["geo"]["sequence"]["frames"]
    assert [(f["tab"]["text"], f["label"]) for f in frames] == [
        ("loop", "[until paid]"),
        ("alt", "[approved]"),
    ]
    assert [d["label"] for d in frames[1]["dividers"]] == ["[declined]"]
    numbers = [m["number"]["text"] for m in out["geo"]["sequence"]["messages"]]
    assert numbers == ["1", "2", "3", "4", "5", "6", "7"]


def test_frames_enclose_their_rows_and_dividers_split_the_branches() -> None:
    geo = laid()["geo"]
    loop, alt = geo["sequence"]["frames"]
    y = [e["points"][0][1] for e in geo["edges"]]

    def inside(f: dict[str, Any], e: dict[str, Any]) -> bool:
        xs = [p[0] for p in e["points"]] + [e["label"]["x"], e["label"]["x"] + e["label"]["w"]]
        ys = [p[1] for p in e["points"]] + [e["label"]["y"]]
        across = f["x"] < min(xs) and max(xs) < f["x"] + f["w"]
        return across and f["y"] < min(ys) and max(ys) < f["y"] + f["h"]

    edges = geo["edges"]
    assert [inside(loop, e) for e in edges] == [False, True, True, True, True, False, False]
    assert [inside(alt, e) for e in edges] == [False, False, True, True, True, False, False]
    assert loop["x"] < alt["x"] and alt["x"] + alt["w"] < loop["x"] + loop["w"]
    (divider,) = alt["dividers"]
    assert y[2] < divider["y"] < y[3]
    # The nested frame stays inside the outer one.
    assert loop["y"] < alt["y"] and alt["y"] + alt["h"] < loop["y"] + loop["h"]


def test_notes_sit_beside_or_over_their_lifelines() -> None:
    geo = laid()["geo"]
    lines = {line["id"]: line["x"] for line in geo["sequence"]["lifelines"]}
    over, right = geo["sequence"]["notes"]
    assert over["x"] < lines["U"] and lines["W"] < over["x"] + over["w"]
    assert right["x"] > lines["D"]
    assert over["y"] + over["h"] < geo["edges"][0]["points"][0][1]
    assert geo["edges"][5]["points"][0][1] < right["y"]


def test_activation_bars_span_from_activating_to_deactivating_message() -> None:
    geo = laid()["geo"]
    (bar,) = geo["sequence"]["activations"]
    assert bar["actor"] == "W"
    first, last = geo["edges"][0]["points"], geo["edges"][-1]["points"]
    assert bar["y"] == first[0][1]
    assert bar["y"] + bar["h"] == pytest.approx(last[0][1], abs=0.02)
    # Arrows to and from the active participant stop at the bar's side.
    assert first[1][0] == pytest.approx(bar["x"], abs=0.02)


def test_create_and_destroy_place_heads_and_end_lifelines() -> None:
    geo = laid(
        "sequenceDiagram\nA->>B: hi\ncreate participant C\nA->>C: make\ndestroy C\nA-xC: bye"
    )["geo"]
    make, bye = geo["edges"][1]["points"], geo["edges"][2]["points"]
    head = geo["nodes"]["C"]
    assert head["y"] < make[1][1] < head["y"] + head["h"]
    assert make[1][0] == pytest.approx(head["x"], abs=0.02)
    line = next(line for line in geo["sequence"]["lifelines"] if line["id"] == "C")
    # The destroyed participant's bottom head is centred on the destroying message,
    # the arrow meets its side and the lifeline stops at its top.
    foot = geo["sequence"]["mirrors"]["C"]
    assert foot["y"] < bye[1][1] < foot["y"] + foot["h"]
    assert bye[1][0] == pytest.approx(foot["x"], abs=0.02)
    assert line["destroyed"] and line["y1"] == foot["y"]
    # Rows after it start below the head.
    later = laid("sequenceDiagram\nA->>B: hi\nparticipant C\ndestroy C\nA-xC: bye\nA->>B: after")[
        "geo"
    ]
    foot = later["sequence"]["mirrors"]["C"]
    assert later["edges"][2]["points"][0][1] > foot["y"] + foot["h"]


def test_participant_boxes_surround_their_heads() -> None:
    geo = laid(
        "sequenceDiagram\nbox Front\nparticipant A\nparticipant B\nend\nparticipant C\nA->>C: x"
    )["geo"]
    (box,) = geo["sequence"]["boxes"]
    assert box["label"] == "Front"
    for p in ("A", "B"):
        head = geo["nodes"][p]
        assert box["x"] < head["x"] and head["x"] + head["w"] < box["x"] + box["w"]
        assert box["y"] < head["y"]
    assert geo["nodes"]["C"]["x"] > box["x"] + box["w"]


def test_the_same_payload_gives_the_same_drawing() -> None:
    first = laid()
    again = lay_out(first)
    assert again["geo"] == first["geo"]
    assert again["edges"] == first["edges"] and again["sequence"] == first["sequence"]


def test_overrides_move_a_head_and_its_lifeline() -> None:
    first = laid()
    moved = copy.deepcopy(first)
    moved["overrides"] = {"P": {"x": 900, "y": 80}}
    geo = lay_out(moved)["geo"]
    head = geo["nodes"]["P"]
    assert (head["x"], head["y"]) == (900, 80)
    line = next(line for line in geo["sequence"]["lifelines"] if line["id"] == "P")
    assert line["x"] == pytest.approx(900 + head["w"] / 2, abs=0.02)
    assert line["y0"] == pytest.approx(80 + head["h"], abs=0.02)
    charge = geo["edges"][1]["points"]
    assert charge[1][0] == pytest.approx(line["x"], abs=0.02)
    assert geo["overridden"] == ["P"]
    assert geo["width"] > 900 + head["w"]
    # The others stay where they were.
    for p in ("U", "W", "D"):
        assert geo["nodes"][p] == first["geo"]["nodes"][p]
    assert lay_out(lay_out(moved))["geo"] == geo


def test_a_record_that_no_longer_matches_falls_back_to_the_graph_drawing() -> None:
    first = laid()
    changed = copy.deepcopy(first)
    changed["edges"].append({"from": "U", "to": "D", "label": "extra"})
    out = lay_out(changed)
    assert "sequence" not in out["geo"]
    assert any(d.get("code") == "sequence_ignored" for d in out["diagnostics"])
    assert len(out["geo"]["edges"]) == 8


EXAMPLES = {
    "rich": RICH,
    "self_and_notes": (
        "sequenceDiagram\nparticipant A\nparticipant B\nA->>A: think it over\n"
        "note left of A: left\nnote right of B: right\nnote over A: over\nA-)B: async\n"
    ),
    "par_critical_break": (
        "sequenceDiagram\npar_over one\nA->>B: a\nand two\nA->>C: b\nend\n"
        "critical lock\nB-->>C: c\noption timeout\nC--xB: d\nend\nbreak stop\nC-|\\A: e\nend\n"
        "rect rgba(0, 0, 255, .1)\nA//-C: f\nend\n"
    ),
}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_sequence_geo_snapshots(name: str, snapshot) -> None:
    assert laid(EXAMPLES[name])["geo"] == snapshot


@st.composite
def sequence_texts(draw: st.DrawFn) -> str:
    names = draw(st.lists(st.sampled_from("ABCDEFG"), min_size=1, max_size=5, unique=True))
    lines = ["sequenceDiagram", f"{names[0]}->>{names[-1]}: first"]
    if draw(st.booleans()):
        lines.append("autonumber")
    open_blocks: list[str] = []
    active: dict[str, int] = {}
    for _ in range(draw(st.integers(1, 14))):
        step = draw(st.sampled_from(["msg", "msg", "msg", "note", "block", "branch", "end", "act"]))
        a, b = draw(st.sampled_from(names)), draw(st.sampled_from(names))
        if step == "msg":
            arrow = draw(st.sampled_from([a[0] for a in ARROWS]))
            words = draw(st.sampled_from(["go", "a longer message text", "", "x y z"]))
            lines.append(f"{a}{arrow}{b}: {words}")
        elif step == "note":
            where = draw(st.sampled_from(["left of", "right of", "over"]))
            lines.append(f"note {where} {a}: some note")
        elif step == "block":
            kind = draw(st.sampled_from(["loop", "alt", "opt", "par", "critical", "break", "rect"]))
            open_blocks.append(kind)
            lines.append(f"{kind} cond" if kind != "rect" else "rect rgb(230, 240, 255)")
        elif step == "branch" and open_blocks and open_blocks[-1] in ("alt", "par", "critical"):
            word = {"alt": "else", "par": "and", "critical": "option"}[open_blocks[-1]]
            lines.append(f"{word} other")
        elif step == "end" and open_blocks:
            open_blocks.pop()
            lines.append("end")
        elif step == "act":
            if active.get(a):
                active[a] -= 1
                lines.append(f"deactivate {a}")
            else:
                active[a] = 1
                lines.append(f"activate {a}")
    lines += ["end"] * len(open_blocks)
    return "\n".join(lines)


@settings(max_examples=60, deadline=None)
@given(sequence_texts())
def test_any_sequence_lays_out_in_order_inside_its_frames(text: str) -> None:
    out = lay_out({"diagram_text": text})
    geo = out["geo"]
    assert "sequence" in geo
    ys = [e["points"][0][1] for e in geo["edges"]]
    assert ys == sorted(ys) and len(set(ys)) == len(ys)
    assert composition_findings(geo) == []
    events = out["sequence"]["events"]
    frames = {f["block"]: f for f in geo["sequence"]["frames"]}
    open_blocks: list[int] = []
    for ev in events:
        if ev["event"] == "start":
            open_blocks.append(ev["block"])
        elif ev["event"] == "end":
            open_blocks.pop()
        elif ev["event"] == "message":
            e = geo["edges"][ev["index"]]
            for b in open_blocks:
                f = frames[b]
                for x, y in e["points"]:
                    assert f["x"] <= x <= f["x"] + f["w"]
                    assert f["y"] < y < f["y"] + f["h"]
    assert lay_out(out)["geo"] == geo


def test_directives_may_span_lines() -> None:
    ms = messages("%%{init: {\n  'theme': 'dark'\n}}%%\nA->>B: after")
    assert [(m["from"], m["text"]) for m in ms] == [("A", "after")]
