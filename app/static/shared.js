"use strict";
const CONFIG = PAGE_DATA;
const W = CONFIG.words;
const BASE = "/v1/shared/" + encodeURIComponent(CONFIG.token);
const POLL_MS = 2000;
const WIDE = window.matchMedia("(min-width: 680px)");
let etag = null;
let names = [];

function t(msgid, params) { return say(W, msgid, params); }
function layout() { return WIDE.matches ? "wide" : "phone"; }
function query() { return "?lang=" + CONFIG.lang + "&layout=" + layout(); }
// Numbers the language's way: the sheet's "7½", else two decimals when not whole (as Babel
// writes them on the server: "−6,66" in Russian, "−6.66" in English).
function number(v, grouped = true) {
  const abs = Math.abs(v), whole = Math.floor(abs + 1e-9), rest = abs - whole;
  let [int, frac] = rest < 0.005 ? [String(whole), ""] : abs.toFixed(2).split(".");
  if (grouped) int = int.replace(/\B(?=(\d{3})+(?!\d))/g, CONFIG.group);
  return (v < -0.0049 ? "\u2212" : "") + int + (frac ? CONFIG.decimal + frac : "");
}
// a value as the sheet writes it: halves as ½, no thousands grouping
function written(v) {
  const abs = Math.abs(v), whole = Math.floor(abs), rest = abs - whole;
  if (Math.abs(rest - 0.5) < 1e-9) return (v < 0 ? "\u2212" : "") + (whole ? whole : "") + "\u00bd";
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
  const m = /^(\d+)(NT|[SCDH])$/.exec(c || "");
  if (!m) return c || "";
  return m[1] + (m[2] === "NT" ? t("NT") : CONFIG.suits[m[2]]);
}
function trickList(tricks) {
  return Object.entries(tricks || {}).map(([s, n]) => who(+s) + " " + n).join(", ");
}
function describe(d) {
  if (d.type === "allpass") return t("all-pass") + ": " + trickList(d.tricks);
  if (d.type === "close") return t("game closed");
  if (d.type === "penalty") {
    return who(d.offender) + ": " + t("penalty") + (d.clause ? " " + t("(clause {clause})", {clause: d.clause}) : "") +
      (d.reason ? ": " + d.reason : "");
  }
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
  return (d.entries || []).map(e => who(e.seat) + ": " + t({apart: "kept apart"}[e.kind] || e.kind) +
    (e.kind === "whists" ? " " + t("on {name}", {name: who(e.on)}) : "") + " " + signedWritten(e.amount)).join("; ");
}
function showTable(tb) {
  names = tb.players.map(p => p.name);
  const s = tb.settlement;
  const transfers = s.transfers.map(x => who(x.from) + " \u2192 " + who(x.to) + " " + number(x.amount));
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
    const what = el("td", describe(d) + (d.note ? " \u2014 " + d.note : ""));
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
        // shown whole once drawn: nothing on screen moves when the picture arrives
        document.getElementById("columns").hidden = false;
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
