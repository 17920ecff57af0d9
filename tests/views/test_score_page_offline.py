"""The scoring page at a table without network (Debian's headless Chromium, as
tests/views/test_score_page_browser.py; the network cut with the DevTools protocol's
Network.emulateNetworkConditions, for the page and for its service worker).

Twelve deals are entered through the page, five of them offline, one of those half entered
when the page is reloaded offline (its draft survives; the page itself comes from the service
worker, the sheet and the outbox from IndexedDB). Meanwhile another phone (an API client)
records a deal while the page is online (shown at once) and another while it is offline: back
online, the first deal kept on the phone is refused (the table moved on), kept and shown with
its reason, fixed with one tap, and every deal then reaches the server exactly once, in order.
The settlement the page shows at the end is the API's. The taps of each deal are counted.
Screenshots (phone and desktop, Russian and English, offline) go to test-output/screenshots/.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.views.test_browser import browser, full_page_png  # noqa: F401  (the browser fixture)
from tests.views.test_score_page_browser import DESKTOP, link

SHOTS = Path(__file__).resolve().parents[2] / "test-output" / "screenshots"
PHONE = {"width": 360, "height": 740, "deviceScaleFactor": 1, "mobile": True}


def contract(declarer, written, defence, tricks=None):
    deal = {
        "type": "contract",
        "declarer": declarer,
        "contract": written,
        "defenders": {str(s): a for s, a in defence.items()},
    }
    if tricks:
        deal["tricks"] = {str(s): t for s, t in tricks.items()}
    return deal


# What the page is tapped (``taps``: the trick counts tapped; the page fills in the rest) and
# what the server must then hold (``stored``: every count).
PAGE_DEALS = [
    # 1-3 online: a game both defenders pass, a game with one whister, a misère
    {"stored": contract(0, "6H", {1: "pass", 2: "pass"})},
    {"stored": contract(1, "7D", {2: "whist", 0: "pass"}, {1: 7, 2: 3, 0: 0}), "taps": {1: 7}},
    {"stored": {"type": "misere", "declarer": 2, "tricks": {"2": 0}}, "taps": {2: 0}},
    # 4-8 offline (6 across a reload): an all-pass (Vera's 3 implied), then games of 7 and more
    {"stored": {"type": "allpass", "tricks": {"0": 3, "1": 4, "2": 3}}, "taps": {0: 3, 1: 4}},
    {"stored": contract(2, "7C", {0: "pass", 1: "pass"})},
    {"stored": contract(0, "8S", {1: "whist", 2: "whist"}, {0: 8, 1: 1, 2: 1}), "taps": {0: 8, 1: 1}},
    {"stored": contract(1, "7NT", {2: "whist", 0: "pass"}, {1: 7, 2: 3, 0: 0}), "taps": {1: 7}},
    {"stored": contract(2, "6D", {0: "pass", 1: "pass"})},
    # 9-12 online again
    {"stored": contract(0, "7H", {1: "whist", 2: "pass"}, {0: 6, 1: 4, 2: 0}), "taps": {0: 6}},
    {"stored": {"type": "allpass", "tricks": {"0": 4, "1": 3, "2": 3}}, "taps": {0: 4, 1: 3}},
    {"stored": contract(1, "7S", {2: "pass", 0: "pass"})},
    {"stored": {"type": "misere", "declarer": 0, "tricks": {"0": 0}}, "taps": {0: 0}},
]
OTHER_ONLINE = contract(0, "7S", {1: "pass", 2: "pass"})
OTHER_OFFLINE = contract(1, "7H", {2: "pass", 0: "pass"})


class Phone:
    """The page in the browser, each tap counted."""

    def __init__(self, driver):
        self.driver = driver
        self.taps = 0

    def tap(self, selector):
        from selenium.common.exceptions import StaleElementReferenceException
        from selenium.webdriver.common.by import By

        self.taps += 1
        for _ in range(5):
            try:
                self.driver.find_element(By.CSS_SELECTOR, selector).click()
                return
            except StaleElementReferenceException:
                continue
        self.driver.find_element(By.CSS_SELECTOR, selector).click()

    def pressed(self, selector):
        """Whether the button is pressed, read in one script: the form is drawn again when the
        sheet changes, so an element found first may be gone by the time it is read."""
        return (
            self.driver.execute_script(
                "return document.querySelector(arguments[0])?.getAttribute('aria-pressed')", selector
            )
            == "true"
        )

    def body(self, name):
        return self.driver.find_element("tag name", "body").get_attribute(name)

    def wait(self, condition, timeout=20):
        from selenium.webdriver.support.ui import WebDriverWait

        WebDriverWait(self.driver, timeout, poll_frequency=0.1).until(lambda d: condition())

    def enter(self, deal, *, record=True, stop_after=None):
        """The taps of one deal as the page asks for them (a game is chosen already)."""
        stored, taps = deal["stored"], deal.get("taps", {})
        steps = []
        if stored["type"] != "contract":
            steps.append(f'[data-kind="{stored["type"]}"]')
        if "declarer" in stored:
            steps.append(f'[data-declarer="{stored["declarer"]}"]')
        if "contract" in stored:
            written = stored["contract"]
            level, strain = (written[:-2], "NT") if written.endswith("NT") else (written[:-1], written[-1])
            steps += [f'[data-level="{level}"]', f'[data-strain="{strain}"]']
        steps += [f'[data-defence="{s}:{a}"]' for s, a in stored.get("defenders", {}).items()]
        steps += [f'[data-tricks="{s}:{t}"]' for s, t in taps.items()]
        for step in steps[:stop_after]:
            self.tap(step)
        if record and stop_after is None:
            self.tap("#submit")

    def network(self, online):
        """Chromium's network emulation, for the page and for its service worker (a target of
        its own: the page's emulation does not reach it)."""
        conditions = {"offline": not online, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
        self.driver.execute_cdp_cmd("Network.enable", {})
        self.driver.execute_cdp_cmd("Network.emulateNetworkConditions", conditions)
        for target in self.driver.execute_cdp_cmd("Target.getTargets", {})["targetInfos"]:
            if target["type"] != "service_worker":
                continue
            session = self.driver.execute_cdp_cmd(
                "Target.attachToTarget", {"targetId": target["targetId"], "flatten": False}
            )["sessionId"]
            for n, (method, params) in enumerate(
                (("Network.enable", {}), ("Network.emulateNetworkConditions", conditions)), 1
            ):
                self.driver.execute_cdp_cmd(
                    "Target.sendMessageToTarget",
                    {
                        "sessionId": session,
                        "message": json.dumps({"id": n, "method": method, "params": params}),
                    },
                )

    def shot(self, name, size=PHONE):
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", size)
        SHOTS.mkdir(parents=True, exist_ok=True)
        time.sleep(0.2)
        full_page_png(self.driver, SHOTS / f"{name}.png")
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)

    def outbox(self):
        return self.driver.execute_script(
            "return Array.from(document.querySelectorAll('#outbox li')).map(li => [li.dataset.outbox, li.textContent])"
        )

    def open(self, url):
        self.driver.get(url)
        self.wait(lambda: self.body("data-ready") == "true")

    def controlled(self):
        """The service worker controls the page and has kept a copy of it."""
        return self.driver.execute_script(
            "return !!navigator.serviceWorker.controller && caches.keys().then(k => k.length > 0)"
        )


