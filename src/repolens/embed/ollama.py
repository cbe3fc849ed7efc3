"""Embeddings from an Ollama server: ``POST /api/embed``.

Wire format: ``{"model": name, "input": [texts]}`` answered by
``{"model": name, "embeddings": [[floats], ...], ...}``; errors come as
``{"error": "message"}`` with an HTTP error status.
"""

from __future__ import annotations

from repolens.embed.base import MalformedReplyError
from repolens.embed.remote import RemoteProvider

DEFAULT_BASE_URL = "http://127.0.0.1:11434"
DEFAULT_MODEL = "nomic-embed-text"


class OllamaProvider(RemoteProvider):
    """A model served by Ollama (``ollama pull nomic-embed-text``)."""

    provider_name = "ollama"
    default_model = DEFAULT_MODEL
    default_base_url = DEFAULT_BASE_URL
    service = "Ollama"
    start_hint = (
        "Is Ollama running? Start it with `ollama serve` and fetch the model with "
        "`ollama pull {model}`, or point base_url at the right host and port."
    )

    def _request(self, texts: list[str], query: bool) -> object:
        reply = self._client.post("/api/embed", {"model": self._profile.model, "input": texts})
        if not isinstance(reply, dict) or "embeddings" not in reply:
            raise MalformedReplyError(
                f"Ollama at {self.base_url} replied without 'embeddings' "
                f"(is this an Ollama server, version 0.3 or later?): {str(reply)[:200]}"
            )
        return reply["embeddings"]
