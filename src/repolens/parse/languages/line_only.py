"""Languages with no grammar wheel on PyPI: an outline found line by line, said as such.

R, protobuf, GraphQL, Godot's scene and resource files, Astro, Liquid and Stylus have no
tree-sitter grammar published as a wheel, so their files get what ``fallback`` gives a
language whose grammar cannot load: definitions (flat, one line each) and imports (which
the resolver connects to files), no calls. ``status`` reports their files as line-level.
"""

from __future__ import annotations

from repolens.parse.languages.line_rules import LineRules, N, defs, imports

_QUOTED = r"[\"'](?P<module>[^\"']+)[\"']"
_ES_IMPORT = r"^\s*import\s+(?:.*?\s+from\s+)?" + _QUOTED

LINE_ONLY_RULES: dict[str, LineRules] = {
    "r": LineRules(
        defs(
            ("function", r"^\s*(?P<name>[A-Za-z.][\w.]*)\s*(?:<<?-|=)\s*function\s*\("),
            ("class", r"\b(?P<kind>setClass|setRefClass|R6Class)\(\s*[\"'](?P<name>[\w.]+)"),
        ),
        imports(
            r"\b(?:sys\.)?source\(\s*(?:file\s*=\s*)?" + _QUOTED,
            r"\b(?:library|require|requireNamespace)\(\s*[\"']?(?P<module>[\w.]+)",
        ),
        wildcard=True,
    ),
    "protobuf": LineRules(
        defs(
            ("namespace", r"^\s*package\s+(?P<name>[\w.]+)\s*;"),
            ("struct", r"^\s*(?P<kind>message|enum|service)\s+" + N),
            ("method", r"^\s*rpc\s+" + N + r"\s*\("),
        ),
        imports(r"^\s*import\s+(?:public\s+|weak\s+)?" + _QUOTED),
        wildcard=True,
    ),
    "graphql": LineRules(
        defs(
            ("class", r"^\s*(?:extend\s+)?(?P<kind>type|interface|enum|input|union|scalar)\s+" + N),
            ("function", r"^\s*(?:query|mutation|subscription|fragment)\s+" + N),
            ("macro", r"^\s*directive\s+@" + N),
        ),
        imports(r"^\s*#\s*import\s+(?:.*?\s+from\s+)?" + _QUOTED),
        wildcard=True,
    ),
    "godot": LineRules(
        defs(("variable", r"^\[node\s+name=\"(?P<name>[^\"]+)\"")),
        imports(
            r"^\[ext_resource\b[^\]]*\bpath=\"(?P<module>[^\"]+)\"",
            r"^(?P<alias>[A-Za-z_]\w*)=\"\*?(?P<module>res://[^\"]+)\"",  # an autoload
        ),
    ),
    "astro": LineRules(
        defs(
            ("function", r"^\s*(?:export\s+)?(?:async\s+)?function\s+" + N),
            ("variable", r"^\s*(?:export\s+)?(?:const|let)\s+" + N + r"\s*[=:]"),
        ),
        imports(_ES_IMPORT),
    ),
    "liquid": LineRules(
        defs(("variable", r"\{%-?\s*(?:assign|capture)\s+" + N)),
        imports(r"\{%-?\s*(?:include|render|section|layout)\s+" + _QUOTED),
        wildcard=True,
    ),
    "stylus": LineRules(
        defs(("function", r"^(?P<name>[A-Za-z_][\w-]*)\([^)]*\)\s*$")),
        imports(r"^\s*@(?:import|require)\s+" + _QUOTED),
        wildcard=True,
    ),
}
"""language id -> its line rules (the language ids ``repolens.discover`` assigns)."""
