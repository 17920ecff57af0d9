"""A standings GET's answer as bytes, made once per version (the ETag names the tournament and
the version: a federation's standings are read far more often than they change), its rows'
texts taken from the last answer of the same tournament and rounds: by content but the place,
or whole when the ranking kept the row as it was (app/tournaments/standings.py keeps the
standings themselves)."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, replace
from typing import Any

from app.kit.caching import Kept
from app.tournaments import service as svc
from app.tournaments.schemas import StandingOut, StandingsOut
from app.tournaments.scoring import Standing


def answer(st: svc.Standings) -> bytes:
    """``StandingsOut.of(st)`` as JSON, made once per ETag."""
    body = _ANSWERS.get(st.etag)
    if body is None:
        body = body_of(st)
        _ANSWERS.put(st.etag, body)
    return body


def body_of(st: svc.Standings) -> bytes:
    """``StandingsOut.of(st)`` as JSON, the rows' texts from the last answer: by content
    (``st.keys``) but the place, or whole when the ranking kept the row as it was."""
    if len(st.keys) != len(st.rows):
        return StandingsOut.of(st).model_dump_json().encode()
    t, count = st.tournament, len(st.rows)
    last = _ROWS.get((t.id, st.rounds))
    # The same tournament object (a change at a table leaves it as it was): the last answer's
    # head (the tournament's id, name, scoring and rounds), entrants and rows in order.
    same = last if last is not None and last.st.tournament is t else None
    if same is not None:
        head, entrants = same.head, same.entrants
    else:
        head = StandingsOut.of(replace(st, rows=(), keys=())).model_dump_json().encode()
        assert head.endswith(_NO_ITEMS)  # items is the answer's last field
        entrants = {e.number: e for e in t.entrants}
    # A change at one table re-ranks a stretch of the standings: the rows the ranking kept (the
    # very objects) keep their texts with no lookup; only the others are looked up by content
    # (the last answer's texts serve a new revision of the tournament too: a row's text is made
    # of its content, its entrant's name and withdrawal, and its place).
    texts = dict(last.texts) if last is not None else {}
    if last is not None and len(texts) > 2 * count:  # the contents of rows long gone: dropped
        texts = {k: texts[k] for k in last.keys}
    kept_rows: tuple[Standing, ...] = ()
    keys: list[Hashable] = [None] * count
    rows: list[bytes] = [b""] * count
    if same is not None:
        kept_rows, kept = same.st.rows, min(count, len(same.rows))
        keys[:kept], rows[:kept] = same.keys[:kept], same.rows[:kept]
    for n, (row, key) in enumerate(zip(st.rows, st.keys)):
        if n < len(kept_rows) and kept_rows[n] is row:  # the same row of the same tournament: the same text
            continue
        entrant = entrants.get(int(row.player))
        kept_as = (key, entrant.name if entrant else None, entrant.withdrawn_round if entrant else None)
        rest = texts.get(kept_as)
        if rest is None:
            text = StandingOut.of(replace(row, place=0), t, entrants).model_dump_json().encode()
            assert text.startswith(_PLACE_0)  # place is a row's first field
            rest = texts[kept_as] = text[len(_PLACE_0) :]
        keys[n] = kept_as
        rows[n] = b'{"place":%d,' % row.place + rest
    _ROWS.put((t.id, st.rounds), _Answered(st, head, entrants, texts, tuple(keys), tuple(rows)))
    return head[: -len(_NO_ITEMS)] + b'"items":[' + b",".join(rows) + b"]}"


@dataclass(frozen=True)
class _Answered:
    """A last answer: its head (all but the rows) and the entrants by number it was written
    with, its rows' texts but their place by content, and its rows in order."""

    st: svc.Standings
    head: bytes
    entrants: dict[int, Any]
    texts: dict[Hashable, bytes]
    keys: tuple[Hashable, ...]
    rows: tuple[bytes, ...]


_NO_ITEMS = b'"items":[]}'
_PLACE_0 = b'{"place":0,'


# The answers by ETag, bounded.
_ANSWERS: Kept[str, bytes] = Kept(128)
# The last answers' rows (``body_of``), by tournament and rounds; bounded.
_ROWS: Kept[tuple[str, int], _Answered] = Kept(
    64, max_weight=16 * 1024 * 1024, weigh=lambda kept: 2 * sum(map(len, kept.texts.values()))
)
