"""Benchmark file discovery against ``find`` and ``git ls-files`` on large real trees.

Run: ``python bench/discover.py [--runs 3] [EXTRA_ROOT ...]``. Prints, per tree, the median
wall time of each tool, the files it produced, files/s, and its time relative to the
baseline measured in the same run (``find -type f`` for plain trees, ``git ls-files`` for
the git copy). ``discover`` does more than either baseline (ignore rules, one 8 KiB read per
kept file, language detection), so a ratio above 1 is expected; the figure to watch is
whether it stays a small constant factor. Warm page cache by default (every tool is run
once before timing); ``--cold`` (Linux, root) drops the page cache before every run instead.
Never asserted anywhere.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import statistics
import subprocess
import sysconfig
import tempfile
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import repolens.discover.core as discover_core
from repolens.discover import DiscoveryOptions, discover

GIT_ENV_ARGS = ["-c", "user.email=bench@example.com", "-c", "user.name=bench"]


def drop_page_cache() -> None:
    """Linux, root only: make the next run read from disk, as a first index after boot does."""
    subprocess.run(["sync"], check=True)
    Path("/proc/sys/vm/drop_caches").write_text("3\n")


def timed(fn: Callable[[], int], runs: int, cold: bool) -> tuple[float, int]:
    """Median seconds over ``runs`` (after a warm-up unless cold), and the last count."""
    count = 0 if cold else fn()
    times = []
    for _ in range(runs):
        if cold:
            drop_page_cache()
        start = time.perf_counter()
        count = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), count


def find_files(root: Path) -> int:
    out = subprocess.run(["find", str(root), "-type", "f"], capture_output=True, check=True)
    return out.stdout.count(b"\n")


def git_ls_files(root: Path) -> int:
    args = ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"]
    out = subprocess.run(args, cwd=root, capture_output=True, check=True)
    return out.stdout.count(b"\0")


def discover_files(root: Path) -> int:
    return len(discover(root, DiscoveryOptions()).files)


@contextlib.contextmanager
def check_mode(threaded: bool) -> Iterator[None]:
    """Force the file checks serial or threaded (normally chosen by probing the first files)."""
    saved = discover_core.COLD_BLOCKS_PER_FILE
    discover_core.COLD_BLOCKS_PER_FILE = 0.0 if threaded else float("inf")
    try:
        yield
    finally:
        discover_core.COLD_BLOCKS_PER_FILE = saved


def discover_forced(threaded: bool) -> Callable[[Path], int]:
    def run(root: Path) -> int:
        with check_mode(threaded):
            return discover_files(root)

    return run


def git_copy_of(source: Path, into: Path) -> Path:
    """A committed git repository holding a copy of ``source`` (caches ignored, as usual)."""
    repo = into / "repo"
    shutil.copytree(source, repo, symlinks=True, ignore=shutil.ignore_patterns("site-packages"))
    (repo / ".gitignore").write_text("__pycache__/\n*.pyc\n")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "copy"]):
        subprocess.run(["git", *GIT_ENV_ARGS, *args], cwd=repo, check=True, capture_output=True)
    return repo


Tool = tuple[str, Callable[[Path], int]]


def report(label: str, root: Path, baseline: Tool, runs: int, cold: bool) -> None:
    rows: list[tuple[str, float, int]] = []
    tools = [
        baseline,
        ("discover", discover_files),
        ("discover, serial checks", discover_forced(threaded=False)),
        ("discover, 8 threads", discover_forced(threaded=True)),
    ]
    for name, fn in tools:
        seconds, count = timed(partial(fn, root), runs, cold)
        rows.append((name, seconds, count))
    base_seconds = rows[0][1]
    print(f"\n{label}: {root}")
    print(f"  {'tool':<26}{'median s':>10}{'files':>9}{'files/s':>12}{'x baseline':>12}")
    for name, seconds, count in rows:
        rate = count / seconds if seconds else float("inf")
        ratio = seconds / base_seconds
        print(f"  {name:<26}{seconds:>10.3f}{count:>9}{rate:>12,.0f}{ratio:>12.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cold", action="store_true", help="drop the page cache before each run")
    parser.add_argument("roots", nargs="*", type=Path, help="more trees to measure")
    args = parser.parse_args()
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    venv_site = Path(sysconfig.get_paths()["purelib"])
    global_site = stdlib / "site-packages"
    plain = [("CPython stdlib", stdlib), ("venv site-packages", venv_site)]
    if global_site.is_dir() and global_site != venv_site:
        plain.append(("interpreter site-packages", global_site))
    plain += [(f"extra {i}", root) for i, root in enumerate(args.roots)]
    for label, root in plain:
        report(label, root, ("find -type f", find_files), args.runs, args.cold)
    with tempfile.TemporaryDirectory() as tmp:
        repo = git_copy_of(stdlib, Path(tmp))
        report("git copy of the stdlib", repo, ("git ls-files", git_ls_files), args.runs, args.cold)


if __name__ == "__main__":
    main()
