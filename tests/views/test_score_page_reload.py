"""A tap and then the page reloaded at once (a phone's pull-to-refresh, a tab closed): the deal
half entered is there again when the page comes back. The draft is written before the tap's
handler returns (localStorage); written to IndexedDB, a write still under way when the page
went was lost with it."""

from __future__ import annotations

from tests.views.test_browser import browser  # noqa: F401  (the browser fixture)
from tests.views.test_score_page_browser import link
from tests.views.test_score_page_taps import PHONE, STATE, _body, _until

RELOADS = 30
TAP_THEN_RELOAD = """window.reloaded = true;
document.querySelector(arguments[0]).click();
location.reload();"""
NEW_PAGE_READY = "return !window.reloaded && document.body.dataset.ready === 'true'"


def test_a_tap_then_a_reload_at_once_keeps_the_tap(browser, live_url, api):  # noqa: F811
    table = api.table(players=["Anna", "Boris", "Vera"], convention="sochi", pool_target=10)
    page = live_url + link(api, table["id"]) + "?lang=en"
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    browser.get(page)
    lost = 0
    for i in range(RELOADS):
        _until(lambda: _body(browser, "ready") == "true")
        seat = i % 3  # another declarer than the one before
        browser.execute_script(TAP_THEN_RELOAD, f'[data-declarer="{seat}"]')
        _until(lambda: browser.execute_script(NEW_PAGE_READY))
        pressed, _, _ = browser.execute_script(STATE, f'[data-declarer="{seat}"]')
        lost += pressed != "true"
    print(f"\ntaps lost to a reload at once: {lost} of {RELOADS}")
    assert lost == 0
