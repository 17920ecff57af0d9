"""fspr: ФСПР's Sporting Code, section 6, the Leningrad system (docs/rules.md §13).
s = 2: pool V (6→2 ... 10→10), undertrick and defender's trick 2V (4/8/12/16/20), failed whist
V a trick (half the whist price), misère 10 / 20 a trick; gentlemen's half-responsible whist,
the ten whisted, no remise, no Stalingrad; all-pass 2-4-6 a trick to the mountain without
amnesty, a clean player +1 cost to the pool or −2 costs off the mountain, never the dealer; exit 7
and stays 7, only a whisted played game ends a streak; the talon bonus at the game's price;
the 4-player dealer's whist over a half-whist. Dealer 0 first; the deal passes clockwise."""

import pytest

from app.rules import InvalidTable, make_rules

from .helpers import Table, allpass, contract, misere, names_field, remise

# --- the examples the sources print ------------------------------------------


@pytest.mark.parametrize(
    "level,pool,undertrick,trick,failed_whist",
    [
        (6, 2, 4, 4, 2),
        (7, 4, 8, 8, 4),
        (8, 6, 12, 12, 6),
        (9, 8, 16, 16, 8),
        (10, 10, 20, 20, 10),
    ],
)
def test_price_table(level, pool, undertrick, trick, failed_whist):
    # The reading's price line: pool V, undertrick 2V, a defender's trick 2V, a missing defender trick V.
    made = Table("fspr")
    made.deal(contract(1, f"{level}H", {2: "whist", 0: "pass"}, {1: 10, 2: 0, 0: 0}))
    assert made.pools == [0, pool, 0]
    # the whister took nothing: short the whole obligation (6: 4, 7: 2, 8-10: 1), V a trick
    assert made.mountains == [0, 0, failed_whist * {6: 4, 7: 2}.get(level, 1)]
    failed = Table("fspr")
    failed.deal(contract(1, f"{level}H", {2: "whist", 0: "whist"}, {1: level - 1, 2: 11 - level, 0: 0}))
    assert failed.mountains[1] == undertrick
    # whister 2: his tricks at 2V, and the consolation 2V for the one undertrick
    assert failed.whists[(2, 1)] == trick * (11 - level) + trick


def test_seed_002_example_six_made_with_seven():
    # "A 6 was played, the declarer took 7: 2 in the pool; the defender 1 undertrick × 2 in the
    # mountain; the defender writes 3 × 4 = 12 whists." One whister, the passer's tricks his.
    t = Table("fspr")
    t.deal(contract(1, "6H", {2: "whist", 0: "pass"}, {1: 7, 2: 2, 0: 1}))
    assert t.pools == [0, 2, 0]
    assert t.mountains == [0, 0, 2]
    assert t.whists == {(2, 1): 12}


def test_misere_ten_made_twenty_a_trick():
    t = Table("fspr")
    t.deal(misere(1, 0))
    assert t.pools == [0, 10, 0]
    t.deal(misere(2, 2))
    # 2 tricks × 20
    assert t.mountains == [0, 0, 40]


@pytest.mark.parametrize("level,whists", [(6, 8), (7, 8)])
def test_half_whist_counts_half_the_obligation(level, whists):
    # "2 on a six, 1 on a seven" at the trick price 2V: 2 × 4 = 8; 1 × 8 = 8
    t = Table("fspr")
    t.deal(contract(1, f"{level}H", {2: "pass", 0: "half_whist"}))
    assert t.whists == {(0, 1): whists}


def test_gentlemen_split_on_failure():
    t = Table("fspr")
    t.deal(contract(1, "7S", {2: "whist", 0: "pass"}, {1: 5, 2: 3, 0: 2}))
    # u = 2: mountain 8·2 = 16; defenders' 5 tricks × 8 = 40, split 20/20; consolation 16 each
    assert t.mountains == [0, 16, 0]
    assert t.whists == {(2, 1): 36, (0, 1): 36}


def test_ten_is_whisted_and_both_answer():
    t = Table("fspr")
    t.deal(contract(1, "10H", {2: "whist", 0: "whist"}, {1: 10, 2: 0, 0: 0}))
    # obligation 1, short 1: both whisters V = 10 each
    assert t.mountains == [10, 0, 10]


def test_six_spades_not_obligatory_and_no_remise():
    t = Table("fspr")
    t.deal(contract(1, "6S", {2: "pass", 0: "pass"}))
    assert t.pools == [0, 2, 0]
    error = t.refuse(remise(2, "6H"))
    assert names_field(error, "type")


