"""An embedder on any server speaking OpenAI's ``/embeddings`` API (``layoutkit.meaning``).

Like the AI backend, the deployment names the server, so a model served on the
same machine or a private network is the usual case and no address rule
applies. The key goes out as a bearer token and stays out of reprs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from layoutkit.meaning._base import EmbedError, Vectors, normalised

if TYPE_CHECKING:
    import httpx

DEFAULT_MODEL = "default"
#: An embedding request that takes longer than this is given up.
TIMEOUT_S = 10.0
#: Texts sent in one request; a longer list goes in several.
BATCH = 64


class HttpEmbedder:
    """Vectors from ``POST <base_url>/embeddings`` (OpenAI's request and answer shape)."""

    def __init__(
        self,
        base_url: str,
        *,
        model: str = DEFAULT_MODEL,
        api_key: str | None = None,
        timeout: float = TIMEOUT_S,
        dim: int | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        import httpx

        self.url = base_url.rstrip("/") + "/embeddings"
        self.model = model
        self.timeout = timeout
        self._dim = dim
        headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(headers=headers, timeout=timeout, transport=transport)

    def __repr__(self) -> str:
        return f"HttpEmbedder({self.url!r}, model={self.model!r})"

    @property
    def name(self) -> str:
        return f"http:{self.model}"

    @property
    def dim(self) -> int:
        """The vectors' length: as configured, else learned from the first answer (0 before)."""
        return self._dim or 0

    def embed(self, texts: list[str], *, query: bool = False) -> Vectors:
        # The API has no query/document distinction; ``query`` is ignored.
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [self._ask(texts[i : i + BATCH]) for i in range(0, len(texts), BATCH)]
        return np.vstack(parts) if len(parts) > 1 else parts[0]

    def _ask(self, texts: list[str]) -> Vectors:
        import httpx

        try:
            response = self._client.post(self.url, json={"model": self.model, "input": texts})
        except httpx.TimeoutException as exc:
            raise EmbedError(
                f"the embedding endpoint did not answer within {self.timeout:g} s"
            ) from exc
        except httpx.HTTPError as exc:
            raise EmbedError(f"the embedding endpoint is unreachable: {exc}") from exc
        if response.status_code != 200:
            raise EmbedError(f"the embedding endpoint answered {response.status_code}")
        try:
            data: list[dict[str, Any]] = response.json()["data"]
            rows = sorted(data, key=lambda item: int(item.get("index", 0)))
            vectors = [row["embedding"] for row in rows]
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise EmbedError("the embedding endpoint's answer has no data[].embedding") from exc
        if len(vectors) != len(texts):
            raise EmbedError(
                f"the embedding endpoint answered {len(vectors)} vectors for {len(texts)} texts"
            )
        try:
            out = normalised(vectors, self._dim)
        except ValueError as exc:  # ragged rows
            raise EmbedError("the embedding endpoint answered vectors of unequal length") from exc
        self._dim = out.shape[1]
        return out

    def close(self) -> None:
        self._client.close()
