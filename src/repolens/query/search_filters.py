"""Search filters: which files and chunk kinds a search may return, decided before ranking.

Path globs follow gitignore: ``*`` and ``?`` never cross ``/``; ``**`` spans any number
of directories (``src/**/*.py`` is ``src/x.py`` and ``src/a/b/x.py``); a pattern naming
a directory covers everything under it (``src/*`` is every file below ``src``, but
``src/*.py`` only the Python files directly in it); a pattern without ``/`` matches a
file or directory name at any depth (``*.go``), and a leading ``/`` anchors it at the
root; a trailing ``/`` matches directories only. A pattern without glob characters is a
path prefix, whole segments only (``src/shop`` is that file or directory, not
``src/shopping``).

SQLite's GLOB lets ``*`` cross ``/``, so it only narrows the files cheaply (a superset);
the exact test is a regular expression. The result is a set of file ids, which both the
BM25 query and the dense matrix restrict their rows to.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

_GLOB_CHARS = frozenset("*?[")
_TOKEN = re.compile(r"\*\*|\*|\?|\[!?\]?[^\]]*\]|[^*?\[]+|\[")


@dataclass(frozen=True, slots=True)
class PathPattern:
    """A path filter compiled: ``sql``/``params`` select files (a superset when ``regex``
    is set, which then decides)."""

    sql: str
    params: tuple[str, ...]
    regex: re.Pattern[str] | None = None


@lru_cache(maxsize=256)
def path_pattern(pattern: str) -> PathPattern | None:
    """``pattern`` compiled (see module docstring); ``None`` when it excludes nothing."""
    text = re.sub(r"/+", "/", pattern.strip().replace("\\", "/"))
    while text.startswith("./"):
        text = text[2:]
    anchored, text = text.startswith("/"), text.lstrip("/")
    directory_only, text = text.endswith("/"), text.rstrip("/")
    if text in ("", ".", "**"):
        return None
    if not _GLOB_CHARS & set(text):
        return _prefix(text, directory_only)
    if not anchored and "/" not in text:
        text = f"**/{text}"
    tail = "/.*" if directory_only else "(?:/.*)?"  # the directory's contents match too
    regex = re.compile(_regex(text) + tail, re.DOTALL)
    return PathPattern("fi.path GLOB ?", (_superset(text) + "*",), regex)


def _prefix(path: str, directory_only: bool) -> PathPattern:
    """The file ``path`` or anything under it: an index range, exact without a regex."""
    under = "(fi.path >= ? AND fi.path < ?)"  # "0" sorts right after "/"
    if directory_only:
        return PathPattern(under, (f"{path}/", f"{path}0"))
    return PathPattern(f"(fi.path = ? OR {under})", (path, f"{path}/", f"{path}0"))


def _regex(glob: str) -> str:
    """The regular expression of a glob, segment by segment."""
    segments = glob.split("/")
    parts = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            parts.append(".+" if last else "(?:[^/]+/)*")
        else:
            body = "".join(_token_regex(token) for token in _TOKEN.findall(segment))
            parts.append(body if last else f"{body}/")
    return "".join(parts)


def _token_regex(token: str) -> str:
    if token in ("*", "**"):  # "**" inside a name is a plain "*"
        return "[^/]*"
    if token == "?":
        return "[^/]"
    if token.startswith("[") and token.endswith("]"):
        negated = token[1:2] in ("!", "^")
        members = token[2:-1] if negated else token[1:-1]
        if members:
            escaped = members.replace("\\", "\\\\").replace("[", "\\[")
            return f"(?!/)[{'^' if negated else ''}{escaped}]"
    return re.escape(token)


def _superset(glob: str) -> str:
    """A SQLite GLOB matching at least what ``glob`` does: there ``*`` crosses ``/``,
    ``**/`` may match nothing at all, and a bracket class is any one character."""
    glob = glob.replace("**/", "*")
    return "".join(
        "?" if token.startswith("[") else "*" if token == "**" else token
        for token in _TOKEN.findall(glob)
    )


@dataclass(frozen=True, slots=True)
class Filters:
    """What a search may return: ``file_ids`` (``None``: every file) and chunk ``kinds``
    (empty: every kind); ``where``/``params``: the same as conditions over ``chunks c``.
    ``path_glob`` and ``languages`` are kept as asked, for a backend that filters on its
    own payload rather than on this index's file ids."""

    file_ids: npt.NDArray[np.int64] | None
    kinds: tuple[str, ...]
    where: str
    params: tuple[object, ...]
    path_glob: str | None = None
    languages: tuple[str, ...] = ()

    @classmethod
    def build(
        cls,
        conn: sqlite3.Connection,
        path_glob: str | None,
        languages: Sequence[str],
        kinds: Sequence[str],
        file_ids: npt.NDArray[np.int64] | None = None,
    ) -> Filters:
        """``file_ids``: only these files, whatever the glob and languages allow."""
        pattern = path_pattern(path_glob) if path_glob else None
        files = _file_ids(conn, pattern, languages) if pattern or languages else None
        if file_ids is not None:
            files = file_ids if files is None else np.intersect1d(files, file_ids)
        clauses: list[str] = []
        params: list[object] = []
        if files is not None:
            clauses.append("c.file_id IN (SELECT value FROM json_each(?))")
            params.append(json.dumps(files.tolist()))
        if kinds:
            clauses.append(f"c.kind IN ({','.join('?' * len(kinds))})")
            params.extend(kinds)
        where = "".join(f" AND {clause}" for clause in clauses)
        glob = path_glob if pattern is not None else None
        return cls(files, tuple(kinds), where, tuple(params), glob, tuple(languages))

    @property
    def excludes_everything(self) -> bool:
        return self.file_ids is not None and len(self.file_ids) == 0


def _file_ids(
    conn: sqlite3.Connection, pattern: PathPattern | None, languages: Sequence[str]
) -> npt.NDArray[np.int64]:
    clauses, params = ["1"], list[str]()
    if pattern is not None:
        clauses.append(pattern.sql)
        params.extend(pattern.params)
    if languages:
        clauses.append(f"fi.language IN ({','.join('?' * len(languages))})")
        params.extend(language.lower() for language in languages)
    where = " AND ".join(clauses)
    rows = conn.execute(f"SELECT fi.id, fi.path FROM files fi WHERE {where}", params)
    regex = pattern.regex if pattern is not None else None
    ids = [file_id for file_id, path in rows if regex is None or regex.fullmatch(path)]
    return np.asarray(ids, dtype=np.int64)


def matching_paths(conn: sqlite3.Connection, path_glob: str) -> list[str]:
    """The indexed paths ``path_glob`` selects (every path when it excludes nothing)."""
    pattern = path_pattern(path_glob)
    rows = conn.execute("SELECT fi.id, fi.path FROM files fi")
    if pattern is None:
        return [path for _, path in rows]
    ids = set(_file_ids(conn, pattern, ()).tolist())
    return [path for file_id, path in rows if file_id in ids]
