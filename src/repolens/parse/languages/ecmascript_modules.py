"""How an ECMAScript file imports and exports, as ``LanguageSpec.imports`` and
``LanguageSpec.exports`` hooks: ES modules (``import``, ``export … from``, ``export { a as
b }``, ``export default``) and CommonJS (``require``, ``module.exports``, ``exports.a =
a``), by the conventions ``ecmascript`` states.
"""

from __future__ import annotations

import posixpath
from dataclasses import replace

from tree_sitter import Node

from repolens.parse.languages.ecmascript_assignments import declared_name
from repolens.parse.spec import ImportSpec
from repolens.parse.text import node_text


def _string(node: Node | None, src: bytes) -> str | None:
    if node is None or node.type not in ("string", "template_string"):
        return None
    return node_text(node, src)[1:-1]


def own_module(path: str) -> str:
    """How this file would import itself: ``./<stem>``."""
    stem = posixpath.basename(path.replace("\\", "/")).split(".", 1)[0]
    return "./" + stem


def imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    """Import statements, re-exports, own default/aliased exports and ``require``."""
    if node.type == "import_statement":
        return _import_statement(node, src)
    if node.type == "export_statement":
        return _export_statement(node, src, path)
    if node.type == "assignment_expression":
        return _module_exports(node, src, path)
    parent = node.parent
    if parent is not None and parent.type == "variable_declarator" and _calls_require(node, src):
        line = parent.start_point[0] + 1  # where `const {` starts, above a long list
        return [replace(spec, line=line) for spec in _require(parent, src)]
    arguments = node.child_by_field_name("arguments")
    module = _string(arguments.named_child(0) if arguments is not None else None, src)
    return [ImportSpec(module)] if module is not None else []


def _import_statement(node: Node, src: bytes) -> list[ImportSpec]:
    module = _string(node.child_by_field_name("source"), src)
    if module is None:
        return []
    clause = next((c for c in node.named_children if c.type == "import_clause"), None)
    if clause is None:
        return [ImportSpec(module)]  # import './side-effect'
    found: list[ImportSpec] = []
    for part in clause.named_children:
        if part.type == "identifier":
            found.append(ImportSpec(module, "default", node_text(part, src)))
        elif part.type == "namespace_import":
            alias = part.named_child(0)
            found.append(ImportSpec(module, None, node_text(alias, src) if alias else None))
        elif part.type == "named_imports":
            found += [_specifier(s, src, module) for s in part.named_children if s.is_named]
    return [spec for spec in found if spec.module or spec.name]


def _specifier(node: Node, src: bytes, module: str, reexport: bool = False) -> ImportSpec:
    name = node.child_by_field_name("name")
    alias = node.child_by_field_name("alias")
    return ImportSpec(
        module,
        node_text(name, src) if name is not None else None,
        node_text(alias, src) if alias is not None else None,
        is_reexport=reexport,
    )


