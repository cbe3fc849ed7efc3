"""The parse fan-out keeps a bounded number of chunks in flight and its results in order.

A real thread pool stands in for the process pool (the windowing is the same code): the
writer that consumes results may be slower than the workers, and then the workers must
wait rather than pile finished results up in the writer's memory.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from repolens.index.files import windowed_map


def test_results_come_in_order_with_a_bounded_number_of_chunks_started() -> None:
    started: list[int] = []
    lock = threading.Lock()

    def square_all(part: list[int]) -> list[int]:
        with lock:
            started.extend(part)
        return [n * n for n in part]

    items = list(range(103))  # not a multiple of the chunk size
    chunk, ahead = 4, 3
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = windowed_map(pool, square_all, items, chunk, ahead)
        taken: list[int] = []
        for value in results:
            taken.append(value)
            # chunks taken (the current one included) plus the ones in flight
            limit = (len(taken) // chunk + 1 + ahead) * chunk
            pool.submit(lambda: None).result()  # let the workers run ahead if they could
            with lock:
                assert len(started) <= limit
    assert taken == [n * n for n in items]
    assert sorted(started) == items  # every item once


def test_an_empty_list_submits_nothing() -> None:
    with ThreadPoolExecutor(max_workers=1) as pool:
        assert list(windowed_map(pool, lambda part: part, [], 8, 2)) == []
