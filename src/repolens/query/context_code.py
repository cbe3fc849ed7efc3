"""Code for a context answer: as many lines of its symbols as the budget allows.

The map of a context answer is ranked in :mod:`repolens.query.context`; here the code is
read from disk now (through the caller's ``read_lines``, which decides what may be read)
and fitted to what the budget leaves: entry points first, then related symbols, each up to
a line cap, a long class as its head and a member list, a Python docstring trimmed before
the body is cut, and no lines shown twice.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING

from repolens.query.graph import SymbolRef
from repolens.query.symbols import CLASS_KINDS, FILE_KIND, SYMBOL_COLUMNS, SYMBOL_FROM, row_to_ref

if TYPE_CHECKING:
    from repolens.query.context import ContextBundle, ContextItem

ReadLines = Callable[[str], "list[str] | None"]

ENTRY_LINES = 80  # code lines at most per entry point
RELATED_LINES = 25
CODE_BUDGET = 3500  # characters of budget per symbol shown with code (the rest are listed)
MIN_LINES = 6  # fewer lines than this are not worth showing
MIN_CODE_ITEMS = 5
CLASS_HEAD_LINES = 25  # of a long class, the lines before its first member at most
MAX_MEMBERS = 60
LINE_OVERHEAD = 8  # number gutter and newline, per code line
ITEM_OVERHEAD = 120  # the map line and the code header, per symbol
FIXED_OVERHEAD = 700  # title, section headings, footer
_DOCSTRING_OPEN = re.compile(r"^[rRbBuU]?(\"\"\"|\'\'\')")


def load_code(conn: sqlite3.Connection, bundle: ContextBundle, read_lines: ReadLines) -> None:
    """Give each item, entry points first, as many code lines as the remaining budget
    allows; a later, smaller symbol may still fit after a large one did not. A class too
    long to show whole gets its head (signature, docstring, attributes) and a member list."""
    room = bundle.budget - FIXED_OVERHEAD - ITEM_OVERHEAD * len(bundle.items)
    room -= sum(60 * len(p.hops) for p in bundle.paths) + 160 * len(bundle.passages)
    room -= ITEM_OVERHEAD * len(bundle.tests)
    loaded: list[ContextItem] = []
    for item in code_order(bundle.items):
        sym = item.symbol
        if sym.kind == FILE_KIND or room < MIN_LINES * 30:
            continue
        if len(loaded) >= max(MIN_CODE_ITEMS, bundle.budget // CODE_BUDGET):
            break
        overlap = next((o for o in loaded if _overlaps(o, sym)), None)
        if overlap is not None:
            item.shown_in = overlap.symbol.qualified_name
            continue
        lines = read_lines(sym.file)
        if lines is None or sym.line > len(lines):
            continue
        span = lines[sym.line - 1 : max(sym.end_line, sym.line)]
        item.total_lines = len(span)
        cap = ENTRY_LINES if item.entry else RELATED_LINES
        if sym.kind in CLASS_KINDS and len(span) > cap:
            item.members = _members(conn, sym)
            head = item.members[0].line - sym.line if item.members else CLASS_HEAD_LINES
            span = span[: max(min(head, CLASS_HEAD_LINES), 1)]
            room -= sum(len(m.name) + 8 for m in item.members)
        skip = range(0)
        if sym.file.endswith((".py", ".pyi")) and not _fits(span, cap, room):
            skip = _docstring_rest(span)  # trimmed before the body is cut
        take, cost, shown = 0, 0, 0
        for number, text in enumerate(span):
            if number in skip:
                take += 1
                continue
            line_cost = min(len(text), 240) + LINE_OVERHEAD
            if shown >= cap or cost + line_cost > room:
                break
            take, cost, shown = take + 1, cost + line_cost, shown + 1
        if shown >= min(MIN_LINES, len(span) - len(skip)):
            item.lines = span[:take]
            if skip and take > skip.start:
                item.trimmed = (sym.line + skip.start, sym.line + min(skip.stop, take) - 1)
            room -= cost
            loaded.append(item)


def _fits(span: list[str], cap: int, room: int) -> bool:
    """Whether all of ``span`` would be shown: within the line cap and the room."""
    cost = sum(min(len(text), 240) + LINE_OVERHEAD for text in span)
    return len(span) <= cap and cost <= room


def _docstring_rest(span: list[str]) -> range:
    """The lines (indices into ``span``) of a Python docstring after its first line, when
    the body opens with a docstring of several lines; else an empty range."""
    body = next((n for n, text in enumerate(span[:12]) if text.rstrip().endswith(":")), None)
    first = next((n for n in range(body + 1, len(span)) if span[n].strip()), None) if (
        body is not None
    ) else None  # fmt: skip
    match = _DOCSTRING_OPEN.match(span[first].strip()) if first is not None else None
    if first is None or match is None:
        return range(0)
    quote, opening = match.group(1), span[first].strip()
    if opening.count(quote) >= 2:
        return range(0)  # a one-line docstring: nothing to trim
    end = next((n for n in range(first + 1, len(span)) if quote in span[n]), None)
    return range(first + 1, end + 1) if end is not None else range(0)


def code_order(items: list[ContextItem]) -> list[ContextItem]:
    """Entry points first, then related symbols the query named or search found, then
    those only the graph reached (they get what code room is left), each in rank order."""
    return sorted(items, key=lambda i: (not i.entry, not i.found))


def _members(conn: sqlite3.Connection, owner: SymbolRef) -> list[SymbolRef]:
    rows = conn.execute(
        f"SELECT {SYMBOL_COLUMNS} FROM {SYMBOL_FROM} WHERE s.parent_id = ?"
        " ORDER BY s.start_line LIMIT ?",
        (owner.id, MAX_MEMBERS),
    )
    return [row_to_ref(r) for r in rows]


def _overlaps(item: ContextItem, sym: SymbolRef) -> bool:
    """Whether ``sym``'s lines intersect the code already loaded for ``item`` (a class and
    its methods, say), so the same lines are not shown twice."""
    if item.symbol.file != sym.file:
        return False
    first, last = item.symbol.line, item.symbol.line + len(item.lines) - 1
    return sym.line <= last and first <= max(sym.end_line, sym.line)
