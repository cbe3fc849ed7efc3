"""The embedding job: give every chunk vectors, behind the searchable index.

Search never waits for this (chunks without vectors are found by BM25). The job walks
chunks that have no windows yet, most useful first (``priority``: definitions in the
project's own code before tests, generated and vendored files; public and documented
symbols before the rest), splits each into windows the model can read, takes vectors
from the cache where the same text was embedded before (moved code, another branch, an
undo), embeds the rest, and commits per batch, so it can stop at any moment and resume
where it left off. The memory-mapped matrix that search reads is brought up to date every
``REFRESH_SECONDS`` and at the end, so a search during a long first run already ranks by
meaning over what is embedded so far.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from sqlite3 import Connection
from typing import Any

from repolens.embed.base import EmbeddingError, EmbeddingProvider
from repolens.embed.runtimes import Runtime
from repolens.store.chunks import purge_deleted_chunks, text_hash
from repolens.store.db import get_meta, set_meta, transaction
from repolens.store.embeddings import (
    bump_generation,
    cached_hashes,
    effective_key,
    embedded_share,
    encode_vectors,
    generation,
    profile_status,
    set_effective_profile,
    store_encoded,
)
from repolens.store.shared import SharedStore
from repolens.store.vectors import (
    matrix_is_current,
    remove_matrices,
    window_count,
    write_matrix,
)

__all__ = [
    "EmbedStats",
    "ProfilePendingError",
    "coverage_note",
    "embed_pending",
    "embedded_share",
    "profile_status",
]


REFRESH_SECONDS = 15.0
"""How often a running job publishes its vectors to search (a matrix rewrite reads only
the rows added since the last one)."""

OUTSIDE_DEFINITIONS = frozenset({"preamble", "module", "text", "section"})
"""Chunk kinds that hold no definition: a module's imports and top-level code, a text
file, a markdown section."""


def priority(
    role: str, kind: str, names: str, visibility: str | None, exported: int | None,
    docstring: str | None,
) -> int:  # fmt: skip
    """Lower is embedded sooner: a chunk of tests, generated or vendored code (``role``)
    after every chunk of the project's own code; text outside any definition after
    definitions; private or unexported symbols after public ones (a chunk of merged
    neighbours, which has no one symbol, is private when all its names are); undocumented
    after documented (merged chunks count as undocumented). Ties go in id order."""
    simple = [name.rsplit(".", 1)[-1] for name in names.split("\n") if name]
    if visibility is not None:
        private = visibility != "public" or not exported
    else:
        private = bool(simple) and all(name.startswith("_") for name in simple)
    return 8 * bool(role) + 4 * (kind in OUTSIDE_DEFINITIONS) + 2 * private + (not docstring)


MAX_HEADER_NAMES = 3
MIN_PART_LINES = 3
_LAST_SEGMENT = re.compile(r"\.|::|#")
_CAMEL_BREAK = re.compile(r"([a-z0-9])([A-Z])|([A-Z])([A-Z][a-z])")
_WORD_BREAK = re.compile(r"[._:#\-]+")
_UNEMBEDDED = " AND NOT EXISTS (SELECT 1 FROM chunk_windows w WHERE w.chunk_id = c.id)"


class ProfilePendingError(EmbeddingError):
    """The provider's profile differs from the one the index was embedded with."""


@dataclass(slots=True)
class EmbedStats:
    """What one run did. ``embedded`` counts texts sent to the provider; ``cache_hits``
    windows whose vector was already stored under the same text and model, in this
    index or (``shared_hits``, a part of them) in the store its repository's worktrees
    and branches share."""

    chunks: int = 0
    windows: int = 0
    cache_hits: int = 0
    shared_hits: int = 0
    embedded: int = 0
    provider_calls: int = 0
    batches: int = 0
    remaining: int = 0
    runtime: str = ""
    matrix_rows: int = 0
    matrix_rebuilt: bool = False
    cancelled: bool = False
    seconds: float = 0.0


@dataclass(slots=True)
class _Window:
    chunk_id: int
    ordinal: int
    text: str
    hash: str


