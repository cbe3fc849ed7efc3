"""Split a file into search chunks that follow its structure.

A chunk is what search returns and what gets embedded, so it should be one idea: a
function, a method, a small class, the imports. Boundaries come from the parse that the
graph already made (no second parse). Small neighbours are merged so that a file of
one-line helpers does not become a hundred tiny chunks; a large symbol is split at
statement boundaries with a little overlap. Files without a parse (docs, config, text)
are cut at headings and blank lines.

Nothing is ever truncated: every line of the file lies in at least one chunk, and a line
longer than a chunk (minified code) is itself cut into consecutive pieces.
"""

from __future__ import annotations

import bisect
import itertools
import operator
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from repolens.parse.model import ParsedFile, Symbol

CHUNKER_VERSION = 1
MAX_LINES = 60
MAX_CHARS = 3000
MIN_LINES = 10  # the smallest cap the chunk_max_lines setting may set
MERGE_LINES = 30  # neighbours merge while the result stays this short...
SMALL_LINES = 10  # ...and one of them is this short (two real functions stay apart)
OVERLAP_LINES = 2
CONTAINER_KINDS = frozenset(
    {"class", "struct", "interface", "trait", "protocol", "enum", "namespace", "module",
     "object", "component", "file"}
)  # fmt: skip
_FAMILY = {
    **{kind: "type" for kind in ("class", "struct", "interface", "trait", "protocol", "enum",
                                 "type_alias", "namespace", "module", "object",
                                 "component")},
    **{kind: "callable" for kind in ("function", "method", "constructor", "property", "macro",
                                     "route", "test")},
}  # fmt: skip
_COMMENT_STARTS = ("#", "//", "/*", "*", "@", "--", ";;", "'''", '"""')
_CLOSERS = frozenset("})];,")
_SAFE_CUTS = (";", "}", ",", " ", ")")


@dataclass(frozen=True, slots=True)
class Chunk:
    """A run of lines of one file (1-based, inclusive) and its text.

    ``kind`` is the symbol kind the chunk shows (``function``, ``class``…) or what it is
    otherwise: ``preamble`` (imports and header), ``module`` (top-level code), ``section``
    (a markdown heading's text), ``text``. ``symbol_index`` points into
    ``ParsedFile.symbols`` at the innermost symbol enclosing the whole chunk. ``names``
    are the qualified names of the symbols the chunk shows, enclosing one first; search
    matches query identifiers against them. ``parts`` are the lines where each further
    neighbour merged into the chunk begins, so that embeddings can follow them.
    """

    start_line: int
    end_line: int
    text: str
    kind: str
    symbol_index: int | None
    names: tuple[str, ...] = ()
    parts: tuple[int, ...] = ()


@dataclass(slots=True)
class _Unit:
    """A candidate chunk while boundaries are being decided."""

    start: int
    end: int
    kind: str
    symbol: int | None
    context: int | None  # enclosing symbol of the level the unit was cut at
    names: tuple[str, ...] = ()
    gap: bool = False  # code between symbols (shows its level's enclosing symbol)
    standalone: bool = False  # preamble and module tail: never merged with code
    piece: bool = False  # part of a split unit: never merged again
    text: str | None = None  # only for a piece of one over-long line
    main: int = 0  # after merging: lines of the part whose kind the unit has
    parts: tuple[int, ...] = ()  # after merging: first lines of the later parts


class _Doc:
    """The file's lines with cheap character counts of any line range, and the size a
    chunk of it may have (``max_lines``, and characters in proportion)."""

    def __init__(self, text: str, max_lines: int = MAX_LINES) -> None:
        self.max_lines = max_lines
        self.max_chars = MAX_CHARS * max_lines // MAX_LINES
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if "\r" in text:
            lines = [line[:-1] if line.endswith("\r") else line for line in lines]
        self.lines = lines
        # offsets[k]: characters before line k + 1, each line's newline counted (k of them)
        lengths = itertools.accumulate(map(len, lines), initial=0)
        self.offsets = list(map(operator.add, lengths, itertools.count()))

    @property
    def count(self) -> int:
        return len(self.lines)

    def line(self, number: int) -> str:
        return self.lines[number - 1]

    def chars(self, start: int, end: int) -> int:
        return self.offsets[end] - self.offsets[start - 1] - 1

    def text(self, start: int, end: int) -> str:
        return "\n".join(self.lines[start - 1 : end])

    def fits(self, start: int, end: int) -> bool:
        return end - start + 1 <= self.max_lines and self.chars(start, end) <= self.max_chars

    def blank(self, number: int) -> bool:
        return not self.lines[number - 1].strip()

    def indent(self, number: int) -> int:
        line = self.lines[number - 1]
        return len(line) - len(line.lstrip())


