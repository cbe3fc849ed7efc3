"""The language specs the resolver knows, by ``files.language`` value."""

from __future__ import annotations

from repolens.resolve import (
    c_family,
    csharp,
    dart,
    elixir,
    golang,
    java,
    jvm_extra,
    php,
    python,
    ruby,
    rust,
    shell_lua,
    swift,
    typescript,
    web_assets,
)
from repolens.resolve.base import LanguageSpec

SPECS: tuple[LanguageSpec, ...] = (
    python.SPEC,
    typescript.SPEC,
    golang.SPEC,
    java.SPEC,
    rust.SPEC,
    c_family.SPEC,
    csharp.SPEC,
    php.SPEC,
    ruby.SPEC,
    jvm_extra.KOTLIN,
    swift.SPEC,
    jvm_extra.SCALA,
    dart.SPEC,
    shell_lua.BASH,
    shell_lua.LUA,
    elixir.SPEC,
    web_assets.SPEC,
)


def spec_for(language: str) -> LanguageSpec | None:
    for spec in SPECS:
        if language in spec.languages:
            return spec
    return None
