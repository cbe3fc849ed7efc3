"""Event, Qt-signal, stored-callback and method-family synthesis on
``tests/fixtures/events``: each channel's must-have and must-not-have edges, how each
says it was wired, paths across each bridged hop, labels in the answers, and an
incremental index equal to a full one after editing wiring sites.

The fixture: a Node ``EventEmitter`` subclass and its listeners, DOM custom events, a
TypeScript and a Python pub/sub bus, PyPubSub, PySide signals declared on classes,
registrars storing callbacks that dispatchers call later (Python, TypeScript, Java, Go,
C#, Dart, Kotlin, Swift), and a ``cmd``-style shell calling ``getattr(self, "do_" + name)``.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import IndexTree, assert_channels, index_copy, replace_in, synthesized_edges
from repolens.cli.routes import flow_node_row
from repolens.present.symbols import edge_line, wiring_label
from repolens.query.flow import flow
from repolens.query.graph import call_path, callees, callers, find_symbol
from repolens.query.impact import impact

FIXTURE = Path(__file__).parents[1] / "fixtures" / "events"


MUST_HAVE = {
    # events by literal name through one emitter: `this.emit` in the class, `queue.on`
    ("JobQueue.push", "logJob", "event"),
    ("JobQueue.push", "countJob", "event"),  # a function literal's call
    ("JobQueue.drain", "onReady", "event"),  # "ready" on queue, sent by JobQueue
    ("Poller.tick", "startPolling", "event"),  # "ready" on poller, sent by Poller
    ("createUser", "welcomeUser", "event"),  # TypeScript bus.subscribe/publish
    ("pay", "on_paid", "event"),  # Python bus
    ("pay", "Mailer.send_invoice", "event"),  # a bound method as listener
    ("ship", "notify_customer", "event"),  # PyPubSub's subscribe(listener, "topic")
    ("addToCart", "renderCart", "event"),  # DOM CustomEvent, distinctive name
    ("addToCart", "updateBadge", "event"),
    # Qt signals declared on a class
    ("Worker.run", "Window.show_progress", "signal"),
    ("Worker.run", "Window.done", "signal"),
    ("Uploader.send", "Uploader.log", "signal"),
    # callbacks stored by a registrar, called by a dispatcher
    ("Button.click", "save", "stored"),  # self._handlers.append(handler)
    ("Button.click", "View.refresh", "stored"),  # registered as self.refresh
    ("Button.click", "close_all", "stored"),  # self.on_done = cb, by keyword
    ("Store.commit", "render", "stored"),  # this.listeners.push / this.onChange = cb
    ("Store.commit", "View.paint", "stored"),  # registered as this.paint.bind(this)
    ("Bus.fire", "App.save", "stored"),  # Java listeners.add, forEach(l -> l.run())
    ("Server.Start", "logStart", "stored"),  # Go append(s.hooks, h), range s.hooks
    ("Bus.Fire", "App.Save", "stored"),  # C# handlers.Add, ForEach(h => h())
    ("Bus.fire", "refresh", "stored"),  # Dart _listeners.add, forEach((l) => l())
    ("Emitter.fire", "refresh", "stored"),  # Kotlin listeners.add, e.listen(::refresh)
    ("Hub.fire", "refresh", "stored"),  # Swift handlers.append, subscribe(_ handler:)
    # method families named at run time
    ("Shell.run", "Shell.do_add", "family"),
    ("Shell.run", "OrderShell.do_drop", "family"),  # defined in a subclass
    ("Shell.complete", "OrderShell.complete_drop", "family"),  # f"complete_{name}"
    ("Build.run_phase", "Build.step_compile", "family"),
    ("Build.run_test", "Build.step_unit_test", "family"),  # "step_" + kind + "_test"
}
MUST_NOT_HAVE = {
    ("JobQueue.fail", "retryJob"),  # "error" on `process`: another emitter, a common name
    ("JobQueue.drain", "startPolling"),  # "ready" on poller, not on a JobQueue
    ("Poller.tick", "onReady"),
    ("clickAll", "updateBadge"),  # "click": a common name, emitters unknown
    ("Worker.run", "Uploader.log"),  # another class's signal
    ("Worker.run", "Window.poll"),  # a QTimer's own timeout, not Worker.timeout
    ("Slider.slide", "close_all"),  # on_slide stores nothing
    ("Button.click", "broken"),  # registered where the test expects it to be refused
    ("Shell.help", "Shell.help_add"),  # the lookup is read (.__doc__), not called
    ("Shell.run", "Other.do_nothing"),  # not in the shell's class lineage
    ("Shell.run", "Shell.helper"),
    ("Build.run_phase", "Build.step_unit_test"),  # the longer family's: "step_*_test"
}


@pytest.fixture(scope="module")
def events(
    tmp_path_factory: pytest.TempPathFactory, index_tree: IndexTree
) -> Iterator[sqlite3.Connection]:
    conn = index_copy(tmp_path_factory, index_tree, FIXTURE)
    yield conn
    conn.close()


def test_each_channel_bridges_its_calls(events: sqlite3.Connection) -> None:
    assert_channels(events, MUST_HAVE, MUST_NOT_HAVE)


def test_each_edge_names_its_channel_and_wiring_site(events: sqlite3.Connection) -> None:
    found = synthesized_edges(events)
    event = found[("JobQueue.push", "logJob")]
    assert (event["via"], event["site"]) == ("job:added", "js/queue.js:45")  # queue.on(...)
    assert (event["path"], event["line"]) == ("js/queue.js", 6)  # this.emit(...)
    assert found[("JobQueue.push", "logJob")]["confidence"] == 0.8  # one emitter
    assert found[("addToCart", "renderCart")]["confidence"] == 0.65  # by name alone
    stored = found[("Button.click", "close_all")]
    assert (stored["via"], stored["site"]) == ("Button.on_done", "py/ui.py:77")
    assert stored["line"] == 16  # self.on_done()
    family = found[("Shell.run", "OrderShell.do_drop")]
    assert (family["via"], family["line"]) == ("do_*", 34)
    qt = found[("Worker.run", "Window.show_progress")]
    assert (qt["via"], qt["site"], qt["line"]) == ("Worker.progress", "py/worker.py:18", 10)
    assert all(0 < float(str(meta["confidence"])) < 0.9 for meta in found.values())


def test_answers_label_the_wiring(events: sqlite3.Connection) -> None:
    heard = callers(events, find_symbol(events, "logJob"))
    lines = [edge_line(hit) for hit in heard if hit.symbol.qualified_name == "JobQueue.push"]
    assert lines and "via `job:added` (event), registered at js/queue.js:45" in lines[0]
    runs = callees(events, find_symbol(events, "Button.click"))
    labels = {hit.symbol.qualified_name: edge_line(hit) for hit in runs}
    assert "via `Button._handlers` (stored), registered at py/ui.py:76" in labels["save"]


def test_impact_follows_and_labels_a_stored_callback(events: sqlite3.Connection) -> None:
    result = impact(events, find_symbol(events, "py/ui.py:save"), depth=1)
    hits = {hit.symbol.qualified_name: hit for hit in result.hits}
    assert "via `Button._handlers` (stored)" in wiring_label(hits["Button.click"].metadata)


def test_flow_labels_the_wiring_of_each_bridged_hop(events: sqlite3.Connection) -> None:
    result = flow(events, find_symbol(events, "Shell.run"), depth=1)
    rows = {node.symbol.qualified_name: flow_node_row(node) for node in result.nodes}
    assert "via `do_*` (family), named at py/ui.py:34" in rows["OrderShell.do_drop"]
    result = flow(events, find_symbol(events, "Button.click"), depth=1)
    rows = {node.symbol.qualified_name: flow_node_row(node) for node in result.nodes}
    assert "via `Button._handlers` (stored), registered at py/ui.py:76" in rows["save"]


@pytest.mark.parametrize(
    ("src", "dst"),
    [
        ("JobQueue.push", "logJob"),  # an emitted event
        ("addToCart", "renderCart"),  # a DOM event
        ("pay", "on_paid"),  # a pub/sub topic
        ("Worker.run", "Window.show_progress"),  # a Qt signal
        ("Button.click", "py/ui.py:save"),  # a stored callback
        ("Server.Start", "logStart"),  # Go
        ("Shell.run", "OrderShell.do_drop"),  # a method family
    ],
)
def test_path_crosses_each_bridged_hop(events: sqlite3.Connection, src: str, dst: str) -> None:
    chain = call_path(events, find_symbol(events, src), find_symbol(events, dst))
    assert chain is not None
    assert chain[-1].symbol.qualified_name == dst.rsplit(":", 1)[-1]
    assert chain[-1].provenance == "synthesized"


def test_incremental_equals_full_after_editing_wiring_sites(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    root = tmp_path / "edited"
    shutil.copytree(FIXTURE, root)
    index_tree(root).close()
    replace_in(
        root, "js/queue.js", 'queue.on("job:added", logJob);', 'queue.on("job:done", logJob);'
    )
    replace_in(
        root, "js/queue.js", 'poller.on("ready", startPolling);', 'queue.on("ready", startPolling);'
    )
    replace_in(root, "py/ui.py", "    b.on_click(save)\n", "")
    replace_in(root, "py/ui.py", "    def on_slide(self, handler):\n        return handler",
          "    def on_slide(self, handler):\n        self._handlers.append(handler)")  # fmt: skip
    replace_in(root, "py/ui.py", "class Other:", "class Other(Shell):")
    replace_in(root, "py/worker.py", "        self.worker.completed.connect(self.done)\n", "")
    incremental = index_tree(root)
    fresh = tmp_path / "fresh"
    shutil.copytree(root, fresh, ignore=shutil.ignore_patterns(".repolens"))
    full = index_tree(fresh)
    try:
        edges = synthesized_edges(incremental)
        assert edges == synthesized_edges(full)
        assert ("JobQueue.push", "logJob") not in edges  # listens to another event now
        assert ("JobQueue.drain", "startPolling") in edges  # moved to the queue
        assert ("Poller.tick", "startPolling") not in edges
        assert ("Button.click", "save") not in edges  # no longer registered
        assert ("Slider.slide", "close_all") in edges  # on_slide stores it now
        assert ("Shell.run", "Other.do_nothing") in edges  # Other is a Shell now
        assert ("Worker.run", "Window.done") not in edges  # its connect was removed
        assert ("Worker.run", "Window.show_progress") in edges
    finally:
        incremental.close()
        full.close()