def test_allpass_per_trick_no_amnesty_clean_choice_dealer_excluded():
    t = Table("fspr", players=4)  # dealer 0 holds the talon's tricks
    t.deal(allpass({1: 0, 2: 5, 3: 3, 0: 2}))
    # cost 2: 2: 10, 3: 6, dealer 0: 4 like anyone; clean 1: +2 to the pool; no amnesty of the minimum
    assert t.mountains == [4, 0, 10, 6]
    assert t.pools == [0, 2, 0, 0]
    t.deal(allpass({2: 4, 3: 0, 0: 6, 1: 0}, choices={"writeoff": [3]}))
    # dealer 1 clean: nothing; cost 4: 2: 16, 0: 24; clean 3 writes off 2 × 4 = 8
    assert t.mountains == [28, 0, 26, -2]
    assert t.pools == [0, 2, 0, 0]


def test_exit_is_seven_and_stays_seven():
    t = Table("fspr")
    t.play(allpass({0: 4, 1: 3, 2: 3}), allpass({0: 4, 1: 3, 2: 3}), allpass({0: 4, 1: 3, 2: 3}))
    error = t.refuse(contract(1, "6H", {2: "whist", 0: "whist"}, {1: 6, 2: 2, 0: 2}))
    assert names_field(error, "contract")
    t.deal(contract(1, "7H", {2: "whist", 0: "pass"}, {1: 7, 2: 3, 0: 0}))
    assert t.state.streak == 0


@pytest.mark.parametrize(
    "body",
    [
        misere(0, 0),
        contract(0, "8S", {1: "pass", 2: "pass"}),
        contract(0, "7S", {1: "pass", 2: "half_whist"}),
    ],
)
def test_only_a_whisted_played_game_ends_a_streak(body):
    t = Table("fspr")
    t.deal(allpass({0: 4, 1: 3, 2: 3}))
    t.deal(body)
    assert t.state.streak == 1


def test_talon_bonus_game_price_three_players_each_opponent_half():
    t = Table("fspr")
    t.deal(contract(1, "8H", {2: "whist", 0: "pass"}, {1: 7, 2: 2, 0: 1}, talon={"bonus": "ace_king"}))
    # failed too: the bonus is written always. 2 quick tricks × 12 = 24, half each: 12.
    # u = 1: mountain 12; gentlemen: 3 tricks × 12 = 36 split 18/18; consolation 12 each
    assert t.mountains == [0, 12, 0]
    assert t.whists == {(2, 1): 18 + 12 + 12, (0, 1): 18 + 12 + 12}


def test_talon_bonus_four_players_dealer_writes_it_all():
    t = Table("fspr", players=4)
    t.deal(contract(1, "7H", {2: "pass", 3: "pass"}, talon={"bonus": "two_aces"}))
    # 3 quick tricks × 8 = 24 from the dealer 0
    assert t.whists == {(0, 1): 24}
    assert t.pools == [0, 4, 0, 0]


def test_talon_bonus_refusals():
    t = Table("fspr")
    assert names_field(t.refuse(misere(1, 0, talon={"bonus": "ace"})), "talon.bonus")
    assert names_field(
        t.refuse(contract(1, "6H", {2: "pass", 0: "pass"}, talon={"discarded": True})), "talon.discarded"
    )


def test_dealer_whists_over_a_half_whist():
    t = Table("fspr", players=4)  # dealer 0; declarer 1, defenders 2 (first), 3 (second)
    t.deal(contract(1, "6H", {2: "pass", 3: "half_whist", 0: "whist"}, {1: 4, 2: 3, 3: 3}))
    # u = 2: mountain 4·2 = 8; the dealer writes the defenders' 6 tricks × 4 = 24 and his consolation 8;
    # each defender the consolation 8; nobody answers for missing tricks
    assert t.mountains == [0, 8, 0, 0]
    assert t.whists == {(0, 1): 32, (2, 1): 8, (3, 1): 8}
    m = Table("fspr", players=4)
    m.deal(contract(1, "7H", {2: "pass", 3: "half_whist", 0: "whist"}, {1: 10, 2: 0, 3: 0}))
    # made, the defenders took nothing: no whists, no mountain for the dealer
    assert m.pools == [0, 4, 0, 0]
    assert m.mountains == [0, 0, 0, 0]
    assert m.whists == {}


