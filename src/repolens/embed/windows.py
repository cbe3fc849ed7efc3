"""Split a document into windows that fit a model's context, at line boundaries.

A model silently ignores everything past its context (MiniLM: 256 word pieces, about
20-25 lines of code), so a long chunk embedded whole is searchable only by its head.
Instead the caller embeds every window and scores the chunk by its best one. Windows
follow lines because a line is the smallest unit a reader (and a citation) cares about;
only a single line longer than the whole context is cut inside.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

Measure = Callable[[Sequence[str]], list[int]]
"""Cost of each text in model units (word pieces, or characters for remote models)."""

SplitLong = Callable[[str, int], list[str]]
"""Cut one over-long line into consecutive parts of at most ``budget`` units each."""

DEFAULT_OVERLAP_LINES = 2


def split_windows(
    text: str,
    budget: int,
    measure: Measure,
    split_long: SplitLong,
    overlap_lines: int = DEFAULT_OVERLAP_LINES,
) -> list[str]:
    """Return consecutive windows of ``text``, each costing at most ``budget`` units.

    Consecutive windows share up to ``overlap_lines`` lines (never more than a quarter of
    the budget) so that a statement cut by a boundary is whole in one of them. Joined
    without their overlaps, the windows give back ``text`` exactly.
    """
    if budget < 1:
        raise ValueError(f"window budget must be positive, got {budget}")
    if measure([text])[0] <= budget:
        return [text]
    pieces = _fitting_pieces(text.splitlines(keepends=True), budget, measure, split_long)
    costs = measure(pieces)
    windows: list[str] = []
    start = covered = 0
    while covered < len(pieces):
        end = _window_end(pieces, costs, start, budget, measure)
        if end <= covered:  # the overlap left no room for a new line: start afresh
            start = covered
            end = _window_end(pieces, costs, start, budget, measure)
        windows.append("".join(pieces[start:end]))
        covered = end
        start = _overlap_start(costs, start, end, overlap_lines, budget // 4)
    return windows


def _fitting_pieces(
    lines: list[str], budget: int, measure: Measure, split_long: SplitLong
) -> list[str]:
    """Lines as they are, except that a line over the budget is cut into parts that fit."""
    pieces: list[str] = []
    for line, cost in zip(lines, measure(lines), strict=True):
        pieces.extend([line] if cost <= budget else split_long(line, budget))
    return pieces


def _window_end(
    pieces: list[str], costs: list[int], start: int, budget: int, measure: Measure
) -> int:
    """Index one past the last piece that fits in the window beginning at ``start``.

    Per-piece costs are summed first; the joined window is then measured for real and
    shrunk if joining changed the count (a tokenizer may merge across a cut).
    """
    end, total = start, 0
    while end < len(pieces) and total + costs[end] <= budget:
        total += costs[end]
        end += 1
    end = max(end, start + 1)
    while end > start + 1 and measure(["".join(pieces[start:end])])[0] > budget:
        end -= 1
    return end


def _overlap_start(
    costs: list[int], start: int, end: int, overlap_lines: int, max_overlap_cost: int
) -> int:
    """Where the next window begins: a few pieces before ``end``, but always after ``start``."""
    next_start = max(end - overlap_lines, start + 1)
    while next_start < end and sum(costs[next_start:end]) > max_overlap_cost:
        next_start += 1
    return next_start


def measure_chars(texts: Sequence[str]) -> list[int]:
    """Cost in characters, for remote models whose tokenizer we do not have."""
    return [len(text) for text in texts]


def split_chars(line: str, budget: int) -> list[str]:
    """Cut a line into parts of at most ``budget`` characters, preferring to cut at spaces."""
    parts: list[str] = []
    rest = line
    while len(rest) > budget:
        cut = rest.rfind(" ", budget // 2, budget)
        cut = budget if cut <= 0 else cut + 1
        parts.append(rest[:cut])
        rest = rest[cut:]
    parts.append(rest)
    return parts
