"""``create_provider``: one entry point from settings (CLI, config file, env) to a provider."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from repolens.embed.base import DimensionMismatchError, EmbeddingError, EmbeddingProvider
from repolens.embed.models import lookup, normalise_name

if TYPE_CHECKING:
    from repolens.embed.remote import RemoteProvider

PROVIDERS = ("local", "ollama", "openai", "gemini")


def create_provider(
    provider: str,
    model: str | None = None,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    dims: int | None = None,
    timeout: float = 30.0,
    query_prefix: str | None = None,
    document_prefix: str | None = None,
    max_chars: int | None = None,
    model_dir: Path | None = None,
    runtime: str = "auto",
    stored_runtime: str | None = None,
) -> EmbeddingProvider:
    """Build the provider named ``provider`` ("local", "ollama", "openai" or "gemini").

    Nothing heavy happens here: the local model loads on first use, and a remote server
    is first contacted by the first embedding. ``model`` defaults to the provider's usual
    model, prefixes to the model's known ones (``repolens.embed.models``); ``max_chars``
    sizes remote windows; ``model_dir`` points the local provider at another
    sentence-transformers BERT directory; ``runtime`` picks the local engine (see
    ``repolens.embed.runtimes``), ``stored_runtime`` is the runtime tag of the vectors
    the index holds, kept under ``auto`` where it can run.
    """
    name = provider.strip().lower()
    if name == "local":
        return _create_local(
            model, dims, query_prefix, document_prefix, model_dir, runtime, stored_runtime
        )
    if name in ("ollama", "openai", "openai-compatible", "gemini"):
        remote = _remote_class(name)
        return remote(
            model or remote.default_model,
            base_url=base_url,
            api_key=api_key,
            dims=dims,
            timeout=timeout,
            query_prefix=query_prefix,
            document_prefix=document_prefix,
            max_chars=max_chars,
        )
    raise EmbeddingError(f"unknown embedding provider {provider!r}; choose one of {PROVIDERS}")


def _remote_class(name: str) -> type[RemoteProvider]:
    """The provider class for a remote ``name``, imported only when asked for."""
    if name == "ollama":
        from repolens.embed.ollama import OllamaProvider

        return OllamaProvider
    if name == "gemini":
        from repolens.embed.gemini import GeminiProvider

        return GeminiProvider
    from repolens.embed.openai_compat import OpenAICompatibleProvider

    return OpenAICompatibleProvider


def _create_local(
    model: str | None,
    dims: int | None,
    query_prefix: str | None,
    document_prefix: str | None,
    model_dir: Path | None,
    runtime: str,
    stored_runtime: str | None,
) -> EmbeddingProvider:
    from repolens.embed.local import LocalProvider
    from repolens.embed.modelfiles import DEFAULT_MODEL

    if model_dir is None and model and normalise_name(model) != DEFAULT_MODEL.lower():
        raise EmbeddingError(
            f"the local provider ships only {DEFAULT_MODEL}; for {model!r} pass model_dir "
            "(a sentence-transformers BERT directory) or use the ollama/openai provider"
        )
    known = lookup(model or DEFAULT_MODEL)
    provider = LocalProvider(
        model_dir,
        model=model if model_dir is not None else DEFAULT_MODEL,
        query_prefix=known.query_prefix if query_prefix is None else query_prefix,
        document_prefix=known.document_prefix if document_prefix is None else document_prefix,
        runtime=runtime,
        stored_tag=stored_runtime,
    )
    if dims is not None and dims != provider.profile.dims:
        raise DimensionMismatchError(
            f"{provider.profile.model} makes {provider.profile.dims}-dimensional vectors, "
            f"not {dims}"
        )
    return provider
