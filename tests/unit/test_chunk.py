"""Chunk boundaries per language, from the real parse: every line covered, none too big."""

from __future__ import annotations

from pathlib import Path

import pytest

from repolens.parse import ParsedFile, parse_source
from repolens.parse.chunk import MAX_CHARS, MAX_LINES, Chunk, chunk_file

FIXTURES = Path(__file__).parents[1] / "fixtures" / "search"


def chunks_of(name: str, language: str) -> tuple[str, ParsedFile | None, list[Chunk]]:
    """Source fixtures are stored as ``*.txt`` so linters and pytest leave them alone."""
    file = FIXTURES / name
    text = (file if file.exists() else file.with_name(name + ".txt")).read_text()
    parsed = parse_source(name, language, text.encode()) if language != "text" else None
    return text, parsed, chunk_file(text, language, parsed)


def assert_covered_and_bounded(text: str, chunks: list[Chunk]) -> None:
    lines = text.split("\n")[: text.count("\n") + (0 if text.endswith("\n") else 1)]
    covered = set()
    for chunk in chunks:
        assert 1 <= chunk.start_line <= chunk.end_line <= len(lines)
        assert len(chunk.text) <= MAX_CHARS
        assert chunk.end_line - chunk.start_line + 1 <= MAX_LINES
        if chunk.start_line == chunk.end_line and len(lines[chunk.start_line - 1]) > MAX_CHARS:
            assert chunk.text in lines[chunk.start_line - 1]  # a piece of a long line
        else:
            assert chunk.text == "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
        covered.update(range(chunk.start_line, chunk.end_line + 1))
    assert covered == set(range(1, len(lines) + 1))
    starts = [c.start_line for c in chunks]
    assert starts == sorted(starts)


def spans(chunks: list[Chunk]) -> list[tuple[int, int, str]]:
    return [(c.start_line, c.end_line, c.kind) for c in chunks]


def test_python_follows_symbols() -> None:
    text, parsed, chunks = chunks_of("chunk_sample.py", "python")
    assert_covered_and_bounded(text, chunks)
    assert parsed is not None
    by_name = {s.qualified_name: s for s in parsed.symbols}
    # imports and module docstring: their own chunk
    assert (chunks[0].start_line, chunks[0].kind) == (1, "preamble")
    assert chunks[0].end_line < by_name["log"].start_line
    # small neighbours merged: the constants and helpers share chunks
    helpers = [c for c in chunks if "is_blank" in c.names]
    assert len(helpers) == 1 and "strip_comments" in helpers[0].names
    # a large function is split; the pieces say which function they belong to
    load = by_name["load_document"]
    pieces = [c for c in chunks if c.names == ("load_document",)]
    assert len(pieces) >= 2
    assert pieces[0].start_line == load.start_line and pieces[-1].end_line >= load.end_line
    assert all(parsed.symbols[c.symbol_index or 0].name == "load_document" for c in pieces)
    # ... at a statement boundary: no piece starts inside an `if` block
    for piece in pieces[1:]:
        first = piece.text.split("\n")[0]
        assert first.startswith("    if ") or not first.strip() or first.startswith("    rows")
    # a large class is cut between methods, never inside one
    methods = [s for s in parsed.symbols if s.kind == "method"]
    for method in methods:
        holders = [c for c in chunks if c.start_line <= method.start_line <= c.end_line]
        assert any(c.end_line >= method.end_line for c in holders), method.name
    class_chunks = [c for c in chunks if "DocumentCache" in c.names]
    assert len(class_chunks) >= 2
    assert class_chunks[0].kind == "class" and class_chunks[0].names[0] == "DocumentCache"
    # the `if __name__` tail is its own chunk
    assert chunks[-1].kind == "module" and "__main__" in chunks[-1].text


def test_decorators_and_comments_stay_with_their_function() -> None:
    text = (
        "import os\n\n\n"
        "# Cached because the lookup walks the whole tree.\n"
        "@cache\n"
        "def find_root(path):\n"
        "    return os.path.dirname(path)\n"
    )
    parsed = parse_source("m.py", "python", text.encode())
    chunks = chunk_file(text, "python", parsed)
    holder = next(c for c in chunks if "find_root" in c.names)
    assert holder.text.startswith("# Cached because")
    assert_covered_and_bounded(text, chunks)


