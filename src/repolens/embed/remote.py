"""What the remote providers (Ollama, OpenAI-compatible, Gemini) share: batching, windows,
checks.

A subclass only says how one batch of texts becomes raw vectors on the wire
(``_request``); everything a server can get wrong is checked here, once, for both.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from repolens.embed.base import (
    EmbeddingProfile,
    FloatArray,
    MalformedReplyError,
    check_vectors,
)
from repolens.embed.http import JsonClient, RetryPolicy
from repolens.embed.models import lookup
from repolens.embed.windows import measure_chars, split_chars, split_windows

DEFAULT_BATCH_SIZE = 64
DEFAULT_MAX_CHARS = 2000
CHARS_PER_TOKEN = 4
DEFAULT_MAX_TOKENS = 512
_PROBE_TEXT = "dimension probe"


class RemoteProvider(ABC):
    """An embedding model behind an HTTP API, reached through ``JsonClient``.

    The constructor is shared so both providers take the same settings the same way;
    a subclass names its defaults and says how to reach and authenticate its server.
    """

    provider_name: str
    default_model: str
    default_base_url: str
    service: str  # how error messages name the server
    start_hint: str  # what to do when the server is unreachable; may name {model} and {url}

    def __init__(
        self,
        model: str | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        dims: int | None = None,
        timeout: float = 30.0,
        query_prefix: str | None = None,
        document_prefix: str | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_chars: int | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        model = self.default_model if model is None else model
        url = base_url or self.default_base_url
        key = self._api_key(api_key)
        self._client = JsonClient(
            url,
            service=self.service,
            start_hint=self.start_hint.format(model=model, url=url),
            timeout=timeout,
            headers=self._auth_headers(key) if key else None,
            retry=retry,
        )
        self._asked_dims = dims
        self._profile = _profile(self.provider_name, model, dims, query_prefix, document_prefix)
        self._batch_size = max(1, batch_size)
        self.max_chars = max_chars if max_chars is not None else _default_max_chars(model)
        self._lock = threading.Lock()

    @property
    def profile(self) -> EmbeddingProfile:
        """The profile; if the model's dimensions are unknown, one probe request learns them."""
        if not self._profile.dims:
            self.embed_documents([_PROBE_TEXT])
        return self._profile

    @property
    def base_url(self) -> str:
        return self._client.base_url

    def windows(self, texts: Sequence[str]) -> list[list[str]]:
        """Line-aligned windows of at most ``max_chars`` characters, prefix included."""
        return self._windows(texts, self._profile.document_prefix)

    def embed_documents(self, texts: Sequence[str]) -> FloatArray:
        prefix = self._profile.document_prefix
        return self._embed([prefix + text for text in texts], query=False)

    def embed_query(self, text: str) -> FloatArray:
        """Vector of a query; a query longer than ``max_chars`` is the mean of its windows."""
        prefix = self._profile.query_prefix
        (windows,) = self._windows([text], prefix)
        windows = [prefix + window for window in windows]
        vectors = self._embed(windows, query=True)
        mean = vectors.mean(axis=0)
        return (mean / np.linalg.norm(mean)).astype(np.float32)

    def close(self) -> None:
        self._client.close()

    def _api_key(self, api_key: str | None) -> str | None:
        """The key to send; a subclass may fall back to an environment variable."""
        return api_key

    def _auth_headers(self, key: str) -> dict[str, str]:
        """How the key travels; bearer tokens unless the service says otherwise."""
        return {"Authorization": f"Bearer {key}"}

    @abstractmethod
    def _request(self, texts: list[str], query: bool) -> object:
        """Send one batch (of search queries when ``query``, else of documents, for services
        that embed the two differently); return the reply's list of vectors, as decoded
        from JSON."""

    def _windows(self, texts: Sequence[str], prefix: str) -> list[list[str]]:
        budget = max(1, self.max_chars - len(prefix))
        return split_windows(texts, budget, measure_chars, split_chars, additive=True)

    def _embed(self, texts: list[str], *, query: bool) -> FloatArray:
        parts = [
            self._embed_batch(texts[start : start + self._batch_size], query)
            for start in range(0, len(texts), self._batch_size)
        ]
        if not parts:
            return np.empty((0, self._profile.dims), dtype=np.float32)
        return np.concatenate(parts)

    def _embed_batch(self, texts: list[str], query: bool) -> FloatArray:
        source = f"{self.provider_name} model {self._profile.model!r} at {self.base_url}"
        raw = self._request(texts, query)
        if not isinstance(raw, list) or len(raw) != len(texts):
            count = len(raw) if isinstance(raw, list) else type(raw).__name__
            raise MalformedReplyError(f"{source} returned {count} vectors for {len(texts)} texts")
        try:
            vectors = np.asarray(raw, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise MalformedReplyError(
                f"{source} returned vectors that are not equal-length lists of numbers: {exc}"
            ) from exc
        vectors = check_vectors(vectors, self._profile.dims, source)
        self._learn_dims(vectors.shape[1])
        return vectors

    def _learn_dims(self, dims: int) -> None:
        """Fix the profile's dimensions from the first reply, when nobody told us."""
        with self._lock:
            if not self._profile.dims:
                self._profile = replace(self._profile, dims=dims)


def _profile(
    provider: str,
    model: str,
    dims: int | None,
    query_prefix: str | None,
    document_prefix: str | None,
) -> EmbeddingProfile:
    """The profile from explicit settings, falling back to what we know of the model."""
    known = lookup(model)
    return EmbeddingProfile(
        provider=provider,
        model=model,
        dims=dims or known.dims or 0,
        query_prefix=known.query_prefix if query_prefix is None else query_prefix,
        document_prefix=known.document_prefix if document_prefix is None else document_prefix,
        max_tokens=known.max_tokens or DEFAULT_MAX_TOKENS,
    )


def _default_max_chars(model: str) -> int:
    """A window that fits the model's token limit at a cautious characters-per-token."""
    known = lookup(model)
    return CHARS_PER_TOKEN * known.max_tokens if known.max_tokens else DEFAULT_MAX_CHARS
