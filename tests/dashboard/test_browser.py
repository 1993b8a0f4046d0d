"""The status page in a real headless browser (Debian's chromium through playwright) against a real daemon.

Checks the rendered DOM after live updates, that no request leaves the daemon's origin, the size of
the page and its assets, 401 without the token, phone width, the dark theme and the console. A
screenshot of each view is kept in the test's temporary directory (or $EDGE_AGENT_ARTIFACTS).
Without chromium or playwright the tests skip, unless EDGE_AGENT_REQUIRE_BROWSER is set (CI).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]
SIZE_CAP = 200 * 1024
UPDATE_WAIT_MS = 10_000  # generous bound on a shared machine; the page polls every second


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as _expect

    return _expect(locator)


def _browser_or_skip() -> Any:
    required = bool(os.environ.get("EDGE_AGENT_REQUIRE_BROWSER"))
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if required:
            raise
        pytest.skip("playwright is not installed (dev extra)")
    if not Path(CHROMIUM).exists():
        if required:
            pytest.fail("EDGE_AGENT_REQUIRE_BROWSER is set but chromium is not installed (apt-get install chromium)")
        pytest.skip("chromium is not installed")
    return sync_playwright


@pytest.fixture
def browser() -> Iterator[Any]:
    sync_playwright = _browser_or_skip()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def artifacts(tmp_path: Path) -> Path:
    out = Path(os.environ.get("EDGE_AGENT_ARTIFACTS") or tmp_path / "artifacts")
    out.mkdir(parents=True, exist_ok=True)
    return out


class PageWatch:
    """A page with its requests, response sizes and console errors recorded."""

    def __init__(self, browser: Any, **context: Any) -> None:
        self.context = browser.new_context(**context)
        self.page = self.context.new_page()
        self.requests: list[str] = []
        self.sizes: dict[str, int] = {}
        self.errors: list[str] = []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("response", self._response)
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def _response(self, response: Any) -> None:
        try:
            self.sizes[response.url.split("?")[0]] = len(response.body())
        except Exception:  # a redirect has no body
            pass

    def close(self) -> None:
        self.context.close()


def _gpio_write_over_mcp(url: str, token: str, pin: str, value: int) -> dict[str, Any]:
    import httpx2
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def call() -> dict[str, Any]:
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as client,
            streamable_http_client(url, http_client=client) as (r, w),
            ClientSession(r, w, read_timeout_seconds=60) as s,
        ):
            await s.initialize()
            result = await s.call_tool("gpio_write", {"pin": pin, "value": value})
            assert not result.is_error, result.content
            return dict(result.structured_content or {})

    # playwright's sync API runs its own event loop in this thread: the MCP client gets a thread of its own.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, call()).result(timeout=120)


def test_the_page_is_live_local_only_and_within_the_size_cap(browser: Any, daemon: Any, artifacts: Path) -> None:
    view = PageWatch(browser, viewport={"width": 1200, "height": 900}, color_scheme="light")
    page = view.page
    try:
        page.goto(f"{daemon.base}/?token={daemon.token}")
        assert page.url == f"{daemon.base}/"  # the token left the address bar
        page.wait_for_selector('[data-pin="PA5"]')
        pa5 = page.locator('[data-pin="PA5"]')
        assert pa5.get_attribute("data-level") == "0"
        assert "red_led" in pa5.inner_text() and "LOW" in pa5.inner_text()
        assert page.locator('[data-pin="PC13"]').get_attribute("data-writable") == "false"
        device_id = page.locator("#device-id").inner_text()
        assert device_id.startswith("dev-") or device_id
        assert page.locator("table.grid td.found", has_text="76").count() == 1
        page.wait_for_selector('.watch svg.chart[data-channel="temperature_c"]')
        expect(page.locator("#conn")).to_have_attribute("data-state", "ok")
        page.evaluate("window.__sameDocument = true")
        low_bg = pa5.evaluate("e => getComputedStyle(e).backgroundColor")

        written = _gpio_write_over_mcp(daemon.mcp_url, daemon.token, "red_led", 1)
        assert written["pin"] == "PA5"
        # Locator assertions poll from the test side: the page's CSP forbids evaluating strings in it.
        expect(page.locator('[data-pin="PA5"]')).to_have_attribute("data-level", "1", timeout=UPDATE_WAIT_MS)
        assert page.evaluate("window.__sameDocument") is True  # updated live, no reload
        pa5 = page.locator('[data-pin="PA5"]')
        assert "HIGH" in pa5.inner_text() and pa5.get_attribute("data-mode") == "out"
        assert pa5.evaluate("e => getComputedStyle(e).backgroundColor") != low_bg  # colour as well as text

        # The CLI routes through the running daemon: its write shows up the same way.
        cli = subprocess.run([*daemon.cli, "--state", str(daemon.state), "gpio", "write", "red_led", "0"],
                             capture_output=True, text=True, timeout=120)
        assert cli.returncode == 0, cli.stderr
        expect(page.locator('[data-pin="PA5"]')).to_have_attribute("data-level", "0", timeout=UPDATE_WAIT_MS)
        assert page.evaluate("window.__sameDocument") is True
        assert "LOW" in page.locator('[data-pin="PA5"]').inner_text()

        # The watch plot grows as the demo watch samples.
        chart = page.locator('svg.chart[data-channel="pressure_hpa"]')
        first = chart.get_attribute("data-points")
        expect(chart).not_to_have_attribute("data-points", first or "", timeout=UPDATE_WAIT_MS)
        for section in ("#sync-facts", "#memory-facts", "#cache-facts"):
            assert page.locator(section).inner_text().strip()
        page.screenshot(path=str(artifacts / "status-page-desktop.png"), full_page=True)

        foreign = [u for u in view.requests if not u.startswith(daemon.base + "/") and not u.startswith("data:")]
        assert not foreign, foreign
        assets = {u: n for u, n in view.sizes.items() if not u.endswith("/api/status")}
        assert {daemon.base + "/", daemon.base + "/static/app.js", daemon.base + "/static/style.css"} <= set(assets)
        assert sum(assets.values()) <= SIZE_CAP, assets
        assert not view.errors, view.errors
    finally:
        view.close()


def test_phone_width_and_dark_theme(browser: Any, daemon: Any, artifacts: Path) -> None:
    light = PageWatch(browser, viewport={"width": 1200, "height": 900}, color_scheme="light")
    phone = PageWatch(browser, viewport={"width": 360, "height": 740}, color_scheme="dark", is_mobile=True,
                      has_touch=True, device_scale_factor=2)
    try:
        backgrounds = []
        for view in (light, phone):
            view.page.goto(f"{daemon.base}/?token={daemon.token}")
            view.page.wait_for_selector('[data-pin="PA5"]')
            view.page.wait_for_selector("table.grid")
            backgrounds.append(view.page.evaluate("getComputedStyle(document.body).backgroundColor"))
        assert backgrounds[0] != backgrounds[1]  # prefers-color-scheme: dark is honoured
        page = phone.page
        # Nothing wider than the screen except inside its own scroll box (the I2C grid).
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        page.screenshot(path=str(artifacts / "status-page-phone-dark.png"), full_page=True)
        assert not light.errors and not phone.errors, light.errors + phone.errors
    finally:
        light.close()
        phone.close()


# Geometry read in the page (the CSP forbids string evaluation only for the page's own scripts; playwright's
# evaluate runs as the test). Boxes are viewport rectangles; SVG text boxes in the SVG's own units.
_GRID_GEOMETRY = """() => {
  const table = document.querySelector("table.grid");
  const box = table.parentElement;
  const labels = [...table.querySelectorAll("tbody th")].map((th) => {
    const range = document.createRange();
    range.selectNodeContents(th);
    return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
  });
  return {table: table.getBoundingClientRect().width, scroll: box.scrollWidth, box: box.clientWidth,
          page: document.documentElement.scrollWidth, labelLines: labels};
}"""
_CHART_GEOMETRY = """(svg) => {
  const line = svg.querySelector("polyline.line").getBBox();
  const scale = [...svg.querySelectorAll("text.scale")].map((t) => t.getBBox());
  const times = [...svg.querySelectorAll(".axis text.time")].map((t) => t.textContent);
  return {lineRight: line.x + line.width, lineBottom: line.y + line.height,
          scaleLeft: Math.min(...scale.map((b) => b.x)), times};
}"""


def test_phone_width_fits_the_i2c_grid_and_charts_keep_labels_off_the_line(browser: Any, daemon: Any,
                                                                           artifacts: Path) -> None:
    view = PageWatch(browser, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                     device_scale_factor=3)
    page = view.page
    try:
        page.goto(f"{daemon.base}/?token={daemon.token}")
        page.wait_for_selector("table.grid")
        grid = page.evaluate(_GRID_GEOMETRY)
        # The whole grid is on screen: no sideways scrolling, not even inside its own box.
        assert grid["scroll"] <= grid["box"] and grid["table"] <= grid["box"] and grid["page"] <= 390, grid
        assert grid["labelLines"] and set(grid["labelLines"]) == {1}, grid  # "00:" ... "70:" each on one line

        # Sync is off on the embedded defaults: the page says so, not "Last error: off".
        sync = page.locator("#sync-facts").inner_text()
        assert "off" in sync and "Last error" not in sync, sync

        # The demo watch's charts: min/max in a gutter right of the line, a time axis under it.
        chart = page.locator('svg.chart[data-channel="temperature_c"]')
        expect(chart).not_to_have_attribute("data-points", "1", timeout=UPDATE_WAIT_MS)
        geometry = chart.evaluate(_CHART_GEOMETRY)
        assert geometry["lineRight"] < geometry["scaleLeft"], geometry
        assert len(geometry["times"]) == 2 and all(":" in t for t in geometry["times"]), geometry

        # The model score reads the same in the facts and on its chart (the demo's scores are tiny).
        score_chart = page.locator('svg.chart[data-channel="model score"]')
        score_chart.wait_for(timeout=90_000)  # the first full window of the demo watch
        score = page.locator(".watch dd.score")
        pairs = []
        for _ in range(20):  # both come from one poll; a new evaluation between two reads is retried
            pairs.append((score.inner_text(), score_chart.locator("text.last").text_content()))
            if pairs[-1][0] == pairs[-1][1]:
                break
            page.wait_for_timeout(500)
        assert pairs[-1][0] == pairs[-1][1] and pairs[-1][0] not in ("—", "0.0000"), pairs
        page.screenshot(path=str(artifacts / "status-page-390.png"), full_page=True)
        assert not view.errors, view.errors
    finally:
        view.close()


def test_without_the_token_the_browser_gets_401_and_no_device_data(browser: Any, daemon: Any) -> None:
    view = PageWatch(browser)
    try:
        response = view.page.goto(f"{daemon.base}/")
        assert response is not None and response.status == 401
        body = view.page.content()
        assert "edge-agent dashboard --url" in body and "PA5" not in body and "nucleo" not in body
        response = view.page.goto(f"{daemon.base}/?token=not-the-token")
        assert response is not None and response.status == 401
        assert not view.context.cookies()
    finally:
        view.close()
