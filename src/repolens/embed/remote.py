"""What the Ollama and OpenAI-compatible providers share: batching, windows, checks.

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
from repolens.embed.http import JsonClient
from repolens.embed.models import lookup
from repolens.embed.windows import measure_chars, split_chars, split_windows

DEFAULT_BATCH_SIZE = 64
DEFAULT_MAX_CHARS = 2000
CHARS_PER_TOKEN = 4
DEFAULT_MAX_TOKENS = 512
_PROBE_TEXT = "dimension probe"


class RemoteProvider(ABC):
    """An embedding model behind an HTTP API, reached through ``JsonClient``."""

    provider_name: str

    def __init__(
        self,
        client: JsonClient,
        model: str,
        *,
        dims: int | None,
        query_prefix: str | None,
        document_prefix: str | None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_chars: int | None = None,
    ) -> None:
        known = lookup(model)
        max_tokens = known.max_tokens or DEFAULT_MAX_TOKENS
        self._client = client
        self._profile = EmbeddingProfile(
            provider=self.provider_name,
            model=model,
            dims=dims or known.dims or 0,
            query_prefix=known.query_prefix if query_prefix is None else query_prefix,
            document_prefix=known.document_prefix if document_prefix is None else document_prefix,
            max_tokens=max_tokens,
        )
        self._batch_size = max(1, batch_size)
        if max_chars is None:
            max_chars = (
                CHARS_PER_TOKEN * known.max_tokens if known.max_tokens else DEFAULT_MAX_CHARS
            )
        self.max_chars = max_chars
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

    def windows(self, text: str) -> list[str]:
        """Line-aligned windows of at most ``max_chars`` characters, prefix included."""
        return self._windows(text, self._profile.document_prefix)

    def embed_documents(self, texts: Sequence[str]) -> FloatArray:
        prefix = self._profile.document_prefix
        return self._embed([prefix + text for text in texts])

    def embed_query(self, text: str) -> FloatArray:
        """Vector of a query; a query longer than ``max_chars`` is the mean of its windows."""
        prefix = self._profile.query_prefix
        vectors = self._embed([prefix + window for window in self._windows(text, prefix)])
        mean = vectors.mean(axis=0)
        return (mean / np.linalg.norm(mean)).astype(np.float32)

    def close(self) -> None:
        self._client.close()

    @abstractmethod
    def _request(self, texts: list[str]) -> object:
        """Send one batch; return the reply's list of vectors, as decoded from JSON."""

    def _windows(self, text: str, prefix: str) -> list[str]:
        budget = max(1, self.max_chars - len(prefix))
        return split_windows(text, budget, measure_chars, split_chars)

    def _embed(self, texts: list[str]) -> FloatArray:
        parts = [
            self._embed_batch(texts[start : start + self._batch_size])
            for start in range(0, len(texts), self._batch_size)
        ]
        if not parts:
            return np.empty((0, self._profile.dims), dtype=np.float32)
        return np.concatenate(parts)

    def _embed_batch(self, texts: list[str]) -> FloatArray:
        source = f"{self.provider_name} model {self._profile.model!r} at {self.base_url}"
        raw = self._request(texts)
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
