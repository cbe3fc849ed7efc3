"""Item-sized faults: a relative data dir, worker counts past the cores, odd paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import IndexTree
from repolens.config import load_settings, usable_cores
from repolens.index.pipeline import worker_count
from repolens.project import Project, open_project
from repolens.query.symbols import SymbolLookupError, find_symbol, search_symbols


def test_a_relative_data_dir_is_taken_from_the_project_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / ".repolens.toml").write_text('data_dir = "../store"\n')
    elsewhere = tmp_path / "a" / "b"
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(elsewhere)  # the command runs from another folder
    project = open_project(root, load_settings(root, environ={}))
    assert project.data_dir.parent == (tmp_path / "store").resolve()
    assert project.data_dir.is_dir()
    assert not (tmp_path / "a" / "store").exists()


def test_a_backslash_and_a_colon_in_a_path_are_characters_of_the_name(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "back\\slash.py").write_text("def in_backslash():\n    return 1\n")
    (tmp_path / "dir:x").mkdir()
    (tmp_path / "dir:x" / "a.py").write_text("def in_colon():\n    return 2\n")
    (tmp_path / "b.rs").write_text("struct Foo;\nimpl Foo {\n    fn bar(&self) {}\n}\n")
    conn = index_tree(tmp_path)
    try:
        found = search_symbols(conn, "", file="pkg/back\\slash.py")
        assert [ref.name for ref in found if ref.kind == "function"] == ["in_backslash"]
        assert find_symbol(conn, "dir:x/a.py:in_colon").file == "dir:x/a.py"
        assert find_symbol(conn, "dir:x/a.py:1").name == "in_colon"
        assert find_symbol(conn, "b.rs:Foo::bar").name == "bar"  # '::' is not a path's end
        with pytest.raises(SymbolLookupError, match=r"no indexed file matches 'nowhere\.py'"):
            find_symbol(conn, "nowhere.py:f")
    finally:
        conn.close()


def make_project(root: Path, **settings: str) -> Project:
    env = {f"REPOLENS_{key.upper()}": value for key, value in settings.items()}
    return open_project(root, load_settings(root, environ=env))


def test_workers_past_the_usable_cores_are_capped_unless_forced(tmp_path: Path) -> None:
    cores = usable_cores()
    asked = cores + 46
    assert worker_count(make_project(tmp_path, workers=str(asked))) == cores
    assert worker_count(make_project(tmp_path, workers="1")) == 1
    assert worker_count(make_project(tmp_path)) == cores
    forced = make_project(tmp_path, workers=str(asked), force_workers="true")
    assert worker_count(forced) == asked


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
def test_a_utf16_source_with_its_mark_is_decoded_not_skipped_as_binary(
    tmp_path: Path, index_tree: IndexTree, encoding: str
) -> None:
    text = "def wide_function():\n    return 'é'\n\n\ndef caller():\n    return wide_function()\n"
    mark = "\ufeff" if encoding == "utf-16-be" else ""  # utf-16/32 write their own mark
    (tmp_path / "wide.py").write_bytes((mark + text).encode(encoding))
    conn = index_tree(tmp_path)
    try:
        found = find_symbol(conn, "wide_function")
        assert (found.file, found.line) == ("wide.py", 1)
        assert find_symbol(conn, "caller").line == 5
        match = "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'wide_function'"
        assert conn.execute(match).fetchone()[0] >= 1
    finally:
        conn.close()
