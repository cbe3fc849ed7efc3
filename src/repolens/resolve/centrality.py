"""Centrality: which symbols the rest of the code leans on, as PageRank over the graph.

Repo maps rank what to show by how much of the code reaches a definition; search and
context use the same signal to prefer the function everything routes through over a
same-worded helper nobody calls. Computed here, after resolve, from the stored edges
(calls, instantiations, imports, inheritance, references, weighted by confidence) and
written back whole (``centrality`` table), scaled so the average symbol has 1.0: the
value then reads the same in a small project and a large one.

Cost is linear in edges (a sparse power iteration in numpy); the full rewrite runs after
every resolve, incremental ones included, so a value never lags its edges.
"""

from __future__ import annotations

import sqlite3

import numpy as np

from repolens.store.db import transaction

RANKED_EDGE_KINDS = ("calls", "instantiates", "imports", "extends", "implements", "references")
DAMPING = 0.85
MAX_ITERATIONS = 40
TOLERANCE = 1e-6  # summed change of the ranks (which sum to 1) in one iteration


def compute_centrality(conn: sqlite3.Connection) -> int:
    """Recompute every symbol's centrality; returns how many symbols were ranked."""
    symbols = np.array([r[0] for r in conn.execute("SELECT id FROM symbols")], dtype=np.int64)
    marks = ",".join("?" * len(RANKED_EDGE_KINDS))
    rows = conn.execute(
        f"SELECT source_id, target_id, confidence FROM edges WHERE kind IN ({marks})"
        " AND source_id != target_id",
        RANKED_EDGE_KINDS,
    ).fetchall()
    values = pagerank(symbols, rows)
    with transaction(conn):
        conn.execute("DELETE FROM centrality")
        conn.executemany(
            "INSERT INTO centrality(symbol_id, value) VALUES (?, ?)",
            zip(symbols.tolist(), values.tolist(), strict=True),
        )
    return len(symbols)


def pagerank(symbols: np.ndarray, edges: list[tuple[int, int, float]]) -> np.ndarray:
    """PageRank of ``symbols`` (ids) over weighted ``edges`` (source, target, weight),
    times the number of symbols (mean 1.0). Edges naming unknown ids are ignored; a
    symbol with no outgoing edge spreads its rank evenly (the usual dangling rule)."""
    count = len(symbols)
    if count == 0:
        return np.zeros(0)
    order = np.argsort(symbols)
    ordered = symbols[order]
    if edges:
        src = np.array([e[0] for e in edges], dtype=np.int64)  # ids are 63-bit hashes:
        dst = np.array([e[1] for e in edges], dtype=np.int64)  # never through a float
        weight = np.array([e[2] for e in edges], dtype=np.float64)
        src_at, dst_at = np.searchsorted(ordered, src), np.searchsorted(ordered, dst)
        known = (src_at < count) & (dst_at < count)
        known &= ordered[np.minimum(src_at, count - 1)] == src
        known &= ordered[np.minimum(dst_at, count - 1)] == dst
        src_i, dst_i = order[src_at[known]], order[dst_at[known]]
        weight = np.clip(weight[known], 0.05, 1.0)
    else:
        src_i = dst_i = np.zeros(0, dtype=np.int64)
        weight = np.zeros(0)
    out_weight = np.bincount(src_i, weights=weight, minlength=count)
    share = weight / out_weight[src_i] if len(src_i) else weight
    dangling = out_weight == 0
    rank = np.full(count, 1.0 / count)
    for _ in range(MAX_ITERATIONS):
        spread = np.bincount(dst_i, weights=rank[src_i] * share, minlength=count)
        new = (1 - DAMPING) / count + DAMPING * (spread + rank[dangling].sum() / count)
        change = float(np.abs(new - rank).sum())
        rank = new
        if change < TOLERANCE:
            break
    return rank * count
