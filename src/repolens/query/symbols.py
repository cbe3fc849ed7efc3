"""Symbol lookup: turn what a person or an agent typed into exactly one symbol, or say why not.

Principle 3 rules here: a lookup either names one symbol exactly or fails with candidates.
Close names are offered as "did you mean", never substituted, because an answer about a
different symbol than the one asked is worse than no answer.

Accepted queries: a bare name (``connect``), a local qualified name (``Store.connect``), a
dotted full name (``repolens.store.db.connect``; the module comes from ``files.module``), a
segment suffix of one (``db.connect``), ``path/to/file.py:Name``, ``path/to/file.py:42`` (the
innermost symbol around line 42), or a module name / file path for the file symbol.
``::`` and ``#`` separators (Rust, Ruby, Java docs) are read as dots.
"""

from __future__ import annotations

import difflib
import re
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

FILE_KIND = "file"
ROUTE_KIND = "route"
ROUTE_QUERY = re.compile(r"^(?:(?P<method>[A-Za-z]+)\s+)?(?P<path>/\S*)$")
_PARAM = re.compile(r"\{[^{}/]*\}|(?<=/):[^/]+|<[^<>/]*>|\[[^/\]]*\]\]?")
CLASS_KINDS = frozenset(
    {"class", "struct", "interface", "trait", "protocol", "enum", "component", "object"}
)  # fmt: skip
CONSTRUCTOR_NAMES = frozenset({"__init__", "__new__", "constructor", "new"})
# Definitions an answer is usually about; variables and fields rank after them.
_DEFINITION_KINDS = CLASS_KINDS | {"function", "method", "constructor", "test", "route"}
_EXAMPLE_PATH = re.compile(r"(^|/)(examples?|samples?|demos?)/")
_TEST_PATH = re.compile(
    r"(^|/)(tests?|__tests__|spec|testing)/|(^|/)test_[^/]*$|_test\.[a-z]+$|"
    r"\.(test|spec)\.[a-z]+$|(^|/)conftest\.py$|Tests?\.(java|kt|cs)$"
)
_VENDORED_PATH = re.compile(r"(^|/)(_?vendor(ed)?|third_party|node_modules|site-packages)/")
_PATH_QUERY = re.compile(r"^(?P<path>[^:]*[/.][^:]*):(?P<rest>[^:].*)$")
MAX_SUGGESTIONS = 10

SYMBOL_COLUMNS = (
    "s.id, s.name, s.qualified_name, s.kind, s.start_line, s.end_line, s.signature,"
    " f.path, f.module, f.language"
)
# Languages whose module name is the file's top-level type (``com.acme.Repo`` for
# Repo.java): a full name is the package plus the local name, not module + local name.
_TYPE_MODULE_LANGUAGES = frozenset({"java", "kotlin", "scala", "groovy"})
SYMBOL_FROM = "symbols s JOIN files f ON f.id = s.file_id"


@dataclass(frozen=True, slots=True)
class SymbolRef:
    """One symbol as answers cite it: ``file:line`` plus names at every precision.

    ``qualified_name`` is local to the module (``Class.method``); ``full_name`` prefixes the
    module when the resolver knew it (``pkg.mod.Class.method``), else equals the local name.
    For a file symbol, ``qualified_name`` is the path and ``full_name`` the module (or path).
    """

    id: int
    name: str
    qualified_name: str
    full_name: str
    kind: str
    file: str
    line: int
    end_line: int
    signature: str

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}"


