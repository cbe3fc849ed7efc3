"""The explorer's web app: its page, its bundle, and a read-only JSON API over the index.

Views run as plain functions (Starlette runs them in its thread pool), each on a fresh
read-only connection, so they see every batch the writer committed. What the map needs of
the whole index (the file graph, dead code) is read once per index version and kept; the
version is the count and latest time of indexed files, which the page polls to follow a
watcher's updates without a reload.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from repolens.confine import PathError, confine
from repolens.mcp.runtime import ProjectHandle, ToolInputError
from repolens.query.analysis import FileLookupError
from repolens.query.deadcode import dead_code_report
from repolens.query.filegraph import file_graph, folder_scope
from repolens.query.graph import SymbolLookupError, SymbolRef, find_symbol, search_symbols
from repolens.query.outline import file_outline, index_version
from repolens.query.search import search
from repolens.query.symbols import symbols_by_ids
from repolens.ui import views
from repolens.ui.guard import LOCAL_HOSTS, LocalOnly

BUILD = Path(str(resources.files("repolens.ui") / "static" / "build"))
BUNDLE = BUILD / "app.js"
BUILD_HELP = (
    "the explorer's front end is not built. Build it once with Node.js 18+ and npm:\n"
    "  cd web && npm ci && npm run build\n"
    "(in a checkout of repolens; it writes src/repolens/ui/static/build/)"
)
MAX_DEPTH = 8


class BadRequest(Exception):
    """A request the API cannot answer as asked; the message says why."""


@dataclass(slots=True)
class Cache:
    """Whole-index facts for one index version."""

    stamp: str = ""
    snapshot: views.Snapshot | None = None
    dead_files: dict[str, int] | None = None
    dead_ids: set[int] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


class Explorer:
    """One project's explorer: how to read it, and what was read of it."""

    def __init__(self, handle: ProjectHandle) -> None:
        self.handle = handle
        self.cache = Cache()

    @contextmanager
    def reader(self) -> Iterator[sqlite3.Connection]:
        with self.handle.reader() as conn:
            yield conn

    def current(self, conn: sqlite3.Connection) -> Cache:
        """The cache for the index as it is now (emptied when the index moved on)."""
        stamp = index_version(conn)
        with self.cache.lock:
            if self.cache.stamp != stamp:
                self.cache = Cache(stamp=stamp)
            return self.cache

    def snapshot(self, conn: sqlite3.Connection) -> views.Snapshot:
        cache = self.current(conn)
        with cache.lock:
            if cache.snapshot is None:
                cache.snapshot = views.snapshot(conn, file_graph(conn))
            return cache.snapshot

    def dead(self, conn: sqlite3.Connection) -> tuple[dict[str, int], set[int]]:
        cache = self.current(conn)
        with cache.lock:
            if cache.dead_files is None or cache.dead_ids is None:
                report = dead_code_report(conn, limit=1 << 30)
                files: dict[str, int] = {}
                for ref in report.dead:
                    files[ref.file] = files.get(ref.file, 0) + 1
                cache.dead_files, cache.dead_ids = files, {ref.id for ref in report.dead}
            return cache.dead_files, cache.dead_ids


def _symbol(conn: sqlite3.Connection, request: Request, key: str = "id") -> SymbolRef:
    """The symbol a request names by ``id`` (as sent by the API) or by ``q`` (a name)."""
    text = request.query_params.get(key, "").strip()
    if not text:
        raise BadRequest(f"missing '{key}'")
    if text.isdigit():
        found = symbols_by_ids(conn, [int(text)]).get(int(text))
        if found is None:
            raise BadRequest(f"no symbol with id {text} (the index may have changed)")
        return found
    return find_symbol(conn, text)


def _depth(request: Request, default: int) -> int:
    text = request.query_params.get("depth", str(default))
    if not text.isdigit() or not 1 <= int(text) <= MAX_DEPTH:
        raise BadRequest(f"depth must be a whole number from 1 to {MAX_DEPTH}")
    return int(text)


