"""Code of one language inside a file of another: parsing it and merging its records.

A host spec marks such code with ``@embed`` (a Vue ``<script>`` block) and its
``embedded`` hook names the language (see ``repolens.parse.spec``). The block is parsed
with the other grammar over the host's own source bytes, restricted to the block's byte
range (``included_ranges``), so every row and column is already the host file's and
nothing needs shifting; only symbol indices do, when the block's records join the host's.
"""

from __future__ import annotations

from tree_sitter import Node, Tree

from repolens.parse.model import ParsedFile, Symbol
from repolens.parse.registry import Grammar, get_parser
from repolens.parse.text import file_stem


def parse_range(grammar: Grammar, src: bytes, node: Node) -> Tree:
    """``node``'s byte range of ``src`` parsed with ``grammar``."""
    parser = get_parser(grammar)  # this thread's parser of that language: restore it after
    parser.included_ranges = [node.range]
    try:
        return parser.parse(src)
    finally:
        parser.included_ranges = []  # the whole input again, for the next file


def add_file_symbol(kind: str, out: ParsedFile) -> int:
    """Append a symbol of ``kind`` standing for the whole file (a component), named after
    the file; its index."""
    name = file_stem(out.path)
    out.symbols.append(Symbol(kind, name, name, 1, max(out.line_count, 1)))
    return len(out.symbols) - 1


def merge(out: ParsedFile, part: ParsedFile, parent: int | None) -> None:
    """Append the records of an embedded block to the host file's; what the block had at
    its top level (definitions, code, typed names) now belongs to ``parent``. Imports stay
    file-level, as every resolver treats them."""
    base = len(out.symbols)
    prefix = out.symbols[parent].qualified_name + "." if parent is not None else ""

    def shift(index: int | None) -> int | None:
        return parent if index is None else base + index

    for sym in part.symbols:
        sym.parent, sym.qualified_name = shift(sym.parent), prefix + sym.qualified_name
    for ref in part.references:
        ref.source = shift(ref.source)
    for binding in part.bindings:
        binding.scope = shift(binding.scope)
    for imp in part.imports:
        imp.source = None if imp.source is None else base + imp.source
    for site in part.call_sites:
        site.source = shift(site.source)
    out.symbols += part.symbols
    out.references += part.references
    out.bindings += part.bindings
    out.imports += part.imports
    out.call_sites += part.call_sites
    out.exports += part.exports
    out.has_errors = out.has_errors or part.has_errors
    out.error = out.error or part.error
