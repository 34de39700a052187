"""Task numbers written inside free text: the pins of search rule 1.

A pin names one task by its number. The forms read, in the order they are
tried where they overlap:

- ``url``: a task address, with or without scheme and host, whose path ends
  in ``tasks/<n>`` (anything after ``/``, ``?`` or ``#`` is ignored). The
  segments before ``tasks`` name the workspace and project:
  ``/<workspace>/<project>/tasks/<n>`` and ``/<workspace>/tasks/<n>`` carry
  the workspace (and project); ``/tasks/<n>`` and ``/api/v1/tasks/<n>`` (the
  addresses this service hands out) name a task of the caller's workspace.
- ``workspace``: a whole token ``<workspace>/<n>``, as task ids take it.
- ``tk``: ``tk-<n>`` anywhere inside a token, any case, so a branch name
  (``feat/tk-42-login``) or a pull-request title pins. The ``tk`` must not
  follow a letter or digit (``atk-4`` is not a pin).
- ``hash``: ``#<n>`` not glued to a word, path or repository before it, so
  ``#12`` and ``(#12)`` pin but the pull-request key ``owner/repo#12`` does not.
- ``number``: a bare number, only when it is the whole text.

The parser is pure: it reads text and never looks a number up.
"""

from __future__ import annotations

import re
from typing import Literal

import attrs

PinForm = Literal["url", "workspace", "tk", "hash", "number"]

#: Task numbers are positive and fit a JSON-safe integer; longer digit runs are not pins.
MAX_DIGITS = 16
_N = rf"(?P<n>[0-9]{{1,{MAX_DIGITS}}})(?![0-9])"
_SEGMENT = r"[^/\s?#]+"
#: Path prefixes this service uses for its own task addresses; they name no workspace.
_OWN_PREFIXES = frozenset({("api", "v1")})

_URL = re.compile(
    rf"(?:https?://[^/\s]+)?(?P<path>(?:/{_SEGMENT})*)/tasks/{_N}(?=[/?#]|\s|$)",
    re.IGNORECASE,
)
_WORKSPACE = re.compile(rf"(?<!\S)(?P<ws>[^/\s#]{{1,200}})/{_N}(?!\S)")
_TK = re.compile(rf"(?<![A-Za-z0-9])tk-{_N}", re.IGNORECASE)
_HASH = re.compile(rf"(?<![\w/.#-])#{_N}")
_NUMBER = re.compile(rf"^\s*{_N}\s*$")
_FORMS: tuple[tuple[re.Pattern[str], PinForm], ...] = (
    (_URL, "url"),
    (_WORKSPACE, "workspace"),
    (_TK, "tk"),
    (_HASH, "hash"),
)


@attrs.frozen(slots=True)
class Pin:
    """One task number found in text.

    ``workspace`` is the named workspace (None: the caller's own);
    ``project`` is the project segment of a task URL, when it has one;
    ``start``/``end`` is the span of ``text`` in the searched string.
    """

    number: int
    workspace: str | None
    form: PinForm
    start: int
    end: int
    text: str
    project: str | None = None


def _url_pin(hit: re.Match[str]) -> Pin | None:
    segments = tuple(s for s in hit["path"].split("/") if s)
    workspace = project = None
    if len(segments) > 2:
        # A longer path is some other site's address, not one of ours.
        return None
    if segments and segments not in _OWN_PREFIXES:
        workspace = segments[0]
        project = segments[1] if len(segments) == 2 else None
    return _pin(hit, "url", workspace, project)


def _pin(
    hit: re.Match[str], form: PinForm, workspace: str | None = None, project: str | None = None
) -> Pin | None:
    number = int(hit["n"])
    if number < 1:
        return None
    start, end = hit.span()
    return Pin(number, workspace, form, start, end, hit.group(0).strip(), project)


def parse_pins(text: str) -> list[Pin]:
    """Every task pin in ``text``, in the order they appear; spans never overlap.

    The same task may be pinned twice (``#4 tk-4``); callers that want each
    task once keep the first of each ``(workspace, number)``.
    """
    whole = _NUMBER.match(text)
    if whole is not None:
        pin = _pin(whole, "number")
        return [attrs.evolve(pin, start=whole.start("n"), end=whole.end("n"))] if pin else []
    found: list[Pin] = []
    taken: list[tuple[int, int]] = []

    def free(start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e in taken)

    for pattern, form in _FORMS:
        for hit in pattern.finditer(text):
            if not free(*hit.span()):
                continue
            if form == "url":
                pin = _url_pin(hit)
            elif form == "workspace":
                pin = _pin(hit, form, hit["ws"])
            else:
                pin = _pin(hit, form)
            if pin is not None:
                found.append(pin)
                taken.append(hit.span())
    return sorted(found, key=lambda p: p.start)


def distinct(pins: list[Pin]) -> list[Pin]:
    """The first pin of each task, keeping order."""
    seen: set[tuple[str | None, int]] = set()
    out: list[Pin] = []
    for pin in pins:
        if (pin.workspace, pin.number) not in seen:
            seen.add((pin.workspace, pin.number))
            out.append(pin)
    return out


def unpinned(text: str, pins: list[Pin]) -> str:
    """``text`` with every pin's span blanked out: the words left to read."""
    out = text
    for pin in sorted(pins, key=lambda p: p.start, reverse=True):
        out = out[: pin.start] + " " + out[pin.end :]
    return out


#: The forms a whole task id may take (anything else is a reference for the resolver).
_ID_FORMS = frozenset({"url", "workspace", "tk", "hash", "number"})


def task_id_pin(value: int | str) -> Pin | None:
    """The task ``value`` names when it is an id as a whole: a number, or a text that is
    one pin and nothing else (``12``, ``#12``, ``tk-12``, ``<workspace>/12``, a task
    URL); None for anything else (a title, a key), which is a reference.

    This is the one reading of a task id: the road reads it to find the workspace a
    call works in, and handlers to find the task.
    """
    if isinstance(value, int):
        return Pin(value, None, "number", 0, 0, str(value))
    text = value.strip()
    pins = parse_pins(text)
    if len(pins) == 1 and pins[0].text == text and pins[0].form in _ID_FORMS:
        return pins[0]
    return None
