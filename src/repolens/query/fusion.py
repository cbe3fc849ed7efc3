"""Fusing BM25 and dense rankings, code signals, and a calibrated score.

Ranking: weighted reciprocal-rank fusion (k=60, BM25 weighted below dense — measured best
on docstring and name queries), multiplied by what matters for code: a query naming the
chunk's symbol, a query naming its file, the centrality of the code it holds in the call
and import graph, and a penalty for tests, vendored copies, generated files, prose,
configuration and examples (unless the query asks for that kind of file) and for a
file's imports.

RRF values only order one query's results; they say nothing about relevance. Relevance
is measured apart: the chunk's cosine and its BM25 score (scaled by what a chunk matching
every term once would score) mapped to [0, 1] and combined as independent evidence
(``calibrate``; kept as the ``relevance`` signal). The score shown both orders and means
something (``spread``): a result's relevance, capped so that it falls from the score
above it as much as the ranking value does. Results then read in the order of their
scores, ten good hits do not all read 1.00, and no score exceeds its evidence.
``min_score`` applies to it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from repolens.query.symbols import is_example_path
from repolens.store.chunks import code_tokens, path_tokens

ChunkKey = int | str
"""A chunk's identity in its backend: SQLite's row id, or a remote point id."""

RRF_K = 60
DENSE_WEIGHT = 1.0
BM25_WEIGHT = 0.33  # spike: best; bench/search_quality.py: 0.33-1.0 all within 0.01 MRR
NAME_BOOST = 0.5
MENTIONED, PARTIAL = 0.8, 0.5  # name-match levels below an exact match
PATH_BOOST = 0.15
CENTRAL_BOOST = 0.2  # the most central code (see repolens.query.centrality) at most this much
MAX_BOOST = (1 + NAME_BOOST) * (1 + PATH_BOOST) * (1 + CENTRAL_BOOST)
ROLE_PENALTY = {
    "test": 0.6, "vendored": 0.4, "generated": 0.5, "docs": 0.6, "config": 0.6, "example": 0.7,
}  # fmt: skip
PREAMBLE_PENALTY = 0.8  # a file's imports: they name everything, and answer little
# Type declarations (interfaces, type aliases) carry the documentation of a typed API, so
# they match a description of behaviour as well as the code that has it: ranked below
# it unless the query asks about types or names the declaration (its name boost).
DECLARATION_KINDS = frozenset({"interface", "type_alias"})
DECLARATION_PENALTY = 0.8
TYPE_WORDS = frozenset({"type", "types", "typing", "typings", "interface", "interfaces"})
EXAMPLE_WORDS = frozenset({"example", "examples", "sample", "samples", "demo", "demos"})
TEST_WORDS = frozenset({"test", "tests", "testing", "spec", "specs", "fixture", "mock", "pytest"})
# Prose and configuration files answer few code questions but match many words: a change
# log names every feature, a README every option. Ranked down unless the query asks.
PROSE_LANGUAGES = frozenset({"markdown", "rst", "text"})
CONFIG_LANGUAGES = frozenset({"json", "yaml", "toml", "xml", "ini"})
DOCS_WORDS = frozenset({
    "doc", "docs", "documentation", "document", "documented", "readme", "changelog", "guide",
    "tutorial", "docstring", "docstrings", "markdown", "rst", "sphinx",
})  # fmt: skip
CONFIG_WORDS = frozenset({
    "config", "configuration", "configure", "setting", "settings", "yaml", "yml", "json",
    "toml", "ini", "ci", "workflow", "workflows", "pyproject", "manifest",
})  # fmt: skip
COSINE_FLOOR, COSINE_CEILING = 0.15, 0.65  # MiniLM: unrelated code ~0.1, on-topic ~0.5+
LEXICAL_WEIGHT = 0.7
NAME_WEIGHT = 0.6
# What a query asks for is said in its first words: "add tests for the retry delay" asks
# for tests, a commit message or a task that ends "* update tests * fix docs" is about
# the code it describes. Kinds of files are asked for by these words only there.
ASKING_WORDS = 12
GENERIC_PATH_TOKENS = frozenset({"src", "lib", "app", "main", "index", "init", "__init__", "mod"})
_WORD = re.compile(r"\w+")
_LAST_SEGMENT = re.compile(r"\.|::|#")


@dataclass(slots=True)
class Candidate:
    """One chunk under consideration and the evidence for it."""

    chunk_id: ChunkKey
    bm25: float | None = None  # positive; higher is better
    bm25_rank: int | None = None
    cosine: float | None = None
    dense_rank: int | None = None
    rrf: float = 0.0
    signals: dict[str, float] = field(default_factory=dict)
    rank_score: float = 0.0
    score: float = 0.0
    matched_name: str | None = None


def fuse(
    lexical: Sequence[tuple[ChunkKey, float]],
    dense: Sequence[tuple[ChunkKey, float]],
    bm25_weight: float = BM25_WEIGHT,
) -> dict[ChunkKey, Candidate]:
    """Candidates from both rankings with their weighted RRF value."""
    found: dict[ChunkKey, Candidate] = {}
    for rank, (chunk_id, value) in enumerate(lexical, start=1):
        candidate = found.setdefault(chunk_id, Candidate(chunk_id))
        candidate.bm25, candidate.bm25_rank = value, rank
        candidate.rrf += bm25_weight / (RRF_K + rank)
    for rank, (chunk_id, value) in enumerate(dense, start=1):
        candidate = found.setdefault(chunk_id, Candidate(chunk_id))
        candidate.cosine, candidate.dense_rank = value, rank
        candidate.rrf += DENSE_WEIGHT / (RRF_K + rank)
    return found


def fuse_again(
    lexical: Sequence[Candidate], dense: Sequence[Candidate], bm25_weight: float = BM25_WEIGHT
) -> None:
    """Ranks and RRF values anew, from two orders of candidates that already hold their
    evidence: how the candidates of several indexes, pooled, are fused once, so their RRF
    values order one ranking (see :mod:`repolens.query.linked`)."""
    for candidate in (*lexical, *dense):
        candidate.rrf, candidate.bm25_rank, candidate.dense_rank = 0.0, None, None
    for rank, candidate in enumerate(lexical, start=1):
        candidate.bm25_rank = rank
        candidate.rrf += bm25_weight / (RRF_K + rank)
    for rank, candidate in enumerate(dense, start=1):
        candidate.dense_rank = rank
        candidate.rrf += DENSE_WEIGHT / (RRF_K + rank)


@dataclass(frozen=True, slots=True)
class QueryShape:
    """What of the query the code signals look at."""

    tokens: frozenset[str]
    identifiers: frozenset[str]  # lowercased query words written as code
    joined: str  # lowercase letters and digits only: "parse config" -> "parseconfig"
    asks_for_tests: bool
    asks_for_docs: bool = False
    asks_for_config: bool = False
    asks_for_examples: bool = False
    asks_for_types: bool = False

    @classmethod
    def of(cls, query: str, tokens: tuple[str, ...]) -> QueryShape:
        words = _WORD.findall(query)
        joined = _flatten(query)
        identifiers = frozenset(w.lower() for w in words if _looks_like_code(w))
        found = asking_tokens(query)
        return cls(
            frozenset(tokens), identifiers, joined, bool(TEST_WORDS & found),
            bool(DOCS_WORDS & found), bool(CONFIG_WORDS & found), bool(EXAMPLE_WORDS & found),
            bool(TYPE_WORDS & found),
        )  # fmt: skip


def asking_tokens(query: str) -> set[str]:
    """The tokens of the query's first ``ASKING_WORDS`` words: those that may ask for a
    kind of file (tests, docs, configuration, examples)."""
    return set(code_tokens(" ".join(_WORD.findall(query)[:ASKING_WORDS])))


def _looks_like_code(word: str) -> bool:
    """``load_settings``, ``parseConfig``, ``utf8``: not a plain word (a one-word query
    naming a symbol is matched through ``joined`` instead)."""
    return "_" in word or any(c.isupper() or c.isdigit() for c in word[1:])


def name_match(shape: QueryShape, names: list[str]) -> tuple[float, str | None]:
    """1.0 when the query is a symbol's name or qualified name, in any spelling
    (``write_dl``, ``HelpFormatter.write_dl``, ``help formatter write dl``); ``MENTIONED``
    when a longer query contains the name written as code; ``PARTIAL`` when all words of
    a multi-word name are in the query. Returns the best name too."""
    best, best_name = 0.0, None
    for name in names:
        value = _name_value(shape, name)
        if value > best:
            best, best_name = value, name
    return best, best_name


def _name_value(shape: QueryShape, name: str) -> float:
    forms = _name_forms(name)
    if not forms.flat:
        return 0.0
    if shape.joined in (forms.flat, forms.qualified):
        return 1.0
    if forms.lower in shape.identifiers:
        return MENTIONED
    return PARTIAL if len(forms.parts) >= 2 and forms.parts <= shape.tokens else 0.0


@dataclass(frozen=True, slots=True)
class _NameForms:
    flat: str  # last segment, lowercase, without separators: "writedl"
    qualified: str  # the whole name, the same way: "helpformatterwritedl"
    lower: str  # last segment as written, lowercased: "write_dl"
    parts: frozenset[str]  # its words: {"write", "dl"}


@lru_cache(maxsize=65536)
def _name_forms(name: str) -> _NameForms:
    simple = _LAST_SEGMENT.split(name)[-1]
    flat = _flatten(simple)
    parts = frozenset(t for t in code_tokens(simple)[1:] if t != flat)
    return _NameForms(flat, _flatten(name), simple.lower(), parts)


def _flatten(name: str) -> str:
    return "".join(_WORD.findall(name)).replace("_", "").lower()


def path_match(shape: QueryShape, path: str) -> float:
    """1.0 when the query names the file's stem, 0.5 when it names one of its directories."""
    everything, stem = _path_forms(path)
    hits = shape.tokens & everything
    if hits & stem:
        return 1.0
    return 0.5 if hits else 0.0


