"""Picture nodes (Mermaid's ``img:`` shape data): read into ``picture``, checked by the
contract, sized around the frame and the title, drawn without fetching a site's
picture, and written back to Mermaid text."""

from __future__ import annotations

import base64
import io

from PIL import Image

from layoutkit.diagram import import_text, lay_out
from layoutkit.elements import validate_element
from layoutkit.render._face_diagram import diagram_scene
from layoutkit.render._scene import Image as ImageItem
from layoutkit.render._scene import Text, to_svg
from layoutkit.travel import to_mermaid

SITE = 'flowchart TD\n  A@{ img: "https://mermaid.js.org/favicon.svg", label: "Logo", pos: "t", h: 60, constraint: "on" }\n'


def _inline() -> str:
    buf = io.BytesIO()
    Image.new("RGB", (4, 3), (200, 60, 60)).save(buf, "PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def _texts(scene) -> list[str]:
    return [line for i in scene.items if isinstance(i, Text) for line in i.lines]


def test_img_shape_data_becomes_a_picture_not_a_container_image() -> None:
    node = import_text(SITE)["nodes"][0]
    assert node["picture"] == {"src": "https://mermaid.js.org/favicon.svg", "pos": "t", "h": 60}
    assert "image" not in node  # `image` is a service's container image
    assert node["title"] == "Logo"


def test_picture_sizes_out_of_range_are_left_to_the_default() -> None:
    node = import_text('flowchart TD\n  A@{ img: "https://x.org/a.png", w: 9000, h: "tall" }')
    assert node["nodes"][0]["picture"] == {"src": "https://x.org/a.png"}


def test_the_contract_checks_a_picture_with_the_path_of_the_bad_field() -> None:
    v = validate_element(
        {
            "kind": "diagram",
            "payload": {
                "title": "t",
                "nodes": [
                    {"id": "a", "title": "A", "picture": {"src": "x.png", "pos": "x", "w": 900}},
                    {"id": "b", "title": "B", "picture": {"pos": "t"}},
                ],
            },
        }
    )
    found = {(f.path, f.code) for f in v.findings if f.severity == "error"}
    assert found == {
        ("payload.nodes[0].picture.pos", "unknown_value"),
        ("payload.nodes[0].picture.w", "out_of_range"),
        ("payload.nodes[1].picture.src", "missing_field"),
    }


def test_a_sites_picture_is_named_never_fetched() -> None:
    payload = lay_out(import_text(SITE) | {"title": "t"})
    box = payload["geo"]["nodes"]["A"]
    # The box holds the 60 px frame, the site's name under it and the title above.
    assert box["h"] > 60 + 2 * 14 and box["w"] >= 60
    scene = diagram_scene(payload)
    assert not [i for i in scene.items if isinstance(i, ImageItem)]
    texts = _texts(scene)
    assert "mermaid.js.org" in texts and "Logo" in texts
    svg = to_svg(scene)
    assert "favicon.svg" not in svg  # no address a browser would load


def test_an_inline_picture_is_drawn_under_its_title() -> None:
    text = f'flowchart LR\n  A --> B@{{ img: "{_inline()}", label: "Inline", w: 80, h: 40 }}\n'
    payload = lay_out(import_text(text) | {"title": "t"})
    scene = diagram_scene(payload)
    (pic,) = [i for i in scene.items if isinstance(i, ImageItem)]
    (title,) = [i for i in scene.items if isinstance(i, Text) and i.lines == ("Inline",)]
    assert title.y > pic.y + pic.h  # pos b, the default: the title below the frame
    assert abs(pic.w / pic.h - 2.0) < 1e-6


def test_a_picture_goes_back_to_mermaid_as_shape_data() -> None:
    payload = import_text(SITE)
    text = to_mermaid(payload).text
    assert 'A@{ img: "https://mermaid.js.org/favicon.svg", label: "Logo", pos: t, h: 60 }' in text
    assert import_text(text)["nodes"][0]["picture"] == payload["nodes"][0]["picture"]
