"""``repolens artifacts list|search|index|remove``: the project's context artifacts.

Every subcommand refreshes the artifacts first (what changed is read again, the rest is
kept), so an artifact is indexed on first use and never answered stale. The artifact
modules (numpy, the parsers, the embedding stack) are imported inside the commands:
``repolens --help`` imports this module to list it.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from repolens.cli.common import console, emit, fail, json_option, load_project, project_option
from repolens.config import ConfigError
from repolens.present.format import Answer
from repolens.project import Project
from repolens.store.db import StoreError

if TYPE_CHECKING:
    from repolens.index.artifacts import Refresh
    from repolens.query.artifact_links import ArtifactLink

UNLIMITED = 1_000_000


def _print(out: Answer) -> None:
    """The answer's blocks and notes (a person's terminal needs no budget footer)."""
    text = "\n".join([*out.parts, *(f"note: {n}" for n in out.notes)])
    console().print(text, markup=False, highlight=False)


def _project(path: Path | None, as_json: bool) -> Project:
    return load_project(path, as_json, writes=True)


def _refresh_json(refresh: Refresh | None) -> list[dict[str, Any]]:
    return [asdict(r) for r in refresh.reports] if refresh else []


def _link_json(link: ArtifactLink) -> dict[str, Any]:
    return {"from": link.subject, "relation": link.relation, "symbol": link.symbol.full_name,
            "kind": link.symbol.kind, "file": link.symbol.file, "line": link.line,
            "evidence": link.evidence, "confidence": link.confidence,
            "role": link.role}  # fmt: skip


@click.group("artifacts")
def artifacts_group() -> None:
    """Context artifacts ([[artifacts]] in .repolens.toml): SQL schemas, OpenAPI specs,
    GraphQL and protobuf schemas, Markdown docs, searched beside the code."""


@artifacts_group.command("list")
@project_option
@json_option
def list_command(project_path: Path | None, as_json: bool) -> None:
    """Each artifact: its files, what it defines, how much is embedded."""
    from repolens.index.artifacts import ArtifactError, fresh_artifacts
    from repolens.present.artifacts import render_list
    from repolens.query.artifacts import list_artifacts

    project = _project(project_path, as_json)
    try:
        with fresh_artifacts(project) as (conn, refresh, note):
            from repolens.index.providers import provider_or_reason

            provider, _ = provider_or_reason(project.settings) if refresh else (None, "")
            infos = list_artifacts(conn, provider.profile.key() if provider else None)
    except (ArtifactError, StoreError, ConfigError) as exc:
        fail(str(exc), as_json)
    data: dict[str, Any] = {"artifacts": [asdict(i) for i in infos],
                            "refreshed": _refresh_json(refresh)}  # fmt: skip
    if note:
        data["note"] = note

    def render() -> None:
        out = Answer(UNLIMITED)
        render_list(out, infos)
        if note:
            out.note(note)
        _print(out)

    emit(data, as_json, render)


@artifacts_group.command("search")
@click.argument("query")
@click.option("--artifact", "artifact", default=None, help="Only this artifact's chunks.")
@click.option("--limit", type=click.IntRange(1, 200), default=10, show_default=True)
@project_option
@json_option
def search_command(
    query: str, artifact: str | None, limit: int, project_path: Path | None, as_json: bool
) -> None:
    """Hybrid search over the artifacts; each hit with the code its operations, tables
    and services link to."""
    from repolens.index.artifacts import ArtifactError, fresh_artifacts, spec_named
    from repolens.present.artifacts import render_hits
    from repolens.query.artifact_links import hit_links
    from repolens.query.artifacts import search_artifacts

    project = _project(project_path, as_json)
    try:
        if artifact:
            spec_named(project, artifact)
        with fresh_artifacts(project) as (conn, _refresh, note):
            from repolens.index.providers import provider_or_reason

            provider, _ = provider_or_reason(project.settings)
            hits = search_artifacts(conn, query, artifact=artifact, limit=limit, provider=provider)
            links = hit_links(conn, hits)
    except (ArtifactError, StoreError, ConfigError) as exc:
        fail(str(exc), as_json)
    data: dict[str, Any] = {
        "results": [
            {**asdict(hit), "links": [_link_json(link) for link in links.get(i, [])]}
            for i, hit in enumerate(hits)
        ],
    }
    if note:
        data["note"] = note

    def render() -> None:
        out = Answer(UNLIMITED)
        render_hits(out, hits, links)
        if note:
            out.note(note)
        _print(out)

    emit(data, as_json, render)


@artifacts_group.command("index")
@click.argument("names", nargs=-1)
@click.option("--force", is_flag=True, help="Read every file again, changed or not.")
@project_option
@json_option
def index_command(
    names: tuple[str, ...], force: bool, project_path: Path | None, as_json: bool
) -> None:
    """Index the artifacts named (default: all): what changed is read again."""
    from repolens.index.artifacts import ArtifactError, fresh_artifacts
    from repolens.present.artifacts import render_refresh

    project = _project(project_path, as_json)
    try:
        with fresh_artifacts(project, list(names) or None, force=force) as (_c, refresh, note):
            pass
    except (ArtifactError, StoreError, ConfigError) as exc:
        fail(str(exc), as_json)
    data: dict[str, Any] = {"artifacts": _refresh_json(refresh)}
    if refresh is not None:
        data["embedded"] = refresh.embedded
    if note:
        data["note"] = note

    def render() -> None:
        out = Answer(UNLIMITED)
        if refresh is not None:
            render_refresh(out, refresh)
        if note:
            out.note(note)
        _print(out)

    emit(data, as_json, render)
    if refresh is not None and any(r.error for r in refresh.reports):
        raise SystemExit(1)


@artifacts_group.command("remove")
@click.argument("name")
@project_option
@json_option
def remove_command(name: str, project_path: Path | None, as_json: bool) -> None:
    """Delete an artifact's index (its files are not touched). While .repolens.toml
    still names it, the next artifact command indexes it again."""
    from repolens.index.artifacts import ArtifactError, remove_artifact

    project = _project(project_path, as_json)
    try:
        remove_artifact(project, name)
    except (ArtifactError, StoreError) as exc:
        fail(str(exc), as_json)
    configured = any(spec.name == name for spec in project.settings.artifacts)
    data = {"removed": name, "still_configured": configured}

    def render() -> None:
        tail = " (still in .repolens.toml: the next artifact command indexes it again)"
        console().print(f"removed {name}" + (tail if configured else ""), markup=False)

    emit(data, as_json, render)


COMMANDS = [artifacts_group]
