"""The embedding provider a project's settings ask for (``None`` when embeddings are off)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from repolens.config import Settings
from repolens.embed import EmbeddingError, EmbeddingProvider, create_provider


def provider_for(
    settings: Settings, stored: Mapping[str, Any] | None = None
) -> EmbeddingProvider | None:
    """``stored``: the index's effective profile record, whose runtime an ``auto``
    setting keeps (a faster runtime installed later takes effect with a re-embed)."""
    if settings.embed_provider == "none":
        return None
    return create_provider(
        settings.embed_provider,
        settings.embed_model or None,
        base_url=settings.embed_base_url or None,
        api_key=settings.embed_api_key or None,
        dims=settings.embed_dims,
        query_prefix=settings.embed_query_prefix,
        document_prefix=settings.embed_document_prefix,
        runtime=settings.embed_runtime,
        stored_runtime=str(stored.get("runtime", "")) if stored else None,
    )


def provider_or_reason(
    settings: Settings, stored: Mapping[str, Any] | None = None
) -> tuple[EmbeddingProvider | None, str]:
    """The provider, or ``None`` and why there is none, in words for people."""
    try:
        provider = provider_for(settings, stored)
    except EmbeddingError as exc:
        return None, f"embedding provider unavailable: {exc}"
    return provider, "" if provider else "embeddings are off (embed_provider = none)"
