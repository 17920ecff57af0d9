"""The scoring page ``/score/{token}``: a phone at the table enters each deal with a few taps
through the table's scorer link, sees the refusal reason in place when a deal does not fit,
the live sheet, and undoes or corrects deals.

The page is one template (``templates/score.html``; app/kit/pages.py: Jinja2, autoescaped)
with its script and styles in static files (app/static/score.js, score.css, and the pages'
common.js and base.css), as the share page is. It reads only ``/v1/score/{token}/...``; the choices it offers are the
table's (``choices`` of ``GET /v1/score/{token}``). Its words come from the catalogues in
the language asked for (``?lang=``, else Accept-Language) and are handed to the script as
JSON."""

from __future__ import annotations

import json
import time
from importlib import resources
from typing import Any

from fastapi import APIRouter, Response
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool

from app.kit.assets import VERSION as ASSETS_VERSION
from app.kit.assets import asset_url
from app.kit.deps import DB, ScorerAccess
from app.kit.i18n import N_, Lang
from app.kit.lang import PageLang
from app.kit.pages import page_response, template
from app.rules import settle
from app.scorer import service as links
from app.scorer.schemas import ScorerDeal, ScorerTable
from app.tables.schemas import SettlementOut
from app.tables.service import get_table

router = APIRouter()
PAGE = template("app.scorer/score.html")
# The service worker: hand-written, served under the link so that its scope is the link's,
# with the page's static files to keep (their names change with their content: so does it).
PAGE_ASSETS = ("base.css", "score.css", "common.js", "score.js")
WORKER = (
    f"const ASSETS = {json.dumps([asset_url(name) for name in PAGE_ASSETS])};\n"
    f"const VERSION = {json.dumps(ASSETS_VERSION)};\n"
    + resources.files("app.scorer").joinpath("templates", "sw.js").read_text(encoding="utf-8")
)
FIRST_DEALS = 200  # the deals written into the page; the script reads the rest (next)

# Every word the script writes, by msgid (the English text).
WORDS = (
    N_("Score"),
    N_("loading…"),
    N_("updated {time}"),
    N_("New deal"),
    N_("Correct deal {n}"),
    N_("Kind"),
    N_("game"),
    N_("misère"),
    N_("all-pass"),
    N_("remise"),
    N_("game closed"),
    N_("penalty"),
    N_("(clause {clause})"),
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
    N_("the dealer whists"),
    N_("outbid a misère"),
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
    N_("Deals not yet on this sheet, by number: {list}."),
    N_("{name} deals and sits this deal out"),
    N_("six spades is Stalingrad: both defenders whist"),
    N_("an all-pass is compulsory now"),
    N_("the game is over: no more deals"),
    N_("this table has no remise"),
    N_("{name} has nothing to write off in this deal"),
    N_("give the tricks"),
    N_("nobody whisted: no tricks are given"),
    N_("{name} deals this deal"),
    N_("A remise: the declarer gives up the game unplayed and is written three tricks short."),
    N_("After the all-pass the lowest game is {n}; the lower levels are closed."),
    N_(
        "Another phone recorded deals meanwhile: check this deal (its dealer may have changed) and record it again, or drop it."
    ),
    N_("Deal"),
    N_("Deal {n}"),
    N_("Deal {n} kept on this phone: it is sent as soon as the network allows."),
    N_("Deal {n} recorded: {what}."),
    N_("Deals kept on this phone"),
    N_("Drop"),
    N_("Fix"),
    N_("No connection: an undo or a correction needs the network."),
    N_("No connection: deals entered are kept on this phone and sent when the network is back."),
    N_("No connection. Deals kept on this phone: {n}; they are sent as soon as the network is back."),
    N_("No."),
    N_("The points beyond the closed pool close the pool of"),
    N_("Undo"),
    N_("not yet on the sheet"),
    N_("nothing goes beyond the pool in this deal: leave the choice to the rules"),
    N_("pass: counted with the whist, may be left out"),
    N_("recorded"),
    N_("refused"),
    N_("the deal"),
    N_("the largest open pool, as the rules say"),
    N_("the rest: {n}"),
    N_("the rules of the table do not allow this"),
    N_("tricks: {n}"),
    N_("waiting to be sent"),
    N_("{name} deals and sits out"),
    N_("{name}, tricks: {n}"),
)


