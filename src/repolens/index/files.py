"""Reading and parsing one file: the unit of work the indexer fans out to processes.

It runs in worker processes, so it takes and returns plain picklable records and never
touches the database: the single writer in the parent stores what comes back.
"""

from __future__ import annotations

import ctypes
import functools
import gc
import hashlib
import itertools
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing.context import BaseContext
from operator import attrgetter
from typing import TypeVar

from repolens import collector
from repolens.index.lock import forget_inherited
from repolens.parse import parse_source
from repolens.parse.chunk import MAX_LINES, Chunk, chunk_file
from repolens.parse.languages import PARSED_LANGUAGES
from repolens.parse.model import ParsedFile
from repolens.parse.registry import load_grammars
from repolens.readfile import decode, read_regular, wide_encoding
from repolens.store.chunks import TokenizedChunk, tokenized
from repolens.store.graph import FileRecord, GraphRows, graph_rows
from repolens.store.shared import cached_facts, encode_facts, facts_profile

T = TypeVar("T")
R = TypeVar("R")

CRASHED = "not parsed: the parser's process died on this file (a crash, or out of memory)"
PARALLEL_THRESHOLD = 64  # below this many files, process start-up costs more than it saves
CHUNK_FILES = 8  # files per task sent to a worker: fewer round trips than one by one
CHUNK_BYTES = 64 * 1024
"""Bytes of source per task, but for a task of one larger file: the writer stores
results in order, so the first task, of the largest files, is waited for before any is
written. Eight of them made the writer start writing late and finish last, alone (a
tenth of a second on pip)."""
SMALL_FIRST = 2048  # bytes: files below this are parsed first (see ``_in_order``)
MAX_READ_BYTES = 1 << 30  # discovery caps sizes far lower; this only bounds a file that grew
CHUNKS_AHEAD = 8  # tasks in flight per worker: enough that a slow file stalls no one


@dataclass(frozen=True, slots=True)
class FileTask:
    path: str
    abs_path: str
    language: str
    size: int
    mtime_ns: int
    known_hash: str = ""  # the stored hash, so unchanged content is not parsed again
    chunk_lines: int = MAX_LINES  # the chunk_max_lines setting
    shared_store: str = ""  # the repository's shared store, where another worktree's facts are


@dataclass(slots=True)
class FileResult:
    task: FileTask
    status: str  # "parsed" | "unchanged" | "vanished" | "unreadable"
    record: FileRecord | None = None
    graph: GraphRows | None = None  # None: no grammar for the language
    chunks: list[Chunk] = field(default_factory=list)
    error: str = ""
    reused: bool = False  # the facts came from the shared store: nothing was parsed
    facts: bytes = b""  # parsed here: the facts encoded for the shared store


PR_SET_PDEATHSIG = 1


