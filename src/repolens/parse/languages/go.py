"""Go: functions, methods (attached to their receiver type), types, fields, consts, vars.

Conventions decided here:
- ``type X struct`` is a ``struct``, ``type X interface`` an ``interface``; any other
  defined type (``type Count int``, ``type HandlerFunc func(...)``) is a ``class``: it has
  methods of its own and ``Count(n)`` makes one. Only an alias (``type ID = string``) is a
  ``type_alias``. Struct fields are ``field``s, interface methods ``method``s.
- A method's parent is its receiver type's symbol when that type is declared in the same
  file; otherwise its qualified name is still ``Type.Method`` with no parent. Either way
  the receiver is bound (``func (s *Server) Run()`` binds ``s`` to ``Server``).
- Capitalised names are ``public`` and exported; others are ``internal`` (package-wide).
- ``TestX(t *testing.T)``, ``BenchmarkX``, ``FuzzX`` and ``ExampleX`` functions are
  ``test``s.
- Embedded struct fields and embedded interfaces are ``extends`` references.
- Composite literals (``Server{...}``, ``&pkg.Client{}``) are ``instantiates``.
- Bindings: typed parameters, fields and vars; ``x := NewX()``, ``x := &X{}``, ``var x =
  ...`` alike; ``p := c`` copies ``c``'s; ``m, ok := v.(*Mux)`` and each one-type ``case``
  of a type switch bind the asserted type. Named results read as their types:
  ``(c *Command, err error)`` returns ``(*Command, error)``.
- Imports: ``import alias "path"`` -> Import(module=path, alias=alias); a dot import is a
  wildcard; ``name`` is always None (a Go import binds a whole package).
- Locals (``@local``): names a function declares (``x :=``, ``var x``, ``for k, v :=
  range``, a type switch's ``v :=``) and a closure's parameters, so that passing one
  (``h(w, r)``) records no reference: they were a fifth of chi's references.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from repolens.parse.model import Symbol
from repolens.parse.spec import DefContext, ImportSpec, LanguageSpec
from repolens.parse.text import node_text

_RESULT = "result: (_)? @returns"
_CALLEE = "[(identifier) (selector_expression)] @bind.call"
_FIRST = "left: (expression_list . (identifier) @name)"

QUERY = f"""
(function_declaration name: (identifier) @name {_RESULT}) @def.function
(type_parameter_declaration name: (identifier) @type_param)
(method_declaration receiver: (parameter_list (parameter_declaration type: (_) @owner))
  name: (field_identifier) @name {_RESULT}) @def.method
(type_spec name: (type_identifier) @name type: (struct_type)) @def.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @def.interface
(type_spec name: (type_identifier) @name type: [(type_identifier) (qualified_type) (generic_type)
  (pointer_type) (slice_type) (array_type) (map_type) (channel_type) (function_type)]) @def.class
(type_alias name: (type_identifier) @name) @def.type_alias
(field_declaration_list (field_declaration name: (field_identifier) @name) @def.field)
(interface_type (method_elem name: (field_identifier) @name {_RESULT}) @def.method)
(source_file (const_declaration (const_spec name: (identifier) @name) @def.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @def.variable))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @def.variable)))

(call_expression function: (identifier) @name arguments: (_) @args) @call
(call_expression function: (selector_expression operand: (_) @recv
  field: (field_identifier) @name) arguments: (_) @args) @call
(composite_literal type: (type_identifier) @name) @new
(composite_literal type: (qualified_type) @qname) @new
(composite_literal type: (generic_type type: (type_identifier) @name)) @new

(argument_list [(identifier) (selector_expression)] @ref)
[(short_var_declaration left: (expression_list (identifier) @local))
 (var_spec name: (identifier) @local)
 (range_clause left: (expression_list (identifier) @local))
 (type_switch_statement alias: (expression_list (identifier) @local))
 (parameter_declaration name: (identifier) @local)]
(keyed_element value: (literal_element [(identifier) (selector_expression)] @ref))

(short_var_declaration {_FIRST}
  right: (expression_list . (call_expression function: {_CALLEE}))) @bind
(short_var_declaration {_FIRST}
  right: (expression_list . (composite_literal type: (_) @bind.new))) @bind
(short_var_declaration {_FIRST} right: (expression_list
  . (unary_expression operand: (composite_literal type: (_) @bind.new)))) @bind
(short_var_declaration left: (expression_list . (identifier) @name .)
  right: (expression_list . (identifier) @bind.alias .)) @bind
(short_var_declaration {_FIRST}
  right: (expression_list . (type_assertion_expression type: (_) @bind.type))) @bind
(short_var_declaration {_FIRST} right: (expression_list . (index_expression) @bind.item)) @bind
(short_var_declaration left: (expression_list . (identifier) . (identifier) @name)
  right: (expression_list . (call_expression
    function: [(identifier) (selector_expression)] @bind.second) .)) @bind
(type_switch_statement alias: (expression_list . (identifier) @name)
  (type_case "case" . type: (_) @bind.type . ":") @bind)
(var_spec name: (identifier) @name type: (_) @bind.type) @bind
(var_spec !type . name: (identifier) @name
  value: (expression_list . (call_expression function: {_CALLEE}))) @bind
(var_spec !type . name: (identifier) @name
  value: (expression_list . (composite_literal type: (_) @bind.new))) @bind
