"""Python module layout: package roots, src layouts, namespace packages, imports."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from repolens.resolve import build_context
from repolens.resolve.base import Layout
from repolens.resolve.project import FileRow, ImportRow, load_project
from repolens.store import graph
from repolens.store.db import connect, transaction


def make_layout(root: Path, files: dict[str, str]) -> tuple[Layout, dict[str, FileRow]]:
    """Write ``files`` under ``root``, store them as Python files (no parsing needed for
    layout questions) and build the Python layout from the store."""
    conn = connect(root / ".index" / "index.db")
    with transaction(conn):
        for path, text in files.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text, encoding="utf-8")
            if path.endswith((".py", ".pyi")):
                record = graph.FileRecord(path, "python", len(text), 0, "h", "ok")
                graph.upsert_file(conn, record, time.time())
    project = load_project(conn)
    ctx = build_context(project, root)
    return ctx.layouts["python"], {f.path: f for f in project.files.values()}


def modules(layout: Layout, files: dict[str, FileRow]) -> dict[str, str]:
    return {path: layout.of_file[f.id].key for path, f in files.items()}


def target(layout: Layout, files: dict[str, FileRow], path: str, **imp: object) -> str:
    """The module key an import made in ``path`` reaches ('external', '' if unknown)."""
    row = ImportRow(
        id=0, file_id=files[path].id, module=str(imp.get("module", "")),
        name=imp.get("name"), alias=imp.get("alias"), level=int(imp.get("level", 0)),  # type: ignore[arg-type]
        line=1, is_wildcard=False, is_reexport=False, target_file_id=None,
        target_symbol_id=None,
    )  # fmt: skip
    result = layout.resolve_import(files[path], row)
    if result.external:
        return "external"
    module = result.loads or result.module
    key = module.key if module else ""
    return f"{key}:{'.'.join(result.path)}" if result.path else key


def test_src_layout_from_pyproject(tmp_path: Path) -> None:
    layout, files = make_layout(
        tmp_path,
        {
            "pyproject.toml": '[tool.setuptools]\npackage-dir = {"" = "lib"}\n',
            "lib/app/__init__.py": "",
            "lib/app/core.py": "",
            "tests/test_core.py": "",
        },
    )
    assert modules(layout, files) == {
        "lib/app/__init__.py": "app",
        "lib/app/core.py": "app.core",
        "tests/test_core.py": "tests.test_core",
    }
    assert target(layout, files, "tests/test_core.py", module="app.core", name="run") == (
        "app.core:run"
    )
    assert target(layout, files, "tests/test_core.py", module="requests") == "external"


def test_src_directory_is_a_root_without_config(tmp_path: Path) -> None:
    layout, files = make_layout(tmp_path, {"src/pkg/__init__.py": "", "src/pkg/a.py": ""})
    assert modules(layout, files)["src/pkg/a.py"] == "pkg.a"


def test_setup_cfg_package_dir_in_a_subproject(tmp_path: Path) -> None:
    layout, files = make_layout(
        tmp_path,
        {
            "services/api/setup.cfg": "[options]\npackage_dir =\n    =source\n",
            "services/api/source/api/__init__.py": "",
            "services/api/source/api/views.py": "",
        },
    )
    assert modules(layout, files)["services/api/source/api/views.py"] == "api.views"


def test_namespace_packages_and_relative_imports(tmp_path: Path) -> None:
    layout, files = make_layout(
        tmp_path,
        {
            "ns/plugins/one.py": "",  # ns and ns/plugins have no __init__.py
            "ns/plugins/two.py": "",
            "pkg/__init__.py": "",
            "pkg/sub/__init__.py": "",
            "pkg/sub/deep.py": "",
            "pkg/base.py": "",
        },
    )
    assert modules(layout, files)["ns/plugins/one.py"] == "ns.plugins.one"
    assert target(layout, files, "ns/plugins/two.py", module="ns.plugins.one") == "ns.plugins.one"
    assert target(layout, files, "pkg/sub/deep.py", module="base", level=2, name="X") == (
        "pkg.base:X"
    )
    assert target(layout, files, "pkg/sub/deep.py", module="", level=1, name="deep") == (
        "pkg.sub:deep"
    )
    assert target(layout, files, "pkg/sub/__init__.py", module="deep", level=1) == "pkg.sub.deep"
    assert target(layout, files, "pkg/base.py", module="missing", level=1) == ""


@pytest.mark.parametrize(("alias", "expected"), [(None, "pkg.sub.deep"), ("d", "pkg.sub.deep")])
def test_dotted_import_loads_the_full_module(
    tmp_path: Path, alias: str | None, expected: str
) -> None:
    layout, files = make_layout(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/sub/__init__.py": "", "pkg/sub/deep.py": "", "main.py": ""},
    )
    assert target(layout, files, "main.py", module="pkg.sub.deep", alias=alias) == expected
    row = ImportRow(
        0, files["main.py"].id, "pkg.sub.deep", None, alias, 0, 1, False, False, None, None
    )
    bound = layout.resolve_import(files["main.py"], row).module
    assert bound is not None and bound.key == ("pkg.sub.deep" if alias else "pkg")


def test_script_imports_its_sibling_but_package_modules_do_not(tmp_path: Path) -> None:
    layout, files = make_layout(
        tmp_path,
        {
            "tools/run.py": "",
            "tools/helpers.py": "",
            "pkg/__init__.py": "",
            "pkg/logging.py": "",
            "pkg/user.py": "",
        },
    )
    assert target(layout, files, "tools/run.py", module="helpers") == "tools.helpers"
    # inside a package, `import logging` is the standard library, not pkg/logging.py
    assert target(layout, files, "pkg/user.py", module="logging") == "external"
