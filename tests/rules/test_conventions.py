"""docs/rules.md §4 and §5: the classic options with their defaults, refusals."""

import pytest

from app.rules import InvalidTable, conventions_catalog, make_rules

DEFAULTS = {
    "sochi": {
        "stalingrad": False,
        "gentlemen_whist": False,
        "whisted_tens": False,
        "remise": True,
        "allpass_costs": [1],
        "exit_levels": [6],
    },
    "piter": {
        "stalingrad": True,
        "whisted_tens": False,
        "remise": True,
        "allpass_costs": [2, 4, 6],
        "exit_levels": [6, 7, 7],
        "unwhisted_exit": False,
        "clean_writeoff": 1,
        "sliding_allpass": True,
        "return_talon": False,
        "pass_pass_whist": True,
    },
    "piter_gentleman": {"stalingrad": False, "whisted_tens": False, "remise": True, "dealer_clean": False},
    "rostov": {"stalingrad": True, "whisted_tens": False, "dealer_clean": False},
    "vmk": {},
    "piter_races": {"games": 7},
    "fspr": {},
    "classic_1996": {},
}


def test_catalog_lists_the_eight_conventions():
    names = [c["name"] for c in conventions_catalog()]
    assert names == [
        "sochi",
        "piter",
        "piter_gentleman",
        "rostov",
        "vmk",
        "piter_races",
        "fspr",
        "classic_1996",
    ]


@pytest.mark.parametrize("name", list(DEFAULTS))
def test_options_and_defaults_exactly_as_rules_4_1(name):
    players = 4 if name == "piter_races" else 3
    rules = make_rules(name, players=players)
    assert rules.options == DEFAULTS[name]
    catalog = {c["name"]: c for c in conventions_catalog()}
    # every field is listed now; the classic options keep their names and defaults
    listed = {o["name"]: o["default"] for o in catalog[name]["options"]}
    assert {k: listed[k] for k in DEFAULTS[name]} == DEFAULTS[name]
    assert catalog[name]["classic_options"] == list(DEFAULTS[name])


def test_pool_target_defaults():
    assert make_rules("piter", 3).pool_target == 20
    assert make_rules("piter_races", 4).pool_target == 22
    assert make_rules("sochi", 4, pool_target=30).pool_target == 30


def _refused(*args, **kwargs):
    with pytest.raises(InvalidTable) as info:
        make_rules(*args, **kwargs)
    return {e.field for e in info.value.errors}


def test_unknown_option_refused():
    assert "options.colour" in _refused("piter", 3, options={"colour": "red"})


def test_any_field_may_be_overridden_in_any_convention():
    # the first rule table refused these (gentlemen_whist was fixed on in piter, stalingrad
    # in vmk); every field of the table is an option now (docs/rules.md §4.6)
    assert make_rules("piter", 3, options={"gentlemen_whist": False}).single_whister.value == "open"
    assert make_rules("vmk", 3, options={"stalingrad": False}).stalingrad is False


def test_ill_typed_or_out_of_range_options_refused():
    assert "options.stalingrad" in _refused("piter", 3, options={"stalingrad": "yes"})
    assert "options.allpass_costs" in _refused("piter", 3, options={"allpass_costs": [2, 4, 7]})
    assert "options.allpass_costs" in _refused("sochi", 3, options={"allpass_costs": [1, 2, 5]})
    assert "options.allpass_costs" in _refused(
        "piter", 3, options={"allpass_costs": [1, 2, 3]}
    )  # odd under scale 2
    assert "options.exit_levels" in _refused("sochi", 3, options={"exit_levels": [6, 8, 8]})
    assert "options.clean_writeoff" in _refused("piter", 3, options={"clean_writeoff": 3})
    assert "options.games" in _refused("piter_races", 4, options={"games": 0})
    assert "options.games" in _refused("piter_races", 4, options={"games": True})


def test_players_and_target_refused():
    assert "players" in _refused("piter", 5)
    assert "players" in _refused("piter_races", 3)
    assert "pool_target" in _refused("piter", 3, pool_target=0)
    with pytest.raises(InvalidTable):
        make_rules("preferans", 3)


def test_options_take_effect():
    rules = make_rules("piter", 3, options={"allpass_costs": [2, 4, 8], "exit_levels": [6, 7, 8]})
    assert rules.options["allpass_costs"] == [2, 4, 8]
    assert rules.options["exit_levels"] == [6, 7, 8]
