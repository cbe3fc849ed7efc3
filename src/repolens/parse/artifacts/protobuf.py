"""Protocol buffers (``.proto``): messages (nested too), enums, services and their rpcs.

No grammar wheel or light parser with line numbers exists for protobuf on PyPI, so this is
a small one over a token stream: comments and strings are skipped as the protobuf
language guide defines them, and blocks are matched by braces, so an option's braces or
a field that looks like a keyword never confuse it. ``package`` is not part of names
(``shop.Order`` is ``Order``, as code spells it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from repolens.parse.artifacts.model import ArtifactSymbol, ParsedArtifact

_TOKEN = re.compile(
    r"""(?P<comment>//[^\n]*|/\*.*?\*/)|(?P<string>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')"""
    r"""|(?P<word>[A-Za-z_][\w.]*)|(?P<number>[-+]?\d[\w.+-]*)|(?P<punct>\S)""",
    re.DOTALL,
)
_RPC = re.compile(r"rpc (\S+) \( (stream )?(\S+) \) returns \( (stream )?(\S+) \)")
_BLOCKS = {"message": "message", "enum": "enum", "service": "service", "oneof": "oneof"}


@dataclass(frozen=True, slots=True)
class _Token:
    text: str
    line: int


def tokenize(text: str) -> list[_Token]:
    tokens, line, last = [], 1, 0
    for match in _TOKEN.finditer(text):
        line += text.count("\n", last, match.start())
        last = match.start()
        if match.lastgroup != "comment":
            tokens.append(_Token(match.group(), line))
    return tokens


def parse_protobuf(text: str) -> ParsedArtifact:
    out = ParsedArtifact("protobuf")
    tokens = tokenize(text)
    try:
        _Reader(tokens, out).body(0, len(tokens), None, "")
    except _Unbalanced as exc:
        out.error = f"not valid protobuf: {exc}"
    return out


class _Unbalanced(Exception):
    pass


class _Reader:
    def __init__(self, tokens: list[_Token], out: ParsedArtifact) -> None:
        self.tokens = tokens
        self.out = out

    def closing(self, start: int) -> int:
        """Index of the ``}`` matching the ``{`` at ``start``."""
        depth = 0
        for index in range(start, len(self.tokens)):
            text = self.tokens[index].text
            depth += (text == "{") - (text == "}")
            if depth == 0:
                return index
        raise _Unbalanced(f"the block opened on line {self.tokens[start].line} is never closed")

    def statement_end(self, start: int, stop: int) -> int:
        """Index of the ``;`` or block that ends the statement at ``start``."""
        index = start
        while index < stop:
            text = self.tokens[index].text
            if text == ";":
                return index
            if text == "{":
                return self.closing(index)
            index += 1
        return stop - 1

    def body(self, start: int, stop: int, parent: int | None, scope: str) -> None:
        index = start
        while index < stop:
            token = self.tokens[index]
            word = token.text
            if word in _BLOCKS and index + 2 < stop and self.tokens[index + 2].text == "{":
                end = self.closing(index + 2)
                name = self.tokens[index + 1].text
                kind = _BLOCKS[word]
                qualified = f"{scope}.{name}" if scope else name
                if kind == "oneof":  # its fields belong to the message
                    self.body(index + 3, end, parent, scope)
                else:
                    own = self.out.add(ArtifactSymbol(kind, name, qualified, token.line,
                                                      self.tokens[end].line, parent))  # fmt: skip
                    self.body(index + 3, end, own, qualified)
                index = end + 1
                continue
            end = self.statement_end(index, stop)
            if word == "rpc" and parent is not None:
                self.rpc(index, end, parent, scope)
            elif parent is not None and self.out.symbols[parent].kind == "message":
                self.field(index, end, parent, scope)
            index = end + 1

    def rpc(self, start: int, end: int, parent: int, scope: str) -> None:
        words = " ".join(t.text for t in self.tokens[start : end + 1])
        match = _RPC.match(words)
        if match is None:
            return
        name, in_stream, request, out_stream, reply = match.groups()
        detail = f"({in_stream or ''}{request}) returns ({out_stream or ''}{reply})"
        line, last = self.tokens[start].line, self.tokens[end].line
        self.out.add(ArtifactSymbol("rpc", name, f"{scope}.{name}", line, last, parent, detail))

    def field(self, start: int, end: int, parent: int, scope: str) -> None:
        """``[repeated] Type name = N [opts];`` or ``map<K, V> name = N;``."""
        words = [t.text for t in self.tokens[start : end + 1]]
        if "=" not in words or words[0] in ("option", "reserved", "extensions", "extend"):
            return
        at = words.index("=")
        if at < 2:
            return
        name = words[at - 1]
        detail = " ".join(words[: at - 1]).replace(" < ", "<").replace(" >", ">").replace(" ,", ",")
        line = self.tokens[start].line
        self.out.add(ArtifactSymbol("field", name, f"{scope}.{name}", line,
                                    self.tokens[end].line, parent, detail))  # fmt: skip
