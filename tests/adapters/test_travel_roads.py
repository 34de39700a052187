"""Boards as files on the other roads: ``layoutkit board export``/``board import`` through
click's runner, and the HTTP download on a real server (JSON, or a zip with files)."""

from __future__ import annotations

import base64
import io
import json
import zipfile
from pathlib import Path

import httpx
from click.testing import CliRunner
from PIL import Image

from layoutkit import Workspace
from layoutkit.adapters.cli import main
from tests.adapters.conftest import Api

FIXTURES = Path(__file__).resolve().parents[1] / "travel" / "fixtures"


def _png(color: str = "#2f9e44") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (6, 4), color).save(out, format="PNG")
    return out.getvalue()


def _seed(url: str) -> None:
    with Workspace.open(url) as ws:
        for slug in ("plan", "copy", "from-zip", "from-scene", "b"):
            ws.call("create", {"kind": "board", "slug": slug})
        ws.call(
            "compose_board",
            {
                "board": "plan",
                "cards": [
                    {"kind": "note", "ref": "a", "payload": {"md": "first"}},
                    {"kind": "text", "ref": "b", "payload": {"md": "second"}},
                ],
                "edges": [{"from": "a", "to": "b", "label": "next"}],
            },
        )
        data = base64.b64encode(_png()).decode()
        ws.call("upload_files", {"board": "plan", "files": [{"name": "pic.png", "data": data}]})


def _cli(*args: str) -> str:
    res = CliRunner().invoke(main, list(args))
    assert res.exit_code == 0, res.output
    return res.output


def test_board_export_writes_a_canvas_with_its_files_beside_and_import_reads_them_back(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'ws.db'}"
    _seed(url)
    out = tmp_path / "out" / "plan.canvas"
    out.parent.mkdir()
    said = _cli("board", "export", "plan", "--out", str(out), "--db", url)
    assert "canvas of 3 cards and 1 wires, 1 file(s) beside it" in said
    canvas = json.loads(out.read_text(encoding="utf-8"))
    assert sorted(n["type"] for n in canvas["nodes"]) == ["file", "text", "text"]
    assert (out.parent / "files" / "pic.png").read_bytes() == _png()
    _cli("board", "import", str(out), "--board", "copy", "--db", url)
    with Workspace.open(url) as ws:
        ws_cards = ws.call("scrape_board", {"board": "copy"})["cards"]
        assert sorted(c["kind"] for c in ws_cards) == ["media", "note", "text"]
        media = next(c for c in ws_cards if c["kind"] == "media")
        original = next(
            c for c in ws.call("scrape_board", {"board": "plan"})["cards"] if c["kind"] == "media"
        )
        assert media["payload"]["ref"] == original["payload"]["ref"]


