"""Language detection by extension, by special file name and by shebang."""

from __future__ import annotations

import pytest

from repolens.discover import detect_language
from repolens.discover.languages import header_language


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("a/b/mod.py", "python"),
        ("stubs/x.pyi", "python"),
        ("web/app.mjs", "javascript"),
        ("web/App.jsx", "javascript"),
        ("web/types.mts", "typescript"),
        ("web/App.tsx", "tsx"),
        ("lib/x.h", "c"),
        ("lib/x.hpp", "cpp"),
        ("lib/x.cc", "cpp"),
        ("Main.java", "java"),
        ("main.rs", "rust"),
        ("Prog.cs", "csharp"),
        ("build.gradle.kts", "kotlin"),
        ("x.sc", "scala"),
        ("run.zsh", "bash"),
        ("mix.exs", "elixir"),
        ("C.vue", "vue"),
        ("s.sass", "scss"),
        ("docs/page.mdx", "markdown"),
        ("docs/index.rst", "rst"),
        ("notes.txt", "text"),
        ("conf.yml", "yaml"),
        ("setup.cfg", "ini"),
        ("schema.gql", "graphql"),
        ("api.proto", "protobuf"),
        ("main.tf", "terraform"),
        ("UPPER.PY", "python"),
    ],
)
def test_extensions(path: str, language: str) -> None:
    assert detect_language(path) == language


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("Dockerfile", "dockerfile"),
        ("deploy/Dockerfile.prod", "dockerfile"),
        ("Makefile", "makefile"),
        ("GNUmakefile", "makefile"),
        ("src/CMakeLists.txt", "cmake"),  # a name wins over its .txt extension
        ("Gemfile", "ruby"),
        ("Rakefile", "ruby"),
        ("README", "text"),
        ("LICENSE", "text"),
    ],
)
def test_special_names(path: str, language: str) -> None:
    assert detect_language(path) == language


@pytest.mark.parametrize(
    ("head", "language"),
    [
        (b"#!/usr/bin/env python3\nprint(1)\n", "python"),
        (b"#!/usr/bin/python3.11 -u\n", "python"),
        (b"#!/usr/bin/env node\n", "javascript"),
        (b"#!/usr/bin/env -S node --experimental-vm-modules\n", "javascript"),
        (b"#!/bin/sh\nset -e\n", "bash"),
        (b"#! /bin/bash\r\n", "bash"),
        (b"#!/usr/bin/env zsh\n", "bash"),
        (b"#!/usr/bin/env ruby\n", "ruby"),
        (b"#!/usr/bin/env lua\n", "lua"),
        (b"#!/usr/bin/php\n", "php"),
        (b"#!/usr/bin/env perl\n", None),
        (b"no shebang here\n", None),
    ],
)
def test_shebang_for_extensionless_files(head: bytes, language: str | None) -> None:
    assert detect_language("bin/tool", head) == language


def test_shebang_does_not_override_an_extension() -> None:
    assert detect_language("tool.rb", b"#!/usr/bin/env python\n") == "ruby"


def test_unknown_extension_is_none() -> None:
    assert detect_language("data/table.parquet") is None
    assert detect_language("x.unknownext", b"#!/bin/sh\n") is None


def test_extra_extensions_add_and_override() -> None:
    extra = {".jsm": "javascript", ".h": "cpp"}
    assert detect_language("a/b.jsm", extra_extensions=extra) == "javascript"
    assert detect_language("a/b.h", extra_extensions=extra) == "cpp"
    assert detect_language("a/b.c", extra_extensions=extra) == "c"


@pytest.mark.parametrize(
    ("path", "language"),
    [("actors/player.gd", "gdscript"), ("scenes/main.tscn", "godot"), ("R/utils.R", "r"),
     ("kernels/scale.cu", "cuda"), ("Shop/Cart.m", "objc"), ("db/schema.sql", "sql"),
     ("web/Card.astro", "astro"), ("lib/page.html.heex", "eex"), ("Procfile", "text"),
     (".env.example", "text"), (".gitignore", "text"), (".dockerignore", "text"),
     ("Gemfile", "ruby"), ("Rakefile", "ruby")],
)  # fmt: skip
def test_languages_of_issue_30(path: str, language: str) -> None:
    assert detect_language(path) == language


def test_objective_c_header_is_told_by_its_head() -> None:
    objc = b"// Cart\n#import <Foundation/Foundation.h>\n@interface Cart : NSObject\n@end\n"
    assert header_language("Shop/Cart.h", "c", objc) == "objc"
    assert header_language("lib/util.h", "c", b"#include <stdio.h>\nint add(int);\n") == "c"
    assert header_language("Shop/Cart.c", "c", objc) == "c"  # only headers are in doubt
    kernel = b"#pragma once\n__global__ void scale(float *d, int n);\n"
    assert header_language("kernels/scale.h", "c", kernel) == "cuda"
