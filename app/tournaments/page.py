"""The public tournament page ``/tournament/{token}`` (the tournament's share link): the
standings (places, totals, each round's score, the director's adjustments with their
reasons), the current round's tables with the links of their live sheets (``/shared/…``),
and the round history; in the language asked for (``?lang=``, else ``Accept-Language``), no
key needed, nothing changed from it.

Written by the server whole (the template ``templates/tournament.html``; app/kit/pages.py:
Jinja2, autoescaped; its script and styles static files, app/static/), so that it reads
without a script.
The script keeps it current cheaply: it listens to the event streams of the current round's
tables (their share links', at most ``LIVE_TABLES_MAX`` of them: a browser holds only a few
connections to one server) and, after a deal is posted, undone or corrected at one of them,
fetches the page again and puts its new content in place. It listens as well to the
tournament's own stream (``/v1/shared/{token}/tournament/events``): a round drawn or closed,
an adjustment. Only while some table playing is beyond those it listens to does it ask the
share link's view once a minute with ``If-None-Match`` (a 304 while nothing changed). A
button fetches the page at once. An unknown token is answered with the page's own 404 (HTML, in the page's language)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from app.kit.built import Built
from app.kit.deps import DB
from app.kit.errors import NotFound
from app.kit.i18n import LANGUAGES, N_, Lang
from app.kit.lang import PageLang
from app.kit.pages import built_page, built_page_response, page_response, template
from app.tournaments import service as svc
from app.tournaments.model import CLOSED, REOPENED, PlayedTable, Round, Tournament

router = APIRouter()
PAGE = template("app.tournaments/tournament.html")

# The current round's tables whose streams the page listens to; beyond, the minute's check
# (a browser keeps about six connections to one server over HTTP/1.1: these, the tournament's
# own stream, and one for the page's fetches).
LIVE_TABLES_MAX = 4
HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
# The pages written, by share token and language: once per version of the tournament's view
# (app/tournaments/service.py public_view), bounded by number and size; answered as written
# (app/kit/pages.py built_page_response: its scripts are static files, no nonce to fill in).
_PAGES: Built[bytes] = Built(64, max_bytes=32 * 1024 * 1024, weigh=len)

SCRIPT_WORDS = [
    N_("updated {time}"),
    N_("no connection, retrying… ({error})"),
]


@router.get("/tournament/{token}", include_in_schema=False, response_class=HTMLResponse)
def tournament_page(token: str, db: DB, lang: PageLang) -> HTMLResponse:
    try:
        view = svc.public_view(db, token)
    except NotFound:
        response = page_response(
            PAGE, lang, cache_control="no-cache", headers=HEADERS, **missing_values(lang)
        )
        response.status_code = 404
        return response
    body = _PAGES.get_or_build(
        (token, lang.code), view.built_at, lambda: built_page(PAGE, **page_values(token, view, lang))
    )
    return built_page_response(body, lang, cache_control="no-cache", headers=HEADERS)


# --- what the template writes ---------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    """A score as written: its text, and its sign for the colour (and the tests: exact)."""

    text: str
    exact: str
    sign: int


@dataclass(frozen=True)
class Row:
    place: int
    shared: bool  # a place shared with a player tied on everything
    name: str
    number: int
    rounds: tuple[tuple[Cell | None, bool], ...]  # per round: the score (None: absent), a bye
    adjustment: Cell | None
    total: Cell
    withdrawn: bool


@dataclass(frozen=True)
class Seat:
    name: str
    balance: Cell | None  # a finished table's
    score: Cell | None  # the round score it gives
    chance: str | None = None  # the chance to finish first, as a percentage (a rated table's)
    chance_exact: str | None = None  # the model's float as written (repr), for the tests


@dataclass(frozen=True)
class TableView:
    number: int
    state: str  # the words: playing, finished, locked
    deals: str
    seats: tuple[Seat, ...]
    sheet: str | None  # the live sheet's page
    stream: str | None  # its event stream
    chances: bool = False  # its seats have a chance to finish first (a column of its own)


@dataclass(frozen=True)
class RoundView:
    number: int
    heading: str
    state: str
    tables: tuple[TableView, ...]
    byes: tuple[str, ...]


def _cell(lang: Lang, value: Fraction, *, signed: bool = False, coloured: bool = True) -> Cell:
    """``value`` written exactly as far as a tenth goes (points: "2.5"), else to two decimals
    (whists: "6.67"); ``signed``: "+" before a positive; ``coloured``: its sign shown in colour
    (whists won or lost, not points, which are never negative)."""
    digits = 0 if value.denominator == 1 else 1 if 10 % value.denominator == 0 else 2
    text = lang.number(value, digits)
    if signed and value > 0:
        text = "+" + text
    return Cell(text, str(value), ((value > 0) - (value < 0)) if coloured else 0)


def _chance(lang: Lang, chance: float | None) -> tuple[str | None, str | None]:
    """A chance as a whole percentage, rounded for the eye only (the model's float is kept)."""
    if chance is None:
        return None, None
    return lang._("{percent}%", percent=lang.number(Decimal(chance) * 100, 0)), repr(chance)


def _round_state(lang: Lang, r: Round) -> str:
    if r.status == CLOSED:
        return lang._("closed")
    if r.status == REOPENED:
        return lang._("reopened for a correction")
    return lang._("being played")


def _tables(
    lang: Lang, view: svc.PublicView, r: Round, played: tuple[PlayedTable, ...], scores: dict[int, list]
) -> tuple[TableView, ...]:
    names = view.tournament.names()
    current_round = view.current is not None and r.number == view.current.number
    out = []
    for p in played:
        chances = view.chances.get(p.at.number) if current_round else None
        if p.locked:
            state = lang._("locked")
        elif p.finished:
            state = lang._("game over")
        else:
            state = lang._("playing")
        seats = []
        for i, n in enumerate(p.at.seats):
            balance = (
                _cell(lang, p.balances[i], signed=True)
                if p.balances is not None and i < len(p.balances)
                else None
            )
            score = (
                scores.get(n, [])[r.number - 1]
                if balance is not None and r.number <= len(scores.get(n, []))
                else None
            )
            chance = chances[i] if chances is not None and i < len(chances) else None
            seats.append(Seat(names.get(n, f"#{n}"), balance, score, *_chance(lang, chance)))
        current = current_round and not p.locked
        out.append(
            TableView(
                number=p.at.number,
                state=state,
                deals=lang.ngettext("{n} deal", "{n} deals", p.deal_count)
                if p.share_token is not None
                else "",
                seats=tuple(seats),
                sheet=view.share_link(p),
                stream=view.live_link(p) if current and not p.finished else None,
                chances=chances is not None,
            )
        )
    return tuple(out)


def _rows(
    lang: Lang, view: svc.PublicView
) -> tuple[tuple[Row, ...], dict[int, list], list[tuple[str, str, str]]]:
    """The standings' rows, each player's round scores (by entrant, for the tables), and the
    adjustments as (player, amount, reason)."""
    t = view.tournament
    names = t.names()
    byes = {r.number: set(r.byes) for r in t.rounds}
    withdrawn = {e.number for e in t.entrants if e.withdrawn_round is not None}
    places = [s.place for s in view.standings.rows]
    whists = t.scoring.kind == "whists"
    rows, scores, adjustments = [], {}, []
    for s in view.standings.rows:
        number = int(s.player)
        cells = [None if v is None else _cell(lang, v, coloured=whists) for v in s.rounds]
        scores[number] = cells
        adjusted = sum((a.amount for a in s.adjustments), Fraction(0))
        for a in s.adjustments:
            amount = _cell(lang, a.amount, signed=True).text
            where = lang._("round {n}", n=a.round) if a.round is not None else ""
            adjustments.append(
                (names.get(number, s.player), amount + (f" ({where})" if where else ""), a.reason)
            )
        rows.append(
            Row(
                place=s.place,
                shared=places.count(s.place) > 1,
                name=names.get(number, s.player),
                number=number,
                rounds=tuple((c, i + 1 in byes and number in byes[i + 1]) for i, c in enumerate(cells)),
                adjustment=_cell(lang, adjusted, signed=True) if s.adjustments else None,
                total=_cell(lang, s.total, coloured=whists),
                withdrawn=number in withdrawn,
            )
        )
    return tuple(rows), scores, adjustments


def _penalties(lang: Lang, view: svc.PublicView, names: dict[int, str]) -> list[tuple[str, str, str]]:
    """The judges' penalties standing at the tables, as (where, whom and what, clause and
    reason): "round 2, table 1", "Boris: 10 to the mountain", "clause 10.3: lead out of turn"."""
    out = []
    for p in view.penalties:
        where = lang._("round {round}, table {table}", round=p["round"], table=p["table"])
        amount = str(p["amount"])
        what = {
            "whists": lang._("{amount} whists from each other player", amount=amount),
            "apart": lang._("{amount} kept apart", amount=amount),
        }.get(p["to"] or "", lang._("{amount} to the mountain", amount=amount))
        name = names.get(p["entrant"], f"#{p['entrant']}") if p["entrant"] is not None else "?"
        why = p["reason"] or ""
        if p["clause"]:
            why = lang._("(clause {clause})", clause=p["clause"]) + (": " + why if why else "")
        out.append((where, f"{name}: {what}", why))
    return out


def page_values(token: str, view: svc.PublicView, lang: Lang) -> dict[str, object]:
    t = view.tournament
    rows, scores, adjustments = _rows(lang, view)
    names = t.names()
    rounds = []
    for r, played in view.history:
        rounds.append(
            RoundView(
                number=r.number,
                heading=lang._("Round {n} of {planned}", n=r.number, planned=t.rounds_planned),
                state=_round_state(lang, r),
                tables=_tables(lang, view, r, played, scores),
                byes=tuple(names.get(n, f"#{n}") for n in r.byes),
            )
        )
    current, history = (rounds[0], rounds[1:]) if rounds else (None, [])
    playing = [tb.stream for tb in (current.tables if current else ()) if tb.stream]
    streams = playing[:LIVE_TABLES_MAX]
    return {
        "found": True,
        "lang": lang.code,
        "languages": LANGUAGES,
        "title": t.name,
        "config": {
            "token": token,
            "lang": lang.code,
            "words": lang.words(SCRIPT_WORDS),
            "etag": view.etag,
        },
        "streams": streams,
        "revision": t.revision,
        "unfollowed": len(playing) - len(streams),  # tables playing whose streams the page does not hold
        "summary": _summary(lang, t),
        "rows": rows,
        "round_numbers": list(range(1, view.standings.rounds + 1)),
        "adjustments": adjustments,
        "penalties": _penalties(lang, view, names),
        "current": current,
        "history": history,
        "words": _words(lang, view),
    }


def _summary(lang: Lang, t: Tournament) -> str:
    """The tournament in a line: its players, the rounds drawn, how it is scored."""
    preset = t.scoring_stored.get("preset")
    scoring = {
        "whists": lang._("by whists"),
        "gambler_ru": lang._("by whists, capped as gambler.ru caps them"),
        "playelephant_lt": lang._("by whists, capped as playelephant.lt caps them"),
        "places": lang._("by places at the table"),
    }.get(
        preset or "", lang._("by whists") if t.scoring.kind == "whists" else lang._("by places at the table")
    )
    return lang._(
        "{players} · rounds drawn: {rounds} of {planned} · scoring {scoring}",
        players=lang.ngettext("{n} player", "{n} players", len(t.entrants)),
        rounds=len(t.rounds),
        planned=t.rounds_planned,
        scoring=scoring,
    )


def _words(lang: Lang, view: svc.PublicView) -> dict[str, str]:
    """The page's words in the reader's language."""
    t = view.tournament
    unit = lang._("in whists") if t.scoring.kind == "whists" else lang._("in points")
    return {
        "language": lang._("Language"),
        "refresh": lang._("Refresh"),
        "standings": lang._("Standings"),
        "standings_caption": lang.ngettext(
            "Standings after {n} round, {unit}",
            "Standings after {n} rounds, {unit}",
            view.standings.rounds,
            unit=unit,
        ),
        "place": lang._("Place"),
        "player": lang._("Player"),
        "round_short": lang._("R{n}"),
        "round_n": lang._("round {n}"),
        "adjustment": lang._("Adj."),
        "adjustment_long": lang._("Adjustments"),
        "penalties": lang._("Penalties"),
        "total": lang._("Total"),
        "bye": lang._("bye"),
        "withdrawn": lang._("withdrawn"),
        "no_rounds": lang._("No round has been drawn yet."),
        # the tournament over (its planned rounds drawn, the last closed): its last round
        "current_round": lang._("Last round")
        if view.current is not None and view.current.locked and len(t.rounds) >= t.rounds_planned
        else lang._("Current round"),
        "history": lang._("Round history"),
        "table": lang._("Table {n}"),
        "table_column": lang._("Table"),
        "balance": lang._("Balance"),
        "score": lang._("Round score"),
        "chance": lang._("Chance"),
        "chance_long": lang._("The chance to finish first at the table, from the players' ratings before it"),
        "sheet": lang._("Live sheet of table {n}"),
        "sheet_short": lang._("Live sheet"),
        "byes": lang._("Sitting out (bye):"),
    }


def missing_values(lang: Lang) -> dict[str, object]:
    return {
        "found": False,
        "lang": lang.code,
        "languages": LANGUAGES,
        "title": lang._("No such tournament"),
        "words": {
            "language": lang._("Language"),
            "missing": lang._(
                "This tournament link does not work: it is mistyped, or the organiser has replaced it. Ask them for the new one."
            ),
        },
    }
