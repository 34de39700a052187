"""Rasterise the first pages of one PDF in a child process (run as a script, never imported).

Reads the PDF's bytes from standard input and writes, on standard output,
frames of one letter, a big-endian length and that many bytes:

- ``N`` + the page count as text, first;
- ``P`` + one page: 4-byte width, 4-byte height, then the PNG (or JPEG) bytes;
- ``X`` + the reason it cannot be rasterised (a broken, encrypted or empty file).

The parent (:mod:`layoutkit.service.uploads.pdf_pages`) kills this process when it runs
past its time, and the limits set below (address space, CPU seconds) bound
what a hostile PDF can take: neither reaches the server process. It imports only
pypdfium2 and Pillow.
"""

from __future__ import annotations

import io
import resource
import sys

#: A rasterised page over this many bytes as PNG (a scanned photo) is kept as JPEG.
PNG_BYTES = 512 * 1024


def _frame(out: io.BufferedWriter, letter: bytes, body: bytes) -> None:
    out.write(letter + len(body).to_bytes(8, "big") + body)
    out.flush()


def _encode(img: object) -> bytes:
    from PIL import Image

    assert isinstance(img, Image.Image)
    img = img.convert("RGB")
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False, compress_level=6)
    if buf.tell() <= PNG_BYTES:
        return buf.getvalue()
    buf = io.BytesIO()
    img.save(buf, format="JPEG", quality=85)
    return buf.getvalue()


def main() -> None:
    memory, seconds, pages, longest = (int(a) for a in sys.argv[1:5])
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
    out = sys.stdout.buffer
    data = sys.stdin.buffer.read()
    try:
        import pypdfium2 as pdfium

        pdf = pdfium.PdfDocument(data)
        count = len(pdf)
        _frame(out, b"N", str(count).encode())
        if count == 0:
            _frame(out, b"X", b"the PDF has no pages")
            return
        for i in range(min(count, pages)):
            page = pdf[i]
            width, height = page.get_size()
            # At most ``longest`` pixels on the page's longest side, never past 2x.
            scale = min(longest / max(width, height, 1.0), 2.0)
            img = page.render(scale=scale, may_draw_forms=True).to_pil()
            body = _encode(img)
            head = img.width.to_bytes(4, "big") + img.height.to_bytes(4, "big")
            _frame(out, b"P", head + body)
            page.close()
        pdf.close()
    # Uploads are untrusted bytes: pdfium reports a broken, encrypted or hostile file
    # (and memory it could not get) with several types; each only means no pages.
    except (Exception, MemoryError) as exc:
        _frame(out, b"X", " ".join(str(exc).split())[:300].encode() or b"unreadable PDF")


if __name__ == "__main__":
    main()
