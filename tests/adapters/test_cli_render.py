"""``layoutkit board render``: a board as PNG files through click's runner, tiles beside
the picture when the board is large."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from PIL import Image

from layoutkit import Workspace
from layoutkit.adapters.cli import main
from layoutkit.storage import NewCard


def _board(url: str, cols: int, rows: int) -> None:
    with Workspace.open(url) as ws:
        ws.call("create", {"kind": "board", "slug": "wall"})
        with ws.store.transaction() as tx:
            board = tx.board_by_slug(ws.workspace_id, "wall")
            assert board is not None
            notes = [
                NewCard("note", {"md": f"n {r}-{c}"}, c * 340.0, r * 220.0, 300.0, 180.0, "ai", "x")
                for r in range(rows)
                for c in range(cols)
            ]
            tx.insert_cards(board.id, notes)


def test_a_large_board_is_written_as_an_overview_and_tiles(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ws.db'}"
    _board(url, 12, 8)
    out = tmp_path / "wall.png"
    res = CliRunner().invoke(main, ["board", "render", "wall", "--out", str(out), "--db", url])
    assert res.exit_code == 0, res.output
    assert Image.open(out).size[0] == 1600
    tiles = sorted(tmp_path.glob("wall-tile-*.png"))
    assert len(tiles) > 1 and all(max(Image.open(t).size) <= 1200 for t in tiles)
    assert "at scale" in res.output and "board x" in res.output


def test_a_region_at_a_scale_and_json_mode(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ws.db'}"
    _board(url, 2, 2)
    out = tmp_path / "part.png"
    args = ["board", "render", "wall", "--out", str(out), "--region", "0,0,300,200"]
    res = CliRunner().invoke(main, [*args, "--scale", "2", "--json", "--db", url])
    assert res.exit_code == 0, res.output
    body = json.loads(res.output)
    assert body["files"] == [str(out)] and "image" not in body
    assert Image.open(out).size == (600, 400)
    bad = CliRunner().invoke(main, [*args, "--region", "1,2", "--db", url])
    assert bad.exit_code == 2 and "X,Y,W,H" in bad.output
    unknown_board = CliRunner().invoke(
        main, ["board", "render", "nope", "--out", str(out), "--db", url]
    )
    assert unknown_board.exit_code == 1


def test_the_format_follows_the_file_extension_unless_told(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ws.db'}"
    _board(url, 2, 1)
    svg = tmp_path / "wall.svg"
    res = CliRunner().invoke(main, ["board", "render", "wall", "--out", str(svg), "--db", url])
    assert res.exit_code == 0, res.output
    assert svg.read_text(encoding="utf-8").startswith("<svg") and "SVG of 2 cards" in res.output
    named = tmp_path / "picture"
    args = ["board", "render", "wall", "--out", str(named), "--format", "svg", "--db", url]
    assert CliRunner().invoke(main, args).exit_code == 0
    assert named.read_bytes().startswith(b"<svg")
    plain = tmp_path / "plain"
    assert CliRunner().invoke(main, [*args[:3], "--out", str(plain), "--db", url]).exit_code == 0
    assert plain.read_bytes().startswith(b"\x89PNG")
    clash = CliRunner().invoke(
        main, ["board", "render", "wall", "--out", str(svg), "--format", "png", "--db", url]
    )
    assert clash.exit_code == 2 and "names SVG but --format is png" in clash.output
