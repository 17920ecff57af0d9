// The scoring page's service worker (app/scorer/page.py serves it at /score/{token}/sw.js,
// its scope the page itself). It keeps the last copy of the page, its manifest and its icon,
// so that the page opens without a network; the sheet and the deals not yet sent are the
// page's own (IndexedDB). The API is not cached here: the page must know when it is offline.
"use strict";
const SCOPE = new URL(self.registration.scope).pathname;  // "/score/{token}"
const CACHE = "prefscore-score-v1:" + SCOPE;
const PAGE = SCOPE;  // one copy of the page, whatever its ?lang=
const KEPT = [SCOPE + "/manifest.webmanifest", SCOPE + "/icon.svg"];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then(c => c.addAll(KEPT)).catch(() => undefined).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(self.clients.claim());
});

async function fromNetwork(request, key) {
  const cache = await caches.open(CACHE);
  try {
    const answer = await fetch(request);
    if (answer.ok) await cache.put(key, answer.clone());
    if (answer.status === 404 && key === PAGE) await cache.delete(PAGE);  // a revoked link is not kept
    return answer;
  } catch (err) {
    const kept = await cache.match(key);
    if (kept) return kept;
    throw err;
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate" && url.pathname === SCOPE) {
    event.respondWith(fromNetwork(request, PAGE));
  } else if (KEPT.includes(url.pathname)) {
    event.respondWith(fromNetwork(request, url.pathname));
  }
});