def embed_pending(
    conn: Connection,
    data_dir: Path,
    provider: EmbeddingProvider,
    *,
    progress: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    batch_size: int | None = None,
    reset: bool = False,
    only_paths: frozenset[str] | None = None,
    shared: SharedStore | None = None,
) -> EmbedStats:
    """Embed every chunk that has no vectors under the provider's profile (``only_paths``:
    only those of these files; a team index holds the vectors of the others). Vectors
    this index lacks are looked for in ``shared``, the store of its repository's other
    worktrees and branches, before the provider is asked, and those it computes are put
    there.

    ``reset=True`` switches the index to the provider's profile (dropping the windows of
    the old one; cached vectors stay for a switch back). Without it a different profile
    raises :class:`ProfilePendingError` rather than mixing incomparable vectors.
    ``progress(done, total)`` counts chunks; ``should_stop()`` is checked per batch of
    ``batch_size`` chunks (committed together; see ``batch_chunks`` for the default).
    """
    started, stats = time.monotonic(), EmbedStats()
    profile = provider.profile
    runtime = getattr(provider, "runtime", None)
    stats.runtime = runtime.name if runtime is not None else profile.provider
    switch = _profile_switch(conn, provider, reset)
    if shared is not None:
        offer_vectors(conn, shared)
    done, total = embedded_share(conn, profile.key())
    done = 0 if switch else done
    size = max(1, batch_size or batch_chunks(runtime))
    # while switching, every chunk is redone: its windows are the old profile's
    order = pending_chunks(conn, every=switch)
    if only_paths is not None:
        order = _in_files(conn, order, only_paths)
    published = time.monotonic()
    try:
        for batch, windows in _windowed_ahead(conn, provider, order, size, every=switch):
            if should_stop and should_stop():
                break
            if not batch:
                continue
            _embed_batch(conn, provider, batch, windows, stats, switch=switch, shared=shared)
            if switch:
                remove_matrices(data_dir)
                switch = False
            done += len(batch)
            if progress:
                progress(done, max(total, done))
            if time.monotonic() - published > REFRESH_SECONDS:
                _refresh_matrix(conn, data_dir, provider, stats)
                published = time.monotonic()
        stats.cancelled = bool(should_stop and should_stop())
    finally:
        _refresh_matrix(conn, data_dir, provider, stats)
    stats.remaining = total - embedded_share(conn, profile.key())[0]
    stats.seconds = time.monotonic() - started
    return stats


def batch_chunks(runtime: Runtime | None) -> int:
    """Chunks per batch: a batch's windows go to the provider in one call, and an engine
    that pads its inputs (every runtime but numpy's packed one) batches them by length
    within that call, so the larger the call, the less it pads. Measured on this
    repository's windows: calls of 64 windows padded to 1.48x the real word pieces, of
    192 (64 chunks) to 1.27x, of 768 (256 chunks) to 1.08x. A batch is also what a stop
    waits for: 256 chunks take a few seconds in those engines, 64 as long in numpy,
    which never pads."""
    return 256 if runtime is not None and runtime.padded else 64


SEEDED_KEY = "shared_store_seeded"  # the store this index's vectors were offered to
SEED_ROWS = 4096


def offer_vectors(conn: Connection, shared: SharedStore) -> int:
    """Offer the index's vectors to its repository's shared store once (returns how many):
    an index embedded before the store existed, or before it joined this store, seeds it,
    so that the next worktree embeds nothing it already holds. Later vectors are offered
    as they are computed (``_embed_batch``)."""
    if get_meta(conn, SEEDED_KEY) == str(shared.path):
        return 0
    offered = 0
    key = effective_key(conn)  # None: no vector yet, each will be offered as it is made
    if key is not None:
        rows = conn.execute(
            "SELECT text_hash, vector FROM embeddings WHERE model_key = ?"
            " AND text_hash IN (SELECT text_hash FROM chunk_windows)",
            (key,),
        )
        while part := rows.fetchmany(SEED_ROWS):
            shared.put_vectors(key, part)
            offered += len(part)
    with transaction(conn):
        set_meta(conn, SEEDED_KEY, str(shared.path))
    return offered


def coverage_note(done: int, total: int) -> str:
    """One line for a search while embedding is under way ('' once it is complete):
    how much of the index only keywords can find."""
    if done >= total:
        return ""
    keyword_only = 100 * (total - done) / total
    return (
        f"keyword only for {keyword_only:.0f}% of chunks ({total - done:,} of {total:,}"
        " not embedded yet; the most useful come first)"
    )


def pending_chunks(conn: Connection, *, every: bool = False) -> list[int]:
    """Ids of the chunks without windows (``every``: all chunks), in the order they are
    embedded (``priority``)."""
    rows = conn.execute(
        "SELECT c.id, c.role, c.kind, c.names, s.visibility, s.is_exported, s.docstring"
        " FROM chunks c LEFT JOIN symbols s ON s.id = c.symbol_id"
        f" WHERE 1{'' if every else _UNEMBEDDED} ORDER BY c.id"
    ).fetchall()
    rows.sort(key=lambda row: priority(*row[1:]))  # stable: ids stay in order within a tier
    return [row[0] for row in rows]


