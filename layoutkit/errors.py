"""The one error type every operation raises."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any


class ServiceError(Exception):
    """An operation refused: an HTTP-style ``status``, a machine ``code`` and a JSON ``body``.

    ``body`` always carries ``code`` and ``message``; other keys depend on the
    code (``index``, ``findings``, ``didYouMean``, ``allowed``, ``token``...).
    """

    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.body: dict[str, Any] = {"code": code, "message": message, **extra}

    @property
    def message(self) -> str:
        return self.body["message"]

    def __repr__(self) -> str:
        return f"ServiceError({self.status}, {self.code!r}, {self.message!r})"


def did_you_mean(word: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """Close matches of ``word`` among ``choices``, best first."""
    pool = list(choices)
    hits = difflib.get_close_matches(word, pool, n=n, cutoff=0.6)
    if not hits:
        lowered = word.lower()
        hits = [c for c in pool if lowered and (lowered in c.lower() or c.lower() in lowered)][:n]
    return hits
