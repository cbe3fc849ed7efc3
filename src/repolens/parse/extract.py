"""The generic extraction engine: one query run per file, matches dispatched by role.

Everything language-specific lives in the ``LanguageSpec``; this module only knows the
role vocabulary documented in ``repolens.parse.spec``. The query runs in C and returns
only the nodes we care about, so Python work is proportional to the number of
definitions, calls and imports, not to the size of the tree. Definitions become symbols
here (``parse.defs``); every other role goes to its handler in ``parse.role_handlers``.
"""

from __future__ import annotations

from collections.abc import Iterator
from operator import attrgetter

from tree_sitter import Node, QueryCursor

from repolens.parse.defs import SymbolTable, build_symbols
from repolens.parse.embed import add_file_symbol, merge, parse_range
from repolens.parse.generics import without_type_parameters
from repolens.parse.model import Binding, ParsedFile
from repolens.parse.registry import Grammar, failure, get_grammar, get_parser
from repolens.parse.role_handlers import RoleHandlers
from repolens.parse.spec import (
    FUNCTION_KINDS,
    Captures,
    DocTypesHook,
    LanguageSpec,
    RoleMatch,
    TextHook,
)
from repolens.parse.trivia import Trivia

_POSITION = attrgetter("line", "col")
MAX_MATCH_DEPTH = 1000
"""Deepest level at which a query match may start. Real code nests 20 to 40 levels; a
generated ``f(f(f(...)))`` 30,000 calls deep made tree-sitter's matching quadratic (76 s
for one 60 KB file). Below this depth nothing is extracted, and the file says so (DEEP)."""
DEEP = (
    f"extraction partial: nested deeper than {MAX_MATCH_DEPTH} syntax levels;"
    " what lies deeper is not extracted"
)


def parse_source(path: str, language: str, source: bytes) -> ParsedFile:
    """Parse one file and extract its symbols, references, imports and bindings.

    Never raises for bad input: a syntax error gives ``has_errors=True`` with whatever could
    be extracted, an unknown language gives a ``ParsedFile`` whose ``error`` says why.
    """
    result = ParsedFile(path=path, language=language, line_count=_line_count(source))
    grammar = get_grammar(language)
    if grammar is None:
        from repolens.parse.languages.fallback import extract_lines, has_fallback  # rarely used

        reason = failure(language) or f"no grammar for {language}"
        # A missing or broken grammar wheel degrades to a line-level outline, reported as
        # such, rather than leaving the language's files with nothing.
        degraded = extract_lines(path, language, source, reason) if has_fallback(language) else None
        if degraded is not None:
            return degraded
        result.error = reason
        return result
    tree = get_parser(grammar).parse(source)
    result.has_errors = tree.root_node.has_error
    try:
        _extract(grammar, source, tree.root_node, result)
    except Exception as exc:  # a spec hook meeting a tree shape it did not expect:
        # one odd file must not stop an index; keep what was extracted and say why
        result.error = f"extraction failed: {type(exc).__name__}: {exc}"
    return result


def deeper_than(root: Node, limit: int) -> bool:
    """Whether a node of the tree lies more than ``limit`` levels below ``root``, found
    without walking the tree: a subtree of ``n`` nodes reaches at most ``n - 1`` levels
    below its top, so only subtrees large enough to reach the limit are entered (a few
    hundred nodes of a large file, where a walk visits every one of its 100,000)."""
    pending = [(root, 0)]
    while pending:
        node, depth = pending.pop()
        if depth > limit:
            return True
        for child in node.children:
            if depth + child.descendant_count > limit:  # its deepest: depth + 1 + (count - 1)
                pending.append((child, depth + 1))
    return False


def _line_count(source: bytes) -> int:
    if not source:
        return 0
    return source.count(b"\n") + (0 if source.endswith(b"\n") else 1)


def _role_matches(grammar: Grammar, src: bytes, root: Node, out: ParsedFile) -> Iterator[RoleMatch]:
    """Every match of the grammar's queries with its role, ``@expand`` matches replaced by
    those their hook gives; the top-level query's patterns can only start at ``root``
    (see ``LanguageSpec.top_query``)."""
    roles, expand = grammar.roles, grammar.spec.expand
    cursor = QueryCursor(grammar.query)
    cursor.set_max_start_depth(MAX_MATCH_DEPTH)  # see MAX_MATCH_DEPTH
    if deeper_than(root, MAX_MATCH_DEPTH):
        out.error = out.error or DEEP
    for pattern, caps in cursor.matches(root):
        role = roles[pattern]
        if role != "expand" or expand is None:
            yield role, caps
            continue
        try:
            yield from expand(caps[role][0], src)
        except Exception as exc:  # one odd node costs its records, not the file
            out.error = out.error or f"extraction partial: expand: {type(exc).__name__}: {exc}"
    if grammar.top_query is not None:
        cursor = QueryCursor(grammar.top_query)
        cursor.set_max_start_depth(0)
        top_roles = grammar.top_roles
        for pattern, caps in cursor.matches(root):
            yield top_roles[pattern], caps


