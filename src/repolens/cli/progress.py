"""Progress where no bar can be drawn: a plain line on stderr every few seconds.

Agents' shells and CI capture stderr rather than show a terminal, so a rich bar would be
either invisible or a flood of control codes. A line per stage every ``INTERVAL``
seconds (and when a stage completes) says how far it is, how fast it goes and about how
long is left, e.g. ``embed: 1,200/4,800 chunks (25%), 41 chunks/s, about 1m 28s left``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

INTERVAL = 5.0
UNITS = {"embed": "chunks"}  # other stages count files


@dataclass(slots=True)
class _Stage:
    started: float
    shown: float
    done: int = 0
    finished: bool = False


@dataclass(slots=True)
class ProgressLines:
    """``ProgressFn`` printing plain lines; ``clock`` is there for tests."""

    stream: TextIO = field(default_factory=lambda: sys.stderr)
    interval: float = INTERVAL
    clock: Callable[[], float] = time.monotonic
    _stages: dict[str, _Stage] = field(default_factory=dict)

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = self.clock()
        state = self._stages.setdefault(stage, _Stage(now, now))
        state.done = done
        complete = total > 0 and done >= total
        if state.finished or not (complete or now - state.shown >= self.interval):
            return
        state.shown, state.finished = now, complete
        print(f"{stage}: {describe(done, total, now - state.started, UNITS.get(stage, 'files'))}",
              file=self.stream, flush=True)  # fmt: skip


def describe(done: int, total: int, seconds: float, unit: str) -> str:
    """``1,200/4,800 chunks (25%), 41 chunks/s, about 1m 28s left``."""
    share = f" ({100 * done / total:.0f}%)" if total else ""
    text = f"{done:,}/{total:,} {unit}{share}"
    if seconds <= 0 or done <= 0:
        return text
    rate = done / seconds
    text += f", {rate:,.0f} {unit}/s" if rate >= 10 else f", {rate:.1f} {unit}/s"
    if total > done:
        text += f", about {duration((total - done) / rate)} left"
    else:
        text += f", done in {duration(seconds)}"
    return text


def duration(seconds: float) -> str:
    """``45s``, ``3m 05s``, ``1h 02m``: how long, as a person says it."""
    whole = round(seconds)
    if whole < 60:
        return f"{max(whole, 0)}s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes}m {secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"
