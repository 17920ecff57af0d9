"""The whole service's invariants, as a model-based test: hypothesis's ``RuleBasedStateMachine``
drives random interleavings of the API against a real ``prefscore serve`` (a subprocess on a
free 127.0.0.1 port, on the suite's database: SQLite, or PostgreSQL with
PREFSCORE_TEST_DATABASE_URL), some steps several requests at once from threads, and keeps a
model of what the service acknowledged. After every step it checks:

- every acknowledged deal is stored (as posted or as corrected), unless an acknowledged undo or
  DELETE removed it; a deleted table is 404;
- every tournament's round statuses are the model's, and its standings equal a recomputation
  from the stored tables (their settlements) and the acknowledged adjustments;
- every registered player's rating equals the rating model run over the finished rated tables
  in the order they finished, from new ratings;
- every acknowledged change gave each endpoint that wanted it exactly one webhook event (one
  webhook-id, repeats carrying the same body), and no webhook-id was ever given to two events;
- no answer was a 5xx.

How to run it longer, and with a random seed: tests/invariants/README.md.
"""

from __future__ import annotations

import functools
import json
import math
import os
import secrets
import threading
import time
import traceback
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, get_state_machine_test, initialize, invariant, rule

from tests.databases import fresh_database, is_postgres_run
from tests.hardening.harness import Server
from tests.support.receiver import Receiver

EXAMPLES = int(os.environ.get("PREFSCORE_INVARIANTS_EXAMPLES", "8"))
STEPS = int(os.environ.get("PREFSCORE_INVARIANTS_STEPS", "25"))
# Unset: the same examples every run (CI is reproducible). "random": a new seed, printed, each
# run. A number: that seed again (to replay a run that failed).
SEED = os.environ.get("PREFSCORE_INVARIANTS_SEED", "")
# Set: a failing example is shrunk (slow); unset, the failure is reported with its steps as run.
SHRINK = bool(os.environ.get("PREFSCORE_INVARIANTS_SHRINK"))
# How long the webhook deliveries of a step may take to arrive.
DELIVERY_WAIT = float(os.environ.get("PREFSCORE_INVARIANTS_DELIVERY_WAIT", "10"))

ADMIN_KEY = "pk_invariants_admin_" + secrets.token_urlsafe(16)
ENV = {
    "PREFSCORE_WEBHOOKS_ALLOWED_NETWORKS": "127.0.0.0/8",
    "PREFSCORE_WEBHOOKS_POLL_INTERVAL": "0.1",
    "PREFSCORE_WEBHOOKS_RETRY_SCHEDULE": "0.5",
    "PREFSCORE_THREADS": "8",
}

EVENT_TYPES = (
    "deal.posted",
    "deal.undone",
    "deal.corrected",
    "table.finished",
    "table.renamed",
    "table.archived",
    "table.deleted",
    "tournament.standings",
    "rating.changed",
)


# Which table, round or endpoint a step acts on: an index into what the model has then. Never a
# draw from the model's state: concurrent steps make the state differ from one run of the same
# example to the next, and hypothesis must draw the same values on a replay.
PICK = st.integers(0, 2**16 - 1)


def choose(options: Any, pick: int) -> Any:
    options = list(options)
    return options[pick % len(options)]


def pass_6s(declarer: int) -> dict[str, Any]:
    return {
        "type": "contract",
        "declarer": declarer,
        "contract": "6S",
        "defenders": {str(s): "pass" for s in range(3) if s != declarer},
    }


