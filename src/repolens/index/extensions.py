"""Extra file extensions given per run (``--extra-ext .tpl,.blade``, the tools'
``extraExtensions``), remembered by the index.

An extension asked for once must stay indexed: if the next ``update``, or the watcher, did
not know it, it would see those files as deleted and drop them. So the index keeps the
extensions it was asked for in ``meta``, and every later run discovers with them, on top
of the ``extra_extensions`` setting (which wins where both name an extension).
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Mapping

from repolens.config import Settings, parse_setting
from repolens.project import Project
from repolens.store.db import get_meta, set_meta

META_KEY = "extra_extensions"


def parse_extra_extensions(text: str, origin: str) -> dict[str, str]:
    """``.tpl,.blade:php`` validated as the ``extra_extensions`` setting is (a bare
    extension is indexed as text); a ``ConfigError`` names ``origin`` otherwise."""
    parsed: dict[str, str] = parse_setting("extra_extensions", text, origin)
    return parsed


def remembered(conn: sqlite3.Connection) -> dict[str, str]:
    raw = get_meta(conn, META_KEY)
    return dict(json.loads(raw)) if raw else {}


def remember(conn: sqlite3.Connection, extra: Mapping[str, str]) -> None:
    """Add ``extra`` to what the index remembers (the writer calls this under its lock)."""
    if extra:
        merged = {**remembered(conn), **extra}
        set_meta(conn, META_KEY, json.dumps(merged, sort_keys=True))
        conn.commit()


def with_remembered(project: Project, conn: sqlite3.Connection) -> Project:
    """``project`` with the remembered extensions added to its settings' own."""
    extra = remembered(conn)
    if not extra:
        return project
    settings = project.settings
    values = {**settings.values, "extra_extensions": {**extra, **settings.extra_extensions}}
    return dataclasses.replace(project, settings=Settings(values, settings.sources))
