"""Write a long generated log straight into a table of a checkout's database, with the
checkout's own code (run by bench/attacks.py in a subprocess whose sys.path starts with the
checkout): ``python bench/attacks_fill.py CHECKOUT REPO DATABASE_URL TABLE_ID DEALS SEED [POOL_TARGET]``.

bench/bigtable.py fills its long table with it too; the log generator is found where the checkout keeps it."""

from __future__ import annotations

import random
import sys


def fill(url: str, table_id: str, deals: int, seed: int, pool_target: int = 1_000_000) -> None:
    """Write ``deals`` generated deals into the table, as the service would have stored them;
    the default pool target is far beyond any game's (the log never finishes), more than the
    service accepts from a client (1,000): such a table is not exported."""
    from sqlalchemy import create_engine, insert, update

    from app.deals.orm import DealRow
    from app.deals.service import entries_to_json
    from app.kit.db.models import utcnow
    from app.rules import RULES_VERSION, make_rules
    from app.tables.orm import TableRow

    try:
        from tests.support.deallog import generate_log
    except ImportError:
        from bench.deallog import generate_log  # type: ignore[no-redef]

    rules = make_rules("sochi", players=3, pool_target=pool_target, options={})
    log = generate_log(rules, 0, random.Random(seed), deals)
    if len(log.deals) != deals:
        raise SystemExit("the generated table finished early")
    engine = create_engine(url)
    now = utcnow()
    with engine.begin() as conn:
        conn.execute(
            insert(DealRow.__table__),
            [
                {
                    "table_id": table_id,
                    "number": n,
                    "body": d.to_dict(),
                    "entries": entries_to_json(e),
                    "created_at": now,
                    # the seat that dealt it, where the checkout stores it
                    **({"dealer": log.states[n - 1].next_dealer} if "dealer" in DealRow.__table__.c else {}),
                }
                for n, (d, e) in enumerate(zip(log.deals, log.entries), start=1)
            ],
        )
        conn.execute(
            update(TableRow.__table__)
            .where(TableRow.__table__.c.id == table_id)
            .values(
                pool_target=pool_target,
                options=rules.options,
                state=log.states[-1].to_dict(),
                rules_version=RULES_VERSION,
                deal_count=deals,
                revision=deals,
            )
        )
    engine.dispose()


if __name__ == "__main__":
    checkout, repo, url, table_id, deals, seed = sys.argv[1:7]
    pool_target = int(sys.argv[7]) if len(sys.argv) > 7 else 1_000_000
    # sys.path[0] is bench/ (this script's folder), whose http.py would hide the standard library's
    sys.path[:1] = [checkout, repo]
    fill(url, table_id, int(deals), int(seed), pool_target)