def same(stored, expected):
    return all(stored.get(k) == v for k, v in expected.items())


@pytest.fixture(autouse=True)
def online_again(browser):  # noqa: F811
    """The module's one browser back online after each test: a test that fails while offline
    does not fail the next one too."""
    yield
    Phone(browser).network(online=True)


def test_twelve_deals_five_offline_each_recorded_once_in_order(browser, live_url, api):  # noqa: F811
    from selenium.webdriver.common.by import By

    table = api.table(players=["Anna", "Boris", "Vera"], convention="piter", pool_target=40)
    tid = table["id"]
    page = live_url + link(api, tid) + "?lang=ru"
    phone = Phone(browser)
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    phone.open(page)
    taps = []

    def play(deal, count):
        before = phone.taps
        phone.enter(deal)
        taps.append(phone.taps - before)
        if count is not None:
            phone.wait(
                lambda: phone.body("data-deal-count") == str(count) and phone.body("data-outbox") == "0"
            )

    # 1-3 online: each recorded at once, confirmed by the button with an undo
    for i, deal in enumerate(PAGE_DEALS[:3], 1):
        play(deal, i)
        confirm = browser.find_element(By.ID, "confirm")
        assert confirm.is_displayed() and f"Сдача {i} записана" in confirm.text
        assert browser.find_element(By.ID, "confirm-undo").is_displayed()
    assert "взяток: 0" in browser.find_element(By.ID, "confirm").text  # the misère, without "взял"
    # the focus stays by the button: the next deal starts from the keyboard where it was
    assert browser.execute_script("return document.activeElement.id") == "submit"

    # another phone records a deal: shown at once (the live stream)
    api.deal(tid, OTHER_ONLINE)
    phone.wait(lambda: phone.body("data-deal-count") == "4")
    assert "Anna 7♠" in browser.find_element(By.ID, "log").text

    # the service worker has the page before the network goes
    phone.wait(phone.controlled)
    went_offline = time.time() * 1000
    phone.network(online=False)
    play(PAGE_DEALS[3], None)
    play(PAGE_DEALS[4], None)
    phone.wait(lambda: phone.body("data-outbox") == "2")
    assert [state for state, _ in phone.outbox()] == ["pending", "pending"]
    assert "сохранена на телефоне" in browser.find_element(By.ID, "confirm").text
    pending_rows = browser.find_elements(By.CSS_SELECTOR, "#log tr[data-pending]")
    assert len(pending_rows) == 2 and "ещё не в пуле" in pending_rows[0].text
    assert (
        browser.find_element(By.ID, "sheet-pending").text == "Ещё не в пуле, номера сдач: 5, 6."
    )  # above the picture
    phone.shot("score-offline-ru-phone-pending")
    phone.shot("score-offline-ru-desktop-pending", DESKTOP)

    # the other phone records a deal while this one is offline
    api.deal(tid, OTHER_OFFLINE)

    # deal 6 half entered, then the page reloaded without network: the page comes from the
    # service worker (written before the network went), the outbox and the draft from the phone
    before = phone.taps
    phone.enter(PAGE_DEALS[5], stop_after=3)
    browser.refresh()
    phone.wait(lambda: phone.body("data-ready") == "true")
    assert browser.execute_script("return INITIAL.read_at") < went_offline  # the kept copy
    assert phone.body("data-outbox") == "2"
    assert phone.pressed('[data-level="8"]')
    assert phone.pressed('[data-strain="S"]')
    phone.wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#sheet svg"))  # the last sheet seen
    phone.shot("score-offline-ru-phone-reloaded")
    for step in [
        '[data-defence="1:whist"]',
        '[data-defence="2:whist"]',
        '[data-tricks="0:8"]',
        '[data-tricks="1:1"]',
        "#submit",
    ]:
        phone.tap(step)
    taps.append(phone.taps - before)
    play(PAGE_DEALS[6], None)
    play(PAGE_DEALS[7], None)
    phone.wait(lambda: phone.body("data-outbox") == "5")
    assert api.get(f"/v1/tables/{tid}").json()["deal_count"] == 5  # nothing reached the server

    # back online: the first kept deal was entered on a sheet that moved on (the other phone's
    # deal): refused, kept and shown; the four after it wait behind it
    phone.network(online=True)
    phone.wait(lambda: phone.body("data-refused") == "1")
    assert [state for state, _ in phone.outbox()] == ["refused", "pending", "pending", "pending", "pending"]
    assert "другой телефон записал сдачи" in phone.outbox()[0][1]
    assert phone.body("data-deal-count") == "5"  # the other phone's deal is on the page
    phone.shot("score-online-ru-phone-refused")
    # fixed with one tap (the deal is checked in the form) and recorded again; the rest follow
    phone.tap("[data-fix]")
    phone.wait(lambda: phone.pressed('[data-kind="allpass"]'), timeout=5)
    phone.tap("#submit")
    phone.wait(lambda: phone.body("data-deal-count") == "10" and phone.body("data-outbox") == "0", timeout=30)

    for i, deal in enumerate(PAGE_DEALS[8:], 11):
        play(deal, i)

    # the undo by the button: the last deal taken back into the form, then recorded again
    phone.tap("#confirm-undo")
    phone.wait(lambda: phone.body("data-deal-count") == "13")
    phone.wait(lambda: phone.pressed('[data-kind="misere"]'), timeout=5)
    phone.tap("#submit")
    phone.wait(lambda: phone.body("data-deal-count") == "14" and phone.body("data-outbox") == "0")

    log = api.log(tid)
    expected = (
        [d["stored"] for d in PAGE_DEALS[:3]]
        + [OTHER_ONLINE, OTHER_OFFLINE]
        + [d["stored"] for d in PAGE_DEALS[3:]]
    )
    assert len(log) == 14 == len(expected)
    for stored, want in zip(log, expected):
        assert same(stored, want), (stored, want)

    settlement = api.get(f"/v1/tables/{tid}/settlement").json()
    exact = {str(p["seat"]): p["balance_exact"] for p in settlement["players"]}
    phone.wait(
        lambda: (
            browser.execute_script(
                "return Object.fromEntries(Array.from(document.querySelectorAll('#balances tbody tr')).map(r => [r.dataset.seat, r.dataset.balance]))"
            )
            == exact
        )
    )

    # the taps: a game both pass 6, one whister 7, a misère 4, an all-pass 4
    print(f"taps per deal: {taps}")
    assert taps[0] <= 7 and taps[1] <= 7 and taps[2] <= 4 and taps[3] <= 4
    assert max(taps) <= 8  # the most: a game with two whisters


