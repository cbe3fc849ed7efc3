"""Records that discovery hands to the rest of the pipeline, and the skip reasons it reports."""

from __future__ import annotations

import collections
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

# Every reason a path can be left out; reports and tests rely on these exact strings.
SKIP_REASONS = (
    "ignored",
    "too_large",
    "binary",
    "minified",
    "unreadable",
    "vanished",
    "symlink_loop",
    "symlink_outside",
    "unsupported",
)

MAX_EXAMPLES = 5


def _normalise_extensions(mapping: Mapping[str, str]) -> dict[str, str]:
    """Config may say "pyi" or ".PYI"; lookups use the lower-case dotted form."""
    return {("." + k.lstrip(".")).lower(): v for k, v in mapping.items()}


@dataclass(frozen=True, slots=True)
class DiscoveryOptions:
    """What to look at: the size limit, config-added extensions and ignore patterns."""

    max_file_size: int = 1_000_000
    extra_extensions: Mapping[str, str] = field(default_factory=dict)
    extra_ignores: Sequence[str] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "extra_extensions", _normalise_extensions(self.extra_extensions))
        object.__setattr__(self, "extra_ignores", tuple(self.extra_ignores))


DEFAULT_OPTIONS = DiscoveryOptions()


@dataclass(frozen=True, slots=True)
class DiscoveredFile:
    """One file worth indexing. ``path`` is relative to the root, '/'-separated."""

    path: str
    abs_path: Path
    language: str
    size: int
    mtime_ns: int


@dataclass(slots=True)
class Discovery:
    """The outcome of one walk: the files kept, and what was left out and why."""

    files: list[DiscoveredFile] = field(default_factory=list)
    skipped: collections.Counter[str] = field(default_factory=collections.Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def skip(self, reason: str, path: str) -> None:
        """Count one skipped path, keeping a few examples so reports can show what they were."""
        self.skipped[reason] += 1
        shown = self.examples.setdefault(reason, [])
        if len(shown) < MAX_EXAMPLES:
            shown.append(path)
