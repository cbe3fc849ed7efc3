"""Indexing context artifacts: find each one's files, read what changed, embed the rest.

An artifact is stale when its ``[[artifacts]]`` table changed (path or description: its
*signature*) or when one of its files' content hashes did; only those files are parsed,
chunked and embedded again, each in one transaction. Refreshing is cheap when nothing
changed (the files are read and hashed, nothing is written), so every artifact query
refreshes first: artifacts are indexed on first use and never answered stale.

Artifact rows are disjoint from what the code indexer writes, and every refresh checks
hashes against what is stored, so it needs no writer lock: two processes refreshing at
once write the same rows, one after the other (SQLite serialises the transactions).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from repolens.config import ArtifactSpec
from repolens.confine import PathError, confine
from repolens.embed.base import EmbeddingError, EmbeddingProvider
from repolens.index.embedding import chunk_documents
from repolens.index.providers import provider_or_reason
from repolens.parse.artifacts import NOT_OPENAPI, PARSER_VERSION, kind_of, parse_artifact
from repolens.parse.artifacts.model import ParsedArtifact
from repolens.parse.chunk import Chunk, chunk_file
from repolens.parse.model import ParsedFile, Symbol
from repolens.project import DATA_DIR_NAME, Project
from repolens.readfile import read_regular
from repolens.store import artifacts as rows
from repolens.store.chunks import text_hash
from repolens.store.db import StoreError, connect, transaction
from repolens.store.embeddings import cached_hashes, effective_profile, store_vectors

MAX_FILES = 2000  # files one folder artifact may hold; a folder of more is not a schema
EMBED_BATCH = 32
CALL_EMBED_LIMIT = 64
"""Windows an agent's call embeds at most (well under a second with the local model), so
the first call on a large docs folder is not held up; later calls embed the rest."""
CHUNK_KINDS = {
    "table": "class", "view": "class", "schema": "class", "type": "class",
    "message": "class", "service": "class", "enum": "class",
    "column": "field", "field": "field", "foreign_key": "field",
    "operation": "function", "rpc": "method", "function": "function",
    "query": "method", "mutation": "method", "subscription": "method",
}  # fmt: skip
"""The code kind each artifact kind is chunked as: a table is cut like a class (whole
when it fits, else at its columns), an operation like a function."""


class ArtifactError(Exception):
    """An artifact cannot be read as configured (outside the root, missing, unknown kind)."""


@dataclass(slots=True)
class Refresh:
    """One refresh: each artifact's report, the windows embedded, and why none were when
    embedding failed (search is then keyword-only for the new chunks)."""

    reports: list[ArtifactReport]
    embedded: int = 0
    embed_error: str = ""
    unembedded: int = 0  # chunks left without vectors by ``embed_limit``


@dataclass(slots=True)
class ArtifactReport:
    """What one refresh did to one artifact."""

    name: str
    parsed: list[str] = field(default_factory=list)
    unchanged: int = 0
    removed: int = 0
    skipped: list[str] = field(default_factory=list)  # YAML or JSON in a folder, not a spec
    error: str = ""
    notes: list[str] = field(default_factory=list)  # files not read, or read with errors

    @property
    def changed(self) -> bool:
        return bool(self.parsed or self.removed)


@contextmanager
def fresh_artifacts(
    project: Project,
    names: list[str] | None = None,
    *,
    provider: EmbeddingProvider | bool | None = True,
    force: bool = False,
    embed_limit: int | None = None,
) -> Iterator[tuple[sqlite3.Connection, Refresh | None, str]]:
    """A connection to the index with the artifacts refreshed first (auto-indexed on first
    use), the refresh's result, and a note when something kept it from being complete.
    ``provider``: ``True`` for the project's configured one, ``None``/``False`` to embed
    nothing; ``embed_limit``: embed at most about that many windows now (an agent's call
    stays quick; the next calls embed the rest). When the index cannot be written (a
    read-only checkout), what is stored is answered, with a note saying so."""
    if not project.settings.artifacts and not project.db_path.exists():
        raise ArtifactError(NONE_CONFIGURED)
    note = ""
    try:
        conn = connect(project.db_path)
    except StoreError as exc:
        conn = connect(project.db_path, readonly=True)
        note = f"artifacts not refreshed (the index cannot be written: {exc})"
    result = None
    try:
        if not note:
            chosen, why = _provider(project, conn, provider)
            try:
                result = refresh_artifacts(project, conn, names, provider=chosen, force=force,
                                           embed_limit=embed_limit)  # fmt: skip
            except sqlite3.OperationalError as exc:
                note = f"artifacts not refreshed ({exc}); answering from what is stored"
            else:
                note = result.embed_error or why or _unembedded_note(result.unembedded)
        yield conn, result, note
    finally:
        conn.close()


def _unembedded_note(count: int) -> str:
    if not count:
        return ""
    return (
        f"{count} artifact chunks are not embedded yet (found by keywords only); the next"
        " calls embed them, `repolens artifacts index` at once"
    )


NONE_CONFIGURED = (
    "no artifacts are configured: add [[artifacts]] tables (name, path, description) to"
    " .repolens.toml"
)


def _provider(
    project: Project, conn: sqlite3.Connection, wanted: EmbeddingProvider | bool | None
) -> tuple[EmbeddingProvider | None, str]:
    if wanted is True:
        provider, why = provider_or_reason(project.settings, effective_profile(conn))
        return provider, f"artifacts searched by keyword only: {why}" if provider is None else ""
    return (wanted or None), ""


def remove_artifact(project: Project, name: str) -> None:
    """Forget one artifact's index (its files are not touched); ``ArtifactError`` when
    nothing of that name is indexed. While ``.repolens.toml`` names it, the next refresh
    indexes it again."""
    if not project.db_path.exists():
        raise ArtifactError(f"no artifact named {name!r} is indexed (no index yet)")
    conn = connect(project.db_path)
    try:
        with transaction(conn):
            removed = rows.delete_artifact(conn, name)
    finally:
        conn.close()
    if not removed:
        raise ArtifactError(f"no artifact named {name!r} is indexed")


def spec_named(project: Project, name: str) -> ArtifactSpec:
    specs = project.settings.artifacts
    for spec in specs:
        if spec.name == name:
            return spec
    known = ", ".join(s.name for s in specs) or "none: add [[artifacts]] to .repolens.toml"
    raise ArtifactError(f"no artifact named {name!r} (configured: {known})")


def artifact_paths(project: Project, spec: ArtifactSpec) -> list[str]:
    """Root-relative paths of the artifact's files: the file it names, or the readable
    files of its folder (hidden folders and the index's own left out), in path order."""
    try:
        relative = confine(project.root, spec.path)
    except PathError as exc:
        raise ArtifactError(
            f"artifact {spec.name!r}: path {spec.path!r} is not inside the project root"
            f" {project.root} ({exc}); artifacts must live in the project"
        ) from None
    target = project.root / relative
    if target.is_file():
        if kind_of(relative) is None:
            raise ArtifactError(
                f"artifact {spec.name!r}: {relative} is not a kind repolens reads (SQL,"
                " OpenAPI/Swagger YAML or JSON, GraphQL, protobuf, Markdown)"
            )
        return [relative]
    if not target.is_dir():
        raise ArtifactError(f"artifact {spec.name!r}: {spec.path!r} does not exist")
    found: list[str] = []
    for folder, dirs, files in os.walk(target):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != DATA_DIR_NAME)
        for name in sorted(files):
            path = Path(folder, name).relative_to(project.root).as_posix()
            if kind_of(path) is not None:
                found.append(path)
        if len(found) > MAX_FILES:
            raise ArtifactError(
                f"artifact {spec.name!r}: {spec.path!r} holds more than {MAX_FILES} files;"
                " name a smaller folder or a file"
            )
    return found


