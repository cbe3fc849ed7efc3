"""``repolens search`` over a project indexed by the real pipeline."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import run_repolens
from repolens.cli.search import search_command
from repolens.embed import create_provider
from repolens.index.embedding import embed_pending
from repolens.index.pipeline import index_project
from repolens.project import open_project
from repolens.store.db import connect

PROJECT = Path(__file__).parents[1] / "fixtures" / "search" / "project"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    for name in ("src/shop/cart.py.txt", "src/shop/payments.py.txt", "tests/test_cart.py.txt"):
        target = root / name.removesuffix(".txt")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(PROJECT / name, target)
    project = open_project(root)
    conn = connect(project.db_path)
    index_project(project, conn)
    conn.close()
    return root


def run(root: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(search_command, [*args, "--project", str(root)])
    return result.exit_code, result.output


def test_json_contract(root: Path) -> None:
    code, out = run(root, "cart_total", "--json")
    assert code == 0
    results = json.loads(out)["results"]
    assert set(results[0]) == {
        "file",
        "start_line",
        "end_line",
        "score",
        "symbol",
        "label",
        "outline",
        "language",
        "snippet",
    }
    assert (results[0]["file"], results[0]["symbol"]) == ("src/shop/cart.py", "cart_total")
    assert 0 <= results[0]["score"] <= 1 and "def cart_total" in results[0]["snippet"]
    assert all("\\" not in r["file"] for r in results)


def test_filters_and_limits(root: Path) -> None:
    code, out = run(root, "card", "--json", "--path", "src/*", "--lang", "python", "--limit", "1")
    results = json.loads(out)["results"]
    assert code == 0 and len(results) == 1 and results[0]["file"] == "src/shop/payments.py"
    code, out = run(root, "cart", "--json", "--kind", "class")
    assert code == 0 and all(
        r["symbol"] in {"LineItem", "Cart"} for r in json.loads(out)["results"]
    )
    code, out = run(root, "cart total", "--json", "--min-score", "1")
    assert json.loads(out)["results"] == []


def test_human_output_cites_lines(root: Path) -> None:
    code, out = run(root, "validate card number")
    assert code == 0
    assert "src/shop/payments.py:" in out and "validate_card_number" in out
    assert " def validate_card_number(number: str) -> bool:" in out


def test_semantic_results_once_embedded_and_keyword_only_said_before(root: Path) -> None:
    query = "is this plastic legit"  # no word of it is in the code
    assert json.loads(run(root, query, "--json")[1]) == {
        "mode": "keyword",
        "backend": "embedded",
        "notes": ["keyword (BM25) results only: nothing is embedded yet (`repolens index`)"],
        "results": [],
    }
    shown = subprocess.run(
        [sys.executable, "-m", "repolens", "search", "cart", "--project", str(root)],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert "note: keyword (BM25) results only: nothing is embedded yet" in shown.stderr
    project = open_project(root)
    conn = connect(project.db_path)
    embed_pending(conn, project.data_dir, create_provider("local"))
    conn.close()
    code, out = run(root, query, "--json")
    assert code == 0 and json.loads(out)["results"] and json.loads(out)["mode"] == "hybrid"
    assert "notes" not in json.loads(out)


def test_missing_index_is_a_clear_error(tmp_path: Path) -> None:
    code, out = run(tmp_path, "anything", "--json")
    assert code == 1 and "repolens index" in json.loads(out)["error"]


MERGED = Path(__file__).parents[1] / "fixtures" / "search" / "merged"


@pytest.fixture(scope="module")
def shapes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A file whose small neighbours the chunker merges: three top-level functions, and
    three small methods after a long one."""
    root = tmp_path_factory.mktemp("merged")
    shutil.copytree(MERGED, root, dirs_exist_ok=True)
    done = run_repolens(root, "index", "--no-embed")
    assert done.returncode == 0, done.stderr
    return root


def test_a_merged_chunk_is_labelled_by_what_it_holds(shapes: Path) -> None:
    shown = run_repolens(shapes, "search", "area of a circle", "--json")
    results = json.loads(shown.stdout)["results"]
    merged = next(r for r in results if r["start_line"] == 6)
    assert merged["label"] == "3 functions: square_area, circle_area, triangle_area"
    assert [(i["name"], i["line"]) for i in merged["outline"]] == [
        ("square_area", 6), ("circle_area", 10), ("triangle_area", 14),
    ]  # fmt: skip
    methods = run_repolens(shapes, "search", "resize the canvas")
    assert "3 methods of Canvas: clear, resize, plot" in methods.stdout


def test_no_code_gives_locations_and_signatures_only(shapes: Path) -> None:
    shown = run_repolens(shapes, "search", "resize the canvas", "--no-code")
    assert shown.returncode == 0, shown.stderr
    assert "   93  def resize(self, width, height)" in shown.stdout
    assert "self.width, self.height = width, height" not in shown.stdout
    data = json.loads(run_repolens(shapes, "search", "area", "--no-code", "--json").stdout)
    assert data["results"] and all("snippet" not in r for r in data["results"])


def test_budget_bounds_the_answer_and_says_what_it_left_out(shapes: Path) -> None:
    wide = run_repolens(shapes, "search", "canvas shapes drawn", "--budget", "100000")
    narrow = run_repolens(shapes, "search", "canvas shapes drawn", "--budget", "700")
    assert narrow.returncode == 0, narrow.stderr
    assert len(narrow.stdout.rstrip("\n")) <= 700 < len(wide.stdout)
    assert narrow.stdout.startswith("# Search (keyword): canvas shapes drawn")
    assert "Left out: part of the code of" in narrow.stdout
    assert "geometry/shapes.py:" in narrow.stdout
    data = json.loads(run_repolens(shapes, "search", "drawn", "--budget", "400", "--json").stdout)
    assert sum(len(r.get("snippet", "")) for r in data["results"]) <= 400
    assert data["left_out"].startswith("code of ")
    refused = run_repolens(shapes, "search", "drawn", "--budget", "10")
    assert refused.returncode == 2 and "--budget" in refused.stderr
