"""A small real tree in a real store, for module-layout tests of every language.

Layout questions (which module a file is, where an import points) need files on disk and
rows in the store but no parsing, so files are stored by path and language only.
"""

from __future__ import annotations

import time
from pathlib import Path

from repolens.discover.languages import detect_language
from repolens.parse import parse_source
from repolens.resolve import build_context
from repolens.resolve.base import ImportResult, Layout
from repolens.resolve.languages import spec_for
from repolens.resolve.project import FileRow, ImportRow
from repolens.resolve.tables import load_project
from repolens.store import graph
from repolens.store.db import connect, transaction


class Tree:
    """Files written under a root, stored, and one language's layout built over them."""

    def __init__(
        self, root: Path, files: dict[str, str], language: str, *, parse: bool = False
    ) -> None:
        conn = connect(root / ".index" / "index.db")
        with transaction(conn):
            for path, text in files.items():
                (root / path).parent.mkdir(parents=True, exist_ok=True)
                (root / path).write_text(text, encoding="utf-8")
                lang = detect_language(path)
                if lang is not None and spec_for(lang) is not None:
                    record = graph.FileRecord(path, lang, len(text), 0, "h", "ok")
                    file_id = graph.upsert_file(conn, record, time.time())
                    if parse:  # when the layout reads declarations (a Java package)
                        graph.write_graph(
                            conn, file_id, graph.graph_rows(parse_source(path, lang, text.encode()))
                        )
        project = load_project(conn)
        spec = spec_for(language)
        assert spec is not None
        self.layout: Layout = build_context(project, root).layouts[spec.name]
        self.files: dict[str, FileRow] = {f.path: f for f in project.files.values()}

    def file_module(self, path: str) -> str:
        """What ``files.module`` gets for ``path``."""
        file_id = self.files[path].id
        return self.layout.names.get(file_id, self.module(path))

    def module(self, path: str) -> str:
        return self.layout.of_file[self.files[path].id].key

    def resolve(
        self, path: str, module: str, name: str | None = None, **extra: object
    ) -> ImportResult:
        row = ImportRow(
            id=0, file_id=self.files[path].id, module=module, name=name,
            alias=extra.get("alias"), level=int(extra.get("level", 0)), line=1,  # type: ignore[arg-type]
            is_wildcard=bool(extra.get("wildcard")), is_reexport=bool(extra.get("reexport")),
            target_file_id=None, target_symbol_id=None,
        )  # fmt: skip
        return self.layout.resolve_import(self.files[path], row)

    def target(self, path: str, module: str, name: str | None = None, **extra: object) -> str:
        """Where an import in ``path`` leads: a file path (one-file modules), a module key,
        'external', or '' when it is in the project but not found."""
        result = self.resolve(path, module, name, **extra)
        if result.external:
            return "external"
        found = result.loads or result.module
        if found is None:
            return ""
        paths = [p for p, f in self.files.items() if f.id in found.files]
        return paths[0] if len(paths) == 1 else found.key


def test_tree_stores_only_files_of_resolvable_languages(tmp_path: Path) -> None:
    tree = Tree(tmp_path, {"a.py": "", "notes.md": "# hi", "b/c.py": ""}, "python")
    assert sorted(tree.files) == ["a.py", "b/c.py"]
    assert tree.target("a.py", "b.c") == "b/c.py"


def test_every_parsed_language_has_the_resolver_that_claims_it() -> None:
    """Resolver modules are imported by language on first use, from a table: each
    language the parser knows must find the one spec that says it covers it."""
    from repolens.parse.languages import SPEC_MODULES

    for language in SPEC_MODULES:
        spec = spec_for(language)
        assert spec is not None and language in spec.languages, language
    assert spec_for("no-such-language") is None
