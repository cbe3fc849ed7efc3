"""Terraform / HCL: resources, data sources, modules, variables, outputs, locals.

Conventions decided here:
- Top-level blocks are named as Terraform's own expressions name them, so that a use and
  its definition spell the same: ``variable "region"`` is the ``variable`` ``var.region``,
  ``locals { name = ... }`` gives the ``constant`` ``local.name``, ``resource "aws_s3_bucket"
  "logs"`` the ``object`` ``aws_s3_bucket.logs``, ``data "aws_ami" "ubuntu"`` the
  ``object`` ``data.aws_ami.ubuntu``, ``module "vpc"`` the ``module`` ``module.vpc``,
  ``output "ip"`` the ``property`` ``output.ip``. Other blocks (``provider``,
  ``terraform``) are configuration, not symbols.
- A traversal (``var.region``, ``module.vpc.subnet_id``, ``aws_instance.web[0].id``) is a
  ``references`` reference to the named block: its first segment and, for resources,
  data sources and modules, the labels after it.
- A ``module`` block's ``source = "./modules/vpc"`` is an import of that folder.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from repolens.parse.languages.common import first_string, unquote
from repolens.parse.model import Symbol
from repolens.parse.spec import DefContext, ImportSpec, LanguageSpec
from repolens.parse.text import node_text

_KINDS = {"variable": "variable", "output": "property", "resource": "object",
          "data": "object", "module": "module"}  # fmt: skip
_PREFIX = {"variable": "var.", "output": "output.", "data": "data.", "module": "module.",
           "resource": ""}  # fmt: skip
_TYPES = "|".join(_KINDS)

TOP_QUERY = f"""
(config_file (body (block (identifier) @_t . (string_lit) @name
  (#match? @_t "^({_TYPES})$")) @def.variable))
(config_file (body (block (identifier) @_t (body (attribute (identifier) @name) @def.constant)
  (#eq? @_t "locals"))))
"""

QUERY = """
(expression . (variable_expr) . [(get_attr) (index)]) @ref
(comment) @comment
(block (identifier) @_m (#eq? @_m "module")) @import
"""

# what a traversal names: ``var.x``/``local.x``, ``module.m``, ``data.t.n``, ``type.name``
_TRAVERSAL = re.compile(r"^(?:(var|local)\.\w+|module\.[\w-]+|data\.[\w-]+\.[\w-]+|[\w-]+\.[\w-]+)")
_NOT_BLOCKS = frozenset({"count", "each", "path", "self", "terraform"})


def _refine(sym: Symbol, ctx: DefContext) -> None:
    node = ctx.node
    if sym.kind == "constant":
        sym.name = sym.qualified_name = "local." + sym.name
        return
    block_type = node_text(node.named_child(0), ctx.src) if node.named_child(0) else ""
    labels = [unquote(node_text(c, ctx.src)) for c in node.named_children if c.type == "string_lit"]
    sym.kind = _KINDS.get(block_type, "variable")
    name = ".".join(labels[:2] if block_type in ("resource", "data") else labels[:1])
    sym.name = sym.qualified_name = _PREFIX.get(block_type, "") + name


def _ref_text(text: str) -> str:
    match = _TRAVERSAL.match(text)
    if match is None or text.split(".", 1)[0] in _NOT_BLOCKS:
        return ""
    return match.group(0)


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    body = next((c for c in node.named_children if c.type == "body"), None)
    for attribute in body.named_children if body is not None else []:
        key = attribute.named_child(0)
        if attribute.type == "attribute" and key is not None and node_text(key, src) == "source":
            source = first_string(attribute.named_child(1), src)
            if source:
                return [ImportSpec(source.split("//", 1)[0].split("?", 1)[0] or source)]
    return []


SPEC = LanguageSpec(
    language="terraform",
    grammar_module="tree_sitter_hcl",
    query=QUERY,
    top_query=TOP_QUERY,
    refine=_refine,
    imports=_imports,
    name_types=frozenset({"identifier", "string_lit"}),
    ref_text=_ref_text,
)
