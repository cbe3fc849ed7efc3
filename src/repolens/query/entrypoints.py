"""Entry points: where execution starts without a caller in the project.

Routes (framework ``route`` symbols), command-line commands (click/typer decorators,
argparse sub-parsers, cobra commands, clap parsers), ``main`` functions and ``if
__name__ == "__main__":`` blocks, tasks run by a queue or a serverless runtime (Celery,
RQ, Dramatiq, Huey, AWS Lambda handlers), tests, and the public API (``__all__``,
exports of index files). Each is recognised from the code as written, never from a
manifest; dead-code analysis counts them as used.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

from repolens.query.symbols import (
    ROUTE_KIND,
    SYMBOL_COLUMNS,
    SYMBOL_FROM,
    SymbolRef,
    is_test_path,
    row_to_ref,
    symbols_by_ids,
)

KINDS = ("route", "cli", "main", "task", "test", "export")
_CLI_DECORATOR = re.compile(
    r"^@?(?:click\.(?:command|group)|\w[\w.]*\.(?:command|group|callback))\b"
    r"|^#\[(?:derive\([^)]*\b(?:Parser|Subcommand)\b|command\b|clap\b)"
)
_TASK_DECORATOR = re.compile(
    r"^@?(?:shared_task|[\w.]*\.(?:task|periodic_task|actor|job|cron)|task|periodic_task|"
    r"actor|job|dramatiq\.actor|huey\.[\w]+)\b"
)
_LAMBDA_NAMES = frozenset({"handler", "lambda_handler", "main_handler"})
_FUNCTION_KINDS = ("function", "method")
_INDEX_FILES = ("__init__.py", "index.ts", "index.js", "index.mjs", "index.tsx", "lib.rs")


@dataclass(frozen=True, slots=True)
class EntryPoint:
    """``symbol`` is what runs (None where the entry is a block, not a definition)."""

    kind: str
    name: str
    file: str
    line: int
    symbol: SymbolRef | None
    detail: str = ""


def entry_points(
    conn: sqlite3.Connection, kinds: tuple[str, ...] = KINDS, *, limit: int = 500
) -> list[EntryPoint]:
    """Entry points of ``kinds``, by kind then place, at most ``limit`` of each kind."""
    out: list[EntryPoint] = []
    readers = {
        "route": _routes,
        "cli": _cli,
        "main": _main,
        "task": _tasks,
        "test": _tests,
        "export": _exports,
    }
    for kind in kinds:
        found = sorted(readers[kind](conn), key=lambda e: (e.file, e.line, e.name))
        out.extend(found[:limit])
    return out


def entry_symbol_ids(conn: sqlite3.Connection) -> set[int]:
    """The symbols that run as entry points (commands, mains, tasks, handlers)."""
    return {
        e.symbol.id
        for reader in (_cli, _main, _tasks)
        for e in reader(conn)
        if e.symbol is not None
    }


def _symbols(
    conn: sqlite3.Connection, where: str, params: tuple[object, ...] = ()
) -> list[tuple[SymbolRef, str]]:
    rows = conn.execute(
        f"SELECT {SYMBOL_COLUMNS}, s.decorators FROM {SYMBOL_FROM} WHERE {where}", params
    )
    return [(row_to_ref(r[:10]), str(r[10] or "")) for r in rows]


def _routes(conn: sqlite3.Connection) -> list[EntryPoint]:
    routes = _symbols(conn, "s.kind = ?", (ROUTE_KIND,))
    handlers = dict(
        conn.execute("SELECT source_id, target_id FROM edges WHERE kind = 'routes_to'").fetchall()
    )
    refs = symbols_by_ids(conn, handlers.values())
    out = []
    for route, _ in routes:
        handler = refs.get(handlers.get(route.id, -1))
        detail = f"-> {handler.full_name} ({handler.location})" if handler else "-> inline function"
        out.append(EntryPoint("route", route.name, route.file, route.line, handler, detail))
    return out


def _decorated(conn: sqlite3.Connection, pattern: re.Pattern[str], kind: str) -> list[EntryPoint]:
    out = []
    for ref, decorators in _symbols(conn, "s.decorators != ''"):
        for text in decorators.splitlines():
            if pattern.search(text.strip()):
                out.append(EntryPoint(kind, ref.full_name, ref.file, ref.line, ref, text.strip()))
                break
    return out


def _cli(conn: sqlite3.Connection) -> list[EntryPoint]:
    out = _decorated(conn, _CLI_DECORATOR, "cli")
    rows = conn.execute(
        "SELECT c.args, c.line, f.path, c.source_id FROM call_sites c JOIN files f"
        " ON f.id = c.file_id WHERE c.name IN ('add_parser', 'add_typer')"
    ).fetchall()
    owners = symbols_by_ids(conn, [int(r[3]) for r in rows])
    for args, line, path, source in rows:
        match = re.search(r'\[\["s","((?:[^"\\]|\\.)*)"\]', str(args))
        name = match.group(1) if match else "(subcommand)"
        out.append(
            EntryPoint(
                "cli", name, str(path), int(line), owners.get(int(source)), "argparse sub-command"
            )
        )
    cobra = conn.execute(
        "SELECT r.line, f.path, r.source_id FROM refs r JOIN files f ON f.id = r.file_id"
        " WHERE r.kind = 'instantiates' AND r.name = 'Command' AND r.receiver = 'cobra'"
    ).fetchall()
    owners = symbols_by_ids(conn, [int(r[2]) for r in cobra if r[2] is not None])
    for line, path, source in cobra:
        owner = owners.get(int(source)) if source is not None else None
        name = owner.full_name if owner else "(cobra command)"
        out.append(EntryPoint("cli", name, str(path), int(line), owner, "cobra.Command"))
    return out


def _main(conn: sqlite3.Connection) -> list[EntryPoint]:
    out = [
        EntryPoint("main", ref.full_name, ref.file, ref.line, ref, "main function")
        for ref, _ in _symbols(conn, "s.name = 'main' AND s.kind IN ('function', 'method')")
    ]
    rows = conn.execute(
        "SELECT f.path, c.start_line, c.text FROM chunks c JOIN files f ON f.id = c.file_id"
        " WHERE f.language = 'python' AND c.text LIKE '%\\_\\_name\\_\\_%\\_\\_main\\_\\_%'"
        " ESCAPE '\\'"
    )
    seen: set[tuple[str, int]] = set()
    for path, start, text in rows:
        for offset, line_text in enumerate(str(text).splitlines()):
            if re.match(r"\s*if\s+__name__\s*==\s*['\"]__main__['\"]\s*:", line_text):
                key = (str(path), int(start) + offset)
                if key not in seen:
                    seen.add(key)
                    out.append(
                        EntryPoint(
                            "main",
                            'if __name__ == "__main__"',
                            key[0],
                            key[1],
                            None,
                            "script block",
                        )
                    )
    return out


def _tasks(conn: sqlite3.Connection) -> list[EntryPoint]:
    out = _decorated(conn, _TASK_DECORATOR, "task")
    names = ",".join(f"'{n}'" for n in sorted(_LAMBDA_NAMES))
    for ref, _ in _symbols(conn, f"s.name IN ({names}) AND s.kind = 'function'"):
        params = ref.signature.lower()
        if "event" in params and "context" in params:
            out.append(
                EntryPoint("task", ref.full_name, ref.file, ref.line, ref, "serverless handler")
            )
    return out


def _tests(conn: sqlite3.Connection) -> list[EntryPoint]:
    out = []
    for ref, _ in _symbols(conn, "s.kind IN ('test', 'function', 'method')"):
        if ref.kind == "test" or (is_test_path(ref.file) and ref.name.startswith(("test", "Test"))):
            out.append(EntryPoint("test", ref.full_name, ref.file, ref.line, ref))
    return out


def _exports(conn: sqlite3.Connection) -> list[EntryPoint]:
    out = []
    rows = conn.execute(
        f"SELECT {SYMBOL_COLUMNS}, f.exports, s.is_exported, s.parent_id = (SELECT id FROM"
        " symbols t WHERE t.file_id = s.file_id AND t.kind = 'file') FROM symbols s JOIN files f"
        " ON f.id = s.file_id WHERE s.kind NOT IN ('file', 'route', 'variable', 'field')"
    )
    for row in rows:
        ref = row_to_ref(row[:10])
        listed = ref.name in str(row[10] or "").split("\n")
        index = ref.file.rsplit("/", 1)[-1] in _INDEX_FILES and bool(row[11]) and bool(row[12])
        if (listed or index) and not ref.name.startswith("_") and not is_test_path(ref.file):
            out.append(
                EntryPoint(
                    "export",
                    ref.full_name,
                    ref.file,
                    ref.line,
                    ref,
                    "__all__" if listed else "exported from an index file",
                )
            )
    return out
