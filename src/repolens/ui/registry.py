"""Where a running explorer listens: a note in the project's data dir, written by
``repolens ui`` once it serves and removed when it stops. Read by the MCP ``diagram`` tool
to hand out links to live views; a note whose process is gone counts as no explorer."""

from __future__ import annotations

import contextlib
import json
import os
from urllib.parse import urlencode

from repolens.project import Project

NOTE = "ui.json"


def announce(project: Project, url: str) -> None:
    note = {"url": url, "pid": os.getpid(), "root": str(project.root)}
    with contextlib.suppress(OSError):
        (project.data_dir / NOTE).write_text(json.dumps(note), encoding="utf-8")


def withdraw(project: Project) -> None:
    with contextlib.suppress(OSError):
        (project.data_dir / NOTE).unlink()


def running_url(project: Project) -> str | None:
    """The base URL of an explorer serving ``project`` now, or ``None``."""
    try:
        data = json.loads((project.data_dir / NOTE).read_text(encoding="utf-8"))
        pid, url = int(data["pid"]), str(data["url"])
        os.kill(pid, 0)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return url


def view_url(base: str, view: str, **params: str) -> str:
    """A deep link to one of the explorer's views (``#/symbol?id=…``)."""
    query = urlencode({k: v for k, v in params.items() if v})
    return f"{base}#/{view}" + (f"?{query}" if query else "")
