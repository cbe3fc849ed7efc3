"""Split documents into windows that fit a model's context, at line boundaries.

A model silently ignores everything past its context (MiniLM: 256 word pieces, about
20-25 lines of code), so a long chunk embedded whole is searchable only by its head.
Instead the caller embeds every window and scores the chunk by its best one. Windows
follow lines because a line is the smallest unit a reader (and a citation) cares about;
only a single line longer than the whole context is cut inside.

Documents are split together, so that measuring them costs a few tokenizer calls per
batch rather than several per document: a call costs far more than the text it reads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

Measure = Callable[[Sequence[str]], list[int]]
"""Cost of each text in model units (word pieces, or characters for remote models)."""

SplitLong = Callable[[str, int], list[str]]
"""Cut one over-long line into consecutive parts of at most ``budget`` units each."""

JoinedCost = Callable[[int, int], int]
"""Cost of the window made of pieces ``start:end`` of one document."""

DEFAULT_OVERLAP_LINES = 1
"""Lines consecutive windows share. Measured on bench/search_quality.py (128-piece windows,
openvino-bf16), one line against two: 3% fewer windows, hybrid MRR@10 the same for doc
and name queries (0.529; 0.967 against 0.968), for deep ones MRR 0.277 against 0.252 and
recall@10 0.579 against 0.588: the same within noise, for 3% less of the model's work."""


def split_windows(
    texts: Sequence[str],
    budget: int,
    measure: Measure,
    split_long: SplitLong,
    overlap_lines: int = DEFAULT_OVERLAP_LINES,
    *,
    additive: bool = False,
) -> list[list[str]]:
    """Return, for each text, consecutive windows costing at most ``budget`` units each.

    Consecutive windows share up to ``overlap_lines`` lines (never more than a quarter of
    the budget) so that a statement cut by a boundary is whole in one of them. Joined
    without their overlaps, the windows give back each text exactly.

    A window is planned by summing its lines' costs. When costs are ``additive`` (a text
    costs the sum of its lines: characters, or a tokenizer that splits at whitespace
    before anything else) that is exact, and all texts cost one ``measure`` call, of their
    lines. Otherwise the texts are measured whole first, and the planned windows for real
    after: a document whose window costs more than its lines did (a tokenizer that merges
    across a line break) is planned again measuring every candidate window.
    """
    if budget < 1:
        raise ValueError(f"window budget must be positive, got {budget}")
    result: list[list[str]] = [[text] for text in texts]
    if additive:
        return _split_additive(texts, budget, measure, split_long, overlap_lines, result)
    over = [index for index, cost in enumerate(measure(texts)) if cost > budget]
    lines = [texts[index].splitlines(keepends=True) for index in over]
    line_costs = iter(measure([line for document in lines for line in document]))
    planned: dict[int, list[str]] = {}
    pieces_of: dict[int, tuple[list[str], list[int]]] = {}
    for index, document in zip(over, lines, strict=True):
        pieces, costs = _fitting_pieces(document, [next(line_costs) for _ in document],
                                        budget, measure, split_long)  # fmt: skip
        pieces_of[index] = (pieces, costs)
        planned[index] = _plan(pieces, costs, budget, overlap_lines, _summed(costs))
    candidates = [window for windows in planned.values() for window in windows]
    real_costs = iter(measure(candidates))
    for index, windows in planned.items():
        if any(next(real_costs) > budget for _ in windows):
            pieces, costs = pieces_of[index]
            windows = _plan(pieces, costs, budget, overlap_lines, _measured(pieces, measure))
        result[index] = windows
    return result


def _split_additive(
    texts: Sequence[str],
    budget: int,
    measure: Measure,
    split_long: SplitLong,
    overlap_lines: int,
    result: list[list[str]],
) -> list[list[str]]:
    """``split_windows`` for costs that add up over lines: one measure call in all."""
    lines = [text.splitlines(keepends=True) for text in texts]
    line_costs = iter(measure([line for document in lines for line in document]))
    for index, document in enumerate(lines):
        costs = [next(line_costs) for _ in document]
        if sum(costs) > budget:
            pieces, costs = _fitting_pieces(document, costs, budget, measure, split_long)
            result[index] = _plan(pieces, costs, budget, overlap_lines, _summed(costs))
    return result


def _fitting_pieces(
    lines: list[str], costs: list[int], budget: int, measure: Measure, split_long: SplitLong
) -> tuple[list[str], list[int]]:
    """Lines as they are, except that a line over the budget is cut into parts that fit;
    with the cost of each."""
    pieces: list[str] = []
    piece_costs: list[int] = []
    for line, cost in zip(lines, costs, strict=True):
        if cost <= budget:
            pieces.append(line)
            piece_costs.append(cost)
        else:
            parts = split_long(line, budget)
            pieces.extend(parts)
            piece_costs.extend(measure(parts))
    return pieces, piece_costs


def _summed(costs: list[int]) -> JoinedCost:
    return lambda start, end: sum(costs[start:end])


def _measured(pieces: list[str], measure: Measure) -> JoinedCost:
    return lambda start, end: measure(["".join(pieces[start:end])])[0]


def _plan(
    pieces: list[str], costs: list[int], budget: int, overlap_lines: int, joined: JoinedCost
) -> list[str]:
    """The windows of one document's pieces."""
    windows: list[str] = []
    start = covered = 0
    while covered < len(pieces):
        end = _window_end(costs, start, budget, joined)
        if end <= covered:  # the overlap left no room for a new line: start afresh
            start = covered
            end = _window_end(costs, start, budget, joined)
        windows.append("".join(pieces[start:end]))
        covered = end
        start = _overlap_start(costs, start, end, overlap_lines, budget // 4)
    return windows


def _window_end(costs: list[int], start: int, budget: int, joined: JoinedCost) -> int:
    """Index one past the last piece that fits in the window beginning at ``start``:
    per-piece costs are summed, then the window is shrunk while ``joined`` says it is
    over the budget."""
    end, total = start, 0
    while end < len(costs) and total + costs[end] <= budget:
        total += costs[end]
        end += 1
    end = max(end, start + 1)
    while end > start + 1 and joined(start, end) > budget:
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