def _extract(grammar: Grammar, src: bytes, root: Node, out: ParsedFile) -> None:
    defs: list[RoleMatch] = []
    owners: list[Captures] = []
    comments: list[Node] = []
    decorations: list[Node] = []
    rest: list[RoleMatch] = []
    embeds: list[Node] = []
    assigned: list[Captures] = []
    type_params: list[Node] = []
    for role, caps in _role_matches(grammar, src, root, out):
        if role[:4] == "def.":
            defs.append((role[4:], caps))
        elif role == "embed":
            embeds.append(caps[role][0])
        elif role == "comment":
            comments.append(caps[role][0])
        elif role == "decoration":
            decorations.append(caps[role][0])
        elif role == "owner":
            owners.append(caps)
        elif role == "local":
            assigned.append(caps)
        elif role == "type_param":
            type_params.append(caps[role][0])
        else:
            rest.append((role, caps))
    trivia = Trivia(src, comments, decorations)
    table = build_symbols(grammar.spec, src, defs, owners, trivia)
    out.symbols = table.symbols
    refs = table.references
    if grammar.spec.doc_types is not None:
        _doc_bindings(grammar.spec.doc_types, out)
    engine = RoleHandlers(grammar.spec, src, table, out, refs)
    engine.locals.note(assigned)  # before any reference: a use may precede the assignment
    handlers = engine.handlers()
    for role, caps in rest:
        try:
            handlers[role](role, caps)
        except Exception as exc:  # one odd node costs one record, not the file
            out.error = out.error or f"extraction partial: {role}: {type(exc).__name__}: {exc}"
    out.references = without_type_parameters(table, refs, type_params, src, grammar.spec.separator)
    engine.mark_exports()
    if grammar.spec.element_type is not None:
        _yields(grammar.spec.element_type, grammar.spec.iterator_method, out)
    if embeds or grammar.spec.file_symbol:
        _embedded(grammar.spec, src, embeds, table, out)
    out.references.sort(key=_POSITION)


def _yields(element_type: TextHook, iterator_method: str, out: ParsedFile) -> None:
    """What iterating each function's result gives, for loops over calls from other files
    (``for n in tree.nodes()``), which only the resolver can follow there; and what
    iterating an instance of a class gives, what its ``iterator_method`` yields (``for n
    in tree`` with ``def __iter__(self) -> Iterator[Node]``)."""
    for sym in out.symbols:
        if sym.return_type and sym.kind in FUNCTION_KINDS:
            sym.yields = element_type(sym.return_type)
            if sym.name == iterator_method and sym.parent is not None:
                out.symbols[sym.parent].yields = sym.yields


def _doc_bindings(doc_types: DocTypesHook, out: ParsedFile) -> None:
    """Types an untyped language states in doc comments (JSDoc ``@param {Option} option``,
    ``@returns {Command}``): parameter bindings and return types, as annotations would."""
    for index, sym in enumerate(out.symbols):
        if sym.kind not in FUNCTION_KINDS or "{" not in sym.docstring:
            continue
        params, returns = doc_types(sym.docstring)
        for name, type_name in params.items():
            out.bindings.append(Binding(index, name, type_name, sym.start_line))
        if returns and not sym.return_type:
            sym.return_type = returns


def _embedded(
    spec: LanguageSpec, src: bytes, nodes: list[Node], table: SymbolTable, out: ParsedFile
) -> None:
    """Extract each block of another language with that language's spec and merge it into
    ``out``: into the file's own symbol (``Embedded.in_file_symbol``), else into the host
    symbol around the block. A block whose grammar is missing is skipped, and said so."""
    own = add_file_symbol(spec.file_symbol, out) if spec.file_symbol else None
    for ref in out.references if own is not None else ():
        if ref.source is None:  # the host's own code (a component's markup) is the symbol's
            ref.source = own
    for node in nodes:
        code = spec.embedded(node, src) if spec.embedded is not None else None
        if code is None:
            continue
        grammar = get_grammar(code.language)
        if grammar is None:
            out.error = out.error or f"embedded {code.language}: {failure(code.language)}"
            continue
        part = ParsedFile(out.path, code.language, line_count=out.line_count)
        root = parse_range(grammar, src, node).root_node
        part.has_errors = root.has_error
        _extract(grammar, src, root, part)
        merge(out, part, own if code.in_file_symbol else table.enclosing(node.start_byte))
    out.imports.sort(key=attrgetter("line"))
