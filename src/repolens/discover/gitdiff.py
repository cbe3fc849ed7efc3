"""What a change touches, as git says it: the changed line ranges of each file, from the
working tree, the staged changes, a revision range or a patch given as text.

Only the new side of each hunk is kept (where the change is in the tree as it is now),
because that is what the index describes; a hunk that only deletes lines leaves a mark at
the line where they were, so the symbol around it still counts as changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from repolens.discover.gitls import run_git

_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_REV = re.compile(r"^[\w./~^@{}:-]+$")


class DiffError(Exception):
    """The diff could not be had (not a repository, an unknown revision, bad input)."""


@dataclass(slots=True)
class FileChange:
    """One file of a diff: its path now (``None`` when deleted), its path before, and the
    new-side lines changed (1-based, sorted)."""

    path: str | None
    old_path: str | None
    lines: list[int] = field(default_factory=list)


def parse_patch(text: str) -> list[FileChange]:
    """The files and changed lines of a unified diff (``git diff`` or ``diff -u``). Hunk
    bodies are read by their counts, so a removed line that starts with ``--`` is never
    taken for a file header."""
    changes: list[FileChange] = []
    current: FileChange | None = None
    line = old_left = new_left = 0
    for raw in text.splitlines():
        if current is not None and (old_left > 0 or new_left > 0):
            if raw.startswith("+"):
                current.lines.append(line)
                line, new_left = line + 1, new_left - 1
            elif raw.startswith("-"):
                current.lines.append(line)  # the symbol the removed line was in
                old_left -= 1
            elif not raw.startswith("\\"):
                line, old_left, new_left = line + 1, old_left - 1, new_left - 1
        elif raw.startswith("--- "):
            current = FileChange(None, _side(raw[4:]), [])
            changes.append(current)
        elif raw.startswith("+++ ") and current is not None:
            current.path = _side(raw[4:])
        elif (hunk := _HUNK.match(raw)) and current is not None:
            old_left = int(hunk.group(1) or 1)
            line, new_left = int(hunk.group(2)), int(hunk.group(3) or 1)
            if new_left == 0:  # only deletions: mark where they were
                current.lines.append(max(line, 1))
    for change in changes:
        change.lines = sorted(set(change.lines))
    return [c for c in changes if c.path or c.old_path]


def _side(text: str) -> str | None:
    name = text.split("\t", 1)[0].strip()
    if name == "/dev/null":
        return None
    return name[2:] if name.startswith(("a/", "b/")) else name


def git_diff(root: str, *, staged: bool = False, rev: str | None = None) -> list[FileChange]:
    """The working tree's changes against HEAD (default), the staged ones, or ``rev``
    (a revision, compared with the working tree, or a range ``A..B``)."""
    args = ["diff", "--no-color", "--no-ext-diff", "-U0", "--relative"]
    if staged:
        args.append("--cached")
    if rev is not None:
        if not _REV.match(rev) or rev.startswith("-"):
            raise DiffError(f"not a revision: {rev!r}")
        args.append(rev)
    else:
        args.append("HEAD")
    out = run_git(root, *args, "--")
    if out is None:
        raise DiffError(f"git diff failed in {root} (is it a git repository, and is {rev or 'HEAD'}"
                        " a revision in it?)")  # fmt: skip
    return parse_patch(out.decode("utf-8", "replace"))
