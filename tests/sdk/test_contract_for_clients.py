"""What the generated-client scenarios rely on, asserted on the served document itself, so a
regression names the contract change rather than a compiler error in generated code."""

from __future__ import annotations

from .conftest import Live, contract_gaps


def test_the_served_contract_gives_what_client_programs_rely_on(live: Live) -> None:
    assert contract_gaps(live.spec) == []
