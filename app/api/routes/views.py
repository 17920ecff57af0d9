"""Pictures of a table: the paper sheet as SVG (by key or by share link), the share link's
deal log, and the live HTML page at ``/shared/{token}``.

The page is plain HTML with a small inline script, no front-end build. It stays live through
the share link's event stream (``/v1/shared/{token}/events``, an EventSource): each change
of the table is pushed to it at once, and the page then fetches the picture (with
``If-None-Match``), the balances and the deal log. When the stream fails (a proxy that does
not pass it, a server at its stream limit) the page falls back to polling
``sheet.svg`` every 2 s with ``If-None-Match`` and tries the stream again now and then.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query
from fastapi.responses import HTMLResponse, Response

from app.render import render_sheet as render_svg
from app.rules import settle, sheet
from app.services.tables import TableInfo
from app.services.views import DrawnCache, Picture, shared_picture, table_picture

from .. import etags
from ..deps import DB, Owner
from ..headers import CACHE_CONTROL, ETAG, not_modified
from ..schemas import SettlementOut, SharedDealPage, StoredDeal, problem_responses

router = APIRouter()

SVG = "image/svg+xml"
SHARED_PAGE_MAX = 200  # the share link's default page is the largest: its first clients read one page
# The pictures of this process, by ETag (which names the table, its revision and the
# render version): a table's picture is drawn once per revision, not once per viewer's poll.
DRAWN = DrawnCache()

_svg_responses: dict[int | str, dict[str, Any]] = {
    200: {
        "content": {SVG: {"schema": {"type": "string", "format": "binary"}}},
        "description": "the sheet drawn as on paper (SVG)",
        "headers": {**ETAG, **CACHE_CONTROL},
    },
    **not_modified("the picture has not changed (If-None-Match)"),
}
IfNoneMatch = Annotated[str | None, Header(alias="If-None-Match", description="an ETag of this answer: 304 when it is still current")]


def svg_etag(table: TableInfo) -> str:
    return etags.svg_etag(table.etag)


def picture_svg(picture: Picture) -> str:
    """The SVG of a table with its log: exact sheet and entries, names, balances."""
    table = picture.table
    exact = sheet(table.rules, table.state)
    exact["players"] = [{**p, "name": table.players[p["seat"]]} for p in exact["players"]]
    deals = picture.deals or ()
    games = picture.games
    history = [
        {"entries": [e.to_dict() for e in d.entries], **({"game": games[i]} if games else {})}
        for i, d in enumerate(deals)
    ]
    settlement = SettlementOut.of(table, settle(table.rules, table.state, None), None).model_dump(mode="json", by_alias=True)
    return render_svg(exact, history=history, settlement=settlement, pool_target=table.pool_target)


def _svg_response(fetch: Callable[..., Picture], if_none_match: str | None, cache: str) -> Response:
    """304 for the viewer's current version; else the picture, drawn once per revision.
    ``fetch(current=...)`` reads the table, and its log only when ``current`` is false: when
    the viewer has this version, or it is drawn already."""
    drawn: dict[str, str] = {}

    def current(table: TableInfo) -> bool:
        etag = svg_etag(table)
        if etags.none_match(if_none_match, etag):
            return True
        svg = DRAWN.get(etag)
        if svg is not None:
            drawn[etag] = svg
        return svg is not None

    picture = fetch(current=current)
    etag = svg_etag(picture.table)
    headers = {"ETag": etag, "Cache-Control": cache}
    if etags.none_match(if_none_match, etag):
        return Response(status_code=304, headers=headers)
    svg = drawn.get(etag)
    if svg is None:
        svg = DRAWN.get_or_draw(etag, lambda: picture_svg(picture))
    return Response(svg, media_type=SVG, headers=headers)


@router.get(
    "/v1/tables/{table_id}/sheet.svg",
    operation_id="getSheetSvg",
    tags=["views"],
    response_class=Response,
    responses={**_svg_responses, **problem_responses(401, 404)},
)
def get_sheet_svg(
    table_id: str,
    db: DB,
    owner: Owner,
    if_none_match: IfNoneMatch = None,
) -> Response:
    """The sheet drawn as the paper pulka: sectors with pool, mountain and whists as running
    sequences, the all-pass level, the balances. ``ETag``; ``If-None-Match`` answers 304."""
    return _svg_response(partial(table_picture, db, owner, table_id), if_none_match, etags.CACHE)


@router.get(
    "/v1/shared/{token}/sheet.svg",
    operation_id="getSharedSheetSvg",
    tags=["shared"],
    response_class=Response,
    responses={**_svg_responses, **problem_responses(404)},
    openapi_extra={"security": []},
)
def get_shared_sheet_svg(
    token: str,
    db: DB,
    if_none_match: IfNoneMatch = None,
) -> Response:
    """The picture of the sheet through the read-only share link (no key)."""
    return _svg_response(partial(shared_picture, db, token), if_none_match, etags.CACHE)


@router.get(
    "/v1/shared/{token}/deals",
    operation_id="listSharedDeals",
    tags=["shared"],
    response_model=SharedDealPage,
    responses={
        200: {"headers": {**ETAG, **CACHE_CONTROL}},
        **not_modified("unchanged (If-None-Match)"),
        **problem_responses(404, 422),
    },
    openapi_extra={"security": []},
)
def get_shared_deals(
    token: str,
    db: DB,
    response: Response,
    after: Annotated[int, Query(ge=0, le=10**9, description="list the deals numbered above this")] = 0,
    limit: Annotated[int, Query(ge=1, le=SHARED_PAGE_MAX, description="at most this many deals")] = SHARED_PAGE_MAX,
    if_none_match: IfNoneMatch = None,
) -> SharedDealPage | Response:
    """The deal log through the read-only share link, keyset-paged like the keyed listing:
    each stored deal with its entries; follow ``next`` until it is null."""
    picture = shared_picture(db, token, current=lambda t: etags.none_match(if_none_match, t.etag))
    headers = {"ETag": picture.table.etag, "Cache-Control": etags.CACHE}
    if picture.deals is None:
        return Response(status_code=304, headers=headers)
    later = [d for d in picture.deals if d.number > after]
    items = [StoredDeal.of(d) for d in later[:limit]]
    nxt = None
    if len(later) > limit:
        nxt = f"/v1/shared/{token}/deals?after={later[limit - 1].number}&limit={limit}"
    response.headers.update(headers)
    return SharedDealPage(items=items, next=nxt, deals=items)


@router.get("/shared/{token}", include_in_schema=False, response_class=HTMLResponse)
def shared_page(token: str, db: DB) -> HTMLResponse:
    """A page for people at the table: the paper sheet, the balances and the deal log, kept
    up to date while it is open (no key needed; nothing can be changed from it)."""
    picture = shared_picture(db, token, current=lambda _t: True)  # 404 for an unknown token
    names = ", ".join(picture.table.players)
    nonce = secrets.token_urlsafe(16)
    return HTMLResponse(
        page_html(token, names).replace("<script>", f'<script nonce="{nonce}">', 1),
        headers={
            "Cache-Control": "no-cache",
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer",
            "Content-Security-Policy": page_policy(nonce),
        },
    )


def page_policy(nonce: str) -> str:
    """The page runs only its own script (by nonce), fetches only from this server (its
    requests and its event stream: connect-src 'self'); styles may be inline (the page's and
    the drawn sheet's)."""
    return (
        f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'unsafe-inline'; connect-src 'self'; "
        "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )


def _html_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def page_html(token: str, names: str) -> str:
    # json.dumps, then "<" escaped: the token cannot end the script element.
    token_js = json.dumps(token).replace("<", "\\u003c")
    return PAGE.replace("__TITLE__", _html_escape(f"Пулька: {names}")).replace("__TOKEN__", token_js)


PAGE = """<!doctype html>
<html lang="ru">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title>
<style>
  body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; background: #f4f1ea; color: #14213d; }
  main { max-width: 720px; margin: 0 auto; padding: 8px; }
  h1 { font-size: 1.15rem; margin: 8px 0; }
  h2 { font-size: 1rem; margin: 16px 0 6px; }
  #sheet { background: #fff; border-radius: 6px; box-shadow: 0 1px 3px rgba(0,0,0,.15); }
  #sheet svg { display: block; width: 100%; height: auto; }
  table { border-collapse: collapse; width: 100%; background: #fff; font-size: .95rem; }
  th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid #e3ddd0; vertical-align: top; }
  td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
  .pos { color: #2a7d2a; } .neg { color: #b02a2a; }
  #status { font-size: .8rem; color: #6c757d; }
  #status.offline { color: #b02a2a; }
  .entries { color: #495057; font-size: .85rem; }
  /* a phone: the picture takes the whole width, so its 12-unit text is 12 px at 360 px */
  @media (max-width: 420px) {
    main { padding: 8px 0; }
    h1, h2, #status, #transfers { padding: 0 8px; }
    #sheet { border-radius: 0; }
  }
</style>
</head>
<body>
<main>
  <h1 id="title">__TITLE__</h1>
  <div id="status" role="status">загрузка…</div>
  <div id="sheet" aria-live="polite"></div>
  <h2>Расчёт</h2>
  <table id="balances"><thead><tr><th>Игрок</th><th class="num">Баланс</th></tr></thead><tbody></tbody></table>
  <div id="transfers" class="entries"></div>
  <h2>Сдачи</h2>
  <table id="deals"><thead><tr><th>№</th><th>Сдача</th><th>Записи</th></tr></thead><tbody></tbody></table>
</main>
<script>
"use strict";
const TOKEN = __TOKEN__;
const BASE = "/v1/shared/" + encodeURIComponent(TOKEN);
const POLL_MS = 2000;
let etag = null;
let names = [];

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}
function money(v) {
  const s = (Math.round(v * 100) / 100).toFixed(2).replace(/\\.00$/, "");
  return v > 0 ? "+" + s : s;
}
function who(seat) { return names[seat] !== undefined ? names[seat] : "#" + seat; }
const WORDS = {whist: "вист", pass: "пас", half_whist: "полвиста"};
function describe(d) {
  if (d.type === "allpass") return "распасы " + Object.entries(d.tricks || {}).map(([s, t]) => who(+s) + " " + t).join(", ");
  if (d.type === "misere") return "мизер " + who(d.declarer) + (d.tricks && d.tricks[d.declarer] !== undefined ? ", взял " + d.tricks[d.declarer] : "");
  if (d.type === "remise") return who(d.declarer) + " " + d.contract + " без трёх";
  let s = who(d.declarer) + " " + d.contract;
  const def = Object.entries(d.defenders || {}).map(([k, v]) => who(+k) + " " + (WORDS[v] || v));
  if (def.length) s += " (" + def.join(", ") + ")";
  if (d.tricks) s += "; взятки " + Object.entries(d.tricks).map(([k, v]) => who(+k) + " " + v).join(", ");
  return s;
}
const KINDS = {pool: "пуля", mountain: "гора", whists: "висты"};
function entries(d) {
  return (d.entries || []).map(e => who(e.seat) + ": " + (KINDS[e.kind] || e.kind) +
    (e.kind === "whists" ? " на " + who(e.on) : "") + " " + (e.amount > 0 ? "+" : "") + e.amount).join("; ");
}
function showTable(t) {
  names = t.players.map(p => p.name);
  const body = document.querySelector("#balances tbody");
  body.replaceChildren();
  for (const p of t.settlement.players) {
    const tr = el("tr");
    tr.append(el("td", p.name), el("td", money(p.balance), "num " + (p.balance > 0 ? "pos" : p.balance < 0 ? "neg" : "")));
    body.append(tr);
  }
  const tr = t.settlement.transfers.map(x => who(x.from) + " → " + who(x.to) + " " + x.amount);
  document.getElementById("transfers").textContent =
    (t.settlement.final ? "Игра окончена. " : "") + (tr.length ? "Платежи: " + tr.join("; ") : "");
}
function showDeals(deals) {
  const body = document.querySelector("#deals tbody");
  body.replaceChildren();
  for (const d of deals.slice().reverse()) {
    const tr = el("tr");
    tr.append(el("td", String(d.number), "num"), el("td", describe(d) + (d.note ? " — " + d.note : "")), el("td", entries(d), "entries"));
    body.append(tr);
  }
  document.body.dataset.dealCount = String(deals.length);
}
async function allDeals() {
  // the log page by page, following next until it is null
  let url = BASE + "/deals", out = [];
  while (url) {
    const page = await json(url);
    out = out.concat(page.items);
    url = page.next;
  }
  return out;
}
async function json(url) {
  const r = await fetch(url, {cache: "no-store"});
  if (!r.ok) throw new Error(url + ": " + r.status);
  return r.json();
}
let busy = null, again = false;
async function refresh() {
  // one refresh at a time; a change announced meanwhile refreshes once more after it
  if (busy) { again = true; return busy; }
  busy = (async () => {
    do {
      again = false;
      const headers = etag ? {"If-None-Match": etag} : {};
      const r = await fetch(BASE + "/sheet.svg", {headers, cache: "no-store"});
      if (r.status === 200) {
        const svg = await r.text();
        const [t, d] = await Promise.all([json(BASE), allDeals()]);
        showTable(t);
        showDeals(d);
        document.getElementById("sheet").innerHTML = svg;
        etag = r.headers.get("ETag");
      } else if (r.status !== 304) {
        throw new Error("status " + r.status);
      }
    } while (again);
  })();
  try { await busy; } finally { busy = null; }
}
function online(how) {
  const status = document.getElementById("status");
  status.className = "";
  status.textContent = "обновлено " + new Date().toLocaleTimeString() + (how === "poll" ? " (опрос)" : "");
}
function offline(err) {
  const status = document.getElementById("status");
  status.className = "offline";
  status.textContent = "нет связи, повторяю… (" + err + ")";
}
// The stream: each change of the table is announced at once; the page then fetches it.
const STREAM_RETRY_POLLS = 15; // while polling, the stream is tried again every 15 polls (30 s)
let polls = 0;
function stream() {
  if (!window.EventSource) return poll();
  const es = new EventSource(BASE + "/events");
  const changed = () => { document.body.dataset.live = "stream"; refresh().then(() => online("stream"), e => offline(e.message)); };
  for (const kind of ["sheet", "deal.posted", "deal.undone", "deal.corrected", "table.renamed", "table.archived"]) {
    es.addEventListener(kind, changed);
  }
  es.addEventListener("table.deleted", () => { es.close(); offline("стол удалён"); });
  es.addEventListener("stream.interrupted", () => offline("сервер потерял базу данных"));
  es.addEventListener("stream.resumed", () => online("stream"));
  es.onerror = () => {
    // the stream failed: poll with If-None-Match instead, and try the stream again later
    es.close();
    document.body.dataset.live = "poll";
    polls = 0;
    poll();
  };
}
async function poll() {
  try {
    await refresh();
    online("poll");
  } catch (err) {
    offline(err.message);
  }
  if (++polls >= STREAM_RETRY_POLLS && window.EventSource) return stream();
  setTimeout(poll, POLL_MS);
}
refresh().then(() => online("stream"), e => offline(e.message));
stream();
</script>
</body>
</html>
"""
