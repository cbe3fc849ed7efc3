"""Embeddings from an Ollama server: ``POST /api/embed``.

Wire format: ``{"model": name, "input": [texts]}`` answered by
``{"model": name, "embeddings": [[floats], ...], ...}``; errors come as
``{"error": "message"}`` with an HTTP error status.
"""

from __future__ import annotations

from repolens.embed.base import MalformedReplyError
from repolens.embed.http import JsonClient, RetryPolicy
from repolens.embed.remote import DEFAULT_BATCH_SIZE, RemoteProvider

DEFAULT_BASE_URL = "http://127.0.0.1:11434"
DEFAULT_MODEL = "nomic-embed-text"


class OllamaProvider(RemoteProvider):
    """A model served by Ollama (``ollama pull nomic-embed-text``)."""

    provider_name = "ollama"

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
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
        client = JsonClient(
            base_url or DEFAULT_BASE_URL,
            service="Ollama",
            start_hint=(
                f"Is Ollama running? Start it with `ollama serve` and fetch the model with "
                f"`ollama pull {model}`, or point base_url at the right host and port."
            ),
            timeout=timeout,
            headers={"Authorization": f"Bearer {api_key}"} if api_key else None,
            retry=retry,
        )
        super().__init__(
            client,
            model,
            dims=dims,
            query_prefix=query_prefix,
            document_prefix=document_prefix,
            batch_size=batch_size,
            max_chars=max_chars,
        )

    def _request(self, texts: list[str]) -> object:
        reply = self._client.post("/api/embed", {"model": self._profile.model, "input": texts})
        if not isinstance(reply, dict) or "embeddings" not in reply:
            raise MalformedReplyError(
                f"Ollama at {self.base_url} replied without 'embeddings' "
                f"(is this an Ollama server, version 0.3 or later?): {str(reply)[:200]}"
            )
        return reply["embeddings"]