def _in_files(conn: Connection, ids: list[int], paths: frozenset[str]) -> list[int]:
    """``ids`` of chunks in files at ``paths``, in order."""
    inside = {
        row[0]
        for row in conn.execute(
            "SELECT c.id FROM chunks c JOIN files f ON f.id = c.file_id"
            " WHERE f.path IN (SELECT value FROM json_each(?))",
            (json.dumps(sorted(paths)),),
        )
    }
    return [i for i in ids if i in inside]


def _chunk_rows(conn: Connection, ids: list[int], *, every: bool = False) -> list[Any]:
    """The rows of ``ids`` still present and (unless ``every``) still without windows, in
    ``ids`` order (an update may have replaced some since the order was taken)."""
    marks = ",".join("?" * len(ids))
    rows = conn.execute(
        f"SELECT id, start_line, text, names, parts FROM chunks c WHERE id IN ({marks})"
        f"{'' if every else _UNEMBEDDED}",
        ids,
    ).fetchall()
    by_id = {row[0]: row for row in rows}
    return [by_id[i] for i in ids if i in by_id]


def _profile_switch(conn: Connection, provider: EmbeddingProvider, reset: bool) -> bool:
    """Whether this run makes the provider's profile the index's (none yet, or ``reset``).

    The switch itself is committed with the first batch of vectors, never before: a
    provider that fails on its first call (a server that is down) must not leave the
    index recorded as embedded with a profile of which no vector exists."""
    profile = provider.profile
    with transaction(conn):
        purge_deleted_chunks(conn)
        status = profile_status(conn, profile)
    if status["pending"] and not reset:
        effective = status["effective"]["key"] if status["effective"] else "none"
        raise ProfilePendingError(
            f"the index was embedded with {effective}, not {profile.key()}; re-embed"
            " everything with the new profile (`repolens index --reembed`) to switch"
        )
    return reset or status["effective"] is None


def _windowed_ahead(
    conn: Connection, provider: EmbeddingProvider, order: list[int], size: int, *, every: bool
) -> Iterator[tuple[list[Any], list[_Window]]]:
    """Batches of ``size`` chunks in ``order`` with their windows, the next batch windowed
    on a thread of its own while the caller embeds this one: windowing is tokenizer and
    Python work, which the engine's wait for its own threads leaves room for. Rows are
    read here, on the caller's thread, which owns the connection."""
    with ThreadPoolExecutor(1, thread_name_prefix="repolens-window") as windower:
        previous: tuple[list[Any], Future[list[_Window]]] | None = None
        for start in range(0, len(order), size):
            rows = _chunk_rows(conn, order[start : start + size], every=every)
            current = rows, windower.submit(_windows_of, provider, rows)
            if previous is not None:
                yield previous[0], previous[1].result()
            previous = current
        if previous is not None:
            yield previous[0], previous[1].result()


def _windows_of(provider: EmbeddingProvider, rows: list[Any]) -> list[_Window]:
    documents = chunk_documents(provider, [row[1:] for row in rows]) if rows else []
    return [
        _Window(row[0], ordinal, window, text_hash(window))
        for row, texts in zip(rows, documents, strict=True)
        for ordinal, window in enumerate(texts)
    ]


def _embed_batch(
    conn: Connection,
    provider: EmbeddingProvider,
    batch: list[Any],
    windows: list[_Window],
    stats: EmbedStats,
    *,
    switch: bool = False,
    shared: SharedStore | None = None,
) -> None:
    """Embed what the caches lack of one batch of chunks' ``windows``, and record it
    atomically; with ``switch``, the profile change too (old windows dropped, the new
    profile set). The vectors computed are offered to ``shared`` once committed here."""
    key = provider.profile.key()
    cached = cached_hashes(conn, (w.hash for w in windows), key)
    missing = {w.hash: w.text for w in windows if w.hash not in cached}
    borrowed = shared.vectors(missing, key) if shared is not None and missing else {}
    missing = {digest: text for digest, text in missing.items() if digest not in borrowed}
    hashes, texts = list(missing), list(missing.values())
    # one call, so that an engine padding its inputs batches them by length: see batch_chunks
    computed = encode_vectors(provider.embed_documents(texts)) if texts else []
    stats.provider_calls += bool(texts)
    with transaction(conn):
        if switch:
            conn.execute("DELETE FROM chunk_windows")
            set_effective_profile(conn, provider.profile)
        store_encoded(conn, key, [*hashes, *borrowed], [*computed, *borrowed.values()])
        conn.executemany(
            "INSERT OR REPLACE INTO chunk_windows(chunk_id, ordinal, text_hash)"
            " SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM chunks WHERE id = ?)",
            [(w.chunk_id, w.ordinal, w.hash, w.chunk_id) for w in windows],
        )
        bump_generation(conn)
    if shared is not None:
        shared.put_vectors(key, zip(hashes, computed, strict=True))
    stats.chunks += len(batch)
    stats.windows += len(windows)
    stats.cache_hits += len(windows) - sum(1 for w in windows if w.hash in missing)
    stats.shared_hits += sum(1 for w in windows if w.hash in borrowed)
    stats.embedded += len(texts)
    stats.batches += 1


