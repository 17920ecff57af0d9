"""Both pages are Jinja2 templates, autoescaped: a player's name that is markup is written
as text, in the title and the heading, and only the page's own scripts run (static files of
this server: script-src 'self' in its Content-Security-Policy)."""

from __future__ import annotations

from tests.support.pages import only_own_scripts

SCRIPT = "<script>alert(1)</script>"
NAMES = [SCRIPT, "Boris", "Vera"]


def _one_script(page) -> None:
    assert page.status_code == 200
    assert "<script>alert" not in page.text
    only_own_scripts(page)


def test_a_name_with_a_script_is_text_on_the_share_page(api, client):
    token = api.table(players=NAMES)["share_token"]
    page = client.get(f"/shared/{token}?lang=en")
    _one_script(page)
    escaped = "Pulka: &lt;script&gt;alert(1)&lt;/script&gt;, Boris, Vera"
    assert f"<title>{escaped}</title>" in page.text and f'<h1 id="title">{escaped}</h1>' in page.text


def test_a_name_with_a_script_is_text_on_the_score_page(api, client):
    table = api.table(players=NAMES)
    link = api.post(f"/v1/tables/{table['id']}/scorer-link").json()
    page = client.get(link["link"] + "?lang=en")
    _one_script(page)
    escaped = "Score: &lt;script&gt;alert(1)&lt;/script&gt;, Boris, Vera"
    assert f"<title>{escaped}</title>" in page.text and f'<h1 id="title">{escaped}</h1>' in page.text


def test_the_pages_are_template_files_loaded_once():
    from app.kit.pages import PAGES
    from app.scorer import page as score
    from app.sharing import page as shared

    assert PAGES.autoescape is True
    assert shared.PAGE is PAGES.get_template("app.sharing/shared.html")
    assert score.PAGE is PAGES.get_template("app.scorer/score.html")