ALLPASS = {"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 3}}
WHIST_7H = {
    "type": "contract",
    "declarer": 0,
    "contract": "7H",
    "defenders": {"1": "whist", "2": "pass"},
    "tricks": {"0": 7, "1": 3, "2": 0},
}
DEALS = st.sampled_from([pass_6s(0), pass_6s(1), pass_6s(2), ALLPASS, WHIST_7H])


STATS: Counter[str] = Counter()  # requests by method and status, for the run's summary
TIMES: Counter[str] = Counter()  # seconds spent, for the run's summary


class ServerError(AssertionError):
    pass


# The first failure of the run with the steps that led to it: a replay of a concurrent run may
# draw differently (an answer decides the next step), so that hypothesis's own report of it
# can be a FlakyStrategyDefinition instead.
FAILURES: list[str] = []


def recorded(step: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(step)
    def run(self: ServiceMachine, *args: Any, **kwargs: Any) -> Any:
        shown = {**{f"arg{i}": v for i, v in enumerate(args)}, **kwargs}
        if not step.__name__.startswith("check_"):
            self.steps.append(f"{step.__name__}({', '.join(f'{k}={v!r}' for k, v in shown.items())})")
        try:
            return step(self, *args, **kwargs)
        except BaseException as exc:
            if not FAILURES:
                FAILURES.append(
                    f"{''.join(traceback.format_exception(exc))}\nthe steps of the example:\n  "
                    + "\n  ".join(self.steps)
                )
            raise

    return run


# --------------------------------------------------------------------------- the live service


@dataclass
class Service:
    url: str
    receiver: Receiver
    # Every webhook-id ever received by this database's receiver: the endpoint (path) and body
    # it first came with.
    seen_ids: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    reused_ids: dict[str, str] = field(default_factory=dict)  # id: the path it was first given to
    gone_paths: set[str] = field(default_factory=set)  # the endpoints deleted
    deleted_while_posting: bool = False  # an endpoint was deleted with a delivery under way


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory):
    from app.kit.db import migrate

    workdir = tmp_path_factory.mktemp("invariants")
    receiver = Receiver()
    with fresh_database(workdir, "invariants") as url:
        migrate.upgrade(url)
        server = Server(url, workdir, ADMIN_KEY, env=ENV, upgrade=False, name="invariants")
        server.start()
        try:
            yield Service(server.url, receiver)
        finally:
            server.stop(timeout=10)
            receiver.close()


# --------------------------------------------------------------------------- the model


@dataclass
class TableM:
    id: str
    link: str  # the scorer link's token
    rated: bool = False
    players: list[str] | None = None  # registered players, seat 0 first
    deals: dict[int, dict[str, Any]] = field(default_factory=dict)
    finished: bool = False
    archived: bool = False
    locked: bool = False
    tournament: str | None = None
    round: int | None = None
    seats: list[int] = field(default_factory=list)  # a tournament's table: each seat's entrant


@dataclass
class RoundM:
    number: int
    status: str  # open, closed, reopened
    tables: list[str]


@dataclass
class TournamentM:
    id: str
    entrants: int
    rounds: list[RoundM] = field(default_factory=list)
    adjustments: list[tuple[int, Fraction]] = field(default_factory=list)
    planned: int = 3


@dataclass
class EndpointM:
    id: int
    path: str
    types: tuple[str, ...]
    active: bool = True


def _same_deal(stored: dict[str, Any], body: dict[str, Any]) -> bool:
    return all(stored.get(k) == v for k, v in body.items())


class ServiceMachine(RuleBasedStateMachine):
    service: Service  # set by the test

    def __init__(self) -> None:
        super().__init__()
        self.http = httpx.Client(
            base_url=self.service.url, timeout=60, limits=httpx.Limits(max_connections=16)
        )
        self.owner = f"inv-{uuid.uuid4().hex[:10]}"
        self.tables: dict[str, TableM] = {}
        self.deleted: set[str] = set()
        self.tournaments: dict[str, TournamentM] = {}
        self.endpoints: dict[int, EndpointM] = {}
        self.gone_endpoints: dict[str, EndpointM] = {}
        self.expected: dict[str, Counter[tuple[str, str]]] = defaultdict(Counter)  # by endpoint path
        self.finish_order: list[str] = []  # the rated tables with registered players, as they finished
        self.players: list[str] = []
        self.made_by_draws: set[str] = set()
        self.uncounted: set[str] = (
            set()
        )  # endpoints deleted while an event was under way  # events a refused draw/swap may have emitted (a known bug)
        self.n = 0
        self.key = ""
        self.steps: list[str] = []

    # ----------------------------------------------------------------- requests

    def call(
        self, method: str, path: str, *, key: bool = True, client: httpx.Client | None = None, **kw: Any
    ) -> httpx.Response:
        """A request (by ``client``: a thread's own, for the steps that send several at once)."""
        headers = dict(kw.pop("headers", None) or {})
        if key:
            headers["Authorization"] = f"Bearer {self.key}"
        r = (client or self.http).request(method, path, headers=headers, **kw)
        STATS[f"{method} {r.status_code}"] += 1
        TIMES["requests"] += r.elapsed.total_seconds()
        if r.status_code >= 500:
            raise ServerError(f"{method} {path}: {r.status_code} {r.text[:500]}")
        return r

    def teardown(self) -> None:
        self.http.close()

    # ----------------------------------------------------------------- events the model expects

    def emit(self, kind: str, subject: str) -> None:
        STATS[f"change {kind}"] += 1
        for ep in self.endpoints.values():
            if ep.active and kind in ep.types:
                self.expected[ep.path][(kind, subject)] += 1

    # ----------------------------------------------------------------- set-up

    @initialize()
    @recorded
    def start(self) -> None:
        r = self.http.post(
            "/v1/keys", json={"owner": self.owner}, headers={"Authorization": f"Bearer {ADMIN_KEY}"}
        )
        assert r.status_code == 201, r.text
        self.key = r.json()["key"]
        for name in ("Anna", "Boris", "Vera"):
            r = self.call("POST", "/v1/players", json={"name": name})
            assert r.status_code == 201, r.text
            self.players.append(r.json()["id"])
        # Something to act on from the first step: an endpoint that wants every event, a rated
        # table and a plain one, a tournament with its first round drawn.
        self.create_endpoint(set(EVENT_TYPES))
        self.create_table(True)
        self.create_table(False)
        self.create_tournament()
        self.draw_round(0, 1)

    # ----------------------------------------------------------------- tables

    def _live_tables(self, *, tournament: bool | None = None) -> list[TableM]:
        return [
            t for t in self.tables.values() if tournament is None or (t.tournament is not None) == tournament
        ]

    @rule(rated=st.booleans())
    @recorded
    def create_table(self, rated: bool) -> None:
        if not (len(self._live_tables(tournament=False)) < 4):
            return
        seats: list[Any] = ["Anna", "Boris", "Vera"]
        if rated:
            seats = [{"name": n, "player": p} for n, p in zip(seats, self.players)]
        r = self.call(
            "POST",
            "/v1/tables",
            json={"players": seats, "convention": "sochi", "pool_target": 2, "rated": rated},
        )
        assert r.status_code == 201, r.text
        tid = r.json()["id"]
        link = self.call("POST", f"/v1/tables/{tid}/scorer-link")
        assert link.status_code == 201, link.text
        self.tables[tid] = TableM(
            tid, link.json()["token"], rated=rated, players=list(self.players) if rated else None
        )

    def _deals_path(self, t: TableM, by_link: bool) -> str:
        return f"/v1/score/{t.link}/deals" if by_link else f"/v1/tables/{t.id}/deals"

    def _post(
        self, t: TableM, body: dict[str, Any], by_link: bool, idem: str, client: httpx.Client | None = None
    ) -> httpx.Response:
        return self.call(
            "POST",
            self._deals_path(t, by_link),
            key=not by_link,
            json=body,
            headers={"Idempotency-Key": idem},
            client=client,
        )

    def _own_client(self) -> httpx.Client:
        return httpx.Client(base_url=self.service.url, timeout=60)

    def _acknowledged_post(self, t: TableM, body: dict[str, Any], r: httpx.Response) -> None:
        """The model's side of a 201 to a deal post (not a replay)."""
        answer = r.json()
        number = answer["deal"]["number"]
        assert number not in t.deals, f"deal {number} of {t.id} acknowledged twice"
        t.deals[number] = body
        self.emit("deal.posted", t.id)
        finished = answer["sheet"]["finished"]
        if finished and not t.finished:
            self.emit("table.finished", t.id)
            if t.rated:
                self.finish_order.append(t.id)
                self.emit("rating.changed", t.id)
        t.finished = finished
        self._round_may_close(t)

    def _round_may_close(self, t: TableM) -> None:
        """A round never reopened closes when its last table finishes (by the deal that finishes it)."""
        if t.tournament is None:
            return
        tour = self.tournaments[t.tournament]
        rnd = tour.rounds[t.round - 1]
        if rnd.status == "open" and all(self.tables[x].finished for x in rnd.tables):
            rnd.status = "closed"
            for x in rnd.tables:
                self.tables[x].locked = True
            self.emit("tournament.standings", tour.id)

    def _post_refused(self, t: TableM, r: httpx.Response) -> None:
        assert r.status_code in (404, 409, 422), (r.status_code, r.text)
        if r.status_code == 404:
            assert t.id in self.deleted, f"{t.id}: a live table answered 404: {r.text}"

    @rule(pick=PICK, body=DEALS, by_link=st.booleans(), replay=st.booleans())
    @recorded
    def post_deal(self, pick: int, body: dict[str, Any], by_link: bool, replay: bool) -> None:
        if not (self.tables):
            return
        t = choose(list(self.tables.values()), pick)
        idem = uuid.uuid4().hex
        r = self._post(t, body, by_link, idem)
        if r.status_code != 201:
            self._post_refused(t, r)
            return
        self._acknowledged_post(t, body, r)
        if replay:  # an offline client sending its deal again: the same answer, nothing new stored
            again = self._post(t, body, by_link, idem)
            assert again.status_code == 201, again.text
            assert again.headers.get("Idempotent-Replayed") == "true"
            assert again.json()["deal"]["number"] == r.json()["deal"]["number"]

    @rule(
        pick=PICK,
        bodies=st.lists(DEALS, min_size=2, max_size=4),
        links=st.lists(st.booleans(), min_size=4, max_size=4),
    )
    @recorded
    def post_at_once(self, pick: int, bodies: list[dict[str, Any]], links: list[bool]) -> None:
        """Several posts at one table at the same moment (by key and by link), then each replayed."""
        if not (self.tables):
            return
        t = choose(list(self.tables.values()), pick)
        keys = [uuid.uuid4().hex for _ in bodies]
        barrier = threading.Barrier(len(bodies))

        def one(i: int) -> httpx.Response:
            with self._own_client() as client:
                barrier.wait(5)
                return self._post(t, bodies[i], links[i], keys[i], client)

        with ThreadPoolExecutor(len(bodies)) as pool:
            answers = list(pool.map(one, range(len(bodies))))
        acked = sorted((r.json()["deal"]["number"], i) for i, r in enumerate(answers) if r.status_code == 201)
        for r in answers:
            if r.status_code != 201:
                self._post_refused(t, r)
        for _number, i in acked:  # in the order the service numbered them
            self._acknowledged_post(t, bodies[i], answers[i])
        for number, i in acked:
            again = self._post(t, bodies[i], links[i], keys[i])
            assert again.status_code == 201 and again.json()["deal"]["number"] == number, again.text

    def _ranks(self, t: TableM) -> list[int] | None:
        r = self.call("GET", f"/v1/tables/{t.id}/settlement")
        assert r.status_code == 200, r.text
        from app.ratings.model import ranks_of

        return ranks_of([Fraction(p["balance_exact"]) for p in r.json()["players"]])

    def _after_change(self, t: TableM, finished: bool, ranks_before: list[int] | None) -> None:
        """The ratings' side of an undo or a correction of ``t``."""
        was = t.finished
        t.finished = finished
        if not t.rated:
            return
        if was and not finished:
            self.finish_order.remove(t.id)
            self.emit("rating.changed", t.id)
        elif was and finished and self._ranks(t) != ranks_before:
            self.emit("rating.changed", t.id)
        elif not was and finished:
            self.finish_order.append(t.id)
            self.emit("rating.changed", t.id)

    @rule(pick=PICK, by_link=st.booleans())
    @recorded
    def undo(self, pick: int, by_link: bool) -> None:
        if not (any(t.deals for t in self.tables.values())):
            return
        t = choose([t for t in self.tables.values() if t.deals], pick)
        last = max(t.deals)
        ranks = self._ranks(t) if t.rated and t.finished else None
        path = f"/v1/score/{t.link}/deals/{last}" if by_link else f"/v1/tables/{t.id}/deals/{last}"
        r = self.call("DELETE", path, key=not by_link)
        if r.status_code != 200:
            assert r.status_code == 409 and (t.locked or t.archived), (r.status_code, r.text)
            return
        assert not t.locked and not t.archived, f"an undo at a locked or archived table was taken: {r.text}"
        del t.deals[last]
        self.emit("deal.undone", t.id)
        self._after_change(t, r.json()["sheet"]["finished"], ranks)

    @rule(pick=PICK, body=DEALS, by_link=st.booleans())
    @recorded
    def correct(self, pick: int, body: dict[str, Any], by_link: bool) -> None:
        if not (any(t.deals for t in self.tables.values())):
            return
        t = choose([t for t in self.tables.values() if t.deals], pick)
        number = choose(sorted(t.deals), pick // 97)
        ranks = self._ranks(t) if t.rated and t.finished else None
        path = f"/v1/score/{t.link}/deals/{number}" if by_link else f"/v1/tables/{t.id}/deals/{number}"
        r = self.call("PUT", path, key=not by_link, json=body)
        if r.status_code != 200:
            assert r.status_code in (409, 422), (r.status_code, r.text)
            return
        assert not t.locked and not t.archived, (
            f"a correction at a locked or archived table was taken: {r.text}"
        )
        t.deals[number] = body
        self.emit("deal.corrected", t.id)
        self._after_change(t, r.json()["sheet"]["finished"], ranks)

    @rule(pick=PICK, what=st.sampled_from(["title", "archive", "unarchive", "share"]))
    @recorded
    def change_table(self, pick: int, what: str) -> None:
        if not (self.tables):
            return
        t = choose(list(self.tables.values()), pick)
        self.n += 1
        if what == "share":  # a new share link
            r = self.call("POST", f"/v1/tables/{t.id}/share-token")
        else:
            body: dict[str, Any] = (
                {"title": f"стол {self.n}"} if what == "title" else {"archived": what == "archive"}
            )
            r = self.call("PATCH", f"/v1/tables/{t.id}", json=body)
        assert r.status_code == 200, r.text
        if what in ("title", "share"):
            self.emit("table.renamed", t.id)
        elif t.archived != (what == "archive"):
            t.archived = what == "archive"
            self.emit("table.archived", t.id)

    @rule(pick=PICK)
    @recorded
    def delete_table(self, pick: int) -> None:
        if not (self._live_tables(tournament=False)):
            return
        t = choose(self._live_tables(tournament=False), pick)
        r = self.call("DELETE", f"/v1/tables/{t.id}")
        assert r.status_code == 204, r.text
        self._forget(t)

    def _forget(self, t: TableM) -> None:
        del self.tables[t.id]
        self.deleted.add(t.id)
        if t.id in self.finish_order:
            self.finish_order.remove(t.id)
            self.emit("rating.changed", t.id)
        self.emit("table.deleted", t.id)

    # ----------------------------------------------------------------- tournaments

    @rule()
    @recorded
    def create_tournament(self) -> None:
        if not (len(self.tournaments) < 2):
            return
        r = self.call(
            "POST",
            "/v1/tournaments",
            json={
                "name": f"Турнир {len(self.tournaments) + 1}",
                "convention": "sochi",
                "game_end": {"kind": "deals", "deals": 2},
                "rounds": 3,
                "entrants": ["Anna", "Boris", "Vera", "Gleb", "Dasha", "Egor"],
            },
        )
        assert r.status_code == 201, r.text
        self.tournaments[r.json()["id"]] = TournamentM(r.json()["id"], 6)

    def _tables_of_answer(self, tour: TournamentM, answer: dict[str, Any]) -> None:
        """Take the round tables an answer (draw or swap) shows that the model does not know yet."""
        for rnd in answer["rounds"]:
            for tab in rnd["tables"]:
                tid = tab["table_id"]
                if tid in self.tables or tid in self.deleted:
                    continue
                assert "scorer_link" in tab, (
                    f"round {rnd['number']}: table {tab['number']} made by this answer shows no scorer link"
                )
                token = tab["scorer_link"].rsplit("/", 1)[-1]
                self.tables[tid] = TableM(
                    tid,
                    token,
                    tournament=tour.id,
                    round=rnd["number"],
                    seats=[s["entrant"] for s in tab["seats"]],
                )
                self.made_by_draws.add(tid)

    @rule(pick=PICK, seed=st.integers(0, 1000))
    @recorded
    def draw_round(self, pick: int, seed: int) -> None:
        if not (self.tournaments):
            return
        tour = choose(list(self.tournaments.values()), pick)
        r = self.call("POST", f"/v1/tournaments/{tour.id}/rounds", json={"seed": seed})
        can = len(tour.rounds) < tour.planned and all(x.status == "closed" for x in tour.rounds)
        if r.status_code != 201:
            assert r.status_code == 409 and not can, (r.status_code, r.text)
            return
        assert can, f"a draw was taken with a round open or all drawn: {r.text[:300]}"
        answer = r.json()
        number = len(tour.rounds) + 1
        rnd = answer["rounds"][number - 1]
        tour.rounds.append(RoundM(number, "open", [tab["table_id"] for tab in rnd["tables"]]))
        self._tables_of_answer(tour, answer)
        self.emit("tournament.standings", tour.id)

    def _open_rounds(self) -> list[tuple[TournamentM, RoundM]]:
        return [
            (tour, rnd) for tour in self.tournaments.values() for rnd in tour.rounds if rnd.status != "closed"
        ]

    def _closed_rounds(self) -> list[tuple[TournamentM, RoundM]]:
        return [
            (tour, rnd) for tour in self.tournaments.values() for rnd in tour.rounds if rnd.status == "closed"
        ]

    def _swap_answer(self, tour: TournamentM, rnd: RoundM, a: int, b: int, r: httpx.Response) -> None:
        old = [x for x in rnd.tables if a in self.tables[x].seats or b in self.tables[x].seats]
        if r.status_code != 200:
            assert r.status_code in (409, 422), (r.status_code, r.text)
            return
        for x in old:
            assert not self.tables[x].deals, (
                f"a swap deleted table {x}, which holds acknowledged deals {sorted(self.tables[x].deals)}"
            )
        answer = r.json()
        rnd.tables = [tab["table_id"] for tab in answer["rounds"][rnd.number - 1]["tables"]]
        for x in old:
            if x not in rnd.tables:
                self._forget(self.tables[x])
        self._tables_of_answer(tour, answer)
        self.emit("tournament.standings", tour.id)

    @rule(pick=PICK, pair=st.lists(st.integers(1, 6), min_size=2, max_size=2, unique=True))
    @recorded
    def swap(self, pick: int, pair: list[int]) -> None:
        if not (self._open_rounds()):
            return
        tour, rnd = choose(self._open_rounds(), pick)
        a, b = pair
        r = self.call("POST", f"/v1/tournaments/{tour.id}/rounds/{rnd.number}/swap", json={"a": a, "b": b})
        self._swap_answer(tour, rnd, a, b, r)

    @rule(
        pick=PICK,
        other=st.integers(1, 6),
        body=DEALS,
        by_link=st.booleans(),
        late=st.sampled_from([0, 0.002, 0.005, 0.01, 0.02]),
    )
    @recorded
    def swap_racing_a_post(
        self, pick: int, other: int, body: dict[str, Any], by_link: bool, late: float
    ) -> None:
        """A deal posted at a table at the moment its round's director swaps a player of it."""
        if not (self._open_rounds()):
            return
        tour, rnd = choose(self._open_rounds(), pick)
        t = self.tables[choose(rnd.tables, pick // 97)]
        a = t.seats[0]
        b = other if other != a else t.seats[1]
        barrier = threading.Barrier(2)

        def post() -> httpx.Response:
            with self._own_client() as client:
                barrier.wait(5)
                time.sleep(late)  # 0 to 20 ms after the swap was sent
                return self._post(t, body, by_link, uuid.uuid4().hex, client)

        def swap() -> httpx.Response:
            with self._own_client() as client:
                barrier.wait(5)
                return self.call(
                    "POST",
                    f"/v1/tournaments/{tour.id}/rounds/{rnd.number}/swap",
                    json={"a": a, "b": b},
                    client=client,
                )

        with ThreadPoolExecutor(2) as pool:
            posted, swapped = pool.submit(post), pool.submit(swap)
            p, s = posted.result(), swapped.result()
        STATS[f"race: post {p.status_code}, swap {s.status_code}"] += 1
        if p.status_code == 201:
            self._acknowledged_post(t, body, p)
        elif p.status_code == 404:
            assert s.status_code == 200, f"a deal at a live table answered 404: {p.text}"
        else:
            self._post_refused(t, p)
        self._swap_answer(tour, rnd, a, b, s)

    @rule(pick=PICK, body=DEALS, by_link=st.booleans(), late=st.sampled_from([0, 0.002, 0.005, 0.01]))
    @recorded
    def close_racing_a_post(self, pick: int, body: dict[str, Any], by_link: bool, late: float) -> None:
        """A deal posted at a table at the moment its director closes the round: the deal is
        either stored first (and counts in the closed round) or refused as locked."""
        if not (self._open_rounds()):
            return
        tour, rnd = choose(self._open_rounds(), pick)
        t = self.tables[choose(rnd.tables, pick // 97)]
        barrier = threading.Barrier(2)

        def post() -> httpx.Response:
            with self._own_client() as client:
                barrier.wait(5)
                time.sleep(late)
                return self._post(t, body, by_link, uuid.uuid4().hex, client)

        def close() -> httpx.Response:
            with self._own_client() as client:
                barrier.wait(5)
                return self.call(
                    "POST", f"/v1/tournaments/{tour.id}/rounds/{rnd.number}/close", client=client
                )

        with ThreadPoolExecutor(2) as pool:
            posted, closed = pool.submit(post), pool.submit(close)
            p, c = posted.result(), closed.result()
        STATS[f"race: post {p.status_code}, close {c.status_code}"] += 1
        if p.status_code == 201:
            self._acknowledged_post(t, body, p)
        else:
            self._post_refused(t, p)
        if c.status_code == 200:
            assert rnd.status != "closed", (
                f"round {rnd.number} closed by its last table's deal and again by its director"
            )
            self._closed(tour, rnd)
        else:
            assert c.status_code == 409 and rnd.status == "closed", (c.status_code, c.text)

    def _closed(self, tour: TournamentM, rnd: RoundM) -> None:
        rnd.status = "closed"
        for x in rnd.tables:
            self.tables[x].locked = True
        self.emit("tournament.standings", tour.id)

    @rule(pick=PICK)
    @recorded
    def close_round(self, pick: int) -> None:
        if not (self._open_rounds()):
            return
        tour, rnd = choose(self._open_rounds(), pick)
        r = self.call("POST", f"/v1/tournaments/{tour.id}/rounds/{rnd.number}/close")
        assert r.status_code == 200, r.text
        self._closed(tour, rnd)

    @rule(pick=PICK)
    @recorded
    def reopen_round(self, pick: int) -> None:
        if not (self._closed_rounds()):
            return
        tour, rnd = choose(self._closed_rounds(), pick)
        r = self.call(
            "POST", f"/v1/tournaments/{tour.id}/rounds/{rnd.number}/reopen", json={"reason": "стол 1 ошибся"}
        )
        if r.status_code != 200:  # a later round drawn already
            assert r.status_code == 409, r.text
            return
        rnd.status = "reopened"
        for x in rnd.tables:
            self.tables[x].locked = False
        self.emit("tournament.standings", tour.id)

    @rule(
        pick=PICK,
        entrant=st.integers(1, 6),
        amount=st.sampled_from(["-5", "7/3", "20"]),
        in_round=st.booleans(),
    )
    @recorded
    def adjust(self, pick: int, entrant: int, amount: str, in_round: bool) -> None:
        if not (self.tournaments):
            return
        tour = choose(list(self.tournaments.values()), pick)
        body: dict[str, Any] = {"entrant": entrant, "amount": amount, "reason": "опоздание"}
        rnd = None
        if in_round and tour.rounds:
            rnd = tour.rounds[-1]
            body["round"] = rnd.number
        r = self.call("POST", f"/v1/tournaments/{tour.id}/adjustments", json=body)
        if rnd is not None and rnd.status == "closed":
            assert r.status_code == 409, r.text
            return
        assert r.status_code == 201, r.text
        tour.adjustments.append((entrant, Fraction(amount)))
        self.emit("tournament.standings", tour.id)

    # ----------------------------------------------------------------- webhooks

    @rule(types=st.sets(st.sampled_from(EVENT_TYPES), min_size=1) | st.just(set(EVENT_TYPES)))
    @recorded
    def create_endpoint(self, types: set[str]) -> None:
        if not (len(self.endpoints) < 3):
            return
        path = f"/hook/{self.owner}/{uuid.uuid4().hex[:8]}"
        url = self.service.receiver.url.rsplit("/hook", 1)[0] + path
        ordered = tuple(t for t in EVENT_TYPES if t in types)
        r = self.call("POST", "/v1/webhooks", json={"url": url, "types": list(ordered)})
        assert r.status_code == 201, r.text
        self.endpoints[r.json()["id"]] = EndpointM(r.json()["id"], path, ordered)

    @rule(pick=PICK)
    @recorded
    def pause_or_resume_endpoint(self, pick: int) -> None:
        if not (self.endpoints):
            return
        ep = self.endpoints[choose(sorted(self.endpoints), pick)]
        r = self.call("PATCH", f"/v1/webhooks/{ep.id}", json={"active": not ep.active})
        assert r.status_code == 200, r.text
        ep.active = not ep.active

    @rule(pick=PICK)
    @recorded
    def delete_endpoint(self, pick: int) -> None:
        if not (self.endpoints):
            return
        ep = self.endpoints.pop(choose(sorted(self.endpoints), pick))
        r = self.call("DELETE", f"/v1/webhooks/{ep.id}")
        assert r.status_code == 204, r.text
        self.gone_endpoints[ep.path] = ep
        self.service.gone_paths.add(ep.path)

    @rule(pick=PICK, body=DEALS)
    @recorded
    def delete_endpoint_while_posting(self, pick: int, body: dict[str, Any]) -> None:
        """An endpoint deleted while a deal is posted: its delivery may be written, claimed or in
        flight. Whatever it got is not counted; every other endpoint's deliveries go on, each
        recorded as delivered."""
        if not (self.endpoints and self.tables):
            return
        ep = self.endpoints.pop(choose(sorted(self.endpoints), pick))
        t = choose(list(self.tables.values()), pick // 97)
        barrier = threading.Barrier(2)

        def post() -> httpx.Response:
            with self._own_client() as client:
                barrier.wait(5)
                return self._post(t, body, False, uuid.uuid4().hex, client)

        def delete() -> httpx.Response:
            with self._own_client() as client:
                barrier.wait(5)
                time.sleep(0.005)
                return self.call("DELETE", f"/v1/webhooks/{ep.id}", client=client)

        with ThreadPoolExecutor(2) as pool:
            posted, deleted = pool.submit(post), pool.submit(delete)
            p, d = posted.result(), deleted.result()
        assert d.status_code == 204, d.text
        STATS[f"race: post {p.status_code}, endpoint deleted"] += 1
        self.gone_endpoints[ep.path] = ep
        self.service.gone_paths.add(ep.path)
        self.uncounted.add(ep.path)
        self.service.deleted_while_posting = True
        if p.status_code == 201:
            self._acknowledged_post(t, body, p)
        else:
            self._post_refused(t, p)

    # ----------------------------------------------------------------- ratings

    @rule()
    @recorded
    def read_ratings(self) -> None:
        """A rating read also rates whatever is still pending: the invariant below reads them too."""
        if not (self.players):
            return
        r = self.call("GET", "/v1/ratings")
        assert r.status_code in (200, 404), r.text

    # ----------------------------------------------------------------- the invariants

    @invariant()
    @recorded
    def check_deals_are_stored(self) -> None:
        for t in self.tables.values():
            stored: list[dict[str, Any]] = []
            url: str | None = f"/v1/tables/{t.id}/deals?limit=200"
            while url:
                r = self.call("GET", url)
                assert r.status_code == 200, f"table {t.id}: {r.status_code} {r.text}"
                stored += r.json()["items"]
                url = r.json()["next"]
            numbers = [d["number"] for d in stored]
            assert numbers == sorted(t.deals), (
                f"table {t.id}: stored deals {numbers}, acknowledged {sorted(t.deals)}"
            )
            for d in stored:
                assert _same_deal(d, t.deals[d["number"]]), (
                    f"table {t.id} deal {d['number']}: stored {d}, acknowledged {t.deals[d['number']]}"
                )
        for tid in self.deleted:
            r = self.call("GET", f"/v1/tables/{tid}")
            assert r.status_code == 404, f"deleted table {tid}: {r.status_code}"

    @invariant()
    @recorded
    def check_standings_are_recomputed(self) -> None:
        for tour in self.tournaments.values():
            got = self.call("GET", f"/v1/tournaments/{tour.id}")
            assert got.status_code == 200, got.text
            statuses = [x["status"] for x in got.json()["rounds"]]
            assert statuses == [x.status for x in tour.rounds], (
                f"rounds {statuses}, the model's {[x.status for x in tour.rounds]}"
            )
            scores: dict[int, list[Fraction | None]] = {
                e: [None] * len(tour.rounds) for e in range(1, tour.entrants + 1)
            }
            for rnd in tour.rounds:
                for tid in rnd.tables:
                    t = self.tables[tid]
                    r = self.call("GET", f"/v1/tables/{tid}/settlement")
                    assert r.status_code == 200, r.text
                    if not (r.json()["final"] or rnd.status == "closed"):
                        continue  # a table being played counts nothing yet
                    for seat, p in enumerate(r.json()["players"]):
                        scores[t.seats[seat]][rnd.number - 1] = Fraction(p["balance_exact"])
            adjusted: Counter[int] = Counter()
            for entrant, amount in tour.adjustments:
                adjusted[entrant] += amount
            r = self.call("GET", f"/v1/tournaments/{tour.id}/standings")
            assert r.status_code == 200, r.text
            items = r.json()["items"]
            for item in items:
                rounds = scores[item["entrant"]]
                want_rounds = [None if x is None else x for x in rounds]
                got_rounds = [None if x is None else Fraction(x) for x in item["rounds_exact"]]
                assert got_rounds == want_rounds, (
                    f"{tour.id} entrant {item['entrant']}: rounds {got_rounds}, recomputed {want_rounds}"
                )
                want = sum((x for x in rounds if x is not None), Fraction(0)) + adjusted[item["entrant"]]
                assert Fraction(item["total_exact"]) == want, (
                    f"{tour.id} entrant {item['entrant']}: total {item['total_exact']}, recomputed {want}"
                )
            totals = [Fraction(i["total_exact"]) for i in items]
            assert totals == sorted(totals, reverse=True), f"standings not in order of totals: {totals}"

    @invariant()
    @recorded
    def check_ratings_follow_the_model(self) -> None:
        if not self.players:
            return
        from app.ratings.model import INITIAL, rate

        ratings = {p: INITIAL for p in self.players}
        for tid in self.finish_order:
            t = self.tables[tid]
            r = self.call("GET", f"/v1/tables/{tid}/settlement")
            assert r.status_code == 200 and r.json()["final"], r.text
            balances = [Fraction(p["balance_exact"]) for p in r.json()["players"]]
            for p, after in zip(t.players or [], rate([ratings[p] for p in t.players or []], balances)):
                ratings[p] = after
        for p, want in ratings.items():
            r = self.call("GET", f"/v1/players/{p}/rating")
            assert r.status_code == 200, r.text
            got = r.json()["rating"]
            assert got["games"] == want.games, (
                f"player {p}: {got['games']} rated tables, the model's {want.games}"
            )
            assert math.isclose(got["mu"], want.mu, rel_tol=1e-9) and math.isclose(
                got["sigma"], want.sigma, rel_tol=1e-9
            ), f"player {p}: mu {got['mu']} sigma {got['sigma']}, the model's {want.mu} {want.sigma}"

    @invariant()
    @recorded
    def check_every_change_gave_one_webhook_event(self) -> None:
        began = time.monotonic()
        deadline = began + DELIVERY_WAIT
        while True:
            problems = self._webhook_problems()
            if not problems or time.monotonic() > deadline:
                break
            time.sleep(0.01)
        TIMES["waiting for webhooks"] += time.monotonic() - began
        assert not problems, "webhooks: " + "; ".join(problems)

    def _webhook_problems(self) -> list[str]:
        receiver = self.service.receiver
        with receiver.lock:
            received = list(receiver.received)
        ids: dict[str, dict[tuple[str, str], set[str]]] = defaultdict(lambda: defaultdict(set))
        problems: list[str] = []
        prefix = f"/hook/{self.owner}/"
        for headers, body in received:
            hid = headers["webhook-id"]
            first_path, first_body = self.service.seen_ids.setdefault(hid, (headers["x-path"], body))
            if first_body != body:
                self.service.reused_ids.setdefault(hid, first_path)
            if not headers["x-path"].startswith(prefix):
                continue
            event = json.loads(body)
            data = event["data"]
            subject = data.get("tournament_id") or data.get("table_id")
            ids[headers["x-path"]][(event["type"], subject)].add(hid)
        for hid, first_path in self.service.reused_ids.items():
            problems.append(f"webhook-id {hid} given to two different events (first to {first_path})")
        for ep in self.endpoints.values():
            r = self.call("GET", f"/v1/webhooks/{ep.id}/deliveries?limit=50")
            assert r.status_code == 200, r.text
            for d in r.json()["items"]:
                got = ids.get(ep.path, {}).get((d["type"], d.get("tournament_id") or d["table_id"]), set())
                if d["state"] != "delivered" or d["webhook_id"] not in got:
                    problems.append(
                        f"{ep.path}: delivery {d['webhook_id']} ({d['type']}) {d['state']} in the log, received: {d['webhook_id'] in got}"
                    )
        for path in (set(self.expected) | set(ids)) - self.uncounted:
            want = self.expected.get(path, Counter())
            got = {k: len(v) for k, v in ids.get(path, {}).items()}
            for k in set(want) | set(got):
                w, g = want.get(k, 0), got.get(k, 0)
                if w == g:
                    continue
                kind, subject = k
                problems.append(f"{path} {kind} of {subject}: {g} events, {w} changes")
        return problems


def test_service_invariants(service: Service) -> None:
    ServiceMachine.service = service
    config = settings(
        max_examples=EXAMPLES,
        stateful_step_count=STEPS,
        deadline=None,
        database=None,
        derandomize=not SEED,
        # Shrinking replays the example against the live service many times (minutes): asked for only.
        phases=(Phase.explicit, Phase.reuse, Phase.generate) + ((Phase.shrink,) if SHRINK else ()),
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        print_blob=True,
    )
    test = get_state_machine_test(ServiceMachine, settings=config)
    if SEED:
        chosen = secrets.randbelow(2**32) if SEED == "random" else int(SEED)
        print(f"\ninvariants: PREFSCORE_INVARIANTS_SEED={chosen} replays this run")
        test = hypothesis_seed(chosen)(test)
    started = time.monotonic()
    try:
        test()
    except BaseException as exc:
        if FAILURES:
            raise AssertionError("the first failure of the run:\n" + FAILURES[0]) from exc
        raise
    print(
        f"\ninvariants ({'postgresql' if is_postgres_run() else 'sqlite'}): {EXAMPLES} examples of up to {STEPS} steps "
        f"in {time.monotonic() - started:.1f} s; webhook-ids given twice: {len(service.reused_ids)}; "
        f"webhook requests received: {len(service.receiver.received)}; "
        f"time: { {k: round(v, 1) for k, v in TIMES.items()} }; answers: {dict(sorted((k, v) for k, v in STATS.items() if v))}"
    )
