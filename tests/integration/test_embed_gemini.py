"""The Gemini provider against a server on 127.0.0.1 speaking the Gemini API's wire format
(``models/{model}:batchEmbedContents``, ``x-goog-api-key``), and the embedding prefixes
setting end to end through ``repolens index`` and ``repolens search``."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from repolens.embed import EmbeddingError, create_provider

KEY = "test-key-123"
MODEL = "gemini-embedding-001"


def fake_values(text: str, dims: int) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest() * (dims // 32 + 1)
    return [float(byte) - 127.5 for byte in digest[:dims]]


class FakeGemini:
    """Answers ``POST /v1beta/models/{model}:batchEmbedContents`` as the Gemini API does,
    including its error body for a bad key, and records every request."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                key = self.headers.get("x-goog-api-key")
                auth = self.headers.get("Authorization")
                server.requests.append({"path": self.path, "key": key, "auth": auth, **body})
                status, reply = server.answer(self.path, key, body)
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1beta"

    def answer(self, path: str, key: str | None, body: dict[str, Any]) -> tuple[int, Any]:
        if key != KEY:
            return 400, {"error": {"code": 400, "message": "API key not valid. Please pass a"
                                   " valid API key.", "status": "INVALID_ARGUMENT"}}  # fmt: skip
        model = path.removeprefix("/v1beta/models/").removesuffix(":batchEmbedContents")
        if not path.endswith(":batchEmbedContents") or model != MODEL:
            return 404, {"error": {"code": 404, "message": f"models/{model} is not found",
                                   "status": "NOT_FOUND"}}  # fmt: skip
        out = []
        for request in body["requests"]:
            assert request["model"] == f"models/{MODEL}"
            text = request["content"]["parts"][0]["text"]
            out.append({"values": fake_values(text, request.get("outputDimensionality", 3072))})
        return 200, {"embeddings": out}


@pytest.fixture
def gemini() -> Iterator[FakeGemini]:
    server = FakeGemini()
    yield server
    server.httpd.shutdown()
    server.httpd.server_close()


def test_documents_and_queries_go_with_their_task_type(gemini: FakeGemini) -> None:
    provider = create_provider("gemini", base_url=gemini.base_url, api_key=KEY, dims=16)
    docs = provider.embed_documents(["def pay(order): ...", "class Invoice: ..."])
    query = provider.embed_query("where are invoices paid")
    assert docs.shape == (2, 16) and query.shape == (16,)
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-5)  # shortened: re-normalised
    expected = np.asarray(fake_values("def pay(order): ...", 16), dtype=np.float32)
    assert np.allclose(docs[0], expected / np.linalg.norm(expected), atol=1e-5)  # order kept
    first, second = gemini.requests
    assert first["key"] == KEY and first["auth"] is None  # the key travels as x-goog-api-key
    assert [r["taskType"] for r in first["requests"]] == ["RETRIEVAL_DOCUMENT"] * 2
    assert [r["taskType"] for r in second["requests"]] == ["RETRIEVAL_QUERY"]
    assert first["requests"][0]["outputDimensionality"] == 16
    assert provider.profile.key().startswith(f"gemini:{MODEL}:16:")


def test_a_bad_key_is_an_error_with_the_apis_message(gemini: FakeGemini) -> None:
    provider = create_provider("gemini", base_url=gemini.base_url, api_key="wrong", dims=16)
    with pytest.raises(EmbeddingError, match="API key not valid"):
        provider.embed_documents(["x"])


def test_without_dims_the_models_own_size_is_asked_for(gemini: FakeGemini) -> None:
    provider = create_provider("gemini", base_url=gemini.base_url, api_key=KEY)
    assert provider.profile.dims == 3072  # gemini-embedding-001's size, known without a probe
    assert provider.embed_documents(["x"]).shape == (1, 3072)
    assert "outputDimensionality" not in gemini.requests[0]["requests"][0]


def test_index_and_search_with_gemini_and_custom_prefixes(
    gemini: FakeGemini, tmp_path: Path
) -> None:
    (tmp_path / "billing.py").write_text("def pay_invoice(invoice):\n    return invoice.total\n")
    (tmp_path / "shipping.py").write_text("def ship_parcel(parcel):\n    return parcel.address\n")
    env = {**os.environ, "REPOLENS_EMBED_PROVIDER": "gemini", "REPOLENS_EMBED_MODEL": MODEL,
           "REPOLENS_EMBED_BASE_URL": gemini.base_url, "GEMINI_API_KEY": KEY,
           "REPOLENS_EMBED_DIMS": "32", "REPOLENS_EMBED_QUERY_PREFIX": "find code: ",
           "REPOLENS_EMBED_DOCUMENT_PREFIX": ""}  # fmt: skip

    def repolens(*args: str) -> Any:
        done = subprocess.run([sys.executable, "-m", "repolens", *args, "--json"], cwd=tmp_path,
                              env=env, capture_output=True, text=True, check=True)  # fmt: skip
        return json.loads(done.stdout)

    repolens("index", str(tmp_path))
    documents = [r for req in gemini.requests for r in req["requests"]
                 if r["taskType"] == "RETRIEVAL_DOCUMENT"]  # fmt: skip
    texts = [r["content"]["parts"][0]["text"] for r in documents]
    assert any("def pay_invoice" in t for t in texts)
    assert all(not t.startswith("find code: ") for t in texts)  # an empty document prefix
    found = repolens("search", "pay the invoice", "--project", str(tmp_path))
    assert found["results"], found
    queries = [r for req in gemini.requests for r in req["requests"]
               if r["taskType"] == "RETRIEVAL_QUERY"]  # fmt: skip
    assert queries[-1]["content"]["parts"][0]["text"] == "find code: pay the invoice"
    about = repolens("about", "--project", str(tmp_path))
    assert about["embedding"]["profile_in_index"]["key"].startswith(f"gemini:{MODEL}:32:")