@lru_cache(maxsize=65536)
def _path_forms(path: str) -> tuple[frozenset[str], frozenset[str]]:
    """Tokens of a path worth matching (generic ones like ``src`` left out), and of its stem."""
    everything = frozenset(path_tokens(path)) - GENERIC_PATH_TOKENS
    return everything, everything & frozenset(path_tokens(path.rsplit("/", 1)[-1]))


def role_penalty(
    shape: QueryShape, role: str, language: str = "", path: str = "", kind: str = ""
) -> float:
    """How far a chunk is ranked down for what its file is (a test, a vendored copy, a
    generated file; prose or configuration, by ``language``; an example, by ``path``)
    unless the query asks for that kind of file, for being a file's imports, and for
    being a type declaration unless the query asks about types."""
    if not role:
        if language in PROSE_LANGUAGES:
            role = "" if shape.asks_for_docs else "docs"
        elif language in CONFIG_LANGUAGES:
            role = "" if shape.asks_for_config else "config"
        elif is_example_path(path):
            role = "" if shape.asks_for_examples else "example"
    if role == "test" and shape.asks_for_tests:
        role = ""
    penalty = ROLE_PENALTY.get(role, 1.0) * (PREAMBLE_PENALTY if kind == "preamble" else 1.0)
    if kind in DECLARATION_KINDS and not shape.asks_for_types:
        penalty *= DECLARATION_PENALTY
    return penalty


