"""``linked=true`` on the graph tools: callers, callees, impact and trace across every
project this server serves (its root and its linked projects), each symbol named with
its project, edges crossing projects where one imports another's package.

A project not indexed yet (its writer is building it) is left out and named; one whose
files changed since it was indexed is answered from, with a note.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from repolens.confine import confine
from repolens.links import stale_note
from repolens.mcp.runtime import Runtime
from repolens.present.format import Answer, cite, plural
from repolens.query.crossrepo import Index
from repolens.query.linkedgraph import LinkedGraph, LinkedHit
from repolens.query.symbols import SymbolRef


def _sure(hit: LinkedHit) -> str:
    edge = hit.hit
    sure = "" if edge.confidence >= 0.9 else f" [~{edge.confidence:.2f} {edge.provenance}]"
    return sure + (f" (through import {hit.via})" if hit.via else "")


def _named(project: str, sym: SymbolRef) -> str:
    return f"[{project}] {sym.full_name} ({sym.kind}) {sym.location}"


class LinkedQueries:
    """The graph of all served projects for one call, and the notes it must carry."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.notes: list[str] = []

    @contextmanager
    def graph(self) -> Iterator[LinkedGraph]:
        with ExitStack() as stack:
            indexes = []
            for handle in self.rt.handles():
                if not handle.indexed():
                    self.notes.append(f"{handle.label} left out: {handle.not_indexed_message()}")
                    continue
                conn = stack.enter_context(handle.reader())
                progress = handle.progress_note()
                stale = "" if progress else stale_note(handle.label, handle.root, conn)
                self.notes += [f"{handle.label}: {n}" for n in (progress, stale) if n]
                indexes.append(Index(handle.label, handle.root, conn, handle.project.db_path))
            yield LinkedGraph(indexes)

    def _where(self, project_path: str | None) -> str | None:
        return self.rt.handle(project_path).label if project_path else None

    def _file(self, project_path: str | None, file: str | None) -> str | None:
        return confine(self.rt.handle(project_path).root, file) if file else None

    def _finish(self, out: Answer) -> str:
        for note in self.notes:
            out.note(note)
        return out.render()

    def edges(
        self, symbol: str, file: str | None, kind: str | None, limit: int, budget: int,
        project_path: str | None, *, callee: bool,
    ) -> str:  # fmt: skip
        what = "Callees" if callee else "Callers"
        with self.graph() as found:
            number, sym = found.find(symbol, file=self._file(project_path, file), kind=kind,
                                     project=self._where(project_path))  # fmt: skip
            query = found.callees if callee else found.callers
            hits = query(number, sym, limit=limit + 1)
        out = Answer(budget)
        count = f"{len(hits[:limit])}{'+' if len(hits) > limit else ''}"
        across = plural(len(found.indexes), "project")
        out.add_clipped(f"# {what} of {_named(found.label(number), sym)} across {across}: {count}")
        for hit in hits[:limit]:
            at = hit.hit.symbol.location if callee else cite(hit.hit.file, hit.hit.line)
            row = f"- [{hit.project}] {hit.hit.symbol.full_name} {hit.hit.edge_kind} at {at}"
            if not out.add_clipped(row + _sure(hit)):
                out.leave_out(f"more {what.lower()}", "raise budget")
                break
        if not hits:
            out.add(f"No {what.lower()} found in the served projects' indexes; `{what.lower()}`"
                    " without linked lists unresolved references that may be some.")  # fmt: skip
        if len(hits) > limit:
            out.leave_out(f"more {what.lower()}", "raise limit")
        return self._finish(out)

    def impact(
        self, symbol: str, file: str | None, kind: str | None, depth: int, limit: int,
        budget: int, project_path: str | None,
    ) -> str:  # fmt: skip
        with self.graph() as found:
            number, sym = found.find(symbol, file=self._file(project_path, file), kind=kind,
                                     project=self._where(project_path))  # fmt: skip
            result = found.impact(number, sym, depth=depth, limit=limit)
        out = Answer(budget)
        projects = sorted({h.project for h in result.hits})
        out.add_clipped(f"# Impact of changing {_named(result.project, sym)}:"
                        f" {plural(len(result.hits), 'dependent')} in"
                        f" {plural(len(projects), 'project')} (depth ≤ {depth})")  # fmt: skip
        if not result.hits:
            out.add("Nothing in the served projects' indexes depends on it.")
        current = None
        for h in result.hits:
            place = (h.project, h.hit.symbol.file)
            if place != current:
                current = place
                out.add_clipped(f"## [{h.project}] {h.hit.symbol.file}")
            crossing = " (from another project)" if h.crossing else ""
            dependent, hit = h.hit.symbol, h.hit
            if not out.add_clipped(
                f"- {dependent.qualified_name} ({dependent.kind}) line {dependent.line}:"
                f" depth {hit.depth}, {hit.edge_kind} at {cite(hit.file, hit.line)}{crossing}"
            ):
                out.leave_out("more dependents", "raise budget")
                break
        if result.truncated:
            out.leave_out("more dependents", "raise limit")
        return self._finish(out)

    def trace(
        self, source: str, target: str, max_depth: int, budget: int, project_path: str | None
    ) -> str:
        with self.graph() as found:
            src = found.find(source, project=self._where(project_path))
            dst = found.find(target)
            hops = found.path(src, dst, max_depth=max_depth)
        out = Answer(budget)
        start, goal = _named(found.label(src[0]), src[1]), _named(found.label(dst[0]), dst[1])
        if hops is None:
            out.add_clipped(
                f"# No call path from {start} to {goal} within {max_depth} hops across the"
                " served projects (unresolved calls may hide one)"
            )
            return self._finish(out)
        out.add_clipped(f"# Trace {start} → {goal}: {plural(len(hops), 'hop')}")
        out.add_clipped(f"1. {start}")
        for step, hop in enumerate(hops, start=2):
            out.add_clipped(f"{step}. {_named(hop.project, hop.hit.symbol)}, {hop.hit.edge_kind}"
                            f" at {cite(hop.hit.file, hop.hit.line)}{_sure(hop)}")  # fmt: skip
        return self._finish(out)
