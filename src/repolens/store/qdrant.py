"""The Qdrant collection: its schema, its points, and how to reach it.

One collection holds many projects (tenants). Each chunk is one point: a sparse vector
of repolens's own code-aware token stream, weighted per column the way the embedded
BM25 weighs them (symbol names 4x, path 2x, body 1x) and saturated by term frequency and
length like BM25; the server multiplies each term by its IDF (``Modifier.IDF``), so the
lexical leg is BM25 computed where the postings are. The dense side is a *multivector*
of the chunk's window vectors compared by ``MAX_SIM``: with one query vector that is
the best window's cosine, exactly the embedded matrix's dense score.

Payload indexes serve the filters (``path``, ``language``, ``kind``) and the tenant
(``project``, a keyword index with ``is_tenant``: the server keeps each tenant's points
together, so a project's query reads its own segment). A project that outgrows a shared
shard can be moved to one of its own with a user-defined shard key (README, "Search at
scale"); a collection per project is never the default.

Point ids are derived from (project, path, text hash, occurrence), not from SQLite's row
ids, so the same chunk gets the same id on every machine and every re-index: re-sending a
file is idempotent, and a laptop and CI agree on what a chunk is.
"""

from __future__ import annotations

import json
import uuid
import warnings
import zlib
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from repolens.project import Project, default_project_id
from repolens.store.chunks import name_stream, token_stream

if TYPE_CHECKING:
    from typing import TypeAlias

    from qdrant_client import QdrantClient, models

    from repolens.store.qdrant_edge import EdgeClient

    Client: TypeAlias = QdrantClient | EdgeClient

DEFAULT_COLLECTION = "repolens"
SPARSE = "lexical"
DENSE = "dense"
TENANT_FIELD = "project"
KEYWORD_FIELDS = ("path", "language", "kind")
SPARSE_VERSION = "1"  # bump when the sparse encoding changes: the points must be re-sent
COLUMN_WEIGHTS = {"body": 1.0, "names": 4.0, "path": 2.0}  # as the embedded BM25
AVERAGE_TOKENS = {"body": 160.0, "names": 4.0, "path": 4.0}  # fixed: see sparse_vector
BM25_K1, BM25_B = 1.2, 0.75  # FTS5's defaults
_NAMESPACE = uuid.UUID("6f1d7c52-4a0e-4df4-9b7c-2d43b0b5a1e9")


class QdrantUnavailable(Exception):
    """Qdrant cannot be used: the client is not installed, or the server refused."""


class BackendConfigError(Exception):
    """The settings select Qdrant but do not say how to reach it."""


@dataclass(frozen=True, slots=True)
class Target:
    """Where a project's points live: a server (or a directory), a collection and a
    tenant name. ``url`` ``local:DIR`` is the client's embedded mode (one process at a
    time), for tests and trials without a server; ``edge:DIR`` is Qdrant's engine in this
    process (:mod:`repolens.store.qdrant_edge`), for CI and single machines."""

    url: str
    collection: str
    tenant: str
    api_key: str = ""
    ca_bundle: str = ""

    @property
    def label(self) -> str:
        """Identifies the target in the push ledger (never the key)."""
        return f"{self.url}#{self.collection}#{self.tenant}"


def team_tenant(project: Project) -> str:
    """This project's name in the team's collection and graph share."""
    settings = project.settings
    return str(settings.qdrant_tenant or settings.project_id or default_project_id(project.root))


def qdrant_target(project: Project) -> Target:
    """Where this project's points live, from its settings."""
    settings = project.settings
    if not settings.qdrant_url:
        raise BackendConfigError(
            "the Qdrant backend needs a server: set REPOLENS_QDRANT_URL (or qdrant_url in"
            " .repolens.toml), e.g. http://localhost:6333"
        )
    return Target(
        url=settings.qdrant_url,
        collection=settings.qdrant_collection or DEFAULT_COLLECTION,
        tenant=team_tenant(project),
        api_key=settings.qdrant_api_key,
        ca_bundle=settings.qdrant_ca_bundle,
    )


def connect(target: Target) -> Client:
    """A client for ``target`` (HTTPS when the URL says so; ``ca_bundle`` verifies a
    private certificate authority)."""
    if target.url.startswith("edge:"):
        from repolens.store.qdrant_edge import edge_client

        return edge_client(target.url.removeprefix("edge:"))
    try:
        from qdrant_client import QdrantClient
    except ImportError:
        raise QdrantUnavailable(
            "the Qdrant backend needs the qdrant-client package: pip install 'repolens[qdrant]'"
        ) from None
    if target.url == ":memory:":
        return QdrantClient(location=":memory:")
    if target.url.startswith("local:"):
        return QdrantClient(path=target.url.removeprefix("local:"))
    options: dict[str, Any] = {"timeout": 60}
    if target.ca_bundle:
        options["verify"] = target.ca_bundle
    return QdrantClient(url=target.url, api_key=target.api_key or None, **options)