class SymbolLookupError(Exception):
    """A query named no symbol, or more than one. ``candidates`` say what to ask instead."""

    def __init__(
        self,
        message: str,
        candidates: Sequence[SymbolRef] = (),
        kind: Literal["not_found", "ambiguous"] = "not_found",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.candidates = list(candidates)
        self.kind = kind


def is_test_path(path: str) -> bool:
    """Whether a path looks like test code (ranked last, and never "dead")."""
    return bool(_TEST_PATH.search(path))


def is_test_code(sym: SymbolRef) -> bool:
    """Whether a symbol is test code: in a test file, or a test by kind or by name."""
    return is_test_path(sym.file) or sym.kind == "test" or sym.name.startswith("test")


def is_example_path(path: str) -> bool:
    """Whether a path is under an examples (samples, demos) folder: code that shows the
    project in use, rarely the code a question is about."""
    return bool(_EXAMPLE_PATH.search(path))


def full_name_of(kind: str, qualified_name: str, path: str, module: str, language: str = "") -> str:
    if kind == FILE_KIND:
        return module or path
    if kind == ROUTE_KIND:  # `GET /orders/{id}` is whole as it is
        return qualified_name
    if not module:
        return qualified_name
    if language in _TYPE_MODULE_LANGUAGES:
        package, _, top = module.rpartition(".")
        if qualified_name == top or qualified_name.startswith(top + "."):
            return f"{package}.{qualified_name}" if package else qualified_name
    return f"{module}.{qualified_name}"


def row_to_ref(row: Sequence[object]) -> SymbolRef:
    """Build a SymbolRef from a row selected with ``SYMBOL_COLUMNS``."""
    sid, name, qname, kind, line, end_line, signature, path, module, language = row
    return SymbolRef(
        id=int(str(sid)),
        name=str(name),
        qualified_name=str(qname),
        full_name=full_name_of(
            str(kind), str(qname), str(path), str(module or ""), str(language or "")
        ),
        kind=str(kind),
        file=str(path),
        line=int(str(line)),
        end_line=int(str(end_line)),
        signature=str(signature or ""),
    )


def symbols_by_ids(conn: sqlite3.Connection, ids: Iterable[int]) -> dict[int, SymbolRef]:
    """Load many symbols at once (chunked IN lists stay under SQLite's variable limit)."""
    wanted = list(dict.fromkeys(ids))
    found: dict[int, SymbolRef] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        marks = ",".join("?" * len(chunk))
        sql = f"SELECT {SYMBOL_COLUMNS} FROM {SYMBOL_FROM} WHERE s.id IN ({marks})"
        for row in conn.execute(sql, chunk):
            ref = row_to_ref(row)
            found[ref.id] = ref
    return found


def rank_key(ref: SymbolRef) -> tuple[int, int, int, str, int]:
    """Order candidates so the likely intended one comes first: own non-test code, then
    real definitions before variables and fields, then by place."""
    return (
        int(is_test_path(ref.file)),
        int(bool(_VENDORED_PATH.search(ref.file))),
        0 if ref.kind in _DEFINITION_KINDS else 1,
        ref.file,
        ref.line,
    )


def matching_files(conn: sqlite3.Connection, file: str) -> list[str]:
    """Indexed paths equal to ``file`` or ending with ``/file`` (a path suffix)."""
    literal = file.removeprefix("./").strip("/")
    # as typed first: on POSIX a backslash is a character of the name (pkg/back\\slash.py);
    # then as a Windows separator
    for wanted in dict.fromkeys((literal, literal.replace("\\", "/"))):
        exact = conn.execute("SELECT path FROM files WHERE path = ?", (wanted,)).fetchall()
        if exact:
            return [str(exact[0][0])]
        pattern = "%/" + _escape_like(wanted)
        rows = conn.execute(
            "SELECT path FROM files WHERE path LIKE ? ESCAPE '\\' ORDER BY path", (pattern,)
        ).fetchall()
        if rows:
            return [str(r[0]) for r in rows]
    return []


def _split_path_query(conn: sqlite3.Connection, text: str) -> tuple[str, str] | None:
    """``path:Name`` (or ``path:LINE``) split where the path part names an indexed file,
    so a path holding ``:`` (``dir:x/a.py:Name``) splits at the right colon, and
    ``a.rs:Foo::bar`` keeps its ``::``. Without such a file, the first colon after
    something path-like, so that the error names the path that matched nothing."""
    for index in [i for i, char in enumerate(text) if char == ":"][::-1]:
        path, rest = text[:index], text[index + 1 :]
        if not rest or rest.startswith(":") or path.endswith(":"):
            continue
        if ("/" in path or "." in path) and matching_files(conn, path):
            return path, rest
    match = _PATH_QUERY.match(text)
    return (match["path"], match["rest"]) if match else None


def find_symbol(
    conn: sqlite3.Connection, query: str, *, file: str | None = None, kind: str | None = None
) -> SymbolRef:
    """The one symbol ``query`` names, or ``SymbolLookupError`` with candidates.

    ``file`` (a path or path suffix) and ``kind`` narrow the candidates; they never widen
    the match to a different name.
    """
    text = query.strip()
    if not text:
        raise SymbolLookupError("empty symbol name")
    route = ROUTE_QUERY.match(text)
    path_match = None if route or ":" not in text else _split_path_query(conn, text)
    if path_match and file is None:
        file, text = path_match[0], path_match[1].strip()
        if text.isdigit():
            return _symbol_at_line(conn, file, int(text), kind)
    paths = matching_files(conn, file) if file else None
    if file and not paths:
        raise SymbolLookupError(f"no indexed file matches '{file}'")
    found = find_routes(conn, text) if route else _exact_matches(conn, _normalize(text))
    narrowed = _narrow(found, paths, kind)
    if len(narrowed) == 1:
        return narrowed[0]
    if narrowed:
        narrowed = _prefer_class_over_constructor(narrowed)
        if len(narrowed) == 1:
            return narrowed[0]
        ranked = sorted(narrowed, key=rank_key)
        raise SymbolLookupError(_ambiguous_message(query, ranked), ranked, "ambiguous")
    if found:  # the name exists, just not where / as what the filters asked
        where = " ".join(
            p for p in (f"in {file}" if file else "", f"as {kind}" if kind else "") if p
        )
        raise SymbolLookupError(
            f"'{query}' not found {where}; it exists elsewhere", sorted(found, key=rank_key)
        )
    suggestions = suggest(conn, text, paths=paths, kind=kind)
    hint = "; did you mean one of these?" if suggestions else ""
    raise SymbolLookupError(f"no symbol named '{query}'{hint}", suggestions)


def route_shape(path: str) -> str:
    """A route path with every parameter as ``{}`` and no trailing ``/``, whatever its
    spelling (``{id}``, ``:id``, ``<int:id>``, ``[id]``): how routes are compared."""
    shape = _PARAM.sub("{}", path.strip())
    return shape.rstrip("/") or "/"


def find_routes(conn: sqlite3.Connection, text: str) -> list[SymbolRef]:
    """Route symbols that ``METHOD /path`` or ``/path`` names: the same pattern in any
    parameter spelling, or a concrete path it matches (``/orders/42``)."""
    match = ROUTE_QUERY.match(text.strip())
    if match is None:
        return []
    method = (match["method"] or "").upper()
    wanted = route_shape(match["path"])
    rows = conn.execute(
        f"SELECT {SYMBOL_COLUMNS} FROM {SYMBOL_FROM} WHERE s.kind = ?"
        " ORDER BY f.path, s.start_line",
        (ROUTE_KIND,),
    ).fetchall()
    exact, concrete = [], []
    for ref in map(row_to_ref, rows):
        verb, _, path = ref.name.partition(" ")
        if method and verb not in (method, "ANY"):
            continue
        shape = route_shape(path)
        if shape == wanted:
            exact.append(ref)
        elif re.fullmatch(re.escape(shape).replace(r"\{\}", "[^/]+"), wanted):
            concrete.append(ref)
    return exact or concrete


def _normalize(text: str) -> str:
    return text.replace("::", ".").replace("#", ".").strip(".")


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _exact_matches(conn: sqlite3.Connection, text: str) -> list[SymbolRef]:
    """Symbols whose local or full name equals ``text`` or ends with ``.text`` on a segment
    boundary, plus the file symbol whose module name or path is ``text``."""
    last = text.rsplit(".", 1)[-1]
    rows = conn.execute(
        f"SELECT {SYMBOL_COLUMNS} FROM {SYMBOL_FROM} WHERE s.name = ? AND s.kind != ?",
        (last, FILE_KIND),
    ).fetchall()
    suffix = "." + text
    found = [
        ref
        for ref in map(row_to_ref, rows)
        if text in (ref.qualified_name, ref.full_name) or ref.full_name.endswith(suffix)
    ]
    if "." in text:  # a complete dotted name beats longer names that merely end with it
        exact = [ref for ref in found if text in (ref.full_name, ref.qualified_name)]
        found = exact or found
    file_rows = conn.execute(
        f"SELECT {SYMBOL_COLUMNS} FROM {SYMBOL_FROM} WHERE s.kind = ?"
        " AND s.file_id IN (SELECT id FROM files WHERE module = ? OR path = ?)",
        (FILE_KIND, text, text),
    ).fetchall()
    # A Java file's module is its class's name: the class, not the file, is meant.
    named_inside = {ref.file for ref in found if ref.full_name == text}
    files = [ref for ref in map(row_to_ref, file_rows) if ref.file not in named_inside]
    return found + files


def _narrow(refs: list[SymbolRef], paths: list[str] | None, kind: str | None) -> list[SymbolRef]:
    allowed = set(paths) if paths is not None else None
    return [
        r
        for r in refs
        if (allowed is None or r.file in allowed) and (kind is None or r.kind == kind)
    ]


def _prefer_class_over_constructor(refs: list[SymbolRef]) -> list[SymbolRef]:
    """``Foo`` naming both class Foo and its constructor ``Foo`` (Java, C#) means the class."""
    classes = [r for r in refs if r.kind in CLASS_KINDS]
    if len(classes) != 1:
        return refs
    owner = classes[0]
    rest = [r for r in refs if r is not owner and not _is_member_of(r, owner)]
    return [owner, *rest]


def _is_member_of(ref: SymbolRef, owner: SymbolRef) -> bool:
    return (
        ref.kind in ("constructor", "method")
        and ref.file == owner.file
        and owner.line <= ref.line <= owner.end_line
    )


def _ambiguous_message(query: str, ranked: list[SymbolRef]) -> str:
    return (
        f"'{query}' is ambiguous: {len(ranked)} symbols match; pass --file PATH, --kind KIND,"
        " a qualified name, or PATH:LINE"
    )


def _symbol_at_line(conn: sqlite3.Connection, file: str, line: int, kind: str | None) -> SymbolRef:
    """The innermost symbol whose span covers ``line`` (the file symbol at worst)."""
    paths = matching_files(conn, file)
    if len(paths) != 1:
        raise SymbolLookupError(
            f"'{file}' matches {len(paths)} indexed files" if paths else f"no indexed file '{file}'"
        )
    kind_sql, params = (" AND s.kind = ?", [kind]) if kind else ("", [])
    row = conn.execute(
        f"SELECT {SYMBOL_COLUMNS} FROM {SYMBOL_FROM} WHERE f.path = ?"
        f" AND s.start_line <= ? AND s.end_line >= ?{kind_sql}"
        " ORDER BY s.end_line - s.start_line, s.start_line DESC, s.kind = 'file' LIMIT 1",
        [paths[0], line, line, *params],
    ).fetchone()
    if row is None:
        raise SymbolLookupError(f"no symbol at {paths[0]}:{line}")
    return row_to_ref(row)


def suggest(
    conn: sqlite3.Connection,
    text: str,
    *,
    paths: list[str] | None = None,
    kind: str | None = None,
    limit: int = MAX_SUGGESTIONS,
) -> list[SymbolRef]:
    """Symbols with names close to ``text``: same name under another qualifier, then
    case-insensitive or separator-insensitive equality, prefixes, then difflib similarity."""
    last = _normalize(text).rsplit(".", 1)[-1]
    names: list[str] = []
    for name in _candidate_names(conn, last):
        if name not in names:
            names.append(name)
    refs: dict[str, SymbolRef] = {}  # one per full name: overloads add nothing to try
    for name in names:
        rows = conn.execute(
            f"SELECT {SYMBOL_COLUMNS} FROM {SYMBOL_FROM} WHERE s.name = ? AND s.kind != ?",
            (name, FILE_KIND),
        ).fetchall()
        for ref in sorted(_narrow([row_to_ref(r) for r in rows], paths, kind), key=rank_key):
            refs.setdefault(ref.full_name, ref)
        if len(refs) >= limit:
            break
    return list(refs.values())[:limit]


def _candidate_names(conn: sqlite3.Connection, last: str) -> Iterable[str]:
    """Names in order of closeness to ``last``; each source is bounded."""

    def names(sql: str, *params: object) -> list[str]:
        return [str(r[0]) for r in conn.execute(sql, params)]

    base = "SELECT DISTINCT name FROM symbols WHERE kind != 'file' AND "
    yield from names(base + "name = ?", last)
    yield from names(base + "name = ? COLLATE NOCASE", last)
    squashed = last.replace("_", "").lower()
    yield from names(base + "lower(replace(name, '_', '')) = ? LIMIT 20", squashed)
    if len(last) >= 3:
        like = _escape_like(last) + "%"
        yield from names(base + "name LIKE ? ESCAPE '\\' ORDER BY length(name) LIMIT 10", like)
    # difflib costs ~20 µs a name: compare only names of similar length and first letter.
    low, high = max(1, int(len(last) * 0.6)), int(len(last) * 1.5) + 1
    pool = names(
        base + "length(name) BETWEEN ? AND ? AND substr(name, 1, 1) = ? COLLATE NOCASE",
        low, high, last[:1],
    )  # fmt: skip
    yield from difflib.get_close_matches(last, pool, n=MAX_SUGGESTIONS, cutoff=0.7)
    words = sorted(split_words(last), key=len)
    if len(words) >= 2 and len(words[-1]) >= 3:
        like = "%" + _escape_like(words[-1]) + "%"
        yield from _word_overlap(last, names(base + "name LIKE ? ESCAPE '\\' LIMIT 5000", like))


def split_words(name: str) -> list[str]:
    """``getUserName`` / ``get_user_name`` / ``HTTPServer2`` -> lower-case words."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", spaced)
    return [w.lower() for w in re.split(r"[\s_\-.]+", spaced) if w]


def _word_overlap(last: str, pool: list[str]) -> list[str]:
    """Names sharing most identifier words with ``last`` (``user_get`` ~ ``getUser``)."""
    wanted = set(split_words(last))
    if len(wanted) < 2:
        return []
    scored = []
    for name in pool:
        words = set(split_words(name))
        overlap = len(wanted & words) / len(wanted | words)
        if overlap >= 0.5:
            scored.append((-overlap, name))
    return [name for _, name in sorted(scored)[:MAX_SUGGESTIONS]]


def search_symbols(
    conn: sqlite3.Connection,
    query: str = "",
    *,
    file: str | None = None,
    kind: str | None = None,
    limit: int = 50,
) -> list[SymbolRef]:
    """Symbols whose name or qualified name contains ``query`` (case-insensitive), exact
    names first, then prefixes, then the rest; non-test code before tests. An empty query
    lists symbols (of ``file``/``kind``) in source order. File symbols only with kind='file'.
    Ask for ``limit + 1`` to learn whether more exist."""
    clauses, params = ["1 = 1"], []
    if kind:
        clauses.append("s.kind = ?")
        params.append(kind)
    else:
        clauses.append("s.kind != 'file'")
    if file:
        paths = matching_files(conn, file)
        if not paths:
            return []
        clauses.append(f"f.path IN ({','.join('?' * len(paths))})")
        params.extend(paths)
    needle = _normalize(query.strip())
    order = "f.path, s.start_line"
    if needle:
        register_functions(conn)
        like = "%" + _escape_like(needle) + "%"
        clauses.append("(s.name LIKE ? ESCAPE '\\' OR s.qualified_name LIKE ? ESCAPE '\\')")
        params.extend([like, like])
        order = (
            "CASE WHEN s.name = ? OR s.qualified_name = ? THEN 0"
            " WHEN lower(s.name) = lower(?) THEN 1"
            " WHEN s.name LIKE ? ESCAPE '\\' THEN 2 ELSE 3 END, is_test_path(f.path), " + order
        )
        params.extend([needle, needle, needle, _escape_like(needle) + "%"])
    rows = conn.execute(
        f"SELECT {SYMBOL_COLUMNS} FROM {SYMBOL_FROM} WHERE {' AND '.join(clauses)}"
        f" ORDER BY {order} LIMIT ?",
        [*params, max(limit, 0)],
    )
    return [row_to_ref(r) for r in rows]


def register_functions(conn: sqlite3.Connection) -> None:
    """Make ``is_test_path(path)`` callable from SQL (per connection; harmless to repeat,
    and allowed on read-only connections)."""
    conn.create_function("is_test_path", 1, is_test_path, deterministic=True)
