"use strict";
const {token: TOKEN, words: WORDS, initial: INITIAL} = PAGE_DATA;
const LOCALE = document.documentElement.lang;
const BASE = "/v1/score/" + encodeURIComponent(TOKEN);
// installable: the manifest is under the link (named here, where the token is written once)
const PAGE_PATH = "/score/" + encodeURIComponent(TOKEN);
document.head.append(Object.assign(document.createElement("link"), {rel: "manifest", href: PAGE_PATH + "/manifest.webmanifest"}));
const SUITS = {S: "♠", C: "♣", D: "♦", H: "♥"};
const KIND_WORDS = {contract: "game", misere: "misère", allpass: "all-pass", remise: "remise", close: "game closed"};
const DEFENCE_WORDS = {whist: "whist", pass: "pass", half_whist: "half-whist"};
const TALON_WORDS = {ace: "ace in the talon", marriage: "marriage in the talon", ace_king: "ace and king in the talon", two_aces: "two aces in the talon"};
const RETRY_MS = 4000;  // how often the deals kept on the phone are sent again while they wait

// The words of the page's language, with {name} parameters.
function W(msgid, params) { return say(WORDS, msgid, params); }
const numbers = new Intl.NumberFormat(LOCALE, {maximumFractionDigits: 2});
function number(v) { return numbers.format(v).replace("-", "\u2212"); }
function signed(v) { return (v > 0 ? "+" : "") + number(v); }
// one formatter each, made once (making one is the costly part, on a slow phone)
const MINUTES = new Intl.DateTimeFormat(LOCALE, {hour: "2-digit", minute: "2-digit"});
const SECONDS = new Intl.DateTimeFormat(LOCALE, {hour: "2-digit", minute: "2-digit", second: "2-digit"});
function clock(iso) { return MINUTES.format(new Date(iso)); }
function strainNode(strain) {
  const span = el("span", SUITS[strain] || W("NT"));
  if (strain === "H" || strain === "D") span.className = "red";
  return span;
}
function contractText(c) {
  const m = /^(\d+)(S|C|D|H|NT)$/.exec(c || "");
  return m ? m[1] + (SUITS[m[2]] || W("NT")) : (c || "");
}

let table = null, deals = [], etag = null, svgText = null;
let editing = null; // {number, dealer} while a recorded deal is corrected
let fixing = null;  // the key of the kept deal being fixed
let form = null;
// The outbox: each deal entered, kept on the phone (IndexedDB) until the server has it, in
// the order entered: {key (its Idempotency-Key), seq, body, number, dealer, base (the sheet's
// ETag it was entered on; null: right after the deal before it), state: pending | recorded |
// refused, problem}.
let outbox = [];
let confirmation = null; // the key of the deal just entered (its confirmation and undo by the button)

function names() { return table.players.map(p => p.name); }
function who(seat) { return names()[seat] !== undefined ? names()[seat] : "#" + seat; }
function n() { return table.players.length; }
function waiting() { return outbox.filter(e => e.state !== "recorded"); }
function context() {
  // the deal being entered: its number, who deals it, the lowest contract
  if (editing) return {number: editing.number, dealer: editing.dealer, min: 6, compulsory: false};
  const list = waiting(), a = table.sheet.allpass;
  const at = fixing ? list.findIndex(e => e.key === fixing) : list.length;
  if (at === 0 || !list.length) return {number: table.deal_count + 1, dealer: table.sheet.next_dealer, min: a.min_contract || 6, compulsory: a.compulsory};
  // after deals not yet on the sheet: the dealer passes left; the server checks the rest
  if (at > 0 && at < list.length) return {number: list[at].number, dealer: list[at].dealer, min: 6, compulsory: false};
  const last = list[list.length - 1];
  return {number: last.number + 1, dealer: (last.dealer + 1) % n(), min: 6, compulsory: false};
}
function renumber() {
  // the deals kept on the phone come after the sheet as last seen
  let number = table.deal_count + 1, dealer = table.sheet.next_dealer;
  for (const e of waiting()) { e.number = number++; e.dealer = dealer; dealer = (dealer + 1) % n(); }
}
function active(dealer) { return [...Array(n()).keys()].filter(s => n() === 3 || s !== dealer); }
function defenders(dealer, declarer) {
  const out = [];
  for (let i = 1; i < n(); i++) {
    const s = (declarer + i) % n();
    if (active(dealer).includes(s)) out.push(s);
  }
  return out;
}
function blank() {
  return {kind: null, declarer: null, level: null, strain: null, defence: {}, tricks: {}, writeoff: [], help: null,
          bonus: null, discarded: false, returned: false, over_misere: false};
}

// --- the phone's store (IndexedDB): the outbox, the draft, the last sheet seen ------------
let opened = null;
function store() {
  if (!opened) opened = new Promise(resolve => {
    if (!window.indexedDB) { resolve(null); return; }
    const req = indexedDB.open("prefscore-score", 1);
    req.onupgradeneeded = () => { req.result.createObjectStore("outbox", {keyPath: "key"}); req.result.createObjectStore("kept"); };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => resolve(null);
  });
  return opened;
}
async function stored(name, mode, work) {
  const db = await store();
  if (!db) return undefined;
  return new Promise(resolve => {
    const t = db.transaction(name, mode);
    const req = work(t.objectStore(name));
    t.oncomplete = () => resolve(req ? req.result : undefined);
    t.onerror = t.onabort = () => resolve(undefined);
  });
}
const keep = (what, value) => stored("kept", "readwrite", s => s.put(value, TOKEN + ":" + what));
const kept = what => stored("kept", "readonly", s => s.get(TOKEN + ":" + what));
const saveEntry = e => stored("outbox", "readwrite", s => s.put(Object.assign({token: TOKEN}, e)));
const forget = key => stored("outbox", "readwrite", s => s.delete(key));
async function keptOutbox() {
  const all = (await stored("outbox", "readonly", s => s.getAll())) || [];
  return all.filter(e => e.token === TOKEN).sort((a, b) => a.seq - b.seq);
}
let started = false;
let storing = false;  // a deal entered is being kept: the draft (the deal) is not yet blank
// The draft in localStorage, written before the tap's handler returns: a reload right after a
// tap keeps it, where an IndexedDB write still under way when the page goes is lost with it
// (IndexedDB when localStorage is refused).
const DRAFT = TOKEN + ":draft";
function saveDraft() {
  // at each tap: a reload (or a closed tab) right after it keeps the deal half entered
  if (!started || storing) return;  // not before the kept draft was read
  const draft = {form, fixing, editing};
  try { localStorage.setItem(DRAFT, JSON.stringify(draft)); } catch (e) { keep("draft", draft); }
}
function keptDraft() {
  try {
    const text = localStorage.getItem(DRAFT);
    if (text !== null) return Promise.resolve(JSON.parse(text));
  } catch (e) { /* refused or unreadable: the IndexedDB copy, if any */ }
  return kept("draft");
}

