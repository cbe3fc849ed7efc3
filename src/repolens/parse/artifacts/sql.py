"""SQL schemas: tables and views, their columns, and foreign keys, from the same
tree-sitter SQL grammar that parses ``.sql`` code.

A foreign key is found in its three spellings: inline on a column (``customer_id INT
REFERENCES customers(id)``), as a table constraint (``FOREIGN KEY (a) REFERENCES t (b)``)
and added later (``ALTER TABLE t ADD CONSTRAINT … FOREIGN KEY … REFERENCES u``). It is a
``foreign_key`` symbol of the table that holds it, named ``orders.customer_id``, its
``detail`` the target (``customers(id)``). Schemas are dropped from names, as the code
graph does (``shop.orders`` is ``orders``).
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.artifacts.model import ArtifactSymbol, ParsedArtifact
from repolens.parse.languages.common import unquote
from repolens.parse.registry import failure, get_grammar, get_parser

_TABLES = {"create_table": "table", "create_view": "view", "create_materialized_view": "view"}


def parse_sql(text: str) -> ParsedArtifact:
    out = ParsedArtifact("sql")
    grammar = get_grammar("sql")
    if grammar is None:
        out.error = failure("sql") or "the SQL grammar cannot load"
        return out
    source = text.encode("utf-8")
    tree = get_parser(grammar).parse(source)
    tables: dict[str, int] = {}
    for statement in tree.root_node.named_children:
        for node in statement.named_children if statement.type == "statement" else [statement]:
            if node.type in _TABLES:
                _table(out, node, source, tables)
            elif node.type == "alter_table":
                _alter(out, node, source, tables)
    if tree.root_node.has_error and not out.symbols:
        out.error = "not valid SQL: nothing could be read"
    return out


def _table(out: ParsedArtifact, node: Node, source: bytes, tables: dict[str, int]) -> None:
    name = _reference_name(node, source)
    if not name:
        return
    first, last = _lines(node)
    table = out.add(ArtifactSymbol(_TABLES[node.type], name, name, first, last))
    tables[name.lower()] = table
    columns = next((c for c in node.named_children if c.type == "column_definitions"), None)
    if columns is None:
        return
    for child in columns.named_children:
        if child.type == "column_definition":
            _column(out, child, source, table)
        elif child.type == "constraints":
            for constraint in _descendants(child, "constraint"):
                _foreign_key(out, constraint, source, table)


def _column(out: ParsedArtifact, node: Node, source: bytes, table: int) -> None:
    ident = next((c for c in node.named_children if c.type == "identifier"), None)
    if ident is None:
        return
    column = unquote(_text(ident, source))
    owner = out.symbols[table].name
    first, last = _lines(node)
    kind_text = " ".join(_text(node, source)[ident.end_byte - node.start_byte :].split())
    out.add(ArtifactSymbol("column", column, f"{owner}.{column}", first, last, table, kind_text))
    target = next((c for c in node.named_children if c.type == "object_reference"), None)
    if target is not None:
        to_columns = _identifiers_after(node, target, source)
        _add_key(out, table, [column], _reference_name_of(target, source), to_columns, node)


def _foreign_key(out: ParsedArtifact, node: Node, source: bytes, table: int) -> None:
    target = next((c for c in node.named_children if c.type == "object_reference"), None)
    if target is None:
        return
    ordered = next((c for c in node.named_children if c.type == "ordered_columns"), None)
    columns = (
        [unquote(_text(i, source)) for i in _descendants(ordered, "identifier")] if ordered else []
    )
    _add_key(out, table, columns, _reference_name_of(target, source),
             _identifiers_after(node, target, source), node)  # fmt: skip


def _alter(out: ParsedArtifact, node: Node, source: bytes, tables: dict[str, int]) -> None:
    name = _reference_name(node, source)
    for constraint in _descendants(node, "constraint"):
        table = tables.get(name.lower())
        if table is None:  # a table made elsewhere: the key still belongs to it
            first, last = _lines(node)
            table = out.add(ArtifactSymbol("table", name, name, first, last, None, "altered only"))
            tables[name.lower()] = table
        _foreign_key(out, constraint, source, table)


def _add_key(
    out: ParsedArtifact, table: int, columns: list[str], target: str, to: list[str], node: Node
) -> None:
    owner = out.symbols[table].name
    shown = ",".join(columns) or target
    first, last = _lines(node)
    detail = f"{target}({', '.join(to)})" if to else target
    out.add(ArtifactSymbol("foreign_key", shown, f"{owner}.{shown}", first, last, table, detail))


def _reference_name(node: Node, source: bytes) -> str:
    target = next((c for c in node.named_children if c.type == "object_reference"), None)
    return _reference_name_of(target, source) if target is not None else ""


def _reference_name_of(node: Node, source: bytes) -> str:
    """The last segment of ``schema.table``, unquoted."""
    name = node.child_by_field_name("name")
    return unquote(_text(name if name is not None else node, source)).rpartition(".")[2]


def _identifiers_after(node: Node, target: Node, source: bytes) -> list[str]:
    """The columns named after ``REFERENCES t``: ``(id)``."""
    return [unquote(_text(c, source)) for c in node.named_children
            if c.type == "identifier" and c.start_byte > target.end_byte]  # fmt: skip


def _descendants(node: Node, kind: str) -> list[Node]:
    found, stack = [], [node]
    while stack:
        current = stack.pop()
        if current.type == kind:
            found.append(current)
            continue
        stack.extend(reversed(current.named_children))
    return found


def _text(node: Node, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _lines(node: Node) -> tuple[int, int]:
    return node.start_point[0] + 1, node.end_point[0] + 1
