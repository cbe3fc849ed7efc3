"""Ollama and OpenAI-compatible providers against a real HTTP server on 127.0.0.1.

The server speaks both wire formats (Ollama ``POST /api/embed``, OpenAI
``POST /v1/embeddings``) and can be scripted to fail: slow replies, HTTP errors,
malformed bodies, vectors of the wrong size.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import run_repolens
from repolens.embed import (
    DimensionMismatchError,
    EmbeddingError,
    EmbeddingTimeoutError,
    MalformedReplyError,
    ServerReplyError,
    ServerUnavailableError,
    create_provider,
)
from repolens.embed.http import RetryPolicy
from repolens.embed.ollama import OllamaProvider
from repolens.embed.openai_compat import OpenAICompatibleProvider

FAST_RETRY = RetryPolicy(retries=2, backoff=0.01)


def fake_vector(text: str, dims: int) -> list[float]:
    """A deterministic, deliberately unnormalised vector for ``text``."""
    digest = hashlib.sha256(text.encode()).digest() * (dims // 32 + 1)
    return [float(byte) - 127.5 for byte in digest[:dims]]


def unit(vector: list[float]) -> np.ndarray:
    array = np.asarray(vector, dtype=np.float32)
    return array / np.linalg.norm(array)


@dataclass
class Reply:
    """One scripted answer; ``body=None`` means answer correctly for the request."""

    status: int = 200
    body: Any = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class FakeEmbeddingServer:
    def __init__(self, dims: int) -> None:
        self.dims = dims
        self.script: list[Reply] = []
        self.seen: list[Seen] = []
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        reply = self.script.pop(0) if self.script else Reply()
        time.sleep(reply.delay)
        if reply.body is not None:
            return reply.status, reply.body, reply.headers
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        vectors = [fake_vector(text, self.dims) for text in texts]
        if path == "/api/embed":
            return 200, {"model": body["model"], "embeddings": vectors}, {}
        if path == "/v1/embeddings":
            data = [
                {"object": "embedding", "embedding": vector, "index": index}
                for index, vector in enumerate(vectors)
            ]
            # Servers may answer out of order; the index says where each belongs.
            return 200, {"object": "list", "data": data[::-1], "model": body["model"]}, {}
        return 404, {"error": f"404 page not found: {path}"}, {}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                server.seen.append(Seen(self.path, dict(self.headers), body))
                status, reply, headers = server.answer(self.path, body)
                raw = reply if isinstance(reply, bytes) else json.dumps(reply).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(raw)))
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(raw)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout tests)

            def log_message(self, *args: object) -> None:
                pass

        return Handler


@pytest.fixture
def server() -> Iterator[FakeEmbeddingServer]:
    fake = FakeEmbeddingServer(dims=768)
    fake.start()
    yield fake
    fake.stop()


def ollama(server: FakeEmbeddingServer, **options: Any) -> OllamaProvider:
    options.setdefault("retry", FAST_RETRY)
    return OllamaProvider(options.pop("model", "nomic-embed-text"), base_url=server.url, **options)


def openai(server: FakeEmbeddingServer, **options: Any) -> OpenAICompatibleProvider:
    options.setdefault("retry", FAST_RETRY)
    model = options.pop("model", "text-embedding-3-small")
    return OpenAICompatibleProvider(model, base_url=server.url + "/v1", **options)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# -- Ollama ------------------------------------------------------------------------------


def test_ollama_embeds_with_known_prefixes_over_the_wire(server: FakeEmbeddingServer) -> None:
    provider = create_provider("ollama", "nomic-embed-text", base_url=server.url)
    vectors = provider.embed_documents(["def f(): pass", "class A: ..."])
    query = provider.embed_query("where is f")

    assert server.seen[0].path == "/api/embed"
    assert server.seen[0].body == {
        "model": "nomic-embed-text",
        "input": ["search_document: def f(): pass", "search_document: class A: ..."],
    }
    assert server.seen[1].body["input"] == ["search_query: where is f"]
    assert vectors.shape == (2, 768)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(vectors[1], unit(fake_vector("search_document: class A: ...", 768)))
    np.testing.assert_allclose(query, unit(fake_vector("search_query: where is f", 768)))
    assert provider.profile.key().startswith("ollama:nomic-embed-text:768:")


def test_ollama_batches_large_inputs_in_order(server: FakeEmbeddingServer) -> None:
    provider = ollama(server, document_prefix="")
    texts = [f"chunk {i}" for i in range(150)]
    vectors = provider.embed_documents(texts)

    assert [len(seen.body["input"]) for seen in server.seen] == [64, 64, 22]
    expected = np.stack([unit(fake_vector(text, 768)) for text in texts])
    np.testing.assert_allclose(vectors, expected, rtol=1e-6)


def test_ollama_server_down_says_what_to_start() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    provider = create_provider("ollama", "nomic-embed-text", base_url=url)
    with pytest.raises(ServerUnavailableError) as error:
        provider.embed_documents(["x"])
    message = str(error.value)
    assert f"{url}/api/embed" in message
    assert "ollama serve" in message
    assert "ollama pull nomic-embed-text" in message


def test_ollama_model_not_found_surfaces_the_server_message(server: FakeEmbeddingServer) -> None:
    server.script = [Reply(404, {"error": 'model "nomic-embed-text" not found, try pulling it'})]
    with pytest.raises(ServerReplyError, match="not found, try pulling it") as error:
        ollama(server).embed_documents(["x"])
    assert error.value.status == 404
    assert len(server.seen) == 1  # a 404 is not retried


def test_ollama_wrong_dimension_for_a_known_model(server: FakeEmbeddingServer) -> None:
    server.dims = 512
    with pytest.raises(DimensionMismatchError, match="512 dimensions but 768"):
        ollama(server).embed_documents(["x"])


def test_unknown_model_learns_dims_then_enforces_them(server: FakeEmbeddingServer) -> None:
    server.dims = 16
    provider = ollama(server, model="my-custom-embedder")
    assert provider.profile.dims == 16  # one probe request
    assert len(server.seen) == 1
    assert provider.profile.key().startswith("ollama:my-custom-embedder:16:")
    server.dims = 8
    with pytest.raises(DimensionMismatchError, match="8 dimensions but 16"):
        provider.embed_documents(["y"])


def test_explicit_dims_are_enforced(server: FakeEmbeddingServer) -> None:
    server.dims = 16
    provider = create_provider("ollama", "my-custom-embedder", base_url=server.url, dims=32)
    with pytest.raises(DimensionMismatchError, match="16 dimensions but 32"):
        provider.embed_documents(["x"])


def test_timeout_is_reported_as_such(server: FakeEmbeddingServer) -> None:
    server.script = [Reply(delay=1.0)]
    provider = ollama(server, timeout=0.2)
    started = time.monotonic()
    with pytest.raises(EmbeddingTimeoutError, match=r"did not answer within 0\.2 s"):
        provider.embed_documents(["x"])
    assert time.monotonic() - started < 1.0


@pytest.mark.parametrize(
    ("body", "match"),
    [
        ({"model": "m"}, "without 'embeddings'"),
        ({"embeddings": [[1.0, 2.0]] * 3}, "returned 3 vectors for 2 texts"),
        ({"embeddings": "nope"}, "returned str vectors for 2 texts"),
        ({"embeddings": [[1.0, "a"], [1.0, 2.0]]}, "not equal-length lists of numbers"),
        ({"embeddings": [[1.0, 2.0], [1.0]]}, "not equal-length lists of numbers"),
        ({"embeddings": [[], []]}, "empty vectors"),
        (b"<html>502 Bad Gateway</html>", "did not reply with JSON"),
    ],
)
def test_malformed_replies(server: FakeEmbeddingServer, body: Any, match: str) -> None:
    server.script = [Reply(200, body)]
    with pytest.raises(MalformedReplyError, match=match):
        ollama(server, model="unknown-model").embed_documents(["a", "b"])


def test_non_finite_values_are_refused(server: FakeEmbeddingServer) -> None:
    server.script = [Reply(200, b'{"embeddings": [[1.0, NaN], [1.0, 2.0]]}')]
    with pytest.raises(EmbeddingError, match="vector 0 holds NaN"):
        ollama(server, model="unknown-model").embed_documents(["a", "b"])


def test_http_500_then_success_is_retried(server: FakeEmbeddingServer) -> None:
    server.script = [Reply(500, {"error": "llama runner process has terminated"})]
    vectors = ollama(server).embed_documents(["x"])
    assert len(server.seen) == 2
    assert vectors.shape == (1, 768)


def test_429_honours_retry_after(server: FakeEmbeddingServer) -> None:
    server.script = [Reply(429, {"error": "busy"}, headers={"Retry-After": "0"})]
    assert ollama(server).embed_documents(["x"]).shape == (1, 768)
    assert len(server.seen) == 2


def test_persistent_500_gives_up_with_the_server_message(server: FakeEmbeddingServer) -> None:
    server.script = [Reply(503, {"error": "model is loading"}) for _ in range(3)]
    with pytest.raises(ServerReplyError, match=r"HTTP 503: model is loading .*after 2 retries"):
        ollama(server).embed_documents(["x"])
    assert len(server.seen) == 3


def test_remote_windows_fit_max_chars_with_prefix(server: FakeEmbeddingServer) -> None:
    provider = ollama(server, max_chars=300)
    text = "".join(f"line {i}: some code here\n" for i in range(100))
    windows = provider.windows([text])[0]
    assert len(windows) > 5
    prefix = provider.profile.document_prefix
    assert all(len(prefix + window) <= 300 for window in windows)
    assert {line for w in windows for line in w.splitlines()} == set(text.splitlines())


def test_remote_default_window_is_four_chars_per_token_or_2000() -> None:
    assert OllamaProvider("mxbai-embed-large").max_chars == 4 * 512
    assert OllamaProvider("who-knows").max_chars == 2000
    assert OllamaProvider("who-knows", max_chars=500).max_chars == 500


# -- OpenAI-compatible -------------------------------------------------------------------


def test_openai_sends_key_and_sorts_by_index(server: FakeEmbeddingServer) -> None:
    server.dims = 1536
    provider = create_provider(
        "openai", "text-embedding-3-small", base_url=server.url + "/v1", api_key="sk-test"
    )
    texts = ["alpha", "beta", "gamma"]
    vectors = provider.embed_documents(texts)

    seen = server.seen[0]
    assert seen.path == "/v1/embeddings"
    assert seen.headers["Authorization"] == "Bearer sk-test"
    assert seen.body == {"model": "text-embedding-3-small", "input": texts}
    expected = np.stack([unit(fake_vector(text, 1536)) for text in texts])
    np.testing.assert_allclose(vectors, expected, rtol=1e-6)
    assert provider.profile.key().startswith("openai:text-embedding-3-small:1536:")


def test_openai_401_message_is_surfaced(server: FakeEmbeddingServer) -> None:
    error_body = {
        "error": {
            "message": "Incorrect API key provided: sk-wrong.",
            "type": "invalid_request_error",
            "code": "invalid_api_key",
        }
    }
    server.script = [Reply(401, error_body)]
    with pytest.raises(ServerReplyError) as error:
        openai(server, api_key="sk-wrong").embed_documents(["x"])
    assert error.value.status == 401
    assert "Incorrect API key provided: sk-wrong." in str(error.value)
    assert "check the API key" in str(error.value)
    assert len(server.seen) == 1


def test_openai_requests_shorter_vectors_when_dims_given(server: FakeEmbeddingServer) -> None:
    server.dims = 256
    provider = openai(server, dims=256)
    assert provider.embed_query("find the parser").shape == (256,)
    assert server.seen[0].body["dimensions"] == 256


def test_openai_compatible_local_server_without_key(
    server: FakeEmbeddingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server.dims = 1024
    provider = openai(server, model="BAAI/bge-large-en-v1.5")
    provider.embed_query("http client retry")
    seen = server.seen[0]
    assert "Authorization" not in seen.headers
    assert "dimensions" not in seen.body
    assert seen.body["input"] == [
        "Represent this sentence for searching relevant passages: http client retry"
    ]


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ([{"embedding": [1.0, 2.0]}], "without 'embedding' and an integer 'index'"),
        ([{"embedding": [1.0, 2.0], "index": 3}], "indices that are not 0..0"),
        (None, "without a 'data' list"),
    ],
)
def test_openai_malformed_data(server: FakeEmbeddingServer, data: Any, match: str) -> None:
    server.script = [Reply(200, {"object": "list", "data": data})]
    with pytest.raises(MalformedReplyError, match=match):
        openai(server, model="unknown").embed_documents(["x"])


def test_openai_wrong_base_url_hint(server: FakeEmbeddingServer) -> None:
    provider = OpenAICompatibleProvider("m", base_url=server.url, retry=FAST_RETRY)  # no /v1
    with pytest.raises(ServerReplyError, match=r"HTTP 404.*check the base URL"):
        provider.embed_documents(["x"])


def test_openai_server_down() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(ServerUnavailableError, match=rf"{url}/embeddings.*usually ends in /v1"):
        create_provider("openai", "m", base_url=url, api_key="k").embed_query("x")


# -- The index's profile, through the real command line ---------------------------------

PYAPP = Path(__file__).parents[1] / "fixtures" / "query" / "pyapp"


def test_a_provider_that_fails_pins_no_profile_and_reembed_switches(
    tmp_path: Path, server: FakeEmbeddingServer
) -> None:
    """A first index whose provider is down records no profile (the next plain `index`
    embeds with whatever is configured); a changed provider is refused with advice that
    works: `repolens index --reembed` embeds every chunk again under the new profile."""
    root = tmp_path / "pyapp"
    shutil.copytree(PYAPP, root)
    down = {"REPOLENS_EMBED_PROVIDER": "ollama",
            "REPOLENS_EMBED_BASE_URL": f"http://127.0.0.1:{free_port()}"}  # fmt: skip
    failed = run_repolens(root, "index", **down)
    assert failed.returncode == 1 and "cannot connect to Ollama" in failed.stderr
    assert "Embeddings: 0/" in run_repolens(root, "status", **down).stdout

    local = run_repolens(root, "index", "--json")
    assert local.returncode == 0, local.stdout + local.stderr
    first = json.loads(local.stdout)["embed"]
    assert first["embedded"] > 0 and first["remaining"] == 0
    shown = run_repolens(root, "status").stdout  # the embedded share, in text too
    assert f"Embeddings: {first['chunks']}/{first['chunks']} chunks (100%)" in shown

    up = {"REPOLENS_EMBED_PROVIDER": "ollama", "REPOLENS_EMBED_BASE_URL": server.url}
    refused = run_repolens(root, "index", **up)
    assert refused.returncode == 1 and "`repolens index --reembed`" in refused.stderr
    assert not server.seen  # nothing embedded under the new profile before it is asked for

    switched = run_repolens(root, "index", "--reembed", "--json", **up)
    assert switched.returncode == 0, switched.stdout + switched.stderr
    embed = json.loads(switched.stdout)["embed"]
    assert embed["chunks"] == first["chunks"] and embed["remaining"] == 0
    assert server.seen and all(seen.path == "/api/embed" for seen in server.seen)
    again = run_repolens(root, "index", "--json", **up)  # now the index's own profile
    assert again.returncode == 0 and json.loads(again.stdout)["embed"]["chunks"] == 0
