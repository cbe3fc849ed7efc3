"""``repolens diagram`` end to end: a real index of a small shop, the real CLI, and every
diagram kind rendered by the real ``@mermaid-js/mermaid-cli`` in Debian's headless chromium.
A diagram that Mermaid cannot parse fails here, and so does one that draws the wrong names."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from webtools import node_tool, puppeteer_config

FIXTURE = Path(__file__).parents[1] / "fixtures" / "ui" / "shop"
ODD = "<img src=x onerror=alert(1)>"


def repolens(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real CLI, run in ``root`` (the project is the working directory)."""
    env = {**os.environ, "REPOLENS_EMBED_PROVIDER": "none"}
    return subprocess.run(
        [sys.executable, "-m", "repolens", *args], cwd=root,
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mermaid") / "shop"
    shutil.copytree(FIXTURE, root)
    done = repolens(root, "index", "--no-embed")
    assert done.returncode == 0, done.stderr
    return root


def diagram(root: Path, *args: str) -> dict[str, object]:
    done = repolens(root, "diagram", *args, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    data: dict[str, object] = json.loads(done.stdout)
    return data


def rendered(text: str, folder: Path, name: str) -> str:
    """The SVG mermaid-cli draws for ``text``; mmdc exits non-zero on a syntax error."""
    source, target = folder / f"{name}.mmd", folder / f"{name}.svg"
    source.write_text(text, encoding="utf-8")
    done = subprocess.run(
        [str(node_tool("mmdc")), "-q", "-p", str(puppeteer_config(folder)),
         "-i", str(source), "-o", str(target)],
        capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"mermaid rejected:\n{text}\n{done.stderr}"
    return target.read_text(encoding="utf-8")


def labels(svg: str) -> str:
    """The visible text of an SVG, tags dropped and entities read."""
    text = re.sub(r"<[^>]+>", " ", svg)
    return " ".join(text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&").split())


def test_file_graph_draws_folders_and_the_cycle(shop: Path, tmp_path: Path) -> None:
    data = diagram(shop)
    text = str(data["mermaid"])
    assert "subgraph g" in text and '["shop"]' in text
    svg = rendered(text, tmp_path, "files")
    seen = labels(svg)
    for name in ("api.py", "service.py", "repo.py", "pricing.py", "Markup.scala"):
        assert name in seen
    # repo.py and service.py import each other: both boxes and both arrows are marked.
    assert svg.count('class="node default cycle') == 2
    red = re.findall(r'<path[^>]*id="[^"]*L_n\d+_n\d+[^"]*"[^>]*style="[^"]*#d62728', svg)
    assert len(red) == 2


def test_past_the_node_cap_folders_stand_for_their_files(shop: Path, tmp_path: Path) -> None:
    data = diagram(shop, "--max-nodes", "3")
    notes = " ".join(map(str, data["notes"]))  # type: ignore[call-overload]
    assert "collapsed" in notes and "shop/" in notes
    assert int(str(data["nodes"])) <= 3
    seen = labels(rendered(str(data["mermaid"]), tmp_path, "folded"))
    assert "shop/ (6 files)" in seen


def test_call_neighbourhood_flow_and_path(shop: Path, tmp_path: Path) -> None:
    calls = labels(rendered(str(diagram(shop, "--scope", "place_order")["mermaid"]), tmp_path, "c"))
    assert "place_order (function)" in calls
    assert "handle_order (function)" in calls and "total (function)" in calls
    flow = diagram(shop, "--kind", "flow", "--scope", "handle_order", "--depth", "3")
    seen = labels(rendered(str(flow["mermaid"]), tmp_path, "flow"))
    assert "price (function)" in seen and "save (function)" in seen
    route = diagram(shop, "--kind", "flow", "--scope", "POST /orders")
    seen = labels(rendered(str(route["mermaid"]), tmp_path, "route"))
    assert "POST /orders (route)" in seen and "create_order (function)" in seen
    assert '-->|"route"|' in str(route["mermaid"])  # the route leads to its handler
    path = diagram(shop, "--kind", "path", "--scope", "handle_order", "--to", "price")
    text = str(path["mermaid"])
    seen = labels(rendered(text, tmp_path, "path"))
    assert all(n in seen for n in ("handle_order (", "place_order (", "total (", "price ("))
    # one arrow per hop, in order, each labelled with its call site
    sites = re.findall(r'-->\|"([^"]+)"\|', text)
    assert sites == ["shop/api.py:6", "shop/service.py:14", "shop/pricing.py:2"]
    assert all(site in seen for site in sites)


def test_names_that_look_like_markup_are_drawn_as_text(shop: Path, tmp_path: Path) -> None:
    text = str(diagram(shop, "--scope", "Markup.page")["mermaid"])
    assert ODD not in text  # escaped into entity codes, never raw
    svg = rendered(text, tmp_path, "odd")
    assert "<img" not in svg
    assert ODD in labels(svg)


def test_a_path_that_does_not_exist_is_a_clear_error(shop: Path) -> None:
    done = repolens(shop, "diagram", "--kind", "path", "--scope", "price", "--to", "handle_order")
    assert done.returncode == 1
    assert "no call path from shop.pricing.price to shop.api.handle_order" in done.stderr
    done = repolens(shop, "diagram", "--scope", "../elsewhere")
    assert done.returncode == 1 and "climbs out of the project root" in done.stderr
