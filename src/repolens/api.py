"""The Python API: ``repolens.open(path)`` gives a ``Codebase``, the one façade over the
index that scripts, notebooks and repolens's own front ends can call.

Every query method opens a read-only connection for its call and closes it (a millisecond
in WAL mode), so a ``Codebase`` never holds the database open between calls, sees every
batch a writer commits, and is safe to keep for a process's life. Symbols are named as
everywhere in repolens (``name``, ``Class.method``, ``pkg.module.name``, ``path:Name``); a
name that is unknown or ambiguous raises ``SymbolLookupError`` with the candidates, never
an answer about another symbol.

    import repolens
    code = repolens.open(".")
    code.index(embed=False)
    for hit in code.callers("connect"):
        print(hit.file, hit.line, hit.symbol.qualified_name)
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from repolens.project import Project, open_project
from repolens.store.db import connect

if TYPE_CHECKING:
    from repolens.embed.base import EmbeddingProvider
    from repolens.index.report import IndexReport
    from repolens.query.artifact_links import ArtifactLink
    from repolens.query.artifacts import ArtifactHit, ArtifactInfo
    from repolens.query.context import ContextBundle
    from repolens.query.explore import Exploration
    from repolens.query.graph import EdgeHit, SymbolRef
    from repolens.query.hierarchy import Hierarchy
    from repolens.query.impact import ImpactResult
    from repolens.query.linkedgraph import LinkedGraph
    from repolens.query.search import SearchResult


def query_provider(
    project: Project, conn: sqlite3.Connection, remote_key: str | None = None
) -> tuple[EmbeddingProvider | None, str]:
    """The configured provider if the index holds vectors it can be compared with; else
    ``None`` and why the search is keyword (BM25) only. ``remote_key``: the key of a
    remote backend's vectors, when one serves the search."""
    from repolens.index.providers import provider_or_reason
    from repolens.store.embeddings import effective_key, effective_profile
    from repolens.store.vectors import open_matrix

    provider, why = provider_or_reason(project.settings, effective_profile(conn))
    if provider is None:
        return None, f"keyword (BM25) results only: {why}"
    stored = remote_key or effective_key(conn)
    if stored is None:
        return None, "keyword (BM25) results only: nothing is embedded yet (`repolens index`)"
    if provider.profile.key() != stored:
        return None, (
            f"keyword (BM25) results only: the index is embedded with {stored}, the settings"
            f" ask for {provider.profile.key()}; `repolens index --reembed` switches"
        )
    if remote_key is None and open_matrix(project.data_dir, stored) is None:
        return None, "keyword (BM25) results only: the vectors are not ready (`repolens index`)"
    return provider, ""