// --- the form ---------------------------------------------------------------------------
let focusAfter = null; // a control made anew by a draw (a check box's): focused again after it
// Taps made before the kept draft was read: made again on the draft (a tap as the page becomes
// ready is not lost to it).
let earlyTaps = [];
// The children of ``box`` by key, updated in place: a child already there is kept, so that
// the focus and a tap in progress (pressed, not yet released) stay on it when the sheet
// changes; a new one is made, one no longer wanted removed. ``items``: [key, make, update].
function keyed(box, items) {
  const have = new Map();
  for (const c of box.children) have.set(c.dataset.key, c);
  const wanted = items.map(([key, make, update]) => {
    let node = have.get(key);
    if (!node) { node = make(); node.dataset.key = key; }
    update(node);
    return node;
  });
  wanted.forEach((node, i) => { if (box.children[i] !== node) box.insertBefore(node, box.children[i] || null); });
  while (box.children.length > wanted.length) box.lastElementChild.remove();
}
// A button of the form, as a keyed item: its label (a string, or a node made from it once),
// whether it is pressed, what a tap does, its attributes (the first data- one is its key).
function option(label, pressed, onclick, attrs, extra) {
  attrs = attrs || {};
  const key = Object.entries(attrs).find(([k]) => k.startsWith("data-")).join("=");
  const text = typeof label === "string" ? label : label.text;
  const make = () => {
    const b = el("button");
    b.type = "button";
    b.addEventListener("click", () => b.tap());
    return b;
  };
  const update = (b) => {
    if (b.dataset.label !== text) {
      if (typeof label === "string") b.textContent = label; else b.replaceChildren(label.node());
      b.dataset.label = text;
    }
    const value = pressed ? "true" : "false";
    if (b.getAttribute("aria-pressed") !== value) b.setAttribute("aria-pressed", value);
    for (const [k, v] of Object.entries(attrs)) if (b.getAttribute(k) !== v) b.setAttribute(k, v);
    const disabled = !!(extra && extra.disabled);
    if (b.disabled !== disabled) b.disabled = disabled;
    for (const cls of ["strain", "implied"]) b.classList.toggle(cls, !!(extra && extra[cls]));
    b.tap = () => {
      if (!started) earlyTaps.push(onclick);
      onclick(); hideProblem(); hideConfirm(); draw();
    };
  };
  return [key, make, update];
}
function refocus() {
  if (!focusAfter) return;
  const [k, v] = focusAfter;
  focusAfter = null;
  const b = document.querySelector("[" + k + '="' + CSS.escape(v) + '"]');
  if (b && b !== document.activeElement && !b.disabled && !b.closest("[hidden]")) b.focus({preventScroll: true});
}
function whisted() { return Object.values(form.defence).includes("whist"); }
function oneWhister() {
  const answers = Object.values(form.defence);
  return answers.filter(a => a === "whist").length === 1 && answers.includes("pass");
}
function needsTricks() {
  if (form.kind === "allpass") return true;
  if (form.kind === "misere") return form.declarer !== null;
  return form.kind === "contract" && form.level !== null && whisted();
}
function trickSeats(ctx) {
  if (form.kind === "misere") return form.declarer === null ? [] : [form.declarer];
  // the declarer first, then his defenders from his left
  const seats = form.kind === "contract" ? [form.declarer, ...defenders(ctx.dealer, form.declarer)] : active(ctx.dealer);
  if (form.kind === "allpass" && table.choices.dealer_talon_tricks && n() === 4) return [...Array(4).keys()];
  return seats;
}
function topTricks(ctx, seat) { return active(ctx.dealer).includes(seat) ? 10 : table.choices.dealer_talon_tricks; }
// The counts the page fills in: the last seat's is 10 less the others'; with one whister whose
// passer's tricks only add to his (most rules), the passer is not asked.
function implied(ctx) {
  const out = {};
  if (!needsTricks() || form.kind === "misere") return out;
  const wanted = trickSeats(ctx);
  const open = wanted.filter(s => form.tricks[s] === undefined);
  const given = wanted.reduce((a, s) => a + (form.tricks[s] || 0), 0);
  const passer = form.kind === "contract" && oneWhister() && !table.choices.passer_tricks
    ? defenders(ctx.dealer, form.declarer).find(s => form.defence[s] === "pass") : undefined;
  let last = null;
  if (open.length === 1) last = open[0];
  else if (open.length === 2 && passer !== undefined && open.includes(passer)) { out[passer] = 0; last = open.find(s => s !== passer); }
  if (last !== null && 10 - given >= 0 && 10 - given <= topTricks(ctx, last)) out[last] = 10 - given;
  else for (const s of Object.keys(out)) delete out[s];
  return out;
}
function tricksOf(ctx) { return Object.assign({}, implied(ctx), form.tricks); }
function defenceChoices(ctx, seat, index) {
  // whist and pass; half-whist for the second defender of a 6 or a 7 after the first passed
  const first = defenders(ctx.dealer, form.declarer)[0];
  const out = ["whist", "pass"];
  if (table.choices.half_whist && index === 1 && form.level !== null && form.level <= 7 && form.defence[first] === "pass") out.push("half_whist");
  if (table.choices.stalingrad && form.level === 6 && form.strain === "S") return ["whist"];
  if (form.level === 10 && !table.choices.whisted_tens) return ["pass"];
  return out;
}
// A row of a seat's choices: its name, and the group of buttons it labels.
function seatRow(id, cls) {
  const row = el("div", null, "row");
  const label = el("div", null, "seat-name");
  label.id = id;
  const opts = el("div", null, cls);
  opts.setAttribute("role", "group");
  opts.setAttribute("aria-labelledby", id);
  row.append(label, opts);
  return row;
}
function setText(node, text) { if (node.textContent !== text) node.textContent = text; }
function draw() {
  const ctx = context();
  const f = document.getElementById("form");
  f.hidden = table.sheet.finished && !editing && !fixing;
  setText(document.getElementById("form-title"), editing ? W("Correct deal {n}", {n: editing.number}) : W("New deal"));
  const sitsOut = n() === 4 ? W("{name} deals and sits out", {name: who(ctx.dealer)}) : W("{name} deals", {name: who(ctx.dealer)});
  setText(document.getElementById("context"), W("Deal {n}", {n: ctx.number}) + " · " + sitsOut);
  setText(document.getElementById("submit"), editing ? W("Save the correction") : W("Record the deal"));
  document.getElementById("cancel").hidden = !editing && !fixing;

  const kinds = ctx.compulsory ? ["allpass"] : table.choices.kinds;
  // a game is the usual deal: chosen already (one tap fewer)
  if (form.kind === null) form.kind = kinds.length === 1 ? kinds[0] : (kinds.includes("contract") ? "contract" : null);
  const kindBox = document.getElementById("kinds");
  keyed(kindBox, kinds.map(k => option(W(KIND_WORDS[k]), form.kind === k, () => {
    const keep = form.declarer;
    form = blank(); form.kind = k;
    if (k !== "allpass" && k !== "close") form.declarer = keep;
  }, {"data-kind": k})));
  const kindNote = document.getElementById("kind-note");
  kindNote.hidden = form.kind !== "remise";
  setText(kindNote, form.kind === "remise" ? W("A remise: the declarer gives up the game unplayed and is written three tricks short.") : "");

  const withDeclarer = ["contract", "misere", "remise"].includes(form.kind);
  document.getElementById("declarer-row").hidden = !withDeclarer;
  const seats = active(ctx.dealer);
  if (form.declarer !== null && !seats.includes(form.declarer)) form.declarer = null;
  keyed(document.getElementById("declarers"), seats.map(s => option(who(s), form.declarer === s, () => {
    form.declarer = s; form.defence = {}; form.tricks = {};
  }, {"data-declarer": String(s)})));

  const withContract = form.kind === "contract" || form.kind === "remise";
  document.getElementById("contract-row").hidden = !withContract || form.declarer === null;
  keyed(document.getElementById("levels"), table.choices.levels.map(l => option(String(l), form.level === l,
    () => { form.level = l; form.defence = {}; form.tricks = {}; }, {"data-level": String(l)}, {disabled: l < ctx.min})));
  const levelNote = document.getElementById("level-note");
  levelNote.hidden = ctx.min <= 6;
  levelNote.textContent = ctx.min > 6 ? W("After the all-pass the lowest game is {n}; the lower levels are closed.", {n: ctx.min}) : "";
  keyed(document.getElementById("strains"), table.choices.strains.map(s => option({text: s, node: () => strainNode(s)},
    form.strain === s, () => { form.strain = s; form.defence = {}; },
    {"data-strain": s, "aria-label": s === "NT" ? W("NT") : SUITS[s]}, {strain: true})));

  const showDefence = form.kind === "contract" && form.declarer !== null && form.level !== null && form.strain !== null;
  document.getElementById("defence-row").hidden = !showDefence;
  keyed(document.getElementById("defence"), (showDefence ? defenders(ctx.dealer, form.declarer) : []).map((seat, i) => {
    const allowed = defenceChoices(ctx, seat, i);
    if (form.defence[seat] && !allowed.includes(form.defence[seat])) delete form.defence[seat];
    if (allowed.length === 1) form.defence[seat] = allowed[0];
    return ["defence-" + seat, () => seatRow("defence-" + seat, "opts"), row => {
      setText(row.firstChild, who(seat));
      keyed(row.lastChild, allowed.map(a => option(W(DEFENCE_WORDS[a]), form.defence[seat] === a, () => {
        form.defence[seat] = a;
        if (i === 0 && a !== "pass") {
          const second = defenders(ctx.dealer, form.declarer)[1];
          if (form.defence[second] === "half_whist") delete form.defence[second];
        }
      }, {"data-defence": seat + ":" + a})));
    }];
  }));
  drawTricks(ctx);
  drawExtras(ctx);
  refocus();
  saveDraft();
}
function drawTricks(ctx) {
  const showTricks = needsTricks();
  document.getElementById("tricks-row").hidden = !showTricks;
  setText(document.getElementById("tricks-label"), form.kind === "allpass" ? W("Tricks taken on the all-pass") : W("Tricks"));
  const wanted = showTricks ? trickSeats(ctx) : [];
  for (const s of Object.keys(form.tricks)) if (!wanted.includes(+s)) delete form.tricks[s];
  const filled = implied(ctx);
  const passer = form.kind === "contract" && oneWhister() && !table.choices.passer_tricks
    ? defenders(ctx.dealer, form.declarer).find(s => form.defence[s] === "pass") : undefined;
  keyed(document.getElementById("tricks"), wanted.map(seat => ["tricks-" + seat, () => seatRow("tricks-" + seat, "opts tricks"), row => {
    const sitsOut = !active(ctx.dealer).includes(seat);
    let note = sitsOut ? " — " + W("deals, sits out") : "";
    if (seat === passer) note = " — " + W("pass: counted with the whist, may be left out");
    else if (filled[seat] !== undefined) note = " — " + W("the rest: {n}", {n: filled[seat]});
    setText(row.firstChild, who(seat) + note);
    const top = topTricks(ctx, seat);
    keyed(row.lastChild, [...Array(11).keys()].map(n => option(String(n), form.tricks[seat] === n, () => { form.tricks[seat] = n; },
      {"data-tricks": seat + ":" + n, "aria-label": W("{name}, tricks: {n}", {name: who(seat), n: n})},
      {implied: form.tricks[seat] === undefined && filled[seat] === n, disabled: n > top})));
  }]));
  const all = tricksOf(ctx);
  const sum = wanted.reduce((a, s) => a + (all[s] || 0), 0);
  const sumBox = document.getElementById("sum");
  setText(sumBox, form.kind === "misere" || !wanted.length ? "" : W("{n} of 10", {n: sum}));
  sumBox.className = "sum" + (wanted.every(s => all[s] !== undefined) && sum !== 10 && form.kind !== "misere" ? " bad" : "");
}
// A check box of the extras, as a keyed item (kept in place as the buttons are).
function check(label, on, set, attr) {
  const make = () => {
    const l = el("label", null, "check");
    const box = document.createElement("input");
    box.type = "checkbox";
    box.setAttribute("data-extra", attr);
    box.addEventListener("change", () => { l.set(box.checked); focusAfter = ["data-extra", attr]; hideProblem(); draw(); });
    l.append(box, document.createTextNode(""));
    return l;
  };
  return ["extra-" + attr, make, l => {
    l.set = set;
    if (l.firstChild.checked !== on) l.firstChild.checked = on;
    if (l.lastChild.data !== label) l.lastChild.data = label;
  }];
}
// A choice of the extras (a select), as a keyed item: its options written again only when
// they change; ``choices``: [value, text].
function choice(label, cls, attr, choices, chosen, set) {
  const make = () => {
    const l = el("label", null, cls);
    const sel = document.createElement("select");
    sel.setAttribute("data-extra", attr);
    sel.addEventListener("change", () => { l.set(sel.value); saveDraft(); });
    l.append(document.createTextNode(""), sel);
    return l;
  };
  return ["extra-" + attr, make, l => {
    l.set = set;
    if (l.firstChild.data !== label + " ") l.firstChild.data = label + " ";
    const sel = l.lastChild, written = JSON.stringify(choices);
    if (sel.dataset.choices !== written) {
      sel.replaceChildren(...choices.map(([value, text]) => Object.assign(el("option", text), {value})));
      sel.dataset.choices = written;
    }
    if (sel.value !== chosen) sel.value = chosen;
  }];
}
function toggleWriteoff(seat, on) {
  form.writeoff = form.writeoff.filter(s => s !== seat);
  if (on) form.writeoff.push(seat);
}
function drawExtras(ctx) {
  // only the choices the table's rules allow, and only when they apply to this deal
  const c = table.choices, items = [];
  const tricks = tricksOf(ctx);
  const played = form.kind === "contract" && form.level !== null && form.strain !== null && defenders(ctx.dealer, form.declarer ?? 0).every(s => form.defence[s]);
  const unwhisted = played && !whisted() && !Object.values(form.defence).includes("half_whist");
  const made = played && whisted() && tricks[form.declarer] !== undefined && tricks[form.declarer] >= form.level;
  const cleanMisere = form.kind === "misere" && tricks[form.declarer] === 0;
  if (form.declarer !== null && ((c.unwhisted_writeoff && (unwhisted || cleanMisere)) || (c.made_game_writeoff && made))) {
    items.push(check(who(form.declarer) + ": " + W("write off the mountain"), form.writeoff.includes(form.declarer), v => toggleWriteoff(form.declarer, v), "writeoff:" + form.declarer));
  }
  if (form.kind === "allpass" && c.clean_writeoff) {
    for (const s of active(ctx.dealer)) if (tricks[s] === 0) {
      items.push(check(who(s) + ": " + W("write off the mountain"), form.writeoff.includes(s), v => toggleWriteoff(s, v), "writeoff:" + s));
    }
  }
  // 4 players: after pass and half-whist the dealer may whist (dealer_half_whist); the game is then played
  const [first, second] = form.kind === "contract" && form.declarer !== null ? defenders(ctx.dealer, form.declarer) : [];
  const overHalf = n() === 4 && first !== undefined && form.defence[first] === "pass" && form.defence[second] === "half_whist";
  if (c.dealer_whist && overHalf) {
    items.push(check(W("the dealer whists"), form.defence[ctx.dealer] === "whist", v => {
      if (v) form.defence[ctx.dealer] = "whist"; else delete form.defence[ctx.dealer];
    }, "dealer_whist"));
  } else if (n() === 4 && form.defence[ctx.dealer] !== undefined) {
    delete form.defence[ctx.dealer];
  }
  const withTalon = (form.kind === "contract" && played) || (form.kind === "misere" && form.declarer !== null);
  if (withTalon && c.talon_bonuses.length && (form.kind === "contract" || c.misere_talon_bonus)) {
    items.push(choice(W("Talon"), "check", "bonus", [null, ...c.talon_bonuses].map(b => [b || "", b ? W(TALON_WORDS[b]) : W("none")]),
      form.bonus || "", v => { form.bonus = v || null; }));
    if (c.talon_discard) items.push(check(W("talon discarded"), form.discarded, v => { form.discarded = v; }, "discarded"));
  }
  if (withTalon && c.return_talon) items.push(check(W("talon returned"), form.returned, v => { form.returned = v; }, "returned"));
  if (played && c.over_misere && form.level >= 9) items.push(check(W("outbid a misère"), form.over_misere, v => { form.over_misere = v; }, "over_misere"));
  // Where a game overflows the declarer's pool: the rules send the rest to the largest open
  // pool; the choice is offered only when it can go elsewhere (two open pools or more).
  const value = form.kind === "misere" ? 10 : ({6: 2, 7: 4, 8: 6, 9: 8, 10: 10})[form.level] || 0;
  const declarerMakes = form.kind === "misere" ? tricks[form.declarer] === 0 : played && (!whisted() || made);
  const overflow = form.declarer !== null && declarerMakes && table.sheet.players[form.declarer].pool + value > table.pool_target;
  const open = table.sheet.players.filter(p => p.seat !== form.declarer && p.pool < table.pool_target).map(p => p.seat);
  if (c.help && overflow && open.length > 1) {
    items.push(choice(W("The points beyond the closed pool close the pool of"), "check small", "help",
      [null, ...open].map(s => [s === null ? "" : String(s), s === null ? W("the largest open pool, as the rules say") : who(s)]),
      form.help === null ? "" : String(form.help), v => { form.help = v === "" ? null : +v; }));
  } else {
    form.help = null;
  }
  keyed(document.getElementById("extras"), items);
}
function body() {
  const ctx = context();
  const d = {type: form.kind};
  if (["contract", "misere", "remise"].includes(form.kind)) d.declarer = form.declarer;
  if (form.kind === "contract" || form.kind === "remise") d.contract = form.level !== null && form.strain ? form.level + form.strain : null;
  if (form.kind === "contract") {
    d.defenders = {};
    for (const s of defenders(ctx.dealer, form.declarer ?? 0)) if (form.defence[s]) d.defenders[s] = form.defence[s];
    if (n() === 4 && form.defence[ctx.dealer] === "whist") d.defenders[ctx.dealer] = "whist";
  }
  const tricks = tricksOf(ctx);
  if (needsTricks() && Object.keys(tricks).length) d.tricks = Object.fromEntries(Object.entries(tricks).map(([s, t]) => [String(s), t]));
  const choices = {};
  if (form.writeoff.length) choices.writeoff = form.writeoff.slice().sort();
  if (form.help !== null) choices.help = form.help;
  if (Object.keys(choices).length) d.choices = choices;
  const talon = {};
  if (form.bonus) talon.bonus = form.bonus;
  if (form.discarded) talon.discarded = true;
  if (form.returned) talon.returned = true;
  if (Object.keys(talon).length) d.talon = talon;
  if (form.over_misere) d.over_misere = true;
  if (editing) d.dealer = editing.dealer;
  return d;
}
function fromDeal(d) {
  const f = blank();
  f.kind = d.type;
  if (d.declarer !== undefined && d.declarer !== null) f.declarer = d.declarer;
  const m = /^(\d+)(S|C|D|H|NT)$/.exec(d.contract || "");
  if (m) { f.level = +m[1]; f.strain = m[2]; }
  for (const [s, a] of Object.entries(d.defenders || {})) f.defence[+s] = a;
  for (const [s, t] of Object.entries(d.tricks || {})) f.tricks[+s] = t;
  const ch = d.choices || {};
  f.writeoff = (ch.writeoff || []).slice();
  f.help = ch.help ?? null;
  const t = d.talon || {};
  f.bonus = t.bonus || null; f.discarded = !!t.discarded; f.returned = !!t.returned;
  f.over_misere = !!d.over_misere;
  return f;
}

