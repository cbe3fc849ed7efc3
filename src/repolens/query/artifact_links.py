"""Where the code names an artifact: the edges from a schema or a spec into the graph.

Links are found when asked, from the current code index, so they never go stale when the
code changes and the artifact does not:

- an OpenAPI ``operation`` (``GET /orders/{id}``) is handled by the route the frameworks
  registered for that method and path (any parameter spelling; also under the spec's
  base path), and so by that route's handler;
- a SQL ``table`` or ``view`` is used by the functions whose SQL strings name it after
  ``FROM``, ``JOIN``, ``INTO`` or ``UPDATE … SET`` (a string counts as SQL when it, or the
  string just before it, holds a SQL verb; in ``.sql`` code files every line does);
- a GraphQL root field (``Query.order``) is resolved by the functions that resolvers'
  conventions name (a decorator naming the field, ``resolve_order``, a method ``order`` of
  a class ``Query``);
- a protobuf ``service`` is implemented by the classes (or structs) whose methods are
  named as its rpcs (``GetOrder``, ``get_order``); one holding more than half of them
  (two at least) is listed as partial, at a lower confidence.
"""

from __future__ import annotations

import re
import sqlite3
from collections import defaultdict
from dataclasses import dataclass, replace

from repolens.query.artifacts import (
    ArtifactHit,
    ArtifactSymbolRef,
    children,
    named_in,
    symbol_text,
    symbols_in,
)
from repolens.query.routes import list_routes
from repolens.query.symbols import FILE_KIND, SymbolRef, find_routes, symbols_by_ids

MAX_CANDIDATE_CHUNKS = 5000
MAX_LINKS = 50
_SQL_VERB = re.compile(
    r"\b(select|insert|update|delete|with|merge|upsert|replace|create|alter|drop|truncate|copy)\b",
    re.IGNORECASE,
)
_STRING = re.compile(
    r'"""(?:\\.|[^\\])*?"""|\'\'\'(?:\\.|[^\\])*?\'\'\'|`(?:\\.|[^`\\])*`'
    r'|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
    re.DOTALL,
)


@dataclass(frozen=True, slots=True)
class ArtifactLink:
    """Code that an artifact symbol reaches: ``relation`` in words (``handled by``,
    ``used by``, ``implemented by``), where (``line``), the text that shows it."""

    relation: str
    symbol: SymbolRef
    line: int
    evidence: str
    confidence: float
    role: str = ""  # the code's file: '' | test | generated | vendored
    subject: str = ""  # the artifact symbol linked from (``orders``, ``GET /orders/{id}``)


GRAPHQL_ROOTS = ("query", "mutation", "subscription")
GENERATED_CONFIDENCE = 0.6  # a generated stub "implements" a service by construction


def links_of(conn: sqlite3.Connection, artifact: ArtifactSymbolRef) -> list[ArtifactLink]:
    """The code ``artifact`` links to (empty for kinds that link to nothing): the
    project's own code first, then tests, generated and vendored code."""
    if artifact.kind == "operation":
        links = _handlers(conn, artifact)
    elif artifact.kind in ("table", "view"):
        links = _sql_users(conn, artifact.name, artifact.file)
    elif artifact.kind == "service":
        links = _implementations(
            conn, [c.name for c in children(conn, artifact) if c.kind == "rpc"]
        )
    elif artifact.kind in GRAPHQL_ROOTS:
        links = _resolvers(conn, artifact)
    else:
        return []
    roles = _roles(conn, {link.symbol.file for link in links})
    placed = []
    for link in links:
        role = roles.get(link.symbol.file, "")
        confidence = (
            min(link.confidence, GENERATED_CONFIDENCE) if role == "generated" else link.confidence
        )
        placed.append(
            replace(link, role=role, confidence=confidence, subject=artifact.qualified_name)
        )
    placed.sort(key=lambda link: (link.role != "", -link.confidence, link.symbol.file, link.line))
    return placed[:MAX_LINKS]


