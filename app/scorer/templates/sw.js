// The scoring page's service worker (app/scorer/page.py serves it at /score/{token}/sw.js,
// its scope the page itself). It keeps the last copy of the page, its manifest and its icon,
// and the page's scripts, styles and icons (ASSETS and VERSION, written above this line by
// the server: content-hashed names, kept as they are), so that the page opens without a
// network; the sheet and the deals not yet sent are the page's own (IndexedDB). The API is
// not cached here: the page must know when it is offline.
"use strict";
const SCOPE = new URL(self.registration.scope).pathname;  // "/score/{token}"
const CACHE = "prefscore-score-" + VERSION + ":" + SCOPE;
const PAGE = SCOPE;  // one copy of the page, whatever its ?lang=
const KEPT = [SCOPE + "/manifest.webmanifest", SCOPE + "/icon.svg"];

async function keepFirstCopies() {
  // the page as the phone opened it (its language), so that it opens offline from the start
  const cache = await caches.open(CACHE);
  await cache.addAll(ASSETS).catch(() => undefined);
  await cache.addAll(KEPT).catch(() => undefined);
  const pages = await self.clients.matchAll({type: "window", includeUncontrolled: true});
  const page = pages.map(c => new URL(c.url)).find(u => u.pathname === SCOPE);
  const answer = await fetch(page ? page.href : SCOPE, {cache: "no-store"}).catch(() => null);
  if (answer && answer.ok) await cache.put(PAGE, answer);
}

self.addEventListener("install", (event) => {
  event.waitUntil(keepFirstCopies().catch(() => undefined).then(() => self.skipWaiting()));
});

async function dropOldCopies() {
  // the copies kept by an earlier version of this worker (older scripts and styles)
  for (const name of await caches.keys()) if (name.endsWith(":" + SCOPE) && name !== CACHE) await caches.delete(name);
}

self.addEventListener("activate", (event) => {
  event.waitUntil(dropOldCopies().catch(() => undefined).then(() => self.clients.claim()));
});

async function kept(request) {
  // a static file: its name changes with its content, so a copy kept is always right
  const cache = await caches.open(CACHE);
  const copy = await cache.match(request);
  if (copy) return copy;
  const answer = await fetch(request);
  if (answer.ok) await cache.put(request, answer.clone());
  return answer;
}

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
  } else if (ASSETS.includes(url.pathname)) {
    event.respondWith(kept(request));
  } else if (KEPT.includes(url.pathname)) {
    event.respondWith(fromNetwork(request, url.pathname));
  }
});
