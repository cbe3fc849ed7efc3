"""Comments and decorations around a definition, found by position instead of navigation.

The query captures every comment (``@comment``) and decoration (``@decoration``:
decorators, annotations, attributes) once; a definition then finds its own by byte and
row lookups. Walking siblings and parents from each definition would cost far more:
tree-sitter nodes keep no parent pointers, so every such step rescans from the root.

- Decorations of a definition: those chained (separated by whitespace only) at the start of
  the definition or of its wrapper, or right before either. This one rule covers Python
  decorators, TypeScript decorators (inside the class, before ``export``, above a
  method), Java annotations (leading the modifiers) and Rust attributes (siblings above).
- Doc comment: the contiguous block of whole-line comments ending on the row above the
  first decoration (or the definition), or on the same row before it.
"""

from __future__ import annotations

import bisect
import re

from tree_sitter import Node

from repolens.parse.text import DOC_MAX, cap, clean_comment, node_text, short_text

DECORATION_MAX = 200

_NON_WS = re.compile(rb"[^ \t\r\n]")


class Trivia:
    """Index of a file's comments and decorations."""

    def __init__(self, src: bytes, comments: list[Node], decorations: list[Node]) -> None:
        self.src = src
        self.comment_by_end_row: dict[int, Node] = {}
        for comment in comments:
            self.comment_by_end_row[comment.end_point[0]] = comment
        self.comment_spans = sorted((c.start_byte, c.end_byte) for c in comments)
        # Chains are followed by dict lookups: each decoration is keyed by its start and by
        # the first non-blank byte after it (where the next decoration or the def begins).
        self.deco_by_start: dict[int, Node] = {}
        self.deco_next: dict[int, int] = {}
        self.deco_before: dict[int, Node] = {}
        for deco in decorations:
            found = _NON_WS.search(src, deco.end_byte)
            after = found.start() if found else len(src)
            self.deco_by_start[deco.start_byte] = deco
            self.deco_next[deco.start_byte] = after
            self.deco_before[after] = deco

    def decorations(self, node: Node, anchor: Node) -> tuple[list[Node], int]:
        """The decorations of a definition in source order, and where its header starts
        once leading decorations are skipped."""
        start = node.start_byte
        if not self.deco_by_start:
            return [], start
        found: dict[int, Node] = {}
        header = self._chain(start, found)
        if anchor.start_byte != start:
            self._chain(anchor.start_byte, found)
        if not found:
            return [], header
        return [found[k] for k in sorted(found)], header

    def _chain(self, pos: int, found: dict[int, Node]) -> int:
        """Collect decorations leading at ``pos`` and right before it; return where the
        leading ones end."""
        deco = self.deco_before.get(pos)
        while deco is not None:
            found[deco.start_byte] = deco
            deco = self.deco_before.get(deco.start_byte)
        deco = self.deco_by_start.get(pos)
        while deco is not None:
            found[pos] = deco
            pos = self.deco_next[pos]
            deco = self.deco_by_start.get(pos)
        return pos

    def text_without_comments(self, start: int, end: int) -> str:
        """Source text of ``[start, end)`` with the comments inside it left out (a header
        such as ``def f(a,  # note`` reads as code only)."""
        spans = self.comment_spans
        i = bisect.bisect_left(spans, (start, start))
        pieces: list[bytes] = []
        pos = start
        while i < len(spans) and spans[i][0] < end:
            pieces.append(self.src[pos : spans[i][0]])
            pos = min(spans[i][1], end)
            i += 1
        pieces.append(self.src[pos:end])
        return b"".join(pieces).decode("utf-8", "replace")

    def doc_comment(self, top: Node) -> str:
        """The comment block right above ``top`` (or before it on its first row)."""
        by_row = self.comment_by_end_row
        if not by_row:
            return ""
        row = top.start_point[0]
        parts: list[str] = []
        same_row = by_row.get(row)
        if same_row is not None and same_row.end_byte <= top.start_byte:
            if not self._starts_line(same_row):
                return ""
            parts.append(self._clean(same_row) or "")
            row = same_row.start_point[0]
        comment = by_row.get(row - 1)
        while comment is not None and self._starts_line(comment):
            text = self._clean(comment)
            if text is None:
                break
            parts.append(text)
            row = comment.start_point[0]
            comment = by_row.get(row - 1)
        parts.reverse()
        return cap("\n".join(p for p in parts if p).strip(), DOC_MAX)

    def _starts_line(self, comment: Node) -> bool:
        line_start = self.src.rfind(b"\n", 0, comment.start_byte) + 1
        return not self.src[line_start : comment.start_byte].strip()

    def _clean(self, comment: Node) -> str | None:
        """The comment's text, or None for an inner doc comment (``//!``: the module's)."""
        text = node_text(comment, self.src)
        if text.startswith(("//!", "/*!")):
            return None
        return clean_comment(text)


def decoration_text(node: Node, src: bytes) -> str:
    """A decoration as written, on one line and capped, without ``@`` or ``#[...]``:
    ``app.route("/x")``."""
    text = short_text(node, src, DECORATION_MAX)
    if text.startswith("#"):
        text = text.lstrip("#!").removeprefix("[").removesuffix("]")
    return text.removeprefix("@").strip()
