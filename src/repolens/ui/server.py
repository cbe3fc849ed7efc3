"""Running the explorer: uvicorn on 127.0.0.1, the project's writer keeping the index
fresh, and a note in the data dir saying where the explorer listens (so the MCP
``diagram`` tool can hand an agent a link to a live view)."""

from __future__ import annotations

import threading
import time
import webbrowser

import uvicorn

from repolens.mcp.runtime import Runtime
from repolens.project import Project
from repolens.ui import registry
from repolens.ui.app import Explorer, build_app
from repolens.ui.guard import LOCAL_HOSTS


def serve(project: Project, host: str, port: int, *, open_browser: bool) -> None:
    """Serve until interrupted; the writer indexes (if needed) and watches meanwhile."""
    runtime = Runtime(project)
    runtime.auto_start()
    app = build_app(Explorer(runtime.main), hosts=LOCAL_HOSTS | {host.lower()})
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False)
    server = uvicorn.Server(config)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    threading.Thread(
        target=_announce, args=(server, project, url, open_browser), daemon=True
    ).start()
    try:
        server.run()
    finally:
        registry.withdraw(project)
        runtime.main.writer.cancel(wait=5.0)


def _announce(server: uvicorn.Server, project: Project, url: str, open_browser: bool) -> None:
    """Once listening: say where, leave the note, open the browser if asked."""
    while not server.started:
        if server.should_exit:
            return
        time.sleep(0.05)
    registry.announce(project, url)
    print(f"repolens explorer for {project.root} at {url} (Ctrl-C to stop)", flush=True)
    if open_browser:
        webbrowser.open(url)
