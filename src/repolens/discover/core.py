"""``discover()``: list candidate paths (git or the filesystem), then check each file.

Git mode (the root is inside a git work tree and ``git ls-files`` works): git lists tracked
plus untracked-not-ignored files, using its index and its C ignore engine. Our own layers
(``.repolensignore``, config patterns, built-in defaults) then apply on top. The "ignored"
count adds what git's rules dropped, from a second ``ls-files --ignored --directory`` that
reports a wholly ignored directory once without entering it. It costs about as much as the
listing itself, so it runs in a background thread while the files are checked: on two
cores it is hidden behind the checks.

Filesystem mode (no git, git failing, or git listing nothing -- e.g. a root that an
enclosing repository ignores): the iterative walk in ``walk.py`` applies all layers itself
and counts every ignored file or directory entry once, without entering ignored directories.

Both modes give the same file set for the same tree and ignore files (tracked files that
match a ``.gitignore`` pattern aside: git lists them, as it should).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path

from repolens.discover.checks import IS_DIR, Context, inspect
from repolens.discover.gitls import git_ignored_entries, git_paths
from repolens.discover.ignore import REPOLENSIGNORE, Stack, is_ignored_entry, make_level
from repolens.discover.models import DEFAULT_OPTIONS, DiscoveredFile, Discovery, DiscoveryOptions
from repolens.discover.pathcheck import stack_for_dir
from repolens.discover.walk import Candidate, Walker

try:
    import resource
except ImportError:  # not on Windows: checks then always run serially
    resource = None  # type: ignore[assignment]

# Checks are open + fstat + 8 KiB read: system calls that release the GIL. On a cold page
# cache they wait on the disk and 8 threads halve the time on 2 cores (29k files: 6.9 s
# serial, 3.4 s threaded); on a warm cache the Python work holds the GIL and threads make it
# slower (1.4 s serial, 2.0 s threaded). So the first PROBE files are checked serially while
# counting the blocks the kernel had to read from disk for us: only a cold cache (on average
# at least one block per probed file) sends the rest to the pool. Wall time would be a worse
# signal: on a busy machine CPU starvation looks just like disk waits.
PROBE = 256
COLD_BLOCKS_PER_FILE = 1.0
PARALLEL_MIN = 512
WORKERS = 8
CHUNK = 128


def _blocks_read() -> int:
    """Blocks this process read from storage so far (0 where the OS does not say)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_inblock if resource else 0


def _parent_stack(ctx: Context, rel: str) -> Stack:
    parent = rel.rpartition("/")[0]
    return stack_for_dir(ctx.root_abs, parent + "/" if parent else "", ctx.options) or ()


