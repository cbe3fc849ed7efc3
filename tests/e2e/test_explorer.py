"""``repolens ui`` end to end: the real server on a copy of a small shop, driven in Debian's
headless chromium through selenium and chromedriver. A person's path through it: the map,
a search, a symbol and its callers, a call path, the page following an edit; and the
guards: a name made of markup shows as text, a foreign Host or Origin is refused.

Screenshots land in the test's folder, and in ``$REPOLENS_SCREENSHOTS`` when set."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import TextContent
from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait
from webtools import CHROMIUM_FLAGS, REPO, chromium, need

FIXTURE = Path(__file__).parents[1] / "fixtures" / "ui" / "shop"
BUNDLE = REPO / "src" / "repolens" / "ui" / "static" / "build" / "app.js"
ODD = "<img src=x onerror=alert(1)>"
WAIT = 30.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A running explorer on an indexed copy of the shop: (base URL, project root)."""
    if not BUNDLE.exists():
        need("the explorer's bundle", "cd web && npm ci && npm run build")
    root = tmp_path_factory.mktemp("explorer") / "shop"
    shutil.copytree(FIXTURE, root)
    env = {**os.environ, "REPOLENS_EMBED_PROVIDER": "none"}
    subprocess.run([sys.executable, "-m", "repolens", "index", "--no-embed"], cwd=root,
                   env=env, check=True, capture_output=True, timeout=120)  # fmt: skip
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "repolens", "ui", "--no-open", "--port", str(port)],
        cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + WAIT
    while True:
        assert process.poll() is None, process.stdout.read().decode() if process.stdout else ""
        try:
            if httpx.get(base + "api/stamp", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, "the explorer did not start"
        time.sleep(0.2)
    yield base, root
    process.terminate()
    process.wait(timeout=15)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    binary = chromium()
    driver_path = shutil.which("chromedriver")
    if driver_path is None:
        need("Debian's chromedriver", "apt-get install -y chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    profile = tmp_path_factory.mktemp("chromium-profile")
    for flag in [*CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--window-size=1400,900"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(driver_path)), options=options)
    driver.set_page_load_timeout(WAIT)
    yield driver
    driver.quit()


def shot(driver: WebDriver, name: str, folder: Path) -> None:
    path = folder / f"{name}.png"
    driver.save_screenshot(str(path))
    extra = os.environ.get("REPOLENS_SCREENSHOTS")
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(extra) / path.name)


def renders(driver: WebDriver) -> int:
    return int(driver.execute_script("return window.__repolens ? window.__repolens.renders : 0"))


def wait_render(driver: WebDriver, before: int, view: str) -> None:
    """Until the page has drawn a view after ``before`` renders, and it is ``view``."""
    WebDriverWait(driver, WAIT).until(
        lambda d: renders(d) > before and d.execute_script("return document.body.dataset.view")
    )
    assert driver.execute_script("return document.body.dataset.view") == view, panel(driver)


def open_view(driver: WebDriver, url: str, view: str) -> None:
    """Load ``url`` and wait until the page is still: its view drawn, and drawn again
    with the dead-code marks that arrive after (so a later render is the test's own)."""
    driver.get("about:blank")
    driver.get(url)
    wait_render(driver, 0, view)
    WebDriverWait(driver, WAIT).until(
        lambda d: d.execute_script("return window.__repolens.deadReady !== null")
    )


def panel(driver: WebDriver) -> str:
    return str(driver.find_element(By.ID, "panel").text)


def code_line(driver: WebDriver, number: int) -> tuple[str, str]:
    """(the number shown in the gutter, the code) of a line in the panel's code."""
    row = driver.find_element(By.CSS_SELECTOR, f'pre.code .row[data-line="{number}"]')
    gutter = row.find_element(By.CSS_SELECTOR, ".ln").text
    return gutter, str(row.text)[len(gutter) :].strip()


def click_link(driver: WebDriver, text: str, view: str) -> None:
    before = renders(driver)
    links = [a for a in driver.find_elements(By.CSS_SELECTOR, "#panel a.item") if a.text == text]
    assert links, f"no link '{text}' in:\n{panel(driver)}"
    links[0].click()
    wait_render(driver, before, view)


def test_the_map_shows_folders_languages_and_the_import_cycle(
    served: tuple[str, Path], browser: WebDriver, tmp_path: Path
) -> None:
    base, _ = served
    open_view(browser, base + "#/map", "map")
    text = panel(browser)
    assert "shop/" in text and "markup/" in text and "cycle" in text
    assert "python 7" in text and "scala 1" in text
    nodes = browser.execute_script(
        "return window.__repolens.cy.nodes().map(n => [n.id(), n.hasClass('cycle')])"
    )
    assert sorted(nodes) == [["markup", False], ["shop", True], ["tests", False]]
    shot(browser, "map-root", tmp_path)
    click_link(browser, "shop/", "map")
    assert "repo.py" in panel(browser) and "service.py" in panel(browser)
    red = browser.execute_script(
        "return window.__repolens.cy.edges('.cycle')"
        ".map(e => e.source().id() + '>' + e.target().id())"
    )
    assert sorted(red) == ["shop/repo.py>shop/service.py", "shop/service.py>shop/repo.py"]
    WebDriverWait(browser, WAIT).until(lambda d: "1 unused" in panel(d))  # dead code arrives
    shot(browser, "map-shop", tmp_path)


def test_search_open_a_symbol_and_its_callers(
    served: tuple[str, Path], browser: WebDriver, tmp_path: Path
) -> None:
    base, _ = served
    open_view(browser, base + "#/map", "map")
    before = renders(browser)
    box = browser.find_element(By.ID, "search")
    box.send_keys("place_order", Keys.ENTER)
    wait_render(browser, before, "search")
    assert "shop.service.place_order" in panel(browser)
    shot(browser, "search", tmp_path)
    click_link(browser, "shop.service.place_order", "symbol")
    assert code_line(browser, 12) == ("12", "def place_order(items: list) -> Order:")
    text = panel(browser)
    assert "CALLERS (1)" in text.upper() and "shop/api.py:6" in text
    WebDriverWait(browser, WAIT).until(lambda d: "tests.test_api.test_handle_order" in panel(d))
    shot(browser, "symbol", tmp_path)
    click_link(browser, "shop.api.handle_order", "symbol")
    assert code_line(browser, 4) == ("4", "def handle_order(payload: dict) -> dict:")
    WebDriverWait(browser, WAIT).until(lambda d: "ROUTES THAT REACH IT (1)" in panel(d).upper())
    assert "POST /orders" in panel(browser)
    url = browser.current_url
    open_view(browser, url, "symbol")  # the URL is a deep link to the same view
    assert "shop.api.handle_order" in panel(browser)


def test_a_call_path_with_each_hop_and_its_code(
    served: tuple[str, Path], browser: WebDriver, tmp_path: Path
) -> None:
    base, _ = served
    open_view(browser, base + "#/path", "path")
    before = renders(browser)
    browser.find_element(By.NAME, "from").send_keys("handle_order")
    browser.find_element(By.NAME, "to").send_keys("price", Keys.ENTER)
    wait_render(browser, before, "path")
    text = panel(browser)
    assert "3 hops" in text
    sites = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#panel .hop .meta")]
    assert sites == ["calls at shop/api.py:6", "calls at shop/service.py:14",
                     "calls at shop/pricing.py:2"]  # fmt: skip
    marked = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "pre.code .row.mark")]
    assert marked[0].startswith("6") and "place_order(" in marked[0]
    chain = browser.execute_script("return window.__repolens.cy.nodes().map(n => n.data('label'))")
    assert chain == ["handle_order", "place_order", "total", "price"]
    shot(browser, "path", tmp_path)


