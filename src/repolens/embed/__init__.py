"""Embedding providers: the offline default (MiniLM in numpy), Ollama, OpenAI-compatible.

Every provider turns text into L2-normalised float32 vectors, splits long documents into
windows that fit its model, and raises ``EmbeddingError`` with an actionable message
on any fault. Import cost is small: models and HTTP clients load on first use.
"""

from repolens.embed.base import (
    DimensionMismatchError,
    EmbeddingError,
    EmbeddingProfile,
    EmbeddingProvider,
    EmbeddingTimeoutError,
    InputTooLongError,
    MalformedReplyError,
    ModelNotInstalledError,
    ServerReplyError,
    ServerUnavailableError,
)
from repolens.embed.factory import PROVIDERS, create_provider

__all__ = [
    "PROVIDERS",
    "DimensionMismatchError",
    "EmbeddingError",
    "EmbeddingProfile",
    "EmbeddingProvider",
    "EmbeddingTimeoutError",
    "InputTooLongError",
    "MalformedReplyError",
    "ModelNotInstalledError",
    "ServerReplyError",
    "ServerUnavailableError",
    "create_provider",
]
