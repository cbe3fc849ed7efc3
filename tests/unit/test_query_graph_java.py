"""Symbol lookup in Java, where a file's module is its class (``com.acme.Repo``) and a
constructor carries the class's name."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest

from conftest import IndexTree
from repolens.query.graph import find_symbol

REPO_JAVA = """package com.acme;

public class Repo {
    private final String name;

    public Repo(String name) {
        this.name = name;
    }

    public String save() {
        return name;
    }
}
"""


@pytest.fixture(scope="module")
def conn(
    tmp_path_factory: pytest.TempPathFactory, index_tree: IndexTree
) -> Iterator[sqlite3.Connection]:
    root = tmp_path_factory.mktemp("java")
    source = root / "src" / "main" / "java" / "com" / "acme" / "Repo.java"
    source.parent.mkdir(parents=True)
    source.write_text(REPO_JAVA)
    db = index_tree(root)
    yield db
    db.close()


def test_class_name_means_the_class_not_its_constructor(conn: sqlite3.Connection) -> None:
    ref = find_symbol(conn, "Repo")
    assert (ref.kind, ref.full_name, ref.line) == ("class", "com.acme.Repo", 3)
    assert find_symbol(conn, "Repo.Repo").kind == "constructor"


def test_fully_qualified_java_names(conn: sqlite3.Connection) -> None:
    assert find_symbol(conn, "com.acme.Repo").kind == "class"  # not the file of that module
    save = find_symbol(conn, "com.acme.Repo.save")
    assert (save.kind, save.line, save.full_name) == ("method", 10, "com.acme.Repo.save")
    assert find_symbol(conn, "Repo#save") == save
    assert find_symbol(conn, "src/main/java/com/acme/Repo.java").kind == "file"
