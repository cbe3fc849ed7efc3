"""Dynamic-dispatch synthesis on ``tests/fixtures/synthesis``: each channel's must-have
and must-not-have edges, how each says it was wired, paths across bridged hops, and an
incremental index equal to a full one after editing a wiring site.

The fixture holds one small project per language family: Python signals (blinker),
callbacks, an ABC; Go's implicit interfaces; Java, C#, TypeScript interfaces; a Rust
trait object; a C++ virtual.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import IndexTree, assert_channels, index_copy, replace_in, synthesized_edges
from repolens.present.graph import UNINDEXED_READS, caller_gaps
from repolens.query.flow import flow
from repolens.query.graph import call_path, callers, find_symbol

FIXTURE = Path(__file__).parents[1] / "fixtures" / "synthesis"


MUST_HAVE = {
    # interface and virtual dispatch, one per language family
    ("checkout", "CardPayment.charge", "interface"),  # Python ABC, @abstractmethod
    ("Lookup", "MemStore.Get", "interface"),  # Go: MemStore has Store's every method
    ("Report.total", "Circle.area", "interface"),  # Java
    ("Report.total", "Square.area", "interface"),
    ("Report.Total", "Circle.Area", "interface"),  # C#
    ("persist", "SqlRepo.save", "interface"),  # TypeScript
    ("total", "Circle.area", "interface"),  # Rust `&dyn Shape`, C++ pure virtual (`= 0`)
    # callbacks passed first, positionally, by keyword, through functools.partial
    ("retry", "fetch_rates", "callback"),
    ("retry", "load_cart", "callback"),
    ("withRetry", "flush", "callback"),
    # signals through one module-level object: decorator and connect(f) wiring
    ("checkout", "update_stock", "signal"),
    ("cancel", "refund", "signal"),
    ("cancel", "audit", "signal"),  # Django's @receiver(signal)
    ("checkout", "send_receipt", "signal"),  # shop.signals.order_placed.connect(...)
    # dispatch tables called by key
    ("run_command", "add_item", "table"),
    ("run_command", "drop_item", "table"),
    ("act", "onSave", "table"),
}
MUST_NOT_HAVE = {
    ("Lookup", "ReadOnly.Get"),  # ReadOnly lacks Put: not a Store
    ("apply", "fetch_rates"),  # passed first, but apply calls its second parameter
    ("checkout", "refund"),  # refund is connected to order_cancelled, not order_placed
    ("cancel", "update_stock"),
    ("cancel", "send_receipt"),
    ("checkout", "audit"),
}


@pytest.fixture(scope="module")
def synthesis(
    tmp_path_factory: pytest.TempPathFactory, index_tree: IndexTree
) -> Iterator[sqlite3.Connection]:
    conn = index_copy(tmp_path_factory, index_tree, FIXTURE)
    yield conn
    conn.close()


def test_each_channel_bridges_its_calls(synthesis: sqlite3.Connection) -> None:
    assert_channels(synthesis, MUST_HAVE, MUST_NOT_HAVE)


def test_each_edge_names_its_channel_and_wiring_site(synthesis: sqlite3.Connection) -> None:
    found = synthesized_edges(synthesis)
    signal = found[("checkout", "update_stock")]
    assert signal["via"] == "order_placed"
    assert signal["site"] == "py/shop/handlers.py:11"  # the @order_placed.connect line
    assert (signal["path"], signal["line"]) == ("py/shop/core.py", 51)  # the send
    callback = found[("retry", "load_cart")]
    assert callback["via"] == "fn"
    assert callback["site"] == "py/shop/core.py:48"  # retry(fn=load_cart)
    assert (callback["path"], callback["line"]) == ("py/shop/core.py", 29)  # `if fn():`
    go = found[("Lookup", "MemStore.Get")]
    assert go["via"] == "Store.Get" and go["site"] == "go/store.go:10"
    assert all(0 < float(str(meta["confidence"])) < 0.9 for meta in found.values())


@pytest.mark.parametrize(
    ("src", "dst"),
    [
        ("checkout", "update_stock"),  # a signal sent, a decorated receiver
        ("shop.core.cancel", "refund"),  # a signal connected inside a function
        ("persist", "flush"),  # resolved call to withRetry, then the callback it calls
        ("Lookup", "MemStore.Get"),
        ("Report.Total", "Circle.Area"),
        ("act", "onLoad"),  # a table of functions called by key
    ],
)
def test_path_crosses_each_bridged_hop(synthesis: sqlite3.Connection, src: str, dst: str) -> None:
    chain = call_path(synthesis, find_symbol(synthesis, src), find_symbol(synthesis, dst))
    assert chain is not None
    assert chain[-1].symbol.qualified_name.endswith(dst.rsplit(".", 2)[-1])
    assert chain[-1].provenance == "synthesized"


def test_flow_follows_a_resolved_call_then_the_callback_it_runs(
    synthesis: sqlite3.Connection,
) -> None:
    result = flow(synthesis, find_symbol(synthesis, "persist"), depth=3)
    reached = {node.symbol.qualified_name: node for node in result.nodes}
    assert reached["withRetry"].provenance != "synthesized"  # persist -> withRetry: resolved
    assert reached["flush"].provenance == "synthesized"  # withRetry runs the callback
    assert reached["SqlRepo.save"].provenance == "synthesized"  # repo.save() on a Repo


def test_a_signal_object_lists_who_uses_it(synthesis: sqlite3.Connection) -> None:
    signal = find_symbol(synthesis, "order_placed")
    users = {hit.symbol.qualified_name for hit in callers(synthesis, signal)}
    assert {"checkout", "update_stock"} <= users  # .send(...) and @order_placed.connect
    settings = find_symbol(synthesis, "SETTINGS")
    assert "checkout" in {hit.symbol.qualified_name for hit in callers(synthesis, settings)}
    assert UNINDEXED_READS in caller_gaps(signal, known=2, maybe=0)


def test_incremental_equals_full_after_editing_wiring_sites(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    root = tmp_path / "edited"
    shutil.copytree(FIXTURE, root)
    index_tree(root).close()
    replace_in(
        root, "py/shop/handlers.py", "    order_cancelled.connect(refund)", "    return None"
    )
    replace_in(
        root, "py/shop/handlers.py", "shop.signals.order_placed.connect", "order_cancelled.connect"
    )
    replace_in(
        root,
        "go/store.go",
        "func (r ReadOnly) Get",
        "func (r ReadOnly) Put(key string, value string) {}\n\nfunc (r ReadOnly) Get",
    )
    replace_in(root, "py/shop/core.py", "    retry(fn=load_cart)\n", "")
    replace_in(root, "py/shop/commands.py", '    "drop": drop_item,\n', "")
    incremental = index_tree(root)
    fresh = tmp_path / "fresh"
    shutil.copytree(root, fresh, ignore=shutil.ignore_patterns(".repolens"))
    full = index_tree(fresh)
    try:
        edges = synthesized_edges(incremental)
        assert edges == synthesized_edges(full)
        assert ("cancel", "refund") not in edges  # its connect was removed
        assert ("checkout", "send_receipt") not in edges  # moved to the other signal
        assert ("cancel", "send_receipt") in edges
        assert ("Lookup", "ReadOnly.Get") in edges  # ReadOnly now has Put too
        assert ("retry", "load_cart") not in edges  # no longer passed
        assert ("run_command", "drop_item") not in edges  # no longer in the table
        assert ("run_command", "add_item") in edges
    finally:
        incremental.close()
        full.close()
