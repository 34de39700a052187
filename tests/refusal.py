"""Engine refusals seen as an operation answers them: status, code and body.

Engines raise :class:`EngineError` without a status; tests of the engines still
pin the answer a client gets, so they read the refusal through the service's
one status table.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import attrs
import pytest

from layoutkit.errors import EngineError, ServiceError
from layoutkit.service.road.errors import to_service_error


@attrs.define
class Refusal:
    """Filled in when the block raised: ``value`` is the error an operation would answer."""

    value: ServiceError | None = None


@contextmanager
def refused(kind: type[EngineError] = EngineError) -> Iterator[Refusal]:
    """Like ``pytest.raises(kind)``; ``.value`` is the refusal turned into a ServiceError."""
    refusal = Refusal()
    with pytest.raises(kind) as info:
        yield refusal
    refusal.value = to_service_error(info.value)
