"""What the command line, the client and the upload operations agree on about a
file before it is sent: how big it may be and what MIME type its name suggests.

Kept apart from the upload service so a remote command or a client reads it
without loading the engines.
"""

from __future__ import annotations

import mimetypes

#: Largest file one upload takes (the upload operations refuse larger ones, 413).
MAX_FILE_BYTES = 25 * 1024 * 1024
OCTET = "application/octet-stream"


def guess_mime(name: str) -> str:
    """The MIME type a file name suggests, else ``application/octet-stream``."""
    return mimetypes.guess_type(name, strict=False)[0] or OCTET
