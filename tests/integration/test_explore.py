"""Explore over a real index: names in any order become the call chain in call order; a
class followed by a member's name is that member; unknown words and symbols the chain
cannot reach are reported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import open_indexed, write_files
from repolens.query.explore import explore

FILES = {
    "shop/__init__.py": "",
    "shop/controller.py": (
        "from shop.service import OrderService\n\n\nclass OrderController:\n"
        "    def __init__(self) -> None:\n        self.service = OrderService()\n\n"
        "    def list(self, user: str) -> list:\n        return self.service.find(user)\n"
    ),
    "shop/service.py": (
        "from shop.repo import OrderRepository\n\n\nclass OrderService:\n"
        "    def __init__(self) -> None:\n        self.repo = OrderRepository()\n\n"
        "    def find(self, user: str) -> list:\n        return self.repo.query(user)\n"
    ),
    "shop/repo.py": (
        "class OrderRepository:\n    def query(self, user: str) -> list:\n        return [user]\n"
        "\n\ndef unrelated() -> None:\n    pass\n"
    ),
    "admin/tools.py": "def find(name: str) -> str:\n    return name\n",
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("explore")
    write_files(root, FILES)
    open_indexed(root).close()
    return root


def test_the_chain_follows_calls_whatever_the_order_of_names(project: Path) -> None:
    found = explore(open_indexed(project), "OrderRepository query OrderController list"
                    " OrderService find unrelated nonsense")  # fmt: skip
    assert found.chain is not None
    assert [s.qualified_name for s in found.chain_symbols()] == [
        "OrderController.list", "OrderService.find", "OrderRepository.query",
    ]  # fmt: skip
    assert [s.qualified_name for s in found.off_chain] == ["unrelated"]
    assert found.unknown == ["nonsense"]


def test_an_ambiguous_name_takes_the_candidate_on_the_chain(project: Path) -> None:
    found = explore(open_indexed(project), "OrderController list find")
    assert "find" in found.ambiguous
    assert [s.file for s in found.named] == ["shop/controller.py", "shop/service.py"]
    assert found.chain is not None and found.chain.hops[-1].symbol.qualified_name == (
        "OrderService.find"
    )


def test_no_chain_is_said_not_invented(project: Path) -> None:
    found = explore(open_indexed(project), "unrelated OrderRepository query")
    assert found.chain is None
    assert {s.qualified_name for s in found.off_chain} == {"unrelated", "OrderRepository.query"}


def test_cli_explore_json(project: Path) -> None:
    env = {**os.environ, "REPOLENS_EMBED_PROVIDER": "none"}
    out = json.loads(subprocess.run(
        [sys.executable, "-m", "repolens", "explore", "OrderService", "find", "OrderController",
         "list", "--json", "--project", str(project)],
        env=env, capture_output=True, text=True, check=True,
    ).stdout)  # fmt: skip
    assert out["chain"]["start"]["qualified_name"] == "shop.controller.OrderController.list"
    assert out["chain"]["hops"][0]["call_site"] == "shop/controller.py:9"
