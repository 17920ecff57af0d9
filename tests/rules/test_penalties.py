"""A judge's penalty on the sheet (docs/rules.md §15): where it goes, what it writes, and
that it moves nothing else. Every number is worked by hand in the comment beside it."""

from __future__ import annotations

from fractions import Fraction

from app.rules import Deal, InvalidDeal, PenaltyDeal, TableFinished
from app.rules.vocabulary import PENALTY_AMOUNTS, VIOLATIONS
from tests.rules.helpers import Table, contract, fields


def penalty(offender: int, amount: int | None = None, **extra) -> dict:
    body = {"type": "penalty", "offender": offender, "reason": "lead out of turn", **extra}
    if amount is not None:
        body["amount"] = amount
    return body


ALLPASS_3 = {"type": "allpass", "tricks": {"0": 4, "1": 3, "2": 3}}


def test_mountain_penalty_writes_the_offenders_mountain():
    t = Table("sochi")  # k = 1, penalties_to mountain by default
    wrote = t.deal(penalty(1, 10, clause="10.3"))
    assert wrote == {("mountain", 1): 10}
    assert t.mountains == [0, 10, 0]
    assert t.pools == [0, 0, 0]
    # G = (0, 10, 0), mean 10/3: balance_i = 10·(10/3 − G_i)
    # seat 0: 100/3, seat 1: 10·(10/3 − 10) = −200/3, seat 2: 100/3; sum 0
    assert t.settle().balances == (Fraction(100, 3), Fraction(-200, 3), Fraction(100, 3))
    assert sum(t.settle().balances) == 0


def test_whists_penalty_at_four_players():
    t = Table("sochi", players=4, penalties_to="whists")
    wrote = t.deal(penalty(2, 3))
    # each of the three others (the dealer, seat 0, too) writes 3 whists on seat 2
    assert wrote == {("whists", 0, 2): 3, ("whists", 1, 2): 3, ("whists", 3, 2): 3}
    assert t.mountains == [0, 0, 0, 0]
    # W_0 = W_1 = W_3 = 3, W_2 = −9; no mountain: balances 3, 3, −9, 3 (sum 0)
    assert t.settle().balances == (3, 3, -9, 3)


def test_the_penalty_names_its_destination_over_the_tables():
    t = Table("sochi", penalties_to="apart")
    assert t.deal(penalty(0, 2, destination="mountain")) == {("mountain", 0): 2}
    assert t.deal(penalty(0, 2)) == {("apart", 0): 2}


def test_apart_penalty_counts_in_the_balance_only():
    t = Table("piter")  # k = 2
    wrote = t.deal(penalty(0, 4, destination="apart"))
    assert wrote == {("apart", 0): 4}
    assert t.mountains == [0, 0, 0]  # neither the mountain
    assert t.pools == [0, 0, 0]  # nor the pool
    assert [p.get("apart") for p in t.sheet["players"]] == [4, 0, 0]
    # G = mountain + apart − k·pool = (4, 0, 0), mean 4/3
    # seat 0: 10·(4/3 − 4) = −80/3; seats 1, 2: 10·4/3 = 40/3 each; sum 0
    balances = t.settle().balances
    assert balances == (Fraction(-80, 3), Fraction(40, 3), Fraction(40, 3))
    # the same as 4 to the mountain, in the balance
    m = Table("piter").play(penalty(0, 4, destination="mountain"))
    assert m.settle().balances == balances
    # kept apart through a stored state
    assert type(t.state).from_dict(t.state.to_dict()) == t.state


def test_apart_penalties_add_up_and_survive_the_deals_after():
    t = Table("sochi")
    t.play(
        penalty(1, 3, destination="apart"),
        penalty(1, 2, destination="apart"),
        penalty(2, 1, destination="apart"),
    )
    assert t.state.apart == (0, 5, 1)
    # a 6♠ by seat 1, made: the deals after a penalty leave what was kept apart as it was
    t.deal(contract(1, "6S", {2: "whist", 0: "pass"}, {1: 6, 2: 2, 0: 2}))
    assert t.state.apart == (0, 5, 1)