(var_spec !type . name: (identifier) @name value: (expression_list
  . (unary_expression operand: (composite_literal type: (_) @bind.new)))) @bind
(parameter_declaration name: (identifier) @name type: (_) @bind.type) @bind
(for_statement (range_clause left: (expression_list . (_) . (identifier) @name .)
  right: [(identifier) (selector_expression)] @bind.iter)) @bind
(for_statement (range_clause left: (expression_list . (_) . (identifier) @name .)
  right: (call_expression function: [(identifier) (selector_expression)] @bind.iter_call)))
  @bind
(field_declaration name: (field_identifier) @name type: (_) @bind.type) @bind

(comment) @comment
(import_declaration) @import
"""

_TEST_PREFIXES = ("Test", "Benchmark", "Fuzz", "Example")


def _refine(sym: Symbol, ctx: DefContext) -> None:
    exported = sym.name[:1].isupper()
    sym.visibility = "public" if exported else "internal"
    sym.is_exported = exported
    if ctx.node.type in ("type_spec", "type_alias"):
        sym.signature = "type " + sym.signature
        defined = ctx.node.child_by_field_name("type")
        if defined is not None:  # `type Errors []FieldError`: an index or range gives one
            sym.yields = _element_type(node_text(defined, ctx.src))
        return
    if (
        sym.kind == "function"
        and sym.name.startswith(_TEST_PREFIXES)
        and "testing." in (sym.signature)
    ):
        sym.kind = "test"
    if sym.return_type.startswith("("):
        sym.return_type = _result_types(ctx.node.child_by_field_name("result"), ctx.src)


def _result_types(results: Node | None, src: bytes) -> str:
    """``(c *Command, n, m int)`` -> ``(*Command, int, int)``: named results say their
    types the way unnamed ones do, so the first result's type is read alike."""
    if results is None:
        return ""
    types: list[str] = []
    for param in results.named_children:
        kind = param.child_by_field_name("type")
        if param.type == "parameter_declaration" and kind is not None:
            names = len(param.children_by_field_name("name"))
            types.extend([node_text(kind, src)] * max(names, 1))
    return f"({', '.join(types)})"


def _heritage(node: Node) -> list[tuple[str, Node]]:
    """Embedded fields of a struct and embedded interfaces: what its methods come from."""
    if node.type != "type_spec":
        return []
    body = node.child_by_field_name("type")
    if body is None:
        return []
    if body.type == "struct_type":
        fields = body.named_child(0)
        members = fields.named_children if fields is not None else []
        return [
            ("extends", f.child_by_field_name("type") or f)
            for f in members
            if f.type == "field_declaration" and f.child_by_field_name("name") is None
        ]
    if body.type == "interface_type":
        return [
            ("extends", e.named_child(0) or e) for e in body.named_children if e.type == "type_elem"
        ]
    return []


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    specs: list[Node] = []
    for child in node.named_children:
        if child.type == "import_spec":
            specs.append(child)
        elif child.type == "import_spec_list":
            specs.extend(c for c in child.named_children if c.type == "import_spec")
    found: list[ImportSpec] = []
    for spec in specs:
        target = spec.child_by_field_name("path")
        if target is None:
            continue
        module = node_text(target, src).strip('"`')
        name = spec.child_by_field_name("name")
        line = spec.start_point[0] + 1
        if name is not None and name.type == "dot":
            found.append(ImportSpec(module, is_wildcard=True, line=line))
        else:
            alias = node_text(name, src) if name else None
            found.append(ImportSpec(module, alias=alias, line=line))
    return found


def _clean_type(text: str) -> str:
    """``*pkg.Server`` -> ``pkg.Server``: a pointer's methods are its element's."""
    return text.lstrip("*&").strip()


_ELEMENT = re.compile(r"[\w.]+")  # a plain (possibly package-qualified) type name


def _element_type(text: str) -> str:
    """What ``for _, x := range xs`` binds to ``x`` when ``xs`` is typed ``text``: the
    element of ``[]*Cmd`` or ``[4]Cmd``, the value of ``map[string]*Cmd``: ``Cmd``."""
    text = text.strip()
    if text.startswith("map["):
        depth = 0
        for at, char in enumerate(text):
            depth += (char == "[") - (char == "]")
            if depth == 0 and char == "]":
                text = text[at + 1 :]
                break
        else:
            return ""
    elif text.startswith("["):
        text = text.partition("]")[2]
    else:
        return ""
    element = _clean_type(text)
    return element if _ELEMENT.fullmatch(element) else ""


_BUILTIN_TYPES = frozenset(
    {
        "bool", "byte", "complex64", "complex128", "error", "float32", "float64", "int",
        "int8", "int16", "int32", "int64", "rune", "string", "uint", "uint8", "uint16",
        "uint32", "uint64", "uintptr", "any", "comparable",
        *"ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    }
)  # fmt: skip

SPEC = LanguageSpec(
    language="go",
    grammar_module="tree_sitter_go",
    query=QUERY,
    refine=_refine,
    imports=_imports,
    heritage=_heritage,
    clean_type=_clean_type,
    element_type=_element_type,
    wrapper_types=frozenset({"type_declaration"}),
    closure_types=frozenset({"func_literal"}),
    name_types=frozenset({"type_identifier"}),
    qualified_types=frozenset({"qualified_type"}),
    builtin_types=_BUILTIN_TYPES,
    skip_refs=frozenset({"_"}),
)
