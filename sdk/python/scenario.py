"""A short game through the Python client generated from prefscore's /openapi.json with
openapi-python-client (package ``prefscore_client``; tests/sdk generates it and runs this
against a live server):

    PREFSCORE_URL=http://127.0.0.1:8000 PREFSCORE_KEY=pk_... python scenario.py

It creates a Sochi table, posts three deals (each with an Idempotency-Key and the sheet's ETag
in If-Match, and retries the third with the same key), reads the sheet twice (the second read
is a 304), undoes the third deal and reads the settlement, then renames a player and titles
the table, and lists the key's tables (again with the page's ETag: a 304); then a player's
statistics: a registered player at a second table, one deal, their stats; then a rated table
of three registered players played to the end (its settlement shows their new ratings) and
the leaderboard read two players a page; then a short tournament: three players, one round at
one table drawn with a seed, two deals, its standings (read again with their ETag: a 304). It
prints one line per call.
"""

from __future__ import annotations

import os
import sys
from typing import Any, NoReturn
from urllib.parse import parse_qs, urlsplit

from prefscore_client import AuthenticatedClient
from prefscore_client.api.deals import post_deal, undo_deal
from prefscore_client.api.players import create_player, get_player_stats
from prefscore_client.api.ratings import get_leaderboard
from prefscore_client.api.tables import create_table, get_settlement, get_sheet, list_tables, update_table
from prefscore_client.api.tournaments import (
    create_tournament,
    draw_tournament_round,
    get_tournament_standings,
)
from prefscore_client.models import (
    AllpassDeal,
    AllpassDealTricks,
    ContractDeal,
    ContractDealDefenders,
    ContractDealTricks,
    DealWithSheet,
    DrawIn,
    GameEndIn,
    LeaderboardOut,
    MisereDeal,
    MisereDealTricks,
    PlayerCreate,
    PlayerStatsOut,
    RegisteredPlayer,
    SeatIn,
    SettlementOut,
    Sheet,
    StandingsOut,
    TableCreate,
    TableList,
    TableOut,
    TablePatch,
    TournamentCreate,
    TournamentOut,
)
from prefscore_client.types import Response


def refused(what: str, response: Response[Any]) -> NoReturn:
    sys.exit(f"{what}: HTTP {int(response.status_code)} {response.content.decode(errors='replace')}")


def etag_of(what: str, response: Response[Any]) -> str:
    etag = response.headers.get("ETag")
    if etag is None:
        sys.exit(f"{what}: no ETag")
    return etag


def replayed(response: Response[Any]) -> str:
    return response.headers.get("Idempotent-Replayed", "false")