def test_dealer_whist_refusals():
    t = Table("fspr", players=4)
    error = t.refuse(contract(1, "6H", {2: "whist", 3: "half_whist", 0: "whist"}, {1: 6, 2: 2, 3: 2}))
    assert names_field(error, "defenders.0")
    off = Table("fspr", players=4, dealer_half_whist=False)
    assert names_field(
        off.refuse(contract(1, "6H", {2: "pass", 3: "half_whist", 0: "whist"}, {1: 6, 2: 2, 3: 2})),
        "defenders.0",
    )


def test_the_new_fields_are_overridable_in_any_convention():
    rostov = Table("rostov", players=4, talon_bonus_price="game")
    rostov.deal(contract(1, "6H", {2: "pass", 3: "pass"}, talon={"bonus": "ace"}))
    # s = 1: 1 quick trick × 2
    assert rostov.whists == {(0, 1): 2}
    sochi = Table("sochi", players=4, dealer_half_whist=True)
    sochi.deal(contract(1, "6H", {2: "pass", 3: "half_whist", 0: "whist"}, {1: 6, 2: 2, 3: 2}))
    assert sochi.whists == {(0, 1): 8}
    fixed = Table("fspr", talon_bonus_price="fixed")
    fixed.deal(contract(1, "6H", {2: "pass", 0: "pass"}, talon={"bonus": "ace"}))
    assert fixed.whists == {(2, 1): 5, (0, 1): 5}


def test_new_field_refusals_name_the_field():
    with pytest.raises(InvalidTable) as info:
        make_rules("sochi", 3, options={"talon_bonus_price": "game"})
    assert [e.field for e in info.value.errors] == ["options.talon_bonus_price"]
    with pytest.raises(InvalidTable) as info:
        make_rules("fspr", 3, options={"talon_bonus_price": "cheap"})
    assert [e.field for e in info.value.errors] == ["options.talon_bonus_price"]
    with pytest.raises(InvalidTable) as info:
        make_rules("fspr", 4, options={"dealer_half_whist": "yes"})
    assert [e.field for e in info.value.errors] == ["options.dealer_half_whist"]


# --- a whole pulka, 3 players ------------------------------------------------


def test_whole_pulka_three_players():
    t = Table("fspr")
    # 1 (dealer 0): 6S by 1, 2 and 0 whist (not Stalingrad), 6/2/2: pool 1 +2; 2→1 8, 0→1 8
    t.deal(contract(1, "6S", {2: "whist", 0: "whist"}, {1: 6, 2: 2, 0: 2}))
    # 2 (dealer 1): all-pass, cost 2: 0 +10, 2 +10 to the mountain; 1 clean: +2 to the pool
    t.deal(allpass({0: 5, 1: 0, 2: 5}))
    # 3 (dealer 2): second all-pass, cost 4: 0 +12, 1 +12, 2 +16
    t.deal(allpass({0: 3, 1: 3, 2: 4}))
    # 4 (dealer 0): misère by 1 made: pool 1 +10 → 14; the streak goes on
    t.deal(misere(1, 0))
    # 5 (dealer 1): 7H by 2 (the lowest is 7), 0 passes, 1 half-whists: pool 2 +4, 1→2 1 × 8 = 8;
    # an ace in the talon: 1 × 8, half each: 0→2 4, 1→2 4; the streak goes on
    t.deal(contract(2, "7H", {0: "pass", 1: "half_whist"}, talon={"bonus": "ace"}))
    assert t.state.streak == 2
    # 6 (dealer 2): third all-pass, cost 6: 0 +24, 1 +36; 2 clean writes off 2 × 6 = 12
    t.deal(allpass({0: 4, 1: 6, 2: 0}, choices={"writeoff": [2]}))
    # 7 (dealer 0): 7S by 0, 1 whists, 2 passes, 5/3/2: u = 2, mountain 0 +16; gentlemen: 5 × 8 = 40
    # split 20/20; consolation 16 each; ace-king in the talon 2 × 8 = 16, half each: 1→0 44, 2→0 44
    # a failed game leaves the streak as it was (§13: "played" read as played and made)
    t.deal(contract(0, "7S", {1: "whist", 2: "pass"}, {0: 5, 1: 3, 2: 2}, talon={"bonus": "ace_king"}))
    assert t.state.streak == 3
    # 8 (dealer 1): 10NT by 2, 0 whists, 1 passes, 10/0/0: pool 2 +10; 0 short 1: V = 10 to his mountain;
    # the streak ends
    t.deal(contract(2, "10NT", {0: "whist", 1: "pass"}, {2: 10, 0: 0, 1: 0}))
    assert t.state.streak == 0
    # 9 (dealer 2): 6D by 0, both whist, 6/1/3: pool 0 +2; 1→0 4, 2→0 12; the obligation 4 is met
    t.deal(contract(0, "6D", {1: "whist", 2: "whist"}, {0: 6, 1: 1, 2: 3}))
    # 10 (dealer 0): 6C by 1, both whist, 7/1/2: pool 1 +2; 2→1 4, 0→1 8; short 1, 2 took less than
    # his half (2): he answers, V = 2 to his mountain
    t.deal(contract(1, "6C", {2: "whist", 0: "whist"}, {1: 7, 2: 1, 0: 2}))
    assert t.state.next_dealer == 1  # ten deals: passed clockwise whatever happened
    assert t.pools == [2, 16, 14]
    # 0: 10 + 12 + 24 + 16 + 10 = 72; 1: 12 + 36 = 48; 2: 10 + 16 − 12 + 2 = 16
    assert t.mountains == [72, 48, 16]
    assert t.whists == {(2, 1): 12, (0, 1): 16, (1, 2): 12, (0, 2): 4, (1, 0): 48, (2, 0): 56}