// --- problems, in place -----------------------------------------------------------------
function hideProblem() { document.getElementById("problem").hidden = true; }
// A refusal's problem+json, with the language the service worded it in (Content-Language):
// kept with a refused deal of the outbox, so that its reasons are shown as they were said.
async function problemOf(r) {
  let problem;
  try { problem = await r.json(); } catch (e) { problem = null; }
  if (!problem || typeof problem !== "object") problem = {detail: String(r.status)};
  problem.said_in = (r.headers.get("Content-Language") || "").split("-")[0].trim().toLowerCase();
  return problem;
}
// The API's reasons in the page's words. The service words them in the language asked for
// (Accept-Language): said in the page's language, they are shown as they are; an English
// one (an older service) is translated here, and one the page has no words for is named by
// its field.
const REASONS = [
  [/^tricks add up to (\d+), not 10$/, m => W("the tricks add up to {n}, not 10", {n: m[1]})],
  [/^the lowest contract now is (\d+)/, m => W("the lowest contract now is {n}", {n: m[1]})],
  [/^no pool overflows onto that seat/, () => W("nothing goes beyond the pool in this deal: leave the choice to the rules")],
  [/^seat (\d) deals and sits this deal out/, m => W("{name} deals and sits this deal out", {name: who(+m[1])})],
  [/^6 spades is Stalingrad/, () => W("six spades is Stalingrad: both defenders whist")],
  [/^an all-pass is compulsory now/, () => W("an all-pass is compulsory now")],
  [/ is over: no more deals/, () => W("the game is over: no more deals")],
  [/^remise is not allowed/, () => W("this table has no remise")],
  [/^seat (\d) has nothing to write off/, m => W("{name} has nothing to write off in this deal", {name: who(+m[1])})],
  [/^required: (every player's|at least the declarer's|the game was whisted)/, () => W("give the tricks")],
  [/^the game was not played \(nobody whisted\)/, () => W("nobody whisted: no tricks are given")],
  [/^seat (\d) deals now, not seat (\d)/, m => W("{name} deals this deal", {name: who(+m[1])})],
];
function reason(text, saidIn) {
  if (saidIn === LOCALE) return text;
  for (const [re, say] of REASONS) {
    const m = re.exec(text);
    if (m) return say(m);
  }
  return LOCALE === "en" ? text : W("the rules of the table do not allow this");
}
function fieldName(field) {
  const [head, seat] = String(field).split(".");
  if (WORDS[head] === undefined) return W("the deal");
  return W(head) + (seat !== undefined && /^\d$/.test(seat) ? " (" + who(+seat) + ")" : "");
}
function problemNodes(lead, problem) {
  const out = [el("div", lead)];
  if (problem && problem.reason === "moved") out.push(el("div", W("Another phone recorded deals meanwhile: check this deal (its dealer may have changed) and record it again, or drop it.")));
  if (problem && problem.reason === "later_deal_invalid" && problem.deal) {
    out.push(el("div", W("The correction would make deal {n} invalid; nothing was changed.", {n: problem.deal})));
  }
  if (problem && problem.errors && problem.errors.length) {
    const ul = el("ul");
    for (const e of problem.errors) {
      const li = el("li", fieldName(e.field) + ": " + reason(e.reason, problem.said_in));
      li.title = e.reason;
      ul.append(li);
    }
    out.push(ul);
  } else if (problem && problem.detail) {
    out.push(el("div", reason(problem.detail, problem.said_in)));
  }
  return out;
}
function showProblem(lead, problem) {
  const box = document.getElementById("problem");
  box.replaceChildren(...problemNodes(lead, problem));
  box.hidden = false;
  box.scrollIntoView({block: "nearest"});
}

