"""Events paired by their literal name: an emitter's listeners, pub/sub topics, DOM events.

``queue.on("job:added", log_job)`` registers a listener; ``this.emit("job:added", job)``
in ``JobQueue`` runs it. The same for ``once``/``addListener``, pub/sub buses
(``bus.subscribe("order.paid", f)`` and ``bus.publish("order.paid", ...)``, PyPubSub's
``subscribe(f, "topic")``/``sendMessage``) and the DOM (``addEventListener("cart:updated",
render)`` and ``dispatchEvent(new CustomEvent("cart:updated"))``). Parsing keeps these
calls with their arguments (``parse.callsites.EVENT_CALLS``).

A name alone says little: ``"error"`` or ``"data"`` are sent by many unrelated emitters.
So a listener and a send are paired when they go through the same emitter, known from
the receiver: the same module-level variable, or ``this``/``self`` of a class and a
variable made from that class or a subclass of it (``queue = new JobQueue()``). Where one
side's emitter is not known, only a distinctive name pairs (``"job:added"``,
``"order.paid"``, ``"jobAdded"``: a separator or a capital inside), at a lower confidence;
where both are known and differ, nothing does. The listener is the function passed (also
through ``bind``/``partial``) or, for a function literal, each project function it calls.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from repolens.resolve.edges import EdgeRow
from repolens.resolve.synthesis.common import (
    CALLABLE,
    VARIABLES,
    Stored,
    ancestors,
    edge,
    enclosing_class,
    site,
)

SAME_EMITTER = 0.8  # both ends go through one emitter
SAME_NAME = 0.65  # a distinctive name, one end's emitter unknown
MAX_LISTENERS = 16  # an event with more listeners than this says too little about any one
MAX_LITERAL_CALLS = 4  # a function literal calling more than this is a body, not a relay
LISTEN = frozenset(
    {"on", "once", "addlistener", "prependlistener", "prependoncelistener", "subscribe",
     "addeventlistener"}
)  # fmt: skip
WRAPPERS = frozenset({"bind", "partial"})  # `this.onJob.bind(this)`, `partial(on_job, 1)`
SELVES = frozenset({"this", "self"})
_DISTINCT = re.compile(r"[:./\-_ ]|.[A-Z]")

_CASED = (  # the calls' names as written (parse keeps them by lower case)
    "on", "once", "addListener", "prependListener", "prependOnceListener", "emit", "trigger",
    "subscribe", "publish", "sendMessage", "addEventListener", "dispatchEvent",
)  # fmt: skip


Emitter = tuple[str, int] | None  # ("var", variable) or ("class", class); None: unknown


@dataclass(frozen=True, slots=True)
class Site:
    """One listener registration or one send, with the emitter it goes through."""

    event: str
    emitter: Emitter
    source: int
    file_id: int
    line: int
    col: int
    targets: tuple[int, ...] = ()  # a registration's listeners


def edges(graph: Stored) -> list[EdgeRow]:
    listeners: defaultdict[str, list[Site]] = defaultdict(list)
    sends: list[Site] = []
    for found in _sites(graph):
        (listeners[found.event] if found.targets else sends).append(found)
    made: list[EdgeRow] = []
    project = graph.project
    for send in sends:
        paired = [
            (listen, confidence)
            for listen in listeners.get(send.event, ())
            if (confidence := _pairing(graph, send, listen)) > 0
        ]
        if len({t for listen, _ in paired for t in listen.targets}) > MAX_LISTENERS:
            continue
        for listen, confidence in paired:
            for target in listen.targets:
                if target != send.source:
                    made.append(
                        edge(send.source, target, send.file_id, send.line, send.col, confidence,
                             channel="event", via=send.event,
                             site=site(project, listen.file_id, listen.line))
                    )  # fmt: skip
    return made


def _sites(graph: Stored) -> list[Site]:
    rows = graph.conn.execute(
        "SELECT file_id, source_id, name, line, col, start_byte, args FROM call_sites"
        f" WHERE name IN ({','.join('?' * len(_CASED))}) ORDER BY file_id, line, col",
        _CASED,
    ).fetchall()
    receivers = _call_receivers(graph, {int(r[0]) for r in rows})
    found: list[Site] = []
    for file_id, source, name, line, col, start, args in rows:
        try:
            _, items = json.loads(args)
        except (ValueError, TypeError):
            continue
        low = str(name).lower()
        event, rest = _event(low, items)
        if event is None:
            continue
        call = receivers.get((file_id, line, name))
        emitter = _emitter(graph, source, file_id, line, call) if call is not None else None
        if low not in LISTEN:
            found.append(Site(event, emitter, source, file_id, line, col))
            continue
        targets = _listeners(graph, source, file_id, line, col, start, rest)
        if targets:
            found.append(Site(event, emitter, source, file_id, line, col, targets))
    return found


def _event(low: str, items: list[Any]) -> tuple[str | None, list[Any]]:
    """The event's name and the arguments left once it is taken out."""
    if low == "dispatchevent":
        first = items[0] if items else None
        if first and first[0] == "c" and str(first[1]).endswith("Event") and first[3]:
            named = first[3][0]
            return (str(named[1]) if named[0] == "s" else None), []
        return None, []
    for index, item in enumerate(items[:2]):
        if item and item[0] == "s" and item[1]:
            return str(item[1]), items[:index] + items[index + 1 :]
    return None, []


