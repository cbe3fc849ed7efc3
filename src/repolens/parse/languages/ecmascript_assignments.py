"""What an ECMAScript assignment means, read in Python from one ``@expand`` match.

Pre-class JavaScript says much with assignments: ``exports.f = function``,
``Foo.prototype.bar = function``, ``Foo.prototype = { bar() {} }``, ``module.exports =
Router``, ``this.repo = new Repo()``. As query patterns these were a dozen nested
``assignment_expression`` patterns, and nested patterns are what a query's compile time
grows with: they were half the TypeScript query's (120 -> 56 ms, paid by every index
run; JavaScript's 68 -> 22 ms). One shallow pattern matches every assignment instead, and
:func:`assignment_matches` turns it into exactly the captures those patterns gave, in
their order, for the engine's usual roles (see ``spec``); extraction is unchanged on
6,359 JavaScript and TypeScript files compared.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from repolens.parse.spec import Captures, RoleMatch

_FUNCTIONS = frozenset({"function_expression", "arrow_function"})
_NAMES = frozenset({"identifier", "member_expression"})
_BOUND_OBJECT = re.compile(rb"module[.]exports|[A-Za-z_$][A-Za-z0-9_$]*[.]prototype")


def assignment_matches(node: Node, src: bytes) -> list[RoleMatch]:
    """The definitions, owner blocks, imports, exports and bindings ``node`` (an
    ``assignment_expression``) makes, as ``(role, captures)`` pairs."""
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None:
        return []
    found: list[RoleMatch] = []
    if right.type == "class" and (name := right.child_by_field_name("name")) is not None:
        found.append(("def.class", {"name": [name], "def.class": [right]}))  # X = class A
    member = _member(left, src)
    if member is None:  # `x = ...`: nothing more than the class above
        return found
    _definitions(member, left, right, src, found)
    _owner_blocks(member, node, right, src, found)
    _module_exports(member, node, right, found)
    if member.target.type == "this":
        _this_binding(node, left, right, src, found)
    return found


class _Member:
    """The ``object.property`` an assignment writes, with the tests the roles need."""

    __slots__ = ("named", "prop", "src", "target")

    def __init__(self, target: Node, prop: Node, src: bytes) -> None:
        self.target = target
        self.prop = prop
        self.src = src
        self.named = prop.type == "property_identifier"

    def target_is(self, name: bytes) -> bool:
        return self.target.type == "identifier" and _text(self.target, self.src) == name

    def prop_is(self, name: bytes) -> bool:
        return self.named and _text(self.prop, self.src) == name

    def module_exports(self) -> bool:
        return self.target_is(b"module") and self.prop_is(b"exports")

    def prototype_of(self) -> Node | None:
        """``Foo`` of ``Foo.prototype``."""
        named = self.target.type == "identifier"
        return self.target if named and self.prop_is(b"prototype") else None


def _definitions(
    member: _Member, left: Node, right: Node, src: bytes, found: list[RoleMatch]
) -> None:
    """``exports.f = function``, ``Foo.prototype.bar = function`` (or ``= helper``),
    ``obj.f = function`` (a method when ``obj`` is an alias of a prototype or an object),
    ``Foo.prototype = { bar: function }`` and ``module.exports = { bar() {} }`` (an object
    named ``exports``)."""
    target, name = member.target, [member.prop]
    value = _chain_end(right)
    # `res.set = res.header = function`: `header` is the function, `set` another name
    # for it, defined where it is written (a node that holds no code)
    defined = right if value.id == right.id else left
    method = {"name": name, "def.method": [defined]}
    if value.type in _FUNCTIONS and member.named:
        if member.target_is(b"exports"):
            found.append(("def.function", {"name": name, "def.function": [defined]}))
        if target.type == "member_expression":
            inner = _member(target, src)
            owner = inner.prototype_of() if inner is not None else None
            if owner is not None:
                found.append(("def.method", {"owner": [owner], **method}))
        elif target.type == "identifier":
            found.append(("def.method", {"owner.var": [target], **method}))
    elif value.type in _NAMES and member.named and target.type == "member_expression":
        # `Foo.prototype.push = pushQuery`: a method of Foo that is a function named
        # elsewhere; the method refers to it, so its callers reach that function
        inner = _member(target, src)
        owner = inner.prototype_of() if inner is not None else None
        if owner is not None and (whole := left.parent) is not None:  # its text its header
            found.append(("def.method", {"owner": [owner], "name": name, "def.method": [whole]}))
            found.append(("ref", {"ref": [value]}))
    if right.type != "object":
        return
    if _BOUND_OBJECT.fullmatch(_text(left, src)):
        for pair in right.named_children:
            if (key := _function_key(pair)) is not None:
                found.append(("def.method", {"name": [key], "def.method": [pair]}))
    if (
        member.module_exports()
        and any(c.type == "method_definition" for c in right.children)
        and declared_name(left) is None  # `const proto = module.exports = {}`: `proto` is it
    ):
        found.append(("def.object", {"name": name, "def.object": [right]}))


def object_members(declarator: Node, src: bytes) -> list[tuple[Node, Node]] | None:
    """The object a variable holds, as ``LanguageSpec.object_members`` says: ``{ get:
    function () {} }``, ``exports = module.exports = {}`` (express' ``app``),
    ``Object.create(proto)`` (its ``req``) or ``module.exports = function`` (its router's
    ``proto``), whose methods are assigned later."""
    assigned = declarator.child_by_field_name("value")
    if assigned is None:
        return None
    value = _chain_end(assigned)
    if value.type == "object":
        return [(key, pair) for pair in value.named_children if (key := _function_key(pair))]
    if value.type in _FUNCTIONS and value.id != assigned.id:
        return []  # `var proto = module.exports = function`; `var f = function` is `f()`
    function = value.child_by_field_name("function") if value.type == "call_expression" else None
    if function is not None and _text(function, src) == b"Object.create":
        return []
    return None


def declared_name(node: Node) -> Node | None:
    """``app`` of ``var app = exports = module.exports = {}``, for each assignment in
    the chain: the variable that holds the value too."""
    while (parent := node.parent) is not None and parent.type == "assignment_expression":
        node = parent
    if parent is None or parent.type != "variable_declarator":
        return None
    return parent.child_by_field_name("name")


def _chain_end(value: Node) -> Node:
    """The value a chain of assignments assigns (``value`` itself when no chain)."""
    while value.type == "assignment_expression":
        right = value.child_by_field_name("right")
        if right is None:
            break
        value = right
    return value


def _function_key(pair: Node) -> Node | None:
    """``bar`` of ``bar: function () {}`` in an object."""
    if pair.type != "pair":
        return None
    key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
    if key is None or value is None or value.type not in _FUNCTIONS:
        return None
    return key if key.type == "property_identifier" else None


def _owner_blocks(
    member: _Member, node: Node, right: Node, src: bytes, found: list[RoleMatch]
) -> None:
    """``Foo.prototype = { ... }`` holds ``Foo``'s members; ``Foo.prototype =
    Object.create(Base.prototype)`` makes ``Foo`` extend ``Base``."""
    owner = member.prototype_of()
    if owner is None:
        return
    if right.type == "object":
        found.append(("owner", {"owner.type": [owner], "owner": [right]}))
    elif right.type == "call_expression" and (base := _created_from(right, src)) is not None:
        found.append(("owner", {"owner.type": [owner], "owner.base": [base], "owner": [node]}))


def _created_from(call: Node, src: bytes) -> Node | None:
    """``Base`` of ``Object.create(Base.prototype, ...)``."""
    function = call.child_by_field_name("function")
    arguments = call.child_by_field_name("arguments")
    if function is None or arguments is None or arguments.named_child_count == 0:
        return None
    callee = _member(function, src)
    if callee is None or not callee.target_is(b"Object") or not callee.prop_is(b"create"):
        return None
    first = _member(arguments.named_children[0], src)
    return first.target if first is not None and first.prop_is(b"prototype") else None


def _module_exports(member: _Member, node: Node, right: Node, found: list[RoleMatch]) -> None:
    """``module.exports = X`` (an import of the file itself, see ``ecmascript``, and an
    export list), ``exports.a = a`` and ``module.exports.a = a``."""
    if member.module_exports():
        if (
            right.type == "identifier"
            or (right.type == "class" and right.child_by_field_name("name") is not None)
            or declared_name(node) is not None
        ):
            found.append(("import", {"import": [node]}))
        found.append(("exports", {"exports": [node]}))
    if right.type != "identifier" or not member.named:
        return
    inner = _member(member.target, member.src)  # module.exports.a = a
    if member.target_is(b"exports") or (inner is not None and inner.module_exports()):
        found.append(("exports", {"exports": [node]}))


def _this_binding(node: Node, left: Node, right: Node, src: bytes, found: list[RoleMatch]) -> None:
    """``this.repo = new Repo()``, ``= makeRepo()`` or ``= repo``: what the field holds."""
    caps: Captures = {"name": [left], "bind": [node]}
    if right.type == "new_expression":
        constructor = right.child_by_field_name("constructor")
        if constructor is None or not constructor.is_named:
            return
        caps["bind.new"] = [constructor]
    elif right.type == "call_expression":
        function = right.child_by_field_name("function")
        if function is None or function.type not in ("identifier", "member_expression"):
            return
        if _text(function, src) == b"require":
            return
        caps["bind.call"] = [function]
    elif right.type == "identifier":
        caps["bind.alias"] = [right]
    else:
        return
    found.append(("bind", caps))


def _member(node: Node, src: bytes) -> _Member | None:
    """``node`` as a ``_Member`` when it is an ``object.property`` expression."""
    if node.type != "member_expression":
        return None
    target, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
    return _Member(target, prop, src) if target is not None and prop is not None else None


def _text(node: Node, src: bytes) -> bytes:
    return src[node.start_byte : node.end_byte]