# --- a whole pulka, 4 players ------------------------------------------------


def test_whole_pulka_four_players():
    t = Table("fspr", players=4)
    # 1 (dealer 0): 6H by 1, 2 and 3 whist, 5/3/2: u = 1, mountain 1 +4; 2→1 12 + 4, 3→1 8 + 4;
    # the dealer's consolation 4 and the marriage in the talon 1 × 4: 0→1 8
    t.deal(contract(1, "6H", {2: "whist", 3: "whist"}, {1: 5, 2: 3, 3: 2}, talon={"bonus": "marriage"}))
    # 2 (dealer 1): all-pass, cost 2, the dealer plays the talon's two tricks: 2 +8, 3 +6, 0 +2, 1 +4
    t.deal(allpass({2: 4, 3: 3, 0: 1, 1: 2}))
    # 3 (dealer 2): 7S by 3, 0 passes, 1 half-whists, the dealer whists; 6/2/2: u = 1, mountain 3 +8;
    # the dealer writes the 4 tricks × 8 = 32 and 8 consolation: 2→3 40; 0→3 8, 1→3 8; failed, the
    # streak goes on
    t.deal(contract(3, "7S", {0: "pass", 1: "half_whist", 2: "whist"}, {3: 6, 0: 2, 1: 2}))
    assert t.state.streak == 1
    # 4 (dealer 3): second all-pass, cost 4: 0 +24, 1 +16; 2 clean: +4 to the pool; the dealer clean: nothing
    t.deal(allpass({0: 6, 1: 4, 2: 0, 3: 0}))
    # 5 (dealer 0): misère by 1 made: pool 1 +10; the streak goes on
    t.deal(misere(1, 0))
    # 6 (dealer 1): third all-pass, cost 6: 2 +18, 3 +18, 0 +12, dealer 1 +12
    t.deal(allpass({2: 3, 3: 3, 0: 2, 1: 2}))
    # 7 (dealer 2): 8S by 0, pass, pass: pool 0 +6, the streak goes on; two aces: 3 × 12 = 36 from the dealer
    t.deal(contract(0, "8S", {1: "pass", 3: "pass"}, talon={"bonus": "two_aces"}))
    assert t.state.streak == 3
    # 8 (dealer 3): all-pass, cost 6: 1 +30, 2 +18, dealer 3 +12; 0 clean writes off 12
    t.deal(allpass({0: 0, 1: 5, 2: 3, 3: 2}, choices={"writeoff": [0]}))
    # 9 (dealer 0): 9NT by 2, 3 and 1 whist, 9/1/0: pool 2 +8; 3→2 16; the obligation 1 is met
    t.deal(contract(2, "9NT", {3: "whist", 1: "whist"}, {2: 9, 3: 1, 1: 0}))
    assert t.state.streak == 0
    assert t.pools == [6, 10, 12, 0]
    # 0: 2 + 24 + 12 − 12; 1: 4 + 4 + 16 + 12 + 30; 2: 8 + 18 + 18; 3: 6 + 8 + 18 + 12
    assert t.mountains == [26, 66, 44, 44]
    assert t.whists == {
        (2, 1): 16,
        (3, 1): 12,
        (0, 1): 8,
        (2, 3): 40,
        (0, 3): 8,
        (1, 3): 8,
        (2, 0): 36,
        (3, 2): 16,
    }