@dataclass(frozen=True, slots=True)
class Codebase:
    """One project's index: build it, keep it fresh, ask it questions."""

    project: Project

    @property
    def root(self) -> Path:
        return self.project.root

    @contextmanager
    def reader(self) -> Iterator[sqlite3.Connection]:
        """A read-only connection for several queries in one go."""
        conn = connect(self.project.db_path, readonly=True)
        try:
            yield conn
        finally:
            conn.close()

    # -- writing -------------------------------------------------------------------------

    def index(self, *, embed: bool = True) -> IndexReport:
        """Bring the index in line with the tree (graph and BM25, then embeddings when
        ``embed``). Raises ``WriterBusy`` when another process writes."""
        return self._write(None, embed)

    def update(
        self, paths: Sequence[str | Path] | None = None, *, embed: bool = True
    ) -> IndexReport:
        """Re-index ``paths`` only (relative to the root or absolute), or what changed."""
        return self._write([str(Path(p)) for p in paths] if paths else None, embed)

    def _write(self, paths: list[str] | None, embed: bool) -> IndexReport:
        from repolens.index import lock
        from repolens.index.background import make_embedder
        from repolens.index.pipeline import index_project, update_paths

        conn = connect(self.project.db_path)
        try:
            with lock.hold(self.project.data_dir, "api") as writer:
                if paths is None:
                    report = index_project(self.project, conn, should_stop=writer.stop_requested)
                else:
                    report = update_paths(self.project, conn, paths,
                                          should_stop=writer.stop_requested)  # fmt: skip
                if embed:
                    embedder, _why = make_embedder(self.project)
                    if embedder is not None:
                        embedder(writer.stop_requested)
        finally:
            conn.close()
        return report

    # -- reading -------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        from repolens.index.status import index_status

        with self.reader() as conn:
            return index_status(self.project, conn)

    def search(
        self, query: str, *, limit: int | None = None, path: str | None = None,
        languages: Sequence[str] = (), kinds: Sequence[str] = (),
    ) -> list[SearchResult]:  # fmt: skip
        """Hybrid search (BM25 fused with the dense half when vectors exist)."""
        from repolens.query.search import search

        with self.reader() as conn:
            provider, _why = query_provider(self.project, conn)
            return search(conn, self.project.data_dir, query,
                          limit=limit or self.project.settings.search_limit, path_glob=path,
                          languages=languages, symbol_kinds=kinds, provider=provider)  # fmt: skip

    @contextmanager
    def linked_readers(self) -> Iterator[list[tuple[str, Project, sqlite3.Connection]]]:
        """This project and its indexed linked projects (``links``), each as (label,
        project, read-only connection); those not indexed are left out."""
        from repolens.links import linked_set

        with ExitStack() as stack:
            opened = []
            for member in linked_set(self.project):
                if member.indexed or member.main:
                    conn = connect(member.project.db_path, readonly=True)
                    stack.callback(conn.close)
                    opened.append((member.label, member.project, conn))
            yield opened

    def linked_search(self, query: str, *, limit: int | None = None) -> list[SearchResult]:
        """One ranking over this project and its linked ones; each hit names its project."""
        from repolens.query.linked import LinkedIndex, linked_search

        with self.linked_readers() as opened:
            indexes = [LinkedIndex(label, conn, project.data_dir,
                                   query_provider(project, conn)[0])
                       for label, project, conn in opened]  # fmt: skip
            return linked_search(indexes, query, limit=limit or self.project.settings.search_limit)

    @contextmanager
    def linked_graph(self) -> Iterator[LinkedGraph]:
        """The graph of this project and its linked ones, edges crossing where one imports
        another's package: ``graph.callers(*graph.find("slugify"))``."""
        from repolens.query.crossrepo import Index
        from repolens.query.linkedgraph import LinkedGraph

        with self.linked_readers() as opened:
            yield LinkedGraph([Index(label, project.root, conn, project.db_path)
                               for label, project, conn in opened])  # fmt: skip

    def symbol(self, name: str, *, file: str | None = None, kind: str | None = None) -> SymbolRef:
        from repolens.query.graph import find_symbol

        with self.reader() as conn:
            return find_symbol(conn, name, file=file, kind=kind)

    def symbols(self, query: str, *, limit: int = 50) -> list[SymbolRef]:
        from repolens.query.graph import search_symbols

        with self.reader() as conn:
            return search_symbols(conn, query, limit=limit)

    def callers(self, name: str, *, file: str | None = None, limit: int = 200) -> list[EdgeHit]:
        from repolens.query.graph import callers, find_symbol

        with self.reader() as conn:
            return callers(conn, find_symbol(conn, name, file=file), limit=limit)

    def callees(self, name: str, *, file: str | None = None, limit: int = 200) -> list[EdgeHit]:
        from repolens.query.graph import callees, find_symbol

        with self.reader() as conn:
            return callees(conn, find_symbol(conn, name, file=file), limit=limit)

    def impact(self, name: str, *, depth: int = 3, file: str | None = None) -> ImpactResult:
        from repolens.query.graph import find_symbol
        from repolens.query.impact import impact

        with self.reader() as conn:
            return impact(conn, find_symbol(conn, name, file=file), depth=depth)

    def path(self, source: str, target: str, *, max_depth: int = 8) -> list[EdgeHit] | None:
        """The shortest call path, each hop the symbol reached; ``None`` when there is none."""
        from repolens.query.graph import call_path, find_symbol

        with self.reader() as conn:
            src, dst = find_symbol(conn, source), find_symbol(conn, target)
            return call_path(conn, src, dst, max_depth=max_depth)

    def hierarchy(self, name: str, *, up: bool = True, down: bool = True) -> Hierarchy:
        from repolens.query.graph import find_symbol
        from repolens.query.hierarchy import hierarchy

        with self.reader() as conn:
            return hierarchy(conn, find_symbol(conn, name), up=up, down=down)

    def explore(self, names: str) -> Exploration:
        from repolens.query.explore import explore

        with self.reader() as conn:
            return explore(conn, names)

    def context(self, question: str, *, budget: int = 10_000) -> ContextBundle:
        """What an agent needs for ``question`` within ``budget`` characters: entry points,
        related symbols, call paths and their code (files read inside the root only)."""
        from repolens.mcp.source import SourceCache
        from repolens.query.context import build_context

        with self.reader() as conn:
            provider, _why = query_provider(self.project, conn)
            return build_context(conn, self.project.data_dir, question,
                                 read_lines=SourceCache(self.root, conn), budget=budget,
                                 provider=provider)  # fmt: skip

    # -- context artifacts (each call refreshes them first: indexed on first use) ------------

    def artifacts(self) -> list[ArtifactInfo]:
        """The ``[[artifacts]]`` of ``.repolens.toml`` as indexed: files, symbols, chunks."""
        from repolens.index.artifacts import fresh_artifacts
        from repolens.index.providers import provider_or_reason
        from repolens.query.artifacts import list_artifacts

        with fresh_artifacts(self.project) as (conn, _refresh, _note):
            provider, _why = provider_or_reason(self.project.settings)
            return list_artifacts(conn, provider.profile.key() if provider else None)

    def artifact_search(
        self, query: str, *, artifact: str | None = None, limit: int = 10
    ) -> list[ArtifactHit]:
        """Hybrid search over the artifacts (of one, when ``artifact`` names it)."""
        from repolens.index.artifacts import fresh_artifacts, spec_named
        from repolens.index.providers import provider_or_reason
        from repolens.query.artifacts import search_artifacts

        if artifact:
            spec_named(self.project, artifact)
        with fresh_artifacts(self.project) as (conn, _refresh, _note):
            provider, _why = provider_or_reason(self.project.settings)
            return search_artifacts(conn, query, artifact=artifact, limit=limit,
                                    provider=provider)  # fmt: skip

    def artifact_links(self, name: str) -> list[ArtifactLink]:
        """The code that the artifact symbols called ``name`` reach: a table's users, an
        operation's handler, a service's implementations."""
        from repolens.index.artifacts import fresh_artifacts
        from repolens.query.artifact_links import links_of
        from repolens.query.artifacts import symbols_named

        with fresh_artifacts(self.project, provider=False) as (conn, _refresh, _note):
            return [link for symbol in symbols_named(conn, name) for link in links_of(conn, symbol)]


def open(path: str | Path | None = None) -> Codebase:
    """The project at ``path`` (default: the git top level of the current directory)."""
    return Codebase(open_project(Path(path) if path is not None else None))