def test_typescript_class_and_functions() -> None:
    text, parsed, chunks = chunks_of("chunk_sample.ts", "typescript")
    assert_covered_and_bounded(text, chunks)
    assert parsed is not None and parsed.symbols
    assert chunks[0].kind == "preamble" and "import" in chunks[0].text
    client = next(c for c in chunks if c.names and c.names[0] == "HttpClient")
    assert client.kind == "class"
    assert "HttpClient.getJson" in client.names and client.symbol_index is not None
    retry = next(c for c in chunks if "parseRetryAfter" in c.names)
    assert retry.text.startswith("export function parseRetryAfter")


def test_go_methods_outside_their_struct() -> None:
    text, parsed, chunks = chunks_of("chunk_sample.go", "go")
    assert_covered_and_bounded(text, chunks)
    assert parsed is not None
    compact = next(s for s in parsed.symbols if s.name == "CompactLargeValues")
    holder = next(c for c in chunks if "Store.CompactLargeValues" in c.names)
    assert holder.start_line <= compact.start_line - 1  # its doc comment is included
    assert holder.end_line >= compact.end_line
    assert all(c.kind != "module" for c in chunks[1:])  # methods are not "code between"


def test_markdown_splits_at_headings_outside_fences() -> None:
    text, _, chunks = chunks_of("chunk_sample.md", "markdown")
    assert_covered_and_bounded(text, chunks)
    assert all(c.kind == "section" for c in chunks)
    for chunk in chunks:
        assert chunk.text.startswith("#")  # every chunk begins at a heading
    assert any("Troubleshooting" in c.names for c in chunks)
    upgrades = next(c for c in chunks if "Upgrades" in c.names)
    assert "# not a heading inside a fence" in upgrades.text


def test_json_without_parse_uses_line_windows() -> None:
    text, _, chunks = chunks_of("chunk_sample.json", "text")
    assert_covered_and_bounded(text, chunks)
    assert len(chunks) >= 2 and all(c.kind == "text" for c in chunks)
    assert all(c.symbol_index is None for c in chunks)


def test_minified_line_is_cut_into_pieces_not_truncated() -> None:
    statements = ";".join(f"var v{i}=function(a,b){{return a*{i}+b}}" for i in range(3000))
    text = f"/* bundle */\n{statements};\n"
    chunks = chunk_file(text, "javascript", parse_source("b.js", "javascript", text.encode()))
    assert_covered_and_bounded(text, chunks)
    pieces = [c for c in chunks if c.start_line == 2]
    assert len(pieces) >= len(statements) // MAX_CHARS
    assert "".join(p.text for p in pieces) == statements + ";"
    assert all(p.text.endswith((";", "}", ",")) for p in pieces[:-1])  # cut at safe places


@pytest.mark.parametrize("text", ["", "\n\n", "   \n"])
def test_blank_files_have_no_chunks(text: str) -> None:
    assert chunk_file(text, "python", None) == []


def test_long_file_without_parse_is_fully_covered() -> None:
    text = "".join(f"line {i} " + "x" * (i % 120) + "\n" for i in range(1, 700))
    chunks = chunk_file(text, "text", None)
    assert_covered_and_bounded(text, chunks)
    assert len(chunks) >= 700 // MAX_LINES


def test_pieces_fill_the_character_budget_exactly_and_ignore_crlf() -> None:
    # 100 characters a line with its newline: 30 lines are 2999 characters, 31 too many
    line = "y" * 99
    text = "\n".join([line] * 100) + "\n"
    chunks = chunk_file(text, "text", None)
    assert_covered_and_bounded(text, chunks)
    assert (chunks[0].start_line, chunks[0].end_line) == (1, MAX_CHARS // 100)
    assert len(chunks[0].text) == MAX_CHARS - 1
    crlf = chunk_file(text.replace("\n", "\r\n"), "text", None)
    assert [(c.start_line, c.end_line, c.text) for c in crlf] == [
        (c.start_line, c.end_line, c.text) for c in chunks
    ]
