"use strict";
const CONFIG = PAGE_DATA;
const W = CONFIG.words;
const status = document.getElementById("status");
let sources = [], streamed = "", timer = null, standings = null, again = null;

function t(msgid, params) { return say(W, msgid, params); }
function online() {
  status.className = "";
  status.textContent = t("updated {time}", {time: new Date().toLocaleTimeString(CONFIG.lang)});
}
function offline(error) {
  status.className = "offline";
  status.textContent = t("no connection, retrying… ({error})", {error: error});
}
// The page again from the server, its content put in place (the server writes every word;
// the parsed page's scripts do not run).
async function reload() {
  const r = await fetch(location.pathname + "?lang=" + CONFIG.lang, {cache: "no-store"});
  if (!r.ok) throw new Error(String(r.status));
  const doc = new DOMParser().parseFromString(await r.text(), "text/html");
  const fresh = doc.getElementById("content");
  if (!fresh) throw new Error("?");
  const open = new Set(Array.from(document.querySelectorAll("details[open]")).map(d => d.dataset.historyRound));
  const content = document.getElementById("content");
  content.replaceWith(fresh);
  for (const d of fresh.querySelectorAll("details")) d.open = open.has(d.dataset.historyRound) || (open.size === 0 && d === fresh.querySelector("details"));
  document.body.dataset.etag = fresh.dataset.etag;
  listen();
}
function update() {
  reload().then(online, e => offline(e.message));
}
// A change at a table: the page is fetched again once the burst is over.
function soon() { clearTimeout(timer); timer = setTimeout(update, 300); }
function listen() {
  const wanted = document.getElementById("content").dataset.streams;
  if (wanted === streamed || !window.EventSource) return;
  for (const s of sources) s.close();
  streamed = wanted;
  sources = JSON.parse(wanted).map(url => {
    const es = new EventSource(url);
    // "sheet" is a stream's first event (the table as the page has it: skipped), and later
    // several changes seen at once, or the table after the stream resumed
    let first = true;
    es.addEventListener("sheet", () => { if (!first) soon(); first = false; });
    for (const kind of ["deal.posted", "deal.undone", "deal.corrected", "stream.resumed"]) {
      es.addEventListener(kind, () => { first = false; soon(); });
    }
    return es;
  });
}
// The share link's own stream: each change of the standings that no table's stream tells (a
// round drawn or closed, an adjustment), its id the tournament's revision. Its first event is
// the revision now: the page is fetched again only for one newer than the page shows. A link
// replaced answers 404 and the browser gives up: tried again in a minute.
function follow() {
  if (!window.EventSource || standings) return;
  const es = standings = new EventSource("/v1/shared/" + encodeURIComponent(CONFIG.token) + "/tournament/events");
  es.addEventListener("tournament.standings", e => {
    if (Number(e.lastEventId) > Number(document.getElementById("content").dataset.revision)) soon();
    else online();
  });
  // (re)connected: a reconnect whose Last-Event-ID is the revision now gets no first event
  es.addEventListener("open", online);
  es.addEventListener("stream.interrupted", () => offline("stream"));
  es.addEventListener("stream.resumed", online);
  es.onerror = () => {
    offline("stream");
    if (es.readyState === EventSource.CLOSED) {
      unfollow();
      again = setTimeout(follow, 60000);
    }
  };
}
function unfollow() {
  clearTimeout(again);
  if (standings) standings.close();
  standings = null;
}
// Once a minute, and only while a table playing is beyond the streams the page holds: the
// share link's view, asked with its version (a 304 while nothing changed).
async function check() {
  if (document.getElementById("content").dataset.unfollowed === "0") return;
  try {
    const r = await fetch("/v1/shared/" + encodeURIComponent(CONFIG.token) + "/tournament",
                          {headers: {"If-None-Match": document.body.dataset.etag}, cache: "no-store"});
    if (r.status === 200 && r.headers.get("ETag") !== document.body.dataset.etag) await reload();
    else if (r.status !== 304 && r.status !== 200) throw new Error(String(r.status));
    online();
  } catch (e) {
    offline(e.message);
  }
}
document.getElementById("refresh").addEventListener("click", update);
window.addEventListener("pagehide", () => { for (const s of sources) s.close(); sources = []; streamed = ""; unfollow(); });
window.addEventListener("pageshow", e => { if (e.persisted) { update(); follow(); } });
document.body.dataset.etag = CONFIG.etag;
listen();
follow();
setInterval(check, 60000);
online();
document.body.dataset.ready = "true";
