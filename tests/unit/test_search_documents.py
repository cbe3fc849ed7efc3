"""What gets embedded for a chunk: merged neighbours apart, named, in readable windows."""

from __future__ import annotations

import pytest

from repolens.embed import EmbeddingProvider, create_provider
from repolens.index.embedding import chunk_documents
from repolens.parse import parse_source
from repolens.parse.chunk import chunk_file

SOURCE = """import os


def read_config(path):
    with open(path) as handle:
        return handle.read()


def config_exists(path):
    full = os.path.expanduser(path)
    return os.path.exists(full)


def remove_config(path):
    if config_exists(path):
        os.remove(path)
"""


@pytest.fixture(scope="module")
def provider() -> EmbeddingProvider:
    return create_provider("local")  # windows() needs only the tokenizer


def test_merged_neighbours_are_embedded_apart(provider: EmbeddingProvider) -> None:
    chunks = chunk_file(SOURCE, "python", parse_source("c.py", "python", SOURCE.encode()))
    merged = next(c for c in chunks if len(c.names) == 3)
    assert merged.parts  # the chunker recorded where each function begins
    (documents,) = chunk_documents(
        provider,
        [
            (
                merged.start_line,
                merged.text,
                "\n".join(merged.names),
                " ".join(map(str, merged.parts)),
            )
        ],
    )
    assert len(documents) == 3
    assert documents[0].startswith("read config\ndef read_config(path):")
    assert documents[1].startswith("config exists\ndef config_exists(path):")
    assert documents[2].split("\n")[0] == "config exists remove config"  # names it mentions
    assert all("def " in d for d in documents)


def test_documents_do_not_depend_on_where_the_chunk_sits(provider: EmbeddingProvider) -> None:
    text = "def a():\n    x = 1\n    return x\n\ndef b():\n    y = 2\n    return y"
    here, there = chunk_documents(provider, [(10, text, "a\nb", "14"), (200, text, "a\nb", "204")])
    assert here == there and len(here) == 2


def test_long_chunks_are_cut_into_windows_the_model_reads_whole(
    provider: EmbeddingProvider,
) -> None:
    text = "\n".join(f"    total_{i} = compute_value(item_{i}, factor={i})" for i in range(60))
    (documents,) = chunk_documents(provider, [(1, text, "Pipeline.run", "")])
    assert len(documents) > 1
    assert all(d.startswith("pipeline run\n") or not d.startswith("pipeline") for d in documents)
    assert documents[0].startswith("pipeline run\n")
    assert all(provider.embed_documents([d]).shape == (1, provider.profile.dims) for d in documents)
