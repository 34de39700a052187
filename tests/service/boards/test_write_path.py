"""Write-time completion of payloads: diagram import and layout, quality tiers, stamps."""

from __future__ import annotations

import pytest

from layoutkit import Principal, ServiceError, Workspace

OVERLAPPING = {
    "title": "Tight",
    "nodes": [{"id": "a", "title": "A"}, {"id": "b", "title": "B"}],
    "edges": [{"from": "a", "to": "b", "label": "x"}],
    "overrides": {"b": {"x": 0, "y": 0}},
}


@pytest.fixture
def board(ws: Workspace) -> Workspace:
    ws.call("create", {"kind": "board", "slug": "w"})
    return ws


def test_showcase_quality_fails_the_write_on_composition_findings(board: Workspace) -> None:
    # Overrides are the editor's (a person moving nodes): a person's patch sets them.
    person = Principal.user("ana")
    plain = {k: v for k, v in OVERLAPPING.items() if k != "overrides"}
    (card,) = board.call(
        "compose_board", {"board": "w", "cards": [{"kind": "diagram", "payload": plain}]}, person
    )["cards"]
    patch = {"id": card["id"], "payload": {"overrides": OVERLAPPING["overrides"]}}
    with pytest.raises(ServiceError) as exc:
        board.call(
            "update_cards",
            {"patch": [{**patch, "payload": {**patch["payload"], "quality": "showcase"}}]},
            person,
        )
    assert exc.value.code == "composition_findings"
    assert exc.value.body["index"] == 0
    stored = board.call("scrape_board", {"board": "w"})["cards"][0]["payload"]
    assert "overrides" not in stored
    board.call("update_cards", {"patch": [patch]}, person)
    stored = board.call("scrape_board", {"board": "w"})["cards"][0]["payload"]
    assert stored["overrides"] == OVERLAPPING["overrides"]


def test_without_showcase_the_same_diagram_is_stored_and_quality_never_is(board: Workspace) -> None:
    board.call(
        "compose_board", {"board": "w", "cards": [{"kind": "diagram", "payload": OVERLAPPING}]}
    )
    payload = board.call("scrape_board", {"board": "w"})["cards"][0]["payload"]
    assert "geo" in payload and "quality" not in payload


def test_diagram_text_keeps_its_declared_direction_inside_a_doc(board: Workspace) -> None:
    doc = {
        "title": "D",
        "elements": [
            {"kind": "diagram", "payload": {"title": "x", "diagram_text": "graph LR\n  A-->B"}}
        ],
    }
    board.call("compose_board", {"board": "w", "cards": [{"kind": "doc", "payload": doc}]})
    inner = board.call("scrape_board", {"board": "w"})["cards"][0]["payload"]["elements"][0][
        "payload"
    ]
    assert inner["dir"] == "LR"
    assert set(inner["geo"]["nodes"]) == {"A", "B"}


def test_unsupported_diagram_text_is_refused_with_the_supported_types(board: Workspace) -> None:
    with pytest.raises(ServiceError) as exc:
        board.call(
            "compose_board",
            {
                "board": "w",
                "cards": [
                    {
                        "kind": "diagram",
                        "payload": {"title": "g", "diagram_text": "gantt\n title x"},
                    }
                ],
            },
        )
    assert exc.value.status == 400
    assert exc.value.body["index"] == 0


def test_update_cannot_forge_a_push_set_stamp(board: Workspace) -> None:
    doc = {"title": "T", "elements": [{"kind": "prose", "payload": {"md": "x"}}]}
    card = board.call("compose_board", {"board": "w", "cards": [{"kind": "doc", "payload": doc}]})[
        "cards"
    ][0]
    board.call(
        "update_cards",
        {"patch": [{"id": card["id"], "payload": {"set": {"branch": "main", "version": 50}}}]},
    )
    payload = board.call("scrape_board", {"board": "w"})["cards"][0]["payload"]
    assert "set" not in payload