def init_worker(writer_pid: int, direct_child: bool) -> None:
    """Pool initializer: a worker must neither keep the writer lock alive nor outlive
    the writer. A killed writer's lock is then free at once, and no orphan keeps parsing.

    ``direct_child`` is False under forkserver, whose workers are the server's children
    (it exits with the writer, and they with it).

    The cyclic garbage collector stays off for the worker's life (see ``_process_chunk``
    for when it runs), and what the worker inherited is frozen: never walked by it, so
    never copied out of the pages it shares with the writer.

    Ctrl-C reaches every process of the terminal's group: a worker ignores it and lets
    the writer decide (it stops after its current batch, and its workers with it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.freeze()
    gc.disable()
    forget_inherited()
    parent = os.getppid()
    if direct_child and parent != writer_pid:  # the writer died before we got here
        os._exit(1)
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # it died before prctl took effect
            os._exit(1)
        return
    threading.Thread(target=_exit_with, args=(parent,), daemon=True).start()


def _exit_with(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _parse_status(parsed: ParsedFile) -> str:
    """ok; partial (syntax errors, or a line-level outline when the grammar is missing);
    failed (nothing could be extracted)."""
    if parsed.error:
        return "partial" if parsed.symbols or parsed.imports else "failed"
    return "partial" if parsed.has_errors else "ok"


def process_file(task: FileTask) -> FileResult:
    """Read, hash and (if the content changed) parse and chunk one file, with the cyclic
    garbage collector paused (see ``repolens.collector``)."""
    with collector.paused():
        return _process(task)


@functools.cache
def _real_root(root: str) -> str:
    return os.path.realpath(root)


def _read(task: FileTask) -> bytes:
    """The file's bytes, read from a descriptor checked to be a regular file inside the
    root: discovery's checks were made on the path, which may since have been swapped
    for a symlink to anything (``repolens.readfile``)."""
    root = task.abs_path[: len(task.abs_path) - len(task.path)].rstrip("/") or "/"
    return read_regular(task.abs_path, MAX_READ_BYTES, _real_root(root))


def _shared(
    task: FileTask, digest: str
) -> tuple[FileRecord, GraphRows | None, list[TokenizedChunk]] | None:
    """The facts another worktree or branch stored for this path and content."""
    key = (task.path, digest, task.language, facts_profile(task.chunk_lines))
    return cached_facts(task.shared_store, key, task.mtime_ns)


def _process(task: FileTask, parse: bool = True) -> FileResult:
    try:
        data = _read(task)
    except FileNotFoundError:
        return FileResult(task, "vanished", error="file vanished before it was read")
    except OSError as exc:
        return FileResult(task, "unreadable", error=f"cannot read: {exc.strerror or exc}")
    digest = content_hash(data)
    if digest == task.known_hash:
        return FileResult(task, "unchanged")
    if task.shared_store and (found := _shared(task, digest)):
        record, graph, chunks = found
        return FileResult(task, "parsed", record, graph, list(chunks), reused=True)
    text, note = decode(data)
    source = text.encode("utf-8") if wide_encoding(data) else data  # the parsers read UTF-8
    parsed: ParsedFile | None = None
    status = "text"
    if task.language in PARSED_LANGUAGES and not parse:
        status, note = "failed", "; ".join(part for part in (note, CRASHED) if part)
    elif task.language in PARSED_LANGUAGES:  # a failed grammar is reported by parse_source
        parsed = parse_source(task.path, task.language, source)
        status = _parse_status(parsed)
        note = "; ".join(part for part in (note, parsed.error) if part)
    line_count = parsed.line_count if parsed else text.count("\n") + 1
    record = FileRecord(
        path=task.path,
        language=task.language,
        size=len(data),
        mtime_ns=task.mtime_ns,
        content_hash=digest,
        parse_status=status,
        parse_error=note,
        line_count=line_count,
        exports=tuple(parsed.exports) if parsed else (),
    )
    # tokenised here, in the worker: the single writer then only inserts
    cut = chunk_file(text, task.language, parsed, task.chunk_lines)
    tokens = [tokenized(chunk) for chunk in cut]
    graph = graph_rows(parsed) if parsed else None
    result = FileResult(task, "parsed", record, graph, list(tokens))
    if task.shared_store and parse:  # not a file stored unparsed after a crash: try it again
        result.facts = encode_facts(record, graph, tokens)
    return result


def process_all(tasks: list[FileTask], workers: int) -> Generator[FileResult, None, None]:
    """``process_file`` over ``tasks`` on ``workers`` processes (largest file first).

    A worker that dies (a grammar crashing on some input, the kernel's OOM killer) costs
    no file: the files it may have held are processed again one per turn, and a file that
    kills its process again is stored unparsed, with its hash and the reason, so it is not
    tried again until it changes and no later run stops on it."""
    if len(tasks) < PARALLEL_THRESHOLD or workers <= 1:
        yield from map(process_file, tasks)
        return
    context = multiprocessing.get_context()
    if context.get_start_method() == "fork":  # loaded once here, inherited by every worker
        load_grammars(_common_languages(tasks, workers * CHUNK_FILES))
    tasks = _in_order(tasks)
    ahead = workers * CHUNKS_AHEAD
    start = 0
    while start < len(tasks):
        try:
            with _pool(context, workers) as pool:
                for result in windowed_map(pool, _process_chunk, _parts(tasks[start:]), ahead):
                    start += 1
                    yield result
        except BrokenProcessPool:
            held = tasks[start : start + ahead * CHUNK_FILES]  # every file sent and not back
            yield from _one_by_one(context, held)
            start += len(held)


def _in_order(tasks: list[FileTask]) -> list[FileTask]:
    """Small files first, then the rest largest first.

    Largest first, the last tasks are small, so the workers finish together (with the
    largest last, one worker parsed alone for a tenth of pip's index). But storing a
    small file costs the writer about what parsing it costs a worker, a dozen statements
    whatever its size, so small files last left the writer storing alone after the
    workers were done (0.06 s on pip). Stored first, they are written while the large
    files are parsed, and the writer keeps up with the mid-sized files that now end."""
    ordered = sorted(tasks, key=attrgetter("size"), reverse=True)
    return [t for t in ordered if t.size < SMALL_FIRST] + [
        t for t in ordered if t.size >= SMALL_FIRST
    ]


def _parts(tasks: list[FileTask]) -> Iterator[list[FileTask]]:
    """``tasks`` in order, cut into tasks of at most ``CHUNK_FILES`` files and
    ``CHUNK_BYTES`` bytes (a larger file alone)."""
    part: list[FileTask] = []
    size = 0
    for task in tasks:
        if part and (len(part) == CHUNK_FILES or size + task.size > CHUNK_BYTES):
            yield part
            part, size = [], 0
        part.append(task)
        size += task.size
    if part:
        yield part


def _common_languages(tasks: list[FileTask], least: int) -> set[str]:
    """Languages of at least ``least`` files: every worker will meet them, so each would
    compile the grammar's query (TypeScript's: 0.06 s). A language of a few files is left
    to the one worker that meets it, rather than delay every worker's start."""
    counts = Counter(task.language for task in tasks)
    return {language for language, count in counts.items() if count >= least}


@contextmanager
def _pool(context: BaseContext, workers: int) -> Iterator[ProcessPoolExecutor]:
    direct = context.get_start_method() != "forkserver"
    pool = ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=init_worker,
        initargs=(os.getpid(), direct),
    )  # fmt: skip
    try:
        yield pool
    finally:  # on a stop, files not yet started are dropped, not parsed for nothing
        pool.shutdown(wait=True, cancel_futures=True)


