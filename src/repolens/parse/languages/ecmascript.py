"""What JavaScript, TypeScript and TSX share: query pieces and hooks.

Conventions decided here:
- Symbols: functions (also ``const f = () => ...`` and ``exports.f = function``), classes
  (also ``module.exports = class A``), methods (``constructor`` is a ``constructor``,
  ``get``/``set`` accessors are ``property``; ``Foo.prototype.bar = function`` is ``Foo.bar``,
  and the constructor function ``Foo`` beside it a class), class fields (``field``; a field
  holding an arrow function is a ``method``), top-level ``const``/``let``/``var``
  (``constant`` when UPPER_CASE); in TypeScript also interfaces, type aliases, enums and
  members, namespaces. A top-level variable holding an object with methods is an
  ``object`` (their owner): ``const api = { get() {}, post: (url) => {} }``, or
  ``var app = exports = module.exports = {}`` / ``Object.create(proto)`` followed by
  ``app.init = function``; so is ``module.exports = { get() {} }`` (named ``exports``).
- Exported: top-level declarations under ``export``, names in ``export { ... }``,
  ``module.exports = { ... }``, ``exports.a = a``; class members unless
  ``private``/``protected``/``#name``.
  ``ParsedFile.exports`` holds the *local* names such lists export.
- Imports (read by ``ecmascript_modules``): ``import x from 'm'`` -> name ``default``,
  alias ``x``; ``import * as ns`` -> name None, alias ``ns``; ``export ... from`` ->
  ``is_reexport``; ``require`` bound by ``const``.
  A file's own aliased or default exports (``export { a as b }``, ``export default f``)
  are recorded as re-exports of the file itself (module ``./<own file stem>``), so the
  resolver follows them like any barrel. ``module.exports = X`` is such a re-export of
  ``X`` as ``default`` and as ``module.exports``, the value a plain ``require`` gives.
- JSX: ``<Widget />`` is a ``calls`` reference to ``Widget`` (capitalised tags only), and
  ``{handler}`` inside JSX a ``references`` entry.
- ``if (x instanceof T) { ... }`` binds the name ``x`` to ``T`` in that block only.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from repolens.parse.model import Symbol
from repolens.parse.spec import TYPE_KINDS, DefContext
from repolens.parse.text import node_text, unparenthesized

DEFS = """
(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(class_declaration name: (_) @name) @def.class
(method_definition name: (_) @name) @def.method
(variable_declarator name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @def.function
(variable_declarator name: (identifier) @name value: (class)) @def.class
(assignment_expression) @expand
"""
"""Definitions; what an assignment defines (``exports.f = function``, ``Foo.prototype.bar =
function``) is found by ``assignment_matches``, and a TypeScript return type by
``return_type``."""

OWNERS = """
(variable_declarator name: (identifier) @owner.alias
  value: (member_expression object: (identifier) @owner.type property: (property_identifier) @_p)
  (#eq? @_p "prototype")) @owner
(call_expression function: (member_expression property: (property_identifier) @_f)
  arguments: (arguments . (identifier) @owner.type . (identifier) @owner.base .)
  (#eq? @_f "inherits")) @owner
(call_expression arguments: (arguments
  . (member_expression object: (identifier) @owner.type property: (property_identifier) @_p)
  . (member_expression object: (_) @owner.base property: (property_identifier) @_q))
  (#eq? @_p "prototype") (#eq? @_q "prototype")) @owner
"""
"""Where an ECMAScript constructor function gets its methods and base without ``class``:
``const proto = Foo.prototype`` (``proto.bar = function`` is ``Foo.bar``),
``util.inherits(Foo, Base)``, ``Object.setPrototypeOf(Foo.prototype, Base.prototype)`` and
``mixin(Foo.prototype, Base.prototype)`` (``Foo`` extends ``Base``). Assignments to
``Foo.prototype`` are read by ``ecmascript_assignments``."""

TOP_DEFS = """
(program (lexical_declaration (variable_declarator name: (identifier) @name
  value: (_)? @_value) @def.variable) (#not-match? @_value "^require[ ]*[(]"))
(program (variable_declaration (variable_declarator name: (identifier) @name
  value: (_)? @_value) @def.variable) (#not-match? @_value "^require[ ]*[(]"))
(program [(lexical_declaration (variable_declarator name: (object_pattern
            [(shorthand_property_identifier_pattern) @name @def.variable
             (pair_pattern value: (identifier) @name @def.variable)]) value: (_) @_value))
          (variable_declaration (variable_declarator name: (object_pattern
            [(shorthand_property_identifier_pattern) @name @def.variable
             (pair_pattern value: (identifier) @name @def.variable)]) value: (_) @_value))]
  (#not-match? @_value "^require[ ]*[(]"))
(program [(lexical_declaration (variable_declarator name: (object_pattern
            [(shorthand_property_identifier_pattern) @name
             (pair_pattern key: (property_identifier) @bind.key value: (identifier) @name)])
            value: [(identifier) (member_expression)] @bind.of) @bind)
          (variable_declaration (variable_declarator name: (object_pattern
            [(shorthand_property_identifier_pattern) @name
             (pair_pattern key: (property_identifier) @bind.key value: (identifier) @name)])
            value: [(identifier) (member_expression)] @bind.of) @bind)])
(program (export_statement declaration: (lexical_declaration
  (variable_declarator name: (identifier) @name) @def.variable)))
(program (export_statement declaration: (variable_declaration
  (variable_declarator name: (identifier) @name) @def.variable)))
"""
"""Top-level variables: ``LanguageSpec.top_query`` of every ECMAScript dialect. A name
destructured from a named value (``const { isArray } = Array``, ``{ b: c } = utils``)
also holds that value's member (a ``VALUE_OF`` binding)."""

CALLS = """
(call_expression function: [(identifier) @name (super) @name
  (member_expression object: (_) @recv property: (_) @name)
  (subscript_expression object: (identifier) @name)] arguments: (_) @args) @call
(new_expression constructor: [(identifier) @name (member_expression) @qname]
  arguments: (_)? @args) @new

(arguments [(identifier) (member_expression)] @ref)
(pair value: [(identifier) (member_expression)] @ref)
(object (shorthand_property_identifier) @ref)

(comment) @comment
(decorator) @decoration

(import_statement) @import
(export_statement source: (_)) @import
(export_statement !source (export_clause)) @import
(export_statement . "export" . "default") @import
(call_expression function: [(identifier) (import)] @_req arguments: (arguments . (string))
  (#any-of? @_req "require" "import")) @import
(export_statement (export_clause)) @exports
(export_statement value: (object)) @exports
"""

JSX = """
(jsx_opening_element name: (identifier) @name (#match? @name "^[A-Z]")) @call
(jsx_self_closing_element name: (identifier) @name (#match? @name "^[A-Z]")) @call
(jsx_opening_element name: (member_expression) @qname) @call
(jsx_self_closing_element name: (member_expression) @qname) @call
(jsx_expression [(identifier) (member_expression)] @ref)
"""

LOCALS = """
[(variable_declarator name: (identifier) @local)
 (variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @local))
 (variable_declarator name: (array_pattern (identifier) @local))
 (for_in_statement left: (identifier) @local)
 (catch_clause parameter: (identifier) @local)
 (arrow_function parameter: (identifier) @local)
 {parameters}]
"""
"""Names a function declares (``const``, ``let``, destructuring, loop and ``catch``
variables, a callback's parameters): passed as values (``use(item)``, ``{ data, error
}``) they are locals, not references. ``{parameters}``: how the dialect writes one."""
JS_PARAMETERS = """(formal_parameters (identifier) @local)
 (formal_parameters (assignment_pattern left: (identifier) @local))"""
TS_PARAMETERS = """(required_parameter pattern: (identifier) @local)
 (optional_parameter pattern: (identifier) @local)"""
CLOSURES = frozenset({"arrow_function", "function_expression", "generator_function"})
"""Functions written as values: anonymous, or held by a field or variable."""

_CALLEE = '[(identifier) (member_expression)] @bind.call (#not-any-of? @bind.call "require")'

# One pattern per binding site, its kinds of value as alternatives: a pattern costs its
# language's query compile time in every index run (TypeScript: about 2.5 ms each, and a
# nested one several times that; see ``ecmascript_expand``). A
# capture goes on each alternative, never on a nested alternation: py-tree-sitter 0.26
# loses it there for some node types.
BINDINGS = f"""
(variable_declarator {{untyped}} name: (identifier) @name
  value: [(new_expression constructor: (_) @bind.new)
          (call_expression function: {_CALLEE})
          (await_expression) @bind.await
          (identifier) @bind.alias (member_expression) @bind.alias (this) @bind.alias
          (ternary_expression) @bind.value (binary_expression) @bind.value
          (parenthesized_expression) @bind.value (subscript_expression) @bind.item]) @bind
"instanceof" @expand
(return_statement "return" @name (new_expression constructor: (_) @bind.new)) @bind
"""
"""Typed names. ``return new Client()`` binds ``return`` in the function it is written in
(or the symbol around an anonymous one) like a variable: the resolver reads the last as
what calling an unannotated function gives. Only a ``new``: a factory's other returns
are mostly plain objects (``Object.assign({}, defaults)``) whose properties a guess by
name finds better than a builtin type would. Each alternative here is a query pattern's
worth of compile time, paid by every index run: ``await f()`` is read in Python
(``@bind.await``), not nested in a pattern, and an ``instanceof`` narrowing by
``ecmascript_expand``."""


def return_type(node: Node) -> Node | None:
    """The type a TypeScript function is annotated to return (``): Client``), of its own
    or of the function a variable holds (``const f = (): Client => ...``). Read here, not
    matched: the optional child made ``method_definition``'s pattern 60 M instructions
    of the 850 M that compiling the query took (see ``LanguageSpec.return_type``)."""
    if node.type == "variable_declarator":
        value = node.child_by_field_name("value")
        if value is None:
            return None
        node = value
    annotation = node.child_by_field_name("return_type")
    if annotation is None or annotation.type != "type_annotation":
        return None  # none, or a predicate (`x is T`, `asserts x`)
    return annotation.named_children[0] if annotation.named_child_count else None


_FALLBACKS = frozenset({"??", "||", "&&"})
_CALLEES = frozenset({"identifier", "member_expression"})


def value_call(node: Node) -> Node | None:
    """The callee whose result a compound value holds, as its first choice (see
    ``LanguageSpec.value_call``): ``a ?? f()`` and ``a || f()``, ``c ? f() : null``,
    ``c ? null : new X()`` (a class called makes an instance), ``c ? x : f()`` (both
    branches hold one type, and only the call's is known here), a chained assignment
    ``(this.#x = f())``, each also in parentheses."""
    node = unparenthesized(node)
    if node.type == "binary_expression":
        operator = node.child_by_field_name("operator")
        if operator is None or operator.type not in _FALLBACKS:
            return None  # `a + f()`, `a === f()`: another value than `f`'s
    if node.type in ("binary_expression", "assignment_expression"):
        right = node.child_by_field_name("right")
        return value_call(right) if right is not None else None
    if node.type == "ternary_expression":
        chosen = node.child_by_field_name("consequence")
        called = value_call(chosen) if chosen is not None else None
        other = node.child_by_field_name("alternative")
        return called or (value_call(other) if other is not None else None)
    if node.type == "new_expression":
        called = node.child_by_field_name("constructor")
    elif node.type == "call_expression":
        called = node.child_by_field_name("function")
    else:
        return None
    return called if called is not None and called.type in _CALLEES else None


_MEMBER_OWNERS = TYPE_KINDS


def refine(sym: Symbol, ctx: DefContext) -> None:
    """Kinds, visibility, static/async for ECMAScript definitions."""
    node = ctx.node
    tokens = {child.type for child in node.children if not child.is_named}
    value = node.child_by_field_name("value")
    if value is not None and value.type in CLOSURES:  # a function as a value
        tokens |= {child.type for child in value.children if not child.is_named}
        if sym.kind == "field":
            sym.kind = "method"
    sym.is_async = "async" in tokens
    sym.is_static = "static" in tokens
    if node.type == "method_definition":
        if sym.name == "constructor":
            sym.kind = "constructor"
        elif "get" in tokens or "set" in tokens:
            sym.kind = "property"
    _visibility(sym, ctx)


def _visibility(sym: Symbol, ctx: DefContext) -> None:
    parent = ctx.parent
    if parent is not None and parent.kind in _MEMBER_OWNERS:
        modifier = next((c for c in ctx.node.children if c.type == "accessibility_modifier"), None)
        if modifier is not None:
            sym.visibility = node_text(modifier, ctx.src)
        elif sym.name.startswith("#"):
            sym.visibility = "private"
        sym.is_exported = sym.visibility == "public"
        return
    if sym.kind in ("variable", "constant") and sym.name.isupper():
        sym.kind = "constant"
    # `export ...` wraps the declaration; `exports.f = function` defines it by assignment
    sym.is_exported = ctx.anchor.type == "export_statement" or ctx.node.type in _ASSIGNED


_ASSIGNED = frozenset({"function_expression", "arrow_function"})


def heritage(node: Node) -> list[tuple[str, Node]]:
    """``extends``/``implements`` of classes and interfaces."""
    found: list[tuple[str, Node]] = []
    for child in node.named_children:
        if child.type == "class_heritage":
            for clause in child.named_children:
                if clause.type == "extends_clause":
                    found += [("extends", v) for v in clause.children_by_field_name("value")]
                elif clause.type == "implements_clause":
                    found += [("implements", t) for t in clause.named_children]
                elif clause.type != "comment":  # JavaScript: the expression itself
                    found.append(("extends", clause))
        elif child.type == "extends_type_clause":
            found += [("extends", t) for t in child.children_by_field_name("type")]
    return found


_JSDOC_PARAM = re.compile(r"@param\s+\{([^{}]+)\}\s+\[?([A-Za-z_$][\w$]*)(?![\w$.])")
_JSDOC_RETURNS = re.compile(r"@returns?\s+\{([^{}]+)\}")
_JSDOC_TYPE = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
_JSDOC_NULLS = frozenset({"null", "undefined", "void"})


def jsdoc_types(doc: str) -> tuple[dict[str, str], str]:
    """``@param {Option} option`` and ``@returns {Command}``: the named types a JSDoc
    comment gives (``?T``, ``T=``, ``T|null`` -> ``T``); unions, arrays and other type
    expressions name no one class and are left out."""
    params = {name: kept for text, name in _JSDOC_PARAM.findall(doc) if (kept := _jsdoc(text))}
    returns = _JSDOC_RETURNS.search(doc)
    return params, _jsdoc(returns.group(1)) if returns else ""


def _jsdoc(text: str) -> str:
    parts = [p.strip().lstrip("?!").rstrip("=") for p in text.split("|")]
    kept = [p for p in parts if p not in _JSDOC_NULLS]
    return kept[0] if len(kept) == 1 and _JSDOC_TYPE.fullmatch(kept[0]) else ""


WRAPPERS = frozenset({"export_statement", "lexical_declaration", "variable_declaration"})
SKIP_REFS = frozenset({"undefined", "NaN", "Infinity", "arguments", "exports", "module"})
