"""What an artifact parser gives: the artifact's symbols, with their lines.

Artifacts are read by small parsers, one module per kind (``sql``, ``openapi``,
``graphql``, ``protobuf``, ``markdown``), each a function from a file's text to a
:class:`ParsedArtifact`. A parser never raises for bad input: what it could not read is
its ``error``, with whatever it read before.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class ArtifactSymbol:
    """One thing an artifact defines. ``kind`` is the artifact's own word (``table``,
    ``column``, ``foreign_key``, ``operation``, ``schema``, ``type``, ``query``,
    ``message``, ``service``, ``rpc``, ``section``…); ``parent`` indexes the enclosing
    symbol in ``ParsedArtifact.symbols`` (parents come first); ``detail`` is a one-line
    summary (a column's type, an operation's operationId, an rpc's messages)."""

    kind: str
    name: str
    qualified_name: str
    start_line: int  # 1-based, inclusive
    end_line: int
    parent: int | None = None
    detail: str = ""


@dataclass(slots=True)
class ParsedArtifact:
    kind: str
    symbols: list[ArtifactSymbol] = field(default_factory=list)
    error: str = ""

    def add(self, symbol: ArtifactSymbol) -> int:
        """Append ``symbol``; its index, for its children's ``parent``."""
        self.symbols.append(symbol)
        return len(self.symbols) - 1
