"""A club night in a real browser (Debian's headless Chromium, as tests/views/test_browser.py):
nine players, two rounds of three 3-player tables, every deal entered by taps on each
table's scoring page (/score behind its scorer link), while the public tournament page
(/tournament/{token}) stays open and follows the tables' streams. The standings it shows
are checked against the hand computation below. Screenshots of the public page (phone and
desktop, Russian and English, during round 2 and at the end) go to test-output/screenshots/.

The tournament plays sochi, each table's game ending after 2 deals, scored by places (the
default points of a 3-player table: 1st 3 — 4 when the only player in plus —, 2nd 2 in plus
(a balance of 0 counts as plus) else 1, 3rd 0; tied players share the points of their
places). The draw's seed 2026 seats (seat 0 deals first):

    round 1: table 1 Egor, Anna, Vera    table 2 Dasha, Boris, Gleb    table 3 Ilya, Kira, Zhenya
    round 2: table 1 Gleb, Ilya, Anna    table 2 Zhenya, Vera, Dasha   table 3 Boris, Egor, Kira

(no two players meet twice). In sochi a game's pool is 2 for a 6, 4 for a 7; with no whists
a seat's balance is 10·(mean(G) − G_i), G = −pool. The tables' deals:

    V: seat 0 plays 6♠, seat 1 plays 7♠, both passed: G = (−2, −4, 0), mean −2:
       balances (0, +20, −20): places 2nd in plus (0 counts), 1st (not alone in plus), 3rd
       -> points (2, 3, 0)
    X: seats 0 and 1 each play 6♠ passed: G = (−2, −2, 0), mean −4/3:
       balances (+20/3, +20/3, −40/3) -> 1st and 2nd shared (3 + 2)/2 -> (5/2, 5/2, 0)
    Y: one seat plays 6♠ passed twice: G = −4 for him, mean −4/3: he +80/3, the others −40/3
       -> he is the only one in plus: 4; the others share 2nd in minus and 3rd (1 + 0)/2 = 1/2
    W: seat 0 plays 6♠, seat 1 whists and takes 3, seat 2 passes and takes 1 (the whister
       writes the defenders' 4 tricks at 2 a trick: 8 whists on seat 0); then seat 1 plays
       6♠ passed: pools as in X, (+20/3, +20/3, −40/3), whists (−8, +8, 0):
       balances (−4/3, +44/3, −40/3) -> seat 1 alone in plus 4, seat 0 2nd in minus 1, 0

    round 1: T1 V: Egor 2 (0), Anna 3 (+20), Vera 0 (−20)
             T2 Y by seat 2: Gleb 4 (+80/3), Dasha 1/2 (−40/3), Boris 1/2 (−40/3)
             T3 X: Ilya 5/2 (+20/3), Kira 5/2 (+20/3), Zhenya 0 (−40/3)
    round 2: T1 Y by seat 0: Gleb 4 (+80/3), Ilya 1/2 (−40/3), Anna 1/2 (−40/3)
             T2 V: Zhenya 2 (0), Vera 3 (+20), Dasha 0 (−20)
             T3 W: Boris 1 (−4/3), Egor 4 (+44/3), Kira 0 (−40/3)
    the director: Egor −1 point, "late for round 2"

    totals (balance sum, the first tie-break):
      Gleb 4 + 4 = 8 (+160/3), Egor 2 + 4 − 1 = 5 (+44/3), Anna 3 + 1/2 = 7/2 (+20/3),
      Vera 0 + 3 = 3 (0), Ilya 5/2 + 1/2 = 3 (−20/3), Kira 5/2 + 0 = 5/2 (−20/3),
      Zhenya 0 + 2 = 2 (−40/3), Boris 1/2 + 1 = 3/2 (−44/3), Dasha 1/2 + 0 = 1/2 (−100/3)
    places: 1 Gleb, 2 Egor, 3 Anna, 4 Vera, 5 Ilya (3 each: Vera's balance is higher),
            6 Kira, 7 Zhenya, 8 Boris, 9 Dasha

NOTE: the scoring page is driven through one helper, ``score_deal``: when the page's form
changes, only that function needs to follow it."""

from __future__ import annotations

from pathlib import Path

from tests.tournaments.test_api import tournament
from tests.views.conftest import live_url  # noqa: F401  (the served app's fixture)
from tests.views.test_browser import browser, full_page_png  # noqa: F401  (the browser fixture)

