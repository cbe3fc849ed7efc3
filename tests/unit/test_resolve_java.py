"""Java layout: packages from declarations or source roots, multi-module builds."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_resolve_support import Tree

CORE = "core/src/main/java/com/acme/core"


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    return Tree(
        tmp_path,
        {
            f"{CORE}/Util.java": "package com.acme.core;\npublic class Util {}\n",
            f"{CORE}/model/Order.java": "package com.acme.core.model;\npublic class Order {}\n",
            f"{CORE}/model/Item.java": "package com.acme.core.model;\npublic class Item {}\n",
            # a file whose directory disagrees with its declaration: the declaration wins
            "web/src/main/java/misplaced/Page.java": "package com.acme.web;\nclass Page {}\n",
            # no declaration: the directory below the source root
            "tools/src/test/java/org/acme/tools/Check.java": "class Check {}\n",
        },
        "java",
        parse=True,
    )


def test_packages_and_file_module_names(tree: Tree) -> None:
    assert tree.module(f"{CORE}/model/Order.java") == "com.acme.core.model"
    assert tree.file_module(f"{CORE}/model/Order.java") == "com.acme.core.model.Order"
    assert tree.module("web/src/main/java/misplaced/Page.java") == "com.acme.web"
    assert tree.module("tools/src/test/java/org/acme/tools/Check.java") == "org.acme.tools"


def test_imports_name_a_package_then_a_member_path(tree: Tree) -> None:
    page = "web/src/main/java/misplaced/Page.java"
    assert tree.target(page, "com.acme.core", "Util") == f"{CORE}/Util.java"
    result = tree.resolve(page, "com.acme.core.model", "Order")
    assert result.module is not None and result.module.key == "com.acme.core.model"
    assert result.path == ("Order",)
    # static import of a member, and of a nested class: the package is the longest prefix
    static = tree.resolve(page, "com.acme.core.Util", "helper")
    assert static.module is not None and static.module.key == "com.acme.core"
    assert static.path == ("Util", "helper")
    wildcard = tree.resolve(page, "com.acme.core.model", wildcard=True)
    assert wildcard.module is not None and wildcard.path == ()
    assert tree.target(page, "com.acme.missing", "X") == ""  # in the project's namespace
    assert tree.target(page, "java.util", "List") == "external"
