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


#: A message quotes at most about this much of a value, and says how long it was.
SHOW_CHARS = 120


def show(value: Any) -> str:
    """A short, always-safe rendering of an arbitrary value for messages: a long
    string or list is quoted in part with its length ("'aaa…' (4,001 characters)",
    "[1, 2, 3, …] (202 items)")."""
    t = type(value)
    if t is str:
        if len(value) <= SHOW_CHARS:
            return repr(value)
        return f"{value[: SHOW_CHARS - 20]!r}… ({len(value):,} characters)"
    if t is list and all(type(v) in (int, str, float, bool) for v in value[:50]):
        whole = repr(value)
        if len(whole) <= SHOW_CHARS:
            return whole
        head = whole[: SHOW_CHARS - 20].rsplit(",", 1)[0]
        return f"{head}, …] ({len(value):,} items)"
    if t is bool or value is None:
        return "true" if value is True else "false" if value is False else "null"
    if t is int:
        return str(value) if value.bit_length() < 64 else "a very large integer"
    if t is float:
        return repr(value)
    return f"a value of type {typename(value)}"


def typename(value: Any) -> str:
    """JSON-flavoured name of a value's type."""
    t = type(value)
    if t is str:
        return "string"
    if t is bool:
        return "boolean"
    if t is int or t is float:
        return "number"
    if value is None:
        return "null"
    if t is dict:
        return "object"
    if t is list:
        return "array"
    return t.__name__


def show_ids(ids: Iterable[object], shown: int = 10) -> str:
    """Ids a message names: the first ``shown`` and how many there are in all
    ("1, 2, 3, … (202 in all)"), so a refusal of a long list stays short."""
    listed = [str(i) for i in ids]
    if len(listed) <= shown:
        return ", ".join(listed)
    return f"{', '.join(listed[:shown])}, … ({len(listed):,} in all)"