def score_words(lang: Lang) -> dict[str, str]:
    return lang.words(WORDS)


@router.get("/score/{token}", include_in_schema=False, response_class=HTMLResponse)
async def score_page(token: str, scorer: ScorerAccess, db: DB, lang: PageLang) -> HTMLResponse:
    """The scoring page of a scorer link (404 for an unknown or revoked link), with the table
    and its first deals written in (the page draws at once, without a layout shift)."""
    initial = await run_in_threadpool(page_state, db, scorer, token)
    title = f"{lang._('Score')}: {', '.join(p['name'] for p in initial['table']['players'])}"
    # nosniff, no framing and no referrer come from the security headers (app/kit/middleware).
    return page_response(
        PAGE, lang, cache_control="no-store", **page_values(token, title, lang), initial=initial
    )


def page_state(db: DB, scorer: ScorerAccess, token: str) -> dict[str, Any]:
    """What ``GET /v1/score/{token}`` and the first page of its deals answer, with the ETag
    and the time it was read (the script keeps the newer of this and its own copy)."""
    table = get_table(db, scorer.owner, scorer.table_id)
    settlement = SettlementOut.of(table, settle(table.rules, table.state, None), None)
    page = links.scorer_log(db, scorer, after=0, limit=FIRST_DEALS)
    nxt = f"/v1/score/{token}/deals?after={page.next_after}&limit={FIRST_DEALS}" if page.next_after else None
    return {
        "table": ScorerTable.of(table, settlement).model_dump(mode="json"),
        "etag": table.etag,
        "deals": [ScorerDeal.of(d).model_dump(mode="json") for d in page.deals],
        "next": nxt,
        "read_at": int(time.time() * 1000),
    }


def page_values(token: str, title: str, lang: Lang) -> dict[str, Any]:
    """What the template writes: the title, and the script's token and words."""
    return {"lang": lang.code, "title": title, "token": token, "words": score_words(lang)}


@router.get("/score/{token}/manifest.webmanifest", include_in_schema=False)
async def score_manifest(token: str, scorer: ScorerAccess, lang: PageLang) -> Response:
    """The web app manifest: the page installs as an app whose scope is the link."""
    page = f"/score/{token}"
    manifest = {
        "name": lang._("Score"),
        "short_name": lang._("Score"),
        "lang": lang.code,
        "start_url": f"{page}?lang={lang.code}",
        "scope": page,
        "display": "standalone",
        "background_color": "#f4f1ea",
        "theme_color": "#14213d",
        "icons": [{"src": f"{page}/icon.svg", "sizes": "any", "type": "image/svg+xml", "purpose": "any"}]
        + [
            {
                "src": asset_url(f"icon{kind}-{size}.png"),
                "sizes": f"{size}x{size}",
                "type": "image/png",
                "purpose": purpose,
            }
            for kind, purpose in (("", "any"), ("-maskable", "maskable"))
            for size in ICON_SIZES
        ],
    }
    return Response(
        json.dumps(manifest, ensure_ascii=False),
        media_type="application/manifest+json",
        headers={"Cache-Control": "no-cache"},
    )


# The PNG icons (app/static/icon-{size}.png, icon-maskable-{size}.png): the SVG icon drawn once
# by Chromium (docs/scoring-page.md says how); the maskable ones fill the square, the spade
# inside the safe zone.
ICON_SIZES = (192, 512)
ICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 96"><rect width="96" height="96" rx="16" fill="#14213d"/>'
    '<text x="48" y="66" font-size="56" text-anchor="middle" fill="#fff" font-family="sans-serif">\u2660</text></svg>'
)


@router.get("/score/{token}/icon.svg", include_in_schema=False)
async def score_icon(token: str, scorer: ScorerAccess) -> Response:
    return Response(ICON, media_type="image/svg+xml", headers={"Cache-Control": "public, max-age=86400"})


@router.get("/score/{token}/sw.js", include_in_schema=False)
async def score_worker(token: str, scorer: ScorerAccess) -> Response:
    """The service worker, allowed the scope of the page itself (``/score/{token}``, which
    the script's own folder would not cover); fetched again on each visit (no-cache)."""
    return Response(
        WORKER,
        media_type="text/javascript",
        headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": f"/score/{token}"},
    )
