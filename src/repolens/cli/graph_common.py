"""What every graph command shares: the index a query reads (saying when it is
incomplete), a SYMBOL argument looked up or failed with its candidates, the options
(``--file``/``--kind``, ``--limit``, ``--no-tests``, ``--linked``/``--in``) and the printing
of symbols and of what an answer left out.

With ``--json`` symbols appear as ``{"name", "qualified_name", "kind", "file", "line"}``
where ``qualified_name`` is the full dotted name (module + local name) when the module is
known, else the local name. A symbol that cannot be named exactly is exit 1 with
``{"error", "candidates"}``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import click

from repolens.cli.common import console, err_console, fail, load_project, open_index
from repolens.index.state import incomplete_note, needs_resume
from repolens.present.graph import tests_line
from repolens.query.graph import SymbolLookupError, SymbolRef, find_symbol

DEFAULT_LIMIT = 100


def symbol_json(ref: SymbolRef) -> dict[str, Any]:
    return {
        "name": ref.name,
        "qualified_name": ref.full_name,
        "kind": ref.kind,
        "file": ref.file,
        "line": ref.line,
    }


def symbol_row(ref: SymbolRef) -> str:
    return f"{ref.file}:{ref.line}  {ref.full_name} ({ref.kind})"


def say(text: str = "", *, style: str | None = None) -> None:
    console().print(text, markup=False, highlight=False, style=style)


@contextmanager
def graph_index(project_path: Path | None, as_json: bool) -> Iterator[sqlite3.Connection]:
    """The index for a graph query. An answer read from an incomplete index (an
    interrupted run, a first index still running) ends with a line that says so."""
    project = load_project(project_path, as_json)
    with open_index(project, as_json) as conn:
        yield conn
        note = incomplete_note(conn, project.data_dir)
    if note and not as_json:
        err_console().print(f"note: {note}", markup=False, style="yellow")


def lookup_symbol(
    conn: sqlite3.Connection, query: str, file: str | None, kind: str | None, as_json: bool
) -> SymbolRef:
    try:
        return find_symbol(conn, query, file=file, kind=kind)
    except SymbolLookupError as exc:
        message = exc.message
        if exc.kind == "not_found" and needs_resume(conn):
            message += (
                " (the index is incomplete, so it may not be indexed yet: see `repolens status`)"
            )
        fail_candidates(
            message,
            [symbol_json(c) for c in exc.candidates],
            [symbol_row(c) for c in exc.candidates],
            as_json,
        )


def fail_candidates(
    message: str, candidates: list[Any], rows: list[str], as_json: bool
) -> NoReturn:
    if not as_json and rows:
        message += "\n" + "\n".join(f"  {row}" for row in rows)
    fail(message, as_json, candidates=candidates)


def print_more(shown: int, total: int | None, hint: str) -> None:
    """Say what was left out and how to get it (principle 6)."""
    if total is None:
        say(f"… more not shown; {hint}", style="dim")
    elif total > shown:
        say(f"… {total - shown} more not shown; {hint}", style="dim")


def print_more_than(found: int, limit: int, narrow: str = "") -> None:
    """For lists fetched one past ``limit``: if the extra came back, offer twice the limit."""
    if found > limit:
        print_more(limit, None, f"use --limit {limit * 2}{narrow}")


def symbol_options(func: Callable[..., Any]) -> Callable[..., Any]:
    func = click.option("--kind", default=None, help="Only symbols of this kind.")(func)
    func = click.option("--file", "file", default=None, help="Only symbols in this file.")(func)
    return func


def linked_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """``--linked`` (the project and its linked projects as one graph) and ``--in``."""
    func = click.option(
        "--in", "in_project", default=None, metavar="PROJECT",
        help="With --linked: the project (as answers name it) holding SYMBOL.",
    )(func)  # fmt: skip
    return click.option(
        "--linked", is_flag=True,
        help="Across the linked projects (`links` in .repolens.toml): edges cross from a"
        " project into the packages of the others that it imports.",
    )(func)  # fmt: skip


def limit_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--limit",
        type=click.IntRange(min=1),
        default=DEFAULT_LIMIT,
        show_default=True,
        help="Most results to show.",
    )(func)


def no_tests_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--no-tests",
        "no_tests",
        is_flag=True,
        help="Count test code (test files, test functions) by file instead of listing it.",
    )(func)


def tests_json(tests: list[SymbolRef]) -> dict[str, Any]:
    """The test symbols an answer counted instead of listing: how many, by file."""
    by_file: dict[str, int] = {}
    for ref in tests:
        by_file[ref.file] = by_file.get(ref.file, 0) + 1
    return {"count": len(tests), "files": by_file}


def print_tests_left_out(tests: list[SymbolRef], what: str) -> None:
    if tests:
        say(f"… {tests_line([t.file for t in tests], what)}; drop --no-tests to list them",
            style="dim")  # fmt: skip