// --- the confirmation by the button -------------------------------------------------------
function hideConfirm() { confirmation = null; document.getElementById("confirm").hidden = true; }
function drawConfirm() {
  const box = document.getElementById("confirm");
  const e = outbox.find(x => x.key === confirmation);
  if (!e || e.state === "refused") { box.hidden = true; return; }
  box.hidden = false;
  box.className = e.state === "recorded" ? "" : "kept";
  document.getElementById("confirm-text").textContent = e.state === "recorded"
    ? W("Deal {n} recorded: {what}.", {n: e.number, what: describe(e.body, e.dealer)})
    : W("Deal {n} kept on this phone: it is sent as soon as the network allows.", {n: e.number});
}
async function undoConfirmed() {
  const e = outbox.find(x => x.key === confirmation);
  if (!e) return;
  if (e.state !== "recorded") {
    // not on the server yet: taken back from the outbox, into the form
    if (sending === e.key) return;
    await dropEntry(e.key);
    form = fromDeal(e.body);
  } else {
    const last = deals.length ? deals[deals.length - 1].deal.number : 0;
    if (e.number !== last) return;
    try {
      const r = await send("DELETE", BASE + "/deals/" + e.number);
      if (!(await answered(r, W("The deal was not recorded:")))) return;
      outbox = outbox.filter(x => x.key !== e.key);
      form = fromDeal(e.body);
      await refresh();
    } catch (err) { showProblem(W("No connection: an undo or a correction needs the network.")); return; }
  }
  hideConfirm();
  focusAfter = ["id", "submit"];
  drawAll();
  document.getElementById("submit").focus({preventScroll: true});
}

