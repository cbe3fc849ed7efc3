"""The team index from the command line: ``repolens index --push`` publishes, ``repolens
search`` reads the published copy and overlays what changed locally since its commit.

Real processes and a real git work tree; Qdrant is the client's local mode in a
directory (``REPOLENS_QDRANT_URL=local:DIR``), or Qdrant Edge's shards in one
(``edge:DIR``, when qdrant-edge-py is installed): either may be opened by one process
at a time, as these commands do one after another. Keyword-only (no embedding model) keeps the
processes quick; dense search through Qdrant is covered by ``test_search_qdrant``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).parents[1] / "fixtures" / "search" / "project"
FILES = ("src/shop/cart.py.txt", "src/shop/payments.py.txt", "tests/test_cart.py.txt")


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    for name in FILES:
        target = root / name.removesuffix(".txt")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(PROJECT / name, target)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "shop")
    return root


def repolens(root: Path, qdrant: str, *args: str) -> dict:
    env = {
        **os.environ,
        "REPOLENS_SEARCH_BACKEND": "qdrant",
        "REPOLENS_QDRANT_URL": qdrant,
        "REPOLENS_PROJECT_ID": "shop",
        "REPOLENS_EMBED_PROVIDER": "none",
    }
    done = subprocess.run(
        [sys.executable, "-m", "repolens", *args, "--json"],
        cwd=root, env=env, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("mode", ["local", "edge"])
def test_push_then_search_the_published_index_with_local_edits_overlaid(
    root: Path, tmp_path: Path, mode: str
) -> None:
    if mode == "edge":
        pytest.importorskip("qdrant_edge")
    qdrant = f"{mode}:{tmp_path / 'qdrant'}"
    pushed = repolens(root, qdrant, "index", "--push")["push"]
    assert (pushed["tenant"], pushed["files_sent"]) == ("shop", 3)
    assert pushed["commit"] == git(root, "rev-parse", "HEAD")
    found = repolens(root, qdrant, "search", "cart_total")
    assert found["backend"] == "qdrant"
    assert not any("local index" in note for note in found.get("notes", []))  # no fallback
    assert (found["results"][0]["file"], found["results"][0]["symbol"]) == (
        "src/shop/cart.py",
        "cart_total",
    )
    # an uncommitted rename, indexed locally and never pushed
    cart = root / "src/shop/cart.py"
    cart.write_text(cart.read_text().replace("cart_total", "basket_total"))
    repolens(root, qdrant, "update")
    renamed = repolens(root, qdrant, "search", "basket_total")["results"]
    assert (renamed[0]["file"], renamed[0]["symbol"]) == ("src/shop/cart.py", "basket_total")
    stale = repolens(root, qdrant, "search", "cart_total")["results"]
    assert all("def cart_total" not in r["snippet"] for r in stale)  # the remote copy is out
    again = repolens(root, qdrant, "index", "--push")["push"]
    assert (again["files_sent"], again["files_unchanged"]) == (1, 2)


def test_an_unreachable_server_costs_the_remote_half_not_the_search(root: Path) -> None:
    repolens(root, "http://127.0.0.1:9", "index")  # indexing needs no server
    found = repolens(root, "http://127.0.0.1:9", "search", "cart_total")
    assert found["backend"] == "embedded" and found["results"]
    assert any("Qdrant unreachable" in note for note in found["notes"])


def test_a_laptop_embeds_only_what_differs_from_the_published_commit(
    root: Path, tmp_path: Path
) -> None:
    from repolens.index.background import make_embedder
    from repolens.project import open_project
    from repolens.store.db import connect

    qdrant = f"local:{tmp_path / 'qdrant'}"
    (root / ".repolens.toml").write_text(
        f'project_id = "shop"\nsearch_backend = "qdrant"\nqdrant_url = "{qdrant}"\n'
    )
    git(root, "add", ".repolens.toml")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "config")
    repolens(root, qdrant, "index", "--push")  # CI: keyword index published, commit recorded
    cart = root / "src/shop/cart.py"
    cart.write_text(cart.read_text() + "\n\ndef empty_cart(cart):\n    cart.items = []\n")
    repolens(root, qdrant, "update")
    project = open_project(root)
    embedder, why = make_embedder(project)
    assert embedder is not None, why
    stats = embedder(lambda: False)
    conn = connect(project.db_path)
    cart_chunks = conn.execute(
        "SELECT count(*) FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = ?",
        ("src/shop/cart.py",),
    ).fetchone()[0]
    conn.close()
    assert stats["chunks"] == cart_chunks  # the edited file only, not the whole project
    assert stats["remaining"] > 0  # the rest is the cluster's
