"""An AI backend on any server speaking OpenAI's chat completions API.

The deployment names the server (``LAYOUTKIT_AI_URL``), so unlike link
fetching it is not held to the public-address rules: a model served on the
same machine or a private network is the usual case. The service only knows
the small protocol it calls (``layoutkit.service.road.ai.AiBackend``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx


DEFAULT_MODEL = "default"
#: A completion that takes longer than this is given up (the caller sees 502).
TIMEOUT_S = 60.0


class AiError(Exception):
    """The backend could not answer (unreachable, refused, or answered nonsense)."""


class OpenAICompatibleBackend:
    """An AI backend on any server speaking OpenAI's chat completions API."""

    def __init__(
        self,
        base_url: str,
        *,
        model: str = DEFAULT_MODEL,
        api_key: str | None = None,
        timeout: float = TIMEOUT_S,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        import httpx

        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(headers=headers, timeout=timeout, transport=transport)

    def __repr__(self) -> str:
        # The key stays out of reprs and logs.
        return f"OpenAICompatibleBackend({self.url!r}, model={self.model!r})"

    def complete(self, system: str, prompt: str, *, max_tokens: int) -> str:
        """The model's answer; raises :class:`AiError` when there is none."""
        import httpx

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
