"""The contract every embedding provider keeps, and the checks that enforce it.

The indexer stores vectors in a cache keyed by ``EmbeddingProfile.key()``: two vectors
are only ever compared when their keys match, so everything that changes what a vector
means (provider, model, dimensions, prefixes) goes into the key.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class EmbeddingProfile:
    """What a provider produces: enough to tell whether two vectors are comparable."""

    provider: str
    model: str
    dims: int
    query_prefix: str = ""
    document_prefix: str = ""
    max_tokens: int = 256
    runtime: str = ""
    """What runs the model when its vectors differ from the float32 reference's
    (``openvino-bf16``, ``onnxruntime-int8``); empty for float32 in any engine."""

    def key(self) -> str:
        """A stable id of vector compatibility, e.g. ``local:all-MiniLM-L6-v2:384:1a2b3c4d``,
        then ``:openvino-bf16`` for a reduced-precision runtime.

        Prefixes are hashed rather than spelled out because they may hold spaces and colons;
        ``max_tokens`` is left out since it changes how text is windowed, not what a vector
        of a given text means.
        """
        prefixes = f"{self.query_prefix}\x00{self.document_prefix}".encode()
        digest = hashlib.sha256(prefixes).hexdigest()[:8]
        runtime = f":{self.runtime}" if self.runtime else ""
        return f"{self.provider}:{self.model}:{self.dims}:{digest}{runtime}"


class EmbeddingError(Exception):
    """Any fault of an embedding provider, with a message a user can act on."""


class ModelNotInstalledError(EmbeddingError):
    """The local model's files are not on this machine."""


class ServerUnavailableError(EmbeddingError):
    """The embedding server could not be reached at all (nothing listening, DNS, TLS)."""


class EmbeddingTimeoutError(EmbeddingError):
    """The embedding server did not answer in time."""


class ServerReplyError(EmbeddingError):
    """The server answered with an HTTP error; ``status`` is its HTTP status code."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class MalformedReplyError(EmbeddingError):
    """The server's reply is not what its API promises (bad JSON, missing keys, wrong count)."""


class DimensionMismatchError(EmbeddingError):
    """A vector's length differs from the dimensions this profile expects."""


class InputTooLongError(EmbeddingError):
    """A text does not fit the model's context; split it with ``windows()`` first."""


@runtime_checkable
class EmbeddingProvider(Protocol):
    """Turns texts into L2-normalised float32 vectors of ``profile.dims`` dimensions."""

    @property
    def profile(self) -> EmbeddingProfile:
        """What this provider's vectors are; part of the cache key of every stored vector."""
        ...

    def windows(self, texts: Sequence[str]) -> list[list[str]]:
        """Split each text at line boundaries into consecutive pieces that each fit the
        model (many texts at once: a tokenizer call costs more than the text it reads)."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> FloatArray:
        """Embed documents (``document_prefix`` applied): shape ``(len(texts), dims)``."""
        ...

    def embed_query(self, text: str) -> FloatArray:
        """Embed one search query (``query_prefix`` applied): shape ``(dims,)``."""
        ...


def check_vectors(vectors: FloatArray, expected_dims: int, source: str) -> FloatArray:
    """Validate raw vectors and return them L2-normalised.

    Every provider funnels its output through here so that a store never receives a NaN,
    a zero vector or a vector of the wrong width, whatever the server sent.
    """
    if vectors.ndim != 2:
        raise MalformedReplyError(
            f"{source}: expected a list of vectors, got shape {vectors.shape}"
        )
    if vectors.shape[1] == 0:
        raise MalformedReplyError(f"{source}: returned empty vectors")
    if expected_dims and vectors.shape[1] != expected_dims:
        raise DimensionMismatchError(
            f"{source}: vectors have {vectors.shape[1]} dimensions but {expected_dims} were "
            "expected; the model changed or a different model answered. Re-index with the "
            "new model or set the dimensions to match."
        )
    if not np.isfinite(vectors).all():
        bad = int(np.flatnonzero(~np.isfinite(vectors).all(axis=1))[0])
        raise EmbeddingError(f"{source}: vector {bad} holds NaN or infinite values")
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    if (norms == 0).any():
        bad = int(np.flatnonzero(norms[:, 0] == 0)[0])
        raise EmbeddingError(f"{source}: vector {bad} is all zeros and cannot be normalised")
    return np.ascontiguousarray(vectors / norms, dtype=np.float32)
