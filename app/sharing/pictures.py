"""The pictures of a table (sheet.svg and .png, by key, share link or scorer link): the table
read with its whole deal log in one read transaction, the picture's ETag, and the picture
from the cache or drawn (app/sharing/drawing.py) from the engine's objects.

When the caller already has the current version (its ETag), or the picture of this version
is drawn already (``Pictures.cache``), the log is not read at all, so that a page polling for
changes costs one indexed row read per poll and a table is drawn once per revision.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from app.deals.model import DealInfo, deal_info
from app.deals.service import stored_log
from app.kit import etags
from app.kit.db import Database
from app.kit.i18n import Lang
from app.kit.versions import Seen, still_held
from app.render import Played
from app.rules import exact_sheet, settle
from app.sharing.drawing import DrawnSvg, Pictures, sheet_drawing
from app.tables.model import TableInfo, loaded
from app.tables.orm import TableRow
from app.tables.service import load_row, shared_row


@dataclass(frozen=True)
class Picture:
    table: TableInfo
    deals: tuple[DealInfo, ...] | None  # None when the caller's version is current
    games: tuple[int | None, ...] | None = None  # piter_races: the game each deal was played in (as stored)


def _picture(session: Session, row: TableRow, current: Callable[[TableInfo], bool]) -> Picture:
    table = loaded(row)
    if current(table):
        return Picture(table, None)
    rows = stored_log(session, row.id)
    deals = tuple(deal_info(r) for r in rows)
    # a match's pools and mountains start again in each game: the game each deal is stored with
    games = tuple(r.game for r in rows) if table.rules.convention.races else None
    return Picture(table, deals, games)


@dataclass(frozen=True)
class SheetAddress:
    """Which table's sheet: the owner's table (``owner``, ``table_id``) or a share link's (``token``)."""

    owner: str | None = None
    table_id: str | None = None
    token: str | None = None


@dataclass(frozen=True)
class SheetImage:
    """A picture asked for: its ETag, and its bytes (None: the viewer has it, If-None-Match)."""

    etag: str
    body: bytes | None


def drawing_of(picture: Picture, layout: str) -> dict[str, Any]:
    """The arguments of ``app.render.draw_sheet`` for a table with its log (but the
    language): the engine's sheet and the names, each deal's entries and game, the engine's
    settlement. Engine objects, exact amounts, sent as they are to a drawing worker."""
    table = picture.table
    games = picture.games
    deals = picture.deals or ()
    history = [
        Played(d.entries, games[i] if games else None, d.body.get("type") == "penalty")
        for i, d in enumerate(deals)
    ]
    settlement = settle(table.rules, table.state, None)
    drawing = {
        "sheet": exact_sheet(table.rules, table.state),
        "names": tuple(table.players),
        "history": history,
        "settlement": settlement,
        "pool_target": table.pool_target,
        "layout": layout,
        "convention": table.rules.preset,
    }
    penalties = penalties_of(deals)
    if penalties:
        drawing["penalties"] = penalties
    return drawing


def penalties_of(deals: Sequence[DealInfo]) -> list[dict[str, Any]]:
    """The judge's penalties of a log as a picture and the pages list them (docs/rules.md
    §15): number, offender, amount, where it went (the kind of entry it wrote), clause, reason."""
    out = []
    for d in deals:
        body = d.body
        if body.get("type") != "penalty":
            continue
        to = d.entries[0].kind if d.entries else body.get("destination")
        out.append(
            {
                "number": d.number,
                "offender": body["offender"],
                "amount": body.get("amount"),
                "to": to,
                "violation": body.get("violation"),
                "clause": body.get("clause"),
                "reason": body.get("reason"),
            }
        )
    return out


def picture_svg(picture: Picture, lang: Lang, layout: str) -> DrawnSvg:
    """The SVG of a table with its log, drawn here (a short table's)."""
    return DrawnSvg.of(sheet_drawing(drawing_of(picture, layout), lang))


def shared_picture(db: Database, token: str) -> Picture:
    """The share link's table with its whole log, as a picture draws it."""
    with db.read() as session:
        return _picture(session, shared_row(session, token), lambda _table: False)


def sheet_picture(
    db: Database,
    pictures: Pictures,
    of: SheetAddress,
    *,
    fmt: str,
    lang: Lang,
    layout: str,
    seen: Seen | None,
) -> SheetImage:
    """The picture ``fmt`` ("svg" or "png") of a sheet in a language and a layout, drawn once
    per revision (a long table's and every PNG in a worker process). ``seen``: the versions the
    viewer has (If-None-Match); when one is this version's, or the picture is drawn already,
    the deal log is not read. Raises DrawingBusy (every worker busy, too slow) and Conflict (a table
    too long to draw)."""
    found: dict[str, Any] = {}

    def tag(table: TableInfo) -> str:
        return etags.picture_etag(table.etag, fmt, lang.code, layout)

    def current(table: TableInfo) -> bool:
        etag = tag(table)
        if still_held(seen, etag):
            return True
        done = pictures.cache.get(etag)
        if done is not None:
            found[etag] = done
        return done is not None

    with db.read() as session:
        if of.token is not None:
            row = shared_row(session, of.token)
        else:
            assert of.owner is not None and of.table_id is not None  # the owner's table
            row = load_row(session, of.owner, of.table_id, lock=False)
        picture = _picture(session, row, current)
    etag = tag(picture.table)
    if still_held(seen, etag):
        return SheetImage(etag, None)
    body = found.get(etag)
    if body is None:
        table_etag = picture.table.etag
        # a PNG is drawn from the SVG of the same version (itself drawn once)
        keys = (
            etags.picture_etag(table_etag, "svg", lang.code, layout),
            etags.picture_etag(table_etag, "png", lang.code, layout),
        )
        body = pictures.draw(
            fmt,
            keys,
            len(picture.deals or ()),
            render=lambda: drawing_of(picture, layout),
            lang=lang.code,
            inline=lambda: picture_svg(picture, lang, layout),
        )
    return SheetImage(etag, body)
