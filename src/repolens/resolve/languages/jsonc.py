"""JSON with comments and trailing commas, as ``tsconfig.json`` and friends are written.

TypeScript accepts ``//`` and ``/* */`` comments and trailing commas in its config files;
``json`` rejects them, so they are stripped first (outside strings only).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from repolens.readfile import read_text

TRAILING_COMMA = re.compile(r",\s*[}\]]")


def _scan(text: str, keep: Callable[[str, int], int]) -> str:
    """Copy ``text``, strings verbatim; elsewhere ``keep(text, i)`` says how many
    characters to skip at ``i`` (0: copy the character)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] == '"':
            end = i + 1
            while end < n and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append(text[i : end + 1])
            i = end + 1
            continue
        skip = keep(text, i)
        if skip:
            i += skip
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _comment(text: str, i: int) -> int:
    if text.startswith("//", i):
        newline = text.find("\n", i)
        return (len(text) if newline < 0 else newline) - i
    if text.startswith("/*", i):
        close = text.find("*/", i + 2)
        return (len(text) if close < 0 else close + 2) - i
    return 0


def _trailing_comma(text: str, i: int) -> int:
    return 1 if TRAILING_COMMA.match(text, i) else 0


def strip(text: str) -> str:
    """The text with comments removed and trailing commas dropped, strings untouched."""
    return _scan(_scan(text, _comment), _trailing_comma)


def loads(text: str) -> object:
    """Parse JSONC text; raises ``ValueError`` on malformed input."""
    return json.loads(strip(text))


def load_file(path: Path) -> dict[str, object]:
    """A JSONC object from ``path``, or ``{}`` when it is missing or malformed (a broken
    config must not stop resolution of everything else)."""
    try:
        data = loads(read_text(path, "utf-8-sig"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
