"""Where the browser tests find their tools: Debian's chromium and the Node packages of
``web/`` (``npm ci`` there). ``.ci/run`` installs both; elsewhere a test that needs one
is skipped with the command that brings it, except under CI, where a missing tool fails."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
WEB = REPO / "web"
NODE_BIN = WEB / "node_modules" / ".bin"
# Flags for a quiet, self-contained headless run (no first-run UI, no network chatter).
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def need(what: str, how: str) -> None:
    """Skip (or, under CI, fail) because ``what`` is missing; ``how`` installs it."""
    message = f"{what} is missing: {how}"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        need("Debian's chromium", "apt-get install -y chromium chromium-driver")
    return str(path)


def node_tool(name: str) -> Path:
    """A program of ``web/node_modules/.bin`` (``mmdc``, ``playwright-core``...)."""
    tool = NODE_BIN / name
    if shutil.which("node") is None or not tool.exists():
        need(f"the Node tool {name}", f"cd {WEB} && PUPPETEER_SKIP_DOWNLOAD=1 npm ci")
    return tool


def puppeteer_config(folder: Path) -> Path:
    """A puppeteer config for mermaid-cli that runs Debian's chromium, not a download."""
    path = folder / "puppeteer.json"
    flags = [f for f in CHROMIUM_FLAGS if f != "--headless"]
    config = {"executablePath": chromium(), "headless": True, "args": flags}
    path.write_text(json.dumps(config), encoding="utf-8")
    return path
