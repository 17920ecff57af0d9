"""docs/rules.md §2: seats, dealer rotation, who is active, defender order; entry signs."""

from .helpers import Table, allpass, contract, written


def test_dealer_moves_to_next_seat_four_players():
    t = Table("sochi", players=4, first_dealer=2)
    dealers = []
    for _ in range(5):
        dealer = t.state.next_dealer
        dealers.append(dealer)
        active = [s for s in range(4) if s != dealer]
        # the active seats are the three others; the dealer may be named explicitly
        t.deal(allpass({active[0]: 3, active[1]: 3, active[2]: 4}, dealer=dealer))
    assert dealers == [2, 3, 0, 1, 2]
    assert t.state.deal_count == 5


def test_defender_order_from_declarers_left_skips_the_dealer():
    # 4 players, dealer 2 (first_dealer=2): declarer 1's defenders in order are 3 (2 sits out)
    # and 0; on an 8 with two whisters the second (0) is responsible (sochi: V/2 = 3).
    t = Table("sochi", players=4, first_dealer=2)
    t.deal(contract(1, "8H", {3: "whist", 0: "whist"}, {1: 10, 3: 0, 0: 0}))
    assert t.mountains == [3, 0, 0, 0]


def test_defender_order_wraps_round_three_players():
    # declarer 2: his left neighbour is 0 (first defender), then 1 (second) -> 1 responsible on 8
    t = Table("sochi")
    t.deal(contract(2, "8H", {0: "whist", 1: "whist"}, {2: 10, 0: 0, 1: 0}))
    assert t.mountains == [0, 3, 0]


def test_written_off_entries_are_negative():
    t = Table("piter")
    wrote = t.deal(allpass({0: 0, 1: 6, 2: 4}))
    # amnesty m = 0, c = 2: 12, 8; clean seat 0 writes 2 off: an entry of -2
    assert wrote == {("mountain", 1): 12, ("mountain", 2): 8, ("mountain", 0): -2}
    assert any(e.kind == "mountain" and e.seat == 0 and e.amount == -2 for e in t.entries)
    assert all(e.to_dict()["kind"] in ("pool", "mountain", "whists") for e in t.entries)


def test_whists_entries_name_whom_they_are_on():
    t = Table("sochi")
    t.deal(contract(1, "7H", {2: "whist", 0: "whist"}, {1: 7, 2: 2, 0: 1}))
    # 2 writes 2*4 = 8 on 1, 0 writes 1*4 = 4 on 1
    assert written(t.entries) == {("pool", 1): 4, ("whists", 2, 1): 8, ("whists", 0, 1): 4}
    assert {"kind": "whists", "seat": 2, "on": 1, "amount": 8} in [e.to_dict() for e in t.entries]
