"""``repolens routes``, ``entrypoints`` and ``flow`` end to end: a real index of the
Django fixture built by ``repolens index`` in a subprocess, then each command's JSON
contract, its human output, and a clear error for a route that does not exist."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_cli_graph import repolens

FIXTURE = Path(__file__).parent.parent / "fixtures" / "routes" / "django"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli-routes") / "django"
    shutil.copytree(FIXTURE, root)
    done = repolens("index", "--no-embed", str(root))
    assert done.returncode == 0, done.stderr
    return root


def test_routes_json_and_filters(project: Path) -> None:
    done = repolens("routes", "--json", "--path", "/shop/cart/c*", cwd=project)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [(r["method"], r["path"], r["handler"]["name"]) for r in data["results"]] == [
        ("ANY", "/shop/cart/checkout/", "checkout")
    ]
    assert data["results"][0]["file"] == "site/shop/urls.py"
    assert data["results"][0]["via"] == ["site/config/urls.py:8", "site/shop/urls.py:14"]
    human = repolens("routes", "--method", "POST", cwd=project).stdout
    assert "POST    /shop/products/{pk}/  -> site.shop.views.ProductDetail.post" in human
    assert "GET " not in human


def test_flow_from_a_route_and_an_unknown_route(project: Path) -> None:
    done = repolens("flow", "GET /shop/products/3/", "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    nodes = json.loads(done.stdout)["nodes"]
    assert [(n["depth"], n["name"], n["edge_kind"]) for n in nodes][:2] == [
        (1, "get", "routes_to"),
        (2, "find", "calls"),
    ]
    missing = repolens("flow", "DELETE /nowhere", "--json", cwd=project)
    assert missing.returncode == 1
    assert "error" in json.loads(missing.stdout)


def test_entrypoints_lists_routes_with_their_handlers(project: Path) -> None:
    done = repolens("entrypoints", "--kind", "route", "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    rows = {
        (e["name"], e["symbol"]["name"] if e["symbol"] else None)
        for e in json.loads(done.stdout)["results"]
    }
    assert ("ANY /blog/{slug}/", "post_detail") in rows
    assert ("ANY /shop/about/", None) in rows  # TemplateView: a handler outside the project
