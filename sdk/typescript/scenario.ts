// A short game through the TypeScript client generated from prefscore's /openapi.json
// (openapi-typescript for the types in ./schema.d.ts, openapi-fetch for the calls).
// tests/sdk generates schema.d.ts next to a copy of this file, type-checks it with
// `tsc --strict` and runs it against a live server:
//
//   PREFSCORE_URL=http://127.0.0.1:8000 PREFSCORE_KEY=pk_... node build/scenario.js
//
// It creates a Sochi table, posts three deals (each with an Idempotency-Key and the sheet's
// ETag in If-Match, and retries the third with the same key), reads the sheet twice (the
// second read is a 304), undoes the third deal and reads the settlement, then renames a
// player and titles the table, and lists the key's tables (again with the page's ETag: a
// 304); then a player's statistics: a registered player at a second table, one deal, their
// stats; then a short tournament: three players, one round at one table drawn with a seed,
// two deals, its standings (read again with their ETag: a 304). It prints one line per call.
import createClient from "openapi-fetch";
import type { components, operations, paths } from "./schema.js";

type DealInput = components["schemas"]["DealInput"];
type Settlement = operations["getSettlement"]["responses"][200]["content"]["application/json"];

const baseUrl = process.env.PREFSCORE_URL ?? "http://127.0.0.1:8000";
const key = process.env.PREFSCORE_KEY;
if (!key) {
  throw new Error("set PREFSCORE_KEY to an API key (prefscore keys create NAME)");
}

