"""Vue/Svelte/Astro components and CSS/SCSS/LESS/Stylus stylesheets: imports by path.

A specifier is tried relative to the importing file, then through the nearest
``tsconfig``/``jsconfig`` ``paths`` (``@/x``), then the ``@/``/``~/`` -> ``src/`` convention
of Vue and Svelte tooling; stylesheet imports (which are relative by default) also try
the project root and ``src/``. A path matches a file with any web extension, a
directory's ``index`` file, and Sass partials (``_name.scss``, ``name/_index.scss``).
Built-in Sass modules (``sass:math``), ``~package`` and URLs are external, as is any
package name a script imports (``vue``, ``svelte/store``).

Script imports reach TypeScript and JavaScript files as well as other components (the
table holds every web file); a TypeScript file importing ``./X.vue`` is the TypeScript
resolver's business. The names of component scripts (whose symbols and calls the parser
extracts with the TypeScript spec) resolve with TypeScript's builtins and ``this``.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from repolens.resolve.base import ImportResult, LanguageSpec, Layout, Module
from repolens.resolve.filemods import file_modules, join
from repolens.resolve.languages import typescript
from repolens.resolve.languages.tsconfig import ConfigFinder
from repolens.resolve.project import FileRow, ImportRow, Project

WEB_LANGUAGES = frozenset({"vue", "svelte", "css", "scss", "less", "typescript", "tsx",
                           "javascript", "astro", "stylus"})  # fmt: skip
STYLE_LANGUAGES = frozenset({"css", "scss", "less", "stylus"})
EXTENSIONS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".vue", ".svelte", ".astro", ".d.ts",
              ".scss", ".sass", ".css", ".less", ".styl")  # fmt: skip
_EXTERNAL = ("sass:", "http:", "https:", "//", "~", "data:")


def path_options(path: str) -> list[str]:
    """Files a specifier's path may denote: itself, with an extension, as a Sass partial,
    or a directory's index."""
    head, tail = posixpath.split(path)
    partial = join(head, "_" + tail) if tail and not tail.startswith("_") else None
    options = [path, *(path + ext for ext in EXTENSIONS)]
    if partial is not None:
        options += [partial, *(partial + ext for ext in (".scss", ".sass"))]
    options += [f"{path}/index{ext}" for ext in EXTENSIONS]
    options += [f"{path}/_index{ext}" for ext in (".scss", ".sass")]
    return options


def build_layout(root: Path, project: Project, files: list[FileRow]) -> Layout:
    web = [f for f in project.files.values() if f.language in WEB_LANGUAGES]
    table = file_modules(web)
    configs = ConfigFinder(root)

    def find(paths: list[str]) -> Module | None:
        return table.first(option for path in paths for option in path_options(path))

    def resolve_import(file: FileRow, imp: ImportRow) -> ImportResult:
        spec = imp.module
        member = (imp.name,) if imp.name and not imp.is_wildcard else ()
        if spec.startswith(_EXTERNAL):
            return ImportResult(external=True)
        relative = spec.startswith(("./", "../"))
        stylesheet = (
            file.language in STYLE_LANGUAGES or imp.is_wildcard or bool(imp.alias and not imp.name)
        )  # `@import`, `@use ... as x`
        paths = [join(file.dir, spec)] if relative or stylesheet else []
        if not relative:
            paths += configs.rules(file.dir).candidates(spec)
            if spec.startswith(("@/", "~/")):
                paths.append(join("src", spec[2:]))
            if stylesheet:
                paths += [spec, join("src", spec)]
        found = find(paths)
        if found is not None:
            return ImportResult(found, member)
        return ImportResult() if relative else ImportResult(external=True)

    return Layout(dict(table.by_path), table.of_file, resolve_import, local_name)


def local_name(imp: ImportRow) -> str | None:
    if imp.is_wildcard:
        return None
    return imp.alias or imp.name


CSS_BUILTINS = frozenset(
    {
        "rgba", "rgb", "hsl", "hsla", "calc", "var", "url", "min", "max", "clamp", "darken",
        "lighten", "mix", "percentage", "if", "map-get", "nth", "length", "unquote",
    }
)  # fmt: skip

# Globals of component scripts that nothing imports: Vue's `<script setup>` compiler
# macros and Svelte 5 runes.
COMPONENT_BUILTINS = frozenset(
    {
        "defineProps", "defineEmits", "defineExpose", "defineOptions", "defineSlots",
        "defineModel", "withDefaults", "$state", "$derived", "$effect", "$props",
        "$bindable", "$inspect", "$host",
    }
)  # fmt: skip

SPEC = LanguageSpec(
    name="web_assets",
    languages=frozenset({"vue", "svelte", "css", "scss", "less", "astro", "stylus"}),
    build_layout=build_layout,
    builtins=CSS_BUILTINS | COMPONENT_BUILTINS | typescript.BUILTINS,
    builtin_types=typescript.BUILTIN_TYPES,
    builtin_methods=typescript.BUILTIN_METHODS,
    self_names=typescript.SPEC.self_names,
    constructor_names=typescript.SPEC.constructor_names,
    super_calls_constructor=True,
)
