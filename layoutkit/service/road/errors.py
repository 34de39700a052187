"""The one table that gives each engine refusal its HTTP-style status.

Engines raise :class:`~layoutkit.errors.EngineError` values with a machine code
and no status; :meth:`Workspace.call` turns them into :class:`ServiceError`
with :func:`to_service_error`, so an operation answers the same whichever
engine refused it. What the store raises (:class:`~layoutkit.storage.StorageError`
and its kinds) is given its status and code by :data:`STORAGE_STATUS`, so no
storage error leaves the road as a crash.
"""

from __future__ import annotations

import json
from types import MappingProxyType
from typing import Any

from layoutkit.errors import EngineError, ServiceError
from layoutkit.limits import json_loads
from layoutkit.storage import BusyError, ConflictError, NotFoundError, StorageError

#: Seconds a caller refused with 503 busy is told to wait before retrying.
RETRY_AFTER_S = 1

#: Status, code and message of every class the storage package raises, most specific
#: first (a meta-test checks that each exception class the package defines is here).
STORAGE_STATUS: MappingProxyType[type[StorageError], tuple[int, str, str | None]] = (
    MappingProxyType(
        {
            # A lock not granted within the store's wait: nothing was written, and the
            # same call will most likely go through in a moment.
            BusyError: (
                503,
                "busy",
                "the workspace is busy with other writes; nothing was written, retry shortly",
            ),
            # A name or key taken meanwhile by another writer: the store says which.
            ConflictError: (409, "conflict", None),
            NotFoundError: (404, "not_found", None),
            # A misuse of the store (a write in a read, a nested transaction): the
            # store's words would name internals, so the answer is generic.
            StorageError: (500, "storage_error", "the store refused the operation"),
        }
    )
)


def storage_service_error(err: StorageError) -> ServiceError:
    """The answer for a storage error that reached the road: nothing of the call was
    written (its transaction rolled back)."""
    status, code, message = next(
        STORAGE_STATUS[cls] for cls in type(err).__mro__ if cls in STORAGE_STATUS
    )
    extra = {"retryAfter": RETRY_AFTER_S} if isinstance(err, BusyError) else {}
    return ServiceError(status, code, message or str(err), **extra)


#: Status of every code an engine raises. 400: the request cannot be done as sent;
#: 404: it names something that is not there; 409: it nearly names something that
#: is (say which, or force it); 422: it was understood but fails a quality bar.
STATUS_BY_CODE: MappingProxyType[str, int] = MappingProxyType(
    {
        # layout: compose placement
        "anchor_on_child": 400,
        "anchor_outside_section": 400,
        "children_on_non_frame": 400,
        "duplicate_child": 400,
        "duplicate_ref": 400,
        "exclusive_params": 400,
        "frame_cycle": 400,
        "invalid_anchor": 400,
        "invalid_flow": 400,
        "invalid_layout": 400,
        "invalid_pass": 400,
        "nesting_too_deep": 400,
        "relation_unsupported": 400,
        "unknown_ref": 400,
        "unknown_relation": 400,
        "unknown_anchor": 404,
        "unknown_pass": 404,
        "section_near_match": 409,
        # layout: arrange, card updates, sections
        "invalid_cols": 400,
        "invalid_scope": 400,
        "invalid_sections": 400,
        "invalid_sort": 400,
        "not_persistable": 400,
        "unknown_mode": 400,
        "unknown_card": 404,
        "unknown_section": 404,
        "missing_box": 400,
        # travel: files read for import
        "invalid_file": 400,
        "duplicate_id": 400,
        "unknown_node": 400,
        # travel: a diagram written as Mermaid text
        "empty_diagram": 400,
        # diagram
        "diagram_text_invalid": 400,
        "diagram_text_unsupported": 400,
        "composition_findings": 422,
        # limits and values at the door (layoutkit.limits)
        "limit_exceeded": 413,
        "invalid_number": 400,
        "invalid_text": 400,
        # uploads: a PDF built to hurt its reader
        "pdf_refused": 422,
        # review: a rule file that does not lint clean
        "invalid_rule": 422,
        # review: screenshot bytes no decoder reads
        "image_undecodable": 422,
        # review: card images and sheets
        "region_outside": 400,
        "too_many_tiles": 400,
        "no_tiles": 400,
    }
)

#: A code missing from the table is still a refusal of the request as sent.
DEFAULT_STATUS = 400


def status_of(err: EngineError) -> int:
    """The status an engine refusal answers with (see :data:`STATUS_BY_CODE`)."""
    return STATUS_BY_CODE.get(err.code, DEFAULT_STATUS)


def to_service_error(err: EngineError) -> ServiceError:
    """The operation error for an engine refusal: its status, code, message and fields."""
    return ServiceError(status_of(err), err.code, err.message, **err.fields)


def parse_request_json(text: str | bytes) -> Any:
    """Parse a request's JSON text (an HTTP body, a CLI argument) under the value rules.

    Syntax errors answer 400 ``invalid_json``; NaN, Infinity and integers over
    64 bits 400 ``invalid_number``; nesting deeper than the parser can follow
    413 ``limit_exceeded`` (``jsonDepth``). The door (``Operation.check_params``)
    applies the same rules to params that arrive already parsed.
    """
    try:
        return json_loads(text, json.loads)
    except EngineError as err:
        raise to_service_error(err) from err
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ServiceError(400, "invalid_json", f"request body is not JSON: {exc}") from exc
