"""docs/rules.md §10: every refusal names the field and leaves the state exactly as it was
(``Table.refuse`` checks the state is the same object with the same content)."""

import pytest

from app.rules import (
    Deal,
    DealerMismatch,
    InvalidDeal,
    ReplayError,
    TableFinished,
    apply_deal,
    replay,
)

from .helpers import Table, allpass, contract, fields, misere, names_field, remise


def test_unknown_field_refused():
    t = Table("piter")
    body = contract(1, "7H", {2: "pass", 0: "pass"})
    body["bonus"] = 3
    assert names_field(t.refuse(body), "bonus")


def test_tricks_must_add_up_to_ten():
    t = Table("piter")
    err = t.refuse(contract(1, "7H", {2: "whist", 0: "pass"}, {1: 7, 2: 2, 0: 0}))
    assert names_field(err, "tricks")


def test_whisted_contract_needs_tricks():
    t = Table("piter")
    assert names_field(t.refuse(contract(1, "7H", {2: "whist", 0: "pass"})), "tricks")


def test_allpass_tricks_must_add_up_to_ten():
    t = Table("sochi")
    assert names_field(t.refuse(allpass({0: 3, 1: 3, 2: 3})), "tricks")


def test_dealer_holds_no_tricks_outside_a_four_player_allpass():
    t = Table("piter", players=4)  # dealer 0
    err = t.refuse(contract(1, "7H", {2: "whist", 3: "whist"}, {1: 7, 2: 1, 3: 1, 0: 1}))
    assert names_field(err, "tricks")


def test_dealer_at_most_two_talon_tricks():
    t = Table("piter", players=4)
    assert names_field(t.refuse(allpass({0: 3, 1: 2, 2: 2, 3: 3})), "tricks")


def test_rostov_dealer_holds_no_allpass_tricks():
    t = Table("rostov", players=4)  # the talon stays closed on Rostov all-passes
    assert names_field(t.refuse(allpass({0: 1, 1: 3, 2: 3, 3: 3})), "tricks")


def test_declarer_must_be_active():
    t4 = Table("piter", players=4)  # dealer 0 sits out
    assert names_field(t4.refuse(contract(0, "7H", {1: "pass", 2: "pass"})), "declarer")
    t3 = Table("piter")
    assert names_field(t3.refuse(misere(3, 0)), "declarer")


def test_defenders_must_be_the_two_other_active_seats():
    t = Table("piter", players=4)  # dealer 0; declarer 1's defenders are 2 and 3
    assert names_field(t.refuse(contract(1, "7H", {2: "pass", 0: "pass"})), "defenders")
    assert names_field(t.refuse(contract(1, "7H", {2: "pass"})), "defenders")


def test_contract_below_the_lowest_level():
    t = Table("piter")
    t.deal(allpass({0: 3, 1: 3, 2: 4}))  # min contract 7
    err = t.refuse(contract(1, "6H", {2: "whist", 0: "whist"}, {1: 6, 2: 2, 0: 2}))
    assert names_field(err, "contract")
    t.deal(misere(1, 0))  # misère is always allowed


def test_whisted_misere_refused():
    t = Table("piter")
    body = misere(1, 0)
    body["defenders"] = {"2": "whist", "0": "pass"}
    assert names_field(t.refuse(body), "defenders")


def test_whisted_ten_refused_where_tens_are_not_whisted():
    for conv in ("piter", "vmk"):
        t = Table(conv)
        err = t.refuse(contract(1, "10H", {2: "whist", 0: "pass"}, {1: 10, 2: 0, 0: 0}))
        assert names_field(err, "defenders", "contract"), conv


def test_half_whist_on_eight_refused():
    t = Table("piter")
    assert names_field(t.refuse(contract(1, "8H", {2: "pass", 0: "half_whist"})), "defenders")


