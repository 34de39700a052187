"""The embedder protocol and what every backend shares."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


class EmbedError(Exception):
    """The embedder could not answer: not installed, unreachable, or answered nonsense."""


@runtime_checkable
class Embedder(Protocol):
    """Text in, unit vectors out.

    ``name`` says which vector space the vectors live in: vectors stored under
    another name are never compared with this embedder's. ``dim`` is their
    length. ``embed`` returns one float32 row of length ``dim`` and L2 norm 1 per
    text, in order; ``query`` says the texts are search queries rather than the
    documents searched (models trained with both kinds use it; others ignore
    it). It raises :class:`EmbedError` when there is no answer.
    """

    @property
    def name(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: list[str], *, query: bool = False) -> Vectors: ...


def normalised(vectors: npt.ArrayLike, dim: int | None = None) -> Vectors:
    """``vectors`` as a float32 ``(n, dim)`` array of unit rows; a zero row stays zero.

    Raises :class:`EmbedError` when the shape is wrong or a value is not finite.
    """
    array = np.asarray(vectors, dtype=np.float64)
    if array.ndim != 2 or (dim is not None and array.shape[1] != dim):
        want = f"(n, {dim})" if dim is not None else "(n, dim)"
        raise EmbedError(f"the embedder answered vectors of shape {array.shape}, not {want}")
    if not np.isfinite(array).all():
        raise EmbedError("the embedder answered a vector holding NaN or infinity")
    # Each row is first divided by its largest value, so squaring never under- or
    # overflows whatever the scale the embedder answers in.
    peaks = np.abs(array).max(axis=1, keepdims=True) if array.size else array[:, :1]
    array = np.divide(array, peaks, out=np.zeros_like(array), where=peaks > 0)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    unit = np.divide(array, norms, out=np.zeros_like(array), where=norms > 0)
    return unit.astype(np.float32)
