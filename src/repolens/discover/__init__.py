"""File discovery: which files under a root are worth indexing, and in which language.

``discover()`` lists a tree fast (``git ls-files`` in a git work tree, else an ignore-aware
``os.scandir`` walk), applies ``.gitignore``/``.repolensignore`` and built-in defaults, and
checks each file (symlinks, size, binary, minified, language) from one 8 KiB read at most.
``is_ignored_path()`` and ``check_file()`` give the watcher the same verdicts one path at a time.
"""

from repolens.discover.checks import check_file
from repolens.discover.core import discover
from repolens.discover.languages import detect_language
from repolens.discover.models import (
    SKIP_REASONS,
    DiscoveredFile,
    Discovery,
    DiscoveryOptions,
)
from repolens.discover.pathcheck import is_ignored_path

__all__ = [
    "SKIP_REASONS",
    "DiscoveredFile",
    "Discovery",
    "DiscoveryOptions",
    "check_file",
    "detect_language",
    "discover",
    "is_ignored_path",
]