def build_app(explorer: Explorer, hosts: frozenset[str] = LOCAL_HOSTS) -> Starlette:
    """The Starlette app for ``explorer``, behind the guard that admits only ``hosts``."""
    root = explorer.handle.root

    def api(view: Callable[[sqlite3.Connection, Request], Any]) -> Callable[[Request], Response]:
        def endpoint(request: Request) -> Response:
            try:
                with explorer.reader() as conn:
                    return JSONResponse(view(conn, request))
            except SymbolLookupError as exc:
                candidates = [views.symbol_json(c) for c in exc.candidates[:20]]
                return JSONResponse({"error": exc.message, "candidates": candidates}, 404)
            except FileLookupError as exc:
                return JSONResponse({"error": exc.message, "candidates": exc.candidates}, 404)
            except (BadRequest, PathError, ToolInputError) as exc:
                return JSONResponse({"error": str(exc)}, 400)
            except sqlite3.OperationalError as exc:
                return JSONResponse({"error": f"the index could not be read ({exc})"}, 503)

        return endpoint

    def stamp(request: Request) -> Response:
        """The index version and what the writer does; answers before the first index
        exists too (version ``""``), so the page can wait for it."""
        state = explorer.handle.writer.state
        data = {"stamp": "", "root": root.name, "state": state.state, "stage": state.stage,
                "done": state.done, "total": state.total}  # fmt: skip
        try:
            if explorer.handle.indexed():
                with explorer.reader() as conn:
                    data["stamp"] = index_version(conn)
        except (ToolInputError, sqlite3.OperationalError) as exc:
            data["error"] = str(exc)
        return JSONResponse(data)

    def project_map(conn: sqlite3.Connection, request: Request) -> dict[str, Any]:
        folder = request.query_params.get("folder", "")
        folder = folder_scope(conn, confine(root, folder)) if folder else ""
        cache = explorer.current(conn)
        return views.map_view(explorer.snapshot(conn), folder, cache.dead_files)

    def dead(conn: sqlite3.Connection, request: Request) -> dict[str, Any]:
        files, ids = explorer.dead(conn)
        return {"files": files, "ids": [str(i) for i in sorted(ids)]}

    def file(conn: sqlite3.Connection, request: Request) -> dict[str, Any]:
        path = confine(root, request.query_params.get("path", ""))
        outline = file_outline(conn, path)
        if outline is None:
            raise BadRequest(f"no indexed file '{path}'")
        return views.file_view(outline, explorer.cache.dead_ids)

    def symbol(conn: sqlite3.Connection, request: Request) -> dict[str, Any]:
        return views.symbol_view(conn, root, _symbol(conn, request))

    def impact(conn: sqlite3.Connection, request: Request) -> dict[str, Any]:
        return views.impact_view(conn, _symbol(conn, request), _depth(request, 2))

    def path(conn: sqlite3.Connection, request: Request) -> dict[str, Any]:
        src, dst = _symbol(conn, request, "from"), _symbol(conn, request, "to")
        return views.path_view(conn, root, src, dst, _depth(request, MAX_DEPTH))

    def find(conn: sqlite3.Connection, request: Request) -> dict[str, Any]:
        text = request.query_params.get("q", "").strip()[:500]
        mode = request.query_params.get("mode", "hybrid")
        if not text:
            return {"mode": mode, "symbols": [], "hits": [], "note": ""}
        found = [views.symbol_json(s) for s in search_symbols(conn, text, limit=30)]
        if mode == "symbols":
            return {"mode": mode, "symbols": found, "hits": [], "note": ""}
        provider, note = explorer.handle.query_provider(conn)
        hits = search(conn, explorer.handle.project.data_dir, text, limit=20, provider=provider)
        return {"mode": mode, "symbols": found[:10], "hits": views.search_view(hits),
                "note": note}  # fmt: skip

    def framework_routes(conn: sqlite3.Connection, request: Request) -> dict[str, Any]:
        return {"routes": views.routes_view(conn)}

    def page(request: Request) -> Response:
        if not BUNDLE.exists():
            return PlainTextResponse(BUILD_HELP, 503)
        return FileResponse(BUILD / "index.html", media_type="text/html")

    routes = [
        Route("/", page),
        Route("/api/stamp", stamp),
        Route("/api/map", api(project_map)),
        Route("/api/dead", api(dead)),
        Route("/api/file", api(file)),
        Route("/api/symbol", api(symbol)),
        Route("/api/impact", api(impact)),
        Route("/api/path", api(path)),
        Route("/api/search", api(find)),
        Route("/api/routes", api(framework_routes)),
        Mount("/static", StaticFiles(directory=BUILD, check_dir=False)),
    ]
    app = Starlette(routes=routes)
    app.add_middleware(LocalOnly, allowed=hosts)
    return app
