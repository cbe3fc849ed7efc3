"""Grammar registry: which languages we can parse here, loaded lazily and cached.

Grammars come from the official per-language wheels. Loading one imports its module and
compiles the language's query; either step can fail on a given machine (wheel missing,
ABI mismatch, a query using a node type the installed grammar renamed), and that must
degrade to "this language is not parsed" with a reason, never to a crash.

``Language`` and ``Query`` objects are immutable and shared process-wide; a ``Parser``
holds mutable state, so each thread gets its own. Nothing here is created at import time,
which keeps the module cheap to import in worker processes. Compiling a query is the
costly step (TypeScript's: about 0.06 s), so the indexer loads the languages it will parse
once, before it forks its workers, which inherit them (see ``load_grammars``).
"""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass

from tree_sitter import Language, Parser, Query

from repolens.parse.languages import LINE_ONLY_LANGUAGES, PARSED_LANGUAGES, SPEC_MODULES
from repolens.parse.spec import LanguageSpec


@dataclass(frozen=True, slots=True)
class Grammar:
    """A loaded language: its spec, grammar and compiled query with per-pattern roles."""

    spec: LanguageSpec
    language: Language
    query: Query
    roles: tuple[str, ...]  # role capture of each query pattern, by pattern index
    top_query: Query | None  # ``LanguageSpec.top_query``, when the spec has one
    top_roles: tuple[str, ...]


_lock = threading.Lock()
_grammars: dict[str, Grammar] = {}
_failures: dict[str, str] = {}
_local = threading.local()

_ROLES = frozenset(
    {
        "call", "new", "ref", "bind", "type_of", "import", "exports", "owner", "comment",
        "decoration", "embed", "expand", "local", "type_param",
    }
)  # fmt: skip
_CAPTURE = re.compile(rb"@([\w.]+)")


def load_spec(language: str) -> LanguageSpec:
    """Import the spec module of ``language``."""
    module = importlib.import_module(SPEC_MODULES[language])
    spec: LanguageSpec = module.SPEC
    return spec


def _pattern_roles(query: Query, source: bytes) -> tuple[str, ...]:
    """Find the role capture of every pattern, so matches dispatch without scanning dicts."""
    roles: list[str] = []
    for index in range(query.pattern_count):
        text = source[query.start_byte_for_pattern(index) : query.end_byte_for_pattern(index)]
        names = [m.decode() for m in _CAPTURE.findall(text)]
        role = next((n for n in names if n.startswith("def.")), "")
        role = role or next((n for n in names if n in _ROLES), "")
        if not role:
            raise ValueError(f"query pattern {index} has no role capture: {names}")
        roles.append(role)
    return tuple(roles)


def _load(language: str) -> Grammar:
    spec = load_spec(language)
    module = importlib.import_module(spec.grammar_module)
    lang = Language(getattr(module, spec.grammar_function)())
    query = Query(lang, spec.query)
    roles = _pattern_roles(query, spec.query.encode())
    if not spec.top_query:
        return Grammar(spec, lang, query, roles, None, ())
    top = Query(lang, spec.top_query)
    return Grammar(spec, lang, query, roles, top, _pattern_roles(top, spec.top_query.encode()))


def get_grammar(language: str) -> Grammar | None:
    """The loaded grammar of ``language``, or ``None`` if it cannot be loaded here."""
    grammar = _grammars.get(language)
    if grammar is not None or language in _failures:
        return grammar
    with _lock:
        if language in _grammars or language in _failures:
            return _grammars.get(language)
        if language not in SPEC_MODULES:
            _failures[language] = f"no grammar for {language}"
            return None
        try:
            grammar = _load(language)
        except ImportError as exc:
            _failures[language] = f"missing: {exc}"
            return None
        except Exception as exc:  # ABI mismatch, query error: report, never crash
            _failures[language] = f"broken: {type(exc).__name__}: {exc}"
            return None
        _grammars[language] = grammar
        return grammar


def load_grammars(languages: Iterable[str]) -> None:
    """Load ``languages`` now: a process about to fork workers loads them once for all."""
    for language in sorted(set(languages) & SPEC_MODULES.keys()):
        get_grammar(language)


def failure(language: str) -> str:
    """Why ``language`` could not be loaded ("" if it loaded or was never tried)."""
    return _failures.get(language, "")


def get_parser(grammar: Grammar) -> Parser:
    """This thread's parser for ``grammar`` (parsers are stateful, so never shared)."""
    parsers: dict[str, Parser] | None = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = _local.parsers = {}
    parser = parsers.get(grammar.spec.language)
    if parser is None:
        parser = parsers[grammar.spec.language] = Parser(grammar.language)
    return parser


LINE_ONLY = "line-level: no grammar wheel exists (definitions and imports, no calls)"


def grammar_status() -> dict[str, str]:
    """language -> "ok" | "missing: <why>" | "broken: <why>" | "fallback: line-level (<why>)"
    | ``LINE_ONLY`` (a language no grammar wheel exists for)."""
    from repolens.parse.languages.fallback import has_fallback

    status: dict[str, str] = {}
    for language in SPEC_MODULES:
        if get_grammar(language) is not None:
            status[language] = "ok"
        elif has_fallback(language):
            status[language] = f"fallback: line-level ({failure(language)})"
        else:
            status[language] = failure(language)
    for language in sorted(LINE_ONLY_LANGUAGES):
        status[language] = LINE_ONLY
    return status


def graph_languages() -> frozenset[str]:
    """Languages with a spec whose grammar and query load on this machine."""
    return frozenset(lang for lang, state in grammar_status().items() if state == "ok")


def parsed_languages() -> frozenset[str]:
    """Languages whose files are parsed here: by grammar, or line by line (a grammar that
    cannot load with a fallback, or a language without a grammar wheel)."""
    from repolens.parse.languages.fallback import has_fallback

    return graph_languages() | {lang for lang in PARSED_LANGUAGES if has_fallback(lang)}