def chunk_file(
    text: str, language: str, parsed: ParsedFile | None, max_lines: int = MAX_LINES
) -> list[Chunk]:
    """Chunks covering every line of ``text``, each at most ``max_lines`` lines (the
    ``chunk_max_lines`` setting, at most ``MAX_LINES``) and as many characters in
    proportion (``MAX_CHARS`` at full size), in file order."""
    if not text.strip():
        return []
    doc = _Doc(text, max(MIN_LINES, min(max_lines, MAX_LINES)))
    if parsed is not None and parsed.symbols:
        units = _Structure(doc, parsed.symbols).units()
    elif language == "markdown":
        units = _markdown_units(doc)
    else:
        kind = "module" if parsed is not None and not parsed.error else "text"
        units = [_Unit(1, doc.count, kind, None, None)]
    units = _merge(
        doc, [piece for unit in _absorb_trivial(doc, units) for piece in _fit(doc, unit)]
    )
    symbols = parsed.symbols if parsed is not None else []
    return [_to_chunk(doc, unit, symbols) for unit in units]


def _to_chunk(doc: _Doc, unit: _Unit, symbols: Sequence[Symbol]) -> Chunk:
    text = unit.text if unit.text is not None else doc.text(unit.start, unit.end)
    names = unit.names
    if unit.symbol is not None:  # the enclosing symbol's name first
        own = symbols[unit.symbol].qualified_name
        names = (own, *(name for name in names if name != own))
    return Chunk(unit.start, unit.end, text, unit.kind, unit.symbol, names, unit.parts)


class _Structure:
    """Units of a parsed file: symbols, the code between them, preamble and tail."""

    def __init__(self, doc: _Doc, symbols: Sequence[Symbol]) -> None:
        self.doc = doc
        self.symbols = symbols
        self.children: dict[int | None, list[int]] = {}
        for index in range(len(symbols)):
            self.children.setdefault(self._parent(index), []).append(index)
        roots = self.children.get(None, [])
        whole = [index for index in roots if self._spans_file(index)]
        if len(whole) == 1 and len(roots) > 1:  # a component and its module-level script:
            # the definitions lie in the component's lines, so they are chunked inside it
            self.children[None] = whole
            self.children.setdefault(whole[0], []).extend(i for i in roots if i != whole[0])

    def _parent(self, index: int) -> int | None:
        """The parent the chunker nests under: one whose lines hold the symbol's (a Go
        method names its struct as parent but lives outside it)."""
        symbol = self.symbols[index]
        parent = symbol.parent
        if parent is None or not 0 <= parent < index:
            return None
        outer = self.symbols[parent]
        inside = outer.start_line <= symbol.start_line and symbol.end_line <= outer.end_line
        return parent if inside else self._parent(parent)

    def units(self) -> list[_Unit]:
        roots, context = self.children.get(None, []), None
        while len(roots) == 1 and self._spans_file(roots[0]) and self.children.get(roots[0]):
            context = roots[0]
            roots = self.children[context]
        units = self._region(1, self.doc.count, roots, context)
        if units and units[0].gap and context is None:
            units[0] = replace(units[0], kind="preamble", standalone=True)
        if len(units) > 1 and units[-1].gap and context is None:
            units[-1] = replace(units[-1], standalone=True)
        return units

    def _spans_file(self, index: int) -> bool:
        symbol = self.symbols[index]
        return symbol.start_line <= 1 and symbol.end_line >= self.doc.count

    def _region(self, start: int, end: int, nodes: list[int], context: int | None) -> list[_Unit]:
        """Units partitioning lines ``start..end``: ``nodes`` and the gaps between them."""
        units: list[_Unit] = []
        cursor = start
        for index in sorted(nodes, key=lambda i: self.symbols[i].start_line):
            symbol = self.symbols[index]
            first, last = max(cursor, symbol.start_line), min(end, symbol.end_line)
            if last < first:
                continue  # overlaps an earlier sibling or lies outside the region
            first = self._leading_comments(first, cursor)
            if first > cursor:
                units.append(self._gap(cursor, first - 1, context, header=cursor == start))
            units.extend(self._symbol_units(index, first, last, context))
            cursor = last + 1
        if cursor <= end:
            units.append(self._gap(cursor, end, context, header=cursor == start))
        return units

    def _leading_comments(self, first: int, floor: int) -> int:
        """Comments and decorators right above a symbol belong to it."""
        while first > floor and self.doc.line(first - 1).lstrip().startswith(_COMMENT_STARTS):
            first -= 1
        return first

    def _gap(self, start: int, end: int, context: int | None, *, header: bool) -> _Unit:
        if context is None:
            return _Unit(start, end, "module", None, None, gap=True)
        symbol = self.symbols[context]
        unit = _Unit(start, end, symbol.kind, context, context, (symbol.qualified_name,), True)
        if header:  # a class's declaration names any chunk it is merged into
            unit.main = self.doc.max_lines
        return unit

    def _symbol_units(self, index: int, first: int, last: int, context: int | None) -> list[_Unit]:
        symbol = self.symbols[index]
        children = self.children.get(index, [])
        if self.doc.fits(first, last) or symbol.kind not in CONTAINER_KINDS or not children:
            names = (symbol.qualified_name, *self._descendant_names(index))
            return [_Unit(first, last, symbol.kind, index, context, names)]
        return self._region(first, last, children, index)

    def _descendant_names(self, index: int) -> Iterator[str]:
        for child in self.children.get(index, []):
            yield self.symbols[child].qualified_name
            yield from self._descendant_names(child)


