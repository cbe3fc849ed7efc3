"""Language specs, one module per grammar; imported lazily by the registry.

Adding a language = adding a module here that defines ``SPEC`` (a ``LanguageSpec``) and
listing it below with its language id (the id ``repolens.discover`` assigns).
"""

SPEC_MODULES: dict[str, str] = {
    "python": "repolens.parse.languages.python",
    "javascript": "repolens.parse.languages.javascript",
    "typescript": "repolens.parse.languages.typescript",
    "tsx": "repolens.parse.languages.tsx",
    "go": "repolens.parse.languages.go",
    "java": "repolens.parse.languages.java",
    "rust": "repolens.parse.languages.rust",
    "c": "repolens.parse.languages.c",
    "cpp": "repolens.parse.languages.cpp",
    "csharp": "repolens.parse.languages.csharp",
    "php": "repolens.parse.languages.php",
    "ruby": "repolens.parse.languages.ruby",
    "kotlin": "repolens.parse.languages.kotlin",
    "swift": "repolens.parse.languages.swift",
    "scala": "repolens.parse.languages.scala",
    "dart": "repolens.parse.languages.dart",
    "bash": "repolens.parse.languages.bash",
    "lua": "repolens.parse.languages.lua",
    "elixir": "repolens.parse.languages.elixir",
    "vue": "repolens.parse.languages.vue",
    "svelte": "repolens.parse.languages.svelte",
    "css": "repolens.parse.languages.css",
    "scss": "repolens.parse.languages.scss",
    "less": "repolens.parse.languages.less",
    "gdscript": "repolens.parse.languages.gdscript",
    "terraform": "repolens.parse.languages.terraform",
    "sql": "repolens.parse.languages.sql",
    "cuda": "repolens.parse.languages.cuda",
    "objc": "repolens.parse.languages.objc",
    "haskell": "repolens.parse.languages.haskell",
    "zig": "repolens.parse.languages.zig",
    "julia": "repolens.parse.languages.julia",
    "powershell": "repolens.parse.languages.powershell",
    "perl": "repolens.parse.languages.perl",
    "groovy": "repolens.parse.languages.groovy",
    "solidity": "repolens.parse.languages.solidity",
    "luau": "repolens.parse.languages.luau",
    "nix": "repolens.parse.languages.nix",
    "ocaml": "repolens.parse.languages.ocaml",
    "vbnet": "repolens.parse.languages.vbnet",
    "fsharp": "repolens.parse.languages.fsharp",
    "pascal": "repolens.parse.languages.pascal",
}

LINE_ONLY_LANGUAGES = frozenset({"r", "protobuf", "graphql", "godot", "astro", "liquid", "stylus"})
"""Languages no grammar wheel exists for: ``line_only`` outlines them line by line."""

PARSED_LANGUAGES = frozenset(SPEC_MODULES) | LINE_ONLY_LANGUAGES
"""Languages whose files are parsed (by grammar, or line by line) rather than only chunked."""
