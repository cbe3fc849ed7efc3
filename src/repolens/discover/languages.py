"""Language detection from a file's name, and from its shebang line when the name says nothing.

Detection is pure data lookups so that it costs nothing per file: the extension table is
consulted first, then whole file names (``Dockerfile``, ``CMakeLists.txt``...), and only a
file *without* an extension has its first line read for a shebang. Files with an extension we
do not know are not read at all: reading every ``.dat`` or ``.lock`` would cost more than any
shebang could win.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

EXTENSIONS: Mapping[str, str] = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".java": "java",
    ".rs": "rust",
    ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp", ".hpp": "cpp", ".hh": "cpp",
    ".hxx": "cpp", ".h++": "cpp", ".ipp": "cpp", ".inl": "cpp",
    ".cs": "csharp",
    ".php": "php",
    ".rb": "ruby", ".rake": "ruby", ".gemspec": "ruby",
    ".kt": "kotlin", ".kts": "kotlin",
    ".swift": "swift",
    ".scala": "scala", ".sc": "scala",
    ".sh": "bash", ".bash": "bash", ".zsh": "bash", ".ksh": "bash", ".bats": "bash",
    ".lua": "lua",
    ".dart": "dart",
    ".ex": "elixir", ".exs": "elixir",
    ".vue": "vue",
    ".svelte": "svelte",
    ".css": "css",
    ".scss": "scss", ".sass": "scss",
    ".less": "less",
    ".gd": "gdscript", ".tscn": "godot", ".tres": "godot", ".godot": "godot",
    ".r": "r", ".rmd": "markdown",
    ".cu": "cuda", ".cuh": "cuda", ".m": "objc", ".mm": "objc",
    ".hs": "haskell", ".lhs": "haskell", ".zig": "zig", ".jl": "julia",
    ".ps1": "powershell", ".psm1": "powershell", ".psd1": "powershell",
    ".pl": "perl", ".pm": "perl", ".t": "perl",
    ".vb": "vbnet", ".fs": "fsharp", ".fsi": "fsharp", ".fsx": "fsharp",
    ".pas": "pascal", ".pp": "pascal", ".dpr": "pascal", ".lpr": "pascal",
    ".sol": "solidity", ".luau": "luau", ".nix": "nix", ".ml": "ocaml", ".mli": "ocaml",
    ".groovy": "groovy", ".gradle": "groovy", ".gvy": "groovy", ".jenkinsfile": "groovy",
    ".astro": "astro", ".liquid": "liquid", ".styl": "stylus",
    ".heex": "eex", ".eex": "eex", ".leex": "eex",
    ".html": "html", ".htm": "html", ".xhtml": "html",
    ".md": "markdown", ".mdx": "markdown", ".markdown": "markdown",
    ".rst": "rst",
    ".txt": "text",
    ".json": "json", ".jsonc": "json", ".json5": "json",
    ".yaml": "yaml", ".yml": "yaml",
    ".toml": "toml",
    ".xml": "xml", ".xsd": "xml", ".xsl": "xml", ".xslt": "xml", ".csproj": "xml",
    ".sql": "sql",
    ".graphql": "graphql", ".gql": "graphql", ".graphqls": "graphql",
    ".proto": "protobuf",
    ".dockerfile": "dockerfile",
    ".mk": "makefile", ".mak": "makefile",
    ".cmake": "cmake",
    ".ini": "ini", ".cfg": "ini",
    ".tf": "terraform", ".tfvars": "terraform", ".hcl": "terraform",
}  # fmt: skip

# Whole names win over extensions (CMakeLists.txt is cmake, not text).
NAMES: Mapping[str, str] = {
    "Dockerfile": "dockerfile", "Containerfile": "dockerfile",
    "Makefile": "makefile", "makefile": "makefile", "GNUmakefile": "makefile",
    "CMakeLists.txt": "cmake",
    "Gemfile": "ruby", "Rakefile": "ruby", "Guardfile": "ruby", "Podfile": "ruby",
    "Vagrantfile": "ruby", "Brewfile": "ruby", "Fastfile": "ruby", "Appfile": "ruby",
    "Pipfile": "toml", "Jenkinsfile": "groovy",
    ".bashrc": "bash", ".bash_profile": "bash", ".bash_aliases": "bash", ".profile": "bash",
    ".zshrc": "bash", ".zprofile": "bash", ".envrc": "bash",
    ".editorconfig": "ini", ".gitconfig": "ini",
    "Procfile": "text", ".env.example": "text", ".env.sample": "text", ".gitignore": "text",
    ".dockerignore": "text", ".gitattributes": "text", ".npmignore": "text",
}  # fmt: skip

# Extensionless prose files (README, LICENSE...) are text.
TEXT_STEMS = frozenset(
    {"README", "LICENSE", "LICENCE", "COPYING", "NOTICE", "AUTHORS", "CONTRIBUTORS",
     "CHANGELOG", "CHANGES", "HISTORY", "NEWS", "INSTALL", "CONTRIBUTING", "TODO", "THANKS"}
)  # fmt: skip

# Interpreter names (after stripping a trailing version such as "3.11") to language ids.
INTERPRETERS: Mapping[str, str] = {
    "python": "python", "pypy": "python",
    "node": "javascript", "nodejs": "javascript", "bun": "javascript",
    "deno": "typescript", "ts-node": "typescript", "tsx": "typescript",
    "sh": "bash", "bash": "bash", "zsh": "bash", "ksh": "bash", "dash": "bash", "ash": "bash",
    "ruby": "ruby", "lua": "lua", "luajit": "lua", "php": "php",
    "elixir": "elixir", "dart": "dart", "swift": "swift", "scala": "scala",
    "kotlin": "kotlin",
}  # fmt: skip

_SHEBANG = re.compile(rb"#![ \t]*(\S+)(?:[ \t]+(.*))?")
_VERSION_SUFFIX = re.compile(r"[\d.]+$")


def _interpreter(head: bytes) -> str | None:
    """Return the language named by a ``#!`` first line, following ``/usr/bin/env [-S] x``."""
    match = _SHEBANG.match(head.split(b"\n", 1)[0].rstrip(b"\r"))
    if match is None:
        return None
    words = [match.group(1), *(match.group(2) or b"").split()]
    names = [w.decode("utf-8", "replace").rsplit("/", 1)[-1] for w in words]
    if names[0] == "env":
        names = [n for n in names[1:] if not n.startswith("-") and "=" not in n]
    if not names:
        return None
    program = _VERSION_SUFFIX.sub("", names[0]) or names[0]
    return INTERPRETERS.get(program)


