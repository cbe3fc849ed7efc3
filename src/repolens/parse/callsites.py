"""Calls whose literal arguments resolution reads: route registrations, router mounts,
command and task registrations (``app.get("/orders/{id}", show)``, ``path("api/",
include("shop.urls"))``, ``r.Group("/v1")``).

A reference keeps only a callee's name; which URL a handler answers, or under which
prefix a router is mounted, lies in the arguments. Keeping every call's arguments would
cost the index for nothing, so only calls by the names registrations use are kept, and
the common words among them (``get``, ``path``, ``register``) only when their first
argument is a string, as a route's path is. The arguments are rendered as small plain
values (``parse.call_arguments``) that the framework rules of ``repolens.resolve.frameworks``
read without the syntax tree, whatever the language.
"""

from __future__ import annotations

import json
import re

from tree_sitter import Node

from repolens.parse.call_arguments import CALL_TYPES, MAX_TEXT, STRING_TYPES, render, render_items
from repolens.parse.model import CallSite
from repolens.parse.text import DOTTED, node_text

HTTP_VERBS = frozenset(
    [
        "get",
        "post",
        "put",
        "patch",
        "delete",
        "head",
        "options",
        "all",
        "any",
        "del",
        "websocket",
        "trace",
        "connect",
    ]
)
"""Route-registering method names, lower-cased (``router.get``, Gin's ``r.GET``, chi's
``r.Get``, ASP.NET's ``MapGet`` is ``map`` + verb)."""

_WITH_PATH = frozenset(
    [
        "route",
        "add_url_rule",
        "add_api_route",
        "add_route",
        "api_route",
        "add_websocket_route",
        "add_api_websocket_route",
        "path",
        "re_path",
        "url",
        "register",
        "group",
        "handle",
        "handlefunc",
        "mount",
        "nest",
        "scope",
        "resource",
        "service",
        "match",
        "basepath",
        "mapget",
        "mappost",
        "mapput",
        "mapdelete",
        "mappatch",
        "mapmethods",
        "mapgroup",
        "map",
        "add_parser",
        "addcommand",
        "command",
        "root",
    ]
)
"""Kept when the first argument is a string (``path("orders/", ...)``, ``r.Group("/v1")``)."""

_ALWAYS = frozenset(
    [
        "include_router",
        "register_blueprint",
        "blueprint",
        "apirouter",
        "fastapi",
        "flask",
        "starlette",
        "router",
        "use",
        "set_defaults",
        "add_command",
        "add_typer",
        "addcommand",
        "resources",
        "namespace",
        "nest",
        "mount",
        "route",
        "routes",
        "register",
        "hono",
        "express",
        "koa",
        "fastify",
        "scope",
        "group",
        "setglobalprefix",
        "member",
        "collection",
        "service",
        "merge",
    ]
)
"""Kept whatever their arguments: mounts and router constructors, whose prefix may be a
keyword (``include_router(r, prefix="/api")``, ``APIRouter(prefix="/items")``)."""

EVENT_CALLS = frozenset(
    [
        "on",
        "once",
        "addlistener",
        "prependlistener",
        "prependoncelistener",
        "emit",
        "trigger",
        "subscribe",
        "publish",
        "sendmessage",
        "addeventlistener",
        "dispatchevent",
    ]
)
"""Event wiring and sending (Node's ``emitter.on("job", f)``/``emit("job")``, pub/sub's
``subscribe``/``publish``, the DOM's ``addEventListener``/``dispatchEvent``): kept when
the event is named by a string among the first two arguments (PyPubSub's
``subscribe(listener, "topic")``) or, for ``dispatchEvent``, by a constructed event
(``new CustomEvent("cart:updated")``); ``resolve.synthesis.events`` pairs them by name."""

STORE_CALLS = frozenset(["append", "push", "add", "unshift", "appendleft", "addlast"])
"""Calls that put a value into a collection (``self._handlers.append(cb)``,
``this.listeners.push(cb)``, ``listeners.add(l)``, Go's ``append(s.hooks, h)``): kept
when the value is a parameter of the function written around them, which is how a
registrar stores a callback for a dispatcher to call later
(``resolve.synthesis.stored``)."""
STORE = "="
"""The name of the call site kept for an assignment of a parameter to a field
(``self.on_done = cb``, ``this.onChange = cb``): ``target`` is the field as written, the
one argument the parameter."""

_ASSIGN_TYPES = frozenset(
    [
        "assignment",
        "variable_declarator",
        "short_var_declaration",
        "assignment_expression",
        "let_declaration",
        "var_spec",
        "assignment_statement",
        "local_variable_declaration",
    ]
)
_WORDS = re.compile(r"\w+")


