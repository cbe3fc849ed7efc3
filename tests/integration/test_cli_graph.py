"""The graph commands end to end: a real index of tests/fixtures/query/pyapp built by
``repolens index`` in a subprocess, then the commands' JSON contract and human output."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from conftest import run_repolens
from repolens.cli import cli
from repolens.cli.analysis import (
    cycles_command,
    deadcode_command,
    deps_command,
    graph_stats_command,
)
from repolens.cli.graph import (
    callees_command,
    callers_command,
    impact_command,
    path_command,
    symbols_command,
)

FIXTURE = Path(__file__).parent.parent / "fixtures" / "query" / "pyapp"


def repolens(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "repolens", *args],
        capture_output=True, text=True, timeout=120, cwd=cwd, env=env, check=False,
    )  # fmt: skip


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pyapp")
    shutil.copytree(FIXTURE, root, dirs_exist_ok=True)
    done = repolens("index", "--no-embed", str(root))
    assert done.returncode == 0, done.stderr
    return root


def run(command: click.Command, project: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(command, [*args, "--project", str(project)])
    return result.exit_code, result.output


def run_json(command: click.Command, project: Path, *args: str) -> tuple[int, Any]:
    code, output = run(command, project, *args, "--json")
    return code, json.loads(output)


def test_every_command_is_registered_on_the_group() -> None:
    ctx = click.Context(cli)
    names = set(cli.list_commands(ctx))
    assert {
        "callers", "callees", "impact", "path", "deps", "cycles", "deadcode", "symbols",
        "graph-stats",
    } <= names  # fmt: skip
    for name in names:
        command = cli.get_command(ctx, name)
        assert command is not None and command.name == name


def test_callers_json_contract(project: Path) -> None:
    code, data = run_json(callers_command, project, "format_name")
    assert code == 0
    assert data["symbol"] == {
        "name": "format_name", "qualified_name": "app.util.format_name", "kind": "function",
        "file": "app/util.py", "line": 6,
    }  # fmt: skip
    assert data["results"] == [
        {
            "name": "describe", "qualified_name": "app.service.describe", "kind": "function",
            "file": "app/service.py", "line": 18, "edge_kind": "calls",
            "confidence": data["results"][0]["confidence"],
            "provenance": data["results"][0]["provenance"],
        }
    ]  # fmt: skip
    assert 0 < data["results"][0]["confidence"] <= 1
    assert data["truncated"] is False


def test_callees_json_cites_definition_and_call_site(project: Path) -> None:
    code, data = run_json(callees_command, project, "create_user", "--file", "service.py")
    assert code == 0
    rows = {(r["qualified_name"], r["file"], r["line"], r["call_line"]) for r in data["results"]}
    assert rows == {
        ("app.models.User", "app/models.py", 12, 9),
        ("app.models.User.save", "app/models.py", 16, 10),
        ("app.service.describe", "app/service.py", 17, 11),
    }


def test_ambiguous_symbol_is_exit_1_with_candidates(project: Path) -> None:
    code, data = run_json(callers_command, project, "process")
    assert code == 1
    assert "ambiguous" in data["error"]
    assert [(c["file"], c["line"]) for c in data["candidates"]] == [
        ("app/jobs.py", 4),
        ("app/util.py", 25),
    ]
    assert set(data["candidates"][0]) == {"name", "qualified_name", "kind", "file", "line"}


def test_unknown_symbol_is_exit_1_with_suggestions(project: Path) -> None:
    code, data = run_json(callees_command, project, "formatName")
    assert code == 1
    assert "formatName" in data["error"]
    assert "app.util.format_name" in [c["qualified_name"] for c in data["candidates"]]
    code, text = run(callees_command, project, "formatName")
    assert code == 1 and "app/util.py:6" in text


def test_missing_index_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    pass\n")
    code, data = run_json(callers_command, tmp_path, "f")
    assert code == 1 and "repolens index" in data["error"]
    code, text = run(symbols_command, tmp_path)
    assert code == 1 and "no index" in text


def test_human_output_is_path_line_rows(project: Path) -> None:
    code, text = run(callers_command, project, "describe")
    assert code == 0
    assert text.splitlines() == [
        "callers of app.service.describe (function) app/service.py:17",
        "  app/service.py:11  app.service.Service.create_user  calls",
    ]
    code, text = run(callers_command, project, "maybe_called")
    assert code == 0
    assert "callers unknown: 1 unresolved reference(s) named 'maybe_called'" in text
    assert "app/service.py:14  handler.maybe_called  in app.service.Service.dispatch" in text
    code, data = run_json(callers_command, project, "hello")
    assert code == 0 and data["results"] == [] and "@route" in data["note"]


def test_impact_json_groups_by_file(project: Path) -> None:
    code, data = run_json(impact_command, project, "format_name", "--depth", "2")
    assert code == 0
    files = {g["file"]: {(s["qualified_name"], s["depth"]) for s in g["symbols"]}
             for g in data["files"]}  # fmt: skip
    assert files["app/service.py"] == {
        ("app.service.describe", 1),
        ("app.service.Service.create_user", 2),
    }
    assert data["frontier"] >= 1


def test_path_found_and_not_found(project: Path) -> None:
    code, data = run_json(path_command, project, "main", "format_name")
    assert code == 0 and data["found"] is True
    assert [h["qualified_name"] for h in data["path"]][-1] == "app.util.format_name"
    code, data = run_json(path_command, project, "format_name", "main")
    assert code == 0 and data["found"] is False and data["path"] == []


def test_deps_cycles_deadcode_symbols_stats(project: Path) -> None:
    code, data = run_json(deps_command, project, "app/service.py")
    assert code == 0 and {x["target"] for x in data["imports"]} == {"app/util.py", "app/models.py"}
    code, data = run_json(deps_command, project, "nope.py")
    assert code == 1 and "nope.py" in data["error"]
    code, data = run_json(cycles_command, project)
    assert code == 0 and [c["files"] for c in data["cycles"]] == [
        ["app/cycle_a.py", "app/cycle_b.py"]
    ]
    code, data = run_json(deadcode_command, project)
    assert code == 0 and "app.util.unused_helper" in {d["qualified_name"] for d in data["dead"]}
    code, data = run_json(symbols_command, project, "save")
    assert code == 0 and [r["qualified_name"] for r in data["results"]] == [
        "app.models.Base.save",
        "app.models.User.save",
        "app.util._on_save",
    ]
    code, data = run_json(graph_stats_command, project)
    assert code == 0 and data["files"] == 11


def test_subprocess_callers_json(project: Path) -> None:
    done = repolens("callers", "describe", "--project", str(project), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["symbol"]["qualified_name"] == "app.service.describe"
    assert [(r["file"], r["line"]) for r in data["results"]] == [("app/service.py", 11)]
    done = repolens("callers", "process", "--project", str(project), "--json")
    assert done.returncode == 1 and json.loads(done.stdout)["candidates"]


def test_no_tests_counts_test_callers_and_dependents_by_file(tmp_path: Path) -> None:
    root = tmp_path / "tested"
    shutil.copytree(Path(__file__).parents[1] / "fixtures" / "mcp" / "tested", root)
    assert run_repolens(root, "index", "--no-embed").returncode == 0
    every = run_repolens(root, "callers", "price").stdout
    assert "tests.test_pricing.test_price_0" in every
    shown = run_repolens(root, "callers", "price", "--no-tests")
    assert shown.returncode == 0, shown.stderr
    assert "app.cart.checkout" in shown.stdout and "test_price_0" not in shown.stdout
    assert "10 test callers, not listed: tests/test_pricing.py 6, tests/test_cart.py 4" in (
        shown.stdout
    )
    data = json.loads(run_repolens(root, "impact", "price", "--no-tests", "--json").stdout)
    assert data["total"] == 12
    assert data["tests_left_out"] == {
        "count": 10, "files": {"tests/test_pricing.py": 6, "tests/test_cart.py": 4},
    }  # fmt: skip
    listed = [s["qualified_name"] for f in data["files"] for s in f["symbols"]]
    assert listed == ["app.cart.cart_total", "app.cart.checkout"]
