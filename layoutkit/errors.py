"""Error values: ``ServiceError`` for operations, ``EngineError`` for the pure engines."""

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
        #: Commit what the operation wrote before refusing: a refusal that is itself
        #: recorded (a wrong sight code counts towards locking its run).
        self.keep_writes = False

    def keeping_writes(self) -> ServiceError:
        """This refusal, with the operation's writes committed before it is raised."""
        self.keep_writes = True
        return self

    @property
    def message(self) -> str:
        return self.body["message"]

    def __repr__(self) -> str:
        return f"ServiceError({self.status}, {self.code!r}, {self.message!r})"


class EngineError(Exception):
    """Pure engine work refused: a machine ``code``, a ``message`` and code-specific ``fields``.

    Engines (elements, layout, diagram, render) know nothing of transports, so
    they carry no status; the service gives each code its status when the error
    leaves an operation. ``fields`` become the extra keys of the response body
    (``index``, ``allowed``, ``didYouMean``, ``findings``...), in their order.
    """

    def __init__(self, code: str, message: str, **fields: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.fields: dict[str, Any] = fields

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        # Subclasses take other constructor arguments; rebuild from the state so a
        # refusal raised in a worker process arrives whole (code, message, fields).
        return (_rebuild, (type(self), self.code, self.message, self.fields))


def _rebuild(cls: type[EngineError], code: str, message: str, fields: dict[str, Any]) -> Any:
    err = cls.__new__(cls)
    Exception.__init__(err, message)
    err.code, err.message, err.fields = code, message, fields
    return err


class LayoutError(EngineError):
    """A refusal of the layout engine (placement, arrange, card updates); the board is unchanged."""


class DiagramError(EngineError):
    """A refusal of the diagram engine (unreadable text, a showcase diagram with findings)."""


def did_you_mean(word: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """Close matches of ``word`` among ``choices``, best first."""
    pool = list(choices)
    hits = difflib.get_close_matches(word, pool, n=n, cutoff=0.6)
    if not hits:
        lowered = word.lower()
        hits = [c for c in pool if lowered and (lowered in c.lower() or c.lower() in lowered)][:n]
    return hits
