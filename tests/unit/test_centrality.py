"""PageRank over the stored graph: what is reached most ranks highest, on real ids."""

from __future__ import annotations

import numpy as np
import pytest

from repolens.query.centrality import CEILING, signal
from repolens.resolve.centrality import pagerank

# Symbol ids are 63-bit hashes: near 2**63 a float64 cannot tell neighbours apart.
BIG = 9_220_823_070_107_946_219


def test_the_symbol_everything_calls_ranks_above_its_callers_and_the_mean_is_one() -> None:
    hub, a, b, c, leaf = BIG, BIG - 1, BIG - 2, 11_965_526_249_563_664, 7
    symbols = np.array([hub, a, b, c, leaf], dtype=np.int64)
    edges = [(a, hub, 1.0), (b, hub, 1.0), (c, hub, 1.0), (hub, leaf, 1.0), (a, b, 0.4)]
    values = dict(zip(symbols.tolist(), pagerank(symbols, edges).tolist(), strict=True))
    assert values[hub] > 2 * max(values[a], values[b], values[c])
    assert values[leaf] > values[a]  # all the hub passes on reaches it
    assert values[b] > values[a] == pytest.approx(values[c])  # a's call reaches b; none reach a
    assert sum(values.values()) == pytest.approx(len(symbols))


def test_edges_to_unknown_symbols_are_ignored_and_no_edges_is_uniform() -> None:
    symbols = np.array([1, 2, 3], dtype=np.int64)
    assert pagerank(symbols, []).tolist() == pytest.approx([1.0, 1.0, 1.0])
    assert pagerank(symbols, [(1, 99, 1.0), (98, 2, 1.0)]).tolist() == pytest.approx([1, 1, 1])
    assert len(pagerank(np.array([], dtype=np.int64), [])) == 0


def test_the_signal_reads_zero_for_average_code_and_one_at_the_ceiling() -> None:
    assert signal(0.2) == signal(1.0) == 0.0
    assert 0.0 < signal(5.0) < signal(10.0) < 1.0
    assert signal(CEILING) == pytest.approx(1.0) and signal(CEILING * 10) == 1.0