def main() -> None:
    key = os.environ.get("PREFSCORE_KEY")
    if not key:
        sys.exit("set PREFSCORE_KEY to an API key (prefscore keys create NAME)")
    client = AuthenticatedClient(base_url=os.environ.get("PREFSCORE_URL", "http://127.0.0.1:8000"), token=key)

    # The table: only what differs from the defaults (the first dealer is seat 0 by default).
    created = create_table.sync_detailed(
        client=client, body=TableCreate(players=["Anna", "Boris", "Vera"], convention="sochi", pool_target=10)
    )
    if not isinstance(created.parsed, TableOut):
        refused("createTable", created)
    table = created.parsed
    etag = etag_of("createTable", created)
    names = ",".join(p.name for p in table.players)
    print(
        f"createTable: {created.status_code.value} table {table.id}: {table.convention} to {table.pool_target}, players {names}"
    )

    deals = [
        # Boris plays 6 spades, both others pass.
        ContractDeal(
            declarer=1, contract="6S", defenders=ContractDealDefenders.from_dict({"0": "pass", "2": "pass"})
        ),
        # Everybody passes.
        AllpassDeal(tricks=AllpassDealTricks.from_dict({"0": 2, "1": 5, "2": 3})),
        # Anna plays 7 hearts and makes it; Boris whists (3 tricks), Vera passes.
        ContractDeal(
            declarer=0,
            contract="7H",
            defenders=ContractDealDefenders.from_dict({"1": "whist", "2": "pass"}),
            tricks=ContractDealTricks.from_dict({"0": 7, "1": 3, "2": 0}),
        ),
    ]
    last_key = last_if_match = ""
    for i, deal in enumerate(deals, start=1):
        last_key, last_if_match = f"{table.id}-deal-{i}", etag
        posted = post_deal.sync_detailed(
            table.id, client=client, body=deal, idempotency_key=last_key, if_match=last_if_match
        )
        if not isinstance(posted.parsed, DealWithSheet):
            refused("postDeal", posted)
        etag = etag_of("postDeal", posted)
        stored = posted.parsed.deal
        print(
            f"postDeal: {posted.status_code.value} deal {stored.number} {stored.type_}, "
            f"{len(stored.entries)} entries, replayed={replayed(posted)}"
        )

    # A retry of the last post (same key, same body, same If-Match): the first answer again.
    retried = post_deal.sync_detailed(
        table.id, client=client, body=deals[-1], idempotency_key=last_key, if_match=last_if_match
    )
    if not isinstance(retried.parsed, DealWithSheet):
        refused("postDeal (retry)", retried)
    print(
        f"postDeal (retry): {retried.status_code.value} deal {retried.parsed.deal.number}, replayed={replayed(retried)}"
    )

    first = get_sheet.sync_detailed(table.id, client=client)
    if not isinstance(first.parsed, Sheet):
        refused("getSheet", first)
    sheet = first.parsed
    players = ", ".join(f"{p.name} pool {p.pool} mountain {p.mountain}" for p in sheet.players)
    print(f"getSheet: {first.status_code.value} {sheet.deal_count} deals, {players}")

    again = get_sheet.sync_detailed(table.id, client=client, if_none_match=etag_of("getSheet", first))
    print(f"getSheet (If-None-Match): {again.status_code.value}")

    undone = undo_deal.sync_detailed(table.id, 3, client=client, if_match=etag)
    if not isinstance(undone.parsed, DealWithSheet):
        refused("undoDeal", undone)
    print(
        f"undoDeal: {undone.status_code.value} deal {undone.parsed.deal.number} removed, "
        f"{undone.parsed.sheet.deal_count} deals left"
    )

    settled = get_settlement.sync_detailed(table.id, client=client)
    if not isinstance(settled.parsed, SettlementOut):
        refused("getSettlement", settled)
    settlement = settled.parsed
    balances = ", ".join(f"{p.name} {p.balance}" for p in settlement.players)
    transfers = ", ".join(f"{t.from_}->{t.to} {t.amount}" for t in settlement.transfers)
    print(
        f"getSettlement: {settled.status_code.value} final={str(settlement.final).lower()}, {balances}; {transfers}"
    )

    # Vera is written "Vera K." from now on; the sheet is by seat, so only the name changes.
    renamed = update_table.sync_detailed(
        table.id, client=client, body=TablePatch(players=["Anna", "Boris", "Vera K."], title="Tuesday")
    )
    if not isinstance(renamed.parsed, TableOut):
        refused("updateTable", renamed)
    names = ",".join(p.name for p in renamed.parsed.players)
    print(f"updateTable: {renamed.status_code.value} players {names}, title {renamed.parsed.title}")

    listed = list_tables.sync_detailed(client=client)
    if not isinstance(listed.parsed, TableList):
        refused("listTables", listed)
    item = listed.parsed.items[0]
    print(
        f"listTables: {listed.status_code.value} {len(listed.parsed.items)} tables, "
        f"{item.title} with {item.deal_count} deals, players {','.join(p.name for p in item.players)}"
    )
    unchanged = list_tables.sync_detailed(client=client, if_none_match=etag_of("listTables", listed))
    print(f"listTables (If-None-Match): {unchanged.status_code.value}")

    gleb = player_stats(client)
    leaderboard(client, gleb)
    tournament(client)


