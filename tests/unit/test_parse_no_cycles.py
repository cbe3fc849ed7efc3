"""Processing a file leaves no reference cycles behind.

Parse workers run with the cyclic garbage collector off (``index.files.init_worker``):
whatever a parse frees must go by reference counting alone. A cycle (a recursive closure,
an object holding its own bound methods) would keep a whole file's records alive until a
collection, and a worker would grow with every file it parses.
"""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from repolens.discover import discover
from repolens.index.files import FileTask, process_file
from repolens.index.pipeline import _task, discovery_options
from repolens.project import open_project

FIXTURES = Path(__file__).parents[1] / "fixtures"


def _tasks(root: Path) -> list[FileTask]:
    project = open_project(root, create=False)  # read in place: no data dir in the fixture
    found = discover(project.root, discovery_options(project)).files
    return [task for entry in found if (task := _task(project, entry, None, None)) is not None]


@pytest.fixture
def saved_garbage() -> Iterator[list[object]]:
    """What the collector finds unreachable, kept for inspection instead of freed."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield gc.garbage
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()


@pytest.mark.parametrize(
    ("fixture", "least_languages"),
    [("graph", 20), ("vue", 2), ("svelte", 2)],  # every language; components embed others
)
def test_processing_files_leaves_no_cycles(
    fixture: str, least_languages: int, saved_garbage: list[object]
) -> None:
    parsed: set[str] = set()
    for task in _tasks(FIXTURES / fixture):
        result = process_file(task)
        if result.graph is not None and result.graph.symbols:
            parsed.add(task.language)
        del result
    gc.collect()

    assert len(parsed) >= least_languages  # the fixture's files were really parsed
    kinds = Counter(type(obj).__name__ for obj in saved_garbage)
    assert not saved_garbage, f"reference cycles left by a parse: {kinds.most_common(8)}"