def _roles(conn: sqlite3.Connection, paths: set[str]) -> dict[str, str]:
    """Each file's role as search ranks it (its chunks carry it)."""
    if not paths:
        return {}
    marks = ",".join("?" * len(paths))
    rows = conn.execute(
        f"SELECT f.path, max(c.role) FROM files f JOIN chunks c ON c.file_id = f.id"
        f" WHERE f.path IN ({marks}) GROUP BY f.path",
        sorted(paths),
    )
    return {str(path): str(role or "") for path, role in rows}


def _handlers(conn: sqlite3.Connection, operation: ArtifactSymbolRef) -> list[ArtifactLink]:
    method, _, path = operation.name.partition(" ")
    base = re.search(r"served under (\S+)", operation.detail)
    spellings = [f"{method} {path}"] + ([f"{method} {base[1]}{path}"] if base else [])
    wanted: set[int] = set()
    for text in spellings:
        wanted.update(route.id for route in find_routes(conn, text))
    links = []
    for hit in list_routes(conn):
        if hit.route.id not in wanted:
            continue
        target = hit.handler or hit.route
        evidence = f"route {hit.route.name} [{hit.framework}] at {hit.route.location}"
        links.append(ArtifactLink("handled by", target, hit.route.line, evidence, 1.0))
    op_id = re.match(r"operationId ([^;\s]+)", operation.detail)
    if op_id and ("." in op_id[1] or not links):
        # a dotted id is an explicit binding (Connexion's module.function), trusted beside
        # routes; a bare name only when no route serves the operation
        linked = {link.symbol.id for link in links}
        named = _named_by_operation_id(conn, op_id[1])
        links += [link for link in named if link.symbol.id not in linked]
    return _nearest(links, operation.file)


def _nearest(links: list[ArtifactLink], spec_file: str) -> list[ArtifactLink]:
    """The links whose code shares the most folders with the spec: a repository holding
    several services often serves one path, or names one handler, in each of them."""
    nearness = [_shared_folders(link.symbol.file, spec_file) for link in links]
    best = max(nearness, default=0)
    return [link for link, near in zip(links, nearness, strict=True) if near == best]


def _named_by_operation_id(conn: sqlite3.Connection, op_id: str) -> list[ArtifactLink]:
    """Functions the operationId names, as spec-first frameworks bind them: Connexion's
    ``api.orders.cancel_order`` (a dotted path, at 0.9), oapi-codegen's ``CancelOrder``
    method, or the same name in another case (``cancelOrder``, ``cancel_order``; at 0.7)."""
    last = op_id.rpartition(".")[2]
    spellings = sorted(
        {last, last[:1].upper() + last[1:], last[:1].lower() + last[1:], _snake(last)}
    )
    marks = ",".join("?" * len(spellings))
    rows = conn.execute(
        f"SELECT id FROM symbols WHERE name IN ({marks}) AND kind IN ('function', 'method')",
        spellings,
    ).fetchall()
    found = symbols_by_ids(conn, [int(r[0]) for r in rows])
    dotted = "." in op_id
    refs = [r for r in found.values() if not dotted or r.full_name.endswith(op_id)]
    return [
        ArtifactLink("handled by", ref, ref.line, f"operationId {op_id} names it",
                     0.9 if dotted else 0.7)
        for ref in sorted(refs, key=lambda r: (r.file, r.line))
    ]  # fmt: skip


def _shared_folders(a: str, b: str) -> int:
    count = 0
    for left, right in zip(a.split("/")[:-1], b.split("/")[:-1], strict=False):
        if left != right:
            break
        count += 1
    return count