SHOTS = Path(__file__).resolve().parents[2] / "test-output" / "screenshots"
PHONE = {"width": 360, "height": 740, "deviceScaleFactor": 1, "mobile": True}
DESKTOP = {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}
PLAYERS = ["Anna", "Boris", "Vera", "Gleb", "Dasha", "Egor", "Zhenya", "Ilya", "Kira"]
SEATING = {
    1: [["Egor", "Anna", "Vera"], ["Dasha", "Boris", "Gleb"], ["Ilya", "Kira", "Zhenya"]],
    2: [["Gleb", "Ilya", "Anna"], ["Zhenya", "Vera", "Dasha"], ["Boris", "Egor", "Kira"]],
}


def passed(declarer: int, contract: str) -> dict:
    return {
        "declarer": declarer,
        "contract": contract,
        "defenders": {d: "pass" for d in range(3) if d != declarer},
    }


V = [passed(0, "6S"), passed(1, "7S")]
X = [passed(0, "6S"), passed(1, "6S")]
W = [
    {"declarer": 0, "contract": "6S", "defenders": {1: "whist", 2: "pass"}, "tricks": {0: 6, 1: 3, 2: 1}},
    passed(1, "6S"),
]


def Y(seat: int) -> list[dict]:
    return [passed(seat, "6S"), passed(seat, "6S")]


DEALS = {1: [V, Y(2), X], 2: [Y(0), V, W]}
AFTER_ROUND_1 = {
    "Gleb": "4",
    "Anna": "3",
    "Ilya": "5/2",
    "Kira": "5/2",
    "Egor": "2",
    "Dasha": "1/2",
    "Boris": "1/2",
    "Vera": "0",
    "Zhenya": "0",
}
FINAL = [  # place, name, total (exact), round 1, round 2
    (1, "Gleb", "8", "4", "4"),
    (2, "Egor", "5", "2", "4"),
    (3, "Anna", "7/2", "3", "1/2"),
    (4, "Vera", "3", "0", "3"),
    (5, "Ilya", "3", "5/2", "1/2"),
    (6, "Kira", "5/2", "5/2", "0"),
    (7, "Zhenya", "2", "0", "2"),
    (8, "Boris", "3/2", "1/2", "1"),
    (9, "Dasha", "1/2", "1/2", "0"),
]


def tap(driver, selector: str) -> None:
    """Click an element, found again if the page redrew it meanwhile."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By

    for _ in range(5):
        try:
            driver.find_element(By.CSS_SELECTOR, selector).click()
            return
        except StaleElementReferenceException:
            continue
    driver.find_element(By.CSS_SELECTOR, selector).click()


def score_deal(driver, wait, deal: dict, count: int) -> None:
    """One contract entered on the scoring page as a person taps it — the kind, the
    declarer, the level and the suit, each defender's answer, each seat's tricks — and
    recorded; waits until the page shows ``count`` deals."""
    tap(driver, '[data-kind="contract"]')
    tap(driver, f'[data-declarer="{deal["declarer"]}"]')
    tap(driver, f'[data-level="{deal["contract"][:-1]}"]')
    tap(driver, f'[data-strain="{deal["contract"][-1]}"]')
    for seat, answer in deal["defenders"].items():
        tap(driver, f'[data-defence="{seat}:{answer}"]')
    for seat, tricks in deal.get("tricks", {}).items():
        tap(driver, f'[data-tricks="{seat}:{tricks}"]')
    tap(driver, "#submit")
    wait.until(lambda d: d.find_element("tag name", "body").get_attribute("data-deal-count") == str(count))


def play_table(driver, wait, url: str, deals: list[dict]) -> None:
    """A table's game on its scoring page, in a tab of its own (the public page stays open)."""
    home = driver.current_window_handle
    driver.switch_to.new_window("tab")
    driver.get(url + "?lang=ru")
    wait.until(lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "true")
    for n, deal in enumerate(deals, 1):
        score_deal(driver, wait, deal, n)
    wait.until(lambda d: d.find_element("tag name", "body").get_attribute("data-finished") == "true")
    driver.close()
    driver.switch_to.window(home)


def shown(driver) -> list[dict]:
    """The standings as the public page shows them, row by row."""
    return driver.execute_script(
        """return Array.from(document.querySelectorAll('#standings tbody tr')).map(r => ({
             place: r.dataset.place, total: r.dataset.total, name: r.querySelector('th').textContent.trim(),
             rounds: Array.from(r.querySelectorAll('td[data-round]')).map(c => c.dataset.score || null),
             text: r.innerText}))"""
    )


def text_of(driver, selector: str) -> str:
    """An element's text, read in the page at once (the page replaces its content when it updates)."""
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.innerText : ''", selector
    )


def ready(driver) -> bool:
    return driver.find_element("tag name", "body").get_attribute("data-ready") == "true"


