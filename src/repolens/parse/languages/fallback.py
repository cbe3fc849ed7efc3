"""Line-level extraction for when a language's grammar cannot be loaded on this machine.

A missing or broken grammar wheel must not leave a language's files with nothing: this
module finds definitions and imports line by line with regular expressions, so that the
files still have an outline and an import graph. It is deliberately modest and says so:
symbols are flat (no nesting, a one-line range), there are no calls or types, and the
``ParsedFile.error`` names the degradation and its cause, for status and graph stats.

Wiring (owned by the engine, see the breadth report): ``parse_source`` calls
``extract_lines`` when ``get_grammar`` fails, and the indexer parses a language when it
is in ``graph_languages()`` *or* ``has_fallback(language)``.
"""

from __future__ import annotations

import re

from repolens.parse.languages.line_only import LINE_ONLY_RULES
from repolens.parse.languages.line_rules import KIND_WORDS, LineRules
from repolens.parse.languages.line_rules import N as _N
from repolens.parse.languages.line_rules import defs as _defs
from repolens.parse.languages.line_rules import imports as _imports
from repolens.parse.languages.stylesheets import block_imports
from repolens.parse.model import Import, ParsedFile, Symbol

_TYPE = r"\b(?P<kind>class|struct|union|enum|interface|record|trait|object|mixin|protocol|actor)"
_C_FUNCTION = (
    r"^[A-Za-z_][\w\s\*&:<>,]*?\b(?P<name>[A-Za-z_~][\w:~]*)\s*\([^;{]*\)\s*(const\s*)?\{?\s*$"
)
_C = LineRules(
    _defs(
        ("struct", r"^\s*(typedef\s+)?(?P<kind>struct|union|enum|class)\s+" + _N + r"\b[^;]*$"),
        ("macro", r"^\s*#\s*define\s+" + _N),
        ("namespace", r"^\s*namespace\s+" + _N),
        ("function", _C_FUNCTION),
    ),
    _imports(r'^\s*#\s*include\s*(?P<module>"[^"]+"|<[^>]+>)'),
    wildcard=True,
)

RULES: dict[str, LineRules] = {
    "c": _C,
    "cpp": _C,
    "csharp": LineRules(
        _defs(
            ("namespace", r"^\s*namespace\s+(?P<name>[\w.]+)"),
            ("class", _TYPE + r"\s+" + _N),
            (
                "method",
                r"^\s*(?:(?:public|private|protected|internal|static|virtual|override"
                r"|async|abstract|sealed|new)\s+)+[\w<>\[\],.?]+\s+" + _N + r"\s*\(",
            ),
        ),
        _imports(
            r"^\s*using\s+(?P<alias>\w+)\s*=\s*(?P<module>[\w.]+)\s*;",
            r"^\s*using\s+(static\s+)?(?P<module>[\w.]+)\s*;",
        ),
    ),
    "php": LineRules(
        _defs(
            ("namespace", r"^\s*namespace\s+(?P<name>[\w\\]+)"),
            ("class", r"^\s*(abstract\s+|final\s+)*(?P<kind>class|interface|trait|enum)\s+" + _N),
            ("function", r"\bfunction\s+&?" + _N + r"\s*\("),
        ),
        _imports(
            r"^\s*use\s+(?P<module>[\w\\]+)(\s+as\s+(?P<alias>\w+))?\s*;",
            r"\b(?:require|include)(?:_once)?\s*\(?\s*['\"](?P<module>[^'\"]+)",
        ),
    ),
    "ruby": LineRules(
        _defs(
            ("class", r"^\s*(?P<kind>class|module)\s+(?P<name>[A-Z][\w:]*)"),
            ("method", r"^\s*def\s+(self\.)?(?P<name>[\w?!=]+)"),
        ),
        _imports(r"^\s*require(?:_relative)?\s*\(?\s*['\"](?P<module>[^'\"]+)"),
        wildcard=True,
    ),
    "kotlin": LineRules(
        _defs(
            ("class", r"\b(?P<kind>class|interface|object)\s+" + _N),
            ("function", r"\bfun\s+(<[^>]*>\s*)?([\w.]+\.)?" + _N + r"\s*\("),
        ),
        _imports(r"^\s*import\s+(?P<module>\w+(?:\.\w+)*(?:\.\*)?)(\s+as\s+(?P<alias>\w+))?"),
    ),
    "swift": LineRules(
        _defs(
            ("class", r"\b(?P<kind>class|struct|enum|protocol|actor|extension)\s+" + _N),
            ("function", r"\bfunc\s+" + _N),
        ),
        _imports(r"^\s*import\s+(?P<module>\w+)"),
        wildcard=True,
    ),
    "scala": LineRules(
        _defs(
            ("class", r"\b(?P<kind>class|object|trait|enum)\s+" + _N),
            ("function", r"\bdef\s+" + _N),
        ),
        _imports(r"^\s*import\s+(?P<module>[\w.]+)"),
    ),
    "bash": LineRules(
        _defs(
            ("function", r"^\s*function\s+(?P<name>[\w:.-]+)"),
            ("function", r"^\s*(?P<name>[\w:.-]+)\s*\(\)\s*\{?"),
        ),
        _imports(r"^\s*(?:source|\.)\s+['\"]?(?P<module>[^'\"\s;$]+)"),
        wildcard=True,
    ),
    "lua": LineRules(
        _defs(("function", r"^\s*(local\s+)?function\s+(?P<name>[\w.:]+)\s*\(")),
        _imports(r"(?:local\s+(?P<alias>\w+)\s*=\s*)?require\s*\(?\s*['\"](?P<module>[^'\"]+)"),
    ),
    "dart": LineRules(
        _defs(
            ("class", r"^\s*(abstract\s+)?(?P<kind>class|mixin|enum|extension)\s+" + _N),
        ),
        _imports(
            r"^\s*(?:import|export|part)\s+['\"](?P<module>[^'\"]+)['\"]"
            r"(\s+as\s+(?P<alias>\w+))?"
        ),
        wildcard=True,
    ),
    "elixir": LineRules(
        _defs(
            ("module", r"^\s*(?P<kind>defmodule)\s+(?P<name>[\w.]+)"),
            ("function", r"^\s*def(?:p|macro|macrop|guard)?\s+(?P<name>\w+[?!]?)"),
        ),
        _imports(r"^\s*(?:alias|import|require|use)\s+(?P<module>[A-Z][\w.]*)"),
    ),
    "vue": LineRules(
        (), _imports(r"^\s*import\s+(?:.*?\s+from\s+)?['\"](?P<module>[^'\"]+)"), stylesheet=True
    ),
    "css": LineRules((), stylesheet=True),
    "scss": LineRules(
        _defs(("function", r"^\s*@(?:mixin|function)\s+(?P<name>[\w-]+)")), stylesheet=True
    ),
    "less": LineRules((), stylesheet=True),
}
RULES["svelte"] = RULES["vue"]
RULES.update(LINE_ONLY_RULES)