def _resolvers(conn: sqlite3.Connection, field: ArtifactSymbolRef) -> list[ArtifactLink]:
    """Functions that resolve a root field (``Query.order``), as the common Python and JS
    libraries name them: a decorator naming the field (Ariadne's ``@query.field("order")``),
    ``resolve_order`` / ``resolveOrder`` (Graphene), or a method ``order`` of a class named
    as the type (Strawberry's ``class Query``, ``QueryResolver``)."""
    owner, _, name = field.qualified_name.rpartition(".")
    upper = name[:1].upper() + name[1:]
    resolver_names = sorted({f"resolve_{_snake(name)}", f"resolve{upper}", f"resolve_{name}"})
    decorated = [f'%.field("{name}")%', f"%.field('{name}')%"]
    marks = ",".join("?" * len(resolver_names))
    rows = conn.execute(
        "SELECT s.id, CASE WHEN s.decorators LIKE ? OR s.decorators LIKE ? THEN 'decorator'"
        f" WHEN s.name IN ({marks}) THEN 'name' ELSE 'class' END"
        " FROM symbols s LEFT JOIN symbols p ON p.id = s.parent_id"
        " WHERE s.kind IN ('function', 'method') AND (s.decorators LIKE ? OR s.decorators LIKE ?"
        f" OR s.name IN ({marks}) OR (s.name IN (?, ?) AND p.kind = 'class'"
        " AND (p.name = ? OR p.name IN (? || 'Resolver', ? || 'Resolvers', ? || 'Type'))))",
        (*decorated, *resolver_names, *decorated, *resolver_names, name, _snake(name),
         owner, owner, owner, owner),
    ).fetchall()  # fmt: skip
    how = {int(r[0]): str(r[1]) for r in rows}
    refs = symbols_by_ids(conn, list(how))
    evidence = {
        "decorator": (f'a decorator names the field "{name}"', 0.9),
        "name": (f"a resolver named for {field.qualified_name}", 0.8),
        "class": (f"a method of the class for {owner}", 0.7),
    }
    return [
        ArtifactLink("resolved by", ref, ref.line, *evidence[how[ref.id]])
        for ref in sorted(refs.values(), key=lambda r: (r.file, r.line))
    ]


def _sql_users(conn: sqlite3.Connection, table: str, own_file: str) -> list[ArtifactLink]:
    use = re.compile(
        rf"\b(?:from|join|into)\s+(?:[\w\"`\[\]]+\.)?[\"`\[]?{re.escape(table)}[\"`\]]?(?![\w.])"
        rf"|\bupdate\s+(?:[\w\"`\[\]]+\.)?[\"`\[]?{re.escape(table)}[\"`\]]?\s+set\b",
        re.IGNORECASE,
    )
    term = '"' + table.replace('"', "") + '"'
    rows = conn.execute(
        "SELECT c.id, c.start_line, c.text, f.path, f.language, f.id"
        " FROM chunks c JOIN files f ON f.id = c.file_id"
        " WHERE c.id IN (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?)"
        " ORDER BY f.path, c.start_line",
        (f"body : {term}", MAX_CANDIDATE_CHUNKS),
    ).fetchall()
    found: dict[int, tuple[int, str]] = {}  # symbol id -> first line, evidence
    for _chunk, start, text, path, language, file_id in rows:
        if path == own_file:
            continue
        for offset, evidence in _sql_uses(str(text), str(language), use):
            line = int(start) + offset
            owner = _innermost(conn, int(file_id), line)
            if owner is not None and owner not in found:
                found[owner] = (line, evidence)
    refs = symbols_by_ids(conn, list(found))
    links = [
        ArtifactLink("used by", refs[sid], line, evidence, 0.9)
        for sid, (line, evidence) in found.items()
        if sid in refs
    ]
    return links


