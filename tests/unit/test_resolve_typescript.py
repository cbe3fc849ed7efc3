"""TypeScript/JavaScript module resolution: tsconfig paths, workspaces, extensions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_resolve_support import Tree

from repolens.resolve.languages import jsonc


def test_jsonc_allows_comments_and_trailing_commas_but_keeps_strings() -> None:
    text = """{
      // a line comment
      "url": "http://example.com//x", /* a block */ "glob": "src/**/*.ts",
      "list": [1, 2,], "nested": {"quote": "a\\"b", }, // trailing
    }"""
    assert jsonc.loads(text) == {
        "url": "http://example.com//x",
        "glob": "src/**/*.ts",
        "list": [1, 2],
        "nested": {"quote": 'a"b'},
    }


def test_broken_config_reads_as_empty(tmp_path: Path) -> None:
    (tmp_path / "tsconfig.json").write_text('{"compilerOptions": {', encoding="utf-8")
    assert jsonc.load_file(tmp_path / "tsconfig.json") == {}


def test_tsconfig_paths_follow_extends_relative_to_the_declaring_config(tmp_path: Path) -> None:
    tree = Tree(
        tmp_path,
        {
            "config/base.json": """{
              // paths without baseUrl are relative to this file
              "compilerOptions": {"paths": {"@core/*": ["../libs/core/*",],},},
            }""",
            "app/tsconfig.json": '{"extends": "../config/base", /* no .json */}',
            "app/main.ts": "",
            "libs/core/util.ts": "",
            "libs/core/io/index.ts": "",
        },
        "typescript",
    )
    assert tree.target("app/main.ts", "@core/util", "f") == "libs/core/util.ts"
    assert tree.target("app/main.ts", "@core/io") == "libs/core/io/index.ts"
    assert tree.target("app/main.ts", "@core/missing") == "external"


def test_base_url_and_the_most_specific_pattern(tmp_path: Path) -> None:
    tree = Tree(
        tmp_path,
        {
            "tsconfig.json": json.dumps(
                {
                    "compilerOptions": {
                        "baseUrl": "src",
                        "paths": {"@/*": ["*"], "@/special/*": ["special-impl/*"]},
                    }
                }
            ),
            "src/app.ts": "",
            "src/shared/date.ts": "",
            "src/special-impl/x.ts": "",
            "src/special/x.ts": "",
        },
        "typescript",
    )
    assert tree.target("src/app.ts", "shared/date") == "src/shared/date.ts"  # baseUrl
    assert tree.target("src/app.ts", "@/shared/date") == "src/shared/date.ts"
    assert tree.target("src/app.ts", "@/special/x") == "src/special-impl/x.ts"
    assert tree.target("src/app.ts", "react") == "external"


@pytest.mark.parametrize(
    ("specifier", "expected"),
    [
        ("./util", "src/util.ts"),
        ("./util.js", "src/util.ts"),  # ESM-style import of the compiled name
        ("./view", "src/view.tsx"),
        ("./legacy", "src/legacy.cjs"),
        ("./types", "src/types.d.ts"),
        ("./widgets", "src/widgets/index.jsx"),
        ("../top", "top.mjs"),
        ("./nope", ""),
    ],
)
def test_relative_specifiers_try_every_extension_and_index(
    tmp_path: Path, specifier: str, expected: str
) -> None:
    tree = Tree(
        tmp_path,
        {
            "src/main.ts": "",
            "src/util.ts": "",
            "src/view.tsx": "",
            "src/legacy.cjs": "",
            "src/types.d.ts": "",
            "src/widgets/index.jsx": "",
            "top.mjs": "",
        },
        "typescript",
    )
    assert tree.target("src/main.ts", specifier) == expected


def test_the_root_directory_is_its_index(tmp_path: Path) -> None:
    """A package's ``src`` indexed by itself: its top-level tests import it as ``..``."""
    files = {"index.ts": "", "query.ts": "", "__tests__/query.test.ts": "", "main.ts": ""}
    tree = Tree(tmp_path, files, "typescript")
    assert tree.target("__tests__/query.test.ts", "..") == "index.ts"
    assert tree.target("__tests__/query.test.ts", "../query") == "query.ts"
    assert tree.target("main.ts", ".") == "index.ts"
    assert tree.target("main.ts", "..") == ""  # outside the project


def test_workspace_packages_by_name_with_exports_and_built_entries(tmp_path: Path) -> None:
    tree = Tree(
        tmp_path,
        {
            "package.json": json.dumps({"name": "root", "workspaces": ["packages/*"]}),
            "pnpm-workspace.yaml": "packages:\n  - 'tools/*'\n",
            "packages/core/package.json": json.dumps(
                {
                    "name": "@acme/core",
                    "exports": {
                        ".": {"types": "./dist/index.d.ts", "import": "./dist/index.js"},
                        "./feature/*": "./dist/features/*.js",
                    },
                }
            ),
            "packages/core/src/index.ts": "",
            "packages/core/src/features/search.ts": "",
            "tools/cli/package.json": json.dumps({"name": "acme-cli", "main": "lib/cli.js"}),
            "tools/cli/src/cli.ts": "",
            "apps/web/main.ts": "",
        },
        "typescript",
    )
    main = "apps/web/main.ts"
    assert tree.target(main, "@acme/core", "thing") == "packages/core/src/index.ts"
    assert tree.target(main, "@acme/core/feature/search") == (
        "packages/core/src/features/search.ts"
    )
    assert tree.target(main, "acme-cli") == "tools/cli/src/cli.ts"
    assert tree.target(main, "@acme/core/feature/none") == ""
    assert tree.target(main, "@acme/other") == "external"


def test_own_reexport_names_the_file_itself(tmp_path: Path) -> None:
    """``export default foo`` is recorded as a re-export from ``./<own stem>``; for
    ``foo.test.ts`` that must still be the file itself, not ``foo.ts``."""
    tree = Tree(tmp_path, {"src/foo.ts": "", "src/foo.test.ts": ""}, "typescript")
    assert tree.target("src/foo.test.ts", "./foo", "x", reexport=True) == "src/foo.test.ts"
    assert tree.target("src/foo.test.ts", "./foo", "x") == "src/foo.ts"
