"""The share page ``/shared/{token}``: the paper sheet, the balances and the deal log for
people at the table, in their language (``?lang=``, else ``Accept-Language``), kept up to
date while it is open; no key is needed and nothing can be changed from it.

Plain HTML with a small inline script, no front-end build, mobile-first: on a phone the
picture takes the width (its phone layout, 360 units) with the balances and the log below;
from 680 px on, the wide picture (640 units) at its own size, and from 1000 px on the
balances and the log beside it. It stays live through the share link's event stream (an EventSource): each change
is pushed at once and the page then fetches the picture (with ``If-None-Match``), the
balances and, of the log, only what the change made stale (after a post, the deals after the
last it has: ``?after=``); a correction, a gap in the events or a poll fetches the log again.
When the stream fails it polls ``sheet.svg`` every 2 s with
``If-None-Match`` and tries the stream again now and then.

Every word is in the catalogues: the page's own are written here by the server, the
script's are handed to it as JSON (``lang.words``), with the language's number symbols and
its time pattern from Babel, so that times are 24-hour in Russian.
"""

from __future__ import annotations

import json
import re
import secrets

from babel.dates import get_time_format
from babel.numbers import get_decimal_symbol, get_group_symbol
from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from app.kit.i18n import LANGUAGES, N_, Lang
from app.kit.i18n.game_words import DEFENCE, ENTRY_KINDS, NO_TRUMPS, SUIT_SYMBOLS, UNDERTRICKS
from app.sharing.pictures import shared_picture

from app.kit.deps import DB
from app.kit.lang import PageLang, language_headers

