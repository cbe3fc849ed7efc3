"""The filesystem walk: iterative ``os.scandir`` that never enters an ignored directory.

Used when the root is not in a git work tree (or git fails), and in git mode for the
directories git lists as single entries (submodules, nested repositories, symlinked dirs).

Symlinked directories are followed only after every real directory has been walked, and
only when their resolved target lies inside the root and has not been walked already. That
one set of walked real directories catches loops (a link to an ancestor) and duplicates (a
link to a sibling already indexed under its real path); both are reported "symlink_loop".
Visiting real paths first means a file is always reported under its own path, never
under the name of a link to it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from repolens.discover.checks import Context
from repolens.discover.ignore import (
    GITIGNORE,
    REPOLENSIGNORE,
    Stack,
    is_ignored_entry,
    make_level,
)
from repolens.discover.models import Discovery


@dataclass(frozen=True, slots=True)
class Candidate:
    """A listed path still to be checked; ``is_link`` is None when the lister did not know."""

    rel: str
    is_link: bool | None


@dataclass(slots=True)
class _Dir:
    prefix: str  # '' for the root, else the relative path with a trailing '/'
    abs_path: str
    real: str
    stack: Stack


@dataclass(slots=True)
class Walker:
    """Walks directories, applying all ignore layers, and collects file candidates.

    ``.gitignore`` files met on the way always apply: in git mode the walker only enters
    directories git did not expand (a submodule's own ``.gitignore`` is its git's rule too).
    """

    ctx: Context
    out: Discovery
    visited: set[str] = field(default_factory=set)
    candidates: list[Candidate] = field(default_factory=list)
    _todo: list[_Dir] = field(default_factory=list)
    _links: list[tuple[str, Stack]] = field(default_factory=list)

    def add_dir(self, prefix: str, stack: Stack) -> None:
        """Queue a real (non-symlink) directory below the root."""
        real = os.path.join(self.ctx.root_real, prefix).rstrip("/")
        self.visited.add(real)
        self._todo.append(_Dir(prefix, os.path.join(self.ctx.root_abs, prefix), real, stack))

    def add_link(self, rel: str, stack: Stack) -> None:
        """Queue a symlink to a directory, followed once all real directories are done."""
        self._links.append((rel, stack))

    def run(self) -> list[Candidate]:
        """Walk everything queued; returns (and forgets) the candidates found since last run."""
        while self._todo or self._links:
            if self._todo:
                self._scan(self._todo.pop())
            else:
                self._follow(*self._links.pop())
        found, self.candidates = self.candidates, []
        return found

    def _follow(self, rel: str, stack: Stack) -> None:
        real = os.path.realpath(os.path.join(self.ctx.root_abs, rel))
        if not self.ctx.inside(real):
            self.out.skip("symlink_outside", rel)
        elif real in self.visited:
            self.out.skip("symlink_loop", rel)
        else:
            self.visited.add(real)
            self._todo.append(_Dir(rel + "/", os.path.join(self.ctx.root_abs, rel), real, stack))

    def _scan(self, d: _Dir) -> None:
        try:
            with os.scandir(d.abs_path) as it:
                entries = list(it)
        except (FileNotFoundError, NotADirectoryError):
            self.out.skip("vanished", d.prefix)
            return
        except OSError:
            self.out.skip("unreadable", d.prefix)
            return
        stack = self._stack_for(d, {e.name for e in entries})
        for entry in entries:
            self._entry(d, stack, entry)

    def _stack_for(self, d: _Dir, names: set[str]) -> Stack:
        at_root = d.prefix == ""
        has_git = GITIGNORE in names or at_root  # the root also has .git/info/exclude
        has_lens = REPOLENSIGNORE in names
        if not (has_git or has_lens):
            return d.stack
        extra = self.ctx.options.extra_ignores if at_root else ()
        level = make_level(self.ctx.root_abs, d.prefix, has_git, has_lens, root_extra=extra)
        return d.stack if level is None else (*d.stack, level)

    def _entry(self, d: _Dir, stack: Stack, entry: os.DirEntry[str]) -> None:
        rel = d.prefix + entry.name
        try:
            is_link = entry.is_symlink()
            is_dir = not is_link and entry.is_dir(follow_symlinks=False)
        except OSError:
            self.out.skip("vanished", rel)
            return
        if is_ignored_entry(stack, rel, entry.name, is_dir, entry.path, use_git=True):
            self.out.skip("ignored", rel + "/" if is_dir else rel)
        elif is_dir:
            self.visited.add(f"{d.real}/{entry.name}")
            self._todo.append(_Dir(rel + "/", entry.path, f"{d.real}/{entry.name}", stack))
        elif is_link and os.path.isdir(entry.path):
            self.add_link(rel, stack)
        else:
            self.candidates.append(Candidate(rel, is_link))