// --- the outbox -----------------------------------------------------------------------------
function dropEntry(key) {
  return underLock(async () => {
    await reread();
    const i = outbox.findIndex(e => e.key === key);
    if (i < 0) return;
    const [gone] = outbox.splice(i, 1);
    // the deal after it now follows the one before it
    const next = outbox.slice(i).find(e => e.state !== "recorded");
    if (next && next.base === null) { next.base = gone.base; await saveEntry(next); }
    if (fixing === key) fixing = null;
    await forget(key);
    tell();
  });
}

// --- one outbox for the tabs of this link ---------------------------------------------------
// The tabs open on one scorer link share the outbox kept on the phone (IndexedDB): each change
// of it is made under one lock (Web Locks), on the outbox as stored, and told to the other tabs
// (BroadcastChannel), which read it again. So two tabs offline number their deals one after
// the other, and one tab at a time sends them.
const LOCK = "prefscore-outbox:" + TOKEN;
const TABS = window.BroadcastChannel ? new BroadcastChannel(LOCK) : null;
function underLock(work, options) {
  if (!navigator.locks) return work(true);
  return navigator.locks.request(LOCK, options || {}, lock => work(lock !== null));
}
function tell() { if (TABS) TABS.postMessage("outbox"); }
async function reread() {
  // the outbox as stored; a deal this tab saw recorded stays (its confirmation by the button)
  const entries = await keptOutbox();
  const stored = new Set(entries.map(e => e.key)), known = new Map(outbox.map(e => [e.key, e]));
  outbox = outbox.filter(e => e.state === "recorded" && !stored.has(e.key))
    .concat(entries.map(e => Object.assign(known.get(e.key) || {}, e)))
    .sort((a, b) => a.seq - b.seq);
  if (fixing && !stored.has(fixing)) fixing = null;
}
if (TABS) TABS.onmessage = () => { if (started) underLock(reread).then(() => drawAll()); };
function drawOutbox() {
  const box = document.getElementById("outbox");
  const shown = outbox.filter(e => e.state !== "recorded" || e.key === confirmation);
  box.hidden = !waiting().length;
  const list = box.querySelector("ol");
  list.replaceChildren(...shown.map(e => {
    const li = el("li", null, e.state);
    li.dataset.outbox = e.state;
    li.dataset.number = String(e.number);
    const state = e.state === "recorded" ? W("recorded") : e.state === "refused" ? W("refused") : W("waiting to be sent");
    li.append(el("span", W("Deal {n}", {n: e.number}) + ": " + describe(e.body, e.dealer) + " — "), el("span", state, "state"));
    if (e.state === "refused") {
      const why = el("div");
      why.append(...problemNodes(W("The deal was not recorded:"), e.problem));
      li.append(why);
      const fix = el("button", W("Fix"));
      fix.type = "button";
      fix.setAttribute("data-fix", String(e.number));
      fix.addEventListener("click", () => {
        fixing = e.key; editing = null; form = fromDeal(e.body); hideProblem(); hideConfirm();
        drawAll();
        document.getElementById("form").scrollIntoView({block: "start"});
        document.getElementById("submit").focus({preventScroll: true});
      });
      const drop = el("button", W("Drop"));
      drop.type = "button";
      drop.className = "danger";
      drop.setAttribute("data-drop", String(e.number));
      drop.addEventListener("click", async () => { await dropEntry(e.key); drawAll(); flush(); });
      li.append(fix, drop);
    }
    return li;
  }));
  // the picture is the server's: the deals it does not have yet are named above it
  const notYet = document.getElementById("sheet-pending");
  notYet.hidden = !waiting().length;
  notYet.textContent = waiting().length ? W("Deals not yet on this sheet, by number: {list}.", {list: waiting().map(e => e.number).join(", ")}) : "";
  document.body.dataset.outbox = String(waiting().length);
  document.body.dataset.refused = String(outbox.filter(e => e.state === "refused").length);
}
function sameDeal(stored, sent) {
  // a deal another phone recorded that is this one (both phones scored it)
  const canon = v => JSON.stringify(v === undefined ? null : v, (k, x) => x && typeof x === "object" && !Array.isArray(x)
    ? Object.fromEntries(Object.keys(x).sort().map(key => [key, x[key]])) : x);
  return ["type", "declarer", "contract", "defenders", "tricks"].every(k => sent[k] === undefined || canon(stored[k]) === canon(sent[k]));
}
let sending = null, flushing = null, retryTimer = null;
async function flush() {
  // the kept deals, in order, each once (its Idempotency-Key), each on the sheet it was
  // entered on (If-Match): a refused one stops the queue until it is fixed or dropped
  if (flushing) return flushing;
  // one tab at a time: another one sending, this one tries again later (and is told meanwhile)
  flushing = underLock(held => held && sendKept(), {ifAvailable: true}).then(() => {
    clearTimeout(retryTimer);
    if (outbox.some(e => e.state === "pending")) retryTimer = setTimeout(flush, RETRY_MS);
  });
  try { await flushing; } finally { flushing = null; }
}
async function sendKept() {
  await reread();
  let recorded = 0, refused = false;
  try {
    for (const e of outbox.slice()) {
      if (closed || e.state === "refused") break;
      if (e.state === "recorded") continue;
      sending = e.key;
      let r;
      try {
        r = await fetch(BASE + "/deals", {method: "POST", cache: "no-store", body: JSON.stringify(e.body), headers: {
          "Content-Type": "application/json", "Accept-Language": LOCALE, "Idempotency-Key": e.key, "If-Match": e.base || etag || "*"}});
      } catch (err) {
        offline();
        break;
      } finally { sending = null; }
      if (r.status === 201) {
        const answer = await r.json().catch(() => null);
        e.state = "recorded";
        if (answer && answer.deal) e.number = answer.deal.number;
        await forget(e.key);
        const next = outbox.find(x => x.state !== "recorded" && x.seq > e.seq);
        if (next && next.base === null) { next.base = r.headers.get("ETag"); await saveEntry(next); }
        recorded++;
        continue;
      }
      if (r.status === 404) { gone(); break; }
      if (r.status === 429 || r.status >= 500) { offline(); break; }
      const problem = await problemOf(r);
      if (r.status === 412) {
        // the table moved on (another phone's deals): one of them may be this very deal
        const expected = e.number;
        await refresh().catch(() => undefined);
        const claimed = new Set(outbox.filter(x => x.state === "recorded").map(x => x.number));
        const twin = deals.find(d => d.deal.number >= expected && !claimed.has(d.deal.number) && sameDeal(d.deal, e.body));
        if (twin) {
          e.state = "recorded"; e.number = twin.deal.number; await forget(e.key);
          const next = outbox.find(x => x.state !== "recorded" && x.seq > e.seq);
          if (next && next.base === null) { next.base = etag; await saveEntry(next); }
          recorded++;
          continue;
        }
        e.problem = {reason: "moved"};
      } else {
        e.problem = problem;
      }
      e.state = "refused";
      refused = true;
      await saveEntry(e);
      if (confirmation === e.key && !fixing && !editing) {
        // the deal just entered: back in the form, the reason in place
        fixing = e.key; form = fromDeal(e.body); confirmation = null;
        drawAll();
        showProblem(W("The deal was not recorded:"), e.problem);
      }
      break;
    }
  } finally {
    if (recorded || refused) tell();
  }
  if (recorded) { await refresh().catch(() => offline()); }
  drawAll();
}