def leaderboard(client: AuthenticatedClient, gleb: RegisteredPlayer) -> None:
    """Gleb, Iva and Lev at a rated Sochi table to 4, the README's pulka: Lev first (+50),
    Gleb second (-12), Iva third (-38); then the leaderboard, two players a page."""
    seats: list[SeatIn | str] = [SeatIn(name="Gleb", player=gleb.id)]
    for name in ("Iva", "Lev"):
        made = create_player.sync_detailed(client=client, body=PlayerCreate(name=name))
        if not isinstance(made.parsed, RegisteredPlayer):
            refused("createPlayer", made)
        print(f"createPlayer: {made.status_code.value} {made.parsed.name}")
        seats.append(SeatIn(name=name, player=made.parsed.id))
    created = create_table.sync_detailed(
        client=client, body=TableCreate(players=seats, convention="sochi", pool_target=4, rated=True)
    )
    if not isinstance(created.parsed, TableOut):
        refused("createTable (rated)", created)
    table = created.parsed
    print(f"createTable (rated): {created.status_code.value} rated={str(table.rated).lower()}")
    pulka = [
        ContractDeal(
            declarer=1, contract="6S", defenders=ContractDealDefenders.from_dict({"0": "pass", "2": "pass"})
        ),
        AllpassDeal(tricks=AllpassDealTricks.from_dict({"0": 2, "1": 5, "2": 3})),
        ContractDeal(
            declarer=0,
            contract="7H",
            defenders=ContractDealDefenders.from_dict({"1": "whist", "2": "pass"}),
            tricks=ContractDealTricks.from_dict({"0": 7, "1": 3, "2": 0}),
        ),
        MisereDeal(declarer=2, tricks=MisereDealTricks.from_dict({"2": 0})),
    ]
    for deal in pulka:
        posted = post_deal.sync_detailed(table.id, client=client, body=deal)
        if not isinstance(posted.parsed, DealWithSheet):
            refused("postDeal (rated)", posted)
    settled = get_settlement.sync_detailed(table.id, client=client)
    if not isinstance(settled.parsed, SettlementOut) or not isinstance(settled.parsed.rating, list):
        refused("getSettlement (rated)", settled)
    names = {p.seat: p.name for p in settled.parsed.players}
    moved = ", ".join(f"{names[r.seat]} {r.before.mu:.2f}->{r.after.mu:.2f}" for r in settled.parsed.rating)
    print(
        f"getSettlement (rated): {settled.status_code.value} final={str(settled.parsed.final).lower()}, {moved}"
    )
    after: str | None = None
    for page in ("", " (next)"):
        board = get_leaderboard.sync_detailed(client=client, limit=2, **({"after": after} if after else {}))
        if not isinstance(board.parsed, LeaderboardOut):
            refused(f"getLeaderboard{page}", board)
        standings = ", ".join(f"{s.name} {s.rating.ordinal:.2f}" for s in board.parsed.items)
        nxt = board.parsed.next_
        print(f"getLeaderboard{page}: {board.status_code.value} {standings}, {'more' if nxt else 'last'}")
        if not nxt:
            break
        after = parse_qs(urlsplit(nxt).query)["after"][0]