def has_fallback(language: str) -> bool:
    return language in RULES


def extract_lines(path: str, language: str, source: bytes, reason: str) -> ParsedFile | None:
    """Definitions and imports of a file found line by line; ``None`` if the language has
    no rules. ``reason`` (why the grammar is unavailable) goes into ``error``."""
    rules = RULES.get(language)
    if rules is None:
        return None
    text = source.decode("utf-8", "replace")
    lines = text.split("\n")
    out = ParsedFile(path=path, language=language, line_count=len(lines) - (text[-1:] == "\n"))
    out.error = f"line-level extraction (no call graph): {reason}"
    for number, line in enumerate(lines, 1):
        sym = _definition(rules, line, number)
        if sym is not None:
            out.symbols.append(sym)
        for pattern in rules.imports:
            match = pattern.search(line)
            if match is not None:
                out.imports.append(_import(rules, match, number))
                break
    if rules.stylesheet:
        out.imports.extend(_style_imports(text))
    return out


def _definition(rules: LineRules, line: str, number: int) -> Symbol | None:
    for kind, pattern in rules.definitions:
        match = pattern.search(line)
        if match is None:
            continue
        found = match.groupdict()
        kind = KIND_WORDS.get(found.get("kind") or "", kind)
        name = match.group("name")
        whole = kind in ("namespace", "module")  # named by their full dotted name
        short = name if whole else re.split(r"::|\.|:|\\", name)[-1] or name
        return Symbol(kind, short, name.replace("::", ".").replace(":", "."), number, number,
                      signature=line.strip()[:240])  # fmt: skip
    return None


def _import(rules: LineRules, match: re.Match[str], number: int) -> Import:
    module = match.group("module")
    alias = match.groupdict().get("alias")
    if module.startswith('"'):
        module = module.strip('"')  # C's quoted include; `<x.h>` keeps its brackets
    wildcard = rules.wildcard or module.endswith(".*")
    return Import(module.removesuffix(".*"), number, alias=alias, is_wildcard=wildcard and
                  not alias)  # fmt: skip


def _style_imports(text: str) -> list[Import]:
    return [
        Import(s.module, s.line, alias=s.alias, is_wildcard=s.is_wildcard,
               is_reexport=s.is_reexport)
        for s in block_imports(text, 1)
    ]  # fmt: skip