def test_half_whist_only_by_the_second_defender_after_a_pass():
    t = Table("piter")  # declarer 1: first defender 2, second 0
    assert names_field(t.refuse(contract(1, "6H", {2: "half_whist", 0: "pass"})), "defenders")
    assert names_field(t.refuse(contract(1, "6H", {2: "whist", 0: "half_whist"})), "defenders")


def test_pass_on_stalingrad_refused():
    t = Table("piter")
    assert names_field(t.refuse(contract(1, "6S", {2: "pass", 0: "pass"})), "defenders")
    assert names_field(t.refuse(contract(1, "6S", {2: "pass", 0: "half_whist"})), "defenders")
    err = t.refuse(contract(1, "6S", {2: "whist", 0: "pass"}, {1: 6, 2: 4, 0: 0}))
    assert names_field(err, "defenders")


@pytest.mark.parametrize(
    "table", [("rostov", 3, {}), ("piter", 3, {"remise": False}), ("piter_races", 4, {})]
)
def test_remise_where_not_allowed(table):
    conv, players, options = table
    t = Table(conv, players, **options)
    if conv == "piter_races":
        t.deal(allpass({1: 3, 2: 3, 3: 4}))  # past the compulsory all-pass (dealer now 1)
        body = remise(2, "7H")
    else:
        body = remise(1, "7H")
    assert names_field(t.refuse(body), "type", "contract")


def test_rostov_talon_input_in_another_convention():
    for conv in ("sochi", "piter", "vmk"):
        t = Table(conv)
        err = t.refuse(contract(1, "7H", {2: "pass", 0: "pass"}, talon={"bonus": "ace"}))
        assert names_field(err, "talon"), conv
        err = t.refuse(contract(1, "7H", {2: "pass", 0: "pass"}, talon={"discarded": True}))
        assert names_field(err, "talon"), conv


def test_returned_talon_needs_the_option_and_four_players():
    t = Table("piter", players=4)  # return_talon off by default
    err = t.refuse(contract(1, "7H", {2: "pass", 3: "pass"}, talon={"returned": True}))
    assert names_field(err, "talon")


def test_non_allpass_while_allpass_is_compulsory():
    t = Table("piter_races", players=4)
    assert names_field(t.refuse(misere(1, 0)), "type")


def test_any_deal_on_a_finished_table():
    t = Table("sochi").set(pools=(20, 20, 18))
    t.deal(contract(2, "6H", {0: "pass", 1: "pass"}))
    assert t.state.finished is True
    err = t.refuse(allpass({0: 3, 1: 3, 2: 4}), TableFinished)
    assert err.kind == "finished"


def test_tricks_on_a_deal_that_was_not_played():
    t = Table("piter")
    err = t.refuse(contract(1, "7H", {2: "pass", 0: "pass"}, {1: 7, 2: 3, 0: 0}))
    assert names_field(err, "tricks")
    err = t.refuse(contract(1, "7H", {2: "pass", 0: "half_whist"}, {1: 7, 2: 3, 0: 0}))
    assert names_field(err, "tricks")
    body = remise(1, "7H")
    body["tricks"] = {"1": 4}
    assert names_field(t.refuse(body), "tricks")


def test_writeoff_choice_the_convention_does_not_allow():
    t = Table("piter")  # no write-off of an unwhisted game in piter
    err = t.refuse(contract(1, "7H", {2: "pass", 0: "pass"}, choices={"writeoff": [1]}))
    assert names_field(err, "choices")


def test_writeoff_choice_for_a_seat_with_nothing_to_write_off():
    t = Table("vmk")
    # vmk lets the declarer of an unwhisted game write off; seat 2 is not that declarer
    err = t.refuse(contract(1, "7H", {2: "pass", 0: "pass"}, choices={"writeoff": [2]}))
    assert names_field(err, "choices")


def test_help_choice_with_no_overflow():
    t = Table("piter")
    err = t.refuse(contract(1, "7H", {2: "pass", 0: "pass"}, choices={"help": 2}))
    assert names_field(err, "choices")