@dataclass(slots=True)
class _GitFilter:
    """Applies our ignore layers to git's listing, one directory decision per directory."""

    ctx: Context
    walker: Walker
    out: Discovery
    lens_dirs: set[str] = field(default_factory=set)
    # prefix -> the stack inside a kept directory, or the prefix of the ignored ancestor
    states: dict[str, Stack | str] = field(default_factory=dict)
    ignored_dirs: dict[str, None] = field(default_factory=dict)

    def feed(self, paths: list[str]) -> None:
        """Queue every path our layers keep; count what they drop."""
        self.lens_dirs = {
            p[: -len(REPOLENSIGNORE)] for p in paths if p.rpartition("/")[2] == REPOLENSIGNORE
        }
        extra = self.ctx.options.extra_ignores
        root = make_level(self.ctx.root_abs, "", False, "" in self.lens_dirs, root_extra=extra)
        self.states[""] = () if root is None else (root,)
        for path in paths:
            self._path(path)
        for prefix in self.ignored_dirs:
            self.out.skip("ignored", prefix)
        kept = (p for p, s in self.states.items() if not isinstance(s, str))
        self.walker.visited.update(os.path.join(self.ctx.root_real, p).rstrip("/") for p in kept)

    def _path(self, path: str) -> None:
        rel = path.rstrip("/")
        parent, _, name = rel.rpartition("/")
        state = self._dir(parent + "/" if parent else "")
        if isinstance(state, str):
            self.ignored_dirs[state] = None
            return
        is_dir = path.endswith("/")  # an untracked nested repository
        abs_path = os.path.join(self.ctx.root_abs, rel)
        if is_ignored_entry(state, rel, name, is_dir, abs_path, use_git=False):
            self.out.skip("ignored", path)
        elif is_dir:
            self.walker.add_dir(rel + "/", _parent_stack(self.ctx, rel))
        else:
            self.walker.candidates.append(Candidate(rel, None))

    def _dir(self, prefix: str) -> Stack | str:
        state = self.states.get(prefix)
        if state is not None:
            return state
        parent_rel, _, name = prefix[:-1].rpartition("/")
        parent = self._dir(parent_rel + "/" if parent_rel else "")
        abs_path = os.path.join(self.ctx.root_abs, prefix)
        if isinstance(parent, str):
            state = parent
        elif is_ignored_entry(parent, prefix[:-1], name, True, abs_path, use_git=False):
            state = prefix
        elif prefix in self.lens_dirs:
            level = make_level(self.ctx.root_abs, prefix, False, True)
            state = parent if level is None else (*parent, level)
        else:
            state = parent
        self.states[prefix] = state
        return state


def _inspect_chunk(ctx: Context, chunk: list[Candidate]) -> list[DiscoveredFile | str]:
    return [inspect(ctx, c.rel, c.is_link) for c in chunk]


def _inspect_many(ctx: Context, cands: list[Candidate]) -> list[DiscoveredFile | str]:
    blocks_before = _blocks_read()
    results = _inspect_chunk(ctx, cands[:PROBE])
    cold = _blocks_read() - blocks_before >= COLD_BLOCKS_PER_FILE * min(PROBE, len(cands))
    rest = cands[PROBE:]
    if len(rest) < PARALLEL_MIN or not cold:
        return results + _inspect_chunk(ctx, rest)
    chunks = [rest[i : i + CHUNK] for i in range(0, len(rest), CHUNK)]
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        for part in pool.map(_inspect_chunk, [ctx] * len(chunks), chunks):
            results += part
    return results


def _check_all(ctx: Context, walker: Walker, out: Discovery) -> None:
    """Check candidates; directories met among them (submodules, links) are walked in turn."""
    pending = walker.run()
    while pending:
        for cand, outcome in zip(pending, _inspect_many(ctx, pending), strict=True):
            if isinstance(outcome, DiscoveredFile):
                out.files.append(outcome)
            elif outcome != IS_DIR:
                out.skip(outcome, cand.rel)
            elif os.path.islink(os.path.join(ctx.root_abs, cand.rel)):
                walker.add_link(cand.rel, _parent_stack(ctx, cand.rel))
            else:
                walker.add_dir(cand.rel + "/", _parent_stack(ctx, cand.rel))
        pending = walker.run()


def discover(root: Path, options: DiscoveryOptions = DEFAULT_OPTIONS) -> Discovery:
    """Find every file worth indexing under ``root``, with counts of what was left out."""
    ctx = Context.create(root, options)
    if not os.path.isdir(ctx.root_abs):
        raise NotADirectoryError(f"cannot discover files: {ctx.root_abs} is not a directory")
    out = Discovery()
    walker = Walker(ctx, out)
    with ThreadPoolExecutor(max_workers=1) as background:
        git_ignored = background.submit(git_ignored_entries, ctx.root_abs)
        paths = git_paths(ctx.root_abs)
        if paths:
            _GitFilter(ctx, walker, out).feed(paths)
        else:
            walker.add_dir("", ())
        _check_all(ctx, walker, out)
        for entry in git_ignored.result() if paths else ():
            out.skip("ignored", entry)
    out.files.sort(key=attrgetter("path"))
    return out
