"""What the non-definition matches of a file's query become: references (calls,
values passed by name, types), bindings (what a name holds, for receiver types), imports,
exports, and the call sites resolution reads (``parse.callsites``, ``parse.lookups``).

``parse.extract`` runs the query and builds the symbols first; it hands every other match
to ``RoleHandlers`` by its role (the vocabulary of ``repolens.parse.spec``), which keeps
the per-file state those records need: local aliases (``get_style = console.get_style``),
type variables, locals and bound types.
"""

from __future__ import annotations

from collections.abc import Callable

from tree_sitter import Node

from repolens.parse.bound_types import BoundTypes
from repolens.parse.callsites import (
    call_site,
    is_kept,
    is_parameter,
    stored_parameter,
    stores_parameter,
)
from repolens.parse.defs import SymbolTable
from repolens.parse.locals import Locals, held_in
from repolens.parse.lookups import is_lookup, lookup_site
from repolens.parse.model import (
    CALL_ELEMENT,
    CALL_RESULT,
    ELEMENT_OF,
    SECOND_RESULT,
    TYPE_BOUND,
    VALUE_OF,
    Binding,
    Import,
    ParsedFile,
    Reference,
)
from repolens.parse.spec import FUNCTION_KINDS, Captures, LanguageSpec
from repolens.parse.text import (
    DOTTED,
    expr_text,
    short_text,
    split_last,
    split_qualified,
    strip_generics,
)
from repolens.parse.types import type_refs

_REF_MAX = 120  # bytes: longer "names" passed as values are expressions, not callbacks
_PATH_MODES = frozenset({CALL_RESULT, CALL_ELEMENT, ELEMENT_OF, VALUE_OF, SECOND_RESULT})
RETURN = "return"  # the name a function's own `return` statement binds (see ``binding``)


def _decorating(call: Node) -> bool:
    """A decorator's call (``@bp.route("/x")``): resolution reads decorators as written."""
    parent = call.parent
    return parent is not None and parent.type in ("decorator", "attribute_item", "annotation")


OPAQUE_TYPES = frozenset({"Any", "any", "unknown", "object", "Object", "AnyObject", "AnyRef"})
"""Types that say nothing of a value's members: a call on such a value may still be
guessed by name, as on a value of no stated type."""


def _says_nothing(type_name: str, type_variables: set[str]) -> bool:
    """Whether a binding to this builtin type is not worth keeping: an opaque type, or a
    lone letter (``T``), a type variable of nothing a project defines. Any other builtin
    type is kept: ``s: str`` makes ``s.casefold()`` a builtin call, never a guess at a
    project's method of that name."""
    return type_name in OPAQUE_TYPES or (len(type_name) == 1 and type_name not in type_variables)


