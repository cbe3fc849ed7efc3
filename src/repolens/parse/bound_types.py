"""What type a binding match states: the ``@bind`` sub-captures read into a type text.

``extract`` decides where a binding lives (its scope and name); this module reads what it
says: an annotation, a call whose result is meant, an alias of a name bound above, the
element type of what a loop iterates, and the lines a narrowing holds on.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from repolens.parse.defs import SymbolTable
from repolens.parse.model import (
    CALL_ELEMENT,
    CALL_RESULT,
    ELEMENT_OF,
    SECOND_RESULT,
    STATED,
    TYPE_BOUND,
    VALUE_OF,
    Binding,
    ParsedFile,
    Reference,
)
from repolens.parse.spec import FUNCTION_KINDS, TYPE_KINDS, Captures, LanguageSpec
from repolens.parse.text import DOTTED, expr_text, node_text, short_text, strip_generics
from repolens.parse.types import type_refs


@dataclass(slots=True)
class BoundTypes:
    """Reads the type of each binding match of one file, in match order: an alias or a
    loop reads the bindings already made (``out.bindings``) above it."""

    spec: LanguageSpec
    src: bytes
    table: SymbolTable
    out: ParsedFile
    refs: list[Reference]  # annotations add their ``type_of`` references here

    def narrowed(self, caps: Captures, scope: int | None) -> tuple[int, int] | None:
        """The lines a narrowing holds on: through its block (``if isinstance(x, T):``),
        through the captured node's parent (``@bind.within``: a comprehension, a Rust
        loop, a callback),
        or from after the node to the function's end (``if not isinstance(x, T): raise``,
        ``assert isinstance(x, T)``). None outside a function, whose names are not held
        line by line."""
        symbols = self.out.symbols
        if scope is None or symbols[scope].kind not in FUNCTION_KINDS:
            return None
        if "bind.within" in caps:  # a comprehension's, loop's or callback's variable
            around = caps["bind.within"][0].parent or caps["bind.within"][0]
            return around.start_point[0] + 1, around.end_point[0] + 1
        if "bind.block" in caps:
            return caps["bind"][0].start_point[0] + 1, caps["bind.block"][0].end_point[0] + 1
        return caps["bind.after"][0].end_point[0] + 2, symbols[scope].end_line

    def of(self, caps: Captures, node: Node, source: int | None) -> tuple[str, int]:
        """The type text a binding carries, and how (see ``Binding.from_call``).
        An annotation also yields ``type_of`` references (from ``source``), unless the
        ``@field`` pattern repeats one another pattern already reported."""
        src = self.src
        if "bind.type" in caps:
            type_node = caps["bind.type"][0]
            if "field" not in caps:
                self.refs.extend(type_refs(self.spec, src, type_node, "type_of", source))
            return self.spec.clean_type(short_text(type_node, src)), STATED
        if "bind.call" in caps:  # a callee, or a whole call where the grammar has no callee
            return expr_text(caps["bind.call"][0], src).removesuffix("()"), CALL_RESULT
        if "bind.value" in caps:  # `a or f()`, `(f() if c else None)`: read by the spec
            hook = self.spec.value_call
            called = hook(caps["bind.value"][0]) if hook is not None else None
            return (expr_text(called, src), CALL_RESULT) if called is not None else ("", STATED)
        if "bind.second" in caps:  # `route, router := split()`: its second result
            return expr_text(caps["bind.second"][0], src), SECOND_RESULT
        if "bind.item" in caps:  # `conn = self.conns[i]`: an item of what holds it
            return expr_text(caps["bind.item"][0], src), VALUE_OF
        if "bind.await" in caps:  # `x = await f()`: what calling `f` gives
            text = _awaited_callee(caps["bind.await"][0], src)
            return (text, CALL_RESULT) if DOTTED.fullmatch(text) else ("", STATED)
        if "bind.new" in caps:
            text = short_text(caps["bind.new"][0], src)
            return strip_generics(self.spec.clean_type(text)), STATED
        if "bind.self" in caps:
            return self._self_type(node), STATED
        if "bind.alias" in caps:
            alias = caps["bind.alias"][0]
            text = short_text(alias, src)
            found = self._alias_type(text, source, alias.start_point[0] + 1)
            if not found[0] and (source is None or self.is_type(source)) and DOTTED.fullmatch(text):
                return text, VALUE_OF  # `money = util.format_price`, `sum_up = make`
            return found
        if "bind.iter" in caps:
            return self._iterated(caps["bind.iter"][0], source)
        if "bind.iter_call" in caps:
            callee = expr_text(caps["bind.iter_call"][0], src)
            return self._element_of_call(callee, source)
        if "bind.bound" in caps:
            return self.spec.clean_type(short_text(caps["bind.bound"][0], src)), TYPE_BOUND
        if "bind.of" in caps:  # `const { a, b: c } = utils`: `c` holds `utils.b`
            key = caps.get("bind.key") or caps["name"]
            return f"{expr_text(caps['bind.of'][0], src)}.{short_text(key[0], src)}", VALUE_OF
        return "", STATED

    def _alias_type(self, name: str, scope: int | None, line: int) -> tuple[str, int]:
        """``self.console = console``: what the latest binding of ``name`` in the same
        scope says (a typed parameter, ``x = Repo()`` above), else nothing. A union
        (``A | B``) names no one type: copied to a field, it would hide the field's
        other assignments, so it is not."""
        bound = self._latest(name, scope, line)
        if bound is None:
            return "", STATED
        union = "|" in bound.type_name or bound.type_name.startswith("Union[")
        return ("", STATED) if union else (bound.type_name, bound.from_call)

    def _latest(self, name: str, scope: int | None, line: int) -> Binding | None:
        """The latest binding of ``name`` in ``scope`` above, holding on ``line`` (a
        narrowing holds on its own lines only)."""
        for bound in reversed(self.out.bindings):
            held = bound.end_line is None or bound.line <= line <= bound.end_line
            if bound.scope == scope and bound.name == name and held:
                return bound
        return None

    def _element_type(self, iterable: str, scope: int | None, line: int) -> tuple[str, int]:
        """``for n in nodes`` / ``for c in self.children``: the element type of what the
        latest binding of the iterable states (``nodes: list[Node]`` gives ``Node``), or
        an element of the call it holds (``nodes = tree.nodes()``); a name bound elsewhere
        (``book.lines``, an inherited ``self.lines``, a list of the function a callback
        or nested function is in) is left to the resolver."""
        hook = self.spec.element_type
        head = iterable.split(".", 1)[0]
        if hook is None:
            return "", STATED
        if head != iterable and head not in self.spec.self_names:
            return iterable, ELEMENT_OF  # `for line in book.lines`: found by the resolver
        if head != iterable:  # `self.children`: a field, bound in the class
            scope = self.table.enclosing_type(scope)
        bound = self._latest(iterable, scope, line)
        if bound is None:  # bound around this function, or elsewhere: the resolver's
            return (iterable, ELEMENT_OF) if DOTTED.fullmatch(iterable) else ("", STATED)
        if bound.from_call == CALL_RESULT:
            return bound.type_name, CALL_ELEMENT
        if bound.from_call:
            return "", STATED
        element = hook(bound.type_name)
        if element or bound.type_name in self.spec.builtin_types:
            return element, STATED
        if DOTTED.fullmatch(bound.type_name):  # a type defined as a container (Go's
            return iterable, ELEMENT_OF  # `type Errors []FieldError`): the resolver's
        return "", STATED

    def _iterated(self, iterable: Node, scope: int | None) -> tuple[str, int]:
        """An element of what ``iterable`` holds: a typed name or path (``_element_type``),
        a call's result (``this.all().forEach(...)``), or the receiver's own elements
        where the call keeps them (``xs.filter(f).forEach(...)``, ``spec.same_elements``)."""
        function = _called(iterable)
        if function is None:
            line = iterable.start_point[0] + 1
            return self._element_type(short_text(iterable, self.src), scope, line)
        member = function.named_children
        if len(member) == 2 and node_text(member[1], self.src) in self.spec.same_elements:
            return self._iterated(member[0], scope)
        callee = expr_text(function, self.src)
        return self._element_of_call(callee, scope) if DOTTED.fullmatch(callee) else ("", STATED)

    def _element_of_call(self, callee: str, scope: int | None) -> tuple[str, int]:
        """``for n in self.nodes()`` / ``for n in nodes()``: the element type of what this
        file's method of the enclosing class, or its module-level function, is annotated to
        return (``-> list[Node]`` gives ``Node``). Any other callee's is left to the
        resolver, which finds the function and what iterating its result ``yields``."""
        hook = self.spec.element_type
        if hook is None:
            return "", STATED
        head, _, name = callee.rpartition(".")
        if not head or head in self.spec.self_names:
            owner = self.table.enclosing_type(scope) if head else None
            for sym in self.out.symbols:
                if sym.name == name and sym.parent == owner and sym.kind in FUNCTION_KINDS:
                    return (hook(sym.return_type), STATED) if sym.return_type else ("", STATED)
        return callee, CALL_ELEMENT

    def _self_type(self, node: Node) -> str:
        """The type a method's ``self`` parameter stands for."""
        method = self.table.enclosing(node.start_byte)
        if method is None:
            return ""
        sym = self.out.symbols[method]
        if sym.parent is not None and self.out.symbols[sym.parent].kind in TYPE_KINDS:
            return self.out.symbols[sym.parent].name
        parts = sym.qualified_name.rsplit(".", 2)
        return parts[-2] if len(parts) > 1 else ""

    def is_type(self, scope: int | None) -> bool:
        return scope is not None and self.out.symbols[scope].kind in TYPE_KINDS


def _called(node: Node) -> Node | None:
    """What ``node`` calls when it is a call (any grammar whose call has ``function`` and
    ``arguments`` fields), else None."""
    function = node.child_by_field_name("function")
    return function if node.child_by_field_name("arguments") is not None else None


def _awaited_callee(node: Node, src: bytes) -> str:
    """``f`` of ``await f(x)``, or ''."""
    awaited = node.named_children
    function = _called(awaited[0]) if awaited else None
    return expr_text(function, src) if function is not None else ""
