"""What one indexing run did, for its callers (the CLI, the API, the watcher, benchmarks).

A module of its own because both the run (``index.pipeline``) and the writing of its
batches (``index.batches``) count into it, and readers of a report need neither.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class IndexReport:
    discovered: int = 0
    parsed: int = 0  # read and parsed here
    reused: int = 0  # read, and their facts taken from the repository's shared store
    unchanged: int = 0  # size and mtime matched (not read), or content hash matched
    rehashed: int = 0  # of those, read and hashed because the mtime moved (not parsed)
    removed: int = 0
    failed: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    resolved_files: int = 0
    edges: int = 0
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)

    def count_skipped(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1