def _markdown_units(doc: _Doc) -> list[_Unit]:
    """One unit per heading's section (fenced code blocks cannot hold headings)."""
    starts, in_fence = [1], False
    for number, line in enumerate(doc.lines, start=1):
        stripped = line.lstrip()
        if stripped.startswith(("```", "~~~")):
            in_fence = not in_fence
        elif not in_fence and number > 1 and _is_heading(stripped):
            starts.append(number)
    bounds = [*starts, doc.count + 1]
    units = []
    for start, following in itertools.pairwise(bounds):
        heading = doc.line(start).strip().lstrip("#").strip()
        names = (heading,) if doc.line(start).lstrip().startswith("#") and heading else ()
        units.append(_Unit(start, following - 1, "section", None, None, names))
    return units


def _is_heading(stripped: str) -> bool:
    return stripped.startswith("#") and stripped.lstrip("#")[:1] in (" ", "\t", "")


def _trivial(doc: _Doc, unit: _Unit) -> bool:
    """Only blank lines and closing brackets: not worth a chunk of its own."""
    for line in doc.lines[unit.start - 1 : unit.end]:
        text = line.strip()
        if text and text != "end" and not set(text) <= _CLOSERS:
            return False
    return True


def _absorb_trivial(doc: _Doc, units: list[_Unit]) -> list[_Unit]:
    """Attach blank/closing-bracket gaps to the unit before them (or after, at the start)."""
    out: list[_Unit] = []
    carry: int | None = None  # start of trivial lines waiting for a following unit
    for unit in units:
        trivial = _trivial(doc, unit)
        if trivial and out:
            out[-1].end = unit.end
        elif trivial:
            carry = unit.start if carry is None else carry
        else:
            if carry is not None:
                unit.start, carry = carry, None
            out.append(unit)
    return out or [_Unit(units[0].start, units[-1].end, units[0].kind, None, None)]


def _fit(doc: _Doc, unit: _Unit) -> list[_Unit]:
    """The unit itself, or pieces of it that each fit."""
    if doc.fits(unit.start, unit.end):
        return [unit]
    return [
        replace(unit, start=start, end=end, text=text, piece=True, standalone=False)
        for start, end, text in _split_lines(doc, unit.start, unit.end)
    ]


def _split_lines(doc: _Doc, start: int, end: int) -> Iterator[tuple[int, int, str | None]]:
    """Consecutive line ranges (overlapping a little where a cut is not clean) that each
    fit; a line too long for any chunk is yielded as pieces of itself."""
    first = start
    while first <= end:
        if doc.chars(first, first) > doc.max_chars:
            for piece in _split_long_line(doc.line(first), doc.max_chars):
                yield first, first, piece
            first += 1
            continue
        limit = _furthest_fit(doc, first, end)
        if limit == end or doc.chars(limit + 1, limit + 1) > doc.max_chars:
            yield first, limit, None
            first = limit + 1
            continue
        cut = _best_cut(doc, first, limit)
        yield first, cut, None
        clean = doc.blank(cut) or doc.blank(cut + 1)
        overlap = 0 if clean or cut - first + 1 <= 3 * OVERLAP_LINES else OVERLAP_LINES
        first = cut + 1 - overlap