def signature(spec: ArtifactSpec) -> str:
    text = f"{PARSER_VERSION}\0{spec.path}\0{spec.description}"
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def refresh_artifacts(
    project: Project,
    conn: sqlite3.Connection,
    names: list[str] | None = None,
    *,
    provider: EmbeddingProvider | None = None,
    force: bool = False,
    embed_limit: int | None = None,
) -> Refresh:
    """Bring the artifacts ``names`` (default: every configured one) up to date; with
    ``force``, read every file again. Artifacts no longer configured are dropped."""
    specs = [spec_named(project, n) for n in names] if names else list(project.settings.artifacts)
    if names is None:
        configured = {s.name for s in specs}
        gone = [n for n in rows.artifact_rows(conn) if n not in configured]
        if gone:
            with transaction(conn):
                for name in gone:
                    rows.delete_artifact(conn, name)
    result = Refresh([_refresh_one(project, conn, spec, force) for spec in specs])
    if provider is not None:
        try:
            result.embedded, result.unembedded = _embed(
                conn, provider, [r.name for r in result.reports if not r.error], embed_limit
            )
        except EmbeddingError as exc:
            result.embed_error = f"not embedded (keyword search only): {exc}"
    return result


def _refresh_one(
    project: Project, conn: sqlite3.Connection, spec: ArtifactSpec, force: bool
) -> ArtifactReport:
    report = ArtifactReport(spec.name)
    sig = signature(spec)
    stored_row = rows.artifact_rows(conn).get(spec.name)
    try:
        paths = artifact_paths(project, spec)
    except ArtifactError as exc:
        report.error = str(exc)
        if stored_row is None or stored_row.error != report.error:
            with transaction(conn):
                rows.save_artifact(conn, spec.name, spec.path, spec.description, sig, report.error)
                conn.execute("DELETE FROM artifact_files WHERE artifact = ?", (spec.name,))
        return report
    fresh_row = stored_row is not None and stored_row.signature == sig and not stored_row.error
    previous = rows.stored_files(conn, spec.name)
    stored = previous if fresh_row and not force else {}  # what may count as unchanged
    in_folder = (project.root / spec.path).is_dir()  # inside the root: checked just above
    root_real = os.path.realpath(project.root)
    work: list[tuple[str, str, str, ParsedArtifact, list[Chunk]]] = []
    for path in paths:
        try:
            data = read_regular(project.root / path, project.settings.max_file_size, root_real)
        except OSError as exc:
            report.notes.append(f"{path}: not read ({exc.strerror or exc})")
            continue
        digest = hashlib.blake2b(data, digest_size=16).hexdigest()
        old = stored.get(path)
        if old is not None and old.content_hash == digest:
            report.unchanged += 1
            continue
        kind = kind_of(path) or ""
        text = data.decode("utf-8", "replace")
        parsed = parse_artifact(kind, text)
        if parsed.error == NOT_OPENAPI and in_folder:
            report.skipped.append(path)  # other YAML in a folder of specs
            continue
        if parsed.error:
            report.notes.append(f"{path}: {parsed.error}")
        chunks = chunk_file(text, kind, _as_parsed_file(path, kind, parsed))
        work.append((path, kind, digest, parsed, chunks))
    removed = [p for p in previous if p not in paths or p in report.skipped]
    if not work and not removed and fresh_row and not force:
        return report
    with transaction(conn):
        rows.save_artifact(conn, spec.name, spec.path, spec.description, sig, "")
        rows.delete_files(conn, spec.name, removed)
        for path, kind, digest, parsed, chunks in work:
            rows.write_file(conn, spec.name, path, kind, digest, parsed.symbols, chunks,
                            parsed.error)  # fmt: skip
    report.parsed = [w[0] for w in work]
    report.removed = len(removed)
    return report


