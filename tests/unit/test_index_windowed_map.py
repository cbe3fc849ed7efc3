"""The parse fan-out keeps a bounded number of tasks in flight, small ones, and its results
in order.

A real thread pool stands in for the process pool (the windowing is the same code): the
writer that consumes results may be slower than the workers, and then the workers must
wait rather than pile finished results up in the writer's memory.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from repolens.index.files import (
    CHUNK_BYTES,
    CHUNK_FILES,
    SMALL_FIRST,
    FileTask,
    _in_order,
    _parts,
    windowed_map,
)


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
        parts = [items[start : start + chunk] for start in range(0, len(items), chunk)]
        results = windowed_map(pool, square_all, parts, ahead)
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
        assert list(windowed_map(pool, lambda part: part, [], 2)) == []


def test_tasks_hold_few_bytes_and_a_large_file_goes_alone() -> None:
    """Largest first, a worker's first task must not be the eight largest files: the
    writer waits for it before it writes anything."""
    sizes = [900_000, 70_000, 40_000, 30_000, *[1_000] * 20]
    tasks = [FileTask(f"f{i}.py", f"/f{i}.py", "python", size, 0) for i, size in enumerate(sizes)]
    parts = list(_parts(tasks))
    assert [task for part in parts for task in part] == tasks  # every file once, in order
    assert [len(part) for part in parts[:2]] == [1, 1]  # each over CHUNK_BYTES
    assert len(parts[-2]) == CHUNK_FILES  # small files share a task
    assert all(len(part) <= CHUNK_FILES for part in parts)
    assert all(sum(t.size for t in part) <= CHUNK_BYTES for part in parts if len(part) > 1)


def test_small_files_go_first_then_the_largest() -> None:
    """Small files are as costly to store as to parse: last, they left the writer alone
    after the workers finished. The rest go largest first, so the workers end together."""
    sizes = [300, 50_000, SMALL_FIRST - 1, 4_000, 0, 900_000, SMALL_FIRST, 12_000]
    tasks = [FileTask(f"f{i}.py", f"/f{i}.py", "python", size, 0) for i, size in enumerate(sizes)]
    ordered = [task.size for task in _in_order(tasks)]
    assert ordered == [SMALL_FIRST - 1, 300, 0, 900_000, 50_000, 12_000, 4_000, SMALL_FIRST]
