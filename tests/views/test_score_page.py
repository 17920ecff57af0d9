"""The scoring page's HTML (app/scorer/page.py) and the client's ``table scorer-link``:
the page in the language asked for, only its own static scripts run, its words from the
catalogue; 404 for a link that does not work."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from app.cli.main import main
from app.kit.i18n import language
from app.scorer.page import WORDS
from tests.support.pages import only_own_scripts, page_data


def made_link(api, **table):
    t = api.table(**table)
    r = api.post(f"/v1/tables/{t['id']}/scorer-link")
    assert r.status_code == 201, r.text
    return t, r.json()


def words_of(html: str) -> dict[str, str]:
    return page_data(html)["words"]


def test_the_page_in_russian_by_default_and_english_when_asked(api, client):
    _t, link = made_link(api, players=["Anna", "Boris", "Vera"])
    ru = client.get(link["link"])
    assert ru.status_code == 200 and ru.headers["content-type"].startswith("text/html")
    assert ru.headers["Content-Language"] == "ru" and ru.headers["Vary"] == "Accept-Language"
    assert '<html lang="ru">' in ru.text and "<title>Запись: Anna, Boris, Vera</title>" in ru.text
    assert words_of(ru.text)["Record the deal"] == "Записать сдачу"
    en = client.get(link["link"] + "?lang=en")
    assert (
        en.headers["Content-Language"] == "en" and words_of(en.text)["Record the deal"] == "Record the deal"
    )
    by_header = client.get(link["link"], headers={"Accept-Language": "en-GB,en;q=0.8"})
    assert by_header.headers["Content-Language"] == "en"
    # every word the script may write, in both languages
    assert set(words_of(ru.text)) == set(WORDS) == set(language("en").words(WORDS))


def test_the_page_runs_only_its_own_script(api, client):
    _t, link = made_link(api, players=["</script><script>alert(1)</script>", "Boris", "Vera"])
    r = client.get(link["link"])
    policy = r.headers["Content-Security-Policy"]
    only_own_scripts(r, client)
    assert "connect-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert r.headers["Cache-Control"] == "no-store" and r.headers["Referrer-Policy"] == "no-referrer"
    # the token is handed to the script as JSON; the names reach the page only as escaped text
    assert page_data(r.text)["token"] == link["token"] and "<script><" not in r.text
    assert "&lt;/script&gt;" in r.text


def test_no_page_for_a_link_that_does_not_work(api, client):
    t, link = made_link(api)
    assert client.get("/score/sc_" + "x" * 43).status_code == 404
    assert client.get(f"/score/{t['share_token']}").status_code == 404
    api.delete(f"/v1/tables/{t['id']}/scorer-links/{link['id']}")
    r = client.get(link["link"])
    assert r.status_code == 404 and r.headers["content-type"].startswith("application/problem+json")


@pytest.fixture
def run(live_url, owner_key):
    runner = CliRunner()

    def invoke(*args: str, expect: int = 0):
        # the address the phone would open is the test server's own (the client otherwise
        # replaces a loopback host by this machine's address on its network)
        result = runner.invoke(
            main,
            list(args),
            env={
                "PREFSCORE_URL": live_url,
                "PREFSCORE_KEY": owner_key,
                "COLUMNS": "160",
                "PREFSCORE_PUBLIC_URL": live_url,
            },
        )
        assert result.exit_code == expect, (result.output, result.exception)
        return result

    return invoke


def test_the_client_makes_lists_and_revokes_a_link(run, client):
    table_id = (
        run("table", "create", "--convention", "piter", "--players", "Anna,Boris,Vera")
        .stdout.strip()
        .splitlines()[-1]
    )
    made = run("table", "scorer-link", table_id)
    url = made.stdout.strip()
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/score/sc_[A-Za-z0-9_-]{43}", url)
    assert "--revoke 1" in made.stderr or "--revoke" in made.stderr
    token = url.rsplit("/", 1)[1]
    assert client.get(f"/v1/score/{token}").status_code == 200
    listed = run("table", "scorer-link", table_id, "--list").stdout
    link_id = listed.split("\t", 1)[0]
    assert token[:12] in listed and "working" in listed
    assert "revoked scorer link" in run("table", "scorer-link", table_id, "--revoke", link_id).stdout
    assert client.get(f"/v1/score/{token}").status_code == 404
    assert "revoked" in run("table", "scorer-link", table_id, "--list").stdout


def test_the_page_installs_under_its_link(api, client):
    """A manifest, an icon and a service worker served under the link, the worker allowed the
    page's own scope; none of them for a link that does not work."""
    t, link = made_link(api)
    page = link["link"]
    html = client.get(page + "?lang=en")
    script = client.get(only_own_scripts(html)[-1]).text
    assert '"/score/" + encodeURIComponent(TOKEN)' in script and '"/manifest.webmanifest"' in script
    policy = html.headers["Content-Security-Policy"]
    assert "worker-src 'self'" in policy and "manifest-src 'self'" in policy
    manifest = client.get(page + "/manifest.webmanifest?lang=en")
    assert manifest.status_code == 200 and manifest.headers["content-type"].startswith(
        "application/manifest+json"
    )
    body = manifest.json()
    assert (
        body["scope"] == page and body["start_url"] == page + "?lang=en" and body["display"] == "standalone"
    )
    assert client.get(body["icons"][0]["src"]).headers["content-type"].startswith("image/svg+xml")
    # PNG icons of 192 and 512 pixels, for any use and maskable (filling the square)
    pngs = {(i["sizes"], i["purpose"]): i["src"] for i in body["icons"] if i["type"] == "image/png"}
    assert set(pngs) == {(f"{n}x{n}", p) for n in (192, 512) for p in ("any", "maskable")}
    for (sizes, _purpose), src in pngs.items():
        icon = client.get(src)
        assert icon.headers["content-type"] == "image/png" and icon.content[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = int.from_bytes(icon.content[16:20], "big"), int.from_bytes(icon.content[20:24], "big")
        assert f"{width}x{height}" == sizes
        assert icon.headers["cache-control"] == "public, max-age=31536000, immutable"
    worker = client.get(page + "/sw.js")
    assert worker.status_code == 200 and worker.headers["content-type"].startswith("text/javascript")
    assert worker.headers["Service-Worker-Allowed"] == page and worker.headers["Cache-Control"] == "no-cache"
    api.delete(f"/v1/tables/{t['id']}/scorer-links/{link['id']}")
    for path in ("/sw.js", "/manifest.webmanifest", "/icon.svg"):
        assert client.get(page + path).status_code == 404


def test_the_page_carries_the_table_and_its_first_deals(api, client):
    """Drawn at once: the table, its ETag and its deals are written into the page's script as
    GET /v1/score/{token} and its deals answer them."""
    t, link = made_link(api, players=["Anna", "Boris", "Vera"], convention="piter")
    api.deal(
        t["id"],
        {"type": "contract", "declarer": 0, "contract": "6H", "defenders": {"1": "pass", "2": "pass"}},
    )
    html = client.get(link["link"]).text
    initial = page_data(html)["initial"]
    table = client.get(f"/v1/score/{link['token']}")
    assert initial["table"] == table.json() and initial["etag"] == table.headers["ETag"]
    assert (
        initial["deals"] == client.get(f"/v1/score/{link['token']}/deals").json()["items"]
        and initial["next"] is None
    )


@pytest.mark.parametrize(
    ("single_whister", "apart"), [("open", False), ("gentlemen", False), ("closed", True)]
)
def test_the_passer_s_tricks_are_asked_only_where_they_count(api, client, single_whister, apart):
    """With one whister and one passer, the passer's tricks change the entries only when each
    defender writes for his own (single_whister closed): 7/3/0 and 7/1/2 write the same else."""
    _t, link = made_link(api, convention="sochi", options={"single_whister": single_whister})
    assert client.get(f"/v1/score/{link['token']}").json()["choices"]["passer_tricks"] is apart


@pytest.mark.parametrize(("single_whister", "same"), [("open", True), ("closed", False)])
def test_a_passer_s_tricks_change_nothing_unless_closed(api, single_whister, same):
    """Boris plays 7♦ and takes 7, Vera whists, Anna passes; the defenders took 3. Open: Vera
    writes 3 × 4 = 12 whists on Boris, whether she took 3 or 1 (Anna 2). Closed: Vera 1 × 4 = 4
    and Anna 2 × 4 = 8 instead."""
    entries = []
    for split in ({"1": 7, "2": 3, "0": 0}, {"1": 7, "2": 1, "0": 2}):
        t = api.table(
            players=["Anna", "Boris", "Vera"], convention="sochi", options={"single_whister": single_whister}
        )
        answer = api.deal(
            t["id"],
            {
                "type": "contract",
                "declarer": 1,
                "contract": "7D",
                "defenders": {"2": "whist", "0": "pass"},
                "tricks": split,
            },
        )
        entries.append(sorted(json.dumps(e, sort_keys=True) for e in answer["deal"]["entries"]))
    assert (entries[0] == entries[1]) is same


def test_every_word_of_the_script_is_in_russian():
    """Each word the script writes (W("…"), the page's data-w) is handed to it and has its
    Russian, refusals included: nothing reaches a Russian page in English."""
    from importlib import resources

    source = resources.files("app.scorer").joinpath("templates", "score.html").read_text(encoding="utf-8")
    source += resources.files("app").joinpath("static", "score.js").read_text(encoding="utf-8")
    used = set(re.findall(r'\bW\("((?:[^"\\]|\\.)*)"', source)) | set(re.findall(r'data-w="([^"]+)"', source))
    assert used <= set(WORDS), used - set(WORDS)
    ru = language("ru").words(WORDS)
    untranslated = sorted(w for w in used if ru[w] == w and w not in ("NT",))
    assert untranslated == []
