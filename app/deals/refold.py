"""An undo or a correction of a deal: the log read and folded again, and written only if the
table has not moved since (``_refold``); later deals re-scored, the keys that posted the deal
retired, the kept answers of re-scored deals made again, the registered players' statistics
and a rated table's ratings following."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from sqlalchemy.orm import Session

from app.deals import repository as repo
from app.deals.model import Changed, DealInfo, deal_info, entries_to_json, kept_answer
from app.deals.refusals import refusal, refuse_archived, refuse_locked
from app.events.changes import announce
from app.kit.db import Database
from app.kit.errors import Conflict, NotFound
from app.kit.etags import sheet_etag
from app.kit.i18n import N_
from app.kit.versions import Expected, check_expected
from app.players import service as player_stats
from app.ratings import service as ratings
from app.rules import Deal, ReplayError, Sentence, exact, replay
from app.rules.settlement import balances as final_balances
from app.tables.model import TableInfo, info, rules_of, state_of
from app.tables.service import load_table, table_finished


@dataclass(frozen=True)
class _Refold:
    """An undo or a correction worked out from one consistent read of the table: what to
    write, and the revision it was worked out from."""

    revision: int
    table: TableInfo  # after the change
    deal: DealInfo  # the removed deal (undo) or the corrected one
    remove_id: int | None  # the row an undo deletes
    retire: bool  # the keys that posted ``deal`` are retired (not when a correction changes nothing)
    rewrites: list[
        dict[str, Any]
    ]  # {"row_id", "new_body", "new_entries", "new_dealer", "new_game"} of deals whose row changes
    rescored: list[int]  # later deals whose entries changed (correction)
    answers: list[dict[str, Any]]  # {"number", "answer"}: kept answers of posts made again
    state: dict[str, Any]
    kind: str = "deal.corrected"  # what app.live announces


def _refold(
    db: Database,
    owner: str,
    table_id: str,
    plan: Callable[[Session, Any], _Refold],
    *,
    attempts: int = 3,
) -> _Refold:
    """Work out an undo or a correction (the whole log read and folded again) before taking
    the write lock, then write it under the lock if the table's revision has not moved since;
    if it has, again. On SQLite the write lock is the whole database's, so a fold of a long
    log inside it would stall every other table's writes (bench/bigtable.py). The last attempt
    folds under the lock, so that a table written without pause still gets its change."""
    for attempt in range(attempts):
        if attempt < attempts - 1:
            with db.read() as session:
                work = plan(session, load_table(session, owner, table_id, lock=False))
            with db.write() as session:
                row = load_table(session, owner, table_id, lock=True)
                if row.revision != work.revision:
                    continue
                _write(session, row, work)
                return work
        with db.write() as session:
            row = load_table(session, owner, table_id, lock=True)
            work = plan(session, row)
            _write(session, row, work)
            return work
    raise AssertionError("unreachable")


def _write(session: Session, row: Any, work: _Refold) -> None:
    # An undo or a correction retires the keys that posted the deal: their answer is not
    # what is stored any more, and a post with one of them is a new deal. The keys of later
    # deals a correction re-scored keep working (those deals are still stored: a retry must
    # not post them again), with their answers made again.
    table_id = row.id
    repo.write_refold(
        session,
        table_id,
        retire=work.deal.number if work.retire else None,
        remove_id=work.remove_id,
        rewrites=work.rewrites,
        answers=work.answers,
        state=work.state,
        deal_count=work.table.deal_count,
        revision=work.table.revision,
    )
    # Registered players' statistics made again from the log as now written.
    player_stats.on_log_refolded(session, table_id, work.table.rules, work.table.first_dealer)
    if work.table.rated:
        _rerate(session, work.table)
    announce(session, table_id, work.table.owner, work.table.revision, work.kind, deal=work.deal.number)
    if work.table.state.finished and not state_of(row).finished:  # a correction that ends the game
        table_finished(session, table_id)


def outcome(
    table_id: str, owner: str, convention: str, balances: Sequence[Fraction | int], seated: dict[int, str]
) -> ratings.Outcome:
    """A finished table as its players' ratings take it: each seat's player and exact balance."""
    return ratings.Outcome(
        table_id, owner, convention, tuple(seated[s] for s in range(len(balances))), tuple(balances)
    )


def _rerate(session: Session, table: TableInfo) -> None:
    """After an undo or a correction of a rated table: its players' ratings follow (nothing
    changes unless its finish or its ranking did)."""
    seated = player_stats.seated_players(session, table.id)
    finish = None
    if table.state.finished and len(seated) == len(table.players):
        balances = [exact(b) for b in final_balances(table.rules, table.state)]
        finish = outcome(table.id, table.owner, table.convention, balances, seated)
    ratings.on_table_changed(session, table.id, finish)


def _after(row: Any, rules: Any, state: Any, deal_count: int) -> TableInfo:
    return replace(info(row, rules, state), deal_count=deal_count, revision=row.revision + 1)


def undo_last(
    db: Database, owner: str, table_id: str, number: int, *, expected: Expected | None = None
) -> Changed:
    """Delete the last deal; the state is the log without it, folded again. The keys that
    posted it are retired in the same transaction. Returns the removed deal."""

    def plan(session: Session, row: Any) -> _Refold:
        refuse_archived(row)
        refuse_locked(row)
        if not 1 <= number <= row.deal_count:
            raise NotFound(
                Sentence("table {table_id} has no deal {number}", table_id=table_id, number=number)
            )
        if number != row.deal_count:
            raise Conflict(
                Sentence(
                    "only the last deal ({deal_count}) can be undone; correct deal {number} with PUT instead",
                    deal_count=row.deal_count,
                    number=number,
                ),
                last=row.deal_count,
            )
        check_expected(expected, sheet_etag(row.id, row.revision, row.deal_count))
        rules = rules_of(row)
        log = repo.log(session, row.id)
        removed = log.pop()
        folded = replay(rules, row.first_dealer, [Deal.from_dict(r.body) for r in log])
        rewrites = []
        for deal_row, entries, dealer, game in zip(log, folded.entries, folded.dealers, folded.games):
            stored = entries_to_json(entries)
            if (
                deal_row.entries != stored or deal_row.dealer != dealer or deal_row.game != game
            ):  # another rules version
                rewrites.append(
                    {
                        "row_id": deal_row.id,
                        "new_body": deal_row.body,
                        "new_entries": stored,
                        "new_dealer": dealer,
                        "new_game": game,
                    }
                )
        return _Refold(
            revision=row.revision,
            table=_after(row, rules, folded.state, len(log)),
            deal=deal_info(removed),
            remove_id=removed.id,
            retire=True,
            rewrites=rewrites,
            rescored=[],
            answers=[],
            state=folded.state.to_dict(),
            kind="deal.undone",
        )

    work = _refold(db, owner, table_id, plan)
    return Changed(work.table, work.deal)


def correct_deal(
    db: Database, owner: str, table_id: str, number: int, deal: Deal, *, expected: Expected | None = None
) -> Changed:
    """Replace deal ``number`` and re-score every later deal. If the corrected deal or a later
    one no longer fits, nothing changes: Unprocessable/Conflict for the deal itself, Conflict
    naming the later deal. Returns the corrected deal and the later deals re-scored.

    The keys that posted the corrected deal are retired; the kept answers of the keys of
    re-scored later deals are made again (the deal as now stored, the sheet after the
    correction)."""
    canonical = deal.to_dict()

    def plan(session: Session, row: Any) -> _Refold:
        refuse_archived(row)
        refuse_locked(row)
        if not 1 <= number <= row.deal_count:
            raise NotFound(
                Sentence("table {table_id} has no deal {number}", table_id=table_id, number=number)
            )
        check_expected(expected, sheet_etag(row.id, row.revision, row.deal_count))
        rules = rules_of(row)
        log = repo.log(session, row.id)
        folded = _corrected_fold(rules, row.first_dealer, log, number, deal)
        rewrites, rescored, infos = _corrected_rows(log, folded, number, canonical)
        table = _after(row, rules, folded.state, len(log))
        answers = []
        # The same body again changes no deal: its keys keep replaying (a retry must not post
        # it twice), with its answer made again if its entries changed (another rules version).
        same = canonical == log[number - 1].body
        rescored_itself = log[number - 1].entries != entries_to_json(folded.entries[number - 1])
        remade = rescored + ([number] if same and rescored_itself else [])
        if remade:
            state = folded.state.to_dict()
            answers = [
                {"number": n, "answer": kept_answer(table, infos[n], state)}
                for n in sorted(repo.keyed_numbers(session, row.id, remade))
            ]
        return _Refold(
            revision=row.revision,
            table=table,
            deal=infos[number],
            remove_id=None,
            retire=not same,
            rewrites=rewrites,
            rescored=rescored,
            answers=answers,
            state=folded.state.to_dict(),
        )

    work = _refold(db, owner, table_id, plan)
    return Changed(work.table, work.deal, tuple(work.rescored))


def _corrected_fold(
    rules: Any, first_dealer: int, log: list[repo.LoggedDeal], number: int, deal: Deal
) -> Any:
    """The log folded again with deal ``number`` replaced; a deal that no longer fits refuses
    the correction (the corrected one as a deal is refused, a later one by its number)."""
    deals = [Deal.from_dict(r.body) for r in log]
    deals[number - 1] = deal
    try:
        return replay(rules, first_dealer, deals)
    except ReplayError as exc:
        if exc.number == number:
            raise refusal(exc, N_("the corrected deal does not fit the table")) from exc
        raise Conflict(
            Sentence(
                "the correction would make deal {number} invalid: {reasons}; nothing was changed",
                number=exc.number,
                reasons=exc.sentence,
            ),
            exc.errors,
            deal=exc.number,
            reason="later_deal_invalid",
        ) from exc


def _corrected_rows(
    log: list[repo.LoggedDeal], folded: Any, number: int, canonical: dict[str, Any]
) -> tuple[list[dict[str, Any]], list[int], dict[int, DealInfo]]:
    """What a correction rewrites: the rows that change (``rewrites``), the later deals whose
    entries changed (``rescored``) and the deals as now stored that an answer shows (``infos``:
    the corrected one and those re-scored)."""
    rewrites = []
    rescored: list[int] = []
    infos: dict[int, DealInfo] = {}
    for deal_row, entries, dealer, game in zip(log, folded.entries, folded.dealers, folded.games):
        stored = entries_to_json(entries)
        new_body = canonical if deal_row.number == number else deal_row.body
        if (
            deal_row.entries != stored
            or new_body != deal_row.body
            or deal_row.dealer != dealer
            or deal_row.game != game
        ):
            rewrites.append(
                {
                    "row_id": deal_row.id,
                    "new_body": new_body,
                    "new_entries": stored,
                    "new_dealer": dealer,
                    "new_game": game,
                }
            )
            if deal_row.number > number and deal_row.entries != stored:
                rescored.append(deal_row.number)
        if deal_row.number == number or deal_row.entries != stored:
            infos[deal_row.number] = DealInfo(
                deal_row.number, new_body, tuple(entries), deal_row.created_at, dealer
            )
    return rewrites, rescored, infos
