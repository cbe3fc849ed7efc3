"""Vue and Svelte single-file components: the component, its scripts and style imports.

The file is parsed with the HTML grammar, whose ``script_element``/``style_element`` hold
the blocks as raw text. A script block is an ``@embed``: the engine extracts it with the
TypeScript spec (TSX for ``lang="tsx"``/``"jsx"``; TypeScript reads plain JavaScript
too) over the block's byte range, so symbols, calls, typed names and imports keep their
real lines in the component file. A style block's ``@import``/``@use`` lines are read as
in ``stylesheets``.

The file itself is a ``component`` symbol named after the file (``OrderList.vue`` ->
``OrderList``) and is the file's default export, so ``import OrderList from
'./OrderList.vue'`` binds it. Code that runs per component instance belongs to it (Vue
``<script setup>``, Svelte's instance ``<script>``: ``OrderList.load``); code that runs
once per module stays at module level (Vue's plain ``<script>``, Svelte's
``<script context="module">``/``<script module>``), so its exports can be imported by
name. In the markup, a component used as a tag (``<OrderRow :order="o"/>``; in Vue also
``<order-row>``) is an instantiation of that name by the component, like ``new
OrderRow()``: it resolves to what the script imports under that name. An event handler
named as an event attribute's value (Vue ``@click="archive"``/``v-on:click``, Svelte
``on:click={archive}``, or the one function it calls: ``@click="remove(item)"``) is a
reference from the component, which synthesis turns
into the call the framework makes (``resolve.synthesis.handlers``). Other names used in
markup expressions make no reference.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from tree_sitter import Node

from repolens.parse.languages import stylesheets
from repolens.parse.model import Symbol
from repolens.parse.spec import DefContext, Embedded, EmbedHook, ImportSpec, LanguageSpec
from repolens.parse.text import file_stem, node_text

QUERY = """
(comment) @comment
(document) @import
(script_element (raw_text) @embed)
(style_element (raw_text) @import)
"""
# An event attribute whose value may name its handler; the value is a reference only
# where it names one function (``_handler``). Vue: `@click`, `v-on:click.stop`; Svelte:
# `on:click|once`, and Svelte 5's `onclick` (in Vue a plain DOM attribute: its code runs
# in the page's global scope, never the component's).
VUE_EVENTS = "^(@|v-on:)"
SVELTE_EVENTS = "^(on:|on[a-z]+$)"
_HANDLERS = """
(attribute (attribute_name) @_event (#match? @_event "{pattern}")
  [(attribute_value) @ref (quoted_attribute_value (attribute_value) @ref)])
"""
_HANDLER = re.compile(r"(?:\(\s*\)\s*=>\s*)?([A-Za-z_$][\w$]*)(?:\s*\([^()]*\))?")
# A tag whose name matches one of these patterns names a component, not an HTML element.
PASCAL_TAG = "^[A-Z]"
KEBAB_TAG = "^[a-z][a-z0-9]*(-[a-z0-9]+)+$"  # Vue resolves `order-row` to OrderRow
_TAGS = """
(start_tag (tag_name) @name (#match? @name "{pattern}")) @new
(self_closing_tag (tag_name) @name (#match? @name "{pattern}")) @new
"""

_SCRIPT_LANGUAGES = {
    "": "typescript", "ts": "typescript", "typescript": "typescript", "js": "typescript",
    "javascript": "typescript", "tsx": "tsx", "jsx": "tsx",
}  # fmt: skip
_SCRIPT_TYPES = frozenset(
    {"", "module", "text/javascript", "application/javascript", "text/typescript"}
)

Attributes = dict[str, str]
InstanceRule = Callable[[Attributes], bool]  # does a script with these attributes run per
# component instance (its code belongs to the component) or once per module?


def _attributes(element: Node | None, src: bytes) -> Attributes:
    """The attributes of an element's start tag, names lowercased (``setup`` -> "")."""
    tag = element.child(0) if element is not None else None
    found: Attributes = {}
    for attr in tag.named_children if tag is not None and tag.type == "start_tag" else []:
        parts = attr.named_children if attr.type == "attribute" else []
        if parts:  # (attribute_name) and, unless it is a bare flag, its value
            value = node_text(parts[1], src).strip("\"'") if len(parts) > 1 else ""
            found[node_text(parts[0], src).lower()] = value
    return found


def _script(instance: InstanceRule) -> EmbedHook:
    """The ``embedded`` hook of a component language: which grammar reads a script block,
    and whether it runs per component ``instance``."""

    def embedded(node: Node, src: bytes) -> Embedded | None:
        attrs = _attributes(node.parent, src)
        language = _SCRIPT_LANGUAGES.get(attrs.get("lang", "").lower())
        if language is None or attrs.get("type", "").lower() not in _SCRIPT_TYPES:
            return None  # CoffeeScript, JSON-LD, templates: not code we read
        return Embedded(language, in_file_symbol=instance(attrs))

    return embedded


def imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    """Style imports, and the component as the file's own default export (re-exported
    from the file itself, as ``ecmascript`` records ``export default f``)."""
    if node.type == "document":
        own = "./" + posixpath.basename(path)
        return [ImportSpec(own, file_stem(path), "default", is_reexport=True)]
    return stylesheets.block_imports(node_text(node, src), node.start_point[0] + 1)


def _handler(text: str) -> str:
    """The handler an event attribute names: ``archive`` (Vue), ``{archive}`` (Svelte),
    or the one function a handler calls (``remove(item)``, ``{() => remove(item)}``);
    "" for any other expression (``count++``, ``a(); b()``, ``show = !show``)."""
    match = _HANDLER.fullmatch(text.strip().removeprefix("{").removesuffix("}").strip())
    return match.group(1) if match and not match.group(1).startswith("$") else ""  # $emit


def _refine(sym: Symbol, ctx: DefContext) -> None:
    """The HTML query defines no symbols: the component is the file's own symbol."""


def pascal_case(tag: str) -> str:
    """``order-row`` -> ``OrderRow``; a PascalCase tag stays as it is."""
    return "".join(part[:1].upper() + part[1:] for part in tag.split("-")) if "-" in tag else tag


def make_spec(
    language: str, instance: InstanceRule, *, kebab_tags: bool, events: str
) -> LanguageSpec:
    """A component language; ``events``: the pattern of its event attributes' names;
    ``kebab_tags``: ``<order-row>`` names the component
    ``OrderRow`` too (Vue), rather than a custom HTML element (Svelte)."""
    tags = [PASCAL_TAG, KEBAB_TAG] if kebab_tags else [PASCAL_TAG]
    return LanguageSpec(
        language=language,
        grammar_module="tree_sitter_html",
        query=QUERY
        + _HANDLERS.format(pattern=events)
        + "".join(_TAGS.format(pattern=pattern) for pattern in tags),
        refine=_refine,
        imports=imports,
        name_types=frozenset(),
        embedded=_script(instance),
        file_symbol="component",
        call_name=pascal_case if kebab_tags else None,
        ref_text=_handler,
    )
