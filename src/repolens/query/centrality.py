"""Reading centrality (see :mod:`repolens.resolve.centrality`) for ranking.

A chunk's centrality is that of the most central symbol defined inside it, else that of
the innermost symbol around it; mapped to [0, 1] on a log scale, where the average
symbol (1.0) reads 0 and ``CEILING`` times the average or more reads 1. An index made
before centrality existed has no values: every chunk reads 0, as if ranked without it.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

CEILING = 30.0  # times the average symbol's centrality that reads as 1.0
_SLICE = 500


@dataclass(frozen=True, slots=True)
class Span:
    """Where a ranked thing lies: a chunk or a symbol."""

    path: str
    start_line: int
    end_line: int


def signal(value: float) -> float:
    """A stored centrality value as a [0, 1] ranking signal."""
    if value <= 1.0:
        return 0.0
    return min(1.0, math.log(value) / math.log(CEILING))


def span_centrality(conn: sqlite3.Connection, spans: Iterable[Span]) -> dict[Span, float]:
    """The [0, 1] signal of each span (0 when nothing in it is ranked)."""
    wanted = list(dict.fromkeys(spans))
    paths = sorted({s.path for s in wanted})
    by_path: dict[str, list[tuple[int, int, float]]] = {}
    for first in range(0, len(paths), _SLICE):
        part = paths[first : first + _SLICE]
        marks = ",".join("?" * len(part))
        rows = conn.execute(
            "SELECT f.path, s.start_line, s.end_line, c.value FROM centrality c"
            " JOIN symbols s ON s.id = c.symbol_id JOIN files f ON f.id = s.file_id"
            f" WHERE f.path IN ({marks}) AND s.kind != 'file'",
            part,
        )
        for path, start, end, value in rows:
            by_path.setdefault(str(path), []).append((int(start), int(end), float(value)))
    return {span: signal(_value(span, by_path.get(span.path, []))) for span in wanted}


def _value(span: Span, symbols: list[tuple[int, int, float]]) -> float:
    inside = [v for start, _, v in symbols if span.start_line <= start <= span.end_line]
    if inside:
        return max(inside)
    around = [(end - start, v) for start, end, v in symbols
              if start <= span.start_line and span.end_line <= end]  # fmt: skip
    return min(around)[1] if around else 0.0
