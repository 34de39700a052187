"""The public surface of layoutkit.render stays what callers rely on."""

from __future__ import annotations

import inspect

import layoutkit.render as render


def test_exported_names() -> None:
    assert sorted(render.__all__) == [
        "BoardSvg",
        "Cut",
        "DASHED_RELS",
        "GLANCE_KEYS",
        "PAGINGS",
        "PAPERS",
        "PrintError",
        "Printed",
        "TextLine",
        "board_pdf",
        "board_svg",
        "card_blob_base",
        "card_faces",
        "card_png_size",
        "card_text_lines",
        "code_digest",
        "doc_pdf",
        "face_cuts",
        "face_key",
        "faces_at_hand",
        "image_keys",
        "picture_size",
        "png_glances",
        "render_board",
        "render_card",
        "render_doc",
    ]


def test_signatures() -> None:
    assert str(inspect.signature(render.render_doc)) == (
        "(doc: 'dict', *, audience: 'str | None' = None, typeset: 'str | None' = None) -> 'str'"
    )
    assert str(inspect.signature(render.render_board)) == (
        "(board: 'dict', *, format: 'str' = 'svg', "
        "region: 'tuple[float, float, float, float] | None' = None, "
        "scale: 'float | None' = None) -> 'str | bytes'"
    )
    assert str(inspect.signature(render.render_card)) == (
        "(card: 'dict', *, format: 'str' = 'svg', max_dim: 'int' = 1600) -> 'str | bytes'"
    )


def test_engine_purity() -> None:
    """render never reaches for storage, the service layer, the adapters or the network."""
    import pathlib
    import re

    root = pathlib.Path(render.__file__).parent
    forbidden = re.compile(
        r"layoutkit\.(storage|service|adapters)|urllib\.request|(?<![\w.])open\(|socket|subprocess"
    )
    for path in root.glob("*.py"):
        match = forbidden.search(path.read_text(encoding="utf-8"))
        assert match is None, f"{path.name} uses {match.group(0) if match else ''}"
