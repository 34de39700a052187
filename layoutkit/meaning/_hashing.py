"""Feature hashing of words: vectors without a model, for tests and benches.

Each folded word adds 1 to the coordinate its digest picks (and a second,
signed coordinate, so unrelated words rarely cancel out). Two texts are close
exactly when they share words: no meaning, but deterministic, fast, and the same
on every machine.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

from layoutkit.folding import fold
from layoutkit.meaning._base import Vectors, normalised


class HashingEmbedder:
    """Words hashed into ``dim`` coordinates, then scaled to unit length."""

    def __init__(self, dim: int = 256) -> None:
        self._dim = dim

    @property
    def name(self) -> str:
        return f"hashing-{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: list[str], *, query: bool = False) -> Vectors:
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", fold(text)):
                digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
                value = int.from_bytes(digest, "little")
                out[row, value % self._dim] += 1.0
                out[row, (value >> 32) % self._dim] += 1.0 if value & (1 << 31) else -1.0
        return normalised(out, self._dim)
