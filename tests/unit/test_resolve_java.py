"""Java layout: packages from declarations or source roots, multi-module builds."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_resolve_support import Tree

from conftest import IndexTree, indexed_edges, ref_reasons

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


def java_edges(root: Path, files: dict[str, str], index_tree: IndexTree) -> set[tuple[str, ...]]:
    """Every call edge of a tiny Java project (see ``indexed_edges``)."""
    return indexed_edges(root, files, index_tree)


EVAL = (
    "package bsh;\n\npublic class EvalError extends Exception {\n"
    "    public EvalError toEvalError() { return this; }\n}\n"
)
NODE = (
    "package bsh;\n\npublic class Node {\n    public Object eval() { return null; }\n"
    "    public Node child(int i) { return this; }\n}\n"
)
# the same method names elsewhere: a guess by name could not tell them apart
OTHER = (
    "package bsh;\n\npublic class Other {\n    public Object eval() { return null; }\n"
    "    public Other toEvalError() { return this; }\n}\n"
)
BAG = "package bsh;\n\npublic class Bag {\n    public void addElement(Object o) {}\n}\n"


def test_catch_parameters_and_casts_are_typed(tmp_path: Path, index_tree: IndexTree) -> None:
    """``catch (EvalError e) { e.toEvalError(); }`` calls ``EvalError.toEvalError``;
    ``((Node) o).eval()`` and ``((Node) child(0)).eval()`` call ``Node.eval``."""
    found = java_edges(
        tmp_path,
        {
            "src/bsh/EvalError.java": EVAL,
            "src/bsh/Node.java": NODE,
            "src/bsh/Other.java": OTHER,
            "src/bsh/Runner.java": "package bsh;\n\npublic class Runner {\n"
            "    Object run(Object o) {\n"
            "        try { return ((Node) o).eval(); }\n"
            "        catch (EvalError e) { throw e.toEvalError(); }\n    }\n"
            "    Object first(Node n) { return ((Node) n.child(0)).eval(); }\n}\n",
        },
        index_tree,
    )
    assert ("Runner.run", "calls", "EvalError.toEvalError", "src/bsh/EvalError.java") in found
    assert ("Runner.run", "calls", "Node.eval", "src/bsh/Node.java") in found
    assert ("Runner.first", "calls", "Node.eval", "src/bsh/Node.java") in found
    assert ("Runner.first", "calls", "Node.child", "src/bsh/Node.java") in found
    assert not {edge for edge in found if edge[2].startswith("Other.")}


def test_a_multi_catch_parameter_is_one_of_its_types(tmp_path: Path, index_tree: IndexTree) -> None:
    """``catch (ParseError | EvalError e)``: ``e.toEvalError()`` is the method of the
    type that has it, not another class's method of that name."""
    parse_error = "package bsh;\n\npublic class ParseError extends Exception {}\n"
    found = java_edges(
        tmp_path,
        {
            "src/bsh/EvalError.java": EVAL,
            "src/bsh/ParseError.java": parse_error,
            "src/bsh/Other.java": OTHER,
            "src/bsh/Runner.java": "package bsh;\n\npublic class Runner {\n"
            "    void run() throws Exception {\n"
            "        try { run(); }\n"
            "        catch (ParseError | EvalError e) { throw e.toEvalError(); }\n    }\n}\n",
        },
        index_tree,
    )
    assert ("Runner.run", "calls", "EvalError.toEvalError", "src/bsh/EvalError.java") in found
    assert not {edge for edge in found if edge[2].startswith("Other.")}


def test_a_type_from_outside_the_project_is_not_guessed(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``Vector v`` under ``import java.util.*``: ``v.addElement`` is the JDK's, never the
    project's ``Bag.addElement`` by name, and ``Vector`` itself is outside the project; a
    project type still resolves."""
    found = java_edges(
        tmp_path,
        {
            "src/bsh/Bag.java": BAG,
            "src/bsh/Lists.java": "package bsh;\n\nimport java.util.*;\n\npublic class Lists {\n"
            "    void fill(Object o) {\n        Vector v = new Vector();\n"
            "        v.addElement(o);\n        Bag b = new Bag();\n        b.addElement(o);\n"
            "    }\n}\n",
        },
        index_tree,
    )
    assert ("Lists.fill", "calls", "Bag.addElement", "src/bsh/Bag.java") in found
    conn = index_tree(tmp_path)
    try:
        rows = conn.execute(
            "SELECT e.provenance FROM edges e JOIN symbols t ON t.id = e.target_id"
            " WHERE e.kind = 'calls' AND t.qualified_name = 'Bag.addElement'"
        ).fetchall()
        reasons = conn.execute(
            "SELECT reason FROM refs WHERE name = 'addElement' AND receiver = 'v'"
        ).fetchall()
        vectors = conn.execute(
            "SELECT DISTINCT kind, reason FROM refs WHERE name = 'Vector' ORDER BY kind"
        ).fetchall()
    finally:
        conn.close()
    assert [r[0] for r in rows] == ["resolved-type"]
    assert [r[0] for r in reasons] == ["external"]
    # the type itself, named under a library's wildcard import: outside, not unknown
    assert [tuple(r) for r in vectors] == [("instantiates", "external"), ("type_of", "external")]


def test_a_fully_qualified_jdk_type_is_external_and_its_methods_not_guessed(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``private java.util.Stack nodes;`` (bsh's parser state): ``nodes.pop()`` is the
    JDK's, never the project's ``CallStack.pop`` by name, and a ``java.io.Reader``
    parameter names a type outside the project, not an unknown one."""
    found = java_edges(
        tmp_path,
        {
            "src/bsh/CallStack.java": "package bsh;\n\npublic class CallStack {\n"
            "    public Object pop() { return null; }\n}\n",
            "src/bsh/State.java": "package bsh;\n\npublic class State {\n"
            "    private java.util.Stack nodes = new java.util.Stack();\n"
            "    Object close(java.io.Reader in) {\n        return nodes.pop();\n"
            "    }\n}\n",
        },
        index_tree,
    )
    assert not {edge for edge in found if edge[2] == "CallStack.pop"}
    reasons = ref_reasons(tmp_path, {}, index_tree)
    assert (reasons["nodes.pop"], reasons["java.io.Reader"]) == ("external", "external")
