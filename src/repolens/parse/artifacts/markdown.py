"""Markdown docs: each heading is a ``section`` from its line to the next heading of the
same or a higher level, nested under the heading above it.

Headings come from markdown-it's CommonMark tokens, so a ``#`` inside a fenced code block
or an HTML block is never taken for one, and setext headings (underlined) count too.
"""

from __future__ import annotations

from markdown_it import MarkdownIt

from repolens.parse.artifacts.model import ArtifactSymbol, ParsedArtifact

_PARSER = MarkdownIt("commonmark")


def parse_markdown(text: str) -> ParsedArtifact:
    out = ParsedArtifact("markdown")
    tokens = _PARSER.parse(text)
    headings: list[tuple[int, int, str]] = []  # (level, first line, title)
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.map is not None:
            title = tokens[index + 1].content.strip() if index + 1 < len(tokens) else ""
            headings.append((int(token.tag[1:]), token.map[0] + 1, title or "(untitled)"))
    last_line = max(1, text.count("\n") + (0 if text.endswith("\n") else 1))
    open_sections: list[tuple[int, int]] = []  # (level, symbol index) of enclosing headings
    for position, (level, line, title) in enumerate(headings):
        end = last_line
        for later_level, later_line, _ in headings[position + 1 :]:
            if later_level <= level:
                end = later_line - 1
                break
        while open_sections and open_sections[-1][0] >= level:
            open_sections.pop()
        parent = open_sections[-1][1] if open_sections else None
        qualified = (
            f"{out.symbols[parent].qualified_name} > {title}" if parent is not None else title
        )
        index = out.add(ArtifactSymbol("section", title, qualified, line, end, parent, f"h{level}"))
        open_sections.append((level, index))
    return out