def test_routes_lead_to_their_handlers(
    served: tuple[str, Path], browser: WebDriver, tmp_path: Path
) -> None:
    base, _ = served
    open_view(browser, base + "#/routes", "routes")
    assert "Routes (1)" in panel(browser) and "shop.web.create_order" in panel(browser)
    click_link(browser, "POST /orders", "symbol")
    assert "shop.web.create_order" in browser.find_element(By.CSS_SELECTOR, "#panel h2").text
    shot(browser, "routes-handler", tmp_path)


def test_a_name_made_of_markup_is_shown_as_text_and_runs_nothing(
    served: tuple[str, Path], browser: WebDriver, tmp_path: Path
) -> None:
    base, _ = served
    open_view(browser, base + "#/search?q=onerror&mode=symbols", "search")
    links = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#panel a.item")]
    assert any(ODD in link for link in links), links
    click_link(browser, next(link for link in links if ODD in link), "symbol")
    assert ODD in browser.find_element(By.CSS_SELECTOR, "#panel h2").text
    assert ODD in panel(browser)  # in the code too, as characters
    assert browser.execute_script("return document.querySelectorAll('img, svg').length") == 0
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text  # noqa: B018
    shot(browser, "markup-name", tmp_path)


def test_keyboard_theme_and_going_up(
    served: tuple[str, Path], browser: WebDriver, tmp_path: Path
) -> None:
    base, _ = served
    open_view(browser, base + "#/map?folder=shop", "map")
    body = browser.find_element(By.TAG_NAME, "body")
    theme = browser.execute_script("return document.documentElement.dataset.theme")
    body.send_keys("t")
    flipped = browser.execute_script("return document.documentElement.dataset.theme")
    assert {theme, flipped} == {"light", "dark"}
    body.send_keys("jjj")  # down to the third entry: pricing.py
    focused = browser.switch_to.active_element
    assert focused.get_attribute("class") == "item" and focused.text == "pricing.py"
    before = renders(browser)
    focused.send_keys(Keys.ENTER)
    wait_render(browser, before, "file")
    assert "legacy_discount" in panel(browser)
    shot(browser, "file-dark" if flipped == "dark" else "file-light", tmp_path)
    before = renders(browser)
    browser.find_element(By.TAG_NAME, "body").send_keys("u")
    wait_render(browser, before, "map")
    assert "#/map?folder=shop" in browser.current_url


