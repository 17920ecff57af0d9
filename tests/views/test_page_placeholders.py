"""The pages are string templates filled in one pass: a player's name that reads like a
placeholder of the template stays a name, and the page's configuration (the share token)
appears only where the template puts it."""

from __future__ import annotations

import re

from tests.support.pages import page_data

PLACEHOLDER_NAMES = ["__CONFIG__", "__SWITCH__", "__LANG__"]


def test_a_name_like_a_placeholder_stays_a_name_on_the_share_page(api, client):
    table = api.table(players=PLACEHOLDER_NAMES)
    token = table["share_token"]
    page = client.get(f"/shared/{token}?lang=en")
    assert page.status_code == 200
    title = re.search(r"<title>(.*?)</title>", page.text).group(1)
    heading = re.search(r'<h1 id="title">(.*?)</h1>', page.text).group(1)
    assert title == heading == "Pulka: __CONFIG__, __SWITCH__, __LANG__"
    # the configuration (with the token) is written once, in the page's data for its script
    assert page.text.count(token) == 1
    assert page_data(page.text)["token"] == token


def test_a_name_like_a_placeholder_stays_a_name_on_the_score_page(api, client):
    table = api.table(players=["__TOKEN__", "__WORDS__", "__TITLE__"])
    link = api.post(f"/v1/tables/{table['id']}/scorer-link").json()
    page = client.get(link["link"] + "?lang=en")
    assert page.status_code == 200
    assert "<title>Score: __TOKEN__, __WORDS__, __TITLE__</title>" in page.text
    assert page.text.count(link["link"].rsplit("/", 1)[1]) == 1
