"""The scoring page in a real browser (Debian's headless Chromium, as tests/views/test_browser.py):
a whole Piter pulka of 3 players is scored through /score/{token} by taps alone — a refused
deal with its reason shown in place, an undo and a correction included — and the settlement
the page shows at the end is the API's. Screenshots of the page (phone and desktop, Russian
and English, 3 and 4 players, finished and not) are saved under test-output/screenshots/."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.views.test_browser import browser, full_page_png  # noqa: F401  (the browser fixture)

SHOTS = Path(__file__).resolve().parents[2] / "test-output" / "screenshots"
PHONE = {"width": 360, "height": 780, "deviceScaleFactor": 1, "mobile": True}
DESKTOP = {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}


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


def allpass(tricks):
    return {"type": "allpass", "tricks": {str(s): t for s, t in tricks.items()}}


def misere(declarer, took):
    return {"type": "misere", "declarer": declarer, "tricks": {str(declarer): took}}


# Piter, Anna, Boris and Vera, the pool closes at 16; Anna deals first and the deal passes left.
PULKA = [
    contract(0, "6H", {1: "pass", 2: "pass"}),
    contract(1, "7D", {2: "whist", 0: "pass"}, {1: 7, 2: 2, 0: 1}),
    allpass({0: 3, 1: 4, 2: 3}),
    contract(2, "7C", {0: "pass", 1: "pass"}),  # after an all-pass the lowest game is a 7
    contract(0, "7D", {1: "whist", 2: "pass"}, {0: 7, 1: 3, 2: 0}),
    contract(1, "6D", {2: "pass", 0: "half_whist"}),
    contract(1, "8S", {2: "whist", 0: "whist"}, {1: 7, 2: 2, 0: 1}),
    allpass({0: 2, 1: 6, 2: 2}),
    contract(2, "7NT", {0: "whist", 1: "pass"}, {2: 7, 0: 3, 1: 0}),
    misere(0, 0),
    contract(1, "6S", {2: "whist", 0: "whist"}, {1: 6, 2: 2, 0: 2}),
    contract(2, "8H", {0: "pass", 1: "pass"}),
    contract(0, "7S", {1: "whist", 2: "pass"}, {0: 8, 1: 2, 2: 0}),
    contract(1, "9D", {2: "pass", 0: "pass"}),
]
# The same table at four (Gleb): each deal's dealer sits out.
FOUR = [
    contract(1, "6H", {2: "pass", 3: "pass"}),
    misere(3, 0),
    contract(0, "7D", {1: "whist", 3: "pass"}, {0: 7, 1: 3, 3: 0}),
    contract(1, "8S", {2: "pass", 0: "pass"}),
    allpass({1: 4, 2: 3, 3: 3}),
    contract(2, "7C", {3: "whist", 0: "pass"}, {2: 7, 3: 3, 0: 0}),
]


def tap(driver, selector):
    """Click the element; the page redraws its buttons when the sheet changes (the event
    stream), so a button found just before may be replaced: find it again."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By

    for _ in range(5):
        try:
            driver.find_element(By.CSS_SELECTOR, selector).click()
            return
        except StaleElementReferenceException:
            continue
    driver.find_element(By.CSS_SELECTOR, selector).click()


def enter(driver, deal):
    """The taps of one deal: kind, declarer, level and suit, each defender, each trick count."""
    tap(driver, f'[data-kind="{deal["type"]}"]')
    if "declarer" in deal:
        tap(driver, f'[data-declarer="{deal["declarer"]}"]')
    if "contract" in deal:
        level, strain = deal["contract"][:-1], deal["contract"][-1:]
        if deal["contract"].endswith("NT"):
            level, strain = deal["contract"][:-2], "NT"
        tap(driver, f'[data-level="{level}"]')
        tap(driver, f'[data-strain="{strain}"]')
    for seat, answer in deal.get("defenders", {}).items():
        tap(driver, f'[data-defence="{seat}:{answer}"]')
    for seat, count in deal.get("tricks", {}).items():
        tap(driver, f'[data-tricks="{seat}:{count}"]')


