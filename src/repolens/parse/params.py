"""The parameter names of a function definition, read from its tree in any language.

A parameter's name inside its function is that parameter, never a project symbol:
every language indexed here scopes parameters over the body. A value reference to one
(``map(func, xs)`` with ``func`` a parameter) can only ever be answered "a local", so
the extractor drops it rather than store, resolve and write back a row for it: these
were a tenth of pip's references and over a quarter of sympy's. Calls are kept: Java,
C# and Kotlin look up ``run()`` among methods even where ``run`` is a parameter.

The grammars agree closely enough for one reading: a definition's ``parameters`` (and
Go's ``receiver``, an arrow function's single ``parameter``) hold one node per
parameter, whose name is the node itself or an identifier in its ``name``, ``pattern``,
``left`` or ``declarator`` field, or, for Python's annotated and ``*args`` parameters and
JavaScript's ``...rest``, its first child. A shape not read here (destructuring) keeps
its references, as before. (The resolver, which has no tree, reads parameter names from
a function's stored signature instead: ``repolens.resolve.params``.)
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.text import node_text

_LISTS = ("parameters", "parameter", "receiver")
_NAME_FIELDS = ("name", "pattern", "left", "declarator")
_WRAPPERS = frozenset(
    {"typed_parameter", "list_splat_pattern", "dictionary_splat_pattern", "rest_pattern"}
)


def parameter_names(definition: Node, src: bytes) -> frozenset[str]:
    """Names of the parameters of the function ``definition`` defines (``const f = (a)
    => ...`` and ``f: function (a)`` define it by their ``value``)."""
    function = definition
    if not any(definition.child_by_field_name(f) for f in _LISTS):
        function = definition.child_by_field_name("value") or definition
    names: set[str] = set()
    for field in _LISTS:
        for part in function.children_by_field_name(field):
            if part.type == "identifier":  # `x => x`
                names.add(node_text(part, src))
            for parameter in part.named_children:
                names.update(node_text(n, src) for n in _names(parameter))
    return frozenset(names)


def _names(parameter: Node) -> list[Node]:
    if parameter.type == "identifier":
        return [parameter]
    found = [
        node
        for field in _NAME_FIELDS
        for child in parameter.children_by_field_name(field)
        if (node := _identifier(child)) is not None
    ]
    if found or parameter.type not in _WRAPPERS or parameter.named_child_count == 0:
        return found
    first = _identifier(parameter.named_children[0])
    return [first] if first is not None else []


def _identifier(node: Node) -> Node | None:
    """``node`` when it is a name; the name of a ``...rest`` pattern."""
    if node.type == "identifier":
        return node
    if node.type == "rest_pattern" and node.named_child_count:
        inner = node.named_children[0]
        return inner if inner.type == "identifier" else None
    return None