def _export_statement(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    module = _string(node.child_by_field_name("source"), src)
    if module is None:
        return _own_reexports(node, src, path) + _own_default(node, src, path)
    found: list[ImportSpec] = []
    for part in node.named_children:
        if part.type == "export_clause":
            found += [_specifier(s, src, module, True) for s in part.named_children]
        elif part.type == "namespace_export":
            alias = part.named_child(0)
            found.append(ImportSpec(module, None, node_text(alias, src) if alias else None))
            found[-1].is_reexport = True
    if not found:  # export * from 'm'
        found.append(ImportSpec(module, is_wildcard=True, is_reexport=True))
    return found


def _own_default(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    """``export default f`` / ``export default class A``: ``default`` names a local."""
    target = node.child_by_field_name("declaration") or node.child_by_field_name("value")
    if target is None or not any(c.type == "default" for c in node.children):
        return []
    if target.type == "object":
        return _default_object(target, src, own_module(path))
    name = target if target.type == "identifier" else target.child_by_field_name("name")
    if name is None:
        return []
    return [ImportSpec(own_module(path), node_text(name, src), "default", is_reexport=True)]


MODULE_EXPORTS = "module.exports"
"""The name under which a file re-exports what ``module.exports = X`` assigns: what a plain
``require`` of the file gives (see ``repolens.resolve.languages.typescript``)."""


def _module_exports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    """``module.exports = Request`` / ``= class Application {}``: ``require`` of the file
    gives that one value, and so does a default import (CommonJS interop)."""
    value = node.child_by_field_name("right")
    name = (
        value.child_by_field_name("name") if value is not None and value.type == "class" else value
    )
    if name is None or name.type not in ("identifier", "type_identifier"):
        name = declared_name(node)  # `var app = module.exports = {}`
    if name is None:
        return []
    local, own = node_text(name, src), own_module(path)
    return [
        ImportSpec(own, local, alias, is_reexport=True) for alias in (MODULE_EXPORTS, "default")
    ]


def _default_object(node: Node, src: bytes, own: str) -> list[ImportSpec]:
    """``export default { isArray, hasOwnProp: hasOwnProperty }`` (axios' ``utils``): the
    default import is this module, whose members the object lists under their keys."""
    found = [ImportSpec(own, None, "default", is_reexport=True)]
    for pair in (c for c in node.named_children if c.type == "pair"):
        key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
        if key is None or value is None or value.type != "identifier":
            continue
        alias, local = node_text(key, src), node_text(value, src)
        if alias != local:
            found.append(ImportSpec(own, local, alias, is_reexport=True))
    return found


def _calls_require(call: Node, src: bytes) -> bool:
    function = call.child_by_field_name("function")
    return (
        function is not None
        and function.type == "identifier"
        and node_text(function, src) == "require"
    )


def _require(node: Node, src: bytes) -> list[ImportSpec]:
    value = node.child_by_field_name("value")
    arguments = value.child_by_field_name("arguments") if value is not None else None
    module = _string(arguments.named_child(0) if arguments is not None else None, src)
    target = node.child_by_field_name("name")
    if module is None or target is None:
        return []
    if target.type == "identifier":
        return [ImportSpec(module, None, node_text(target, src))]
    found: list[ImportSpec] = []
    for part in target.named_children:
        if part.type == "shorthand_property_identifier_pattern":
            found.append(ImportSpec(module, node_text(part, src)))
        elif part.type == "pair_pattern":
            key, value = part.child_by_field_name("key"), part.child_by_field_name("value")
            if key is not None and value is not None:
                found.append(ImportSpec(module, node_text(key, src), node_text(value, src)))
    return found


def exports(node: Node, src: bytes) -> list[str]:
    """Local names a file exports by list: ``export { a, b as c }``, ``module.exports``."""
    if node.type == "export_statement":
        value = node.child_by_field_name("value")
        if value is not None:  # `export default { isArray }`: see `_default_object`
            return _object_names(value, src)
        if node.child_by_field_name("source") is not None:
            return []
        clause = next((c for c in node.named_children if c.type == "export_clause"), None)
        specs = clause.named_children if clause is not None else []
        locals_ = [s.child_by_field_name("name") for s in specs]
        return [node_text(n, src) for n in locals_ if n is not None]
    right = node.child_by_field_name("right")
    if right is None:
        return []
    if right.type == "identifier":
        return [node_text(right, src)]
    holder = declared_name(node)  # `var app = module.exports = {}`
    names = [node_text(holder, src)] if holder is not None else []
    return names + _object_names(right, src) if right.type == "object" else names


def _object_names(node: Node, src: bytes) -> list[str]:
    """The local names an object literal lists: ``{ a, b: c }`` -> a, c."""
    names: list[str] = []
    for part in node.named_children:
        if part.type == "shorthand_property_identifier":
            names.append(node_text(part, src))
        elif part.type == "pair":
            value = part.child_by_field_name("value")
            if value is not None and value.type == "identifier":
                names.append(node_text(value, src))
    return names


def _own_reexports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    """``export { a as b }`` without a source: ``b`` re-exports the local ``a``."""
    found: list[ImportSpec] = []
    for clause in (c for c in node.named_children if c.type == "export_clause"):
        for spec in clause.named_children:
            item = _specifier(spec, src, own_module(path), True)
            if item.alias and item.alias != item.name:
                found.append(item)
    return found