def test_offline_in_english(browser, live_url, api):  # noqa: F811
    from selenium.webdriver.common.by import By

    table = api.table(players=["Anna", "Boris", "Vera"], convention="piter", pool_target=40)
    page = live_url + link(api, table["id"]) + "?lang=en"
    phone = Phone(browser)
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    phone.open(page)
    phone.enter(PAGE_DEALS[0])
    phone.wait(lambda: phone.body("data-deal-count") == "1")
    phone.wait(phone.controlled)
    phone.network(online=False)
    phone.enter(PAGE_DEALS[1])
    phone.wait(lambda: phone.body("data-outbox") == "1")
    assert "kept on this phone" in browser.find_element(By.ID, "confirm").text
    phone.enter(PAGE_DEALS[2], stop_after=1)
    phone.shot("score-offline-en-phone-pending")
    phone.shot("score-offline-en-desktop-pending", DESKTOP)
    browser.refresh()
    phone.wait(lambda: phone.body("data-ready") == "true")
    assert phone.body("data-outbox") == "1"
    assert (
        "No connection" in browser.find_element(By.ID, "status").text
        or phone.body("data-network") != "online"
    )
    phone.shot("score-offline-en-phone-reloaded")
    phone.network(online=True)
    phone.wait(lambda: phone.body("data-outbox") == "0" and phone.body("data-deal-count") == "2", timeout=30)
