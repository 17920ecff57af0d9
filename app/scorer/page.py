"""The scoring page ``/score/{token}``: a phone at the table enters each deal with a few taps
through the table's scorer link, sees the refusal reason in place when a deal does not fit,
the live sheet, and undoes or corrects deals.

The page is one template (``templates/score.html``; app/kit/pages.py: Jinja2, autoescaped)
with an inline script run by CSP nonce, as the share page is. It reads only ``/v1/score/{token}/...``; the choices it offers are the
table's (``choices`` of ``GET /v1/score/{token}``). Its words come from the catalogues in
the language asked for (``?lang=``, else Accept-Language) and are handed to the script as
JSON."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool

from app.kit.deps import DB, ScorerAccess
from app.kit.i18n import N_, Lang
from app.kit.lang import PageLang
from app.kit.pages import page_response, template
from app.tables.service import get_table

router = APIRouter()
PAGE = template("app.scorer/score.html")

# Every word the script writes, by msgid (the English text).
WORDS = (
    N_("Score"),
    N_("loading…"),
    N_("updated {time}"),
    N_("no connection, retrying… ({error})"),
    N_("New deal"),
    N_("Correct deal {n}"),
    N_("Kind"),
    N_("game"),
    N_("misère"),
    N_("all-pass"),
    N_("remise"),
    N_("game closed"),
    N_("Declarer"),
    N_("Contract"),
    N_("NT"),
    N_("Defenders"),
    N_("whist"),
    N_("pass"),
    N_("half-whist"),
    N_("Tricks"),
    N_("Tricks taken on the all-pass"),
    N_("{n} of 10"),
    N_("deals, sits out"),
    N_("write off the mountain"),
    N_("Talon"),
    N_("none"),
    N_("ace in the talon"),
    N_("marriage in the talon"),
    N_("ace and king in the talon"),
    N_("two aces in the talon"),
    N_("talon discarded"),
    N_("talon returned"),
    N_("outbid a misère"),
    N_("Overflow helps"),
    N_("nobody"),
    N_("Record the deal"),
    N_("Save the correction"),
    N_("Cancel"),
    N_("Undo the last deal"),
    N_("Undo deal {n}?"),
    N_("Correct"),
    N_("Sheet"),
    N_("Settlement"),
    N_("Player"),
    N_("Balance"),
    N_("Payments"),
    N_("{from} pays {to} {amount}"),
    N_("The game is over."),
    N_("Deals"),
    N_("No deals yet."),
    N_("{name} deals"),
    N_("The deal was not recorded:"),
    N_("The sheet changed on another phone; it is shown again. Check the deal and record it again."),
    N_("This link no longer works (revoked, or the table was deleted)."),
    N_("The table is archived: it takes no deals."),
    N_("Pick the kind, the declarer and the contract."),
    N_("Every defender must say whist or pass."),
    N_("took {n}"),
    N_("the tricks add up to {n}, not 10"),
    N_("the lowest contract now is {n}"),
    N_("The correction would make deal {n} invalid; nothing was changed."),
    N_("tricks"),
    N_("defenders"),
    N_("declarer"),
    N_("contract"),
    N_("type"),
    N_("choices"),
    N_("talon"),
)


def score_words(lang: Lang) -> dict[str, str]:
    return lang.words(WORDS)


@router.get("/score/{token}", include_in_schema=False, response_class=HTMLResponse)
async def score_page(token: str, scorer: ScorerAccess, db: DB, lang: PageLang) -> HTMLResponse:
    """The scoring page of a scorer link (404 for an unknown or revoked link)."""
    table = await run_in_threadpool(get_table, db, scorer.owner, scorer.table_id)
    title = f"{lang._('Score')}: {', '.join(table.players)}"
    # nosniff, no framing and no referrer come from the security headers (app/kit/middleware).
    return page_response(PAGE, lang, cache_control="no-store", **page_values(token, title, lang))


def page_values(token: str, title: str, lang: Lang) -> dict[str, object]:
    """What the template writes: the title, and the script's token and words."""
    return {"lang": lang.code, "title": title, "token": token, "words": score_words(lang)}
