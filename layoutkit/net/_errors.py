"""The one error value of the network package."""

from __future__ import annotations

from typing import Any

from layoutkit.errors import EngineError


class FetchError(EngineError):
    """A link was not fetched: a machine ``code`` and a human ``message`` (the reason a
    card shows in ``payload.error``).

    Codes: ``bad_url``, ``url_credentials``, ``bad_port``, ``bad_host``,
    ``not_public``, ``unresolved``, ``too_many_redirects``, ``timed_out``,
    ``unreachable``, ``http_error``, ``network_off``, ``capture_failed``.
    """

    def __init__(self, code: str, message: str, **fields: Any) -> None:
        super().__init__(code, message, **fields)
