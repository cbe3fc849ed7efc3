"""The graph at monorepo scale: ``repolens index --no-embed`` on ~1k, ~7k and 30k+ files.

Run: ``python bench/graph_scale.py [--only small,medium,large] [--codegraph-timeout 1200]
[--no-codegraph] [--modes memory,disk] [--cache DIR]``.

The corpora are real code from PyPI wheels (downloaded once into ``--cache`` with ``pip
download --no-deps --only-binary :all:``; native libraries and metadata left out):

- small: mypy 2.4.1 (its own sources and typeshed's stubs, ~1.1k files);
- medium: Home Assistant 2024.3.3 (~6.7k Python files, ~36k files in all);
- large: those two and fifteen more packages side by side in one tree (Ansible 12 with
  its collections, Django, SymPy, pandas, SciPy, NumPy, scikit-learn, ...): 33k+ Python
  files, one "monorepo".

Each corpus is indexed by a fresh process with a fresh data directory, once per mode of
resolution: ``memory`` holds the whole project in memory (as every index did before the
``resolve_resident_symbols`` setting: it is set past any corpus here), ``disk`` reads each
file's rows from the index as needed (the setting at 0, as past its default size), so
the two rows side by side are the before and after of bounding memory; and by CodeGraph
1.6.1 (``codegraph init -y``, as in ``graph_index.py``) where it completes within the
timeout. Printed per corpus: files indexed, wall, CPU, peak memory of the process tree
(PSS, and the largest process's RSS), database size, and the same per 1,000 files, so
that linear growth reads as a flat column. One run each: at these sizes a run takes
minutes, and the per-file figures are the point. Nothing here is asserted.
"""

from __future__ import annotations

import argparse
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

SMALL = ["mypy==2.4.1"]
MEDIUM = ["homeassistant==2024.3.3"]
LARGE = [*SMALL, *MEDIUM, "ansible==12.3.0", "ansible-core==2.19.14", "django==5.2.19",
         "sympy==1.14.0", "pandas==3.1.1", "scipy==1.17.1", "numpy==2.4.6",
         "scikit-learn==1.9.1", "astropy==8.0.2", "twisted==26.10.0", "networkx==3.6.1",
         "sqlalchemy==2.1.9", "sphinx==9.0.4", "matplotlib==3.11.2",
         "botocore==1.44.8"]  # fmt: skip
CORPORA = {"small": SMALL, "medium": MEDIUM, "large": LARGE}
MODES = {"memory": str(10**12), "disk": "0"}  # resolve_resident_symbols
SKIPPED_SUFFIXES = (".so", ".pyd", ".dll", ".dylib", ".a")


@dataclass(slots=True)
class Row:
    tool: str
    corpus: str
    files: int
    measure: Measure | None  # None: did not complete
    db_bytes: int
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
    env = {**os.environ, "REPOLENS_DATA_DIR": str(data),
           "REPOLENS_RESOLVE_RESIDENT_SYMBOLS": MODES[mode]}  # fmt: skip
    measure = run_measured([*repolens_command(), "index", "--no-embed", str(root)], env)
    db = next(data.rglob("index.db"), None)
    files = _count(db, "files") if db else 0
    note = "" if measure.returncode == 0 else f"exit {measure.returncode}"
    row = Row(f"repolens ({mode})", root.name, files, measure, tree_size(data), note)
    shutil.rmtree(data, ignore_errors=True)
    return row


def run_codegraph(root: Path, binary: Path, timeout: int) -> Row:
    env = {**os.environ, **CODEGRAPH_ENV}
    args = ["timeout", str(timeout), str(binary), "init", "-y", str(root)]
    measure = run_measured(args, env)
    store = root / ".codegraph"
    db = store / "codegraph.db"
    files = _count(db, "files") if measure.returncode == 0 and db.exists() else 0
    size = tree_size(store) if store.exists() else 0
    shutil.rmtree(store, ignore_errors=True)
    if measure.returncode == 124:
        return Row("CodeGraph", root.name, files, None, size, f"not done in {timeout} s")
    note = "" if measure.returncode == 0 else f"exit {measure.returncode}"
    return Row("CodeGraph", root.name, files, measure, size, note)


def _count(db: Path, table: str) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def _mb(value: float) -> str:
    return f"{value / 1e6:,.0f} MB"


def report(rows: list[Row]) -> None:
    print("\n| tool | corpus | files | wall | CPU | peak PSS, tree | peak RSS, largest"
          " | database | wall / 1k files | PSS / 1k files |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        m = row.measure
        if m is None:
            print(f"| {row.tool} | {row.corpus} | — | {row.note} | | | | | | |")
            continue
        per = 1000 / max(row.files, 1)
        print(
            f"| {row.tool} | {row.corpus} | {row.files:,} | {m.wall:.1f} s | {m.cpu:.1f} s"
            f" | {_mb(m.tree_pss)} | {_mb(m.main_rss)} | {_mb(row.db_bytes)}"
            f" | {m.wall * per:.2f} s | {_mb(m.tree_pss * per)} |"
            + (f" {row.note}" if row.note else "")
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="small,medium,large")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/repolens-bench/scale"))
    parser.add_argument("--codegraph-timeout", type=int, default=1200)
    parser.add_argument("--no-codegraph", action="store_true")
    parser.add_argument("--modes", default="memory,disk", help="of resolution: memory, disk")
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
