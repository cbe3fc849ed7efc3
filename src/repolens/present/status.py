"""Rendering the index status and the list of projects a server serves."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from repolens.present.format import Answer, plural
from repolens.present.graph import render_mapping

LINE_LEVEL_LABEL = "Line-level only (definitions and imports, no call graph)"


def ago(timestamp: float | None) -> str:
    if not timestamp:
        return "never"
    seconds = max(time.time() - timestamp, 0)
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f} {unit} ago"
    return f"{seconds:.0f} s ago"


def render_status(out: Answer, data: Mapping[str, Any]) -> None:
    """Status as short labelled lines, most useful first."""
    project = data.get("project", {})
    out.add_clipped(f"# Status of {project.get('root')} (id {project.get('id', '?')})")
    job = data.get("job", {})
    out.add_clipped(
        f"Job: {job.get('summary', 'idle')}" + (f" — {job['error']}" if job.get("error") else "")
    )
    for note in job.get("notes", []):
        out.add_clipped(f"  note: {note}")
    writer = data.get("writer")
    out.add_clipped(
        "Writer: "
        + (
            f"{writer['role']} (pid {writer['pid']} on {writer['host']})"
            if writer
            else "none (nobody is writing)"
        )
    )
    if not data.get("indexed"):
        out.add("Index: not built yet (call `index`).")
        return
    files, graph = data.get("files", {}), data.get("graph", {})
    out.add_clipped(
        f"Index: {plural(int(files.get('indexed', 0)), 'file')}, {graph.get('symbols', 0)} symbols,"
        f" {graph.get('edges', 0)} edges; last full index {ago(data.get('last_index'))};"
        f" {graph.get('pending_resolve', 0)} files waiting for resolution"
    )
    if data.get("search_mode"):
        out.add_clipped(f"Search: {data['search_mode']}")
    languages = data.get("languages", {})
    if languages:
        out.add_clipped("Languages: " + ", ".join(f"{k} {v}" for k, v in languages.items()))
    line_level = files.get("line_level", {})
    if line_level:
        counts = ", ".join(f"{k} {v}" for k, v in line_level.items())
        out.add_clipped(f"{LINE_LEVEL_LABEL}: {counts}")
    _skipped(out, files)
    if data.get("artifacts"):
        out.add_clipped(artifacts_line(data["artifacts"]))
    if isinstance(data.get("embedding"), Mapping):
        out.add("Embeddings:")
        render_mapping(out, data["embedding"], "  ")


def artifacts_line(artifacts: Mapping[str, Mapping[str, Any]]) -> str:
    """The context artifacts in one line (indexed on first use, so "not yet" is normal)."""
    parts = []
    for name, row in artifacts.items():
        if row.get("error"):
            parts.append(f"{name} (error: {row['error']})")
        elif not row.get("indexed"):
            parts.append(f"{name} (not indexed yet: the first artifact call indexes it)")
        else:
            shown = f"{plural(int(row['files']), 'file')}, {plural(int(row['chunks']), 'chunk')}"
            parts.append(f"{name} ({shown})")
    return "Artifacts: " + "; ".join(parts)


def _skipped(out: Answer, files: Mapping[str, Any]) -> None:
    skipped = files.get("skipped", {})
    if skipped:
        out.add_clipped("Skipped: " + ", ".join(f"{k} {v}" for k, v in skipped.items()))
        for reason, examples in (files.get("skipped_examples") or {}).items():
            shown = ", ".join(list(examples)[:3]) if isinstance(examples, list) else str(examples)
            out.add_clipped(f"  {reason}: e.g. {shown}")
    problems = files.get("problems", [])
    if problems:
        out.add(f"Parse problems ({len(problems)}):")
        for item in problems:
            if not out.add_clipped(f"- {item['file']}: {item['status']} {item['error']}"):
                out.leave_out("more parse problems", "raise budget")
                break


def render_projects(out: Answer, rows: Sequence[Mapping[str, Any]]) -> None:
    for number, row in enumerate(rows, start=1):
        role = "linked" if row.get("linked") else "main"
        state = (
            f"indexed, {plural(int(row.get('files', 0)), 'file')}"
            if row.get("indexed")
            else "not indexed"
        )
        job = f"; {row['job']}" if row.get("job") else ""
        error = f"; {row['error']}" if row.get("error") else ""
        name = f"[{row['label']}] " if row.get("label") else ""
        out.add_clipped(
            f"{number}. {name}{row['root']} ({role}, id {row['id']}): {state}{job}{error}"
        )
