"""The context builder: for a question, a task or a symbol, the code an agent needs first.

An agent asking "how does X reach Y" otherwise runs search, then callers, then reads five
files. This builds the answer in one pass, search-heavy and traversal-light:

1. seeds: hybrid search hits (mapped to the symbols that contain them) plus symbols named
   by identifiers in the query (``parse_args``, ``Session.send``, ```backticked```);
2. expansion: one or two hops of callers and callees around the best seeds, scored down
   by distance and edge confidence, with a bonus for symbols that connect two seeds and
   a damper on hubs (exceptions, helpers everything calls);
3. ranking: tests and minor kinds (variables, fields) down-ranked unless asked for; seeds
   close to the best one are the entry points, the rest is related;
4. call paths between the top symbols (from the edges seen, and a bounded path search);
5. code for the top symbols, as many lines as the budget allows, read from disk now
   (:mod:`repolens.query.context_code`).

Names are looked up exactly (principle 3): an ambiguous name contributes its candidates
at a reduced weight, and a name that matches nothing is reported, never replaced by a
near miss. What did not fit is listed so the agent can ask for it.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from repolens.query.backend import SearchBackend
from repolens.query.callpaths import CallPath, call_paths
from repolens.query.context_code import ReadLines, load_code
from repolens.query.fusion import EXAMPLE_WORDS, asking_tokens
from repolens.query.graph import (
    EdgeHit,
    SymbolLookupError,
    SymbolRef,
    callees,
    callers,
    find_symbol,
)
from repolens.query.routes import matching_routes, routes_of
from repolens.query.search import SearchResult, search
from repolens.query.symbols import (
    CLASS_KINDS,
    FILE_KIND,
    ROUTE_QUERY,
    SYMBOL_COLUMNS,
    SYMBOL_FROM,
    is_example_path,
    is_test_code,
    is_test_path,
    row_to_ref,
)

FLOW_KINDS = ("calls", "instantiates")
MAX_NAMES = 12  # identifiers taken from one query
SEARCH_LIMIT = 20
# A hit holding several definitions (the chunker merges small neighbours) found them
# together: the others are seeded too, each at this share of the hit's weight.
SIBLING_SHARE = 0.5
MAX_SIBLINGS = 3
EXPAND_SEEDS = 6  # seeds whose callers and callees are explored
NEIGHBOURS = 15  # callers / callees taken per explored symbol
MAX_ITEMS = 30  # symbols in the answer's map
ITEM_BUDGET = 450  # characters of budget per symbol in the map (a smaller one keeps room for code)
ENTRY_SHARE = 0.4  # a seed this close to the best one is an entry point; weaker ones are related
PROPAGATE_CAP = 4.0  # a neighbour inherits at most this much of an explored symbol's score

MAX_TESTS = 5  # tests listed for a change-style question
# "add X to Y", "fix Z when ...", "support ...": a change to make, whose checks are tests.
CHANGE_QUERY = re.compile(
    r"^\W*(add|fix|remove|support|allow|make|handle|change|update|refactor|rename|deprecate"
    r"|drop|avoid|ensure|prevent|implement|extend|replace|move|improve)\b|\bwhen\b",
    re.IGNORECASE,
)
SHORT_QUERY_WORDS = 8  # up to this many words, a plain word may name a symbol
RARE_SHARE, RARE_MIN_CHUNKS = 0.01, 3  # a word in at most this many chunks is rare
_WORDS = re.compile(r"\w+")
_TOKEN = re.compile(r"`([^`]+)`|([A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*(?:\(\))?)")
_CODE_SHAPE = re.compile(r"[_.$#:]|[a-z][A-Z]|^[A-Z][a-z]+[A-Z]|\(\)$")
_STOP_TEXT = (
    "a an and are as at be by can code do does file files find for from function functions"
    " get give how i if in into is it its me method methods my not of on or show so than"
    " that the their them then there these this to use used uses using what when where"
    " which who why will with work works would you your all any each call calls called"
    " calling class classes"
)
_STOPWORDS = frozenset(_STOP_TEXT.split())
_TEST_WORDS = frozenset({"test", "tests", "spec"})
_EXCEPTION_NAME = re.compile(r"(Error|Exception|Warning)$")
# Kinds that rarely answer a question by themselves; ranked lower unless named.
_MINOR_KINDS = frozenset({FILE_KIND, "variable", "constant", "field", "property", "enum_member"})


@dataclass(slots=True)
class ContextItem:
    """A symbol in the answer: why it is there, and the code lines chosen for it."""

    symbol: SymbolRef
    score: float
    entry: bool
    why: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)  # code from ``symbol.line`` on
    total_lines: int = 0  # the symbol's full span
    routes: list[str] = field(default_factory=list)  # ``METHOD /path`` it handles
    shown_in: str = ""  # a higher-ranked item whose code already shows these lines
    members: list[SymbolRef] = field(default_factory=list)  # a long class: what it holds
    found: bool = True  # named or hit by search (else only reached through the graph)
    trimmed: tuple[int, int] | None = None  # lines of a docstring left out of ``lines``


@dataclass(slots=True)
class ContextBundle:
    """Everything the context answer shows, ranked; ``omitted`` were ranked but cut."""

    query: str
    budget: int
    items: list[ContextItem] = field(default_factory=list)
    paths: list[CallPath] = field(default_factory=list)
    passages: list[SearchResult] = field(default_factory=list)  # hits outside any symbol
    omitted: list[SymbolRef] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # for a change-style question: (a test calling an entry point, the entry point's name)
    tests: list[tuple[EdgeHit, str]] = field(default_factory=list)


@dataclass(slots=True)
class _Candidate:
    """A symbol being ranked: its own evidence (``seed_score``) plus its links to the
    symbols being explored (``links``: explored symbol id -> strength)."""

    symbol: SymbolRef
    named: float = 0.0
    hits: list[float] = field(default_factory=list)
    why: list[str] = field(default_factory=list)
    links: dict[int, float] = field(default_factory=dict)

    @property
    def seed(self) -> bool:
        return bool(self.named or self.hits)

    @property
    def seed_score(self) -> float:
        """Names in the query add up; search hits count by the best one, plus a little for
        each other, so a long class holding many hits does not drown what was named."""
        if not self.hits:
            return self.named
        return self.named + max(self.hits) + 0.15 * min(len(self.hits) - 1, 3)

    @property
    def score(self) -> float:
        """Seed evidence plus the strongest link; more links add a little, so a hub that
        everything touches (an exception, a logger) cannot outrank what was asked for."""
        if not self.links:
            return self.seed_score
        extra = 0.2 * min(len(self.links) - 1, 3)
        return self.seed_score + max(self.links.values()) * (1 + extra)

    def add(self, score: float, reason: str) -> None:
        self.named += score
        self._reason(reason)

    def add_hit(self, score: float, reason: str) -> None:
        self.hits.append(score)
        self._reason(reason)

    def link(self, via: int, score: float, reason: str) -> None:
        self.links[via] = max(self.links.get(via, 0.0), score)
        self._reason(reason)

    def _reason(self, reason: str) -> None:
        if reason and reason not in self.why and len(self.why) < 3:
            self.why.append(reason)


def build_context(
    conn: sqlite3.Connection,
    data_dir: Path,
    query: str,
    *,
    read_lines: ReadLines,
    budget: int = 10_000,
    depth: int = 1,
    provider: Any = None,
    max_items: int = MAX_ITEMS,
    backend: SearchBackend | None = None,
) -> ContextBundle:
    """Rank the symbols relevant to ``query`` and load their code within ``budget``
    characters. ``read_lines(path)`` supplies a file's current lines (it decides which
    paths may be read); ``provider`` embeds the query for the dense half of search;
    ``backend`` is where search finds chunks (default: this index)."""
    bundle = ContextBundle(query=query, budget=budget)
    pool: dict[int, _Candidate] = {}
    about_names = _seed_from_names(conn, query, pool, bundle.notes)
    _seed_from_routes(conn, query, pool)
    hit_weight = 0.3 if about_names else 1.0  # text like the names matters less than they do
    _seed_from_search(conn, data_dir, query, provider, pool, bundle, hit_weight, backend)
    asked = asking_tokens(query)  # tests or examples, asked for in the query's first words
    wants_tests, wants_examples = bool(asked & _TEST_WORDS), bool(asked & EXAMPLE_WORDS)
    edges = _expand(conn, pool, depth=max(1, min(depth, 2)))
    ranked = _rank(pool, wants_tests, wants_examples)
    max_items = min(max_items, max(3, budget // ITEM_BUDGET))
    chosen, bundle.omitted = ranked[:max_items], [c.symbol for c, _ in ranked[max_items:]]
    top_seed = max((c.seed_score for c, _ in chosen), default=0.0)
    entry = [c.seed_score >= ENTRY_SHARE * top_seed > 0 for c, _ in chosen]
    bundle.items = [
        ContextItem(c.symbol, round(score, 3), is_entry, c.why, found=c.seed)
        for (c, score), is_entry in zip(chosen, entry, strict=True)
    ]
    for item in bundle.items:
        item.routes = [r.name for r in routes_of(conn, item.symbol)][:5]
    bundle.paths = call_paths(conn, [item.symbol for item in bundle.items], edges)
    if CHANGE_QUERY.search(query):
        bundle.tests = _tests_of(conn, [i.symbol for i in bundle.items if i.entry][:3])
    load_code(conn, bundle, read_lines)
    if not bundle.items and not bundle.passages:
        bundle.notes.append("nothing in the index matches this query")
    return bundle


def query_names(query: str) -> list[tuple[str, bool]]:
    """Identifiers in ``query`` worth looking up, each with whether it is code-shaped
    (``snake_case``, ``camelCase``, dotted, backticked, ``name()``) rather than a word."""
    found: dict[str, bool] = {}
    for match in _TOKEN.finditer(query):
        quoted, bare = match.group(1), match.group(2)
        text = (quoted or bare or "").strip().removesuffix("()")
        if not text or len(found) >= MAX_NAMES:
            continue
        shaped = bool(quoted) or bool(_CODE_SHAPE.search(bare or ""))
        if not shaped and (len(text) < 4 or text.lower() in _STOPWORDS):
            continue
        found[text] = found.get(text, False) or shaped
    return list(found.items())


def _seed_from_names(
    conn: sqlite3.Connection, query: str, pool: dict[int, _Candidate], notes: list[str]
) -> bool:
    """Seed the symbols the query names; True when the query is nothing but names that
    each named exactly one symbol (then it asks about those, not about text like them).

    A plain word ("session", "update") names a symbol only in a short query or when the
    word is rare in the project's code: in a sentence, a common word is English, and
    taking it for the function of that name spends the budget on the wrong code."""
    names = query_names(query)
    if len(_WORDS.findall(query)) > SHORT_QUERY_WORDS:
        names = [(name, shaped) for name, shaped in names if shaped or _rare(conn, name)]
    words = {w.lower() for name, _ in names for w in re.split(r"[.:#]+", name)}
    leftover = _TOKEN.sub(" ", query).strip(" \t\n?.,;:!'\"()")
    only_exact = bool(names) and not leftover
    for name, shaped in names:
        try:
            refs, exact = [find_symbol(conn, name)], True
        except SymbolLookupError as exc:
            refs, exact = (exc.candidates, False) if exc.kind == "ambiguous" else ([], False)
            if not refs and shaped and exc.kind == "not_found":
                notes.append(f"no symbol named '{name}' in the index (searched as text)")
        if not exact and len(refs) > (6 if shaped else 3):
            refs = [r for r in refs if _co_named(r, words - {name.lower()})][:3]
        only_exact = only_exact and exact
        weight = (3.0 if shaped else 1.2) * (1.0 if exact else 0.6)
        for ref in refs[:6]:
            bonus = 0.5 if _co_named(ref, words - {name.lower()}) else 0.0
            _candidate(pool, ref).add(weight + bonus, f"named in the query ('{name}')")
    return only_exact


def _rare(conn: sqlite3.Connection, word: str) -> bool:
    """Whether ``word`` is in few chunks of the project: an identifier, not English."""
    total = int(conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
    cap = max(RARE_MIN_CHUNKS, int(RARE_SHARE * total))
    try:
        row = conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?)",
            (f'"{word.lower()}"', cap + 1),
        ).fetchone()
    except sqlite3.OperationalError:  # no search tables yet: judge by shape alone
        return False
    return int(row[0]) <= cap


_ASKS_FOR_ROUTES = re.compile(r"\b(?:endpoints?|routes?)\b", re.IGNORECASE)


def _seed_from_routes(conn: sqlite3.Connection, query: str, pool: dict[int, _Candidate]) -> None:
    """The handlers of the routes the query names ("POST /orders"), as strongly as a name
    in the query; of those it only describes ("the endpoint that cancels an order"), as
    strongly as a plain word: "request", "view" and "url" are in many sentences, unless
    the question asks for an endpoint or a route in those words."""
    asks = ROUTE_QUERY.match(query.strip()) or _ASKS_FOR_ROUTES.search(query)
    weight = 3.0 if asks else 1.2
    for hit in matching_routes(conn, query, limit=3):
        if hit.handler is not None:
            _candidate(pool, hit.handler).add(weight, f"handles {hit.route.name}")


def _co_named(ref: SymbolRef, words: set[str]) -> bool:
    """Whether another word of the query names part of ``ref``'s qualifier
    (``Session`` in "Session send" picks ``Session.send`` among many ``send``)."""
    parts = {p.lower() for p in re.split(r"[./:]+", ref.full_name)[:-1]}
    return bool(parts & words)


def _seed_from_search(
    conn: sqlite3.Connection,
    data_dir: Path,
    query: str,
    provider: Any,
    pool: dict[int, _Candidate],
    bundle: ContextBundle,
    hit_weight: float,
    backend: SearchBackend | None,
) -> None:
    try:
        hits = search(conn, data_dir, query, limit=SEARCH_LIMIT, provider=provider, backend=backend)
    except sqlite3.OperationalError as exc:  # e.g. search tables not written yet
        bundle.notes.append(f"search unavailable ({exc}); answered from names and the graph")
        return
    for rank, hit in enumerate(hits):
        weight = 2.0 * 0.85**rank * hit_weight
        refs = _symbols_in_hit(conn, hit)
        if not refs:
            if len(bundle.passages) < 5:
                bundle.passages.append(hit)
            continue
        for ref in refs:
            _candidate(pool, ref).add_hit(weight / len(refs), f"search hit #{rank + 1}")
        for ref in _siblings(conn, hit, {r.id for r in refs}):
            _candidate(pool, ref).add_hit(weight * SIBLING_SHARE, f"beside search hit #{rank + 1}")


def _tests_of(conn: sqlite3.Connection, entries: list[SymbolRef]) -> list[tuple[EdgeHit, str]]:
    """The tests that call ``entries`` directly (a change to them is checked by these),
    each with the name of the entry it calls."""
    found: dict[int, tuple[EdgeHit, str]] = {}
    for sym in entries:
        for hit in callers(conn, sym, kinds=FLOW_KINDS, limit=NEIGHBOURS * 4):
            if is_test_code(hit.symbol) and len(found) < MAX_TESTS:
                found.setdefault(hit.symbol.id, (hit, sym.name))
    return list(found.values())


def _symbols_in_hit(conn: sqlite3.Connection, hit: SearchResult) -> list[SymbolRef]:
    """The symbol search says the hit is about, when it is defined inside the hit; else
    the innermost symbol containing the hit. A chunk of several members inside a class
    (or of module-level code) stands for up to two symbols starting inside it instead."""
    if hit.symbol:
        name = hit.symbol.rsplit(".", 1)[-1]
        row = conn.execute(
            f"SELECT {SYMBOL_COLUMNS} FROM {SYMBOL_FROM} WHERE f.path = ? AND s.kind != ?"
            " AND s.name = ? AND s.start_line <= ? AND s.end_line >= ?"
            " ORDER BY s.start_line >= ? DESC, s.end_line - s.start_line LIMIT 1",
            (hit.file, FILE_KIND, name, hit.end_line, hit.start_line, hit.start_line),
        ).fetchone()
        if row is not None:
            return [row_to_ref(row)]
    row = conn.execute(
        f"SELECT {SYMBOL_COLUMNS} FROM {SYMBOL_FROM} WHERE f.path = ? AND s.kind != ?"
        " AND s.start_line <= ? AND s.end_line >= ?"
        " ORDER BY s.end_line - s.start_line LIMIT 1",
        (hit.file, FILE_KIND, hit.start_line, hit.end_line),
    ).fetchone()
    owner = row_to_ref(row) if row is not None else None
    if owner is not None and (owner.kind not in CLASS_KINDS or owner.line >= hit.start_line):
        return [owner]
    parent_sql = "s.parent_id = ?" if owner else (
        "s.parent_id IN (SELECT id FROM symbols WHERE kind = ? AND file_id = s.file_id)"
    )  # fmt: skip
    rows = conn.execute(
        f"SELECT {SYMBOL_COLUMNS} FROM {SYMBOL_FROM} WHERE f.path = ? AND s.kind != ?"
        f" AND s.start_line BETWEEN ? AND ? AND {parent_sql} ORDER BY s.start_line LIMIT 2",
        (hit.file, FILE_KIND, hit.start_line, hit.end_line, owner.id if owner else FILE_KIND),
    ).fetchall()
    found = [row_to_ref(r) for r in rows]
    return found or ([owner] if owner else [])


def _siblings(conn: sqlite3.Connection, hit: SearchResult, taken: set[int]) -> list[SymbolRef]:
    """The other definitions ``hit`` shows (its outline), up to ``MAX_SIBLINGS``."""
    found: list[SymbolRef] = []
    for shown in hit.outline:
        if len(found) >= MAX_SIBLINGS:
            break
        if shown.line <= 0:
            continue  # not in this index (a team index's chunk)
        row = conn.execute(
            f"SELECT {SYMBOL_COLUMNS} FROM {SYMBOL_FROM} WHERE f.path = ? AND s.start_line = ?"
            " AND s.qualified_name = ? LIMIT 1",
            (hit.file, shown.line, shown.name),
        ).fetchone()
        if row is not None and row[0] not in taken:
            taken.add(row[0])
            found.append(row_to_ref(row))
    return found


def _candidate(pool: dict[int, _Candidate], ref: SymbolRef) -> _Candidate:
    if ref.id not in pool:
        pool[ref.id] = _Candidate(ref)
    return pool[ref.id]


def _expand(
    conn: sqlite3.Connection, pool: dict[int, _Candidate], *, depth: int
) -> list[tuple[int, EdgeHit]]:
    """Add callers and callees of the best seeds; return every call edge seen as
    ``(source id, hit on the target)`` for path building."""
    edges: list[tuple[int, EdgeHit]] = []
    frontier = [c for c in _best(pool.values(), EXPAND_SEEDS) if c.symbol.kind != FILE_KIND]
    for level in range(depth):
        factor = 0.35 ** (level + 1)
        reached: list[_Candidate] = []
        for cand in frontier:
            aggregate = cand.symbol.kind in CLASS_KINDS  # a class's callees are its methods'
            used_by = (
                f"used in {cand.symbol.name}" if aggregate else f"called by {cand.symbol.name}"
            )
            for hit in callees(conn, cand.symbol, kinds=FLOW_KINDS, limit=NEIGHBOURS):
                if not aggregate:
                    edges.append((cand.symbol.id, hit))
                reached.append(_neighbour(pool, hit, cand, factor, used_by))
            for hit in callers(conn, cand.symbol, kinds=FLOW_KINDS, limit=NEIGHBOURS):
                edges.append((hit.symbol.id, _as_target(cand.symbol, hit)))
                reached.append(
                    _neighbour(pool, hit, cand, factor * 0.9, f"calls {cand.symbol.name}")
                )
        frontier = [c for c in _best(reached, 3) if not c.seed and c.symbol.kind != FILE_KIND]
    return edges


def _neighbour(
    pool: dict[int, _Candidate], hit: EdgeHit, via: _Candidate, factor: float, why: str
) -> _Candidate:
    cand = _candidate(pool, hit.symbol)
    strength = min(via.score, PROPAGATE_CAP) * factor * hit.confidence
    if cand.seed:
        strength += 0.5  # it connects two things the query asked about
    elif _EXCEPTION_NAME.search(cand.symbol.name) and cand.symbol.kind in CLASS_KINDS:
        strength *= 0.3  # raised everywhere; rarely what a question is about
    cand.link(via.symbol.id, strength, why)
    return cand


def _as_target(target: SymbolRef, hit: EdgeHit) -> EdgeHit:
    """A caller hit turned around: the same call site, seen as a hop into ``target``."""
    return EdgeHit(
        target, hit.edge_kind, hit.line, hit.confidence, hit.provenance, hit.file, hit.metadata
    )


def _best(cands: Iterable[_Candidate], count: int) -> list[_Candidate]:
    unique = {c.symbol.id: c for c in cands}
    return sorted(unique.values(), key=lambda c: -c.score)[:count]


def _rank(
    pool: dict[int, _Candidate], wants_tests: bool, wants_examples: bool
) -> list[tuple[_Candidate, float]]:
    """Candidates with their final scores, best first."""

    def weight(cand: _Candidate) -> float:
        score = cand.score
        if is_test_path(cand.symbol.file) and not wants_tests:
            score *= 0.4
        elif is_example_path(cand.symbol.file) and not wants_examples:
            score *= 0.5
        if cand.symbol.kind in _MINOR_KINDS and not any(w.startswith("named") for w in cand.why):
            score *= 0.5
        return score

    scored = [(cand, weight(cand)) for cand in pool.values()]
    scored.sort(key=lambda p: (-p[1], not p[0].seed, p[0].symbol.file, p[0].symbol.line))
    return scored