def test_the_page_follows_the_index_without_a_reload(
    served: tuple[str, Path], browser: WebDriver, tmp_path: Path
) -> None:
    base, root = served
    open_view(browser, base + "#/file?path=shop/pricing.py", "file")
    assert "new_discount" not in panel(browser)
    browser.execute_script("window.__notReloaded = true")
    with (root / "shop" / "pricing.py").open("a", encoding="utf-8") as handle:
        handle.write("\n\ndef new_discount(amount: int) -> int:\n    return total([]) + amount\n")
    try:
        WebDriverWait(browser, 120).until(lambda d: "new_discount" in panel(d))
    except TimeoutException:
        state = httpx.get(served[0] + "api/stamp").json()
        raise AssertionError(f"the edit never showed; the writer says {state}") from None
    assert browser.execute_script("return window.__notReloaded") is True
    assert "index updated" in browser.find_element(By.ID, "live").text
    shot(browser, "live-update", tmp_path)


def test_foreign_hosts_origins_writes_and_paths_outside_are_refused(
    served: tuple[str, Path],
) -> None:
    base, _ = served
    assert httpx.get(base + "api/stamp").status_code == 200
    rebound = httpx.get(base + "api/stamp", headers={"Host": "attacker.example:8000"})
    assert rebound.status_code == 403 and "Host" in rebound.text
    cross = httpx.get(base + "api/map", headers={"Origin": "http://attacker.example"})
    assert cross.status_code == 403
    assert httpx.post(base + "api/stamp").status_code == 405
    outside = httpx.get(base + "api/file", params={"path": "../../etc/passwd"})
    assert outside.status_code == 400 and "climbs out" in outside.json()["error"]
    page = httpx.get(base)
    assert "script-src 'self'" in page.headers["content-security-policy"]


def test_the_mcp_diagram_tool_links_to_the_running_explorer(
    served: tuple[str, Path], browser: WebDriver, tmp_path: Path
) -> None:
    base, root = served

    async def ask() -> str:
        env = {**os.environ, "REPOLENS_EMBED_PROVIDER": "none", "REPOLENS_WATCH": "off"}
        params = StdioServerParameters(command=sys.executable, args=["-m", "repolens", "serve"],
                                       env=env, cwd=str(root))  # fmt: skip
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("diagram", {"scope": "place_order", "output": "url"})
            assert not result.is_error, result.content
            return "".join(c.text for c in result.content if isinstance(c, TextContent))

    url = anyio.run(ask)
    assert url.startswith(base + "#/symbol?id=") and url.rsplit("=", 1)[1].isdigit()
    open_view(browser, url, "symbol")
    assert "shop.service.place_order" in browser.find_element(By.CSS_SELECTOR, "#panel h2").text
