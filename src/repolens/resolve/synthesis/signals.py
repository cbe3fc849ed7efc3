"""Signals paired by the object they go through: blinker, Django, and any module-level
signal object with ``connect``/``send``.

``request_started.connect(log_request)`` (or ``@request_started.connect`` on a function,
or Django's ``@receiver(request_started)``) wires a receiver; ``request_started.send(app)``
anywhere runs each receiver. Both name the same module-level variable, which resolution
records as a ``references`` edge at each site (see ``ladder``), so the pairing is exact:
the same symbol, not the same name. The receiver must be the first argument or the
decorated function.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict

from repolens.resolve.edges import EdgeRow
from repolens.resolve.synthesis.common import edge, file_paths, skipped_files

CONFIDENCE = 0.85
MAX_RECEIVERS = 16
CONNECTORS = ("connect",)  # `signal.connect(f)`, `@signal.connect`
DECORATORS = ("receiver",)  # Django's `@receiver(signal)`
SENDERS = ("send", "send_robust", "send_async", "emit")
CALLABLE = "('function', 'method')"

# a call or decorator named `name` at a site, and the module-level variable referenced
# from the same site: the receiver (`signal.connect`) or the first argument (`receiver(s)`)
_SITES = f"""
SELECT r.kind, r.name, r.source_id, r.file_id, r.line, r.col, v.target_id, s.kind
FROM refs r
JOIN edges v ON v.source_id = r.source_id AND v.file_id = r.file_id AND v.line = r.line
  AND v.kind = 'references'
  AND v.col = (CASE WHEN r.receiver IS NULL THEN r.col + length(r.name) + 1 ELSE r.col END)
JOIN symbols t ON t.id = v.target_id AND t.kind IN ('variable', 'constant')
LEFT JOIN symbols s ON s.id = r.source_id
WHERE r.kind IN ('calls', 'decorates')
  AND ((r.receiver IS NOT NULL AND r.name IN ({",".join("?" * (len(CONNECTORS) + len(SENDERS)))}))
    OR (r.receiver IS NULL AND r.name IN ({",".join("?" * len(DECORATORS))})))
ORDER BY r.file_id, r.line, r.col
"""


def edges(conn: sqlite3.Connection) -> list[EdgeRow]:
    skipped = skipped_files(conn)
    receivers: defaultdict[int, dict[int, tuple[int, int]]] = defaultdict(dict)
    sends: list[tuple[int, int, int, int, int]] = []  # signal, sender, file, line, col
    rows = conn.execute(_SITES, (*CONNECTORS, *SENDERS, *DECORATORS)).fetchall()
    for kind, name, source, file_id, line, col, signal, source_kind in rows:
        if file_id in skipped or source is None:
            continue
        if name in SENDERS and kind == "calls":
            sends.append((int(signal), int(source), int(file_id), int(line), int(col)))
            continue
        if kind == "decorates" and source_kind in ("function", "method"):
            receivers[int(signal)].setdefault(int(source), (int(file_id), int(line)))
        elif kind == "calls" and name in CONNECTORS:
            target = _first_argument(conn, int(source), int(file_id), int(line), int(col), name)
            if target is not None:
                receivers[int(signal)].setdefault(target, (int(file_id), int(line)))
    names = _names(conn, set(receivers))
    paths = file_paths(conn, {f for found in receivers.values() for f, _ in found.values()})
    made: list[EdgeRow] = []
    for signal, sender, file_id, line, col in sends:
        found = receivers.get(signal, {})
        if len(found) > MAX_RECEIVERS:
            continue
        for target, (wired_file, wired_line) in sorted(found.items()):
            if target != sender:
                made.append(
                    edge(sender, target, file_id, line, col, CONFIDENCE, channel="signal",
                         via=names[signal], site=f"{paths[wired_file]}:{wired_line}")
                )  # fmt: skip
    return made


def _first_argument(
    conn: sqlite3.Connection, source: int, file_id: int, line: int, col: int, name: str
) -> int | None:
    """The project function passed first to ``signal.connect(...)`` at this site."""
    rows = conn.execute(
        "SELECT e.target_id FROM edges e JOIN symbols t ON t.id = e.target_id"
        " WHERE e.source_id = ? AND e.file_id = ? AND e.line = ? AND e.col = ?"
        f" AND e.kind = 'references' AND t.kind IN {CALLABLE}",
        (source, file_id, line, col + len(name) + 1),
    ).fetchall()
    return int(rows[0][0]) if len(rows) == 1 else None


def _names(conn: sqlite3.Connection, ids: set[int]) -> dict[int, str]:
    found: dict[int, str] = {}
    for sym in sorted(ids):
        row = conn.execute("SELECT qualified_name FROM symbols WHERE id = ?", (sym,)).fetchone()
        found[sym] = str(row[0]) if row else ""
    return found
