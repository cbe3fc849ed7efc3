"""The language specs the resolver knows, by ``files.language`` value.

A spec's module is imported the first time a file of its language is met: a project in
one or two languages should not pay for importing the resolvers of seventeen (a tenth of
the indexer's start-up).
"""

from __future__ import annotations

import importlib

from repolens.resolve.base import LanguageSpec

_SPEC_OF_LANGUAGE: dict[str, str] = {
    "python": "python.SPEC",
    "javascript": "typescript.SPEC",
    "typescript": "typescript.SPEC",
    "tsx": "typescript.SPEC",
    "go": "go.SPEC",
    "java": "java.SPEC",
    "rust": "rust.SPEC",
    "c": "cfamily.SPEC",
    "cpp": "cfamily.SPEC",
    "csharp": "csharp.SPEC",
    "php": "php.SPEC",
    "ruby": "ruby.SPEC",
    "kotlin": "jvm_extra.KOTLIN",
    "scala": "jvm_extra.SCALA",
    "swift": "swift.SPEC",
    "dart": "dart.SPEC",
    "bash": "shell_lua.BASH",
    "lua": "shell_lua.LUA",
    "elixir": "elixir.SPEC",
    "css": "web_assets.SPEC",
    "less": "web_assets.SPEC",
    "scss": "web_assets.SPEC",
    "svelte": "web_assets.SPEC",
    "vue": "web_assets.SPEC",
    "astro": "web_assets.SPEC",
    "stylus": "web_assets.SPEC",
    "gdscript": "godot.SPEC",
    "godot": "godot.SPEC",
    "r": "by_path.R",
    "protobuf": "by_path.PROTOBUF",
    "graphql": "by_path.GRAPHQL",
    "liquid": "by_path.LIQUID",
    "terraform": "terraform.SPEC",
    "sql": "sql.SPEC",
    "cuda": "cfamily.SPEC",
    "objc": "cfamily.SPEC",
    "haskell": "by_path.HASKELL",
    "zig": "by_path.ZIG",
    "julia": "by_path.JULIA",
    "powershell": "by_path.POWERSHELL",
    "perl": "by_path.PERL",
    "groovy": "jvm_extra.GROOVY",
    "solidity": "by_path.SOLIDITY",
    "luau": "by_path.LUAU",
    "nix": "by_path.NIX",
    "ocaml": "by_path.OCAML",
    "fsharp": "by_path.FSHARP",
    "pascal": "by_path.PASCAL",
    "vbnet": "csharp.SPEC",
}
"""``files.language`` -> ``module.ATTRIBUTE`` of this package holding its spec."""

_loaded: dict[str, LanguageSpec] = {}


def spec_for(language: str) -> LanguageSpec | None:
    """The resolver spec of ``language`` (None when no resolver covers it)."""
    spec = _loaded.get(language)
    if spec is None and language in _SPEC_OF_LANGUAGE:
        module, attribute = _SPEC_OF_LANGUAGE[language].split(".")
        spec = getattr(importlib.import_module(f"{__name__}.{module}"), attribute)
        _loaded[language] = spec
    return spec
