"""Embeddings from any OpenAI-compatible server: ``POST {base_url}/embeddings``.

Wire format: ``{"model": name, "input": [texts]}`` with ``Authorization: Bearer KEY``,
answered by ``{"data": [{"embedding": [floats], "index": i}, ...], ...}``; errors come
as ``{"error": {"message": ...}}``. Spoken by OpenAI, LM Studio, LiteLLM, vLLM,
llama.cpp's server, Ollama's ``/v1`` and others.
"""

from __future__ import annotations

import os

from repolens.embed.base import MalformedReplyError
from repolens.embed.remote import RemoteProvider

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "text-embedding-3-small"
API_KEY_ENV = "OPENAI_API_KEY"


class OpenAICompatibleProvider(RemoteProvider):
    """A model behind an OpenAI-style ``/embeddings`` endpoint."""

    provider_name = "openai"
    default_model = DEFAULT_MODEL
    default_base_url = DEFAULT_BASE_URL
    service = "the embedding server"
    start_hint = (
        "Is the OpenAI-compatible server at {url} running? Check base_url (it usually ends in /v1)."
    )

    def _api_key(self, api_key: str | None) -> str | None:
        """``api_key`` defaults to ``$OPENAI_API_KEY``; local servers usually need none."""
        return api_key if api_key is not None else os.environ.get(API_KEY_ENV)

    @property
    def _request_dims(self) -> int | None:
        """Only OpenAI's text-embedding-3 models can shorten their vectors on request;
        other servers may reject the unknown field."""
        dims = self._asked_dims
        return dims if dims and self._profile.model.startswith("text-embedding-3") else None

    def _request(self, texts: list[str], query: bool) -> object:
        payload: dict[str, object] = {"model": self._profile.model, "input": texts}
        request_dims = self._request_dims
        if request_dims:
            payload["dimensions"] = request_dims
        reply = self._client.post("/embeddings", payload)
        data = reply.get("data") if isinstance(reply, dict) else None
        if not isinstance(data, list):
            raise MalformedReplyError(
                f"server at {self.base_url} replied without a 'data' list: {str(reply)[:200]}"
            )
        return _ordered_embeddings(data, self.base_url)


def _ordered_embeddings(data: list[object], base_url: str) -> list[object]:
    """The vectors in input order: servers may return ``data`` items in any order."""
    pairs: list[tuple[int, object]] = []
    for item in data:
        if not (
            isinstance(item, dict) and "embedding" in item and isinstance(item.get("index"), int)
        ):
            raise MalformedReplyError(
                f"server at {base_url} sent a 'data' item without 'embedding' and an integer "
                f"'index': {str(item)[:200]}"
            )
        pairs.append((item["index"], item["embedding"]))
    pairs.sort(key=lambda pair: pair[0])
    if [index for index, _ in pairs] != list(range(len(pairs))):
        raise MalformedReplyError(
            f"server at {base_url} sent 'data' indices that are not 0..{len(pairs) - 1}"
        )
    return [vector for _, vector in pairs]