def test_help_choice_naming_a_closed_pool():
    t = Table("piter").set(pools=(18, 20, 5))
    err = t.refuse(contract(0, "8H", {1: "pass", 2: "pass"}, choices={"help": 1}))
    assert names_field(err, "choices")


def test_help_choice_naming_a_failed_whister_in_vmk():
    t = Table("vmk").set(pools=(18, 10, 5))
    err = t.refuse(contract(0, "8H", {1: "whist", 2: "pass"}, {0: 10, 1: 0, 2: 0}, choices={"help": 1}))
    assert names_field(err, "choices")


def test_over_misere_outside_races_or_below_nine():
    t = Table("piter")
    err = t.refuse(contract(1, "9H", {2: "whist", 0: "pass"}, {1: 9, 2: 1, 0: 0}, over_misere=True))
    assert names_field(err, "over_misere")
    r = Table("piter_races", players=4)
    r.deal(allpass({1: 3, 2: 3, 3: 4}))
    err = r.refuse(contract(2, "8H", {3: "whist", 0: "pass"}, {2: 8, 3: 2, 0: 0}, over_misere=True))
    assert names_field(err, "over_misere")


def test_bad_contract_string():
    t = Table("piter")
    assert names_field(t.refuse(contract(1, "11H", {2: "pass", 0: "pass"})), "contract")
    assert names_field(t.refuse(contract(1, "7X", {2: "pass", 0: "pass"})), "contract")


def test_dealer_mismatch():
    t = Table("piter")
    body = contract(1, "7H", {2: "pass", 0: "pass"}, dealer=2)
    err = t.refuse(body, DealerMismatch)
    assert err.kind == "dealer_mismatch"
    assert "dealer" in fields(err)
    # the right dealer is accepted
    t.deal(contract(1, "7H", {2: "pass", 0: "pass"}, dealer=0))
    assert t.pools == [0, 4, 0]


def test_invalid_deal_kind_and_state_untouched_then_play_on():
    t = Table("piter")
    t.deal(allpass({0: 3, 1: 3, 2: 4}))
    before = t.state
    with pytest.raises(InvalidDeal) as info:
        apply_deal(t.rules, t.state, Deal.from_dict(allpass({0: 3, 1: 3, 2: 3})))
    assert info.value.kind == "invalid"
    assert t.state is before and t.state.deal_count == 1
    t.deal(allpass({0: 3, 1: 3, 2: 4}))
    assert t.state.deal_count == 2
    # two all-passes at 2 then 4, amnesty m = 3: seat 2 one trick's worth each
    assert t.mountains == [0, 0, 2 + 4]


def test_replay_names_the_first_refused_deal():
    t = Table("piter")
    log = [
        Deal.from_dict(allpass({0: 3, 1: 3, 2: 4})),
        Deal.from_dict(contract(1, "7H", {2: "pass", 0: "pass"})),
        Deal.from_dict(contract(2, "6H", {0: "pass", 1: "pass"})),  # below 7: still in the streak
    ]
    with pytest.raises(ReplayError) as info:
        replay(t.rules, 0, log)
    assert info.value.number == 3
    assert names_field(info.value, "contract")


def test_replay_equals_step_by_step():
    bodies = [
        allpass({0: 3, 1: 3, 2: 4}),
        contract(1, "7H", {2: "whist", 0: "pass"}, {1: 7, 2: 3, 0: 0}),
        misere(2, 1),
        remise(0, "6H"),
    ]
    t = Table("piter").play(*bodies)
    folded = replay(t.rules, 0, [Deal.from_dict(b) for b in bodies])
    assert folded.state == t.state
    assert len(folded.entries) == 4


def test_returned_talon_refused_with_three_players():
    t = Table("piter", return_talon=True)  # the option is for 4 players (docs/rules.md §4.5)
    err = t.refuse(contract(1, "7H", {2: "pass", 0: "pass"}, talon={"returned": True}))
    assert names_field(err, "talon")
