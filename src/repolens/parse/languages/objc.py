"""Objective-C: C's declarations plus classes, protocols, categories, methods, messages.

Conventions decided here:
- ``@interface Cart : NSObject <Pricing>`` is the ``class`` ``Cart`` (``NSObject``
  extended, ``Pricing`` implemented) with its ``@property``s; ``@protocol P`` is a
  ``protocol``. An ``@implementation Cart`` block is not a second class: its methods
  belong to ``Cart`` (like a Rust ``impl``), so with the header and its ``.m`` paired as
  one module (the C family's resolver) ``[self subtotal]`` finds the method.
- A method is named by its selector's first part (``- (void)add:(id)x to:(id)y`` is
  ``add``), as a message names it (``[cart add:x to:y]`` calls ``add`` on ``cart``);
  ``+`` methods are static. ``[Cart alloc]``/``[Cart new]`` instantiates ``Cart``.
- ``#import``/``#include`` are the C family's includes; ``@import UIKit;`` is a system
  module (external).
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.languages import c, cfamily
from repolens.parse.model import Symbol
from repolens.parse.spec import DefContext, LanguageSpec
from repolens.parse.text import node_text

QUERY = (
    cfamily.COMMON_QUERY
    + """
(class_interface . (identifier) @name) @def.class
(protocol_declaration . (identifier) @name) @def.protocol
(class_implementation . (identifier) @owner.type) @owner
(method_definition (identifier) @name) @def.method
(property_declaration (struct_declaration (struct_declarator
  [(identifier) @name (pointer_declarator declarator: (identifier) @name)]))) @def.property

(message_expression receiver: (_) @recv method: (identifier) @name
  (#not-match? @name "^(alloc|new)$")) @call
(message_expression receiver: (identifier) @name method: (identifier) @_new
  (#match? @_new "^(alloc|new)$")) @new
"""
)


def _refine(sym: Symbol, ctx: DefContext) -> None:
    c.SPEC.refine(sym, ctx)
    if sym.kind == "method":
        sym.is_static = node_text(ctx.node, ctx.src).lstrip().startswith("+")


def _heritage(node: Node) -> list[tuple[str, Node]]:
    if node.type != "class_interface":
        return []
    found: list[tuple[str, Node]] = []
    superclass = node.child_by_field_name("superclass")
    if superclass is not None:
        found.append(("extends", superclass))
    for child in node.named_children:
        if child.type == "parameterized_arguments":
            found += [("implements", t) for t in child.named_children if t.type == "type_name"]
    return found


SPEC = LanguageSpec(
    language="objc",
    grammar_module="tree_sitter_objc",
    query=QUERY,
    refine=_refine,
    imports=cfamily.includes,
    heritage=_heritage,
    clean_type=cfamily.clean_type,
    body_fields=("body", "value"),
    name_types=frozenset({"type_identifier", "identifier"}),
    builtin_types=cfamily.BUILTIN_TYPES,
    self_names=frozenset({"self"}),
    skip_refs=frozenset({"NULL", "nil", "self", "YES", "NO"}),
)
