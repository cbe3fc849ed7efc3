"""What we know about popular embedding models: prefixes, dimensions, context.

Many retrieval models were trained with a task prefix ("search_query: ", "query: ") and
lose much of their quality without it, so the right prefixes are applied unless the
user overrides them. Dimensions and context are used when known and otherwise learned
from the first reply (dimensions) or set to a safe default (context).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_BGE_QUERY = "Represent this sentence for searching relevant passages: "


@dataclass(frozen=True, slots=True)
class KnownModel:
    """Settings a model expects; ``None`` means unknown or varying by size."""

    query_prefix: str = ""
    document_prefix: str = ""
    dims: int | None = None
    max_tokens: int | None = None


# Patterns are matched, in order, against the normalised name (see ``normalise_name``).
_KNOWN: tuple[tuple[str, KnownModel], ...] = (
    (r"all-minilm(-l6-v2)?", KnownModel(dims=384, max_tokens=256)),
    (r"nomic-embed-text-v2.*", KnownModel("search_query: ", "search_document: ", 768, 512)),
    (r"nomic-embed-text(-v1(\.5)?)?", KnownModel("search_query: ", "search_document: ", 768, 8192)),
    (r"nomic-embed-code", KnownModel("Represent this query for searching relevant code: ")),
    (r"(multilingual-)?e5-small(-v2)?", KnownModel("query: ", "passage: ", 384, 512)),
    (r"(multilingual-)?e5-base(-v2)?", KnownModel("query: ", "passage: ", 768, 512)),
    (r"(multilingual-)?e5-large(-v2)?", KnownModel("query: ", "passage: ", 1024, 512)),
    (r"bge-small-en(-v1\.5)?", KnownModel(_BGE_QUERY, "", 384, 512)),
    (r"bge-base-en(-v1\.5)?", KnownModel(_BGE_QUERY, "", 768, 512)),
    (r"bge-large-en(-v1\.5)?", KnownModel(_BGE_QUERY, "", 1024, 512)),
    (r"bge-m3", KnownModel(dims=1024, max_tokens=8192)),
    (r"mxbai-embed-large(-v1)?", KnownModel(_BGE_QUERY, "", 1024, 512)),
    (r"snowflake-arctic-embed2|snowflake-arctic-embed-[lm]-v2\.0", KnownModel("query: ")),
    (r"snowflake-arctic-embed(-l|-m|-s|-xs)?(-v1\.5)?", KnownModel(_BGE_QUERY)),
    (r"embeddinggemma.*", KnownModel("task: search result | query: ", "title: none | text: ")),
    (r"text-embedding-3-small", KnownModel(dims=1536, max_tokens=8191)),
    (r"text-embedding-3-large", KnownModel(dims=3072, max_tokens=8191)),
    (r"text-embedding-ada-002", KnownModel(dims=1536, max_tokens=8191)),
    (r"gemini-embedding-001", KnownModel(dims=3072, max_tokens=2048)),
    (r"text-embedding-004", KnownModel(dims=768, max_tokens=2048)),
)


def normalise_name(model: str) -> str:
    """Lower-case model name without an organisation (``BAAI/``) or Ollama tag (``:latest``)."""
    name = model.strip().lower().rsplit("/", 1)[-1]
    return name.split(":", 1)[0]


def lookup(model: str) -> KnownModel:
    """Known settings of ``model``, or an empty ``KnownModel`` for a model we do not know."""
    name = normalise_name(model)
    for pattern, known in _KNOWN:
        if re.fullmatch(pattern, name):
            return known
    return KnownModel()
