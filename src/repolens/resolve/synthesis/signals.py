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

from collections import defaultdict

from repolens.resolve.edges import EdgeRow
from repolens.resolve.synthesis.common import (
    CALLABLE,
    VARIABLES,
    Stored,
    kind_of,
    signal_edges,
)

CONFIDENCE = 0.85
MAX_RECEIVERS = 16
CONNECTORS = ("connect",)  # `signal.connect(f)`, `@signal.connect`
DECORATORS = ("receiver",)  # Django's `@receiver(signal)`
SENDERS = ("send", "send_robust", "send_async", "emit")

# calls and decorators that may wire or send a signal
_SITES = f"""
SELECT kind, name, receiver IS NULL, source_id, file_id, line, col FROM refs
WHERE kind IN ('calls', 'decorates') AND source_id IS NOT NULL
  AND name IN ({",".join("?" * (len(CONNECTORS) + len(SENDERS) + len(DECORATORS)))})
ORDER BY file_id, line, col
"""


def edges(graph: Stored) -> list[EdgeRow]:
    project = graph.project
    receivers: defaultdict[int, dict[int, tuple[int, int]]] = defaultdict(dict)
    sends: list[tuple[int, int, int, int, int]] = []  # signal, sender, file, line, col
    sites = graph.conn.execute(_SITES, (*CONNECTORS, *SENDERS, *DECORATORS)).fetchall()
    # what each site references: module-level variables (the signal), functions (a receiver)
    uses: dict[tuple[int, int, int, int], list[tuple[int, str]]] = defaultdict(list)
    for source, file_id, line in {(s[3], s[4], s[5]) for s in sites}:
        for target, col in graph.references_at.get((source, file_id, line), ()):
            kind = kind_of(project, target)
            if kind in CALLABLE or kind in VARIABLES:
                uses[(source, file_id, line, col)].append((target, kind))
    decorated = {  # `@receiver(signal)` over `def audit`: the call's line -> audit
        (file_id, line, name): source
        for kind, name, bare, source, file_id, line, _ in sites
        if kind == "decorates" and bare and kind_of(project, source) in CALLABLE
    }
    for kind, name, bare, source, file_id, line, col in sites:
        source_kind = kind_of(project, source)
        if bool(bare) != (name in DECORATORS):
            continue
        args = (source, file_id, line, col + len(name) + 1)  # its first argument
        # `signal.connect(...)`: the receiver at the call; `receiver(signal)`: the argument
        signal = _one(uses.get(args if bare else (source, file_id, line, col), []), VARIABLES)
        if signal is None:
            continue
        if name in SENDERS and kind == "calls":
            sends.append((signal, int(source), int(file_id), int(line), int(col)))
        elif kind == "decorates" and source_kind in CALLABLE:  # `@signal.connect`
            receivers[signal].setdefault(int(source), (int(file_id), int(line)))
        elif kind == "calls" and (file_id, line, name) in decorated:  # `@receiver(signal)`
            target = int(decorated[(file_id, line, name)])
            receivers[signal].setdefault(target, (int(file_id), int(line)))
        elif kind == "calls" and name in CONNECTORS:
            connected = _one(uses.get(args, []), CALLABLE)
            if connected is not None:
                receivers[signal].setdefault(connected, (int(file_id), int(line)))
    return signal_edges(project, sends, receivers, cap=MAX_RECEIVERS, confidence=CONFIDENCE)


def _one(uses: list[tuple[int, str]], kinds: frozenset[str]) -> int | None:
    """The one symbol of ``kinds`` a site references, if exactly one."""
    found = [target for target, kind in uses if kind in kinds]
    return found[0] if len(found) == 1 else None
