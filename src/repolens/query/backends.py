"""Choosing a project's search backend from its settings (``search_backend``).

``embedded`` (the default) searches this index. ``qdrant`` searches the project's tenant
in a Qdrant collection and overlays the files that differ locally from what was pushed.
A Qdrant that cannot be reached costs the remote half, never the search: the answer
then comes from the local index, with a note saying so.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from repolens.project import Project
from repolens.query.backend import SearchBackend
from repolens.store.qdrant import BackendConfigError, QdrantUnavailable, Target, qdrant_target

if TYPE_CHECKING:
    from repolens.store.qdrant import Client


@dataclass(frozen=True, slots=True)
class Chosen:
    """The backend to pass to :func:`repolens.query.search.search` (``None``: the
    embedded one), the embedding key its vectors were made with (``None``: unknown or
    none), and a note for the user when something fell back."""

    backend: SearchBackend | None
    embedding_key: str | None = None
    note: str = ""


_clients: dict[Target, Client] = {}
_clients_lock = threading.Lock()


def _client(target: Target) -> Client:
    """One client per target and process: a server keeps its connection pool, and a
    local-mode directory (which one client at a time may open) stays open."""
    from repolens.store.qdrant import connect

    with _clients_lock:
        if target not in _clients:
            _clients[target] = connect(target)
        return _clients[target]


def choose_backend(project: Project, conn: sqlite3.Connection) -> Chosen:
    """The configured backend, ready to search (see module docstring)."""
    if project.settings.search_backend != "qdrant":
        return Chosen(None)
    from repolens.query.embedded import EmbeddedBackend
    from repolens.query.qdrant import SERVER_WEIGHT, QdrantBackend
    from repolens.store.qdrant_push import overlay_paths, read_manifest

    try:
        target = qdrant_target(project)
        client = _client(target)
        manifest = read_manifest(client, target)
    except (BackendConfigError, QdrantUnavailable) as exc:
        return Chosen(None, note=f"{exc}; searched the local index")
    except Exception as exc:  # the client raises many kinds: refused, timeout, TLS, HTTP
        return Chosen(None, note=f"Qdrant unreachable ({exc}); searched the local index")
    if manifest is None:
        return Chosen(
            None,
            note=f"nothing pushed to {target.collection}/{target.tenant} yet"
            " (`repolens index --push`); searched the local index",
        )
    overlay, note = overlay_paths(project.root, manifest)
    local = EmbeddedBackend(conn, project.data_dir, SERVER_WEIGHT)
    embedding = manifest.get("embedding") or {}
    key = embedding.get("key")
    backend = QdrantBackend(conn, client, target, local, overlay)
    return Chosen(backend, str(key) if key else None, note or "")
