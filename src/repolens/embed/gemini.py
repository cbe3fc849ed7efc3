"""Embeddings from Google's Gemini API: ``POST {base_url}/models/{model}:batchEmbedContents``.

Wire format: ``{"requests": [{"model": "models/NAME", "content": {"parts": [{"text": T}]},
"taskType": "RETRIEVAL_DOCUMENT" | "RETRIEVAL_QUERY", "outputDimensionality": N}, ...]}``
with the key in ``x-goog-api-key``, answered by ``{"embeddings": [{"values": [floats]},
...]}`` in request order; errors come as ``{"error": {"code", "message", "status"}}``.
Gemini embeds documents and queries differently (the task type), so each request says
which it is; vectors shortened by ``outputDimensionality`` are re-normalised here.
"""

from __future__ import annotations

import os

from repolens.embed.base import MalformedReplyError
from repolens.embed.remote import RemoteProvider

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"
DEFAULT_MODEL = "gemini-embedding-001"
API_KEY_ENVS = ("GEMINI_API_KEY", "GOOGLE_API_KEY")


class GeminiProvider(RemoteProvider):
    """A Gemini embedding model (``gemini-embedding-001``, ``text-embedding-004``)."""

    provider_name = "gemini"
    default_model = DEFAULT_MODEL
    default_base_url = DEFAULT_BASE_URL
    service = "the Gemini API"
    start_hint = (
        "Check the network and base_url ({url}); the key comes from embed_api_key,"
        " $GEMINI_API_KEY or $GOOGLE_API_KEY."
    )

    def _api_key(self, api_key: str | None) -> str | None:
        if api_key is not None:
            return api_key
        return next((os.environ[name] for name in API_KEY_ENVS if os.environ.get(name)), None)

    def _auth_headers(self, key: str) -> dict[str, str]:
        return {"x-goog-api-key": key}

    def _request(self, texts: list[str], query: bool) -> object:
        model = self._profile.model.removeprefix("models/")
        task = "RETRIEVAL_QUERY" if query else "RETRIEVAL_DOCUMENT"
        one: dict[str, object] = {"model": f"models/{model}", "taskType": task}
        if self._asked_dims:
            one["outputDimensionality"] = self._asked_dims
        requests = [{**one, "content": {"parts": [{"text": text}]}} for text in texts]
        reply = self._client.post(f"/models/{model}:batchEmbedContents", {"requests": requests})
        items = reply.get("embeddings") if isinstance(reply, dict) else None
        if not isinstance(items, list) or not all(
            isinstance(item, dict) and isinstance(item.get("values"), list) for item in items
        ):
            raise MalformedReplyError(
                f"the Gemini API at {self.base_url} replied without an 'embeddings' list of"
                f" {{'values': [...]}}: {str(reply)[:200]}"
            )
        return [item["values"] for item in items]
