"""The ``health`` tool's checks: each says ok, warn or fail and what to do about it.

They are cheap (no model is loaded, nothing is written) so an agent can call ``health``
first when something looks wrong.
"""

from __future__ import annotations

import importlib.metadata
import platform
import sqlite3

from repolens import __version__
from repolens.embed.runtimes import NUMPY, RUNTIMES, Runtime, why_unavailable
from repolens.index.lock import writer_status
from repolens.mcp.runtime import ProjectHandle
from repolens.parse.registry import LINE_ONLY, grammar_status
from repolens.store.db import StoreError, connect, latest_version, schema_version

Check = tuple[str, str]  # (level, text)


def health_checks(handle: ProjectHandle) -> list[Check]:
    return [
        _runtime(),
        _sqlite(),
        _index(handle),
        _grammars(),
        _embeddings(handle),
        _writer(handle),
    ]


def _runtime() -> Check:
    try:
        sdk = importlib.metadata.version("mcp")
    except importlib.metadata.PackageNotFoundError:
        sdk = "?"
    return "ok", f"Python {platform.python_version()}, repolens {__version__}, MCP SDK {sdk}"


def _sqlite() -> Check:
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
    except sqlite3.OperationalError:
        return "fail", f"SQLite {sqlite3.sqlite_version} has no FTS5: keyword search cannot work"
    finally:
        conn.close()
    return "ok", f"SQLite {sqlite3.sqlite_version} with FTS5"


def _index(handle: ProjectHandle) -> Check:
    path = handle.project.db_path
    if not path.exists():
        return "warn", f"no index at {path} yet: call `index`"
    try:
        conn = connect(path, readonly=True)
    except StoreError as exc:
        return "fail", str(exc)
    try:
        version = schema_version(conn)
        files = conn.execute("SELECT count(*) FROM files").fetchone()[0]
    finally:
        conn.close()
    size = path.stat().st_size / 1e6
    return "ok", (
        f"index {path} ({size:.1f} MB, {files} files, schema {version}/{latest_version()})"
    )


def _grammars() -> Check:
    status = grammar_status()
    lines = sorted(lang for lang, why in status.items() if why == LINE_ONLY)
    broken = {lang: why for lang, why in status.items() if why not in ("ok", LINE_ONLY)}
    loaded = sorted(lang for lang, why in status.items() if why == "ok")
    line_level = f"; line-level only (no grammar wheel): {', '.join(lines)}" if lines else ""
    if broken:
        listed = "; ".join(f"{lang}: {why}" for lang, why in sorted(broken.items()))
        return "warn", (
            f"grammars loaded: {', '.join(loaded) or 'none'}; unavailable: {listed}{line_level}"
        )
    return "ok", f"grammars: {', '.join(loaded)}{line_level}"


def _embeddings(handle: ProjectHandle) -> Check:
    if handle.project.settings.embed_provider == "none":
        return "ok", "embeddings off (embed_provider = none): keyword search only"
    provider, why = handle.provider()
    if provider is None:
        return "warn", f"{why}; search runs on keywords only"
    runtime = getattr(provider, "runtime", None)
    if runtime is None:
        return "ok", f"embedding provider {provider.profile.key()}"
    return "ok", f"embedding provider {provider.profile.key()}; {runtime_line(runtime)}"


def runtime_line(chosen: Runtime) -> str:
    """The local model's runtime and what else this machine could run, GPU first, e.g.
    ``runtime openvino-bf16 (auto); GPU: none (onnxruntime-cuda-fp32: no NVIDIA GPU...)``."""
    gpus = [r for r in RUNTIMES if r.device != "cpu"]
    usable = [r.name for r in gpus if not why_unavailable(r)]
    gpu = ", ".join(usable) if usable else "none (" + "; ".join(
        f"{r.name}: {why_unavailable(r)}" for r in gpus) + ")"  # fmt: skip
    faster = "" if chosen != NUMPY else (
        "; numpy is the slow reference: pip install 'repolens[fast]' for OpenVINO (bf16)"
        " or 'repolens[onnx]' for onnxruntime (int8)"
    )  # fmt: skip
    return f"runtime {chosen.name}; GPU: {gpu}{faster}"


def _writer(handle: ProjectHandle) -> Check:
    writer = writer_status(handle.project.data_dir)
    if writer is None:
        return "ok", "writer lock: free"
    if writer.get("stale"):
        return "warn", f"writer {writer['role']} (pid {writer['pid']}): heartbeat is stale"
    return "ok", f"writer: {writer['role']} (pid {writer['pid']} on {writer['host']})"