def _as_parsed_file(path: str, kind: str, parsed: ParsedArtifact) -> ParsedFile | None:
    """The artifact's symbols as the chunker reads code's (markdown is cut at headings by
    the chunker itself)."""
    if kind == "markdown" or not parsed.symbols:
        return None
    symbols = [
        Symbol(CHUNK_KINDS.get(s.kind, "class"), s.name, s.qualified_name, s.start_line,
               s.end_line, parent=s.parent)
        for s in parsed.symbols
    ]  # fmt: skip
    return ParsedFile(path=path, language=kind, symbols=symbols)


def _embed(
    conn: sqlite3.Connection, provider: EmbeddingProvider, names: list[str], limit: int | None
) -> tuple[int, int]:
    """Vectors for the chunks of the artifacts ``names`` that lack them under
    ``provider``, windowed as code chunks are and through the same cache, for chunks in
    order until about ``limit`` windows were embedded: (windows embedded, chunks left)."""
    if not names:
        return 0, 0
    key = provider.profile.key()
    pending = rows.unembedded_chunks(conn, key, names)
    windows: dict[int, list[tuple[str, str]]] = {}
    missing: dict[str, str] = {}
    for chunk_id, documents in _windowed(provider, pending):
        if limit is not None and len(missing) >= limit:
            break
        windows[chunk_id] = [(text_hash(w), w) for w in documents]
        cached = cached_hashes(conn, (h for h, _ in windows[chunk_id]), key)
        missing.update((h, w) for h, w in windows[chunk_id] if h not in cached)
    if not windows:
        return 0, 0
    hashes, texts = list(missing), list(missing.values())
    vectors = [
        provider.embed_documents(texts[start : start + EMBED_BATCH])
        for start in range(0, len(texts), EMBED_BATCH)
    ]
    with transaction(conn):
        if vectors:
            store_vectors(conn, key, hashes, np.concatenate(vectors))
        for chunk_id, ws in windows.items():
            rows.set_windows(conn, chunk_id, [h for h, _ in ws])
    return len(texts), len(pending) - len(windows)


def _windowed(
    provider: EmbeddingProvider, pending: list[tuple[int, int, str, str]]
) -> Iterator[tuple[int, list[str]]]:
    """Each pending chunk's id and windows, windowed ``EMBED_BATCH`` chunks at a time
    (lazily: a call that stops at its limit windows little more than it embeds)."""
    for part in range(0, len(pending), EMBED_BATCH):
        chunks = pending[part : part + EMBED_BATCH]
        documents = chunk_documents(
            provider, [(start, text, shown, "") for _, start, text, shown in chunks]
        )
        yield from zip((chunk[0] for chunk in chunks), documents, strict=True)