def test_board_export_as_a_zip_and_excalidraw_and_png(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ws.db'}"
    _seed(url)
    bundle = tmp_path / "plan.zip"
    _cli("board", "export", "plan", "--format", "canvas", "--out", str(bundle), "--db", url)
    with zipfile.ZipFile(bundle) as z:
        assert sorted(z.namelist()) == ["files/pic.png", "plan.canvas"]
    scene = tmp_path / "plan.excalidraw"
    shown = json.loads(_cli("board", "export", "plan", "--out", str(scene), "--db", url, "--json"))
    assert (shown["format"], shown["cards"], shown["edges"]) == ("excalidraw", 3, 1)
    doc = json.loads(scene.read_text(encoding="utf-8"))
    assert {e["type"] for e in doc["elements"]} == {"rectangle", "text", "arrow", "image"}
    picture = tmp_path / "plan.png"
    _cli("board", "export", "plan", "--out", str(picture), "--db", url)
    assert Image.open(picture).format == "PNG"
    # The zip imports whole, files and all; an Excalidraw scene by its own type.
    _cli("board", "import", str(bundle), "--board", "from-zip", "--db", url)
    said = _cli("board", "import", str(scene), "--board", "from-scene", "--auto", "--db", url)
    assert "3 card(s) and 1 wire(s) from plan.excalidraw (excalidraw) on board from-scene" in said


def test_board_import_refuses_a_bad_file_with_the_path_and_exit_1(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ws.db'}"
    _seed(url)
    doc = json.loads((FIXTURES / "obsidian-sample.canvas").read_text(encoding="utf-8"))
    doc["edges"][0]["toNode"] = "ghost"
    bad = tmp_path / "bad.canvas"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    res = CliRunner().invoke(main, ["board", "import", str(bad), "--board", "b", "--db", url])
    assert res.exit_code == 1
    assert "error 400 unknown_node: document.edges[0].toNode" in res.output
    res = CliRunner().invoke(
        main, ["board", "import", str(bad), "--board", "b", "--db", url, "--json"]
    )
    body = json.loads(res.output)
    assert (body["status"], body["field"]) == (400, "document.edges[0].toNode")
    res = CliRunner().invoke(main, ["board", "export", "b", "--out", str(tmp_path / "x.docx")])
    assert res.exit_code == 2 and "names no format" in res.output


def test_the_http_download_is_json_or_a_zip_with_the_right_types(api: Api) -> None:
    api.op("create", {"kind": "board", "slug": "plan"})
    res = api.op(
        "compose_board",
        {
            "board": "plan",
            "cards": [
                {"kind": "note", "ref": "a", "payload": {"md": "first"}},
                {"kind": "text", "ref": "b", "payload": {"md": "second"}},
            ],
            "edges": [{"from": "a", "to": "b"}],
        },
    )
    assert res.status_code == 200, res.text
    got = api.client.get("/api/v1/boards/plan/export", params={"format": "canvas"})
    assert got.status_code == 200, got.text
    assert got.headers["content-type"] == "application/json"
    assert got.headers["content-disposition"] == "attachment; filename*=UTF-8''plan.canvas"
    assert len(got.json()["nodes"]) == 2 and len(got.json()["edges"]) == 1
    scene = api.client.get("/api/v1/boards/plan/export", params={"format": "excalidraw"})
    assert scene.headers["content-type"] == "application/json"
    assert scene.json()["type"] == "excalidraw"
    upload = api.client.post(
        "/api/v1/boards/plan/upload", files=[("files", ("pic.png", _png(), "image/png"))]
    )
    assert upload.status_code == 201, upload.text
    zipped = api.client.get("/api/v1/boards/plan/export?format=canvas")
    assert zipped.headers["content-type"] == "application/zip"
    assert zipped.headers["content-disposition"] == "attachment; filename*=UTF-8''plan.zip"
    with zipfile.ZipFile(io.BytesIO(zipped.content)) as z:
        assert sorted(z.namelist()) == ["files/pic.png", "plan.canvas"]
        assert z.read("files/pic.png") == _png()
    # What came down goes back up through the operation.
    doc = got.json()
    api.op("create", {"kind": "board", "slug": "copy"})
    back = api.op("import_board", {"board": "copy", "document": doc})
    assert back.status_code == 200, back.text
    assert len(back.json()["cards"]) == 2
    # Refusals: a bad format is the params check's, an unknown board 404, no token 401.
    bad = api.client.get("/api/v1/boards/plan/export?format=docx")
    assert (bad.status_code, bad.json()["field"]) == (400, "format")
    assert api.client.get("/api/v1/boards/nope/export").status_code == 404
    assert httpx.get(f"{api.url}/api/v1/boards/plan/export").status_code == 401
    one = api.client.get("/api/v1/boards/plan/export?format=canvas&card=x")
    assert one.status_code == 400


# ---------------------------------------------------------------- Mermaid text

_FLOW = "flowchart LR\n  a[Start] -->|go| b{Pick}\n  subgraph g [Group]\n    c\n  end\n  b -.-> c\n"


def _diagram_board(url: str) -> tuple[int, int]:
    with Workspace.open(url) as ws:
        ws.call("create", {"kind": "board", "slug": "dia"})
        made = ws.call(
            "compose_board",
            {
                "board": "dia",
                "cards": [
                    {"kind": "diagram", "payload": {"title": "Flow", "diagram_text": _FLOW}},
                    {"kind": "text", "payload": {"md": "not a diagram"}},
                ],
            },
        )
        diagram, text = (c["id"] for c in made["cards"])
        return diagram, text


def test_board_export_writes_a_diagram_card_as_a_mmd_file(tmp_path: Path) -> None:
    from layoutkit.diagram.mermaid import import_text

    url = f"sqlite:///{tmp_path / 'ws.db'}"
    diagram, text = _diagram_board(url)
    out = tmp_path / "flow.mmd"
    said = _cli("board", "export", "dia", "--out", str(out), "--card", str(diagram), "--db", url)
    assert f"flow.mmd: Mermaid flowchart of card {diagram}, 3 nodes and 2 edges" in said
    back = import_text(out.read_text(encoding="utf-8"))
    assert back["dir"] == "LR" and back["title"] == "Flow"
    assert [(n["id"], n["title"]) for n in back["nodes"]] == [("a", "Start"), ("b", "Pick")]
    assert back["groups"][0]["id"] == "g" and back["groups"][0]["nodes"][0]["id"] == "c"
    assert [(e["from"], e["to"], e.get("label")) for e in back["edges"]] == [
        ("a", "b", "go"),
        ("b", "c", None),
    ]
    shown = json.loads(
        _cli(
            "board",
            "export",
            "dia",
            "--format",
            "mermaid",
            "--out",
            str(tmp_path / "x.txt"),
            "--card",
            str(diagram),
            "--db",
            url,
            "--json",
        )
    )
    assert (shown["family"], shown["mime"]) == ("flowchart", "text/plain; charset=utf-8")
    res = CliRunner().invoke(
        main, ["board", "export", "dia", "--out", str(out), "--card", str(text), "--db", url]
    )
    assert res.exit_code == 1
    assert "error 400 not_a_diagram: card" in res.output
    res = CliRunner().invoke(main, ["board", "export", "dia", "--out", str(out), "--db", url])
    assert res.exit_code == 1 and "missing_param" in res.output


def test_the_http_download_of_a_diagram_is_mermaid_text(api: Api) -> None:
    from layoutkit.diagram.mermaid import import_text

    api.op("create", {"kind": "board", "slug": "dia"})
    made = api.op(
        "compose_board",
        {
            "board": "dia",
            "cards": [
                {"kind": "diagram", "payload": {"title": "Flow", "diagram_text": _FLOW}},
                {"kind": "note", "payload": {"md": "n"}},
            ],
        },
    )
    assert made.status_code == 200, made.text
    diagram, note = (c["id"] for c in made.json()["cards"])
    got = api.client.get(f"/api/v1/boards/dia/export?format=mermaid&card={diagram}")
    assert got.status_code == 200, got.text
    assert got.headers["content-type"] == "text/plain; charset=utf-8"
    assert got.headers["content-disposition"] == f"attachment; filename*=UTF-8''dia-{diagram}.mmd"
    back = import_text(got.text)
    assert {n["id"] for n in back["nodes"]} == {"a", "b"}
    assert len(back["edges"]) == 2
    bad = api.client.get(f"/api/v1/boards/dia/export?format=mermaid&card={note}")
    assert bad.status_code == 400
    assert (bad.json()["code"], bad.json()["field"]) == ("not_a_diagram", "card")
    missing = api.client.get("/api/v1/boards/dia/export?format=mermaid")
    assert (missing.status_code, missing.json()["field"]) == (400, "card")
    gone = api.client.get("/api/v1/boards/dia/export?format=mermaid&card=999999")
    assert (gone.status_code, gone.json()["code"]) == (404, "unknown_card")


# ---------------------------------------------------------------- PDF, SVG and PNG


def _doc_board(url: str) -> int:
    with Workspace.open(url) as ws:
        ws.call("create", {"kind": "board", "slug": "paper"})
        made = ws.call(
            "compose_board",
            {
                "board": "paper",
                "cards": [
                    {"kind": "note", "payload": {"md": "Printed note"}},
                    {
                        "kind": "doc",
                        "payload": {
                            "title": "Guide",
                            "elements": [
                                {
                                    "kind": "prose",
                                    "payload": {"md": "# Start\n\nFirst.\n\n# Finish\n\nLast."},
                                }
                            ],
                        },
                    },
                ],
            },
        )
        return int(made["cards"][1]["id"])


def test_board_export_writes_pdf_pages_and_a_doc_pdf(tmp_path: Path) -> None:
    import pypdf

    url = f"sqlite:///{tmp_path / 'ws.db'}"
    doc = _doc_board(url)
    out = tmp_path / "paper.pdf"
    said = _cli("board", "export", "paper", "--out", str(out), "--db", url)
    assert "paper.pdf: PDF of 2 cards, 1 page(s) on a4, fit" in said
    assert out.read_bytes().startswith(b"%PDF-")
    assert "Printed note" in pypdf.PdfReader(out).pages[0].extract_text()
    tiled = tmp_path / "tiled.pdf"
    shown = json.loads(
        _cli(
            "board",
            "export",
            "paper",
            "--format",
            "pdf",
            "--pages",
            "tile",
            "--paper",
            "letter",
            "--out",
            str(tiled),
            "--db",
            url,
            "--json",
        )
    )
    assert (shown["paging"], shown["paper"], shown["files"]) == ("tile", "letter", [str(tiled)])
    assert "data" not in shown and len(pypdf.PdfReader(tiled).pages) == shown["pages"]
    guide = tmp_path / "guide.pdf"
    said = _cli("board", "export", "paper", "--card", str(doc), "--out", str(guide), "--db", url)
    assert f"guide.pdf: PDF of doc card {doc}, 1 page(s) on a4" in said
    reader = pypdf.PdfReader(guide)
    assert [o.title for o in reader.outline if not isinstance(o, list)] == ["Guide"]
    assert [o.title for o in reader.outline[1]] == ["Start", "Finish"]
    svg = tmp_path / "paper.svg"
    _cli("board", "export", "paper", "--out", str(svg), "--db", url)
    assert svg.read_text(encoding="utf-8").startswith("<svg")
    res = CliRunner().invoke(
        main, ["board", "export", "paper", "--out", str(svg), "--pages", "tile", "--db", url]
    )
    assert res.exit_code == 1 and "exclusive_params" in res.output


def test_the_http_download_of_pictures_has_their_types(api: Api) -> None:
    import pypdf

    api.op("create", {"kind": "board", "slug": "paper"})
    made = api.op(
        "compose_board",
        {
            "board": "paper",
            "cards": [
                {"kind": "note", "payload": {"md": "Printed note"}},
                {"kind": "doc", "payload": {"title": "Guide", "elements": []}},
            ],
        },
    )
    assert made.status_code == 200, made.text
    doc = made.json()["cards"][1]["id"]
    got = api.client.get("/api/v1/boards/paper/export", params={"format": "pdf", "pages": "tile"})
    assert got.status_code == 200, got.text
    assert got.headers["content-type"] == "application/pdf"
    assert got.headers["content-disposition"] == "attachment; filename*=UTF-8''paper.pdf"
    assert "Printed note" in pypdf.PdfReader(io.BytesIO(got.content)).pages[0].extract_text()
    guide = api.client.get(f"/api/v1/boards/paper/export?format=pdf&card={doc}&paper=letter")
    assert guide.status_code == 200, guide.text
    assert guide.headers["content-disposition"] == f"attachment; filename*=UTF-8''paper-{doc}.pdf"
    assert pypdf.PdfReader(io.BytesIO(guide.content)).outline[0].title == "Guide"
    svg = api.client.get("/api/v1/boards/paper/export?format=svg")
    assert svg.headers["content-type"] == "image/svg+xml"
    assert svg.headers["content-security-policy"] == "sandbox"
    assert svg.text.startswith("<svg")
    png = api.client.get("/api/v1/boards/paper/export?format=png&scale=0.5")
    assert png.headers["content-type"] == "image/png"
    assert Image.open(io.BytesIO(png.content)).format == "PNG"
    bad = api.client.get("/api/v1/boards/paper/export?format=pdf&paper=a0")
    assert (bad.status_code, bad.json()["field"]) == (400, "paper")
    bad = api.client.get("/api/v1/boards/paper/export?format=pdf&scale=2")
    assert (bad.status_code, bad.json()["field"]) == (400, "scale")
    assert api.client.get("/api/v1/boards/nope/export?format=pdf").status_code == 404
