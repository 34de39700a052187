"""Wires have a docs topic, generated from the schema compose_board checks them with."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from layoutkit import Workspace
from layoutkit.adapters.cli import main
from layoutkit.service.boards.compose import EDGE_SCHEMA


def test_the_index_lists_the_edge_topic(ws: Workspace) -> None:
    topics = {t["topic"]: t["summary"] for t in ws.call("docs", {})["topics"]}
    assert "wire" in topics["edge"].lower() or "wires" in topics["edge"].lower()


def test_the_topic_shows_every_field_of_the_schema(ws: Workspace) -> None:
    text = ws.call("docs", {"topic": "edge"})["text"]
    rows = {
        m.group(1): m.group(2)
        for m in re.finditer(r"^\| (\w+) \| [^|]+ \| (yes|no) \|", text, re.M)
    }
    assert set(EDGE_SCHEMA["properties"]) <= set(rows)
    assert {"from", "to", "rel", "label", "fromRegion", "toRegion"} <= set(rows)
    assert (rows["from"], rows["to"], rows["rel"]) == ("yes", "yes", "no")


def test_wire_is_another_name_for_it(ws: Workspace) -> None:
    assert ws.call("docs", {"topic": "wire"}) == ws.call("docs", {"topic": "edge"})
    assert ws.call("docs", {"topic": "wire"})["topic"] == "edge"


def test_the_topics_example_composes(ws: Workspace) -> None:
    text = ws.call("docs", {"topic": "edge"})["text"]
    example = json.loads(text.split("```json\n", 1)[1].split("```", 1)[0])
    ws.call("create", {"kind": "board", "slug": example["board"]})
    receipt = ws.call("compose_board", example)
    assert len(receipt["edges"]) == len(example["edges"])


def test_the_cli_reads_it() -> None:
    res = CliRunner().invoke(main, ["docs", "wire"])
    assert res.exit_code == 0, res.output
    assert "fromRegion" in res.output
