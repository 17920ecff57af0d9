"""Two tabs open on one scorer link share one outbox (Debian's headless Chromium): offline,
each enters a deal; they are numbered one after the other (2 and 3, not 2 twice), each tab
shows both, and back online both reach the server once each, in order, none refused.

The tabs coordinate through the page's IndexedDB outbox, changed under one Web Lock and told
to the other tabs by a BroadcastChannel (app/static/score.js)."""

from __future__ import annotations

from tests.views.test_browser import browser  # noqa: F401  (the browser fixture)
from tests.views.test_score_page_browser import link
from tests.views.test_score_page_offline import PAGE_DEALS, PHONE, Phone, same


def test_two_tabs_offline_number_their_deals_one_after_the_other(browser, live_url, api):  # noqa: F811
    from selenium.common.exceptions import TimeoutException

    table = api.table(players=["Anna", "Boris", "Vera"], convention="piter", pool_target=40)
    tid = table["id"]
    api.deal(tid, PAGE_DEALS[0]["stored"])
    page = live_url + link(api, tid) + "?lang=en"
    phone = Phone(browser)
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    phone.open(page)
    phone.wait(phone.controlled)
    first = browser.current_window_handle
    browser.switch_to.new_window("tab")
    second = browser.current_window_handle
    phone.open(page)
    for tab in (first, second):
        browser.switch_to.window(tab)
        phone.network(online=False)

    browser.switch_to.window(first)
    phone.enter(PAGE_DEALS[1])
    phone.wait(lambda: phone.body("data-outbox") == "1")
    browser.switch_to.window(second)
    phone.enter(PAGE_DEALS[2])
    numbers = {}
    for name, tab in (("second", second), ("first", first)):
        browser.switch_to.window(tab)
        try:
            phone.wait(lambda: phone.body("data-outbox") == "2", timeout=5)
        except TimeoutException:
            pass  # counted below
        numbers[name] = browser.execute_script(
            "return Array.from(document.querySelectorAll('#outbox li')).map(li => li.dataset.number)"
        )
    print(f"\nthe deals kept, as each tab numbers them: {numbers}")
    assert numbers == {"second": ["2", "3"], "first": ["2", "3"]}
    assert api.get(f"/v1/tables/{tid}").json()["deal_count"] == 1  # nothing reached the server

    for tab in (first, second):
        browser.switch_to.window(tab)
        phone.network(online=True)
    for tab in (first, second):
        browser.switch_to.window(tab)
        phone.wait(
            lambda: phone.body("data-outbox") == "0" and phone.body("data-deal-count") == "3", timeout=30
        )
        assert phone.body("data-refused") == "0"
    log = api.log(tid)
    assert len(log) == 3
    for stored, deal in zip(log, PAGE_DEALS[:3]):
        assert same(stored, deal["stored"]), stored
    browser.close()
    browser.switch_to.window(first)
