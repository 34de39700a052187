"""The AI backend a deployment may configure: distilling task refs and answering ask_task.

There is none by default. Without one, ``ask_task`` answers 501 and
``read_task_ref`` cuts long text at the budget instead of distilling it. A
backend is anything with :meth:`AiBackend.complete`; the one shipped here
talks to an OpenAI-compatible ``/chat/completions`` endpoint.

Configure the shipped backend with ``LAYOUTKIT_AI_URL`` (the API base, e.g.
``http://127.0.0.1:8080/v1``), ``LAYOUTKIT_AI_MODEL`` and, when the endpoint
wants one, ``LAYOUTKIT_AI_KEY`` (sent as a bearer token, never logged).
"""

from __future__ import annotations

import os
from typing import Any, Protocol, runtime_checkable

import httpx

URL_ENV = "LAYOUTKIT_AI_URL"
MODEL_ENV = "LAYOUTKIT_AI_MODEL"
KEY_ENV = "LAYOUTKIT_AI_KEY"
DEFAULT_MODEL = "default"
#: A completion that takes longer than this is given up (the caller sees 502).
TIMEOUT_S = 60.0


class AiError(Exception):
    """The backend could not answer (unreachable, refused, or answered nonsense)."""


@runtime_checkable
class AiBackend(Protocol):
    """What the task engine asks of an AI backend: one completion at a time."""

    def complete(self, system: str, prompt: str, *, max_tokens: int) -> str:
        """The model's answer to ``prompt`` under the ``system`` instructions, at most
        ``max_tokens`` long; raises :class:`AiError` when there is none."""
        ...


class OpenAICompatibleBackend:
    """An :class:`AiBackend` on any server speaking OpenAI's chat completions API."""

    def __init__(
        self,
        base_url: str,
        *,
        model: str = DEFAULT_MODEL,
        api_key: str | None = None,
        timeout: float = TIMEOUT_S,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(headers=headers, timeout=timeout, transport=transport)

    def __repr__(self) -> str:
        # The key stays out of reprs and logs.
        return f"OpenAICompatibleBackend({self.url!r}, model={self.model!r})"

    def complete(self, system: str, prompt: str, *, max_tokens: int) -> str:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": prompt},
            ],
            "max_tokens": max_tokens,
            "temperature": 0,
        }
        try:
            response = self._client.post(self.url, json=body)
        except httpx.HTTPError as exc:
            raise AiError(f"the AI backend is unreachable: {exc}") from exc
        if response.status_code != 200:
            raise AiError(f"the AI backend answered {response.status_code}")
        try:
            content = response.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise AiError("the AI backend's answer has no choices[0].message.content") from exc
        if not isinstance(content, str):
            raise AiError("the AI backend's answer is not text")
        return content

    def close(self) -> None:
        self._client.close()


def backend_from_env(environ: dict[str, str] | None = None) -> AiBackend | None:
    """The shipped backend as the environment configures it, or None (the default)."""
    env = os.environ if environ is None else environ
    url = env.get(URL_ENV, "").strip()
    if not url:
        return None
    return OpenAICompatibleBackend(
        url, model=env.get(MODEL_ENV, "").strip() or DEFAULT_MODEL, api_key=env.get(KEY_ENV)
    )
