"""Qt signals declared on a class: PyQt's ``pyqtSignal`` and PySide's ``Signal``.

``progress = Signal(int)`` in ``class Worker(QObject)`` declares a signal each instance
carries; ``self.worker.progress.connect(self.show_progress)`` connects a slot, and
``self.progress.emit(50)`` in ``Worker`` runs every slot connected to it. Both name the
signal by attribute, so they are paired through the declaring class: ``self.progress``
inside a class is that class's (or an ancestor's) signal; ``x.progress`` elsewhere is
the signal only where one project class declares a signal by that name and Qt's own
classes declare none (``QT_SIGNALS``). The slot is the
project function passed first. C++'s ``connect(sender, &Counter::valueChanged, ...)`` is
not paired: the grammar cannot read a class with ``signals:``/``Q_OBJECT`` sections.
"""

from __future__ import annotations

from collections import defaultdict

from repolens.resolve.edges import EdgeRow
from repolens.resolve.project import CLASS_KINDS
from repolens.resolve.synthesis.common import (
    CALLABLE,
    Stored,
    ancestors,
    enclosing_class,
    kind_of,
    signal_edges,
)

CONFIDENCE = 0.8
MAX_SLOTS = 16
QT_SIGNALS = frozenset(
    [
        "aboutToHide", "aboutToShow", "accepted", "activated", "clicked", "collapsed",
        "currentChanged", "currentIndexChanged", "currentRowChanged", "currentTextChanged",
        "customContextMenuRequested", "dataChanged", "destroyed", "done", "doubleClicked",
        "editingFinished", "entered", "error", "errorOccurred", "expanded", "finished",
        "highlighted", "hovered", "itemChanged", "itemClicked", "itemDoubleClicked",
        "itemSelectionChanged", "layoutChanged", "linkActivated", "linkHovered", "modelReset",
        "pressed", "readyRead", "rejected", "released", "returnPressed", "rowsInserted",
        "rowsRemoved", "sectionClicked", "selectionChanged", "sliderMoved", "started",
        "stateChanged", "textChanged", "textEdited", "timeout", "toggled", "triggered",
        "valueChanged", "visibilityChanged", "windowTitleChanged",
    ]
)  # fmt: skip
"""Signals Qt's own classes declare: ``self._animation.finished`` is a
``QPropertyAnimation``'s, whatever project class declares a ``finished`` of its own, so
these names pair only through ``self``."""


def edges(graph: Stored) -> list[EdgeRow]:
    project = graph.project
    made_at = {  # (class, line) where a class body calls Signal(...)
        (int(source), int(line))
        for source, line in graph.conn.execute(
            "SELECT source_id, line FROM refs WHERE kind = 'calls'"
            " AND name IN ('Signal', 'pyqtSignal') AND source_id IS NOT NULL"
        )
        if kind_of(project, int(source)) in CLASS_KINDS
    }
    if not made_at:
        return []
    declared: defaultdict[str, set[int]] = defaultdict(set)  # attribute name -> signals
    for sym in project.syms.values():
        if sym.kind in ("field", "variable") and (sym.parent_id, sym.start_line) in made_at:
            declared[sym.name].add(sym.id)
    rows = graph.conn.execute(
        "SELECT name, receiver, source_id, file_id, line, col FROM refs WHERE kind = 'calls'"
        " AND name IN ('emit', 'connect') AND receiver IS NOT NULL AND source_id IS NOT NULL"
        " ORDER BY file_id, line, col"
    ).fetchall()
    slots: defaultdict[int, dict[int, tuple[int, int]]] = defaultdict(dict)
    emits: list[tuple[int, int, int, int, int]] = []  # signal, source, file, line, col
    for name, receiver, source, file_id, line, col in rows:
        signal = _signal(graph, declared, str(receiver), int(source))
        if signal is None:
            continue
        if name == "emit":
            emits.append((signal, int(source), int(file_id), int(line), int(col)))
            continue
        first = int(col) + len("connect") + 1
        passed = {
            target
            for target, at in graph.references_at.get((source, file_id, line), ())
            if at == first and kind_of(project, target) in CALLABLE
        }
        if len(passed) == 1:
            slots[signal].setdefault(passed.pop(), (int(file_id), int(line)))
    return signal_edges(project, emits, slots, cap=MAX_SLOTS, confidence=CONFIDENCE)


def _signal(graph: Stored, declared: dict[str, set[int]], receiver: str, source: int) -> int | None:
    """The declared signal ``receiver`` names: ``self.progress`` in its class's lineage,
    ``x.progress`` elsewhere when one class alone declares ``progress``."""
    head, _, attr = receiver.rpartition(".")
    candidates = declared.get(attr)
    if not candidates:
        return None
    if head in ("self", "this"):
        cls = enclosing_class(graph.project, source)
        lineage = ancestors(graph.bases, cls) if cls is not None else set()
        mine = {s for s in candidates if graph.project.syms[s].parent_id in lineage}
        return mine.pop() if len(mine) == 1 else None
    if attr in QT_SIGNALS:
        return None
    return next(iter(candidates)) if len(candidates) == 1 else None