router = APIRouter()

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
    picture = shared_picture(db, token, current=lambda _t: True)  # 404 for an unknown token
    nonce = secrets.token_urlsafe(16)
    return HTMLResponse(
        page_html(token, list(picture.table.players), lang).replace("<script>", f'<script nonce="{nonce}">', 1),
        headers={
            "Cache-Control": "no-cache",
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer",
            "Content-Security-Policy": page_policy(nonce),
            **language_headers(lang),
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


def _js(value: object) -> str:
    # json.dumps, then "<" escaped: no value can end the script element.
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c")


def page_html(token: str, names: list[str], lang: Lang) -> str:
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
    current = ' aria-current="true"'
    switch = " ".join(
        f'<a href="?lang={code}"{current if code == lang.code else ""}>{code.upper()}</a>' for code in LANGUAGES
    )
    values = {
        "__CONFIG__": _js(config),
        "__LANG__": lang.code,
        "__TITLE__": _html_escape(lang._("Pulka: {names}", names=", ".join(names))),
        "__LOADING__": _html_escape(lang._("loading…")),
        "__SWITCH__": switch,
        "__LANGUAGE__": _html_escape(lang._("Language")),
        "__SETTLEMENT__": _html_escape(lang._("If the game ended now")),
        "__PLAYER__": _html_escape(lang._("Player")),
        "__BALANCE__": _html_escape(lang._("Balance")),
        "__DEALS__": _html_escape(lang._("Deals")),
        "__NUMBER__": _html_escape(lang._("No.")),
        "__DEAL__": _html_escape(lang._("Deal")),
        "__PICTURE__": _html_escape(lang._("The sheet")),
    }
    # One pass over the template: substituted text (a player named "__CONFIG__") is never
    # scanned again.
    return _PLACEHOLDER.sub(lambda m: values[m.group(0)], PAGE)


_PLACEHOLDER = re.compile(r"__[A-Z]+__")


PAGE = """<!doctype html>
<html lang="__LANG__">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title>
<style>
  body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; background: #f4f1ea; color: #14213d; }
  main { margin: 0 auto; padding: 0 0 12px; }
  header { display: flex; flex-wrap: wrap; align-items: baseline; justify-content: space-between; gap: 4px 12px; padding: 8px; }
  h1 { font-size: 1.1rem; margin: 0; overflow-wrap: anywhere; }
  h2 { font-size: 1rem; margin: 16px 8px 6px; }
  nav a { color: #1d3557; margin-left: 6px; }
  nav a[aria-current] { font-weight: bold; text-decoration: none; }
  #sheet { background: #fff; }
  /* the phone picture fills a phone, and is not blown up on a larger screen */
  #sheet svg { display: block; width: 100%; max-width: 480px; height: auto; margin: 0 auto; }
  @media (min-width: 680px) {
    #sheet { max-width: 640px; margin: 0 auto; }
    #sheet svg { max-width: 640px; }
  }
  table { border-collapse: collapse; width: 100%; background: #fff; font-size: .95rem; }
  th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #e3ddd0; vertical-align: top; overflow-wrap: anywhere; }
  td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
  .pos { color: #2a7d2a; } .neg { color: #b02a2a; }
  #status { font-size: .8rem; color: #6c757d; padding: 0 8px 6px; }
  #status.offline { color: #b02a2a; }
  #transfers { padding: 6px 8px; font-size: .9rem; }
  .entries { color: #495057; font-size: .85rem; margin-top: 2px; }
  .time { color: #6c757d; font-size: .8rem; white-space: nowrap; }
  [hidden] { display: none !important; }
  /* a desktop: the wide picture at its own size, the balances and the log beside it */
  @media (min-width: 1000px) {
    main { max-width: 1280px; padding: 12px 16px; }
    .columns { display: grid; grid-template-columns: 640px minmax(0, 1fr); gap: 20px; align-items: start; }
    #sheet { margin: 0; border-radius: 6px; box-shadow: 0 1px 3px rgba(0,0,0,.15); overflow: hidden; }
    aside h2:first-child { margin-top: 0; }
    aside { max-height: calc(100vh - 90px); overflow: auto; position: sticky; top: 12px; }
  }
</style>
</head>
<body>
<main>
  <header><h1 id="title">__TITLE__</h1><nav aria-label="__LANGUAGE__">__SWITCH__</nav></header>
  <div id="status" role="status">__LOADING__</div>
  <div class="columns">
    <div id="sheet" aria-live="polite" aria-label="__PICTURE__"></div>
    <aside>
      <h2 id="settlement-title">__SETTLEMENT__</h2>
      <table id="balances"><thead><tr><th>__PLAYER__</th><th class="num">__BALANCE__</th></tr></thead><tbody></tbody></table>
      <div id="transfers" class="entries"></div>
      <h2>__DEALS__</h2>
      <table id="deals"><thead><tr><th class="num">__NUMBER__</th><th>__DEAL__</th></tr></thead><tbody></tbody></table>
    </aside>
  </div>
</main>
<script>
"use strict";
const CONFIG = __CONFIG__;
const W = CONFIG.words;
const BASE = "/v1/shared/" + encodeURIComponent(CONFIG.token);
const POLL_MS = 2000;
const WIDE = window.matchMedia("(min-width: 680px)");
let etag = null;
let names = [];

function t(msgid, params) {
  let s = W[msgid] !== undefined ? W[msgid] : msgid;
  for (const [k, v] of Object.entries(params || {})) s = s.split("{" + k + "}").join(String(v));
  return s;
}
function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}
function layout() { return WIDE.matches ? "wide" : "phone"; }
function query() { return "?lang=" + CONFIG.lang + "&layout=" + layout(); }
// Numbers the language's way: the sheet's "7½", else two decimals when not whole (as Babel
// writes them on the server: "−6,66" in Russian, "−6.66" in English).
function number(v, grouped = true) {
  const abs = Math.abs(v), whole = Math.floor(abs + 1e-9), rest = abs - whole;
  let [int, frac] = rest < 0.005 ? [String(whole), ""] : abs.toFixed(2).split(".");
  if (grouped) int = int.replace(/\\B(?=(\\d{3})+(?!\\d))/g, CONFIG.group);
  return (v < -0.0049 ? "\\u2212" : "") + int + (frac ? CONFIG.decimal + frac : "");
}
// a value as the sheet writes it: halves as ½, no thousands grouping
function written(v) {
  const abs = Math.abs(v), whole = Math.floor(abs), rest = abs - whole;
  if (Math.abs(rest - 0.5) < 1e-9) return (v < 0 ? "\\u2212" : "") + (whole ? whole : "") + "\\u00bd";
  return number(v, false);
}
function signed(v) { return (v > 0.0049 ? "+" : "") + number(v); }
function signedWritten(v) { return (v > 0 ? "+" : "") + written(v); }
// Times in the language's pattern, from Babel ("HH:mm:ss" in Russian: 24 hours).
function clock(date) {
  const pad = n => String(n).padStart(2, "0"), h = date.getHours();
  const parts = {HH: pad(h), H: String(h), hh: pad(h % 12 || 12), h: String(h % 12 || 12),
                 mm: pad(date.getMinutes()), ss: pad(date.getSeconds()), a: h < 12 ? "AM" : "PM"};
  return CONFIG.time.replace(/HH|H|hh|h|mm|ss|a/g, m => parts[m]);
}
function who(seat) { return names[seat] !== undefined ? names[seat] : "#" + seat; }
function contract(c) {
  const m = /^(\\d+)(NT|[SCDH])$/.exec(c || "");
  if (!m) return c || "";
  return m[1] + (m[2] === "NT" ? t("NT") : CONFIG.suits[m[2]]);
}
function trickList(tricks) {
  return Object.entries(tricks || {}).map(([s, n]) => who(+s) + " " + n).join(", ");
}
function describe(d) {
  if (d.type === "allpass") return t("all-pass") + ": " + trickList(d.tricks);
  if (d.type === "close") return t("game closed");
  if (d.type === "misere") {
    const took = d.tricks && d.tricks[d.declarer];
    return who(d.declarer) + " " + t("misère") + (took !== undefined ? ", " + t("took {n}", {n: took}) : "");
  }
  if (d.type === "remise") return who(d.declarer) + " " + contract(d.contract) + ", " + t("remise") + " (" + CONFIG.undertricks["3"] + ")";
  let s = who(d.declarer) + " " + contract(d.contract);
  const def = Object.entries(d.defenders || {}).map(([k, v]) => who(+k) + " " + t({whist: "whist", pass: "pass", half_whist: "half-whist"}[v] || v));
  if (def.length) s += " (" + def.join(", ") + ")";
  if (d.tricks && d.tricks[d.declarer] !== undefined) {
    const level = parseInt(d.contract, 10), took = d.tricks[d.declarer];
    s += ": " + (took >= level ? t("made") : (CONFIG.undertricks[String(level - took)] || String(level - took)));
    s += "; " + t("tricks: {list}", {list: trickList(d.tricks)});
  }
  return s;
}
function entries(d) {
  return (d.entries || []).map(e => who(e.seat) + ": " + t(e.kind) +
    (e.kind === "whists" ? " " + t("on {name}", {name: who(e.on)}) : "") + " " + signedWritten(e.amount)).join("; ");
}
function showTable(tb) {
  names = tb.players.map(p => p.name);
  const s = tb.settlement;
  const transfers = s.transfers.map(x => who(x.from) + " \\u2192 " + who(x.to) + " " + number(x.amount));
  // once finished, the picture shows the final balances: here only who pays whom
  document.getElementById("balances").hidden = s.final;
  document.getElementById("settlement-title").textContent = s.final ? t("Final payments") : t("If the game ended now");
  const body = document.querySelector("#balances tbody");
  body.replaceChildren();
  for (const p of s.players) {
    const tr = el("tr");
    tr.append(el("td", p.name), el("td", signed(p.balance), "num " + (p.balance > 0 ? "pos" : p.balance < 0 ? "neg" : "")));
    body.append(tr);
  }
  document.getElementById("transfers").textContent =
    transfers.length ? (s.final ? "" : t("Payments") + ": ") + transfers.join("; ") : t("nobody pays");
  document.body.dataset.finished = String(s.final);
}
function showDeals(deals) {
  const body = document.querySelector("#deals tbody");
  body.replaceChildren();
  for (const d of deals.slice().reverse()) {
    const tr = el("tr");
    const when = d.created_at ? el("div", clock(new Date(d.created_at)), "time") : null;
    // what was played, then what it wrote (one column: a phone has no room for two)
    const what = el("td", describe(d) + (d.note ? " \\u2014 " + d.note : ""));
    what.append(el("div", entries(d), "entries"));
    if (when) what.append(when);
    tr.append(el("td", String(d.number), "num"), what);
    body.append(tr);
  }
  document.body.dataset.dealCount = String(deals.length);
}
// The log as last fetched, and what a change made stale: the deals numbered above ``stale``
// are fetched again (after=, following next), the others kept. An event that follows the
// last one says what changed (a post: its deal; an undo: nothing to fetch; a rename: no
// deal); a gap, a correction, or a change of the sheet no event described (a poll) makes the
// whole log stale.
let deals = [], dealsTag = null, lastRev = null, stale = 0;
function mark(low) { stale = Math.min(stale, low); }
function heard(ev) {
  told = true;
  let data = null;
  try { data = JSON.parse(ev.data); } catch (e) { data = null; }
  if (!data) return mark(0);
  const follows = lastRev !== null && data.revision === lastRev + 1;
  lastRev = data.revision;
  if (data.etag && data.etag === dealsTag) return;  // the log as fetched is this version
  const count = data.sheet ? data.sheet.deal_count : null;
  if (!follows || typeof count !== "number") return mark(0);
  if (ev.type === "deal.posted") mark(count - 1);
  else if (ev.type === "deal.undone") mark(count);
  else if (ev.type !== "table.renamed" && ev.type !== "table.archived") mark(0);
}
async function syncDeals() {
  let low = stale;
  if (low === Infinity) return false;
  if (low > deals.length) low = 0;
  stale = Infinity;
  let url = BASE + "/deals" + (low > 0 ? "?after=" + low : ""), fresh = [], tag = null;
  try {
    while (url) {
      const r = await fetch(url, {cache: "no-store"});
      if (!r.ok) throw new Error(url + ": " + r.status);
      tag = tag || r.headers.get("ETag");
      const page = await r.json();
      fresh = fresh.concat(page.items);
      url = page.next;
    }
  } catch (err) { mark(low); throw err; }
  deals = deals.filter(d => d.number <= low).concat(fresh);
  dealsTag = tag;
  return true;
}
async function json(url) {
  const r = await fetch(url, {cache: "no-store"});
  if (!r.ok) throw new Error(url + ": " + r.status);
  return r.json();
}
// whether an event described the changes since the last refresh (``heard``)
let busy = null, again = false, told = false;
async function refresh() {
  // one refresh at a time; a change announced meanwhile refreshes once more after it
  if (busy) { again = true; return busy; }
  busy = (async () => {
    do {
      again = false;
      const headers = etag ? {"If-None-Match": etag} : {};
      const r = await fetch(BASE + "/sheet.svg" + query(), {headers, cache: "no-store"});
      if (r.status === 200) {
        const svg = await r.text();
        if (!told) mark(0);  // a change no event described (a poll, or one made meanwhile)
        told = false;
        const [tb] = await Promise.all([json(BASE), syncDeals()]);
        showTable(tb);
        showDeals(deals);
        document.getElementById("sheet").innerHTML = svg;
        document.body.dataset.layout = layout();
        etag = r.headers.get("ETag");
      } else if (r.status !== 304) {
        throw new Error("status " + r.status);
      } else {
        told = false;
        if (await syncDeals()) showDeals(deals);
      }
    } while (again);
  })();
  try { await busy; } finally { busy = null; }
}
function online(how) {
  const status = document.getElementById("status");
  status.className = "";
  status.textContent = t("updated {time}", {time: clock(new Date())}) + (how === "poll" ? " " + t("(polling)") : "");
}
function offline(err) {
  const status = document.getElementById("status");
  status.className = "offline";
  status.textContent = t("no connection, retrying… ({error})", {error: err});
}
// a phone turned sideways or a window made wider: the other layout's picture
WIDE.addEventListener("change", () => { etag = null; refresh().catch(e => offline(e.message)); });
// The stream: each change of the table is announced at once; the page then fetches it.
const STREAM_RETRY_POLLS = 15; // while polling, the stream is tried again every 15 polls (30 s)
let polls = 0, source = null;
// a page left (or kept in the back-forward cache) lets its stream go: a browser holds only
// a few connections to one server
window.addEventListener("pagehide", () => { if (source) source.close(); });
window.addEventListener("pageshow", e => { if (e.persisted) { etag = null; lastRev = null; mark(0); first(); stream(); } });
function stream() {
  if (!window.EventSource) return poll();
  const es = source = new EventSource(BASE + "/events");
  const changed = ev => { heard(ev); document.body.dataset.live = "stream"; refresh().then(() => online("stream"), e => offline(e.message)); };
  for (const kind of ["sheet", "deal.posted", "deal.undone", "deal.corrected", "table.renamed", "table.archived"]) {
    es.addEventListener(kind, changed);
  }
  es.addEventListener("table.deleted", () => { es.close(); offline(t("the table was deleted")); });
  es.addEventListener("stream.interrupted", () => offline(t("the server lost its database")));
  es.addEventListener("stream.resumed", () => online("stream"));
  es.onerror = () => {
    // the stream failed: poll with If-None-Match instead, and try the stream again later
    es.close();
    document.body.dataset.live = "poll";
    lastRev = null;
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
// the first load is tried again until it works (a network that changed under the page)
function first() { refresh().then(() => online("stream"), e => { offline(e.message); setTimeout(first, POLL_MS); }); }
first();
stream();
</script>
</body>
</html>
"""