def ensure_collection(client: Client, name: str, dims: int) -> None:
    """Create the collection and its payload indexes unless they exist; refuse one whose
    dense size differs (vectors of two models are never mixed)."""
    from qdrant_client import models

    from repolens.store.qdrant_edge import EdgeClient

    if isinstance(client, EdgeClient):  # an edge shard's schema is fixed when created
        client.ensure_collection(name, dims)
        return

    if client.collection_exists(name):
        info = client.get_collection(name)
        vectors = info.config.params.vectors
        dense = vectors.get(DENSE) if isinstance(vectors, dict) else None
        if dense is None or dense.size != dims:
            size = None if dense is None else dense.size
            raise QdrantUnavailable(
                f"collection {name!r} holds dense vectors of size {size}, this index makes"
                f" {dims}: use another collection (qdrant_collection) for this model"
            )
        return
    client.create_collection(
        name,
        vectors_config={
            DENSE: models.VectorParams(
                size=dims,
                distance=models.Distance.COSINE,
                multivector_config=models.MultiVectorConfig(
                    comparator=models.MultiVectorComparator.MAX_SIM
                ),
            )
        },
        sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
    )
    with warnings.catch_warnings():  # local mode says its filters need no index
        warnings.filterwarnings("ignore", "Payload indexes have no effect", UserWarning)
        client.create_payload_index(
            name,
            TENANT_FIELD,
            models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, is_tenant=True),
        )
        for field in KEYWORD_FIELDS:
            client.create_payload_index(name, field, models.PayloadSchemaType.KEYWORD)


def point_id(tenant: str, path: str, text_hash: str, occurrence: int) -> str:
    """The stable id of a chunk (see module docstring): ``occurrence`` tells apart equal
    chunks of one file."""
    return str(uuid.uuid5(_NAMESPACE, f"{tenant}\0{path}\0{text_hash}\0{occurrence}"))


def manifest_id(tenant: str) -> str:
    """The id of the tenant's manifest point (no vectors, so no search returns it)."""
    return str(uuid.uuid5(_NAMESPACE, f"{tenant}\0manifest"))


def term_index(token: str) -> int:
    """A token's sparse dimension: CRC-32 of its UTF-8 (stable across processes and
    machines, unlike ``hash``). A collision merges two terms' postings, at 2^32 slots a
    handful among a million distinct tokens."""
    return zlib.crc32(token.encode("utf-8", "surrogatepass"))


def sparse_vector(text: str, names: str, path_terms: str) -> tuple[list[int], list[float]]:
    """A chunk's lexical vector: per token, the sum over columns of the column weight
    times BM25's saturated term frequency. The lengths are normalised by fixed averages
    (``AVERAGE_TOKENS``) rather than the corpus's, so a point never needs re-sending as
    the corpus grows; the IDF comes from the server."""
    values: dict[int, float] = {}
    columns = {
        "body": token_stream(text).split(),
        "names": name_stream(names).split(),
        "path": path_terms.split(),
    }
    for column, terms in columns.items():
        if not terms:
            continue
        norm = BM25_K1 * (1 - BM25_B + BM25_B * len(terms) / AVERAGE_TOKENS[column])
        weight = COLUMN_WEIGHTS[column]
        for token, count in Counter(terms).items():
            index = term_index(token)
            saturated = count * (BM25_K1 + 1) / (count + norm)
            values[index] = values.get(index, 0.0) + weight * saturated
    indices = sorted(values)
    return indices, [values[i] for i in indices]


def query_sparse(tokens: Iterable[str]) -> tuple[list[int], list[float]]:
    """The lexical query vector: each searched token once (the server weighs it by IDF)."""
    indices = sorted({term_index(token) for token in tokens})
    return indices, [1.0] * len(indices)


def tenant_filter(tenant: str, **match: Iterable[str]) -> models.Filter:
    """Points of ``tenant`` whose payload ``field`` is one of the values given for it."""
    from qdrant_client import models

    must: list[models.Condition] = [
        models.FieldCondition(key=TENANT_FIELD, match=models.MatchValue(value=tenant))
    ]
    for key, values in match.items():
        must.append(models.FieldCondition(key=key, match=models.MatchAny(any=list(values))))
    return models.Filter(must=must)


def profile_fields(profile: Mapping[str, Any] | None) -> dict[str, Any]:
    """What the manifest records of the index profile: the embedding model's key and
    size, and the sparse encoding's version and constants."""
    return {
        "embedding": json.loads(json.dumps(profile)) if profile else None,
        "sparse": {
            "version": SPARSE_VERSION,
            "weights": COLUMN_WEIGHTS,
            "average_tokens": AVERAGE_TOKENS,
            "k1": BM25_K1,
            "b": BM25_B,
        },
    }
