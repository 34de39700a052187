"""PDFs with real content for the page-image tests, made with Pillow (no fixtures on disk)."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw, ImageFont

from layoutkit.layout.text import font_path

#: The colour of the block every page carries, to find the page in a picture.
BLOCK = (37, 99, 235)


def report_pdf(pages: int = 3, title: str = "Quarterly report") -> bytes:
    """A PDF of ``pages`` A4 pages at 100 dpi: a heading, lines of text, a coloured block."""
    heading = ImageFont.truetype(font_path("sans-bold"), 40)
    body = ImageFont.truetype(font_path("sans"), 20)
    images = []
    for n in range(pages):
        img = Image.new("RGB", (827, 1169), "white")
        draw = ImageDraw.Draw(img)
        draw.text((70, 70), f"{title}", font=heading, fill=(29, 34, 48))
        draw.text((70, 130), f"Page {n + 1} of {pages}", font=body, fill=(95, 104, 120))
        for i in range(14):
            draw.text(
                (70, 200 + i * 34),
                f"Line {i + 1}: revenue grew in every region this quarter.",
                font=body,
                fill=(29, 34, 48),
            )
        draw.rectangle([70, 720, 757, 1000], fill=BLOCK)
        images.append(img)
    out = io.BytesIO()
    images[0].save(out, format="PDF", save_all=True, append_images=images[1:], resolution=100)
    return out.getvalue()
