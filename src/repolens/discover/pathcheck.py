"""Ignore decisions for a single path, for the file watcher and incremental updates.

The watcher sees one path at a time, often thousands per second during a ``git checkout``
or ``npm install``, so each directory's parsed ignore files are cached. A cache entry is
keyed by the ignore files' (inode, size, mtime), re-stat'ed on every use: an edited
``.gitignore`` takes effect on the next event without any invalidation protocol, at the
price of two or three ``stat`` calls per ancestor directory.

Limits (documented, deliberate): a global ``core.excludesFile`` is not read, and a tracked
file that matches an ignore pattern is reported ignored here although git mode lists it
(knowing it is tracked would take a git call per event).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from repolens.discover.checks import normalise_rel
from repolens.discover.ignore import (
    GITIGNORE,
    REPOLENSIGNORE,
    Level,
    Stack,
    exclude_file,
    is_ignored_entry,
    make_level,
)
from repolens.discover.models import DEFAULT_OPTIONS, DiscoveryOptions

_Signature = tuple[int, int, int] | None
_CACHE_LIMIT = 50_000
_levels: dict[tuple[str, str, tuple[str, ...]], tuple[tuple[_Signature, ...], Level | None]] = {}


def _signature(path: str) -> _Signature:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns)


def cached_level(root_abs: str, prefix: str, extra: tuple[str, ...]) -> Level | None:
    """The level of directory ``prefix``, re-parsed only when one of its files changed."""
    directory = f"{root_abs.rstrip('/')}/{prefix}"  # plain strings: this runs per event
    files = [directory + GITIGNORE, directory + REPOLENSIGNORE]
    if prefix == "":
        files.append(exclude_file(root_abs))
    signature = tuple([_signature(f) for f in files])
    key = (root_abs, prefix, extra if prefix == "" else ())
    hit = _levels.get(key)
    if hit is not None and hit[0] == signature:
        return hit[1]
    has_git = signature[0] is not None or (prefix == "" and signature[2] is not None)
    level = make_level(root_abs, prefix, has_git, signature[1] is not None, root_extra=key[2])
    if len(_levels) >= _CACHE_LIMIT:
        _levels.clear()
    _levels[key] = (signature, level)
    return level


def _push(stack: Stack, level: Level | None) -> Stack:
    return stack if level is None else (*stack, level)


def stack_for_dir(root_abs: str, prefix: str, options: DiscoveryOptions) -> Stack | None:
    """All ignore levels that apply inside directory ``prefix`` ('' or 'a/b/').

    None when the directory itself or one of its ancestors is ignored.
    """
    extra = tuple(options.extra_ignores)
    stack = _push((), cached_level(root_abs, "", extra))
    current = ""
    for name in prefix.strip("/").split("/") if prefix else ():
        rel = current + name
        if is_ignored_entry(stack, rel, name, True, f"{root_abs}/{rel}", use_git=True):
            return None
        current = rel + "/"
        stack = _push(stack, cached_level(root_abs, current, extra))
    return stack


def _is_real_dir(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False  # gone (a delete event): judge it as a file, as git would


def is_ignored_path(root: Path, rel_path: str, options: DiscoveryOptions = DEFAULT_OPTIONS) -> bool:
    """Whether the walk would leave ``rel_path`` out by an ignore rule (reason "ignored").

    Same three layers as the walk (git's files, ours, built-ins), checked for every ancestor
    directory and then the path itself; other reasons (binary, size...) are ``check_file``'s.
    ``rel_path`` may also be absolute, under the root.
    """
    root_abs = os.path.abspath(root)
    rel = normalise_rel(root_abs, rel_path)
    if not rel:
        return False
    parent, _, name = rel.rpartition("/")
    stack = stack_for_dir(root_abs, parent + "/" if parent else "", options)
    if stack is None:
        return True
    abs_path = os.path.join(root_abs, rel)
    return is_ignored_entry(stack, rel, name, _is_real_dir(abs_path), abs_path, use_git=True)
