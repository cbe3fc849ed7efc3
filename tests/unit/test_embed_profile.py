"""Profiles key vector compatibility; the model table supplies the right prefixes."""

from __future__ import annotations

import numpy as np
import pytest

from repolens.embed import (
    DimensionMismatchError,
    EmbeddingError,
    EmbeddingProfile,
    MalformedReplyError,
    create_provider,
)
from repolens.embed.base import check_vectors
from repolens.embed.models import lookup, normalise_name


def test_key_is_stable_and_names_provider_model_dims() -> None:
    profile = EmbeddingProfile("local", "all-MiniLM-L6-v2", 384)
    assert profile.key() == EmbeddingProfile("local", "all-MiniLM-L6-v2", 384).key()
    assert profile.key().startswith("local:all-MiniLM-L6-v2:384:")


@pytest.mark.parametrize(
    "other",
    [
        EmbeddingProfile("ollama", "all-MiniLM-L6-v2", 384),
        EmbeddingProfile("local", "all-MiniLM-L12-v2", 384),
        EmbeddingProfile("local", "all-MiniLM-L6-v2", 256),
        EmbeddingProfile("local", "all-MiniLM-L6-v2", 384, query_prefix="query: "),
        EmbeddingProfile("local", "all-MiniLM-L6-v2", 384, document_prefix="passage: "),
    ],
)
def test_anything_that_changes_vectors_changes_the_key(other: EmbeddingProfile) -> None:
    assert EmbeddingProfile("local", "all-MiniLM-L6-v2", 384).key() != other.key()


def test_prefixes_do_not_collide_when_moved_between_query_and_document() -> None:
    a = EmbeddingProfile("x", "m", 8, query_prefix="q", document_prefix="")
    b = EmbeddingProfile("x", "m", 8, query_prefix="", document_prefix="q")
    assert a.key() != b.key()


def test_window_size_does_not_change_the_key() -> None:
    a = EmbeddingProfile("local", "m", 8, max_tokens=256)
    assert a.key() == EmbeddingProfile("local", "m", 8, max_tokens=128).key()


@pytest.mark.parametrize(
    ("name", "query", "document"),
    [
        ("nomic-embed-text", "search_query: ", "search_document: "),
        ("nomic-embed-text:latest", "search_query: ", "search_document: "),
        ("nomic-ai/nomic-embed-text-v1.5", "search_query: ", "search_document: "),
        ("intfloat/e5-base-v2", "query: ", "passage: "),
        ("multilingual-e5-small", "query: ", "passage: "),
        ("BAAI/bge-small-en-v1.5", "Represent this sentence for searching relevant passages: ", ""),
        ("mxbai-embed-large:335m", "Represent this sentence for searching relevant passages: ", ""),
        ("all-minilm:l6-v2", "", ""),
        ("some-unknown-model", "", ""),
    ],
)
def test_known_prefixes(name: str, query: str, document: str) -> None:
    known = lookup(name)
    assert (known.query_prefix, known.document_prefix) == (query, document)


def test_normalise_name_drops_org_and_tag() -> None:
    assert normalise_name(" BAAI/BGE-Small-EN-v1.5:latest ") == "bge-small-en-v1.5"


def test_create_provider_applies_known_prefixes_unless_overridden() -> None:
    nomic = create_provider("ollama", "nomic-embed-text")
    assert nomic.profile.query_prefix == "search_query: "
    assert nomic.profile.document_prefix == "search_document: "
    assert nomic.profile.dims == 768
    plain = create_provider("ollama", "nomic-embed-text", query_prefix="", document_prefix="")
    assert (plain.profile.query_prefix, plain.profile.document_prefix) == ("", "")


def test_create_provider_rejects_unknown_provider_and_wrong_local_settings() -> None:
    with pytest.raises(EmbeddingError, match="unknown embedding provider 'qdrant'"):
        create_provider("qdrant")
    with pytest.raises(EmbeddingError, match="ships only all-MiniLM-L6-v2"):
        create_provider("local", "bge-small-en-v1.5")
    with pytest.raises(DimensionMismatchError, match="384"):
        create_provider("local", dims=768)


def test_check_vectors_normalises_and_rejects_bad_vectors() -> None:
    vectors = check_vectors(np.array([[3.0, 4.0]], dtype=np.float32), 2, "test")
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(vectors, [[0.6, 0.8]], rtol=1e-6)
    with pytest.raises(DimensionMismatchError, match="3 dimensions but 2"):
        check_vectors(np.ones((1, 3), dtype=np.float32), 2, "test")
    with pytest.raises(EmbeddingError, match="NaN or infinite"):
        check_vectors(np.array([[1.0, np.nan]], dtype=np.float32), 2, "test")
    with pytest.raises(EmbeddingError, match="all zeros"):
        check_vectors(np.zeros((1, 2), dtype=np.float32), 2, "test")
    with pytest.raises(MalformedReplyError):
        check_vectors(np.ones(3, dtype=np.float32), 0, "test")
