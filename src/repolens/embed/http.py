"""JSON over HTTP for remote embedding servers: timeouts, bounded retries, clear errors.

Every failure leaves here as an ``EmbeddingError`` that names the URL and says what to
do, because the person reading it is usually an agent's user who never configured the
server by hand: "connection refused" alone does not tell them to start Ollama.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import httpx

from repolens.embed.base import (
    EmbeddingError,
    EmbeddingTimeoutError,
    MalformedReplyError,
    ServerReplyError,
    ServerUnavailableError,
)

RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
MAX_RETRY_AFTER = 30.0
_MAX_MESSAGE = 500


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how patiently a request that failed transiently is sent again."""

    retries: int = 3
    backoff: float = 0.5  # seconds before the first retry; doubled for each further one

    def delay(self, attempt: int, retry_after: str | None) -> float:
        """Seconds to wait before retry number ``attempt`` (0-based)."""
        if retry_after is not None:
            try:
                return min(max(float(retry_after), 0.0), MAX_RETRY_AFTER)
            except ValueError:
                pass  # an HTTP date: fall back to our own backoff
        return self.backoff * (2**attempt)


class JsonClient:
    """POSTs JSON to one server; thread-safe because ``httpx.Client`` is."""

    def __init__(
        self,
        base_url: str,
        *,
        service: str,
        start_hint: str,
        timeout: float,
        headers: dict[str, str] | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._service = service
        self._start_hint = start_hint
        self._timeout = timeout
        self._retry = retry or RetryPolicy()
        self._client = httpx.Client(
            timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)), headers=headers or {}
        )

    def post(self, path: str, payload: dict[str, Any]) -> Any:
        """POST ``payload`` to ``path`` and return the decoded JSON reply."""
        url = f"{self.base_url}{path}"
        attempt = 0
        while True:
            response = self._send(url, payload)
            if response.status_code not in RETRY_STATUSES or attempt >= self._retry.retries:
                break
            time.sleep(self._retry.delay(attempt, response.headers.get("retry-after")))
            attempt += 1
        if response.status_code >= 400:
            raise self._http_error(url, response, attempt)
        try:
            return response.json()
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise MalformedReplyError(
                f"{self._service} at {url} did not reply with JSON: {_snippet(response.text)!r}"
            ) from exc

    def close(self) -> None:
        self._client.close()

    def _send(self, url: str, payload: dict[str, Any]) -> httpx.Response:
        try:
            return self._client.post(url, json=payload)
        except httpx.ConnectError as exc:
            raise ServerUnavailableError(
                f"cannot connect to {self._service} at {url} ({exc}). {self._start_hint}"
            ) from exc
        except httpx.TimeoutException as exc:
            raise EmbeddingTimeoutError(
                f"{self._service} at {url} did not answer within {self._timeout:g} s; "
                "the server may be overloaded or still loading the model. Retry later or "
                "raise the timeout."
            ) from exc
        except httpx.HTTPError as exc:
            raise EmbeddingError(f"request to {self._service} at {url} failed: {exc}") from exc

    def _http_error(self, url: str, response: httpx.Response, retries: int) -> ServerReplyError:
        status = response.status_code
        message = f"{self._service} at {url} answered HTTP {status}: {server_message(response)}"
        if status in (401, 403):
            message += " (check the API key)"
        elif status == 404:
            message += " (check the base URL and that the model exists on the server)"
        if retries:
            message += f" (after {retries} retries)"
        return ServerReplyError(message, status)


def server_message(response: httpx.Response) -> str:
    """The human part of an error reply: OpenAI's ``error.message``, Ollama's ``error``."""
    try:
        body = response.json()
    except ValueError:
        return _snippet(response.text) or response.reason_phrase
    if isinstance(body, dict):
        error = body.get("error", body.get("detail", body.get("message")))
        if isinstance(error, dict):
            error = error.get("message", error)
        if error is not None:
            return _snippet(str(error))
    return _snippet(json.dumps(body))


def _snippet(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _MAX_MESSAGE else text[:_MAX_MESSAGE] + "..."
