"""Who may talk to the explorer: pages of this machine, asking to read.

A page on any website can make the browser send requests to 127.0.0.1, and a DNS name that
resolves to 127.0.0.1 (DNS rebinding) makes them look same-origin. So every request must
name a local host in ``Host`` and, when the browser says where it comes from, a local
``Origin``; anything else is refused before it reaches a view. The explorer only reads:
any method but GET and HEAD is refused too. Responses carry a content security policy
that lets the page run only its own script (styles may be inline: the graph library
sets them on its canvas; no script is).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
SECURITY_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline';"
        b" img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none';"
        b" form-action 'none'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
]


def host_name(value: str) -> str:
    """The host part of a ``Host`` header value (``[::1]:8000`` -> ``::1``)."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else ""
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class LocalOnly:
    """ASGI middleware: refuse (403) a foreign Host or Origin, and (405) any write."""

    def __init__(self, app: ASGIApp, allowed: frozenset[str] = LOCAL_HOSTS) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        refusal = self.refusal(scope["method"], headers)
        if refusal is not None:
            status, text = refusal
            await _plain(send, status, text)
            return

        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, secured)

    def refusal(self, method: str, headers: dict[str, str]) -> tuple[int, str] | None:
        """Why a request is refused, or ``None`` when it may pass."""
        if host_name(headers.get("host", "")) not in self.allowed:
            return 403, "refused: the Host header does not name this machine"
        origin = headers.get("origin")
        if origin is not None and (urlsplit(origin).hostname or "") not in self.allowed:
            return 403, "refused: the request comes from a page of another site"
        if method not in ("GET", "HEAD"):
            return 405, "refused: the explorer is read-only"
        return None


async def _plain(send: Send, status: int, text: str) -> None:
    body = text.encode()
    await send({
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()), *SECURITY_HEADERS],
    })  # fmt: skip
    await send({"type": "http.response.body", "body": body})
