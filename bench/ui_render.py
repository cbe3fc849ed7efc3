"""The explorer's speed in a real browser: time to first render and frame time while zooming.

For each project (indexed here first if it is not), ``repolens ui`` serves it and Debian's
headless chromium (through selenium and chromedriver) opens the map:

- first render: from navigation start to the map drawn and laid out (the page's own
  ``window.__repolens.firstRender``), cold (the server's first read of the index) and warm;
- zoom: 120 animation frames, each zooming by 3% in then out about the centre, and the
  time between frames (median, 95th percentile, worst), on the root map and on the
  biggest folder's map;
- baseline, in the same browser: the same zoom with every file drawn as its own box and
  every import as an arrow (what the map would be without aggregation), grid-placed.

    python bench/ui_render.py /path/to/pip /path/to/sympy /path/to/a-7k-file-project

Headless chromium draws the canvas in software (--disable-gpu), so frame times are an upper
bound of what a desktop browser shows. Nothing here is asserted in tests.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from repolens.project import open_project
from repolens.query.filegraph import file_graph
from repolens.store.db import connect

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--no-first-run", "--window-size=1400,900",
]  # fmt: skip
FRAMES = 120
BUDGET_MS = 20_000  # a view that draws slower than this is measured on fewer frames

# Zoom in then out, one step per animation frame; resolve with the frame intervals (ms).
ZOOM_SCRIPT = """
const done = arguments[arguments.length - 1];
const cy = window.__repolens.cy;
const centre = { x: cy.width() / 2, y: cy.height() / 2 };
const frames = arguments[0], budget = arguments[1];
const gaps = [];
let last = null, step = 0, began = null;
function tick(now) {
  if (last !== null) gaps.push(now - last);
  if (began === null) began = now;
  last = now;
  if (step >= frames || now - began > budget) { done(gaps); return; }
  const factor = step < frames / 2 ? 1.03 : 1 / 1.03;
  cy.zoom({ level: cy.zoom() * factor, renderedPosition: centre });
  step += 1;
  requestAnimationFrame(tick);
}
cy.fit(undefined, 30);
requestAnimationFrame(tick);
"""

# Replace the drawing with every file and every import (the unaggregated baseline).
FLAT_SCRIPT = """
const cy = window.__repolens.cy;
const [files, imports] = arguments;
const side = Math.ceil(Math.sqrt(files.length));
cy.elements().remove();
cy.add(files.map((f, i) => ({ data: { id: f, label: f.split('/').pop(), colour: '#3572a5',
  size: 20 }, position: { x: (i % side) * 60, y: Math.floor(i / side) * 60 } })));
