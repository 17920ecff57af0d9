"""Deal bodies used by the API tests (sochi, 3 players, first dealer 0)."""

PASS_6S = {"type": "contract", "declarer": 0, "contract": "6S", "defenders": {"1": "pass", "2": "pass"}}


def pass_6s(declarer: int) -> dict:
    others = [s for s in range(3) if s != declarer]
    return {
        "type": "contract",
        "declarer": declarer,
        "contract": "6S",
        "defenders": {str(s): "pass" for s in others},
    }


ALLPASS = {"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 3}}

# The README's pulka: sochi, pool target 4 (see README.md "A short pulka").
PULKA = [
    {"type": "contract", "declarer": 1, "contract": "6S", "defenders": {"0": "pass", "2": "pass"}},
    {"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 3}},
    {
        "type": "contract",
        "declarer": 0,
        "contract": "7H",
        "defenders": {"1": "whist", "2": "pass"},
        "tricks": {"0": 7, "1": 3, "2": 0},
    },
    {"type": "misere", "declarer": 2, "tricks": {"2": 0}},
]
