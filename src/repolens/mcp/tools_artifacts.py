"""Context artifacts over MCP: ``artifacts`` (list), ``artifact_search``,
``artifact_index`` and ``artifact_remove``. Each refreshes the artifacts first, so the
first call indexes them and no answer is stale."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

from pydantic import Field, StrictBool

from repolens.index.artifacts import (
    CALL_EMBED_LIMIT,
    ArtifactError,
    Refresh,
    fresh_artifacts,
    remove_artifact,
    spec_named,
)
from repolens.mcp.runtime import ProjectHandle, ToolInputError
from repolens.mcp.toolkit import SHORT, Budget, ProjectPath, ToolGroup, tool
from repolens.mcp.tools_search import finish
from repolens.present.artifacts import render_hits, render_list, render_refresh
from repolens.present.format import Answer
from repolens.query.artifact_links import hit_links
from repolens.query.artifacts import list_artifacts, search_artifacts

ArtifactName = Annotated[
    str | None, Field(max_length=64, description="Only this artifact (its name in .repolens.toml).")
]


@contextmanager
def _fresh(
    handle: ProjectHandle, names: list[str] | None = None, *, force: bool = False
) -> Iterator[tuple[sqlite3.Connection, Refresh | None, str]]:
    """``fresh_artifacts`` with the server's provider (loaded once), its errors as tool
    errors."""
    provider, _why = handle.provider()
    try:
        with fresh_artifacts(handle.project, names, provider=provider or False, force=force,
                             embed_limit=CALL_EMBED_LIMIT) as got:  # fmt: skip
            yield got
    except ArtifactError as exc:
        raise ToolInputError(str(exc)) from None


def _check(handle: ProjectHandle, name: str) -> None:
    try:
        spec_named(handle.project, name)
    except ArtifactError as exc:
        raise ToolInputError(str(exc)) from None


class ArtifactTools(ToolGroup):
    @tool("artifacts", "Context artifacts")
    def artifacts(self, budget: Budget = None, projectPath: ProjectPath = None) -> str:
        """The project's context artifacts (schemas, API specs, docs in .repolens.toml):
        files, what each defines, share embedded. Indexed on first use."""
        handle = self.rt.handle(projectPath)
        out = Answer(handle.budget(budget, SHORT))
        with _fresh(handle) as (conn, _refresh, note):
            provider, _ = handle.provider()
            infos = list_artifacts(conn, provider.profile.key() if provider else None)
        out.add(f"# Artifacts: {len(infos)}")
        render_list(out, infos)
        return finish(out, handle, note)

    @tool("artifact_search", "Search context artifacts")
    def artifact_search(
        self,
        query: Annotated[str, Field(min_length=1, max_length=2000, description="What to find.")],
        artifact: ArtifactName = None,
        limit: Annotated[int, Field(ge=1, le=50, description="Maximum results.")] = 8,
        budget: Budget = None,
        projectPath: ProjectPath = None,
    ) -> str:
        """Search SQL schemas, API specs, GraphQL/protobuf schemas and docs; each hit with
        the code its tables, operations and services link to."""
        handle = self.rt.handle(projectPath)
        if artifact:
            _check(handle, artifact)
        with _fresh(handle) as (conn, _refresh, note):
            provider, _ = handle.provider()
            hits = search_artifacts(conn, query, artifact=artifact, limit=limit, provider=provider)
            links = hit_links(conn, hits)
        out = Answer(handle.budget(budget, SHORT))
        out.add(f"# Artifact search: {query}")
        render_hits(out, hits, links)
        return finish(out, handle, note)

    @tool("artifact_index", "Index context artifacts", read_only=False, idempotent=True)
    def artifact_index(
        self,
        artifact: ArtifactName = None,
        force: Annotated[StrictBool, Field(description="Read every file again.")] = False,
        projectPath: ProjectPath = None,
    ) -> str:
        """Re-index artifacts now (one, or all): changed files are read again. Rarely
        needed: every artifact tool refreshes first."""
        handle = self.rt.handle(projectPath)
        names = [artifact] if artifact else None
        if artifact:
            _check(handle, artifact)
        with _fresh(handle, names, force=force) as (_conn, refresh, note):
            pass
        out = Answer(SHORT)
        if refresh is not None:
            render_refresh(out, refresh)
        return finish(out, handle, note)

    @tool("artifact_remove", "Delete an artifact's index", read_only=False, destructive=True)
    def artifact_remove(
        self,
        artifact: Annotated[str, Field(min_length=1, max_length=64, description="Its name.")],
        confirm: Annotated[StrictBool, Field(description="Must be true.")],
        projectPath: ProjectPath = None,
    ) -> str:
        """Delete one artifact's index (not its files). While .repolens.toml names it,
        the next artifact call indexes it again."""
        handle = self.rt.handle(projectPath)
        if not confirm:
            raise ToolInputError("pass confirm=true to delete the artifact's index")
        try:
            remove_artifact(handle.project, artifact)
        except ArtifactError as exc:
            raise ToolInputError(str(exc)) from None
        return f"Removed the index of artifact {artifact!r}."
