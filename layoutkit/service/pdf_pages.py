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

import subprocess
import sys
import time
from pathlib import Path

from layoutkit.errors import EngineError
from layoutkit.limits import PDF_BYTES, PDF_OBJECTS, PDF_PAGES, PDF_SECONDS, LimitExceeded

WORKER = Path(__file__).resolve().parent.parent / "_pdf_worker.py"
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