def shoot(driver, url: str, size: dict, name: str) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", size)
    driver.get(url)
    WebDriverWait(driver, 20, poll_frequency=0.2).until(ready)
    SHOTS.mkdir(parents=True, exist_ok=True)
    full_page_png(driver, SHOTS / f"{name}.png")


def test_a_club_night_played_through_the_scoring_pages(browser, live_url, api):  # noqa: F811
    from selenium.webdriver.support.ui import WebDriverWait

    t = tournament(api, name="Клуб «Пуля» · пятница", rounds=2, scoring="places", entrants=PLAYERS)
    public = f"{live_url}/tournament/{t['share_token']}"
    wait = WebDriverWait(browser, 30, poll_frequency=0.2)
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)

    for number in (1, 2):
        r = api.post(f"/v1/tournaments/{t['id']}/rounds", json={"seed": 2026})
        assert r.status_code == 201, r.text
        drawn = r.json()["rounds"][-1]
        seating = [[s["name"] for s in tb["seats"]] for tb in drawn["tables"]]
        assert seating == SEATING[number], (
            "the draw changed: the hand computation above needs its new seating"
        )
        if number == 2:  # nobody meets anybody twice
            met = [{a, b} for r in SEATING.values() for tb in r for a in tb for b in tb if a < b]
            assert len(met) == 18 and all(met.count(pair) == 1 for pair in met)
        if number == 1:
            browser.get(public + "?lang=ru")
            wait.until(ready)
        else:
            # a round drawn is on no table's stream but on the tournament's own: the open page
            # fetches itself again, untouched; the button does it at once too
            wait.until(lambda d: "Тур 2 из 2" in text_of(d, "#current-title"))
            api.post(
                f"/v1/tournaments/{t['id']}/adjustments",
                json={"entrant": 6, "amount": -1, "reason": "опоздал ко 2-му туру"},
            )
            tap(browser, "#refresh")
            wait.until(lambda d: "опоздал ко 2-му туру" in text_of(d, "body"))
        # every table of the round links to its live sheet
        links = browser.execute_script(
            "return Array.from(document.querySelectorAll('#current a.sheet-link')).map(a => a.getAttribute('href'))"
        )
        assert len(links) == 3 and all(h.startswith("/shared/") and h.endswith("?lang=ru") for h in links)
        for n, (table, deals) in enumerate(zip(drawn["tables"], DEALS[number]), 1):
            play_table(browser, wait, live_url + table["scorer_link"], deals)
            if number == 2 and n == 1:
                # the open page followed the table's stream: its players' round scores are in
                wait.until(lambda d: {r["name"]: r["rounds"][1] for r in shown(d)}["Gleb"] == "4")
                for lang in ("ru", "en"):
                    for size, label in ((PHONE, "phone"), (DESKTOP, "desktop")):
                        shoot(browser, f"{public}?lang={lang}", size, f"tournament-{lang}-{label}-playing")
                browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
                browser.get(public + "?lang=ru")
                wait.until(ready)
        if number == 1:
            # round 1 ended with its last table, and the page saw it without being reloaded
            wait.until(lambda d: {r["name"]: r["total"] for r in shown(d)} == AFTER_ROUND_1)

    # the end: the page, live, against the hand computation
    def final(d):
        return [(int(r["place"]), r["name"], r["total"], *r["rounds"]) for r in shown(d)]

    wait.until(lambda d: final(d) == FINAL)
    rows = {r["name"]: r["text"] for r in shown(browser)}
    assert rows["Anna"].split() == ["3", "Anna", "3", "0,5", "3,5"]  # the Russian way: a decimal comma
    assert rows["Egor"].split() == ["2", "Egor", "2", "4", "−1", "5"]  # with the adjustment's column
    body = text_of(browser, "body")
    assert "опоздал ко 2-му туру" in body and "История туров" in body
    assert "Последний тур: Тур 2 из 2" in text_of(browser, "#current-title")  # the tournament is over
    # the API's standings agree with the page
    api_rows = api.get(f"/v1/tournaments/{t['id']}/standings").json()["items"]
    assert [(s["place"], s["name"], s["total_exact"]) for s in api_rows] == [
        (p, n, tot) for p, n, tot, *_ in FINAL
    ]

    for lang in ("ru", "en"):
        for size, label in ((PHONE, "phone"), (DESKTOP, "desktop")):
            shoot(browser, f"{public}?lang={lang}", size, f"tournament-{lang}-{label}-final")
    assert "Standings after 2 rounds, in points" in text_of(browser, "#standings")
    # an unknown link: the page's own 404, in the page's look
    shoot(browser, f"{live_url}/tournament/tn_no_such_link?lang=en", PHONE, "tournament-en-phone-404")
    assert "This tournament link does not work" in text_of(browser, "body")
