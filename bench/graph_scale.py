"""The graph at monorepo scale: ``repolens index --no-embed`` on ~1k, ~7k, ~35k and ~71k files.

Run: ``python bench/graph_scale.py [--only small,medium,large,all] [--codegraph-timeout 1200]
[--no-codegraph] [--modes default,memory,disk] [--cache DIR]``.

The corpora are real code from PyPI wheels (downloaded once into ``--cache`` with ``pip
download --no-deps --only-binary :all:``; native libraries and metadata left out):

- small: mypy 2.4.1 (its own sources and typeshed's stubs, ~1.2k files);
- medium: eight packages side by side (SymPy, pandas, Django, SciPy, NumPy, Twisted,
  NetworkX, SQLAlchemy): ~7k Python files;
- large: sixteen packages, one "monorepo" (the medium tree, mypy, Ansible 12 with its
  collections, ansible-core, Astropy, scikit-learn, Matplotlib, Sphinx, botocore):
  ~35k files, ~27k of them Python;
- all: the large tree and Home Assistant 2024.3.3 (~36k files, 6.7k of them Python, the
  rest JSON): ~71k files.

Each corpus is indexed by a fresh process with a fresh data directory, once per mode of
resolution: ``default`` leaves ``resolve_resident_symbols`` alone (in memory up to its
size, from the index past it: what a user gets), ``memory`` sets it past any corpus (the
whole project in memory, as every index did before the setting), ``disk`` sets it to 0
(each file's rows read from the index as needed); and by CodeGraph 1.6.1 (``codegraph
init -y``, as in ``graph_index.py``) on the same tree, stopped at the timeout (its figures
up to then are printed). Printed per run: files indexed, wall, CPU, peak memory of the
process tree (PSS, and the largest process's RSS), database size, CPU per 1,000 files (so
that linear growth reads as a flat column) and the load average before and after. One run
each: at these sizes a run takes minutes, and the per-file figures are the point. Nothing
here is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

from _common import Measure, compile_bytecode, load_line, run_measured, tree_size
from graph_index import CODEGRAPH_ENV, codegraph_binary, repolens_command
from repolens.resolve.tables import RESIDENT_SYMBOLS

SMALL = ["mypy==2.4.1"]
MEDIUM = ["sympy==1.14.0", "pandas==3.1.1", "django==5.2.19", "scipy==1.17.1",
          "numpy==2.4.6", "twisted==26.10.0", "networkx==3.6.1",
          "sqlalchemy==2.1.9"]  # fmt: skip
LARGE = [*SMALL, *MEDIUM, "ansible==12.3.0", "ansible-core==2.19.14", "astropy==8.0.2",
         "scikit-learn==1.9.1", "matplotlib==3.11.2", "sphinx==9.0.4",
         "botocore==1.44.8"]  # fmt: skip
ALL = [*LARGE, "homeassistant==2024.3.3"]
CORPORA = {"small": SMALL, "medium": MEDIUM, "large": LARGE, "all": ALL}
MODES = {"default": None, "memory": str(10**12), "disk": "0"}  # resolve_resident_symbols
SKIPPED_SUFFIXES = (".so", ".pyd", ".dll", ".dylib", ".a")


@dataclass(slots=True)
class Row:
    tool: str
    corpus: str
    files: int
    measure: Measure
    db_bytes: int
    load: str  # load average (1 min) before and after
    note: str = ""


def package_tree(cache: Path, spec: str) -> Path:
    """The files of ``spec``'s wheel, unpacked once under ``cache``."""
    name = spec.split("==")[0].replace("-", "_").lower()
    root = cache / "src" / name
    if root.is_dir():
        return root
    downloads = cache / "downloads"
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                    "--only-binary", ":all:", spec, "-d", str(downloads)], check=True)  # fmt: skip
    version = spec.split("==")[1]
    wheel = next(
        w for w in downloads.glob("*.whl") if w.name.lower().startswith(f"{name}-{version}")
    )
    partial = root.with_name(name + ".partial")
    with zipfile.ZipFile(wheel) as archive:
        members = [
            n for n in archive.namelist()
            if ".dist-info/" not in n and not n.endswith(SKIPPED_SUFFIXES)
        ]  # fmt: skip
        archive.extractall(partial, members)
    partial.rename(root)
    return root


def corpus_tree(cache: Path, work: Path, name: str) -> Path:
    """A fresh tree of the corpus's packages side by side (hard links: no copy)."""
    root = work / name
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    for spec in CORPORA[name]:
        source = package_tree(cache, spec)
        shutil.copytree(source, root / source.name, copy_function=os.link)
    return root


