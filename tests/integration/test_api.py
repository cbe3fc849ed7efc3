"""The Python API (``repolens.open``) on a real copy of the MCP sample project: build the
index, ask the graph and search, update after an edit; lookups never answer for another
symbol."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import repolens
from repolens.api import Codebase
from repolens.query.graph import SymbolLookupError

FIXTURE = Path(__file__).parents[1] / "fixtures" / "mcp" / "sample"


@pytest.fixture(scope="module")
def code(tmp_path_factory: pytest.TempPathFactory) -> Codebase:
    root = tmp_path_factory.mktemp("api") / "sample"
    shutil.copytree(FIXTURE, root)
    codebase = repolens.open(root)
    report = codebase.index(embed=False)
    assert report.parsed >= 10
    return codebase


def test_graph_questions(code: Codebase) -> None:
    callers = {hit.symbol.qualified_name for hit in code.callers("fetch_user")}
    assert "get_user" in callers
    assert "fetch_user" in {hit.symbol.qualified_name for hit in code.callees("get_user")}
    assert any(h.symbol.qualified_name == "get_user" for h in code.impact("fetch_user").hits)
    hops = code.path("Server.handle", "fetch_user")
    assert hops is not None and hops[-1].symbol.qualified_name == "fetch_user"
    assert [h.symbol.name for h in code.hierarchy("View", up=False).down] == ["UserView"]
    chain = code.explore("fetch_user Server handle").chain
    assert chain is not None and chain.start.qualified_name == "Server.handle"


def test_lookup_is_exact(code: Codebase) -> None:
    with pytest.raises(SymbolLookupError) as ambiguous:
        code.symbol("load")  # cache.load and config.load
    assert {c.file for c in ambiguous.value.candidates} == {"shop/cache.py", "shop/config.py"}
    assert code.symbol("load", file="shop/cache.py").file == "shop/cache.py"
    with pytest.raises(SymbolLookupError):
        code.callers("no_such_function")


def test_search_context_status_and_update(code: Codebase) -> None:
    assert any(hit.file == "shop/db.py" for hit in code.search("fetch user from the database"))
    bundle = code.context("how does Server.handle reach fetch_user?", budget=4000)
    assert any(item.symbol.qualified_name == "fetch_user" for item in bundle.items)
    assert code.status()["files"]["indexed"] >= 10
    (code.root / "shop" / "late.py").write_text("def added_later():\n    return 1\n")
    code.update(["shop/late.py"], embed=False)
    assert code.symbol("added_later").file == "shop/late.py"
