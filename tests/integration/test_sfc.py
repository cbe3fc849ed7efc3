"""Vue and Svelte components: their scripts' symbols, calls and imports in the graph.

``tests/fixtures/vue`` and ``tests/fixtures/svelte`` are small real projects (components,
TypeScript modules they import, a TypeScript file importing the components) indexed with
the real grammars into real SQLite; ``expected.toml`` lists edges that must and must not
exist, in the format of ``tests/fixtures/graph``.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from test_graph_accuracy import check_expected_edges, index_tree, store_tree
from test_graph_accuracy_incremental import snapshot

from conftest import IndexTree
from repolens.parse import grammar_status, parse_source
from repolens.parse.chunk import chunk_file
from repolens.query.graph import callees, callers, find_symbol
from repolens.resolve import resolve

FIXTURES = Path(__file__).parent.parent / "fixtures"
NEEDS = {"vue": ("vue", "typescript"), "svelte": ("svelte", "typescript")}


def _need(fixture: str) -> None:
    status = grammar_status()
    broken = {lang: status.get(lang, "no spec") for lang in NEEDS[fixture]}
    broken = {lang: why for lang, why in broken.items() if why != "ok"}
    if broken:
        pytest.skip(f"grammars not loadable here: {broken}")


@pytest.mark.parametrize("fixture", sorted(NEEDS))
def test_fixture_edges(fixture: str, tmp_path: Path) -> None:
    _need(fixture)
    check_expected_edges(FIXTURES / fixture, tmp_path / "index.db")


def _symbols(conn: sqlite3.Connection, path: str) -> list[tuple[str, str, int, int, str]]:
    """(kind, qualified name, start, end, parent's qualified name) of a file's symbols."""
    rows = conn.execute(
        "SELECT s.kind, s.qualified_name, s.start_line, s.end_line, p.qualified_name"
        " FROM symbols s JOIN files f ON f.id = s.file_id JOIN symbols p ON p.id = s.parent_id"
        " WHERE f.path = ? ORDER BY s.start_line, s.qualified_name",
        (path,),
    )
    return [tuple(row) for row in rows]


def test_vue_symbols_keep_their_lines_in_the_component(tmp_path: Path) -> None:
    _need("vue")
    conn, _ = index_tree(FIXTURES / "vue", tmp_path / "index.db")
    path = "src/components/OrderList.vue"
    assert _symbols(conn, path) == [
        ("component", "OrderList", 1, 43, path),
        ("constant", "PAGE_SIZE", 10, 10, path),  # plain <script>: module level
        ("function", "pageCount", 12, 14, path),
        ("variable", "OrderList.orders", 22, 22, "OrderList"),  # <script setup>
        ("function", "OrderList.total", 25, 27, "OrderList"),
        ("function", "OrderList.sum", 29, 31, "OrderList"),
        ("function", "OrderList.reload", 33, 36, "OrderList"),
    ]
    doc = "SELECT docstring FROM symbols WHERE qualified_name = 'OrderList.total'"
    assert conn.execute(doc).fetchone()[0] == "The sum of all orders, formatted."


def test_svelte_symbols_keep_their_lines_in_the_component(tmp_path: Path) -> None:
    _need("svelte")
    conn, _ = index_tree(FIXTURES / "svelte", tmp_path / "index.db")
    path = "src/lib/Cart.svelte"
    assert _symbols(conn, path) == [
        ("component", "Cart", 1, 30, path),
        ("function", "emptyCart", 4, 6, path),  # <script context="module">: module level
        ("variable", "Cart.items", 13, 13, "Cart"),  # a prop of the instance script
        ("function", "Cart.label", 15, 17, "Cart"),
        ("function", "Cart.total", 19, 21, "Cart"),
    ]


def test_callers_and_callees_cross_component_boundaries(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """The real pipeline (discover, parse, store, resolve) and the graph queries."""
    _need("vue")
    root = tmp_path / "vue"
    shutil.copytree(FIXTURES / "vue", root)
    conn = index_tree(root)
    format_cents = find_symbol(conn, "formatCents")
    hits = callers(conn, format_cents)
    assert {(h.symbol.qualified_name, h.file, h.line) for h in hits} == {
        ("OrderList.total", "src/components/OrderList.vue", 26),
        ("label", "src/components/OrderRow.vue", 13),
    }
    hits = callees(conn, find_symbol(conn, "OrderList.reload"))
    assert [(h.symbol.qualified_name, h.edge_kind, h.line) for h in hits] == [
        ("fetchOrders", "calls", 34),
        ("pageCount", "calls", 35),
    ]
    status = "SELECT parse_status FROM files WHERE path LIKE '%.vue'"
    assert {row[0] for row in conn.execute(status)} == {"ok"}


@pytest.mark.parametrize(
    ("fixture", "path", "old", "new"),
    [
        ("vue", "src/api/orders.ts", "function formatCents(", "function formatMoney("),
        ("svelte", "src/lib/Cart.svelte", "function emptyCart(", "function noItems("),
    ],
)
def test_incremental_equals_full(
    fixture: str, path: str, old: str, new: str, tmp_path: Path
) -> None:
    """Renaming what components use (or what TypeScript uses of a component) changes the
    edges of the files that use it as a full index of the changed tree would."""
    _need(fixture)
    root = tmp_path / "tree"
    shutil.copytree(FIXTURES / fixture, root)
    (root / "expected.toml").unlink()
    conn, _ = index_tree(root, tmp_path / "incremental.db")
    before = snapshot(conn)
    text = (root / path).read_text(encoding="utf-8")
    (root / path).write_text(text.replace(old, new), encoding="utf-8")
    resolve(conn, root, store_tree(conn, root, [path]))
    after = snapshot(conn)
    fresh, _ = index_tree(root, tmp_path / "full.db")
    assert after["edges"] != before["edges"]
    assert after == snapshot(fresh)


def test_script_blocks_by_language_and_kind() -> None:
    """Which ``<script>`` blocks are read, and as what; of the markup, only the handler
    an event attribute names (``@click="go()"``), not an interpolation's ``go()``."""
    _need("vue")
    source = (
        '<template><a @click="go()">{{ go() }}</a></template>\n'
        '<script type="application/ld+json">{"a": run()}</script>\n'
        '<script lang="coffee">run = -> go()</script>\n'
        '<script setup lang="tsx">\n'
        "const view = () => <Row />\n"
        "</script>\n"
    )
    parsed = parse_source("src/Page.vue", "vue", source.encode())
    assert [(s.kind, s.qualified_name, s.start_line) for s in parsed.symbols] == [
        ("component", "Page", 1),
        ("function", "Page.view", 5),
    ]
    assert [(r.name, r.line, r.source) for r in parsed.references] == [("go", 1, 0), ("Row", 5, 1)]
    assert not parsed.error and not parsed.has_errors


def test_a_long_component_is_chunked_at_its_script_functions() -> None:
    """Module-level definitions lie inside the component's lines: each still starts a
    search chunk that names it, like the component's own functions."""
    _need("vue")
    body = "\n".join(f"  const v{i} = {i}" for i in range(30))
    markup = "\n".join(f"  <p>{{{{ x{i} }}}}</p>" for i in range(40))
    text = (
        f'<template>\n{markup}\n</template>\n\n<script lang="ts">\n'  # lines 1-44
        f"export function helper(): number {{\n{body}\n  return 1\n}}\n</script>\n\n"  # 45-79
        f'<script setup lang="ts">\nfunction alpha(): number {{\n{body}\n  return helper()\n}}\n'
        "</script>\n"
    )
    parsed = parse_source("src/Big.vue", "vue", text.encode())
    chunks = chunk_file(text, "vue", parsed)
    starts = {chunk.names[0]: chunk.start_line for chunk in chunks if chunk.kind == "function"}
    assert starts == {"helper": 45, "Big.alpha": 81}
    covered = sorted({n for c in chunks for n in range(c.start_line, c.end_line + 1)})
    assert covered == list(range(1, parsed.line_count + 1))


def test_component_tags_are_instantiations_html_tags_are_not(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """Vue resolves `<order-row>` to the component `OrderRow` as it does `<OrderRow/>`;
    in Svelte a kebab-case tag is a custom HTML element. Lowercase tags are HTML."""
    _need("vue")
    _need("svelte")
    row = "<template><li>row</li></template>\n<script setup>\nconst x = 1\n</script>\n"
    (tmp_path / "OrderRow.vue").write_text(row)
    (tmp_path / "button.vue").write_text(row)  # named like an HTML tag: never matched
    (tmp_path / "OrderList.vue").write_text(
        "<template>\n  <ul>\n    <OrderRow />\n    <order-row></order-row>\n"
        "    <button>native</button>\n  </ul>\n</template>\n"
        "<script setup>\nimport OrderRow from './OrderRow.vue'\n"
        "import button from './button.vue'\n</script>\n"
    )
    (tmp_path / "Badge.svelte").write_text("<span>badge</span>\n")
    (tmp_path / "Cart.svelte").write_text(
        "<script>\n  import Badge from './Badge.svelte';\n</script>\n"
        "<Badge />\n<my-badge></my-badge>\n<button>native</button>\n"
    )
    conn = index_tree(tmp_path)
    users = callers(conn, find_symbol(conn, "OrderRow"))
    assert sorted((h.symbol.qualified_name, h.edge_kind, h.line) for h in users) == [
        ("OrderList", "instantiates", 3),
        ("OrderList", "instantiates", 4),
    ]
    assert callers(conn, find_symbol(conn, "button")) == []
    used = callees(conn, find_symbol(conn, "Cart"))
    assert [(h.symbol.qualified_name, h.edge_kind, h.line) for h in used] == [
        ("Badge", "instantiates", 4)
    ]
    refs = "SELECT r.name FROM refs r JOIN files f ON f.id = r.file_id WHERE f.path = ?"
    assert {row[0] for row in conn.execute(refs, ("Cart.svelte",))} == {"Badge"}