def _sql_uses(text: str, language: str, use: re.Pattern[str]) -> list[tuple[int, str]]:
    """(line offset in ``text``, the line) of each SQL use of the table."""
    if language == "sql":
        spans = [(0, text)]
    else:
        spans = []
        previous_sql = False
        for match in _STRING.finditer(text):
            literal = match.group()
            is_sql = bool(_SQL_VERB.search(literal))
            if is_sql or previous_sql:
                spans.append((match.start(), literal))
            previous_sql = is_sql
    uses = []
    for begin, literal in spans:
        for hit in use.finditer(literal):
            at = begin + hit.start()
            line_start = text.rfind("\n", 0, at) + 1
            line_end = text.find("\n", at)
            line = text[line_start : line_end if line_end >= 0 else len(text)].strip()
            uses.append((text.count("\n", 0, at), line[:160]))
    return uses


def _innermost(conn: sqlite3.Connection, file_id: int, line: int) -> int | None:
    """The smallest symbol around ``line`` (the file itself for module-level code): a
    chunk may hold several small functions, each of which uses the table on its own."""
    row = conn.execute(
        "SELECT id FROM symbols WHERE file_id = ? AND start_line <= ? AND end_line >= ?"
        " ORDER BY kind = ?, end_line - start_line LIMIT 1",
        (file_id, line, line, FILE_KIND),
    ).fetchone()
    if row is None:
        row = conn.execute(
            "SELECT id FROM symbols WHERE file_id = ? AND kind = ?", (file_id, FILE_KIND)
        ).fetchone()
    return int(row[0]) if row else None


def _flat(name: str) -> str:
    return name.replace("_", "").lower()


def _implementations(conn: sqlite3.Connection, rpcs: list[str]) -> list[ArtifactLink]:
    if not rpcs:
        return []
    wanted = {_flat(r): r for r in rpcs}
    spellings = {s for r in rpcs for s in (r, r[:1].lower() + r[1:], _snake(r))}
    marks = ",".join("?" * len(spellings))
    rows = conn.execute(
        f"SELECT id, parent_id, name, start_line FROM symbols WHERE name IN ({marks})"
        " AND kind IN ('method', 'function') AND parent_id IS NOT NULL",
        sorted(spellings),
    ).fetchall()
    covered: dict[int, set[str]] = defaultdict(set)
    for _sid, parent, name, _line in rows:
        if _flat(str(name)) in wanted:
            covered[int(parent)].add(wanted[_flat(str(name))])
    owners = symbols_by_ids(conn, list(covered))
    links = []
    need = len(rpcs)
    for owner_id, names in covered.items():
        owner = owners.get(owner_id)
        if owner is None or owner.kind not in ("class", "struct", "interface", "object", "trait"):
            continue
        if len(names) < need and (len(names) < 2 or len(names) * 2 <= need):
            continue  # one rpc name in common (GetOrder) is a coincidence, not an implementation
        complete = len(names) == need
        evidence = (
            f"implements all {need} rpcs" if complete
            else f"implements {len(names)} of {need} rpcs ({', '.join(sorted(names))})"
        )  # fmt: skip
        confidence = 0.9 if complete else 0.5
        links.append(ArtifactLink("implemented by", owner, owner.line, evidence, confidence))
    return links


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


@dataclass(frozen=True, slots=True)
class NamedArtifact:
    """An artifact symbol a question named, its text as indexed, and the code it reaches."""

    symbol: ArtifactSymbolRef
    lines: list[str]
    links: list[ArtifactLink]


def named_artifacts(conn: sqlite3.Connection, question: str, limit: int = 3) -> list[NamedArtifact]:
    """What ``context`` shows beside the code for "the orders table": the schema of each
    artifact symbol the question names, and the code that touches it."""
    return [
        NamedArtifact(symbol, symbol_text(conn, symbol), links_of(conn, symbol))
        for symbol in named_in(conn, question, limit)
    ]


def hit_links(conn: sqlite3.Connection, hits: list[ArtifactHit]) -> dict[int, list[ArtifactLink]]:
    """For each search hit (by index), the code its operations, tables and services reach."""
    found: dict[int, list[ArtifactLink]] = {}
    for index, hit in enumerate(hits):
        links = [link for symbol in symbols_in(conn, hit) for link in links_of(conn, symbol)]
        if links:
            found[index] = links
    return found
