"""Query terms for BM25: the index's own tokenizer, minus terms too common to help.

A term found in a large share of chunks (``self``, ``return``, ``get``) barely changes
the ranking but makes FTS5 walk a long posting list; such terms are dropped. FTS5 scores
every row a query matches (about 1.6 us each at 100k chunks, measured), so the rows
ranked are bounded too: the rarest terms ("anchors") pick the rows, at most
``MAX_POSTINGS`` of them, and the other terms only add to the scores of those rows (see
:meth:`QueryTerms.queries`). A row holding none of the anchors holds only common terms
and rarely ranks high. A term's document frequency is counted by FTS5 itself (so
stemming agrees with the index) and only up to a cap, so looking up a common term is as
cheap as the pruning it decides. Terms are OR'd, each quoted, so no query text can reach
FTS5 syntax.
"""

from __future__ import annotations

import math
import re
import sqlite3
import threading
from dataclasses import dataclass
from typing import ClassVar

from repolens.store.chunks import code_tokens

MAX_DF_SHARE = 0.15
MAX_POSTINGS = 8_000  # rows the anchors may select (ranking them: ~13 ms at 100k chunks)
MAX_EXTRA_POSTINGS = 4 * MAX_POSTINGS  # postings of the other terms (FTS5 walks them for their idf)
DF_CACHE_SIZE = 50_000
MAX_TERMS = 12
MIN_PREFIX = 3
PREFIX_IDF = 2.0  # a prefix term's weight in the scale (its df is not looked up)
STOPWORDS = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "how", "i", "in", "into",
     "is", "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "what", "when",
     "where", "which", "with", "does", "do", "can", "should", "would", "will", "via"}
)  # fmt: skip
_PREFIX_TERM = re.compile(r"(\w+)\*")


@dataclass(frozen=True, slots=True)
class QueryTerms:
    """``tokens``: every query token (for signals); ``terms``: those searched, rarest
    first, with their idf, of which the first ``anchors`` select the rows ranked;
    ``prefixes``: ``word*`` prefix terms (anchors too); ``crowded``: the rarest term
    alone is in more than ``MAX_POSTINGS`` rows, so the caller must bound the rows
    itself; ``scale``: the summed idf of every content token, searched or not (a word no
    chunk contains counts at full weight): about what a chunk matching the whole query
    once would score in BM25."""

    tokens: tuple[str, ...]
    terms: tuple[tuple[str, float], ...]
    prefixes: tuple[str, ...]
    scale: float = 0.0
    anchors: int = 0
    crowded: bool = False

    def match_expression(self, names_only: bool = False) -> str | None:
        """The FTS5 query of the anchors: the rows worth ranking (``names_only``: those
        naming an anchor in a symbol name, the strongest evidence of a common word)."""
        quoted = [f'"{term}"' for term, _ in self.terms[: self.anchors]]
        quoted += [f'"{prefix}" *' for prefix in self.prefixes]
        if not quoted:
            return None
        expression = " OR ".join(quoted)
        return f"{{names}} : ({expression})" if names_only else expression

    def queries(self, names_only: bool = False) -> tuple[str, ...]:
        """FTS5 queries that rank the anchors' rows by BM25 over *every* searched term.

        One query over all terms would rank every row of the common ones too. Instead the
        anchors' rows are split: those also holding another term (scored with it: BM25
        sums over the query's terms) and those holding none. Each row is in exactly one
        query and gets its full score, so merging the two rankings is exact.
        """
        anchors = self.match_expression(names_only)
        if anchors is None:
            return ()
        others = " OR ".join(f'"{term}"' for term, _ in self.terms[self.anchors :])
        if not others:
            return (anchors,)
        return (f"({anchors}) NOT ({others})", f"({anchors}) AND ({others})")


def plan_terms(conn: sqlite3.Connection, query: str) -> QueryTerms:
    """Tokens of ``query`` and the subset worth searching (see module docstring)."""
    prefixes = tuple(
        dict.fromkeys(p.lower() for p in _PREFIX_TERM.findall(query) if len(p) >= MIN_PREFIX)
    )
    tokens = tuple(dict.fromkeys(code_tokens(_PREFIX_TERM.sub(" ", query))))
    content = [t for t in tokens if t not in STOPWORDS] or list(tokens)
    if not content:
        return QueryTerms(tokens, (), prefixes, PREFIX_IDF * len(prefixes))
    total = int(conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
    common = max(1, int(MAX_DF_SHARE * total))
    cap = max(min(common, MAX_EXTRA_POSTINGS), MAX_POSTINGS) + 1
    counts = _DocumentFrequencies(conn, total, cap)
    scored, scale = [], PREFIX_IDF * len(prefixes)
    for token in content:
        df = counts.get(token)
        scale += _idf(total, df)
        if df:
            scored.append((df, token, _idf(total, df)))
    scored.sort()
    terms, anchors = _searched(scored, common)
    crowded = bool(scored) and scored[0][0] > MAX_POSTINGS
    return QueryTerms(tokens, terms, prefixes, scale, anchors, crowded)


def _searched(
    scored: list[tuple[int, str, float]], common: int
) -> tuple[tuple[tuple[str, float], ...], int]:
    """The terms searched, none common (the rarest one even if every term is common,
    rather than nothing), and how many of them are anchors: the rarest, while their
    posting lists together stay within ``MAX_POSTINGS`` (at least one). The others are
    kept while their posting lists stay within ``MAX_EXTRA_POSTINGS``."""
    kept: list[tuple[str, float]] = []
    anchors = anchor_rows = other_rows = 0
    for df, token, idf in scored[:MAX_TERMS]:
        if kept and df > common:
            break  # rarest first: the rest are common too
        if anchors == len(kept) and (not kept or anchor_rows + df <= MAX_POSTINGS):
            anchors, anchor_rows = anchors + 1, anchor_rows + df
        elif other_rows + df <= MAX_EXTRA_POSTINGS:
            other_rows += df
        else:
            break
        kept.append((token, idf))
    return tuple(kept), anchors


def _idf(total: int, df: int) -> float:
    """FTS5's own BM25 idf, so that scores can be scaled by it."""
    return max(1e-6, math.log((total - df + 0.5) / (df + 0.5)))


class _DocumentFrequencies:
    """Chunks containing a token (as FTS5 stems it), counted only up to ``cap``: the count
    walks the term's posting list, so a common term costs at most ``cap`` steps and a rare
    one, whose exact count the idf needs, almost nothing. Counts are remembered per
    database file and chunk total (a stale count only nudges which terms are searched)."""

    _cache: ClassVar[dict[tuple[str, int, int, str], int]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, conn: sqlite3.Connection, total: int, cap: int) -> None:
        self.conn, self.cap = conn, cap
        database = conn.execute("PRAGMA database_list").fetchone()
        self.key = (str(database[2] or ""), total, cap)  # no file: nothing to cache by

    def get(self, token: str) -> int:
        key = (*self.key, token)
        with self._lock:
            known = self._cache.get(key) if self.key[0] else None
        if known is not None:
            return known
        row = self.conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?)",
            (f'"{token}"', self.cap),
        ).fetchone()
        with self._lock:
            if len(self._cache) >= DF_CACHE_SIZE:
                self._cache.clear()
            self._cache[key] = int(row[0])
        return int(row[0])