// --- entering a deal ----------------------------------------------------------------------
async function send(method, url, payload) {
  const headers = {"Content-Type": "application/json", "Accept-Language": LOCALE};
  if (etag) headers["If-Match"] = etag;
  return fetch(url, {method, headers, body: payload === undefined ? undefined : JSON.stringify(payload), cache: "no-store"});
}
async function answered(r, lead) {
  if (r.ok) return true;
  const problem = await problemOf(r);
  if (r.status === 404) { gone(); return false; }
  if (r.status === 412) { await refresh(); showProblem(W("The sheet changed on another phone; it is shown again. Check the deal and record it again.")); return false; }
  if (problem && problem.reason === "archived") { showProblem(W("The table is archived: it takes no deals.")); return false; }
  showProblem(lead, problem);
  return false;
}
function newKey() {
  return (window.crypto && crypto.randomUUID) ? crypto.randomUUID() : String(Date.now()) + Math.random().toString(16).slice(2);
}
async function submit(ev) {
  ev.preventDefault();
  hideProblem();
  const ctx = context();
  if (!form.kind || (["contract", "misere", "remise"].includes(form.kind) && form.declarer === null) ||
      ((form.kind === "contract" || form.kind === "remise") && (form.level === null || !form.strain))) {
    showProblem(W("Pick the kind, the declarer and the contract."));
    return;
  }
  if (form.kind === "contract" && defenders(ctx.dealer, form.declarer).some(s => !form.defence[s])) {
    showProblem(W("Every defender must say whist or pass."));
    return;
  }
  if (editing) { await correct(); return; }
  // the deal as entered, and the form ready for the next one at once: a tap made while the
  // deal is being kept goes to the next deal (the draft is kept again once the deal is)
  const entered = body(), fixed = fixing;
  storing = true;
  fixing = null;
  form = blank();
  hideConfirm();
  drawAll();
  document.getElementById("submit").focus({preventScroll: true});
  // kept on the phone first, then sent: nothing entered is lost whatever the network; on the
  // outbox as stored, under the lock (another tab's deals come first)
  const entry = await underLock(async () => {
    await reread();
    const ctx = context(), before = waiting().filter(e => e.key !== fixed);
    const entry = {key: newKey(), seq: Date.now(), body: entered, number: ctx.number, dealer: ctx.dealer,
                   base: before.length ? null : etag, state: "pending", problem: null};
    const old = fixed ? outbox.findIndex(e => e.key === fixed) : -1;
    if (old >= 0) {
      // a fixed deal takes the place of the refused one, on the sheet as it is now
      const was = outbox[old];
      entry.seq = was.seq;
      entry.base = outbox.slice(0, old).some(e => e.state !== "recorded") ? null : etag;
      outbox[old] = entry;
      await forget(was.key);
    } else {
      entry.seq = Math.max(Date.now(), ...outbox.map(e => e.seq + 1));
      outbox.push(entry);
    }
    await saveEntry(entry);
    tell();
    return entry;
  }).finally(() => { storing = false; });
  saveDraft();
  confirmation = entry.key;
  drawAll();
  await flush();
}
async function correct() {
  const button = document.getElementById("submit");
  button.disabled = true;
  try {
    const r = await send("PUT", BASE + "/deals/" + editing.number, body());
    if (await answered(r, W("The deal was not recorded:"))) {
      editing = null;
      form = blank();
      await refresh();
    }
  } catch (err) {
    showProblem(W("No connection: an undo or a correction needs the network."));
  } finally {
    button.disabled = false;
  }
}
let undoArmed = false;
async function undo() {
  if (!deals.length) return;
  const last = deals[deals.length - 1].deal.number;
  if (!undoArmed) { undoArmed = true; drawUndo(); return; }
  undoArmed = false;
  try {
    const r = await send("DELETE", BASE + "/deals/" + last);
    if (await answered(r, W("The deal was not recorded:"))) {
      if (editing && editing.number === last) { editing = null; form = blank(); }
      await refresh();
    }
  } catch (err) { drawUndo(); showProblem(W("No connection: an undo or a correction needs the network.")); }
}
function drawUndo() {
  const b = document.getElementById("undo");
  b.hidden = !deals.length;
  b.textContent = undoArmed && deals.length ? W("Undo deal {n}?", {n: deals[deals.length - 1].deal.number}) : W("Undo the last deal");
  b.setAttribute("aria-pressed", undoArmed ? "true" : "false");
}

