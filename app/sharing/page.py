"""The share page ``/shared/{token}``: the paper sheet, the balances and the deal log for
people at the table, in their language (``?lang=``, else ``Accept-Language``), kept up to
date while it is open; no key is needed and nothing can be changed from it.

Plain HTML with a small script (app/static/shared.js), no front-end build, mobile-first: on a phone the
picture takes the width (its phone layout, 360 units) with the balances and the log below;
from 680 px on, the wide picture (640 units) at its own size, and from 1000 px on the
balances and the log beside it. It stays live through the share link's event stream (an EventSource): each change
is pushed at once and the page then fetches the picture (with ``If-None-Match``), the
balances and, of the log, only what the change made stale (after a post, the deals after the
last it has: ``?after=``); a correction, a gap in the events or a poll fetches the log again.
When the stream fails it polls ``sheet.svg`` every 2 s with
``If-None-Match`` and tries the stream again now and then.

The page is the template ``templates/shared.html`` (app/kit/pages.py: Jinja2, autoescaped,
the policy and the headers shared with the scoring page). Every word is in the catalogues:
the page's own are written in it by the server, the script's are handed to it as JSON
(``lang.words``), with the language's number symbols and its time pattern from Babel, so
that times are 24-hour in Russian.
"""

from __future__ import annotations

from babel.dates import get_time_format
from babel.numbers import get_decimal_symbol, get_group_symbol
from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from app.kit.deps import DB
from app.kit.i18n import LANGUAGES, N_, Lang
from app.kit.i18n.game_words import DEFENCE, ENTRY_KINDS, NO_TRUMPS, SUIT_SYMBOLS, UNDERTRICKS
from app.kit.lang import PageLang
from app.kit.pages import page_response, template
from app.tables.service import get_shared

router = APIRouter()
PAGE = template("app.sharing/shared.html")

# The script's words (msgids; the game's own come from app/kit/i18n/game_words.py).
SCRIPT_WORDS = [
    N_("loading…"),
    N_("updated {time}"),
    N_("(polling)"),
    N_("no connection, retrying… ({error})"),
    N_("the table was deleted"),
    N_("the server lost its database"),
    N_("If the game ended now"),
    N_("Payments"),
    N_("Final payments"),
    N_("nobody pays"),
    N_("all-pass"),
    N_("misère"),
    N_("remise"),
    N_("game closed"),
    N_("penalty"),
    N_("(clause {clause})"),
    N_("made"),
    N_("took {n}"),
    N_("tricks: {list}"),
    N_("on {name}"),
    NO_TRUMPS,
    *DEFENCE.values(),
    *ENTRY_KINDS.values(),
    *UNDERTRICKS.values(),
]


@router.get("/shared/{token}", include_in_schema=False, response_class=HTMLResponse)
def shared_page(token: str, db: DB, lang: PageLang) -> HTMLResponse:
    table = get_shared(db, token)  # 404 for an unknown token
    return page_response(
        PAGE,
        lang,
        cache_control="no-cache",
        headers={"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"},
        **page_values(token, list(table.players), lang),
    )


def page_values(token: str, names: list[str], lang: Lang) -> dict[str, object]:
    """What the template writes: the page's words, and the script's configuration."""
    config = {
        "token": token,
        "lang": lang.code,
        "words": lang.words(SCRIPT_WORDS),
        "undertricks": {str(k): lang._(v) for k, v in UNDERTRICKS.items()},
        "suits": SUIT_SYMBOLS,
        "decimal": get_decimal_symbol(lang.locale),
        "group": get_group_symbol(lang.locale),
        "time": get_time_format("medium", locale=lang.locale).pattern,
    }
    return {
        "config": config,
        "lang": lang.code,
        "languages": LANGUAGES,
        "title": lang._("Pulka: {names}", names=", ".join(names)),
        "words": {
            "loading": lang._("loading…"),
            "language": lang._("Language"),
            "settlement": lang._("If the game ended now"),
            "player": lang._("Player"),
            "balance": lang._("Balance"),
            "deals": lang._("Deals"),
            "number": lang._("No."),
            "deal": lang._("Deal"),
            "picture": lang._("The sheet"),
        },
    }
