"""What every command shares: finding the project, opening the index, printing, exit codes.

Exit codes: 0 ok, 1 error (a clear message, or ``{"error": ...}`` with ``--json``),
2 usage (click's own). Output for people goes through rich; with ``--json`` exactly one
JSON object is printed to stdout and nothing else.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import sqlite3
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from repolens.config import ConfigError
from repolens.index import lock
from repolens.project import Project, ProjectError, open_project
from repolens.store.db import StoreError, connect

if TYPE_CHECKING:
    from rich.console import Console

F = TypeVar("F", bound=Callable[..., Any])
ProgressFn = Callable[[str, int, int], None]  # (stage, done, total)


@functools.cache
def console() -> Console:
    """rich's stdout console, made on first use: importing rich is a tenth of the start-up
    of a command that prints a line or two (``repolens update`` in a hook)."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


@functools.cache
def err_console() -> Console:
    """rich's stderr console (see ``console``)."""
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def json_option(func: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")(func)


def project_option(func: F) -> F:
    return click.option(
        "--project",
        "project_path",
        type=click.Path(path_type=Path, file_okay=False),
        default=None,
        help="Project root (default: git top level of the current directory).",
    )(func)


def fail(message: str, as_json: bool, **extra: Any) -> NoReturn:
    """Report an error and exit 1."""
    if as_json:
        print(json.dumps({"error": message, **extra}, ensure_ascii=False))
    else:
        err_console().print(f"[bold red]error:[/] {message}", markup=True)
    sys.exit(1)


def emit(data: Any, as_json: bool, render: Callable[[], None]) -> None:
    """Print ``data`` as JSON, or call ``render`` to print it for people."""
    if as_json:
        print(json.dumps(data, ensure_ascii=False, default=str))
    else:
        render()


def load_project(path: Path | None, as_json: bool, *, writes: bool = False) -> Project:
    """The project at ``path``; its settings also decide how this process logs. Its data
    dir is made only for a command that ``writes``."""
    from repolens.logs import configure_logging

    try:
        project = open_project(path, create=writes)
        configure_logging(project.settings, project.root)
    except (ConfigError, ProjectError) as exc:
        fail(str(exc), as_json)
    return project


@contextmanager
def open_index(
    project: Project, as_json: bool, *, readonly: bool = True
) -> Iterator[sqlite3.Connection]:
    """The project's index; a missing or unusable one is a clear error, not a traceback."""
    try:
        conn = connect(project.db_path, readonly=readonly)
    except StoreError as exc:
        fail(str(exc), as_json)
    try:
        yield conn
    finally:
        conn.close()


def rel(path: str, line: int | None = None) -> str:
    """``path:line`` as every answer cites it."""
    return f"{path}:{line}" if line else path


@contextmanager
def progress_bars(enabled: bool) -> Iterator[ProgressFn]:
    """A rich progress bar per stage on stderr (rate and time left); when stderr is not a
    terminal, a plain line every few seconds instead (``progress.ProgressLines``)."""
    if not enabled:
        from repolens.cli.progress import ProgressLines

        yield ProgressLines()
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("{task.description:<8}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=err_console(), transient=False) as progress:
        tasks: dict[str, Any] = {}

        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = progress.add_task(stage, total=total, rate="")
            task = tasks[stage]
            speed = next(t.speed for t in progress.tasks if t.id == task)
            rate = f"{speed:,.0f}/s" if speed else ""
            progress.update(task, completed=done, total=total, rate=rate)

        yield update


@contextmanager
def stop_on_interrupt(data_dir: Path) -> Iterator[Callable[[], bool]]:
    """Ctrl-C as ``repolens stop``: the writer stops after its current batch, keeping all
    it committed, and holds the lock (so ``status`` shows it, stopping) until it has. A
    second Ctrl-C quits at once. Yields whether Ctrl-C was pressed."""
    pressed = threading.Event()

    def on_interrupt(signum: int, frame: object) -> None:
        if pressed.is_set():
            raise KeyboardInterrupt
        pressed.set()
        with suppress(OSError):  # a full disk: the flag alone stops this process
            lock.request_stop(data_dir)
        os.write(2, "\nstopping after the current batch… (Ctrl-C again to quit at once)\n".encode())

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        yield pressed.is_set
    finally:
        signal.signal(signal.SIGINT, previous)