cy.add(imports.map(([a, b], i) => ({ data: { id: 'f' + i, source: a, target: b, width: 1 } })));
cy.fit(undefined, 30);
return cy.elements().length;
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def ensure_indexed(root: Path, env: dict[str, str]) -> float:
    """Seconds spent bringing the index up to date (building it, or migrating it)."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "repolens", "index", "--no-embed"], cwd=root,
                   env=env, check=True, capture_output=True)  # fmt: skip
    return time.perf_counter() - started


def browser(profile: Path) -> WebDriver:
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in [*FLAGS, f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    service = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver")
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_script_timeout(300)
    driver.set_page_load_timeout(300)
    return driver


def first_render(driver: WebDriver, url: str) -> tuple[float, float]:
    """(ms to the first picture, ms until dead-code marks are drawn too); the page is
    left still, so that zooming is measured alone."""
    driver.get("about:blank")
    driver.get(url)
    WebDriverWait(driver, 900).until(
        lambda d: d.execute_script("return window.__repolens && window.__repolens.deadReady")
    )
    first, dead = driver.execute_script(
        "return [window.__repolens.firstRender, window.__repolens.deadReady]"
    )
    return float(first), float(dead)


def zoom(driver: WebDriver) -> dict[str, float]:
    gaps = [float(g) for g in driver.execute_async_script(ZOOM_SCRIPT, FRAMES, BUDGET_MS)]
    gaps.sort()
    return {
        "median": statistics.median(gaps),
        "p95": gaps[max(int(len(gaps) * 0.95) - 1, 0)],
        "worst": gaps[-1],
        "frames": len(gaps),
    }


def measure(root: Path, driver: WebDriver) -> dict[str, Any]:
    env = {**os.environ, "REPOLENS_EMBED_PROVIDER": "none", "REPOLENS_WATCH": "off"}
    indexed = ensure_indexed(root, env)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "repolens", "ui", "--no-open", "--port", str(port)],
        cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}/"
    try:
        while True:
            try:
                if httpx.get(base + "api/stamp", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        cold, cold_dead = first_render(driver, base + "#/map")
        warm, _ = first_render(driver, base + "#/map")
        entries = len(driver.execute_script("return window.__repolens.cy.nodes().map(n => 1)"))
        root_zoom = zoom(driver)
        biggest = busiest_folder(base)
        folder_render, _ = first_render(driver, base + f"#/map?folder={biggest['key']}")
        folder_entries = len(driver.execute_script("return window.__repolens.cy.nodes()"
                                                   ".map(n => 1)"))  # fmt: skip
        folder_zoom = zoom(driver)
        project = open_project(root)
        conn = connect(project.db_path, readonly=True)
        try:
            graph = file_graph(conn)
        finally:
            conn.close()
        drawn = driver.execute_script(FLAT_SCRIPT, sorted(graph.files), sorted(graph.imports))
        flat_zoom = zoom(driver)
    finally:
        server.terminate()
        server.wait(timeout=30)
    return {
        "project": root.name, "files": len(graph.files), "imports": len(graph.imports),
        "indexed_s": indexed, "cold_ms": cold, "warm_ms": warm, "entries": entries,
        "dead_ms": cold_dead,
        "root_zoom": root_zoom, "folder": biggest["key"], "folder_ms": folder_render,
        "folder_entries": folder_entries, "folder_zoom": folder_zoom,
        "flat_elements": drawn, "flat_zoom": flat_zoom,
    }  # fmt: skip


def busiest_folder(base: str) -> dict[str, Any]:
    """The biggest top-level folder, followed down while it holds a single folder
    (``src/`` → ``src/pip/``), so the view measured has something in it."""
    entries = httpx.get(base + "api/map", timeout=300).json()["entries"]
    folder = max((e for e in entries if e["kind"] == "folder"), key=lambda e: e["files"])
    while True:
        inside = httpx.get(base + "api/map", params={"folder": folder["key"]}, timeout=300)
        children = inside.json()["entries"]
        if len(children) != 1 or children[0]["kind"] != "folder":
            return dict(folder)
        folder = children[0]


def frames(z: dict[str, float]) -> str:
    return f"{z['median']:.1f} / {z['p95']:.1f} / {z['worst']:.0f} ({z['frames']:.0f} frames)"


def row(r: dict[str, Any]) -> str:
    return " | ".join((
        f"{r['project']}", f"{r['files']} ({r['imports']} import pairs)",
        f"{r['cold_ms']:.0f} / {r['warm_ms']:.0f} ms", f"{r['dead_ms']:.0f} ms",
        f"{r['entries']}, {frames(r['root_zoom'])}",
        f"{r['folder']}/ {r['folder_entries']}, {r['folder_ms']:.0f} ms,"
        f" {frames(r['folder_zoom'])}",
        f"{r['flat_elements']}, {frames(r['flat_zoom'])}",
    ))  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("projects", nargs="+", type=Path)
    args = parser.parse_args()
    print("explorer in headless chromium (software canvas)")
    print("frame times are median / p95 / worst ms between animation frames while zooming")
    head = (
        "project", "files", "first render cold / warm", "dead code drawn",
        "root map: boxes, frames", "biggest folder: boxes, render, frames",
        "baseline, every file: elements, frames",
    )  # fmt: skip
    print(" | ".join(head), flush=True)
    with tempfile.TemporaryDirectory() as profile:
        driver = browser(Path(profile))
        try:
            for root in args.projects:
                print(row(measure(root.resolve(), driver)), flush=True)
        finally:
            driver.quit()
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