// --- the sheet, the settlement, the log ---------------------------------------------------
function describe(d, dealer) {
  const tricks = d.tricks || {};
  if (d.type === "allpass") return W("all-pass") + ": " + Object.entries(tricks).map(([s, t]) => who(+s) + " " + t).join(", ");
  if (d.type === "close") return W("game closed");
  if (d.type === "penalty") {
    return who(d.offender) + ": " + W("penalty") + (d.clause ? " " + W("(clause {clause})", {clause: d.clause}) : "") +
      (d.reason ? ": " + d.reason : "");
  }
  if (d.type === "misere") return who(d.declarer) + " " + W("misère") + (tricks[d.declarer] !== undefined ? ", " + W("tricks: {n}", {n: tricks[d.declarer]}) : "");
  if (d.type === "remise") return who(d.declarer) + " " + contractText(d.contract) + " — " + W("remise");
  let s = who(d.declarer) + " " + contractText(d.contract);
  const def = Object.entries(d.defenders || {}).map(([k, v]) => who(+k) + " " + W(DEFENCE_WORDS[v] || v));
  if (def.length) s += " (" + def.join(", ") + ")";
  if (tricks[d.declarer] !== undefined) s += ", " + W("tricks: {n}", {n: tricks[d.declarer]});
  return s;
}
function drawTable() {
  const body = document.querySelector("#balances tbody");
  body.replaceChildren();
  for (const p of table.settlement.players) {
    const tr = el("tr");
    tr.dataset.seat = String(p.seat);
    tr.dataset.balance = p.balance_exact;
    tr.append(el("td", p.name), el("td", signed(p.balance), "num " + (p.balance > 0 ? "pos" : p.balance < 0 ? "neg" : "")));
    body.append(tr);
  }
  const transfers = table.settlement.transfers.map(x => W("{from} pays {to} {amount}", {from: who(x.from), to: who(x.to), amount: number(x.amount)}));
  // once the game is over the payments head the page instead
  document.getElementById("transfers").textContent = transfers.length && !table.sheet.finished ? W("Payments") + ": " + transfers.join("; ") : "";
  const done = document.getElementById("done");
  done.hidden = !table.sheet.finished;
  done.textContent = W("The game is over.") + (transfers.length ? " " + transfers.join("; ") : "");
  // the settlement once: a finished sheet carries the final balances, the banner the payments
  document.getElementById("settlement").hidden = table.sheet.finished;
  document.body.dataset.finished = String(table.sheet.finished);
  document.body.dataset.dealCount = String(table.deal_count);
}
function drawLog() {
  const body = document.querySelector("#log tbody");
  body.replaceChildren();
  // the deals not yet on the sheet first, marked as such
  for (const e of waiting().slice().reverse()) {
    const tr = el("tr", null, "pending " + e.state);
    tr.dataset.pending = e.state;
    const what = el("td");
    what.append(el("div", describe(e.body, e.dealer)),
      el("div", (e.state === "refused" ? W("refused") : W("not yet on the sheet")) + " · " + W("{name} deals", {name: who(e.dealer)}), "small"));
    tr.append(el("td", String(e.number), "num"), what, el("td"));
    body.append(tr);
  }
  if (!deals.length && !waiting().length) {
    const tr = el("tr");
    tr.append(el("td"), el("td", W("No deals yet."), "small"), el("td"));
    body.append(tr);
  }
  for (const item of deals.slice().reverse()) {
    const d = item.deal;
    const tr = el("tr");
    tr.dataset.number = String(d.number);
    const what = el("td");
    const penalty = d.type === "penalty";  // between deals; corrected through the API, not this form
    what.append(el("div", describe(d)), el("div", (penalty ? W("penalty") : W("{name} deals", {name: who(item.dealer)})) + (d.created_at ? " · " + clock(d.created_at) : ""), "small"));
    const fix = el("button", W("Correct"));
    fix.hidden = penalty;
    fix.type = "button";
    fix.setAttribute("data-correct", String(d.number));
    fix.setAttribute("aria-label", W("Correct deal {n}", {n: d.number}));
    fix.addEventListener("click", () => {
      editing = {number: d.number, dealer: item.dealer};
      fixing = null;
      form = fromDeal(d);
      hideProblem(); hideConfirm();
      draw();
      document.getElementById("form").scrollIntoView({block: "start"});
    });
    const cell = el("td", null, "num");
    cell.append(fix);
    tr.append(el("td", String(d.number), "num"), what, cell);
    body.append(tr);
  }
  drawUndo();
}
function drawSheet() {
  const box = document.getElementById("sheet");
  if (svgText !== null && box.dataset.drawn !== svgTag) { box.innerHTML = svgText; box.dataset.drawn = svgTag || ""; }
}
function drawAll() {
  if (form === null) form = blank();
  outbox = outbox.filter(e => e.state !== "recorded" || e.key === confirmation);
  renumber();
  drawTable();
  drawLog();
  drawOutbox();
  draw();
  drawConfirm();
}
async function json(url) {
  const r = await fetch(url, {cache: "no-store", headers: {"Accept-Language": LOCALE}});
  if (r.status === 404) { gone(); throw new Error("404"); }
  if (!r.ok) throw new Error(url + ": " + r.status);
  return r;
}
async function allDeals() {
  let url = BASE + "/deals", out = [];
  while (url) {
    const page = await (await json(url)).json();
    out = out.concat(page.items);
    url = page.next;
  }
  return out;
}
let svgTag = null, busy = null, again = false;
async function refresh() {
  // one refresh at a time; a change announced meanwhile refreshes once more after it
  if (busy) { again = true; return busy; }
  busy = (async () => {
    do {
      again = false;
      const [t, d] = await Promise.all([json(BASE), allDeals()]);
      table = await t.json();
      etag = t.headers.get("ETag");
      deals = d;
      const headers = svgTag ? {"If-None-Match": svgTag} : {};
      const r = await fetch(BASE + "/sheet.svg?lang=" + LOCALE, {headers, cache: "no-store"});
      if (r.status === 200) { svgText = await r.text(); svgTag = r.headers.get("ETag"); }
      drawSheet();
      drawAll();
      online();
      keep("sheet", {table, deals, etag, svg: svgText, svgTag, read_at: Date.now()});
    } while (again);
  })();
  try { await busy; } finally { busy = null; }
}
function online() {
  const s = document.getElementById("status");
  s.className = "";
  s.textContent = W("updated {time}", {time: SECONDS.format(new Date())});
  document.body.dataset.network = "online";
}
function offline() {
  const s = document.getElementById("status");
  s.className = "offline";
  const count = waiting().length;
  s.textContent = count
    ? W("No connection. Deals kept on this phone: {n}; they are sent as soon as the network is back.", {n: count})
    : W("No connection: deals entered are kept on this phone and sent when the network is back.");
  document.body.dataset.network = "offline";
}
let closed = false;
function gone() {
  closed = true;
  document.getElementById("form").hidden = true;
  document.getElementById("undo").hidden = true;
  const s = document.getElementById("status");
  s.className = "offline";
  s.textContent = W("This link no longer works (revoked, or the table was deleted).");
  document.body.dataset.gone = "true";
}
let source = null;
function stream() {
  // each change of the table (from this phone or another) is announced; the page reads it again
  if (!window.EventSource || closed || source) return;
  const es = source = new EventSource(BASE + "/events");
  const changed = (ev) => {
    // the stream's first event is the state just read: nothing to fetch again
    let seen = null;
    try { seen = JSON.parse(ev.data).etag; } catch (e) { seen = null; }
    if (seen && seen === etag && !busy) return;
    refresh().then(() => flush(), () => offline());
  };
  for (const kind of ["sheet", "deal.posted", "deal.undone", "deal.corrected", "table.renamed", "table.archived"]) es.addEventListener(kind, changed);
  es.addEventListener("table.deleted", () => { es.close(); gone(); });
  es.onerror = () => {
    es.close();
    source = null;
    if (closed) return;
    // the stream ended (no network, a revoked link, a restart): look again, then listen again
    setTimeout(() => refresh().then(() => { stream(); flush(); }, () => { offline(); setTimeout(stream, 5000); }), 2000);
  };
}