def test_bulk_rows_patched_in_are_kept_as_a_blob(board: Workspace) -> None:
    small = {"cols": [{"key": "n", "type": "number"}], "rows": [{"n": 1}]}
    card = board.call(
        "compose_board", {"board": "w", "cards": [{"kind": "table", "payload": small}]}
    )["cards"][0]
    rows = [{"n": i} for i in range(500)]
    board.call("update_cards", {"patch": [{"id": card["id"], "payload": {"rows": rows}}]})
    payload = board.call("scrape_board", {"board": "w"})["cards"][0]["payload"]
    ref = payload.get("dataRef")
    assert ref and ref.startswith("sha256:") and "rows" not in payload
    with board.store.read() as tx:
        assert tx.blobs.has(ref)


def test_new_inline_rows_replace_a_spilled_table(board: Workspace) -> None:
    cols = [{"key": "n", "type": "number"}]
    big = {"cols": cols, "rows": [{"n": i} for i in range(300)]}
    card = board.call(
        "compose_board", {"board": "w", "cards": [{"kind": "table", "payload": big}]}
    )["cards"][0]
    first = board.call("scrape_board", {"board": "w"})["cards"][0]["payload"]
    assert first["dataRef"].startswith("sha256:")
    board.call("update_cards", {"patch": [{"id": card["id"], "payload": {"rows": [{"n": 7}]}}]})
    payload = board.call("scrape_board", {"board": "w"})["cards"][0]["payload"]
    assert payload["rows"] == [{"n": 7}] and "dataRef" not in payload
    # A read-back payload written again keeps its dataRef.
    board.call("update_cards", {"patch": [{"id": card["id"], "payload": first}]})
    again = board.call("scrape_board", {"board": "w"})["cards"][0]["payload"]
    assert again["dataRef"] == first["dataRef"]


SEQUENCE = (
    "sequenceDiagram\n  participant A as Alice\n  A->>+B: hi\n  loop daily\n    B-->>-A: ok\n  end"
)


def test_sequence_text_is_stored_with_its_record_and_drawn_as_a_sequence(board: Workspace) -> None:
    person = Principal.user("ana")
    (card,) = board.call(
        "compose_board",
        {"board": "w", "cards": [{"kind": "diagram", "payload": {"diagram_text": SEQUENCE}}]},
        person,
    )["cards"]
    stored = board.call("scrape_board", {"board": "w"})["cards"][0]["payload"]
    assert [m["text"] for m in stored["sequence"]["messages"]] == ["hi", "ok"]
    assert [e["label"] for e in stored["edges"]] == ["hi", "[loop daily] ok"]
    assert [line["id"] for line in stored["geo"]["sequence"]["lifelines"]] == ["A", "B"]
    # A person's override moves a participant head; the record survives the patch.
    patch = {"id": card["id"], "payload": {"overrides": {"B": {"x": 500, "y": 60}}}}
    board.call("update_cards", {"patch": [patch]}, person)
    stored = board.call("scrape_board", {"board": "w"})["cards"][0]["payload"]
    assert stored["geo"]["nodes"]["B"]["x"] == 500
    assert "sequence" in stored["geo"] and stored["sequence"]["messages"][0]["from"] == "A"


def test_an_authored_sequence_record_is_not_taken(board: Workspace) -> None:
    payload = {
        "title": "t",
        "lanes": [{"label": "P", "nodes": [{"id": "A", "title": "A"}]}],
        "sequence": {"participants": [{"id": "A", "kind": "actor"}], "messages": []},
    }
    out = board.call(
        "compose_board", {"board": "w", "cards": [{"kind": "diagram", "payload": payload}]}
    )
    stored = board.call("scrape_board", {"board": "w"})["cards"][0]["payload"]
    assert "sequence" not in stored
    assert any(w.get("code") == "server_owned" for w in out.get("warnings") or [])