def calibrate(candidate: Candidate, scale: float, name: float, penalty: float) -> float:
    """A score in [0, 1] that means the same across queries (see module docstring)."""
    semantic = 0.0
    if candidate.cosine is not None:
        semantic = (candidate.cosine - COSINE_FLOOR) / (COSINE_CEILING - COSINE_FLOOR)
    lexical = (candidate.bm25 or 0.0) / scale if scale > 0 else 0.0
    semantic, lexical = _clamp(semantic), _clamp(lexical)
    doubt = (1 - semantic) * (1 - LEXICAL_WEIGHT * lexical) * (1 - NAME_WEIGHT * name)
    candidate.signals.update(semantic=semantic, lexical=lexical)
    return _clamp((1 - doubt) * penalty)


def rank(
    candidate: Candidate, name: float, path: float, penalty: float, central: float = 0.0
) -> float:
    """The ordering value: RRF shaped by the code signals."""
    boost = (1 + NAME_BOOST * name) * (1 + PATH_BOOST * path) * (1 + CENTRAL_BOOST * central)
    return candidate.rrf * boost * penalty


def _clamp(value: float) -> float:
    return min(1.0, max(0.0, value))


def spread(ranked: Sequence[Candidate]) -> None:
    """Give ``ranked`` (best first) the scores shown (see module docstring): each one's
    calibrated relevance, capped by the score before it times the ratio of their ranking
    values, so the scores fall with the ranking (and by as much) and never exceed the
    evidence. Each candidate's own relevance is kept in its signals."""
    previous: Candidate | None = None
    for candidate in ranked:
        shown = candidate.signals["relevance"] = candidate.score
        if previous is not None and previous.rank_score > 0:
            shown = min(shown, previous.score * candidate.rank_score / previous.rank_score)
        candidate.score = shown
        previous = candidate