def chunk_documents(
    provider: EmbeddingProvider, chunks: Sequence[tuple[int, str, str, str]]
) -> list[list[str]]:
    """The texts embedded for each chunk, given as (start line, text, names, parts): its
    dense score is the best of them.

    Neighbours merged into one chunk are embedded apart, so that three small functions
    are three precise vectors rather than one blurred one; each text is headed by the
    names it shows, and cut into windows the model can read whole. The chunks are
    windowed together (one provider call for them all).
    """
    headed: list[list[str]] = []
    for start_line, text, names, parts in chunks:
        all_names = [name for name in names.split("\n") if name]
        documents = []
        for part in _split_parts(text, start_line, parts):
            shown = [n for n in all_names if _mentions(part, n)] or all_names
            documents.append(_document(part, shown))
        headed.append(documents)
    windows = iter(provider.windows([doc for documents in headed for doc in documents]))
    return [
        [window for doc in documents for window in _trimmed(next(windows), doc)]
        or [chunk[1].strip()]
        for chunk, documents in zip(chunks, headed, strict=True)
    ]


def _mentions(text: str, name: str) -> bool:
    simple = _LAST_SEGMENT.split(name)[-1]
    if simple not in text:  # most names are absent: no pattern to build for them
        return False
    return re.search(rf"(?<!\w){re.escape(simple)}(?!\w)", text) is not None


def _split_parts(text: str, start_line: int, parts: str) -> list[str]:
    """The chunk's text cut where merged neighbours begin; a part of fewer than
    ``MIN_PART_LINES`` non-blank lines (a constant, a one-line helper) stays with the
    part after it."""
    lines = text.split("\n")
    cuts = [int(p) - start_line for p in parts.split() if 0 < int(p) - start_line < len(lines)]
    pieces, begin = [], 0
    for cut in [*cuts, len(lines)]:
        if sum(1 for line in lines[begin:cut] if line.strip()) >= MIN_PART_LINES:
            pieces.append("\n".join(lines[begin:cut]))
            begin = cut
    if begin < len(lines):  # a short tail joins the part before it
        tail = "\n".join(lines[begin:])
        pieces = [*pieces[:-1], f"{pieces[-1]}\n{tail}"] if pieces else [tail]
    return pieces


def _document(text: str, names: list[str]) -> str:
    """A text under a line naming its symbols in words (``HelpFormatter.write_dl`` ->
    ``help formatter write dl``), so that a model trained on prose can match a query by
    name, and a piece of a long function still says whose it is. Names, unlike paths and
    line numbers, move with the code."""
    shown = names[:MAX_HEADER_NAMES]
    header = " ".join(_WORD_BREAK.sub(" ", _CAMEL_BREAK.sub(_spaced, n)) for n in shown)
    words = " ".join(header.lower().split())
    return f"{words}\n{text}" if words else text


def _spaced(match: re.Match[str]) -> str:
    return " ".join(part for part in match.groups() if part)


def _trimmed(windows: list[str], text: str) -> list[str]:
    """The provider's windows of ``text`` without surrounding blank lines, which only
    depend on where the code sits (a moved function must hit the cache whatever blank
    lines came along)."""
    trimmed = [_trim_blank_lines(window) for window in windows]
    return [window for window in trimmed if window] or [text.strip()]


def _trim_blank_lines(text: str) -> str:
    lines = text.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


def _refresh_matrix(
    conn: Connection, data_dir: Path, provider: EmbeddingProvider, stats: EmbedStats
) -> None:
    """Rebuild the mapped matrix unless it already reflects SQLite."""
    profile = provider.profile
    key = profile.key()
    rows, current = window_count(conn), generation(conn)
    stats.matrix_rows = rows
    if not matrix_is_current(data_dir, key, current, rows):
        stats.matrix_rows = write_matrix(conn, data_dir, key, profile.dims, current)
        stats.matrix_rebuilt = True