def test_a_penalty_does_not_move_the_dealer_or_the_streak():
    t = Table("piter")  # first dealer 0; ladder 2-4-6, exits 6-7-7
    t.deal(ALLPASS_3)  # dealt by 0: streak 1, next dealer 1
    before = t.state
    assert (before.streak, before.next_dealer, before.deal_count) == (1, 1, 1)
    t.deal(penalty(2, 8))
    # the deal, the streak and the count of deals stay: seat 1 deals the next, an all-pass costs 4
    assert (t.state.streak, t.state.next_dealer, t.state.deal_count) == (1, 1, 1)
    assert t.allpass["next_trick_cost"] == 4 and t.allpass["min_contract"] == 7
    assert t.mountains == [m + (8 if s == 2 else 0) for s, m in enumerate(before.mountains)]
    # the next deal is dealt by seat 1 (named: refused otherwise)
    t.deal({**ALLPASS_3, "dealer": 1})
    assert t.state.next_dealer == 2


def test_a_penalty_during_a_compulsory_allpass():
    t = Table("piter_races", players=4)  # each game opens with a compulsory all-pass
    assert t.allpass["compulsory"]
    t.deal(penalty(3, 20, violation="conduct", clause="10.7"))
    assert t.allpass["compulsory"]  # still compulsory: a contract is refused
    error = t.refuse(contract(1, "6S", {2: "whist", 3: "pass"}, {1: 6, 2: 2, 3: 2}))
    assert fields(error) == {"type"}
    assert t.state.next_dealer == 0


def test_a_penalty_does_not_count_as_a_deal_of_a_game_played_for_deals():
    t = Table("sochi", end_of_game="deals", game_deals=1)
    t.deal(penalty(0, 1))
    assert not t.state.finished and t.state.deal_count == 0
    t.deal(ALLPASS_3)
    assert t.state.finished
    t.refuse(penalty(0, 1), TableFinished)  # a finished table is settled


def test_refusals_name_the_field():
    t = Table("sochi")
    assert fields(t.refuse(penalty(3, 5))) == {"offender"}  # 3 players: seats 0-2
    assert fields(t.refuse(penalty(0))) == {"amount"}  # no kind fixes an amount
    assert fields(t.refuse(penalty(0, 0))) == {"amount"}
    assert fields(t.refuse(penalty(0, 1.5))) == {"amount"}  # whole numbers only
    assert fields(t.refuse(penalty(0, 5, destination="bank"))) == {"destination"}
    assert fields(t.refuse(penalty(0, 5, violation="cheating"))) == {"violation"}
    assert fields(t.refuse(penalty(0, 5, clause="1" * 21))) == {"clause"}
    assert fields(t.refuse({"type": "penalty", "offender": 0, "amount": 5})) == {"reason"}
    assert fields(t.refuse(penalty(0, 5, reason=" "))) == {"reason"}
    assert fields(t.refuse(penalty(0, 5, choices={"help": 1}))) == {"choices"}
    assert fields(t.refuse(penalty(0, 5, talon={"bonus": "ace"}))) == {"talon"}
    assert fields(t.refuse(penalty(0, 5, over_misere=True))) == {"over_misere"}
    assert fields(t.refuse(penalty(0, 5, tricks={"0": 1}))) == {"tricks"}
    assert fields(t.refuse(penalty(0, 5, dealer=1))) == {"dealer"}  # seat 0 deals now


def test_the_penalty_body_round_trips():
    body = {
        "type": "penalty",
        "offender": 2,
        "amount": 7,
        "destination": "whists",
        "violation": "revoke",
        "clause": "10.4.1",
        "reason": "did not follow suit",
        "note": "table 3",
    }
    deal = Deal.from_dict(body)
    assert isinstance(deal, PenaltyDeal)
    assert deal.to_dict() == body
    assert Deal.from_dict(deal.to_dict()) == deal


def test_every_named_kind_has_an_amount_entry():
    # The code's section 10 was not found in a public copy: no amount is fixed (docs/rules.md §15).
    assert set(PENALTY_AMOUNTS) == set(VIOLATIONS)
    assert all(amount is None for amount in PENALTY_AMOUNTS.values())


def test_invalid_penalty_is_an_invalid_deal():
    try:
        Deal.from_dict({"type": "penalty"})
    except InvalidDeal as exc:
        assert {e.field for e in exc.errors} == {"offender", "reason"}
    else:  # pragma: no cover
        raise AssertionError("a penalty without offender and reason was taken")