def is_kept(name: str, args: Node | None, recv: Node | None, src: bytes) -> bool:
    """Whether a call by ``name`` with ``args`` on ``recv`` is a call site worth keeping:
    also a verb chained on a route (Express's ``app.route("/book").get(show)``)."""
    low = name.lower()
    if low in _ALWAYS or _head(recv, src) == b"Route":  # Laravel's facade: every call
        return True
    if low in EVENT_CALLS:
        return _names_event(low, args, src)
    if low not in HTTP_VERBS and low not in _WITH_PATH:
        return False
    chained = recv is not None and recv.type in CALL_TYPES
    if chained and low in HTTP_VERBS and b".route(" in _head(recv, src):
        return True
    first = _first_argument(args)
    return first is not None and first.type in STRING_TYPES


def stores_parameter(name: str, args: Node | None, src: bytes, signature: str) -> bool:
    """Whether a call by ``name`` puts a parameter of the function (whose signature is
    ``signature``) into a collection: its last argument is that parameter's bare name."""
    if name.lower() not in STORE_CALLS or args is None or not signature:
        return False
    named = [c for c in args.named_children if c.type != "comment"]
    if not named or len(named) > 2:
        return False
    last = named[-1]
    if last.type in ("argument", "value_argument") and last.named_children:  # C#, Kotlin
        last = last.named_children[0]
    return last.type in ("identifier", "simple_identifier") and is_parameter(
        node_text(last, src), signature
    )


def is_parameter(name: str, signature: str) -> bool:
    """Whether ``name`` is among the parameters a signature lists (by the words written
    after its first parenthesis: cheap, and a parse keeps only what this lets through)."""
    start = signature.find("(")
    return start >= 0 and name in _WORDS.findall(signature, start)


def stored_parameter(field: str, value: Node, source: int | None) -> CallSite:
    """The record of ``field = value`` where ``value`` is a parameter (see ``STORE``)."""
    row, col = value.start_point
    name = value.text.decode("utf-8", "replace") if value.text else ""
    args = json.dumps([None, [["n", name]]], separators=(",", ":"))
    return CallSite(STORE, row + 1, col, source, value.start_byte, value.end_byte, field, args)


def _names_event(low: str, args: Node | None, src: bytes) -> bool:
    first = _first_argument(args)
    if first is None:
        return False
    if low == "dispatchevent":
        return first.type in CALL_TYPES and b"Event(" in _head(first, src)
    if first.type in STRING_TYPES:
        return True
    second = first.next_named_sibling
    while second is not None and second.type == "comment":
        second = second.next_named_sibling
    if second is not None and second.type == "argument" and second.named_children:
        second = second.named_children[0]
    return second is not None and second.type in STRING_TYPES


def _head(node: Node | None, src: bytes) -> bytes:
    if node is None:
        return b""
    return src[node.start_byte : min(node.end_byte, node.start_byte + 400)]


def _first_argument(args: Node | None) -> Node | None:
    if args is None:
        return None
    for child in args.named_children:
        if child.type not in ("comment",):
            return (
                child.named_children[0]
                if child.type == "argument" and child.named_children
                else child
            )
    return None


def call_site(
    name: str, call: Node, recv: Node | None, args: Node | None, src: bytes, source: int | None
) -> CallSite:
    """The record of a kept call: its receiver and arguments rendered, and the name it is
    assigned to (``bp = Blueprint(...)``, ``v1 := r.Group("/v1")``), if any."""
    rendered = [render(recv, src, 0) if recv is not None else None, render_items(args, src, 0)]
    row, col = call.start_point
    return CallSite(
        name=name,
        line=row + 1,
        col=col,
        source=source,
        start=call.start_byte,
        end=call.end_byte,
        target=_assigned_to(call, src),
        args=json.dumps(rendered, separators=(",", ":")),
    )


ARGUMENT_OF = "arg:"  # target of a call passed on: ``arg:0:users.Register`` (see ``_passed_to``)


def _assigned_to(call: Node, src: bytes) -> str:
    node = call
    for _ in range(3):
        parent = node.parent
        if parent is None:
            return ""
        if parent.type in ("argument_list", "arguments"):
            return _passed_to(node, parent, src)
        if parent.type in _ASSIGN_TYPES:
            left = parent.child_by_field_name("left") or parent.child_by_field_name("name")
            if left is None and parent.named_child_count:
                left = parent.named_children[0]
            if left is None or left.start_byte >= call.start_byte:
                return ""
            text = node_text(left, src).strip()
            first = text.split(",", 1)[0].strip()
            return first if DOTTED.fullmatch(first) else ""
        if parent.type not in ("expression_list", "await", "await_expression", "new_expression"):
            return ""
        node = parent
    return ""


def _passed_to(node: Node, args: Node, src: bytes) -> str:
    """``arg:N:callee`` for a call passed as the Nth argument of a call by a dotted name
    (Go's ``users.Register(v1.Group("/users"))``: the group is the callee's parameter)."""
    outer = args.parent
    function = outer.child_by_field_name("function") if outer is not None else None
    if function is None:
        return ""
    callee = node_text(function, src)
    if len(callee) > MAX_TEXT or not DOTTED.fullmatch(callee):
        return ""
    index = [c.id for c in args.named_children if c.type != "comment"].index(node.id)
    return f"{ARGUMENT_OF}{index}:{callee}"
