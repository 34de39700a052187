"""A canvas and the files it names as one zip, and such a zip (or a bare file) read back."""

from __future__ import annotations

import base64
import io
import json
import zipfile
from collections.abc import Iterable
from typing import Any

from layoutkit.travel._model import TravelError

#: Names of the entry a zip to import holds its canvas or scene under.
DOCUMENT_ENDINGS = (".canvas", ".excalidraw", ".json")


def zip_bundle(name: str, document: dict[str, Any], files: Iterable[tuple[str, bytes]]) -> bytes:
    """A zip holding ``document`` as ``name`` and each ``(path, bytes)`` beside it."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as bundle:
        bundle.writestr(name, json.dumps(document, indent=2, ensure_ascii=False))
        for path, data in files:
            bundle.writestr(path, data)
    return out.getvalue()


def unzip_bundle(data: bytes, max_bytes: int) -> tuple[bytes, dict[str, str]] | None:
    """``(document bytes, {path: base64})`` of a zip: its one canvas or scene entry and
    every other entry; None when ``data`` is no zip.

    Raises :class:`TravelError` ``invalid_file`` for a zip without exactly one such
    entry, and ``zip_too_large`` when its entries unpack past ``max_bytes``.
    """
    if not zipfile.is_zipfile(io.BytesIO(data)):
        return None
    with zipfile.ZipFile(io.BytesIO(data)) as bundle:
        names = [n for n in bundle.namelist() if not n.endswith("/")]
        docs = [n for n in names if n.endswith(DOCUMENT_ENDINGS)]
        if len(docs) != 1:
            raise TravelError(
                "invalid_file",
                f"a zip to import holds one .canvas or .excalidraw file; this one holds {len(docs)}",
                field="file",
            )
        # Sizes from the directory, before anything unpacks: a zip bomb stops here.
        total = sum(bundle.getinfo(n).file_size for n in names)
        if total > max_bytes:
            raise TravelError(
                "zip_too_large",
                f"the zip unpacks to {total} bytes; at most {max_bytes}",
                field="file",
            )
        entries = {n: bundle.read(n) for n in names}
    document = entries.pop(docs[0])
    return document, {n: base64.b64encode(v).decode("ascii") for n, v in entries.items()}