def attributes(driver, selector, name):
    """An attribute of each element, read at once in the page (no element to go stale)."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0])).map(e => e.getAttribute(arguments[1]))",
        selector,
        name,
    )


def record(driver, wait, count):
    tap(driver, "#submit")
    wait.until(lambda d: d.find_element("tag name", "body").get_attribute("data-deal-count") == str(count))


def shoot(driver, url, size, name):
    from selenium.webdriver.support.ui import WebDriverWait

    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", size)
    driver.get(url)
    WebDriverWait(driver, 20, poll_frequency=0.2).until(
        lambda d: (
            d.find_element("tag name", "body").get_attribute("data-ready") == "true"
            and d.find_elements("css selector", "#sheet svg")
        )
    )
    SHOTS.mkdir(parents=True, exist_ok=True)
    full_page_png(driver, SHOTS / f"{name}.png")


def link(api, table_id):
    r = api.post(f"/v1/tables/{table_id}/scorer-link")
    assert r.status_code == 201, r.text
    return r.json()["link"]


def test_a_whole_pulka_scored_from_a_phone(browser, live_url, api):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    table = api.table(players=["Anna", "Boris", "Vera"], convention="piter", pool_target=16)
    tid = table["id"]
    page = live_url + link(api, tid)
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    browser.get(page + "?lang=ru")
    wait = WebDriverWait(browser, 20, poll_frequency=0.1)
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")
    assert browser.find_element(By.ID, "submit").text == "Записать сдачу"
    # the kinds the Piter rules allow: a game, a misère, an all-pass and a remise (no "close")
    kinds = attributes(browser, "[data-kind]", "data-kind")
    assert kinds == ["contract", "misere", "allpass", "remise"]

    count = 0
    for number, deal in enumerate(PULKA, 1):
        if number == 4:
            # after the all-pass the page offers no 6 (the table's exit levels 6, 7, 7)
            tap(browser, '[data-kind="contract"]')
            tap(browser, '[data-declarer="2"]')
            assert not browser.find_element(By.CSS_SELECTOR, '[data-level="6"]').is_enabled()
            assert browser.find_element(By.CSS_SELECTOR, '[data-level="7"]').is_enabled()
        if number == 9:
            # a refused deal: the tricks add up to 9; the API's reason is shown in place
            enter(browser, {**deal, "tricks": {"2": 7, "0": 2, "1": 0}})
            tap(browser, "#submit")
            wait.until(lambda d: d.find_element(By.ID, "problem").is_displayed())
            problem = browser.find_element(By.ID, "problem").text
            SHOTS.mkdir(parents=True, exist_ok=True)
            full_page_png(browser, SHOTS / "score-3p-ru-phone-refused.png")
            # the field and the reason in the page's words: 7 + 2 + 0 tricks are 9
            assert "Сдача не записана" in problem and "взятки: взяток в сумме 9, а не 10" in problem
            assert api.get(f"/v1/tables/{tid}").json()["deal_count"] == count
            tap(browser, '[data-tricks="0:3"]')  # Anna took 3, not 2
            record(browser, wait, count + 1)
            count += 1
            continue
        if number == 11:
            # a slip, recorded and undone: Boris 8 hearts unwhisted instead of his 6 spades
            enter(browser, contract(1, "8H", {2: "pass", 0: "pass"}))
            record(browser, wait, count + 1)
            tap(browser, "#undo")
            assert "11" in browser.find_element(By.ID, "undo").text  # asks once: "undo deal 11?"
            tap(browser, "#undo")
            wait.until(
                lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-deal-count") == str(count)
            )
            assert len(api.log(tid)) == count and api.log(tid)[-1]["type"] == "misere"
        enter(browser, deal)
        record(browser, wait, count + 1)
        count += 1
        if number == 7:
            shoot(browser, page + "?lang=ru", PHONE, "score-3p-ru-phone-playing")
            browser.get(page + "?lang=ru")
            wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")

    # a correction: deal 2, Boris took 8 (Vera 1) — picked from the log, edited, saved
    tap(browser, '[data-correct="2"]')
    assert "2" in browser.find_element(By.ID, "form-title").text
    tap(browser, '[data-tricks="1:8"]')
    tap(browser, '[data-tricks="2:1"]')
    tap(browser, "#submit")
    wait.until(lambda d: api.get(f"/v1/tables/{tid}/deals/2").json()["tricks"] == {"0": 1, "1": 8, "2": 1})
    assert len(api.log(tid)) == len(PULKA) == 14

    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-finished") == "true")
    settlement = api.get(f"/v1/tables/{tid}/settlement").json()
    assert settlement["final"] is True
    exact = {str(p["seat"]): p["balance_exact"] for p in settlement["players"]}

    def shown(driver):
        return driver.execute_script(
            "return Object.fromEntries(Array.from(document.querySelectorAll('#balances tbody tr'))"
            ".map(r => [r.dataset.seat, [r.dataset.balance, r.textContent]]))"
        )

    wait.until(lambda d: {s: v[0] for s, v in shown(d).items()} == exact)
    rows = shown(browser)
    for p in settlement["players"]:
        text = rows[str(p["seat"])][1]
        # in the Russian way: a typographic minus, a decimal comma
        assert p["name"] in text and str(abs(p["balance"])).replace(".", ",").removesuffix(",0") in text
    assert sum(int(p["balance_exact"]) for p in settlement["players"]) == 0
    done = browser.find_element(By.ID, "done")
    assert done.is_displayed() and "Игра окончена" in done.text
    assert not browser.find_element(By.ID, "form").is_displayed()
    for t in settlement["transfers"]:
        assert (
            f"{settlement['players'][t['from']]['name']} → {settlement['players'][t['to']]['name']}"
            in done.text
        )

    for lang in ("ru", "en"):
        shoot(browser, f"{page}?lang={lang}", PHONE, f"score-3p-{lang}-phone-finished")
        shoot(browser, f"{page}?lang={lang}", DESKTOP, f"score-3p-{lang}-desktop-finished")
    assert browser.find_element(By.ID, "done").text.startswith("The game is over.")
    # On a desktop a finished game has no form: the deals take its place, under the banner
    # and beside the sheet (not below the sheet with the left column empty).
    box = {i: browser.find_element(By.ID, i).rect for i in ("done", "deals-card", "sheet-card")}
    assert box["deals-card"]["x"] == box["done"]["x"] and box["deals-card"]["y"] > box["done"]["y"]
    assert box["deals-card"]["x"] + box["deals-card"]["width"] < box["sheet-card"]["x"]
    assert box["deals-card"]["y"] < box["sheet-card"]["y"] + box["sheet-card"]["height"]


@pytest.mark.parametrize("players", [3, 4])
def test_screenshots_of_tables_being_played_and_finished(browser, live_url, api, players):  # noqa: F811
    names = ["Anna", "Boris", "Vera", "Gleb"][:players]
    playing = api.table(players=names, convention="piter", pool_target=16 if players == 3 else 6)
    for deal in (PULKA if players == 3 else FOUR)[:4]:
        api.deal(playing["id"], deal)
    shots = [(playing, "playing")]
    if players == 4:
        done = api.table(players=names, convention="piter", pool_target=6)
        for deal in FOUR:
            api.deal(done["id"], deal)
        assert api.get(f"/v1/tables/{done['id']}/settlement").json()["final"] is True
        shots.append((done, "finished"))
    for table, state in shots:
        page = live_url + link(api, table["id"])
        for lang in ("ru", "en"):
            for size, label in ((PHONE, "phone"), (DESKTOP, "desktop")):
                if (players, state, label) == (3, "playing", "phone") and lang == "ru":
                    continue  # taken while the pulka was played through the page
                shoot(browser, f"{page}?lang={lang}", size, f"score-{players}p-{lang}-{label}-{state}")
                if players == 4 and state == "playing":
                    # the dealer sits out: he is offered as no declarer
                    dealer = api.get(f"/v1/tables/{table['id']}").json()["sheet"]["next_dealer"]
                    tap(browser, '[data-kind="contract"]')
                    seats = attributes(browser, "[data-declarer]", "data-declarer")
                    assert str(dealer) not in seats and len(seats) == 3
