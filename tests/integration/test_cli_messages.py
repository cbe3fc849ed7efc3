"""What the command line tells a new user points at things that exist and agrees with
itself: real ``repolens`` processes in fresh folders."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import click

from conftest import run_repolens
from repolens.cli import cli

PYAPP = Path(__file__).parents[1] / "fixtures" / "query" / "pyapp"


def test_reading_commands_leave_no_data_dir_where_no_index_is(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    for command in (["status"], ["search", "f"], ["callers", "f"], ["graph-stats"], ["stop"]):
        done = run_repolens(tmp_path, *command)
        if command != ["stop"]:
            assert done.returncode == 1 and "run `repolens index` first" in done.stderr
        assert not (tmp_path / ".repolens").exists(), command
    assert run_repolens(tmp_path, "index", "--no-embed").returncode == 0
    assert (tmp_path / ".repolens" / "index.db").is_file()


def test_a_misspelled_command_suggests_the_closest(tmp_path: Path) -> None:
    done = run_repolens(tmp_path, "statu")
    assert done.returncode == 2 and "No such command 'statu'. Did you mean 'status'?" in done.stderr
    done = run_repolens(tmp_path, "grpah-stats")
    assert "Did you mean 'graph-stats'?" in done.stderr
    assert "Did you mean" not in run_repolens(tmp_path, "xyzzy").stderr


def test_extra_extensions_naming_an_unknown_language_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / ".repolens.toml").write_text(
        '[extra_extensions]\n".foo" = "pythn"\n', encoding="utf-8"
    )
    (tmp_path / "a.foo").write_text("x = 1\n", encoding="utf-8")
    done = run_repolens(tmp_path, "index", "--no-embed")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    message = " ".join(done.stderr.split())
    assert "invalid extra_extensions = {'.foo': 'pythn'}" in message
    assert "a known language for '.foo', not 'pythn' (did you mean 'python'?)" in message
    assert "ruby" in message and "typescript" in message
    assert not (tmp_path / ".repolens").exists()


def test_the_index_summary_and_status_count_edges_alike(tmp_path: Path) -> None:
    shutil.copytree(PYAPP, tmp_path, dirs_exist_ok=True)
    index = run_repolens(tmp_path, "index", "--no-embed", "--json")
    resolved = json.loads(index.stdout)["index"]["edges"]
    graph = json.loads(run_repolens(tmp_path, "status", "--json").stdout)["graph"]
    assert resolved == graph["reference_edges"] and graph["edges"] > resolved
    shown = run_repolens(tmp_path, "status").stdout
    contains = graph["edges"] - resolved
    assert f"({resolved} reference edges resolved, {contains} contains)" in shown
    assert run_repolens(tmp_path, "remove", "--yes").returncode == 0
    summary = run_repolens(tmp_path, "index", "--no-embed").stdout
    assert f"{resolved} reference edges resolved" in summary


def test_the_readme_command_table_lists_every_command() -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Commands", 1)[1].split("\n\n", 2)[1]
    listed = {
        name
        for row in table.splitlines()
        if row.startswith("| `repolens ")
        for name in re.findall(r"`(?:repolens )?([a-z][a-z-]*)", row.split(" | ")[0])
    }
    assert set(cli.list_commands(click.Context(cli))) <= listed
    assert "--no-embed" in readme.split("## Languages", 1)[0] and "minutes" in readme
