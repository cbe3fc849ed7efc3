"""Answers sized for agents: a character budget, line-numbered code, and a closing line that
says what was left out and how to get it (design principle 6).

An agent that receives a truncated answer without being told falls back to reading whole
files; one that is told "12 more callers: raise limit" asks again precisely. So every tool
answer is built through ``Answer``, which never exceeds its budget and always ends with
either "complete" or the list of what it dropped.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence, Set
from dataclasses import dataclass, field

CHARS_PER_TOKEN = 4  # the usual rough figure for code; budgets are in characters
FOOTER_RESERVE = 320  # room kept for the closing "left out" line
MAX_LINE_CHARS = 240  # a minified line is cut, not allowed to eat the budget
MIN_BUDGET = 400


def cite(path: str, line: int | None = None, end_line: int | None = None) -> str:
    """``path:line`` or ``path:start-end``, the form every answer cites."""
    if not line:
        return path
    if end_line and end_line != line:
        return f"{path}:{line}-{end_line}"
    return f"{path}:{line}"


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, marking the cut."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def numbered(
    lines: Sequence[str], first_line: int, width: int | None = None, marks: Set[int] = frozenset()
) -> str:
    """Lines prefixed with their line numbers, right-aligned (like ``cat -n``), so an
    agent can cite ``path:line`` without reading the file again. Lines in ``marks`` (line
    numbers) get a ``>`` in the gutter: the call site a trace passes through."""
    if not lines:
        return ""
    width = width or len(str(first_line + len(lines) - 1))
    gutter = (lambda n: ">" if n in marks else " ") if marks else (lambda n: "")
    return "\n".join(
        f"{gutter(number)}{number:>{width}}  {clip(text.rstrip(), MAX_LINE_CHARS)}"
        for number, text in enumerate(lines, start=first_line)
    )


def code_block(
    lines: Sequence[str], first_line: int, language: str = "", marks: Set[int] = frozenset()
) -> str:
    """A fenced, line-numbered code block."""
    return f"```{language}\n{numbered(lines, first_line, marks=marks)}\n```"


def add_code(
    out: Answer,
    header: str,
    lines: Sequence[str],
    first_line: int,
    *,
    language: str = "",
    room: int | None = None,
    focus: int | None = None,
    marks: Set[int] = frozenset(),
    min_lines: int = 5,
) -> tuple[int, int] | None:
    """Add ``header`` and as many code lines as fit in ``room`` (default: all the room
    left), centred on line ``focus`` when not all fit. Returns the first and last line
    shown, or ``None`` when not even ``min_lines`` fit."""
    room = min(out.room(), room if room is not None else out.room()) - len(header) - 2
    count = lines_that_fit(lines, first_line, room, language, bool(marks))
    if count < min(min_lines, len(lines)) or not lines:
        return None
    while count >= min(min_lines, len(lines)) and count > 0:
        start = 0
        if count < len(lines) and focus is not None:
            start = min(max(focus - first_line - count // 3, 0), len(lines) - count)
        block = code_block(lines[start : start + count], first_line + start, language, marks)
        if out.add(f"{header}\n{block}"):  # a later window may need a wider number gutter
            return first_line + start, first_line + start + count - 1
        count -= 1
    return None


def lines_that_fit(
    lines: Sequence[str], first_line: int, room: int, language: str = "", marked: bool = False
) -> int:
    """How many leading ``lines`` fit in ``room`` characters once numbered and fenced
    (exactly as ``code_block`` renders them)."""
    fence = 8 + len(language) - 1  # the last code line has no newline of its own
    text_chars = 0
    for count, text in enumerate(lines, start=1):
        text_chars += int(marked) + 3 + len(clip(text.rstrip(), MAX_LINE_CHARS))
        width = len(str(first_line + count - 1))
        if fence + text_chars + count * width > room:
            return count - 1
    return len(lines)


@dataclass(slots=True)
class Answer:
    """A tool answer under construction: blocks added while they fit in ``budget``
    characters, plus what had to be left out and how to ask for it."""

    budget: int
    parts: list[str] = field(default_factory=list)
    used: int = 0
    left_out: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def room(self) -> int:
        """Characters still free for content (the footer's share already set aside)."""
        return max(self.budget - FOOTER_RESERVE - self.used, 0)

    def fits(self, text: str) -> bool:
        return len(text) + 1 <= self.room()

    def add(self, text: str) -> bool:
        """Append ``text`` as a block if it fits; say whether it did."""
        if not self.fits(text):
            return False
        self.parts.append(text)
        self.used += len(text) + 1
        return True

    def add_clipped(self, text: str) -> bool:
        """Append ``text``, cut to the room left when it does not fit whole (for one-line
        headers that must appear even when long). False when nothing useful fits."""
        room = self.room() - 1
        if room < 20:
            return False
        return self.add(clip(text, room))

    def leave_out(self, what: str, hint: str = "") -> None:
        """Record something dropped (``"12 more callers"``) and how to get it."""
        self.left_out.append(what)
        if hint and hint not in self.hints:
            self.hints.append(hint)

    def note(self, text: str) -> None:
        """A caveat shown at the end whatever the budget (stale files, index in progress)."""
        if text not in self.notes:
            self.notes.append(text)

    def render(self) -> str:
        """The answer, never longer than ``budget``, ending with the left-out line."""
        body = "\n".join(self.parts)
        room = max(self.budget - len(body) - 1, 0)
        footer = self._footer(len(self.left_out))
        shown = len(self.left_out)
        while len(footer) > room and shown > 1:  # name fewer dropped items, keep the hints
            shown -= 1
            footer = self._footer(shown)
        if len(footer) > room:
            footer = clip(footer, room)
        text = f"{body}\n{footer}" if body else footer
        return text[: self.budget]

    def _footer(self, shown: int) -> str:
        lines = [f"Note: {note}" for note in self.notes]
        if self.left_out:
            items = self.left_out[:shown]
            if shown < len(self.left_out):
                items.append(f"and {len(self.left_out) - shown} more")
            lines.append("Left out: " + "; ".join(items) + ".")
            if self.hints:
                lines.append("To get more: " + "; ".join(self.hints) + ".")
        else:
            lines.append("(complete: nothing left out)")
        return "\n".join(lines)


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 caller`` / ``3 callers``."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


def languages_of(conn: sqlite3.Connection, paths: set[str]) -> dict[str, str]:
    """Each path's language, for code fences."""
    if not paths:
        return {}
    marks = ",".join("?" * len(paths))
    rows = conn.execute(f"SELECT path, language FROM files WHERE path IN ({marks})", list(paths))
    return {str(r[0]): str(r[1]) for r in rows}
