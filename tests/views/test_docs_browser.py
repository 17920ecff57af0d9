"""/docs in a real browser (headless Chromium, as in test_browser.py): Swagger UI renders this
API's operations from the files the app serves itself, and the page asks no other host for
anything, so it works on a machine without internet access."""

from __future__ import annotations

from .test_browser import browser  # noqa: F401  (the fixture)


def test_swagger_ui_renders_the_operations_from_local_files(browser, live_url):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(f"{live_url}/docs")
    wait = WebDriverWait(browser, 30, poll_frequency=0.2)
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".opblock")) >= 10)
    text = browser.find_element(By.TAG_NAME, "body").text
    assert "/v1/tables/{table_id}/deals" in text
    assert "Unable to render" not in text
    loaded = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert loaded, "the page loaded no resources"
    assert [url for url in loaded if not url.startswith(live_url + "/")] == []
