"""/docs and /redoc in a real browser (headless Chromium, as in test_browser.py) cut off from
every host but the app's: each page renders this API's operations from the files the app
serves itself and asks no other host for anything (every request the browser tried is
recorded, refused ones too), so both work on a machine without internet access. On /docs an
event stream offers no "Try it out" (Swagger UI would wait for its end for ever) and says
how to read it instead."""

from __future__ import annotations

import json
import shutil
import tempfile
from urllib.parse import urlsplit

import pytest

from .test_browser import CHROMEDRIVER, CHROMIUM, FLAGS, SCREENSHOTS, _find


@pytest.fixture(scope="module")
def offline_browser():
    """Chromium that can reach 127.0.0.1 only: every other name resolves to nothing (the
    outside network blocked), and every request it makes is in its performance log."""
    chromium = _find(CHROMIUM, "chromium")
    driver_path = _find(CHROMEDRIVER, "chromedriver")
    if chromium is None or driver_path is None:
        import os

        message = "chromium or chromedriver not installed: run scripts/install-system-packages"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="prefscore-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in FLAGS + [
        f"--user-data-dir={profile}",
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        "--window-size=1280,1000",
    ]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def requested_urls(driver) -> list[str]:
    """Every URL the browser asked for since the last call, answered or not."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def elsewhere(urls: list[str], live_url: str) -> list[str]:
    """The network requests (not data: nor the browser's own chrome:// pages) to another host."""
    here = urlsplit(live_url).netloc
    return [
        u for u in urls if urlsplit(u).scheme in ("http", "https", "ws", "wss") and urlsplit(u).netloc != here
    ]


def test_swagger_ui_renders_offline_and_streams_have_no_try_it_out(offline_browser, live_url):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser = offline_browser
    requested_urls(browser)
    browser.get(f"{live_url}/docs")
    wait = WebDriverWait(browser, 30, poll_frequency=0.2)
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".opblock")) >= 10)
    text = browser.find_element(By.TAG_NAME, "body").text
    assert "/v1/tables/{table_id}/deals" in text
    assert "Unable to render" not in text

    # An ordinary operation opened: "Try it out"; an event stream opened: none, and curl.
    blocks = {b.get_attribute("id"): b for b in browser.find_elements(By.CSS_SELECTOR, ".opblock")}
    stream = next(b for i, b in blocks.items() if i.startswith("operations-events-") and "shared" not in i)
    stream.find_element(By.CSS_SELECTOR, ".opblock-summary").click()
    wait.until(lambda d: stream.find_elements(By.CSS_SELECTOR, ".opblock-body"))
    assert stream.find_elements(By.CSS_SELECTOR, ".try-out__btn") == []
    assert "curl -N" in stream.text
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    browser.execute_script("arguments[0].scrollIntoView()", stream)
    browser.save_screenshot(str(SCREENSHOTS / "docs-event-stream.png"))
    sheet = next(b for i, b in blocks.items() if i.startswith("operations-tables-getSheet"))
    sheet.find_element(By.CSS_SELECTOR, ".opblock-summary").click()
    wait.until(lambda d: sheet.find_elements(By.CSS_SELECTOR, ".try-out__btn"))

    assert elsewhere(requested_urls(browser), live_url) == []


def test_redoc_renders_offline(offline_browser, live_url):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser = offline_browser
    requested_urls(browser)
    browser.get(f"{live_url}/redoc")
    wait = WebDriverWait(browser, 30, poll_frequency=0.2)
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "[data-section-id^='tag/']")) >= 3)
    text = browser.find_element(By.TAG_NAME, "body").text
    assert "/v1/tables/{table_id}/deals" in text
    assert "Something went wrong" not in text
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SCREENSHOTS / "redoc.png"))
    assert elsewhere(requested_urls(browser), live_url) == []
