"""The picture routes: content type, ETag, owners, the share link and the page."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from tests.support.pages import only_own_scripts

DEAL = {
    "type": "contract",
    "declarer": 1,
    "contract": "7H",
    "defenders": {"2": "whist", "0": "pass"},
    "tricks": {"1": 6, "2": 3, "0": 1},
}


def test_sheet_svg_of_a_table(api):
    table = api.table(players=["Anna", "Boris & <Co>", "Vera"], convention="piter")
    api.deal(table["id"], DEAL)
    r = api.get(f"/v1/tables/{table['id']}/sheet.svg")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("image/svg+xml")
    root = ET.fromstring(r.text)
    words = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "Boris & <Co>" in words and "Anna" in words
    assert "8" in words  # Boris's mountain: 7H one down in piter
    assert r.headers["content-language"] == "ru" and "Accept-Language" in r.headers["vary"]
    etag = r.headers["etag"]
    again = api.get(f"/v1/tables/{table['id']}/sheet.svg", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.headers["etag"] == etag
    api.deal(table["id"], {"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 3}})
    changed = api.get(f"/v1/tables/{table['id']}/sheet.svg", headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["etag"] != etag
    # the JSON sheet and the picture are different representations: different ETags
    assert api.get(f"/v1/tables/{table['id']}/sheet").headers["etag"] != changed.headers["etag"]


def test_sheet_svg_needs_the_owner(api, other_api, client):
    table = api.table()
    assert other_api.get(f"/v1/tables/{table['id']}/sheet.svg").status_code == 404
    assert client.get(f"/v1/tables/{table['id']}/sheet.svg").status_code == 401
    r = api.get("/v1/tables/nosuchtable/sheet.svg")
    assert r.status_code == 404 and r.headers["content-type"].startswith("application/problem+json")


def test_share_link_pictures_and_page_work_without_a_key(api, client):
    table = api.table(players=["Anna", "Boris", "Vera"], convention="piter")
    api.deal(table["id"], DEAL)
    token = table["share_token"]
    svg = client.get(f"/v1/shared/{token}/sheet.svg")
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    assert (
        client.get(
            f"/v1/shared/{token}/sheet.svg", headers={"If-None-Match": svg.headers["etag"]}
        ).status_code
        == 304
    )
    deals = client.get(f"/v1/shared/{token}/deals")
    assert deals.status_code == 200
    [deal] = deals.json()["items"]
    assert deal["number"] == 1 and deal["contract"] == "7H"
    assert {"kind": "mountain", "seat": 1, "amount": 8} in deal["entries"]
    assert (
        client.get(f"/v1/shared/{token}/deals", headers={"If-None-Match": deals.headers["etag"]}).status_code
        == 304
    )
    page = client.get(f"/shared/{token}")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    script = client.get(only_own_scripts(page, client)[-1]).text  # the page's own, after the common one
    assert "Пулька: Anna, Boris, Vera" in page.text and "/sheet.svg" in script
    assert page.headers["content-language"] == "ru"
    png = client.get(f"/v1/shared/{token}/sheet.png")
    assert png.status_code == 200 and png.headers["content-type"] == "image/png"
    assert png.content.startswith(b"\x89PNG\r\n\x1a\n")
    assert (
        client.get(
            f"/v1/shared/{token}/sheet.png", headers={"If-None-Match": png.headers["etag"]}
        ).status_code
        == 304
    )
    # nothing can be written through the share link
    assert client.post(f"/v1/shared/{token}/deals", json=DEAL).status_code in (404, 405)


def test_unknown_share_tokens_are_404(client):
    for url in ("/shared/nope", "/v1/shared/nope/sheet.svg", "/v1/shared/nope/deals"):
        assert client.get(url).status_code == 404, url


def test_page_cannot_be_broken_by_names(api, client):
    table = api.table(players=["</script><script>alert(1)</script>", "Boris", "Vera"])
    page = client.get(f"/shared/{table['share_token']}").text
    assert "<script>alert(1)" not in page
    assert "&lt;/script&gt;" in page


def test_openapi_describes_the_pictures(client):
    paths = client.get("/openapi.json").json()["paths"]
    for path in (
        "/v1/tables/{table_id}/sheet.svg",
        "/v1/shared/{token}/sheet.svg",
        "/v1/shared/{token}/deals",
        "/v1/tables/{table_id}/sheet.png",
        "/v1/shared/{token}/sheet.png",
    ):
        assert "get" in paths[path], path
    # The HTML page is for people, not for generated clients: served, but not in the contract.
    assert "/shared/{token}" not in paths
    assert "image/svg+xml" in paths["/v1/tables/{table_id}/sheet.svg"]["get"]["responses"]["200"]["content"]
    assert "image/png" in paths["/v1/tables/{table_id}/sheet.png"]["get"]["responses"]["200"]["content"]
    params = {p["name"] for p in paths["/v1/shared/{token}/sheet.png"]["get"]["parameters"]}
    assert {"lang", "layout"} <= params


def test_each_language_and_layout_is_its_own_picture(api):
    table = api.table(players=["Anna", "Boris", "Vera"], convention="piter")
    api.deal(table["id"], DEAL)
    url = f"/v1/tables/{table['id']}/sheet.svg"
    ru = api.get(url)
    en = api.get(url + "?lang=en")
    by_header = api.get(url, headers={"Accept-Language": "en-GB,en;q=0.9"})
    wide = api.get(url + "?layout=wide")
    assert en.headers["content-language"] == "en" and by_header.headers["content-language"] == "en"
    assert en.text == by_header.text and en.headers["etag"] == by_header.headers["etag"]
    tags = {ru.headers["etag"], en.headers["etag"], wide.headers["etag"]}
    assert len(tags) == 3  # one ETag per language and per layout
    assert "Пуля до" in ru.text and "Pool to" in en.text
    assert ET.fromstring(wide.text).get("viewBox").split()[2] == "640"
    # the Russian picture's ETag is not current for the English one: drawn, not 304
    assert api.get(url + "?lang=en", headers={"If-None-Match": ru.headers["etag"]}).status_code == 200
    assert api.get(url + "?lang=en", headers={"If-None-Match": en.headers["etag"]}).status_code == 304
    png = api.get(f"/v1/tables/{table['id']}/sheet.png?lang=en")
    assert png.status_code == 200 and png.headers["etag"] not in tags


def test_bad_layout_or_language_is_a_problem(api):
    table = api.table()
    for query in ("layout=huge", "lang=de"):
        r = api.get(f"/v1/tables/{table['id']}/sheet.png?{query}")
        assert r.status_code == 422 and r.headers["content-type"].startswith("application/problem+json")
        assert query.split("=")[0] in r.text


def test_the_png_of_a_long_game_stays_within_its_pixel_budget():
    from app.render.png import MAX_PIXELS, zoom_for

    assert zoom_for(360, 800) == 2  # twice as sharp: 720 x 1600 = 1.15 MP
    z = zoom_for(360, 40_000)  # a sheet of a very long game: 360 x 40000 would be 57.6 MP at 2x
    assert (360 * z) * (40_000 * z) == pytest.approx(MAX_PIXELS)


def test_the_page_is_in_the_language_asked_for(api, client):
    table = api.table(players=["Anna", "Boris", "Vera"], convention="piter")
    token = table["share_token"]
    en = client.get(f"/shared/{token}?lang=en")
    assert en.headers["content-language"] == "en" and "Accept-Language" in en.headers["vary"]
    assert (
        '<html lang="en">' in en.text
        and "If the game ended now" in en.text
        and "Pulka: Anna, Boris, Vera" in en.text
    )
    by_header = client.get(f"/shared/{token}", headers={"Accept-Language": "en-US,en;q=0.9,ru;q=0.5"})
    assert '<html lang="en">' in by_header.text
    ru = client.get(f"/shared/{token}", headers={"Accept-Language": "de"})
    assert '<html lang="ru">' in ru.text and "Расчёт, если закончить сейчас" in ru.text
    # the script's words and number symbols: a Russian decimal comma, 24-hour times
    assert '"decimal": ","' in ru.text and '"time": "HH:mm:ss"' in ru.text and '"без двух"' in ru.text
    assert client.get(f"/shared/{token}?lang=xx").status_code == 422