const api = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${key}` } });

function refused(what: string, response: Response, problem: unknown): never {
  throw new Error(`${what}: HTTP ${response.status} ${JSON.stringify(problem)}`);
}

function etagOf(what: string, response: Response): string {
  const etag = response.headers.get("ETag");
  if (etag === null) {
    throw new Error(`${what}: no ETag`);
  }
  return etag;
}

// The table: only what differs from the defaults (the first dealer is seat 0 by default).
const created = await api.POST("/v1/tables", {
  body: { players: ["Anna", "Boris", "Vera"], convention: "sochi", pool_target: 10 },
});
if (created.data === undefined) refused("createTable", created.response, created.error);
const table = created.data;
let etag = etagOf("createTable", created.response);
console.log(
  `createTable: ${created.response.status} table ${table.id}: ${table.convention} to ${table.pool_target}, ` +
    `players ${table.players.map((p) => p.name).join(",")}`,
);

const deals: DealInput[] = [
  // Boris plays 6 spades, both others pass.
  { type: "contract", declarer: 1, contract: "6S", defenders: { "0": "pass", "2": "pass" } },
  // Everybody passes.
  { type: "allpass", tricks: { "0": 2, "1": 5, "2": 3 } },
  // Anna plays 7 hearts and makes it; Boris whists (3 tricks), Vera passes.
  {
    type: "contract",
    declarer: 0,
    contract: "7H",
    defenders: { "1": "whist", "2": "pass" },
    tricks: { "0": 7, "1": 3, "2": 0 },
  },
];

async function postDeal(deal: DealInput, idempotencyKey: string, ifMatch: string) {
  return api.POST("/v1/tables/{table_id}/deals", {
    params: {
      path: { table_id: table.id },
      header: { "Idempotency-Key": idempotencyKey, "If-Match": ifMatch },
    },
    body: deal,
  });
}

let lastKey = "";
let lastIfMatch = "";
for (const [i, deal] of deals.entries()) {
  lastKey = `${table.id}-deal-${i + 1}`;
  lastIfMatch = etag;
  const posted = await postDeal(deal, lastKey, lastIfMatch);
  if (posted.data === undefined) refused("postDeal", posted.response, posted.error);
  etag = etagOf("postDeal", posted.response);
  const stored = posted.data.deal;
  console.log(
    `postDeal: ${posted.response.status} deal ${stored.number} ${stored.type}, ` +
      `${stored.entries.length} entries, replayed=${posted.response.headers.get("Idempotent-Replayed") ?? "false"}`,
  );
}

// A retry of the last post (same key, same body, same If-Match): the first answer again.
const retried = await postDeal(deals[2]!, lastKey, lastIfMatch);
if (retried.data === undefined) refused("postDeal (retry)", retried.response, retried.error);
console.log(
  `postDeal (retry): ${retried.response.status} deal ${retried.data.deal.number}, ` +
    `replayed=${retried.response.headers.get("Idempotent-Replayed") ?? "false"}`,
);

const sheetPath = { path: { table_id: table.id } };
const first = await api.GET("/v1/tables/{table_id}/sheet", { params: sheetPath });
if (first.data === undefined) refused("getSheet", first.response, first.error);
const sheet = first.data;
const sheetTag = etagOf("getSheet", first.response);
console.log(
  `getSheet: ${first.response.status} ${sheet.deal_count} deals, ` +
    sheet.players.map((p) => `${p.name} pool ${p.pool} mountain ${p.mountain}`).join(", "),
);

const again = await api.GET("/v1/tables/{table_id}/sheet", {
  params: { ...sheetPath, header: { "If-None-Match": sheetTag } },
});
console.log(`getSheet (If-None-Match): ${again.response.status}`);

const undone = await api.DELETE("/v1/tables/{table_id}/deals/{number}", {
  params: { path: { table_id: table.id, number: 3 }, header: { "If-Match": etag } },
});
if (undone.data === undefined) refused("undoDeal", undone.response, undone.error);
console.log(
  `undoDeal: ${undone.response.status} deal ${undone.data.deal.number} removed, ${undone.data.sheet.deal_count} deals left`,
);

const settled = await api.GET("/v1/tables/{table_id}/settlement", { params: sheetPath });
if (settled.data === undefined) refused("getSettlement", settled.response, settled.error);
const settlement: Settlement = settled.data;
console.log(
  `getSettlement: ${settled.response.status} final=${settlement.final}, ` +
    settlement.players.map((p) => `${p.name} ${p.balance}`).join(", ") +
    "; " +
    settlement.transfers.map((t) => `${t.from}->${t.to} ${t.amount}`).join(", "),
);

// Vera is written "Vera K." from now on; the sheet is by seat, so only the name changes.
const renamed = await api.PATCH("/v1/tables/{table_id}", {
  params: { path: { table_id: table.id } },
  body: { players: ["Anna", "Boris", "Vera K."], title: "Tuesday" },
});
if (renamed.data === undefined) refused("updateTable", renamed.response, renamed.error);
console.log(
  `updateTable: ${renamed.response.status} players ${renamed.data.players.map((p) => p.name).join(",")}, ` +
    `title ${renamed.data.title}`,
);

const listed = await api.GET("/v1/tables", {});
if (listed.data === undefined) refused("listTables", listed.response, listed.error);
const item = listed.data.items[0]!;
console.log(
  `listTables: ${listed.response.status} ${listed.data.items.length} tables, ` +
    `${item.title} with ${item.deal_count} deals, players ${item.players.map((p) => p.name).join(",")}`,
);
const unchanged = await api.GET("/v1/tables", {
  params: { header: { "If-None-Match": etagOf("listTables", listed.response) } },
});
console.log(`listTables (If-None-Match): ${unchanged.response.status}`);

// A player's statistics: Gleb, registered, at seat 0 of a new table plays 6 spades, both
// others pass.
const made = await api.POST("/v1/players", { body: { name: "Gleb" } });
if (made.data === undefined) refused("createPlayer", made.response, made.error);
const gleb = made.data;
console.log(`createPlayer: ${made.response.status} ${gleb.name}`);
const glebTable = await api.POST("/v1/tables", {
  body: { players: [{ name: "Gleb", player: gleb.id }, "Anna", "Boris"], convention: "sochi" },
});
if (glebTable.data === undefined) refused("createTable (Gleb)", glebTable.response, glebTable.error);
const glebDeal = await api.POST("/v1/tables/{table_id}/deals", {
  params: { path: { table_id: glebTable.data.id } },
  body: { type: "contract", declarer: 0, contract: "6S", defenders: { "1": "pass", "2": "pass" } },
});
if (glebDeal.data === undefined) refused("postDeal (Gleb)", glebDeal.response, glebDeal.error);
const got = await api.GET("/v1/players/{player_id}/stats", { params: { path: { player_id: gleb.id } } });
if (got.data === undefined) refused("getPlayerStats", got.response, got.error);
const stats = got.data;
console.log(
  `getPlayerStats: ${got.response.status} ${stats.player.name}: ${stats.tables} tables, ${stats.deals} deals, ` +
    stats.declared.map((d) => `${d.kind} ${d.level} made ${d.made} failed ${d.failed}`).join(", "),
);

// A short tournament: Anna, Boris and Vera, one round at one table (gambler.ru's scoring);
// the table's game ends after two deals, 6 spades by seat 0 then by seat 1, both passed.
const cup = await api.POST("/v1/tournaments", {
  body: {
    name: "Club night",
    convention: "sochi",
    rounds: 1,
    game_end: { kind: "deals", deals: 2 },
    scoring: "gambler_ru",
    entrants: ["Anna", "Boris", "Vera"],
  },
});
if (cup.data === undefined) refused("createTournament", cup.response, cup.error);
console.log(
  `createTournament: ${cup.response.status} ${cup.data.name}, ${cup.data.players.length} players, ` +
    `${cup.data.rounds_planned} rounds`,
);
const drawn = await api.POST("/v1/tournaments/{tournament_id}/rounds", {
  params: { path: { tournament_id: cup.data.id } },
  body: { seed: 5 },
});
if (drawn.data === undefined) refused("drawTournamentRound", drawn.response, drawn.error);
const played = drawn.data.rounds[drawn.data.rounds.length - 1]!;
const cupTable = played.tables[0]!;
console.log(
  `drawTournamentRound: ${drawn.response.status} round ${played.number}, ${played.tables.length} tables, ` +
    `seed ${played.seed}, scorer link ${cupTable.scorer_link?.startsWith("/score/") ? "yes" : "no"}`,
);
let lastDeal: { status: number; number: number; finished: boolean } | undefined;
for (const declarer of [0, 1]) {
  const defenders: Record<string, "pass"> = {};
  for (const seat of [0, 1, 2]) if (seat !== declarer) defenders[String(seat)] = "pass";
  const posted = await api.POST("/v1/tables/{table_id}/deals", {
    params: { path: { table_id: cupTable.table_id! } },
    body: { type: "contract", declarer, contract: "6S", defenders },
  });
  if (posted.data === undefined) refused("postDeal (tournament)", posted.response, posted.error);
  lastDeal = { status: posted.response.status, number: posted.data.deal.number, finished: posted.data.sheet.finished };
}
console.log(`postDeal (tournament): ${lastDeal!.status} deal ${lastDeal!.number}, finished=${lastDeal!.finished}`);
const standings = await api.GET("/v1/tournaments/{tournament_id}/standings", {
  params: { path: { tournament_id: cup.data.id } },
});
if (standings.data === undefined) refused("getTournamentStandings", standings.response, standings.error);
console.log(
  `getTournamentStandings: ${standings.response.status} ${standings.data.rounds_closed} of ${standings.data.rounds} rounds closed: ` +
    standings.data.items.map((row) => `${row.place}. ${row.total_exact}`).join(", "),
);
const standingsAgain = await api.GET("/v1/tournaments/{tournament_id}/standings", {
  params: {
    path: { tournament_id: cup.data.id },
    header: { "If-None-Match": etagOf("getTournamentStandings", standings.response) },
  },
});
console.log(`getTournamentStandings (If-None-Match): ${standingsAgain.response.status}`);
