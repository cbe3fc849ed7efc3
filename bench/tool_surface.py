"""What an agent pays on every turn for repolens's MCP tools: the tools ``tools/list``
returns, the characters of their descriptions, of their whole entries (schemas too),
and of the instructions sent at initialize.

Each project is served by a real ``repolens serve`` (stdio, embeddings and the watcher
off) and asked through the MCP SDK's client, once per setting of ``mcp_tools``: the
default (``auto``: a small set on small projects) beside ``all``. ``--baseline-src``
adds the same figures for another checkout's ``src`` (an earlier commit) as the
baseline, in the same run.

    python bench/tool_surface.py [--baseline-src /tmp/before/src] [PROJECT ...]

Without projects it measures the MCP test fixture (a small project) and this checkout.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[1]
DEFAULT_PROJECTS = (REPO / "tests" / "fixtures" / "mcp" / "sample", REPO)


@dataclass(frozen=True, slots=True)
class Surface:
    tools: int
    description_chars: int
    entry_chars: int  # each tool's JSON entry: name, description, schema, annotations
    instructions_chars: int


async def _measure(project: Path, src: Path, tools: str) -> Surface:
    env = {**os.environ, "REPOLENS_EMBED_PROVIDER": "none", "REPOLENS_WATCH": "off",
           "PYTHONPATH": str(src)}  # fmt: skip
    if tools:
        env["REPOLENS_MCP_TOOLS"] = tools
    else:
        env.pop("REPOLENS_MCP_TOOLS", None)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "repolens", "serve", "--project", str(project)],
        env=env, cwd=str(project),
    )  # fmt: skip
    with open(os.devnull, "w") as quiet:  # the server's start-up line
        async with (
            stdio_client(params, errlog=quiet) as (read, write),
            ClientSession(read, write) as session,
        ):
            init = await session.initialize()
            listed = (await session.list_tools()).tools
    entries = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed]
    return Surface(
        tools=len(listed),
        description_chars=sum(len(t.description or "") for t in listed),
        entry_chars=sum(len(json.dumps(e, ensure_ascii=False)) for e in entries),
        instructions_chars=len(init.instructions or ""),
    )


def _indexed_copy(project: Path, into: Path) -> Path:
    """A copy of ``project`` indexed once (graph and keywords), so that each server
    starts on an indexed project of known size."""
    copy = into / project.name
    ignore = shutil.ignore_patterns(".git", ".repolens", ".venv", "node_modules", "__pycache__")
    shutil.copytree(project, copy, ignore=ignore)
    env = {**os.environ, "REPOLENS_EMBED_PROVIDER": "none"}
    subprocess.run([sys.executable, "-m", "repolens", "index", "--no-embed", str(copy)],
                   env=env, check=True, capture_output=True, timeout=1800)  # fmt: skip
    return copy


def _files(project: Path) -> int:
    out = subprocess.run([sys.executable, "-m", "repolens", "status", "--json"], cwd=project,
                         capture_output=True, text=True, check=True, timeout=120)  # fmt: skip
    return int(json.loads(out.stdout)["files"]["indexed"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("projects", nargs="*", type=Path)
    parser.add_argument("--baseline-src", type=Path, default=None,
                        help="src folder of the checkout to compare with")  # fmt: skip
    args = parser.parse_args()
    runs = [
        ("this checkout, default", REPO / "src", ""),
        ("this checkout, all", REPO / "src", "all"),
    ]
    if args.baseline_src is not None:
        runs.insert(0, ("baseline", args.baseline_src.resolve(), ""))
    print(f"{'project':<22} {'files':>6}  {'server':<24} {'tools':>5} {'descr. chars':>12}"
          f" {'entry chars':>11} {'instr. chars':>12}")  # fmt: skip
    with tempfile.TemporaryDirectory() as scratch:
        for project in [p.resolve() for p in args.projects or DEFAULT_PROJECTS]:
            copy = _indexed_copy(project, Path(scratch))
            files = _files(copy)
            for name, src, tools in runs:
                got = anyio.run(_measure, copy, src, tools)
                print(f"{project.name:<22} {files:>6}  {name:<24} {got.tools:>5}"
                      f" {got.description_chars:>12,} {got.entry_chars:>11,}"
                      f" {got.instructions_chars:>12,}")  # fmt: skip


if __name__ == "__main__":
    main()
