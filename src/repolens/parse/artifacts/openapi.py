"""OpenAPI 3 and Swagger 2 specs, in YAML or JSON: operations and schemas.

The document is composed (not constructed) by PyYAML's safe loader, which keeps each
node's lines; JSON is YAML, so one reader serves both. Nothing is ever evaluated, and an
alias is never expanded (only the keys walked here are read). Each operation is an
``operation`` symbol named ``METHOD /path`` (as routes are named in the graph), its
``detail`` the operationId and summary; each schema (``components.schemas`` or
``definitions``) is a ``schema`` with its properties as ``field``s.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import yaml

from repolens.parse.artifacts.model import ArtifactSymbol, ParsedArtifact

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


NOT_OPENAPI = "not an OpenAPI or Swagger document (no `openapi:` or `swagger:` key)"


def compose(text: str) -> yaml.Node | None:
    """The document's node tree; ``yaml.YAMLError`` when it is not YAML (or JSON)."""
    return yaml.compose(text, Loader=yaml.SafeLoader)


def is_openapi(root: yaml.Node | None) -> bool:
    return isinstance(root, yaml.MappingNode) and any(
        _scalar(key) in ("openapi", "swagger") for key, _ in root.value
    )


_SPEC_KEY = re.compile(r"""^\s*["']?(?:openapi|swagger)["']?\s*:""", re.MULTILINE)
"""A line that could hold the top-level key: YAML or JSON that has none is no spec, and is
told so without composing it (a folder of configuration files is re-checked on every
refresh)."""


def parse_openapi(text: str) -> ParsedArtifact:
    out = ParsedArtifact("openapi")
    if not _SPEC_KEY.search(text) and not re.search(r'"(?:openapi|swagger)"\s*:', text):
        out.error = NOT_OPENAPI
        return out
    try:
        root = compose(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        out.error = f"not valid YAML or JSON{where}: {getattr(exc, 'problem', None) or exc}"
        return out
    if not is_openapi(root):
        out.error = NOT_OPENAPI
        return out
    assert isinstance(root, yaml.MappingNode)
    base = _base_path(root)
    paths = _get(root, "paths")
    if isinstance(paths, yaml.MappingNode):
        for key, item in paths.value:
            if isinstance(item, yaml.MappingNode):
                _operations(out, _scalar(key), item, base)
    components = _get(root, "components")
    schemas = _get(components, "schemas") if components is not None else _get(root, "definitions")
    if isinstance(schemas, yaml.MappingNode):
        for key, schema in schemas.value:
            _schema(out, key, schema)
    return out


def _operations(out: ParsedArtifact, path: str, item: yaml.MappingNode, base: str) -> None:
    for key, operation in item.value:
        method = _scalar(key).lower()
        if method not in METHODS or not isinstance(operation, yaml.MappingNode):
            continue
        name = f"{method.upper()} {path}"
        facts = []
        if op_id := _scalar(_get(operation, "operationId")):
            facts.append(f"operationId {op_id}")
        if summary := _scalar(_get(operation, "summary")):
            facts.append(summary)
        if base:
            facts.append(f"served under {base}")
        first, last = _lines(key, operation)
        out.add(ArtifactSymbol("operation", name, name, first, last, None, "; ".join(facts)))


def _schema(out: ParsedArtifact, key: yaml.Node, schema: yaml.Node) -> None:
    name = _scalar(key)
    first, last = _lines(key, schema)
    detail = _scalar(_get(schema, "type")) or ""
    parent = out.add(ArtifactSymbol("schema", name, name, first, last, None, detail))
    properties = _get(schema, "properties")
    if not isinstance(properties, yaml.MappingNode):
        return
    for key, prop in properties.value:
        prop_name = _scalar(key)
        p_first, p_last = _lines(key, prop)
        kind = _scalar(_get(prop, "type")) or _scalar(_get(prop, "$ref")).rpartition("/")[2]
        out.add(ArtifactSymbol("field", prop_name, f"{name}.{prop_name}", p_first, p_last,
                               parent, kind))  # fmt: skip


def _base_path(root: yaml.MappingNode) -> str:
    """Swagger's ``basePath``, or the path of OpenAPI's first server URL (``/api/v1``)."""
    base = _scalar(_get(root, "basePath"))
    servers = _get(root, "servers")
    if not base and isinstance(servers, yaml.SequenceNode) and servers.value:
        base = urlsplit(_scalar(_get(servers.value[0], "url"))).path
    return base.rstrip("/")


def _get(node: yaml.Node | None, key: str) -> yaml.Node | None:
    if not isinstance(node, yaml.MappingNode):
        return None
    for k, v in node.value:
        if _scalar(k) == key:
            return v
    return None


def _scalar(node: yaml.Node | None) -> str:
    return str(node.value) if isinstance(node, yaml.ScalarNode) else ""


def _lines(first: yaml.Node, last: yaml.Node) -> tuple[int, int]:
    """1-based lines from ``first``'s start to the end of ``last``'s last scalar (a block
    collection's own end mark lies where the next key begins)."""
    start = first.start_mark.line + 1
    node = last
    while isinstance(node, yaml.MappingNode | yaml.SequenceNode) and node.value:
        tail = node.value[-1]
        node = tail[1] if isinstance(tail, tuple) else tail
    end_mark = node.end_mark
    end = end_mark.line + (1 if end_mark.column > 0 else 0)
    return start, max(start, end)