def player_stats(client: AuthenticatedClient) -> RegisteredPlayer:
    """A registered player at a new table: Gleb (seat 0) plays 6 spades, both others pass."""
    made = create_player.sync_detailed(client=client, body=PlayerCreate(name="Gleb"))
    if not isinstance(made.parsed, RegisteredPlayer):
        refused("createPlayer", made)
    gleb = made.parsed
    print(f"createPlayer: {made.status_code.value} {gleb.name}")
    seats: list[SeatIn | str] = [SeatIn(name="Gleb", player=gleb.id), "Anna", "Boris"]
    table = create_table.sync_detailed(client=client, body=TableCreate(players=seats, convention="sochi"))
    if not isinstance(table.parsed, TableOut):
        refused("createTable (Gleb)", table)
    deal = ContractDeal(
        declarer=0, contract="6S", defenders=ContractDealDefenders.from_dict({"1": "pass", "2": "pass"})
    )
    posted = post_deal.sync_detailed(table.parsed.id, client=client, body=deal)
    if not isinstance(posted.parsed, DealWithSheet):
        refused("postDeal (Gleb)", posted)
    got = get_player_stats.sync_detailed(gleb.id, client=client)
    if not isinstance(got.parsed, PlayerStatsOut):
        refused("getPlayerStats", got)
    stats = got.parsed
    games = ", ".join(f"{d.kind} {d.level} made {d.made} failed {d.failed}" for d in stats.declared)
    print(
        f"getPlayerStats: {got.status_code.value} {stats.player.name}: {stats.tables} tables, {stats.deals} deals, {games}"
    )
    return gleb


def tournament(client: AuthenticatedClient) -> None:
    """A short tournament: Anna, Boris and Vera, one round at one table (gambler.ru's
    scoring); the table's game ends after two deals, 6 spades by seat 0 then by seat 1, both
    passed by the others."""
    made = create_tournament.sync_detailed(
        client=client,
        body=TournamentCreate(
            name="Club night",
            convention="sochi",
            rounds=1,
            game_end=GameEndIn(kind="deals", deals=2),
            scoring="gambler_ru",
            entrants=["Anna", "Boris", "Vera"],
        ),
    )
    if not isinstance(made.parsed, TournamentOut):
        refused("createTournament", made)
    t = made.parsed
    print(
        f"createTournament: {made.status_code.value} {t.name}, {len(t.players)} players, {t.rounds_planned} rounds"
    )
    drawn = draw_tournament_round.sync_detailed(t.id, client=client, body=DrawIn(seed=5))
    if not isinstance(drawn.parsed, TournamentOut):
        refused("drawTournamentRound", drawn)
    played = drawn.parsed.rounds[-1]
    table = played.tables[0]
    link = "yes" if isinstance(table.scorer_link, str) and table.scorer_link.startswith("/score/") else "no"
    print(
        f"drawTournamentRound: {drawn.status_code.value} round {played.number}, {len(played.tables)} tables, seed {played.seed}, scorer link {link}"
    )
    posted = None
    for declarer in (0, 1):
        others = {str(s): "pass" for s in range(3) if s != declarer}
        deal = ContractDeal(
            declarer=declarer, contract="6S", defenders=ContractDealDefenders.from_dict(others)
        )
        posted = post_deal.sync_detailed(str(table.table_id), client=client, body=deal)
        if not isinstance(posted.parsed, DealWithSheet):
            refused("postDeal (tournament)", posted)
    assert posted is not None and isinstance(posted.parsed, DealWithSheet)
    print(
        f"postDeal (tournament): {posted.status_code.value} deal {posted.parsed.deal.number}, finished={str(posted.parsed.sheet.finished).lower()}"
    )
    got = get_tournament_standings.sync_detailed(t.id, client=client)
    if not isinstance(got.parsed, StandingsOut):
        refused("getTournamentStandings", got)
    rows = ", ".join(f"{row.place}. {row.total_exact}" for row in got.parsed.items)
    print(
        f"getTournamentStandings: {got.status_code.value} {got.parsed.rounds_closed} of {got.parsed.rounds} rounds closed: {rows}"
    )
    again = get_tournament_standings.sync_detailed(
        t.id, client=client, if_none_match=etag_of("getTournamentStandings", got)
    )
    print(f"getTournamentStandings (If-None-Match): {again.status_code.value}")


if __name__ == "__main__":
    main()