_OBJC_HEAD = re.compile(rb"^[ \t]*(?:@interface|@protocol|@class|#import)\b", re.MULTILINE)
_CUDA_HEAD = re.compile(rb"\b__(?:global|device|host)__\b")


def header_language(path: str, language: str, head: bytes) -> str:
    """A ``.h`` header is C's by name, Objective-C's when its head says so (``@interface``,
    ``#import``), CUDA's when it declares kernels (``__global__``, ``__device__``): one
    read of the head that discovery makes anyway."""
    if language != "c" or not path.endswith(".h"):
        return language
    if _OBJC_HEAD.search(head):
        return "objc"
    return "cuda" if _CUDA_HEAD.search(head) else language


def needs_head(name: str) -> bool:
    """Whether the language of ``name`` can only come from its content (a shebang)."""
    return "." not in name.lstrip(".") and name not in NAMES and name.upper() not in TEXT_STEMS


def detect_language(
    path: str, head: bytes = b"", extra_extensions: Mapping[str, str] = {}
) -> str | None:
    """Return the language id of ``path`` or None when we do not know it.

    ``extra_extensions`` (from config, e.g. ``{".pyi": "python"}``) wins over the built-in table
    so a project can re-map an extension. ``head`` is the start of the file; it is consulted
    only for names without an extension (scripts such as ``bin/deploy``).
    """
    name = path.rsplit("/", 1)[-1]
    if name in NAMES:
        return NAMES[name]
    if name.startswith(("Dockerfile.", "Containerfile.")):
        return "dockerfile"
    dot = name.rfind(".")
    if dot > 0:
        ext = name[dot:].lower()
        return extra_extensions.get(ext) or EXTENSIONS.get(ext)
    if name.upper() in TEXT_STEMS:
        return "text"
    return _interpreter(head) if head.startswith(b"#!") else None


def known_languages() -> frozenset[str]:
    """Every language id a file can be given (what ``extra_extensions`` may name)."""
    return frozenset({*EXTENSIONS.values(), *NAMES.values(), "text"})
