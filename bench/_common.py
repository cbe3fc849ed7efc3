"""Measuring a command as a user sees it: wall time, CPU, and memory of its whole tree.

Shared by the bench scripts that run tools as subprocesses. Linux only (``/proc`` and GNU
``/usr/bin/time``). Three memory figures are kept because each alone misleads:

- ``main_rss``: GNU time's "maximum resident set size", which the kernel reports as the
  largest single process of the tree (``wait4`` rusage), not a sum;
- ``tree_rss``: the peak of the sum of RSS over the process and all its descendants,
  sampled; pages shared by forked workers are counted once per process, so it overstates;
- ``tree_pss``: the same sum of PSS (shared pages split among their users), the fairest
  figure for what the tree costs the machine. Sampling can miss a short spike.
"""

from __future__ import annotations

import compileall
import os
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

SAMPLE_SECONDS = 0.1  # a /proc scan each time: finer sampling costs the measured tools CPU


@dataclass(slots=True)
class Measure:
    wall: float  # seconds
    cpu: float  # user + system seconds of the process and its reaped descendants
    main_rss: int  # bytes
    tree_rss: int  # bytes
    tree_pss: int  # bytes
    returncode: int
    stdout: str


def compile_bytecode() -> None:
    """Byte-compile repolens as installing its wheel does, before timing it.

    An editable install compiles nothing, and with ``PYTHONDONTWRITEBYTECODE`` set (as on
    the machines these figures come from) Python never caches what it compiles: every
    measured process would spend about 0.2 s compiling repolens from source, a cost no
    user of ``pip install repolens`` pays. Python reads ``.pyc`` files even when it may not
    write them, so writing them here once is enough.
    """
    import repolens

    compileall.compile_dir(Path(repolens.__file__).parent, quiet=1)


def _ppids() -> dict[int, int]:
    """pid → parent pid for every process we can see."""
    out: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue
        out[int(name)] = int(stat[stat.rindex(")") + 2 :].split()[1])
    return out


def descendants(root: int) -> list[int]:
    """``root`` and every process below it (a /proc scan: this kernel has no ``children``)."""
    by_parent: dict[int, list[int]] = {}
    for pid, ppid in _ppids().items():
        by_parent.setdefault(ppid, []).append(pid)
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(by_parent.get(pid, []))
    return found


def _memory_kb(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of one process in KiB; zeros if it is gone."""
    rss = pss = 0
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Rss:"):
                rss = int(line.split()[1])
            elif line.startswith("Pss:"):
                pss = int(line.split()[1])
    except (OSError, ValueError):
        pass
    return rss, pss


class TreeSampler(threading.Thread):
    """Samples the summed RSS and PSS of a process tree until stopped; keeps the peaks."""

    def __init__(self, root: int, skip: int | None = None) -> None:
        super().__init__(daemon=True)
        self.root, self.skip = root, skip
        self.peak_rss = self.peak_pss = 0
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.is_set():
            rss = pss = 0
            for pid in descendants(self.root):
                if pid != self.skip:
                    one_rss, one_pss = _memory_kb(pid)
                    rss, pss = rss + one_rss, pss + one_pss
            self.peak_rss, self.peak_pss = max(self.peak_rss, rss), max(self.peak_pss, pss)
            self._stop_event.wait(SAMPLE_SECONDS)

    def stop(self) -> None:
        self._stop_event.set()
        self.join()


def _time_field(report: str, label: str) -> float:
    for line in report.splitlines():
        if line.strip().startswith(label):
            return float(line.rsplit(":", 1)[1])
    raise ValueError(f"no {label!r} in /usr/bin/time output")


def run_measured(
    args: Sequence[str], env: Mapping[str, str] | None = None, cwd: Path | None = None
) -> Measure:
    """Run ``args`` under ``/usr/bin/time -v`` while sampling its tree (``time`` excluded)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        command = ["/usr/bin/time", "-v", "-o", report.name, *args]
        started = time.perf_counter()
        proc = subprocess.Popen(
            command, env=dict(env) if env else None, cwd=cwd,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        sampler = TreeSampler(proc.pid, skip=proc.pid)
        sampler.start()
        stdout, _ = proc.communicate()
        wall = time.perf_counter() - started
        sampler.stop()
        text = report.read()
    cpu = _time_field(text, "User time") + _time_field(text, "System time")
    main_rss = int(_time_field(text, "Maximum resident set size")) * 1024
    return Measure(wall, cpu, main_rss, sampler.peak_rss * 1024, sampler.peak_pss * 1024,
                   proc.returncode, stdout)  # fmt: skip


def tree_size(path: Path) -> int:
    """Bytes in files below ``path`` (a database and its WAL, say)."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def load_line() -> str:
    """Load average and cores, for reading wall times taken on a shared machine."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"