def _one_by_one(context: BaseContext, tasks: list[FileTask]) -> Iterator[FileResult]:
    """Each of ``tasks`` alone in a worker, so that one that kills it is known."""
    pending = deque(tasks)
    while pending:
        with _pool(context, 1) as pool:
            try:
                while pending:
                    result = pool.submit(process_file, pending[0]).result()
                    pending.popleft()
                    yield result
            except BrokenProcessPool:
                yield _process(pending.popleft(), parse=False)


def _process_chunk(tasks: list[FileTask]) -> list[FileResult]:
    """Files of one task, in a worker whose collector is off (``init_worker``). A result
    holds many thousands of objects, and a collector left on walked them all, a few times
    over, before the result was sent and freed. Parsing makes no reference cycles (a test
    holds it to that), so by the next task the results are gone and this collection, a
    safety net, walks only the few objects that outlive a task."""
    gc.collect()
    return [process_file(task) for task in tasks]


def windowed_map(
    pool: Executor, fn: Callable[[list[T]], list[R]], parts: Iterable[list[T]], ahead: int
) -> Iterator[R]:
    """``fn`` over each of ``parts`` on ``pool``, results in order, with at most
    ``ahead`` parts submitted and not yet taken. ``Executor.map`` submits everything at
    once, so when the single writer falls behind (many cores, a slow disk) finished
    results would pile up in its memory; here the workers wait instead."""
    parts = iter(parts)
    pending = deque(pool.submit(fn, part) for part in itertools.islice(parts, ahead))
    while pending:
        done = pending.popleft().result()
        pending.extend(pool.submit(fn, part) for part in itertools.islice(parts, 1))
        yield from done
