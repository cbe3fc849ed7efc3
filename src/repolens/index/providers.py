"""The embedding provider a project's settings ask for (``None`` when embeddings are off)."""

from __future__ import annotations

from repolens.config import Settings
from repolens.embed import EmbeddingProvider, create_provider


def provider_for(settings: Settings) -> EmbeddingProvider | None:
    if settings.embed_provider == "none":
        return None
    return create_provider(
        settings.embed_provider,
        settings.embed_model or None,
        base_url=settings.embed_base_url or None,
        api_key=settings.embed_api_key or None,
        dims=settings.embed_dims,
    )
