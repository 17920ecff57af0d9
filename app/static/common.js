// What the score, shared and tournament pages' scripts share (each page loads this first).
// A page's values come in a JSON block written by the server (no inline script runs: the
// pages' policy allows scripts from this server only).
"use strict";
const PAGE_DATA = JSON.parse(document.getElementById("page-data").textContent);

// A word of the page's language (``words``: msgid → text), its {name} parameters filled in.
function say(words, msgid, params) {
  let text = words[msgid] !== undefined ? words[msgid] : msgid;
  for (const [k, v] of Object.entries(params || {})) text = text.split("{" + k + "}").join(String(v));
  return text;
}
function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}
