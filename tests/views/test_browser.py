"""The share page in a real browser: Debian's headless Chromium, driven through its
chromedriver with selenium, opens /shared/{token} on uvicorn, sees the picture with the
players' names and numbers, takes a screenshot, and follows a deal posted meanwhile.

Without the browser the test is skipped on a developer's machine and FAILS under CI
(scripts/install-system-packages installs it; scripts/test runs that first)."""

from __future__ import annotations

import base64
import os
import shutil
import tempfile
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=500,1400",
]


def _find(path: str, name: str) -> str | None:
    if os.access(path, os.X_OK):
        return path
    return shutil.which(name)


@pytest.fixture(scope="module")
def browser():
    chromium = _find(CHROMIUM, "chromium")
    driver_path = _find(CHROMEDRIVER, "chromedriver")
    missing = [name for name, path in (("chromium", chromium), ("chromedriver", driver_path)) if path is None]
    if missing:
        message = f"{', '.join(missing)} not installed: run scripts/install-system-packages"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("selenium is not installed (pip install -e '.[test]')")
        pytest.skip("selenium is not installed")

    profile = tempfile.mkdtemp(prefix="prefscore-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in FLAGS + [f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def full_page_png(driver, path: Path) -> None:
    """A screenshot of the whole page (not only the window), through the DevTools protocol."""
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
    path.write_bytes(base64.b64decode(shot["data"]))


def test_shared_page_shows_the_sheet_and_follows_new_deals(browser, live_url, api, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    table = api.table(players=["Anna", "Boris", "Vera"], convention="piter")
    tid = table["id"]
    api.deal(
        tid,
        {
            "type": "contract",
            "declarer": 1,
            "contract": "7H",
            "defenders": {"2": "whist", "0": "pass"},
            "tricks": {"1": 6, "2": 3, "0": 1},
        },
    )
    api.deal(
        tid,
        {
            "type": "contract",
            "declarer": 0,
            "contract": "6D",
            "defenders": {"1": "whist", "2": "pass"},
            "tricks": {"0": 7, "1": 3, "2": 0},
        },
    )

    # a phone: 360 CSS pixels wide (a desktop window cannot be made that narrow)
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 360, "height": 780, "deviceScaleFactor": 1, "mobile": True},
    )
    # in Russian (the browser's own Accept-Language is English)
    browser.get(f"{live_url}/shared/{table['share_token']}?lang=ru")
    wait = WebDriverWait(browser, 20, poll_frequency=0.2)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#sheet svg text"))
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-deal-count") == "2")

    svg_words = browser.execute_script(
        "return Array.from(document.querySelectorAll('#sheet svg text')).map(t => t.textContent)"
    )
    for name in ("Anna", "Boris", "Vera"):
        assert name in svg_words
    sheet = api.get(f"/v1/tables/{tid}/sheet").json()
    boris = sheet["players"][1]
    # Boris's mountain as written on paper: 8 for 7H one down, then 10 for a whist short on 6D
    assert boris["mountain"] == 10 and "8 · 10" in svg_words
    assert str(sheet["players"][0]["pool"]) in svg_words  # Anna's 6D made: 2 in her pool
    assert "Распасы ×1: взятка 2, игра от 6" in svg_words

    settlement = api.get(f"/v1/tables/{tid}/settlement").json()
    balances = browser.find_element(By.ID, "balances").text
    for p in settlement["players"]:
        assert p["name"] in balances
        # Russian: a decimal comma and a real minus, as on the picture
        amount = f"{abs(p['balance']):.2f}".removesuffix(".00").replace(".", ",")
        assert amount in balances and "." not in balances
    history = browser.find_element(By.ID, "deals").text
    # suits as symbols; 7♥ taking 6 is one down, "без одной"; 6♦ taking 7 is made
    assert "Boris 7♥" in history and "без одной" in history and "Anna 6♦" in history

    # the picture fits the phone's width, and its smallest text is still 12 px there
    width = browser.execute_script(
        "return document.querySelector('#sheet svg').getBoundingClientRect().width"
    )
    assert width == pytest.approx(360, abs=1)
    smallest = browser.execute_script(
        "return Math.min(...Array.from(document.querySelectorAll('#sheet svg text'))"
        ".map(t => parseFloat(t.getAttribute('font-size'))))"
    )
    assert smallest * width / 360 >= 12 - 0.05

    shot = tmp_path / "shared-page.png"
    full_page_png(browser, shot)
    assert shot.stat().st_size > 10_000
    print(f"screenshot: {shot}")

    # the page follows the table through its event stream (the page's CSP lets it connect)
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-live") == "stream")
    # a deal posted through the API shows up within 1 s, without reloading the page (the
    # fallback polls every 2 s: only the stream is this quick)
    api.deal(tid, {"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 3}})
    within_a_second = WebDriverWait(browser, 1.0, poll_frequency=0.05)
    within_a_second.until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-deal-count") == "3"
    )
    within_a_second.until(
        lambda d: (
            "Распасы ×2: взятка 4, игра от 7"
            in d.execute_script(
                "return Array.from(document.querySelectorAll('#sheet svg text')).map(t => t.textContent)"
            )
        )
    )
    assert "распасы" in browser.find_element(By.ID, "deals").text
    full_page_png(browser, tmp_path / "shared-page-after.png")


SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-output" / "screenshots"
PHONE = {"width": 360, "height": 780, "deviceScaleFactor": 1, "mobile": True}
DESKTOP = {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}
NAMES = {3: ["Анастасия Александровна", "Boris", "Вера"], 4: ["Anna", "Глеб Ёлкин-Палкин", "Vera", "Dmitri"]}


def _post_game(api, players: int, finished: bool) -> dict:
    """A table with a log made by the engine: 40 deals of a long game, or a short one played
    to its end."""
    from .conftest import random_log

    convention = "sochi" if players == 4 else "piter"
    target = 10 if finished else 1000
    log = random_log(convention, players, 40, seed=7 + players, pool_target=target)
    assert log["sheet"]["finished"] is finished
    table = api.table(players=NAMES[players], convention=convention, pool_target=target)
    for body in log["bodies"]:
        api.deal(table["id"], body)
    return table


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("finished", [False, True], ids=["playing", "finished"])
def test_screenshots_of_the_share_page(browser, live_url, api, players, finished):
    """Full-page screenshots to look at: phone and desktop, Russian and English. Each is
    also checked: the picture's layout, no horizontal scrolling, the balances beside the
    sheet on a desktop, the settlement shown once."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    table = _post_game(api, players, finished)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for device, metrics in (("phone", PHONE), ("desktop", DESKTOP)):
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
        for lang in ("ru", "en"):
            browser.get(f"{live_url}/shared/{table['share_token']}?lang={lang}")
            wait = WebDriverWait(browser, 20, poll_frequency=0.2)
            wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#sheet svg text"))
            wait.until(
                lambda d: (
                    d.find_element(By.TAG_NAME, "body").get_attribute("data-deal-count") not in (None, "0")
                )
            )
            layout = browser.execute_script("return document.querySelector('#sheet svg').dataset.layout")
            assert layout == ("phone" if device == "phone" else "wide")
            assert browser.execute_script("return document.documentElement.lang") == lang
            # nothing wider than the screen
            assert browser.execute_script("return document.documentElement.scrollWidth") <= metrics["width"]
            sheet_box = browser.execute_script(
                "return document.querySelector('#sheet').getBoundingClientRect().toJSON()"
            )
            aside_box = browser.execute_script(
                "return document.querySelector('aside').getBoundingClientRect().toJSON()"
            )
            if device == "desktop":
                assert (
                    aside_box["left"] >= sheet_box["right"] and aside_box["top"] < sheet_box["bottom"]
                )  # beside it
                assert sheet_box["width"] == pytest.approx(640, abs=1)  # the wide picture at its own size
            else:
                assert aside_box["top"] >= sheet_box["bottom"] - 1  # below it
            balances_shown = browser.execute_script("return !document.getElementById('balances').hidden")
            svg_words = browser.execute_script(
                "return Array.from(document.querySelectorAll('#sheet svg text')).map(t => t.textContent)"
            )
            final_word = "Окончательный расчёт" if lang == "ru" else "Final settlement"
            assert balances_shown is (not finished)  # the balances once: the picture's when finished
            assert (final_word in svg_words) is finished
            full_page_png(
                browser,
                SCREENSHOTS / f"{players}p-{'finished' if finished else 'playing'}-{lang}-{device}.png",
            )


def test_shared_page_falls_back_to_polling_when_the_stream_fails(browser, live_url, api, app):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    table = api.table(players=["Anna", "Boris", "Vera"], convention="sochi")
    browser.get(f"{live_url}/shared/{table['share_token']}")  # opens the stream: the hub exists
    wait = WebDriverWait(browser, 20, poll_frequency=0.1)
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-live") == "stream")
    hub = app.state.live.hub
    saved = hub.max_subscriptions
    hub.max_subscriptions = 0  # every new stream is refused (503)
    try:
        browser.get(f"{live_url}/shared/{table['share_token']}?lang=ru")
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-live") == "poll")
        api.deal(
            table["id"],
            {"type": "contract", "declarer": 1, "contract": "6S", "defenders": {"0": "pass", "2": "pass"}},
        )
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-deal-count") == "1")
        assert "(опрос)" in browser.find_element(By.ID, "status").text
    finally:
        hub.max_subscriptions = saved