def run_repolens(root: Path, mode: str) -> Row:
    data = root.with_name(root.name + "-data")
    shutil.rmtree(data, ignore_errors=True)
    env = {**os.environ, "REPOLENS_DATA_DIR": str(data)}
    env.pop("REPOLENS_RESOLVE_RESIDENT_SYMBOLS", None)
    if (resident := MODES[mode]) is not None:
        env["REPOLENS_RESOLVE_RESIDENT_SYMBOLS"] = resident
    before = _load()
    args = [*repolens_command(), "index", "--no-embed", "--json", str(root)]
    measure = run_measured(args, env)
    load = f"{before}–{_load()}"
    db = next(data.rglob("index.db"), None)
    files = _count(db, "files") if db else 0
    note = f"exit {measure.returncode}" if measure.returncode else _phases(measure.stdout, db)
    row = Row(f"repolens ({mode})", root.name, files, measure, tree_size(data), load, note)
    shutil.rmtree(data, ignore_errors=True)
    return row


def run_codegraph(root: Path, binary: Path, timeout: int) -> Row:
    env = {**os.environ, **CODEGRAPH_ENV}
    args = ["timeout", str(timeout), str(binary), "init", "-y", str(root)]
    before = _load()
    measure = run_measured(args, env)
    load = f"{before}–{_load()}"
    store = root / ".codegraph"
    db = store / "codegraph.db"
    files = _count(db, "files") if db.exists() else 0
    size = tree_size(store) if store.exists() else 0
    shutil.rmtree(store, ignore_errors=True)
    notes = {0: "", 124: f"stopped at {timeout} s, not done (figures up to then)"}
    note = notes.get(measure.returncode, f"exit {measure.returncode}")
    return Row("CodeGraph", root.name, files, measure, size, load, note)


def _count(db: Path, table: str) -> int:
    """Rows in ``table`` (0 where a run stopped before making it)."""
    with sqlite3.connect(db) as conn:
        try:
            return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
        except sqlite3.OperationalError:
            return 0


def _phases(stdout: str, db: Path | None) -> str:
    """Each phase's wall seconds (from the run's report), how it resolved, and the edges
    (the same count before and after a change that should not alter the graph)."""
    last = next((line for line in reversed(stdout.splitlines()) if line.startswith("{")), "")
    try:  # the last line (progress goes to stderr, which is read with it)
        report = json.loads(last)["index"]
    except (ValueError, KeyError):
        return "no report"
    phases = ", ".join(f"{name} {seconds:.0f} s" for name, seconds in report["timings"].items())
    symbols = _count(db, "symbols") if db else 0
    where = "from the index" if symbols > resident_symbols() else "in memory"
    return f"{phases}; {symbols:,} symbols, resolved {where}; {report['edges']:,} edges"


def resident_symbols() -> int:
    """The size past which the default resolves from the index (see ``ondisk``)."""
    return int(os.environ.get("REPOLENS_RESOLVE_RESIDENT_SYMBOLS", RESIDENT_SYMBOLS))


def _load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def _mb(value: float) -> str:
    return f"{value / 1e6:,.0f} MB"


def report(rows: list[Row]) -> None:
    print("\n| tool | corpus | files | wall | CPU | peak PSS, tree | peak RSS, largest"
          " | database | CPU / 1k files | PSS / 1k files | load |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        m = row.measure
        per = 1000 / max(row.files, 1)
        print(
            f"| {row.tool} | {row.corpus} | {row.files:,} | {m.wall:.1f} s | {m.cpu:.1f} s"
            f" | {_mb(m.tree_pss)} | {_mb(m.main_rss)} | {_mb(row.db_bytes)}"
            f" | {m.cpu * per:.2f} s | {_mb(m.tree_pss * per)} | {row.load} |"
            + (f" {row.note}" if row.note else "")
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="small,medium,large")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/repolens-bench/scale"))
    parser.add_argument("--codegraph-timeout", type=int, default=1200)
    parser.add_argument("--no-codegraph", action="store_true")
    parser.add_argument("--modes", default="default", help="of resolution: default, memory, disk")
    args = parser.parse_args()
    compile_bytecode()
    binary = None if args.no_codegraph else codegraph_binary(args.cache / "codegraph")
    work = args.cache / "work"
    rows = []
    for name in args.only.split(","):
        root = corpus_tree(args.cache, work, name)
        print(f"{name}: {load_line()}", flush=True)
        for mode in args.modes.split(","):
            rows.append(run_repolens(root, mode))
            report(rows[-1:])
        if binary is not None:
            rows.append(run_codegraph(root, binary, args.codegraph_timeout))
            report(rows[-1:])
        shutil.rmtree(root, ignore_errors=True)
    report(rows)


if __name__ == "__main__":
    main()
