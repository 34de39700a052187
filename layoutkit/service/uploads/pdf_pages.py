"""Page counts of uploaded PDFs, read by pypdf in a child process under caps.

A PDF is untrusted input whose page tree may sit in compressed object
streams; reading it in the server process once let one 4 MB upload hold the
interpreter for minutes and take gigabytes. Here pypdf reads only the page
tree (never a page's content) in a child process that starts without the
rest of layoutkit: :data:`~layoutkit.limits.PDF_SECONDS` per file (the child
is killed past it), an address-space cap, a cap on inflated stream bytes and
the object and page caps of :mod:`layoutkit.limits`. A file that states more
pages or holds more objects than those caps is refused (413 ``limit_exceeded``
naming the cap), and so is one that passes one of pypdf's own reading limits
(422 ``pdf_refused``: a stream that inflates without end, a number of
thousands of digits); one that is too large, too slow or too broken to read simply
has no count, like any file pypdf cannot read.
"""

from __future__ import annotations

import importlib.util
import math
import subprocess
import sys
import threading
import time
from pathlib import Path

import attrs

from layoutkit.errors import EngineError
from layoutkit.limits import PDF_BYTES, PDF_OBJECTS, PDF_PAGES, PDF_SECONDS, LimitExceeded

WORKER = Path(__file__).resolve().parents[2] / "_pdf_worker.py"
#: Address space of the counting process: pypdf and Python take about 60 MiB.
WORKER_MEMORY = 512 * 1024 * 1024
#: Bytes one compressed stream may inflate to while the page tree is read.
INFLATE_BYTES = 16 * 1024 * 1024
#: Time for the child to start (an interpreter and pypdf) before the first file's clock.
STARTUP_SECONDS = 5.0