def _furthest_fit(doc: _Doc, first: int, end: int) -> int:
    """The last line (at least ``first``, at most ``end``) of the longest run from ``first``
    that fits; a line too long on its own never fits, as no run holding it does."""
    budget = doc.offsets[first - 1] + doc.max_chars + 1  # chars(first, n) <= max_chars
    longest = bisect.bisect_right(doc.offsets, budget) - 1
    return max(first, min(end, first + doc.max_lines - 1, longest))


def _best_cut(doc: _Doc, first: int, limit: int) -> int:
    """The last line of a piece in ``first..limit``: a blank line or a statement at the
    body's own indentation is a good place; right after an opening bracket is not."""
    window = doc.lines[first - 1 : limit + 1]  # lines first..limit+1; line n at n - first
    stripped = [line.lstrip() for line in window]  # once per line, not once per question
    blank = [not text for text in stripped]
    indent = [len(line) - len(text) for line, text in zip(window, stripped, strict=True)]
    base = min((indent[k] for k in range(1, len(window) - 1) if not blank[k]), default=0)
    best, best_score = limit, -10
    for cut in range(first + (limit - first) // 2, limit + 1):
        at = cut - first  # the cut line; at + 1 is the line after it
        score = 0
        if blank[at] or blank[at + 1]:
            score += 3
        if not blank[at + 1] and indent[at + 1] <= base:
            score += 2
        if window[at].rstrip().endswith(("(", "[", "{", ",", "\\", ":", "=")):
            score -= 2
        if score >= best_score:
            best, best_score = cut, score
    return best


def _split_long_line(line: str, max_chars: int) -> list[str]:
    """Consecutive pieces of one line, cut after a statement or separator when possible."""
    pieces, rest = [], line
    while len(rest) > max_chars:
        window = rest[:max_chars]
        cut = max_chars
        for mark in _SAFE_CUTS:
            position = window.rfind(mark, max_chars // 2)
            if position > 0:
                cut = position + 1
                break
        pieces.append(rest[:cut])
        rest = rest[cut:]
    if rest:
        pieces.append(rest)
    return pieces


def _merge(doc: _Doc, units: list[_Unit]) -> list[_Unit]:
    """Merge small neighbours of the same level into chunks of up to ``MERGE_LINES``."""
    out: list[_Unit] = []
    for unit in units:
        previous = out[-1] if out else None
        if previous is not None and _mergeable(doc, previous, unit):
            out[-1] = _combine(previous, unit)
        else:
            out.append(unit)
    return out


def _mergeable(doc: _Doc, a: _Unit, b: _Unit) -> bool:
    if a.piece or b.piece or a.standalone or b.standalone or a.context != b.context:
        return False
    if a.context is None and not _same_family(a, b):
        return False  # a small class stays apart from the functions around it
    if min(a.end - a.start, b.end - b.start) + 1 > SMALL_LINES:
        return False
    merged_lines = min(MERGE_LINES, doc.max_lines)
    return b.end - a.start + 1 <= merged_lines and doc.chars(a.start, b.end) <= doc.max_chars


def _same_family(a: _Unit, b: _Unit) -> bool:
    """Types merge with types and callables with callables; data (constants, fields) and
    the code between symbols merge with anything."""
    families = {_FAMILY.get(u.kind, "data") for u in (a, b) if not u.gap}
    return len(families - {"data"}) <= 1


def _combine(a: _Unit, b: _Unit) -> _Unit:
    """One unit over both; it shows the symbol they share, else their enclosing one, and
    takes its kind and first names from its largest part (top-level code between symbols
    never leads)."""
    symbol = a.symbol if a.symbol == b.symbol else a.context
    merged = _Unit(a.start, b.end, a.kind, symbol, a.context, (), a.gap and b.gap)
    merged.main = a.main or a.end - a.start + 1
    lead, rest = a, b
    if (a.gap and a.symbol is None and not b.gap) or b.end - b.start + 1 > merged.main:
        merged.kind, merged.main = b.kind, b.end - b.start + 1  # the biggest part names it
        lead, rest = b, a
    merged.names = tuple(dict.fromkeys((*lead.names, *rest.names)))  # its names first
    merged.parts = (*a.parts, b.start, *b.parts)
    return merged
