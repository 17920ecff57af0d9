"""The scoring page at a 4-player fspr table (docs/rules.md §13): the talon bonus in two taps
(the talon's list, then the bonus), and the dealer's whist after pass and half-whist."""

from __future__ import annotations

from tests.views.test_browser import browser  # noqa: F401  (the browser fixture)
from tests.views.test_score_page_browser import PHONE, enter, link, record, tap


def test_dealer_whist_and_the_talon_bonus_from_a_phone(browser, live_url, api):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    table = api.table(players=["Anna", "Boris", "Vera", "Gleb"], convention="fspr")
    tid = table["id"]
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    browser.get(live_url + link(api, tid) + "?lang=en")
    wait = WebDriverWait(browser, 20, poll_frequency=0.1)
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")
    assert "remise" not in [
        e.get_attribute("data-kind") for e in browser.find_elements(By.CSS_SELECTOR, "[data-kind]")
    ]

    # Anna deals. Boris 6♥; Vera passes, Gleb half-whists, Anna (the dealer) whists; Boris takes 4
    enter(
        browser,
        {"type": "contract", "declarer": 1, "contract": "6H", "defenders": {"2": "pass", "3": "half_whist"}},
    )
    tap(browser, '[data-extra="dealer_whist"]')
    tap(browser, '[data-tricks="1:4"]')
    tap(browser, '[data-tricks="2:3"]')
    # the talon: two taps, the list and the bonus
    tap(browser, '[data-extra="bonus"]')
    tap(browser, '[data-extra="bonus"] option[value="ace"]')
    assert not browser.find_elements(
        By.CSS_SELECTOR, '[data-extra="discarded"]'
    )  # no discard at a game-priced talon
    record(browser, wait, 1)
    deal = api.log(tid)[0]
    assert deal["defenders"] == {"2": "pass", "3": "half_whist", "0": "whist"}
    assert deal["tricks"] == {"1": 4, "2": 3, "3": 3} and deal["talon"] == {"bonus": "ace"}
    # u = 2: 8 to Boris's mountain; Anna writes 6 × 4 + 8 + the ace 4 = 36; Vera and Gleb 8 each
    sheet = api.get(f"/v1/tables/{tid}").json()["sheet"]
    assert [p["mountain"] for p in sheet["players"]] == [0, 8, 0, 0]