async function start() {
  for (const node of document.querySelectorAll("[data-w]")) node.textContent = W(node.dataset.w);
  // drawn at once from the state written into the page (the picture asked for meanwhile);
  // then the phone's own copy of the sheet (newer when the page was opened offline), the
  // outbox and the draft
  ({table, deals, etag} = INITIAL);
  const drawing = INITIAL.next === null ? picture().then(() => true, () => false) : Promise.resolve(false);
  form = blank();
  // what a phone shows first (the form, the balances), then the log in a task of its own
  renumber(); drawTable(); draw();
  document.getElementById("layout").hidden = false;
  await new Promise(resolve => setTimeout(resolve, 0));
  drawLog(); drawOutbox();
  const [copy, entries, draft] = await Promise.all([kept("sheet"), keptOutbox(), keptDraft()]);
  let fresh = true;
  if (copy && copy.read_at > INITIAL.read_at && copy.table) {
    ({table, deals, etag} = copy);
    if (svgText === null) { svgText = copy.svg; svgTag = copy.svgTag; }
    fresh = false;
  } else if (copy && copy.svg && copy.etag === INITIAL.etag && svgText === null) {
    svgText = copy.svg; svgTag = copy.svgTag;
  }
  outbox = entries;
  if (draft && draft.form) { form = draft.form; fixing = outbox.some(e => e.key === draft.fixing) ? draft.fixing : null; editing = draft.editing || null; }
  started = true;
  // a tap made meanwhile (the page was up, the draft not yet read): made again on the draft
  const tapped = earlyTaps.length > 0;
  for (const tap of earlyTaps) tap();
  earlyTaps = [];
  if (!fresh || outbox.length || tapped || (draft && draft.form && JSON.stringify(draft.form) !== JSON.stringify(blank()))) drawAll();
  drawSheet();
  window.addEventListener("online", () => { refresh().then(() => { stream(); flush(); }, () => offline()); });
  window.addEventListener("offline", () => offline());
  // a page left (or kept in the back-forward cache) lets its stream go: the browser's few
  // connections to the server are not held by pages nobody sees
  window.addEventListener("pagehide", () => { if (source) { source.close(); source = null; } });
  window.addEventListener("pageshow", (ev) => { if (ev.persisted) refresh().then(() => { stream(); flush(); }, () => offline()); });
  try {
    // the page came with the table: only the picture is read, unless the phone's copy was newer
    if (!(fresh && await drawing)) await refresh();
    online();
    stream();
  } catch (e) {
    offline();
    setTimeout(stream, 3000);
  }
  // ready: drawn, and what the network could give read (tests wait for this)
  document.body.dataset.ready = "true";
  flush();
  // installable and opened offline: the service worker, once the page is up
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register(PAGE_PATH + "/sw.js", {scope: PAGE_PATH}).catch(() => undefined);
  }
}
async function picture() {
  const headers = svgTag ? {"If-None-Match": svgTag} : {};
  const r = await fetch(BASE + "/sheet.svg?lang=" + LOCALE, {headers, cache: "no-store"});
  if (r.status === 404) { gone(); throw new Error("404"); }
  if (r.status === 200) { svgText = await r.text(); svgTag = r.headers.get("ETag"); }
  else throw new Error(String(r.status));
  drawSheet();
  keep("sheet", {table: INITIAL.table, deals: INITIAL.deals, etag: INITIAL.etag, svg: svgText, svgTag, read_at: INITIAL.read_at});
}
document.getElementById("form").addEventListener("submit", submit);
document.getElementById("cancel").addEventListener("click", async () => {
  // a fixed deal given up: it stays refused in the outbox, to fix or drop
  editing = null; fixing = null; form = blank(); hideProblem(); draw();
});
document.getElementById("undo").addEventListener("click", undo);
document.getElementById("confirm-undo").addEventListener("click", undoConfirmed);
start();
