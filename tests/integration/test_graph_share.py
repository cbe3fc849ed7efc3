"""The team's graph as a file: ``repolens index --push`` publishes the index of the
commit to the graph share, and a fresh checkout's ``repolens index`` fetches it and then
parses only what differs, ending with the graph a full index of that checkout builds.

Real processes, real git work trees (a clone is a second machine: its own data folder,
new mtimes on every file), the graph fixture of ``test_graph_accuracy``.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from test_graph_accuracy import FIXTURES, edge_set


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def repolens(root: Path, data: Path, share: Path | None, *args: str) -> tuple[int, dict]:
    env = {**os.environ, "REPOLENS_PROJECT_ID": "shop", "REPOLENS_DATA_DIR": str(data)}
    if share is not None:
        env["REPOLENS_GRAPH_SHARE"] = str(share)
    done = subprocess.run(
        [sys.executable, "-m", "repolens", *args, "--json"],
        cwd=root, env=env, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    return done.returncode, json.loads(done.stdout)


def index_db(data: Path) -> sqlite3.Connection:
    return sqlite3.connect(next(data.rglob("index.db")))


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    root = tmp_path / "ci" / "shop"
    shutil.copytree(FIXTURES / "python", root)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "shop")
    return root


def test_a_fresh_checkout_fetches_the_published_graph_and_indexes_only_its_edit(
    origin: Path, tmp_path: Path
) -> None:
    share = tmp_path / "share"
    code, ci = repolens(origin, tmp_path / "ci-data", share, "index", "--no-embed", "--push")
    assert code == 0, ci
    commit = git(origin, "rev-parse", "HEAD")
    assert ci["graph"]["commit"] == commit
    assert (share / "shop" / f"{commit}.db").is_file()
    assert json.loads((share / "shop" / "latest.json").read_text())["commit"] == commit
    total = ci["index"]["parsed"]

    laptop = tmp_path / "laptop" / "shop"
    subprocess.run(["git", "clone", "-q", str(origin), str(laptop)], check=True)
    models = laptop / "src/shop/models.py"
    models.write_text(models.read_text().replace("def validate(", "def check("))
    code, fetched = repolens(laptop, tmp_path / "laptop-data", share, "index", "--no-embed")
    assert code == 0, fetched
    assert fetched["fetched"]["commit"] == commit
    assert fetched["index"]["parsed"] + fetched["index"]["reused"] == 1  # the others re-hashed
    assert fetched["index"]["unchanged"] == total - 1

    code, full = repolens(laptop, tmp_path / "full-data", None, "index", "--no-embed")
    assert code == 0 and "fetched" not in full
    assert full["index"]["parsed"] + full["index"]["reused"] == total  # facts shared in the clone
    got, want = index_db(tmp_path / "laptop-data"), index_db(tmp_path / "full-data")
    assert edge_set(got) == edge_set(want)
    assert any("check" in edge for edge in edge_set(got))


def test_an_existing_index_is_not_replaced_and_nothing_published_is_no_error(
    origin: Path, tmp_path: Path
) -> None:
    share = tmp_path / "share"
    code, first = repolens(origin, tmp_path / "data", share, "index", "--no-embed")
    assert code == 0 and first["fetched"] is None  # an empty share: indexed here
    repolens(origin, tmp_path / "other-data", share, "index", "--no-embed", "--push")
    code, again = repolens(origin, tmp_path / "data", share, "index", "--no-embed")
    assert code == 0 and again["fetched"] is None  # its own index stays, brought up to date


def test_push_with_nowhere_to_publish_says_so(origin: Path, tmp_path: Path) -> None:
    code, out = repolens(origin, tmp_path / "data", None, "index", "--no-embed", "--push")
    assert code != 0
    assert "REPOLENS_GRAPH_SHARE" in out["error"] and "REPOLENS_QDRANT_URL" in out["error"]