class PdfRefused(EngineError):
    """A PDF that passed one of pypdf's own reading limits while its pages were counted."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(
            "pdf_refused",
            f"{field}: this PDF cannot be read safely ({reason}); re-export it and upload again",
            field=field,
            reason=reason,
        )


def is_pdf(data: bytes) -> bool:
    return data.startswith(b"%PDF-")


def pdf_page_counts(files: list[bytes], field: str = "files") -> list[int | None]:
    """The page count of each PDF in ``files`` (None where it cannot be told).

    pypdf follows the cross-reference chain, so an incremental update counts
    as its latest revision; page trees in object streams are read; an
    encrypted file opens with the empty user password permission-only files
    use. Files that are not PDFs, are over :data:`~layoutkit.limits.PDF_BYTES`,
    need a password, do not parse or run out of time have no count. Raises
    :class:`~layoutkit.limits.LimitExceeded` (with ``field[i]``) for a file over
    the page or object cap.
    """
    counts: list[int | None] = [None] * len(files)
    pending = [i for i, data in enumerate(files) if is_pdf(data) and len(data) <= PDF_BYTES]
    while pending:
        done = _run(files, pending, counts, field)
        # The file the child was reading when it was killed (or died) has no count;
        # a fresh child takes the rest.
        pending = pending[done + 1 :]
    return counts


def pdf_page_count(data: bytes) -> int | None:
    """The page count of one PDF; see :func:`pdf_page_counts`."""
    return pdf_page_counts([data])[0]


def _run(files: list[bytes], pending: list[int], counts: list[int | None], field: str) -> int:
    """Count ``pending`` files in one child; return how many it answered for."""
    args = [str(WORKER_MEMORY), str(INFLATE_BYTES), str(PDF_OBJECTS), str(PDF_PAGES)]
    # -I: the child ignores the environment's PYTHONPATH and user site, and runs
    # the worker as a script, so nothing of the server is imported into it.
    proc = subprocess.Popen(
        [sys.executable, "-I", str(WORKER), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    answered = 0
    try:
        for n, i in enumerate(pending):
            data = files[i]
            proc.stdin.write(len(data).to_bytes(8, "big") + data)
            proc.stdin.flush()
            line = _read_line(proc, PDF_SECONDS + (STARTUP_SECONDS if n == 0 else 0.0))
            if line is None:
                return answered
            what, _, value = line.partition(" ")
            if what == "refused":
                raise PdfRefused(f"{field}[{i}]", value)
            if value.isdigit():
                raise LimitExceeded(what, int(value), field=f"{field}[{i}]")
            counts[i] = int(line) if line.isdigit() else None
            answered += 1
        return answered
    except (BrokenPipeError, OSError):
        return answered
    finally:
        proc.kill()
        proc.wait()
        proc.stdin.close()
        proc.stdout.close()


def _read_line(proc: subprocess.Popen[bytes], seconds: float) -> str | None:
    """One answer line from the child within ``seconds``, else None (the child is killed)."""
    import selectors

    assert proc.stdout is not None
    deadline = time.monotonic() + seconds
    buf = b""
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        while not buf.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not sel.select(left):
                return None
            chunk = proc.stdout.read1(64)  # type: ignore[attr-defined]
            if not chunk:
                return None
            buf += chunk
    return buf.decode("ascii", "replace").strip()


# ------------------------------------------------------------------ page images

RASTER_WORKER = Path(__file__).resolve().parents[2] / "_pdf_raster_worker.py"
#: Pages rasterised per PDF (the contract's cap on a PDF's page images).
PAGE_IMAGES = 24
#: Pixels on a page's longest side: an A4 page at 1200 px keeps 9 pt text readable.
PAGE_PX = 1200
#: Wall-clock seconds for one PDF's pages (the child is killed past them; the pages it
#: finished are kept); its CPU limit is the same.
RASTER_SECONDS = 30
#: Address space of the rasterising process: pdfium, Pillow and one page's bitmap.
RASTER_MEMORY = 1024 * 1024 * 1024
#: One PDF rasterised at a time per process: each takes a core while it runs.
_RASTER_TURNS = threading.BoundedSemaphore(1)


@attrs.frozen
class PageImage:
    """One rasterised page: its encoded bytes (PNG, or JPEG for a photo) and size."""

    data: bytes
    width: int
    height: int


@attrs.frozen
class Raster:
    """What rasterising a PDF gave: its first pages, its page count, and why it stopped
    short (``error``: unreadable, or out of time) when it did."""

    pages: tuple[PageImage, ...]
    count: int | None
    error: str | None = None


def can_rasterise() -> bool:
    """Whether this install can rasterise PDFs (pypdfium2 is importable)."""
    return importlib.util.find_spec("pypdfium2") is not None


def rasterise(
    data: bytes,
    *,
    pages: int = PAGE_IMAGES,
    longest: int = PAGE_PX,
    seconds: float = RASTER_SECONDS,
    memory: int = RASTER_MEMORY,
) -> Raster:
    """The first ``pages`` pages of PDF ``data`` as images, drawn by pdfium in a child
    process under a time and an address-space cap (one PDF at a time)."""
    if not is_pdf(data):
        return Raster((), None, "not a PDF")
    args = [str(memory), str(max(1, math.ceil(seconds))), str(pages), str(longest)]
    with _RASTER_TURNS:
        # -I: nothing of the server (nor the environment's PYTHONPATH) enters the child.
        proc = subprocess.Popen(
            [sys.executable, "-I", str(RASTER_WORKER), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        late = False
        try:
            out, _ = proc.communicate(data, timeout=seconds + STARTUP_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()  # what it wrote before it was killed
            late = True
    return _read_frames(out, late, proc.returncode, seconds)


def _read_frames(out: bytes, late: bool, status: int | None, seconds: float) -> Raster:
    found: list[PageImage] = []
    count: int | None = None
    error: str | None = None
    at = 0
    while at + 9 <= len(out):
        letter, size = out[at : at + 1], int.from_bytes(out[at + 1 : at + 9], "big")
        body = out[at + 9 : at + 9 + size]
        if len(body) < size:
            break  # cut off mid-frame when the child was killed
        at += 9 + size
        if letter == b"N" and body.isdigit():
            count = int(body)
        elif letter == b"P" and size > 8:
            w, h = int.from_bytes(body[:4], "big"), int.from_bytes(body[4:8], "big")
            found.append(PageImage(body[8:], w, h))
        elif letter == b"X":
            error = body.decode("utf-8", "replace") or "unreadable PDF"
    if late:
        error = f"rasterising took over {seconds:g} s; {len(found)} pages kept"
    elif error is None and (count is None or len(found) < min(count, PAGE_IMAGES)):
        # The child died (its memory or CPU cap) before it said why.
        error = f"the PDF could not be rasterised (the rasteriser stopped, status {status})"
    return Raster(tuple(found), count, error)