def _call_receivers(
    graph: Stored, files: set[int]
) -> dict[tuple[int, int, str], tuple[str | None, int]]:
    """(file, line, name) -> the receiver text and name column of the one call there."""
    found: dict[tuple[int, int, str], tuple[str | None, int]] = {}
    twice: set[tuple[int, int, str]] = set()
    for file_id in sorted(files):
        rows = graph.conn.execute(
            "SELECT line, name, receiver, col FROM refs WHERE file_id = ? AND kind = 'calls'"
            f" AND name IN ({','.join('?' * len(_CASED))})",
            (file_id, *_CASED),
        )
        for line, name, receiver, col in rows:
            key = (file_id, int(line), str(name))
            if key in found:
                twice.add(key)
            found[key] = (receiver, int(col))
    return {key: value for key, value in found.items() if key not in twice}


def _emitter(
    graph: Stored, source: int, file_id: int, line: int, call: tuple[str | None, int]
) -> Emitter:
    receiver, col = call
    project = graph.project
    if receiver in SELVES:
        owner = enclosing_class(project, source)
        return ("class", owner) if owner is not None else None
    for target, at in graph.references_at.get((source, file_id, line), ()):
        sym = project.syms.get(target)
        if at == col and sym is not None and sym.kind in VARIABLES:
            return ("var", target)
    return None


def _listeners(
    graph: Stored, source: int, file_id: int, line: int, col: int, start: int, rest: list[Any]
) -> tuple[int, ...]:
    """The project functions a registration runs: the one passed, or those a function
    literal passed calls."""
    handler = rest[0] if rest else None
    while handler and handler[0] == "c" and handler[1] in WRAPPERS:
        handler = handler[2] if handler[2] is not None else (handler[3][0] if handler[3] else None)
    project = graph.project
    if handler and handler[0] == "n":
        last = str(handler[1]).rsplit(".", 1)[-1]
        named = {
            target
            for target, _ in graph.references_at.get((source, file_id, line), ())
            if (sym := project.syms.get(target)) is not None
            and sym.kind in CALLABLE
            and sym.name == last
        }
        return tuple(named) if len(named) == 1 else ()
    if handler and handler[0] == "f":
        begin, first, last_line = int(handler[1]), int(handler[4]), int(handler[5])
        begin_col = col + begin - start if first == line else 0
        called = {
            target
            for at in range(first, last_line + 1)
            for target, target_col in graph.calls_at.get((source, file_id, at), ())
            if (at > first or target_col >= begin_col)
            and (sym := project.syms.get(target)) is not None
            and sym.kind in CALLABLE
        }
        return tuple(sorted(called)) if len(called) <= MAX_LITERAL_CALLS else ()
    return ()


def _pairing(graph: Stored, send: Site, listen: Site) -> float:
    """The confidence that ``listen`` hears ``send`` (0: it does not)."""
    if send.emitter is not None and listen.emitter is not None:
        return SAME_EMITTER if _same(graph, send.emitter, listen.emitter) else 0
    return SAME_NAME if _DISTINCT.search(send.event) else 0


def _same(graph: Stored, one: tuple[str, int], other: tuple[str, int]) -> bool:
    if one == other:
        return True
    first, second = _class_of(graph, one), _class_of(graph, other)
    if first is None or second is None:
        return False
    return first in ancestors(graph.bases, second) or second in ancestors(graph.bases, first)


def _class_of(graph: Stored, emitter: tuple[str, int]) -> int | None:
    """The class of a ``this``, or the one class a variable is made from on its line."""
    kind, sym_id = emitter
    if kind == "class":
        return sym_id
    sym = graph.project.syms[sym_id]
    owner = sym.parent_id if sym.parent_id is not None else -1
    made = graph.instantiated_at.get((owner, sym.file_id, sym.start_line), [])
    return made[0] if len(set(made)) == 1 else None
