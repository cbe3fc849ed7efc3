"""The embedding cache and the effective embedding profile.

Vectors are cached by ``(text_hash, model_key)``: a window of text embedded once under a
model is never embedded again, wherever the code moves and across branches. The
*effective* profile is the one the stored chunk windows were made with; a different
requested profile stays pending until an explicit re-embed, so vectors of two models are
never mixed in one index.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import asdict
from typing import Any

import numpy as np
import numpy.typing as npt

from repolens.embed.base import EmbeddingProfile
from repolens.parse.chunk import CHUNKER_VERSION
from repolens.store.db import get_meta, set_meta

PROFILE_META_KEY = "embedding_profile"
GENERATION_META_KEY = "dense_generation"
STORED_DTYPE = np.float16  # halves the cache; scores are computed in float32

F32 = npt.NDArray[np.float32]


def profile_record(profile: EmbeddingProfile) -> dict[str, Any]:
    """What ``meta`` keeps about a profile: its fields, its key, the chunker version."""
    return {**asdict(profile), "key": profile.key(), "chunker_version": CHUNKER_VERSION}


def effective_profile(conn: sqlite3.Connection) -> dict[str, Any] | None:
    """The profile the stored vectors were made with, or ``None`` while no chunk has any
    (an index left recorded with a profile but no vectors, by a provider that failed on
    its first call in an older version, is free to take any profile)."""
    raw = get_meta(conn, PROFILE_META_KEY)
    if not raw or conn.execute("SELECT 1 FROM chunk_windows LIMIT 1").fetchone() is None:
        return None
    return dict(json.loads(raw))


def effective_key(conn: sqlite3.Connection) -> str | None:
    record = effective_profile(conn)
    return str(record["key"]) if record else None


def set_effective_profile(conn: sqlite3.Connection, profile: EmbeddingProfile) -> None:
    set_meta(conn, PROFILE_META_KEY, json.dumps(profile_record(profile), sort_keys=True))


def profile_status(conn: sqlite3.Connection, requested: EmbeddingProfile) -> dict[str, Any]:
    """``{"effective", "requested", "pending"}``: ``pending`` is true when the requested
    profile makes vectors that cannot be compared with the stored ones; it takes effect
    only through ``embed_pending(..., reset=True)``."""
    effective = effective_profile(conn)
    wanted = profile_record(requested)
    pending = effective is not None and effective["key"] != wanted["key"]
    return {"effective": effective, "requested": wanted, "pending": pending}


def generation(conn: sqlite3.Connection) -> int:
    """Bumped whenever the set of chunk windows with vectors changes."""
    return int(get_meta(conn, GENERATION_META_KEY, "0"))


def bump_generation(conn: sqlite3.Connection) -> int:
    value = generation(conn) + 1
    set_meta(conn, GENERATION_META_KEY, str(value))
    return value


def cached_hashes(conn: sqlite3.Connection, hashes: Iterable[str], model_key: str) -> set[str]:
    """The subset of ``hashes`` that already have a vector under ``model_key``."""
    wanted = list(dict.fromkeys(hashes))
    found: set[str] = set()
    for start in range(0, len(wanted), 500):
        part = wanted[start : start + 500]
        marks = ",".join("?" * len(part))
        found.update(
            row[0]
            for row in conn.execute(
                f"SELECT text_hash FROM embeddings WHERE model_key = ? AND text_hash IN ({marks})",
                (model_key, *part),
            )
        )
    return found


def encode_vectors(vectors: F32) -> list[bytes]:
    """Each vector as the cache stores it (float16 bytes)."""
    return [np.asarray(v, dtype=STORED_DTYPE).tobytes() for v in vectors]


def store_vectors(
    conn: sqlite3.Connection, model_key: str, hashes: Sequence[str], vectors: F32
) -> None:
    store_encoded(conn, model_key, hashes, encode_vectors(vectors))


def store_encoded(
    conn: sqlite3.Connection, model_key: str, hashes: Sequence[str], blobs: Sequence[bytes]
) -> None:
    """Cache ``blobs`` (from ``encode_vectors``, or another index's cache) under their
    texts' ``hashes``."""
    conn.executemany(
        "INSERT OR IGNORE INTO embeddings(text_hash, model_key, vector) VALUES (?,?,?)",
        [(h, model_key, blob) for h, blob in zip(hashes, blobs, strict=True)],
    )


def decode_vectors(blobs: Sequence[bytes], dims: int) -> F32:
    """Stored blobs as a float32 ``(len(blobs), dims)`` array."""
    raw = np.frombuffer(b"".join(blobs), dtype=STORED_DTYPE)
    return raw.reshape(len(blobs), dims).astype(np.float32)


def embedded_share(conn: sqlite3.Connection, profile_key: str) -> tuple[int, int]:
    """(chunks with vectors under ``profile_key``, all chunks), for status."""
    total = int(conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
    if effective_key(conn) != profile_key:
        return 0, total
    done = conn.execute("SELECT count(DISTINCT chunk_id) FROM chunk_windows").fetchone()[0]
    return int(done), total
