"""Ignore rules: ``.gitignore`` and ``.repolensignore`` at every level, plus built-in defaults.

Rules are evaluated the way git does, one directory entry at a time: an entry is judged by
the ignore files of its own directory and its ancestors, deepest first, and the first file
with a matching pattern decides (inside one file the last matching pattern wins, so ``!x``
re-includes). A directory that is ignored is never entered, which is also why a negation
cannot bring back a file below an ignored directory -- exactly git's rule.

Three layers decide, in this order:

1. git's view (``.git/info/exclude`` and every ``.gitignore``): ignored here means ignored,
   nothing below may re-include it. In git mode git itself applies this layer.
2. our own files: ``extra_ignores`` from config and every ``.repolensignore``. An explicit
   match decides, and a negation (``!dist/``) is how a project keeps a built-in default out.
3. built-in defaults: VCS, dependency, cache and build-output directories, and lockfiles.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from repolens.readfile import read_regular

GITIGNORE = ".gitignore"
REPOLENSIGNORE = ".repolensignore"
MAX_IGNORE_BYTES = 4 << 20  # more patterns than any real ignore file holds

BUILTIN_DIRS = frozenset(
    {".git", ".hg", ".svn", "node_modules", "bower_components", ".next", ".nuxt", "coverage",
     "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".tox", ".nox", ".venv",
     "site-packages", ".eggs", ".gradle", ".idea", ".vscode", ".repolens"}
)  # fmt: skip
# Output and venv names that are also real Python package names (pypa's ``build``, the
# stdlib's ``venv``): dropped unless they hold an ``__init__.py``.
AMBIGUOUS_DIRS = frozenset({"dist", "build", "target", "out", "venv"})
# The file whose presence decides whether such a folder counts (and ``env``'s, which is a
# virtualenv only when it holds ``pyvenv.cfg``): creating or deleting it changes the
# verdict on every file below, which a watcher must then look at again.
DIR_MARKERS = {"env": "pyvenv.cfg", **{name: "__init__.py" for name in AMBIGUOUS_DIRS}}
# Lockfiles (generated, huge, never what a question is about) and a ``.git`` file (worktrees).
IGNORED_FILES = frozenset(
    {"package-lock.json", "yarn.lock", "pnpm-lock.yaml", "poetry.lock", "Cargo.lock", "uv.lock",
     "composer.lock", "Gemfile.lock", "go.sum", ".git"}
)  # fmt: skip

_NAMED_GROUP = re.compile(r"\(\?P<[^>]+>")


def _no_match(_path: str) -> None:
    return None


class Matcher:
    """One ignore file's patterns, with a single combined regex as a fast "nothing matches".

    pathspec tries each pattern's regex in Python; with a 150-line ``.gitignore`` that is
    ~100 µs per path. Almost no path matches anything, and one alternation regex answers that
    in C, so the full check (which knows negations and git's priorities) runs only on hits.
    """

    __slots__ = ("_any", "_spec")

    def __init__(self, lines: Sequence[str]) -> None:
        from pathspec import GitIgnoreSpec  # here: a tree with no ignore file never needs it

        self._spec = GitIgnoreSpec.from_lines(lines)
        regexes = [r.pattern for p in self._spec.patterns if (r := getattr(p, "regex", None))]
        self._any: Callable[[str], re.Match[str] | None] | None
        combined = "|".join(f"(?:{_NAMED_GROUP.sub('(?:', r)})" for r in regexes)
        # pathspec searches; anchored regexes (all that gitignore makes) may use match.
        anchored = all(r.startswith("^") for r in regexes)
        if not regexes:
            self._any = _no_match  # comments and blank lines only
            return
        try:
            compiled = re.compile(combined)
            self._any = compiled.match if anchored else compiled.search
        except re.error:
            self._any = None  # the prefilter is only an optimisation; full checks still run

    def decide(self, path: str) -> bool | None:
        """True ignored, False explicitly re-included, None when no pattern speaks."""
        if self._any is not None and self._any(path) is None:
            return None
        return self._spec.check_file(path).include


@dataclass(frozen=True, slots=True)
class Level:
    """The ignore patterns of one directory; ``prefix`` is its path with a trailing '/'."""

    prefix: str
    git: Matcher | None
    lens: Matcher | None


Stack = tuple[Level, ...]


def read_lines(path: str) -> list[str]:
    """Lines of an ignore file; one we cannot read ignores nothing (never fatal)."""
    try:  # a FIFO named .gitignore is refused unread, rather than block the walk
        return read_regular(path, MAX_IGNORE_BYTES).decode("utf-8", "replace").splitlines()
    except OSError:
        return []


def exclude_file(root_abs: str) -> str:
    """The repository-local excludes file (only when ``.git`` is a directory)."""
    return os.path.join(root_abs, ".git", "info", "exclude")


def make_level(
    root_abs: str, prefix: str, has_git: bool, has_lens: bool, *, root_extra: Sequence[str] = ()
) -> Level | None:
    """Load one directory's ignore files, or None when it has none.

    At the root (``prefix == ''``) ``root_extra`` are config patterns for our layer, and with
    ``has_git`` git's ``info/exclude`` comes first (the root ``.gitignore`` overrides it).
    """
    directory = os.path.join(root_abs, prefix)
    git_lines: list[str] = []
    if has_git and prefix == "":
        git_lines += read_lines(exclude_file(root_abs))
    if has_git:
        git_lines += read_lines(os.path.join(directory, GITIGNORE))
    lens_lines = list(root_extra)
    if has_lens:
        lens_lines += read_lines(os.path.join(directory, REPOLENSIGNORE))
    if not git_lines and not lens_lines:
        return None
    git = Matcher(git_lines) if git_lines else None
    return Level(prefix, git, Matcher(lens_lines) if lens_lines else None)


def builtin_ignored(name: str, is_dir: bool, abs_path: str) -> bool:
    """The defaults: dependency, cache and build dirs, VCS data and lockfiles.

    ``env`` is a virtualenv only when it holds ``pyvenv.cfg``; ``dist``, ``build``, ``target``,
    ``out`` and ``venv`` are kept when they hold ``__init__.py`` (a package of that name).
    ``vendor`` is deliberately kept: vendored code is ranked down later, not dropped.
    """
    if not is_dir:
        return name in IGNORED_FILES
    if name in BUILTIN_DIRS or name.endswith(".egg-info"):
        return True
    if name == "env":
        return os.path.isfile(os.path.join(abs_path, "pyvenv.cfg"))
    if name in AMBIGUOUS_DIRS:
        return not os.path.isfile(os.path.join(abs_path, "__init__.py"))
    return False


def under_marked_dir(rel: str) -> bool:
    """Whether ``rel`` lies below a folder named in ``DIR_MARKERS``: it may be ignored
    now and kept a moment later (or the reverse), so an event there must reach the
    update, which knows what the index holds, rather than be dropped as ignored. (A
    polling watcher still does not enter such a folder while it is ignored: when it
    comes to count, its files appear at the next scan, and when it stops counting they
    disappear from it, both as events below it.)"""
    return any(part in DIR_MARKERS for part in rel.split("/")[:-1])


def marked_dir_of(rel: str) -> str | None:
    """The folder whose verdict ``rel`` decides (``pkg/build`` for
    ``pkg/build/__init__.py``), or ``None`` when ``rel`` is no folder's marker."""
    folder, _, name = rel.rpartition("/")
    if folder and DIR_MARKERS.get(folder.rpartition("/")[2]) == name:
        return folder
    return None


def _first_decision(stack: Stack, key: str, git: bool) -> bool | None:
    for level in reversed(stack):
        matcher = level.git if git else level.lens
        if matcher is not None:
            verdict = matcher.decide(key[len(level.prefix) :])
            if verdict is not None:
                return verdict
    return None


def is_ignored_entry(
    stack: Stack, rel: str, name: str, is_dir: bool, abs_path: str, use_git: bool
) -> bool:
    """Judge one entry whose ancestors are all kept; ``use_git`` is False when git already did."""
    key = rel + "/" if is_dir else rel
    if use_git and _first_decision(stack, key, git=True):
        return True
    ours = _first_decision(stack, key, git=False)
    return builtin_ignored(name, is_dir, abs_path) if ours is None else ours
