"""Go module layout: go.mod module paths, nested modules, replace, package names."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_resolve_support import Tree

from repolens.resolve.golang import default_package_name


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    return Tree(
        tmp_path,
        {
            "go.mod": "// root module\nmodule github.com/acme/app\n\ngo 1.22\n\n"
            "replace (\n\tgithub.com/acme/shared v1.2.0 => ./libs/shared\n)\n",
            "cmd/app/main.go": "package main\n",
            "internal/db/db.go": "// Package db talks to the database.\npackage db\n",
            "internal/db/db_test.go": "package db_test\n",
            "api/handlers.go": "/* handlers */\npackage httpapi\n",
            "plugins/go.mod": 'module "github.com/acme/plugins"\n',
            "plugins/auth/auth.go": "package auth\n",
            "libs/shared/go.mod": "module github.com/acme/shared\n",
            "libs/shared/log/log.go": "package log\n",
        },
        "go",
    )


def test_packages_are_directories_under_their_nearest_module(tree: Tree) -> None:
    assert tree.module("internal/db/db.go") == "github.com/acme/app/internal/db"
    assert tree.module("internal/db/db_test.go") == "github.com/acme/app/internal/db"
    assert tree.module("plugins/auth/auth.go") == "github.com/acme/plugins/auth"
    assert tree.module("cmd/app/main.go") == "github.com/acme/app/cmd/app"


def test_imports_across_nested_modules_and_replace_directives(tree: Tree) -> None:
    main = "cmd/app/main.go"
    assert tree.target(main, "github.com/acme/app/internal/db") == (
        "github.com/acme/app/internal/db"  # a package of two files
    )
    assert tree.target(main, "github.com/acme/plugins/auth") == "plugins/auth/auth.go"
    assert tree.target(main, "github.com/acme/shared/log") == "libs/shared/log/log.go"
    assert tree.target(main, "github.com/acme/app/missing") == ""
    assert tree.target(main, "net/http") == "external"
    assert tree.target(main, "github.com/other/lib") == "external"


def test_an_import_binds_the_declared_package_name(tree: Tree) -> None:
    def bound(module: str, alias: str | None = None, **extra: object) -> str | None:
        from repolens.resolve.project import ImportRow

        row = ImportRow(0, tree.files["cmd/app/main.go"].id, module, None, alias, 0, 1,
                        bool(extra.get("wildcard")), False, None, None)  # fmt: skip
        return tree.layout.local_name(row)

    assert bound("github.com/acme/app/api") == "httpapi"  # not the directory name
    assert bound("github.com/acme/app/internal/db") == "db"  # not db_test
    assert bound("github.com/acme/app/api", "h") == "h"
    assert bound("github.com/acme/app/api", "_") is None
    assert bound("github.com/acme/app/api", wildcard=True) is None


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("net/http", "http"),
        ("github.com/go-yaml/yaml/v3", "yaml"),
        ("gopkg.in/yaml.v2", "yaml"),
        ("github.com/mattn/go-sqlite3", "sqlite3"),
        ("github.com/x/thing-go", "thing"),
    ],
)
def test_external_packages_bind_their_conventional_name(path: str, name: str) -> None:
    assert default_package_name(path) == name
