"""ECMAScript's ``@expand`` hook: what a flat pattern captures and a few node reads here
tell, where a pattern would have to nest.

A nested pattern is analysed against the grammar's parse table whenever its query is
compiled, which every index run does before its workers start: TypeScript's query took
850 M instructions, and a callback's parameter (``xs.forEach(x => ...)``) and an
``instanceof`` narrowing were 90 M and 55 M of it. Matched flat (``(arrow_function)``,
the ``instanceof`` keyword) and read here, each costs a few node reads per match.
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.languages.ecmascript_assignments import assignment_matches
from repolens.parse.spec import RoleMatch
from repolens.parse.text import node_text

CALLBACK_METHODS = frozenset(
    {
        "forEach", "map", "filter", "find", "findLast", "findIndex", "findLastIndex",
        "some", "every", "flatMap",
    }
)  # fmt: skip
"""Array methods whose callback's first parameter is an element of the array."""

_NARROWED = frozenset({"identifier", "member_expression"})  # `x instanceof T`, `ns.T`


def expand(node: Node, src: bytes) -> list[RoleMatch]:
    """The role matches of an ``@expand`` capture: an arrow function, an ``instanceof``
    keyword, else an assignment (``assignment_matches``)."""
    if node.type == "arrow_function":
        return _callback_binding(node, src)
    if node.type == "instanceof":
        return _narrowing(node)
    return assignment_matches(node, src)


def _callback_binding(arrow: Node, src: bytes) -> list[RoleMatch]:
    """``xs.forEach(x => ...)``, ``xs.map((x) => ...)``: ``x`` holds an element of ``xs``
    inside the callback (``@bind.iter``, ``@bind.within``), as a ``for...of`` would bind
    it. A typed parameter is bound by its annotation instead."""
    arguments = arrow.parent
    if arguments is None or arguments.type != "arguments":
        return []
    first = arguments.named_child(0)
    call = arguments.parent
    if first is None or first.id != arrow.id or call is None or call.type != "call_expression":
        return []
    function = call.child_by_field_name("function")
    if function is None or function.type != "member_expression":
        return []
    method = function.child_by_field_name("property")
    iterable = function.child_by_field_name("object")
    if method is None or iterable is None or node_text(method, src) not in CALLBACK_METHODS:
        return []
    name = _untyped_first_parameter(arrow)
    if name is None:
        return []
    return [("bind", {"bind": [call], "name": [name], "bind.iter": [iterable],
                      "bind.within": [arrow]})]  # fmt: skip


def _untyped_first_parameter(arrow: Node) -> Node | None:
    """``x`` of ``x => ...`` or ``(x, i) => ...``, unless it has a type annotation."""
    parameter = arrow.child_by_field_name("parameter")
    if parameter is not None:
        return parameter if parameter.type == "identifier" else None
    parameters = arrow.child_by_field_name("parameters")
    first = parameters.named_child(0) if parameters is not None else None
    if first is None or first.type != "required_parameter" or first.child_by_field_name("type"):
        return None  # in JavaScript the parameter is a bare identifier: no element type
    pattern = first.child_by_field_name("pattern")
    return pattern if pattern is not None and pattern.type == "identifier" else None


def _narrowing(keyword: Node) -> list[RoleMatch]:
    """``if (x instanceof T) { ... }``: ``x`` is a ``T`` in that block only."""
    test = keyword.parent
    condition = test.parent if test is not None else None
    statement = condition.parent if condition is not None else None
    if test is None or statement is None or statement.type != "if_statement":
        return []  # `if (a && x instanceof T)`, `return x instanceof T`: no narrowing
    left, right = test.child_by_field_name("left"), test.child_by_field_name("right")
    block = statement.child_by_field_name("consequence")
    if left is None or left.type != "identifier" or right is None or right.type not in _NARROWED:
        return []
    if block is None or block.type != "statement_block":
        return []
    return [("bind", {"bind": [test], "name": [left], "bind.new": [right],
                      "bind.block": [block]})]  # fmt: skip
