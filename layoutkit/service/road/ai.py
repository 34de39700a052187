"""The AI backend a deployment may configure: distilling task refs and answering ask_task.

There is none by default. Without one, ``ask_task`` answers 501 and
``read_task_ref`` cuts long text at the budget instead of distilling it. A
backend is anything with :meth:`AiBackend.complete`; the one shipped
(``layoutkit.net.OpenAICompatibleBackend``) talks to an OpenAI-compatible
``/chat/completions`` endpoint.

Configure the shipped backend with ``LAYOUTKIT_AI_URL`` (the API base, e.g.
``http://127.0.0.1:8080/v1``), ``LAYOUTKIT_AI_MODEL`` and, when the endpoint
wants one, ``LAYOUTKIT_AI_KEY`` (sent as a bearer token, never logged).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from layoutkit.net._ai import DEFAULT_MODEL, AiError, OpenAICompatibleBackend

URL_ENV = "LAYOUTKIT_AI_URL"
MODEL_ENV = "LAYOUTKIT_AI_MODEL"
KEY_ENV = "LAYOUTKIT_AI_KEY"

__all__ = ["AiBackend", "AiError", "OpenAICompatibleBackend", "backend_from_env"]


@runtime_checkable
class AiBackend(Protocol):
    """What the task engine asks of an AI backend: one completion at a time."""

    def complete(self, system: str, prompt: str, *, max_tokens: int) -> str:
        """The model's answer to ``prompt`` under the ``system`` instructions, at most
        ``max_tokens`` long; raises :class:`AiError` when there is none."""
        ...


def backend_from_env(environ: Mapping[str, str] | None = None) -> AiBackend | None:
    """The shipped backend as the environment configures it, or None (the default)."""
    env = os.environ if environ is None else environ
    url = env.get(URL_ENV, "").strip()
    if not url:
        return None
    return OpenAICompatibleBackend(
        url, model=env.get(MODEL_ENV, "").strip() or DEFAULT_MODEL, api_key=env.get(KEY_ENV)
    )
