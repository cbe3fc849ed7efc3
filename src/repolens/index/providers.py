"""The embedding provider a project's settings ask for (``None`` when embeddings are off)."""

from __future__ import annotations

from repolens.config import Settings
from repolens.embed import EmbeddingError, EmbeddingProvider, create_provider


def provider_for(settings: Settings) -> EmbeddingProvider | None:
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
    )


def provider_or_reason(settings: Settings) -> tuple[EmbeddingProvider | None, str]:
    """The provider, or ``None`` and why there is none, in words for people."""
    try:
        provider = provider_for(settings)
    except EmbeddingError as exc:
        return None, f"embedding provider unavailable: {exc}"
    return provider, "" if provider else "embeddings are off (embed_provider = none)"