class RoleHandlers:
    """Turns non-definition matches into references, bindings, imports and exports."""

    def __init__(
        self,
        spec: LanguageSpec,
        src: bytes,
        table: SymbolTable,
        out: ParsedFile,
        refs: list[Reference],
    ) -> None:
        self.spec = spec
        self.src = src
        self.table = table
        self.out = out
        self.refs = refs
        # (function, local) -> the dotted name it holds: `get_style = console.get_style`
        self.aliases: dict[tuple[int, str], str] = {}
        self.type_variables: set[str] = set()  # `<T extends Node>`: `x: T` is worth binding
        self.types = BoundTypes(spec, src, table, out, refs)
        self.locals = Locals(spec, src, table)

    def handlers(self) -> dict[str, Callable[[str, Captures], None]]:
        """The method for each role. Patterns of one role must never match the same node
        twice: there is no dedup. Built per call, not kept: bound methods held by their
        own object would keep the file's records in a cycle after the parse."""
        return {
            "call": self.call,
            "new": self.call,
            "ref": self.value_ref,
            "bind": self.binding,
            "type_of": self.type_of,
            "import": self.imports,
            "exports": self.exports,
        }

    def call(self, role: str, caps: Captures) -> None:
        src = self.src
        name_nodes = caps.get("name")
        receiver: str | None = None
        if name_nodes:
            name_node = name_nodes[0]
            name = src[name_node.start_byte : name_node.end_byte].decode("utf-8", "replace")
            recv = caps.get("recv")
            if recv:
                receiver = expr_text(recv[0], src)
        elif "qname" in caps:
            name_node = caps["qname"][0]
            text = strip_generics(expr_text(name_node, src))
            name, receiver = split_qualified(text, self.spec.separator)
        else:
            return
        if self.spec.call_name is not None:
            name = self.spec.call_name(name)
        args = caps.get("args")
        row, col = name_node.start_point
        kind = "calls" if role == "call" else "instantiates"
        source = self.table.enclosing(caps[role][0].start_byte)
        if self.aliases and source is not None:
            name, receiver = self._unalias(source, name, receiver)
        count = args[0].named_child_count if args else -1
        self.refs.append(Reference(kind, name, row + 1, col, receiver, source, count))
        call = caps[role][0]
        recv_node = caps["recv"][0] if "recv" in caps else None
        arg_node = args[0] if args else None
        kept = is_kept(name, arg_node, recv_node, src) and not _decorating(call)
        if kept or (
            source is not None
            and stores_parameter(name, arg_node, src, self.out.symbols[source].signature)
        ):
            self.out.call_sites.append(call_site(name, call, recv_node, arg_node, src, source))
        elif arg_node is not None and is_lookup(name, arg_node, src):
            self.out.call_sites.append(lookup_site(name, call, arg_node, src, source))

    def _unalias(self, scope: int, name: str, receiver: str | None) -> tuple[str, str | None]:
        """A call through a local alias is a call of what it names: ``_Segment(...)``
        after ``_Segment = Segment`` calls ``Segment``; ``console.print`` after
        ``console = self.console`` is ``self.console.print``."""
        if receiver is None:
            target = self.aliases.get((scope, name))
            return split_last(target) if target else (name, None)
        head, dot, rest = receiver.partition(".")
        target = self.aliases.get((scope, head))
        return (name, target + dot + rest) if target else (name, receiver)

    def _unaliased(self, scope: int, path: str) -> str:
        """A callee or iterable read through the local alias it starts with, as calls
        are: ``found = cache.findAll()`` after ``cache = this.#cache`` holds what
        ``this.#cache.findAll`` returns."""
        receiver, dot, name = path.rpartition(".")
        name, through = self._unalias(scope, name, receiver if dot else None)
        return f"{through}.{name}" if through else name

    def _note_alias(self, scope: int | None, name: str, value: list[Node]) -> None:
        """Remember ``name = a.b`` inside a function; ``node = node.next`` or binding
        ``name`` to anything else ends it."""
        if scope is None or self.out.symbols[scope].kind not in FUNCTION_KINDS:
            return
        text = short_text(value[0], self.src) if value else ""
        if DOTTED.fullmatch(text) and text.split(".", 1)[0] != name:
            self.aliases[(scope, name)] = text
        else:
            self.aliases.pop((scope, name), None)

    def type_of(self, role: str, caps: Captures) -> None:
        node = caps[role][0]
        source = self.table.enclosing(node.start_byte)
        self.refs.extend(type_refs(self.spec, self.src, node, "type_of", source))

    def exports(self, role: str, caps: Captures) -> None:
        self.out.exports.extend(self.spec.exports(caps[role][0], self.src))

    def value_ref(self, role: str, caps: Captures) -> None:
        node = caps[role][0]
        start, end = node.start_byte, node.end_byte
        if end - start > _REF_MAX:
            return  # an attribute of some long expression: not a callback's name
        text = self.src[start:end].decode("utf-8", "replace")
        if text.startswith("::"):  # Kotlin's `::refresh`: a function of this scope
            text = text[2:]
        if self.spec.ref_text is not None:  # a dotted name that is one name (`var.region`)
            name, receiver = self.spec.ref_text(text), None
            if not name:
                return
        elif text in self.spec.skip_refs or not DOTTED.fullmatch(text):
            return
        else:
            name, receiver = split_last(text)  # `a.b`, `A::b`, Java's `this::handle`
        source = self.table.enclosing(start)
        if receiver is None and self.locals.holds(source, name, start):
            return  # only ever a local (see ``params``)
        row, col = node.start_point
        self.refs.append(Reference("references", name, row + 1, col, receiver, source))

    def binding(self, role: str, caps: Captures) -> None:
        node = caps[role][0]
        spec = self.spec
        name = short_text(caps["name"][0], self.src)
        inner = self.table.enclosing(node.start_byte)
        scope = inner
        head = name.split(".", 1)[0]
        member = "field" in caps
        if head != name:
            if head not in spec.self_names:
                return  # `obj.x = ...` says nothing about a scope we track
            self._note_stored(name, caps.get("bind.alias", []), inner)
            scope = self.table.enclosing_type(inner)
        elif member:
            scope = self.table.enclosing_type(inner)
            name = f"{spec.self_prefix}.{name}"
        elif self.aliases or "bind.alias" in caps:  # any other binding ends an alias
            self._note_alias(inner, name, caps.get("bind.alias", []))
        if name == RETURN and self.locals.closure_around(node, inner) is not None:
            return  # a callback's `return new X()` is the callback's, not the function's
        type_name, from_call = self.types.of(caps, node, inner)
        if self.aliases and inner is not None and from_call in _PATH_MODES:
            type_name = self._unaliased(inner, type_name)
        if from_call == TYPE_BOUND:
            self.type_variables.add(name)
        elif type_name in spec.builtin_types and _says_nothing(type_name, self.type_variables):
            return
        if not type_name:
            return
        line, end = node.start_point[0] + 1, None
        if "bind.block" in caps or "bind.after" in caps or "bind.within" in caps:
            held = self.types.narrowed(caps, inner)
            if held is None:
                return
            line, end = held
        elif spec.closure_types and head == name and not member:
            closure = self.locals.closure_around(node, inner)
            if closure is not None:  # `r.Route("/", func(r Router) {...})`: that `r`
                first, end = held_in(closure)
                line = max(line, first)
        bindings = self.out.bindings
        bindings.append(Binding(scope, name, type_name, line, from_call, end))
        if (
            spec.self_prefix
            and head == name
            and from_call != TYPE_BOUND
            and self.types.is_type(scope)
        ):
            field = f"{spec.self_prefix}.{name}"
            bindings.append(Binding(scope, field, type_name, line, from_call))

    def _note_stored(self, field: str, values: list[Node], inner: int | None) -> None:
        """``self.on_done = cb`` with ``cb`` a parameter: a callback stored for later."""
        if not values or inner is None or values[0].type != "identifier":
            return
        value = values[0]
        name = self.src[value.start_byte : value.end_byte].decode("utf-8", "replace")
        if is_parameter(name, self.out.symbols[inner].signature):
            self.out.call_sites.append(stored_parameter(field, value, inner))

    def imports(self, role: str, caps: Captures) -> None:
        node = caps[role][0]
        line = node.start_point[0] + 1
        source = self.table.enclosing_outside(node)
        for item in self.spec.imports(node, self.src, self.out.path):
            self.out.imports.append(
                Import(
                    module=item.module,
                    line=item.line or line,
                    name=item.name,
                    alias=item.alias,
                    level=item.level,
                    is_wildcard=item.is_wildcard,
                    is_reexport=item.is_reexport,
                    source=None if item.is_reexport else source,
                )
            )

    def mark_exports(self) -> None:
        """Names in an explicit export list are exported whatever their spelling, and so are
        their public members; imports they name become re-exports."""
        out = self.out
        if not out.exports:
            return
        out.exports = list(dict.fromkeys(out.exports))
        listed = set(out.exports)
        symbols = out.symbols
        for sym in symbols:
            if sym.parent is None:
                if sym.name in listed:
                    sym.is_exported = True
            elif sym.visibility == "public" and not sym.is_exported:
                parent = symbols[sym.parent]
                sym.is_exported = parent.is_exported and parent.kind not in FUNCTION_KINDS
        for imp in out.imports:
            if imp.local_name in listed:
                imp.is_reexport = True
