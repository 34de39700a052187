"""Count the pages of PDFs in a child process (run as a script, never imported).

Reads from standard input, for each file, an 8-byte big-endian length and
the bytes; writes one line per file: the page count, ``-`` when it cannot
be told, the name of a cap and the value that passed it (``pdfPages 12000000``)
when the file asks for more than the caps allow, or ``refused`` and a reason when
reading it passed one of the reader's own safety limits. The parent (:mod:`layoutkit.service.uploads.pdf_pages`) kills this process
when one file takes too long, so a hostile PDF costs at most its time cap,
and the address-space cap set below bounds its memory: neither reaches the
server process. It imports only pypdf, so it starts in a fraction of a second.
"""

from __future__ import annotations

import io
import resource
import sys


def _count(data: bytes, limits: dict[str, int]) -> int | str | None:
    from pypdf import Configuration, PdfReader, apply_configuration
    from pypdf.errors import LimitReachedError

    config = Configuration().with_overwrites(
        # Counting pages needs the page tree and the object streams that hold it,
        # never a page's content; a compressed stream that inflates past this is
        # a bomb, not a page tree.
        zlib_maximum_output_length=limits["inflate"],
        lzw_maximum_output_length=limits["inflate"],
        run_length_maximum_output_length=limits["inflate"],
        maximum_declared_stream_length=limits["inflate"],
        stream_decoding_work_maximum_length=limits["inflate"] * 4,
        page_tree_maximum_entries=limits["pages"],
        page_tree_maximum_page_entries=limits["pages"] * 2,
        array_maximum_element_count=limits["objects"],
        dictionary_maximum_element_count=limits["objects"],
    )
    try:
        with apply_configuration(config):
            reader = PdfReader(io.BytesIO(data))
            if reader.is_encrypted and not reader.decrypt(""):
                return None
            objects = len(reader.xref_objStm) + sum(len(v) for v in reader.xref.values())
            if objects > limits["objects"]:
                return f"pdfObjects {objects}"
            pages = len(reader.pages)
    except LimitReachedError as err:
        # Past one of the reader's limits (a stream that inflates without end, a
        # number of thousands of digits): a file built to hurt a reader, not a broken one.
        return "refused " + " ".join(str(err).split())[:200]
    # A page count is a number the file states: a hostile one may have thousands of digits.
    return pages if pages <= limits["pages"] else f"pdfPages {min(pages, 2**53)}"


def main() -> None:
    memory, inflate, objects, pages = (int(a) for a in sys.argv[1:5])
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    limits = {"inflate": inflate, "objects": objects, "pages": pages}
    stdin, stdout = sys.stdin.buffer, sys.stdout
    while True:
        head = stdin.read(8)
        if len(head) < 8:
            return
        data = stdin.read(int.from_bytes(head, "big"))
        try:
            count = _count(data, limits)
        # Uploads are untrusted bytes: pypdf signals a malformed file, a limit it
        # reached or memory it could not get with many exception types, and any
        # of them only means the count cannot be told.
        except (Exception, MemoryError):
            count = None
        stdout.write(f"{'-' if count is None else count}\n")
        stdout.flush()


if __name__ == "__main__":
    main()
