"""Schemathesis's conformance checks against the served /openapi.json of a live server: every
operation, positive cases, most of them aimed at a real table with a deal, its share link,
its scorer link and a stored key. Each answer must be one the document declares: its status,
its content type, its headers and its body's schema (event streams included, event by event).
Bounded in time (PREFSCORE_CONFORMANCE_EXAMPLES per operation, default 12;
PREFSCORE_FUZZ_SEED for another run)."""

from __future__ import annotations

import os

import httpx
import pytest
import requests
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from .conftest import HARD_ADMIN_KEY
from .harness import create_table

schemathesis = pytest.importorskip("schemathesis")

EXAMPLES = int(os.environ.get("PREFSCORE_CONFORMANCE_EXAMPLES", "12"))
SEED = int(os.environ.get("PREFSCORE_FUZZ_SEED", "20261130"))
DEAL = {"type": "contract", "declarer": 1, "contract": "6S", "defenders": {"0": "pass", "2": "pass"}}
# The destructive operations run last, so that the others meet the table as it was.
_LAST = {"DELETE": 2, "PUT": 1, "POST": 1, "PATCH": 1}


class Aim:
    """What the cases are aimed at: a table with a deal, its share and scorer links, a key.
    Made again when an operation took it away (a deleted table, a new share token), and
    a registered player, and a tournament's share link (its view and its stream)."""

    def __init__(self, url: str, headers: dict[str, str]):
        self.url = url
        self.headers = headers
        key = httpx.post(f"{url}/v1/keys", json={"owner": "conformance"}, headers=headers, timeout=30)
        assert key.status_code == 201, key.text
        listed = httpx.get(f"{url}/v1/keys", headers=headers, timeout=30).json()["items"]
        self.key_id = max(k["id"] for k in listed)
        player = httpx.post(f"{url}/v1/players", json={"name": "Anna"}, headers=headers, timeout=30)
        assert player.status_code == 201, player.text
        self.player_id = player.json()["id"]
        body = {
            "name": "Conformance",
            "convention": "sochi",
            "rounds": 1,
            "game_end": {"kind": "deals", "deals": 1},
            "entrants": ["A", "B", "C"],
        }
        tournament = httpx.post(f"{url}/v1/tournaments", json=body, headers=headers, timeout=30)
        assert tournament.status_code == 201, tournament.text
        self.tournament_token = tournament.json()["share_token"]
        self.table: dict = {}
        self.scorer, self.link_id = "", 0
        self.refresh()

    def refresh(self) -> None:
        table_id = self.table.get("id")
        found = (
            httpx.get(f"{self.url}/v1/tables/{table_id}", headers=self.headers, timeout=30)
            if table_id
            else None
        )
        if found is None or found.status_code != 200:
            self.table = create_table(self.url, self.headers["Authorization"].split()[1])
            r = httpx.post(
                f"{self.url}/v1/tables/{self.table['id']}/deals", json=DEAL, headers=self.headers, timeout=30
            )
            assert r.status_code == 201, r.text
            link = httpx.post(
                f"{self.url}/v1/tables/{self.table['id']}/scorer-link",
                json={},
                headers=self.headers,
                timeout=30,
            )
            assert link.status_code == 201, link.text
            self.scorer, self.link_id = link.json()["token"], link.json()["id"]
        else:
            self.table = found.json()

    def aim(self, case) -> None:
        params = case.path_parameters or {}
        if "table_id" in params:
            params["table_id"] = self.table["id"]
        if "token" in params:
            if case.path.startswith("/v1/score/"):
                params["token"] = self.scorer
            elif case.path.startswith("/v1/shared/{token}/tournament"):
                params["token"] = self.tournament_token
            else:
                params["token"] = self.table["share_token"]
        if "number" in params:
            params["number"] = 1
        for name, value in (
            ("key_id", self.key_id),
            ("player_id", self.player_id),
            ("link_id", self.link_id),
        ):
            if name in params:
                params[name] = value


def test_every_answer_conforms_to_the_served_schema(live):
    from schemathesis import GenerationMode
    from schemathesis.core.failures import Failure, FailureGroup
    from schemathesis.specs.openapi.checks import (
        content_type_conformance,
        response_headers_conformance,
        response_schema_conformance,
        status_code_conformance,
    )

    checks = [
        status_code_conformance,
        content_type_conformance,
        response_headers_conformance,
        response_schema_conformance,
    ]
    target = Aim(live.url, live.headers)
    schema = schemathesis.openapi.from_url(f"{live.url}/openapi.json")
    # An event stream never ends: its first event is read and checked, then it is closed.
    schema.config.max_stream_events = 1
    operations = sorted(
        (r.ok() for r in schema.get_all_operations()), key=lambda o: (_LAST.get(o.method.upper(), 0), o.path)
    )
    assert len(operations) >= 40
    session = requests.Session()
    failures: dict[str, str] = {}
    sent = {"n": 0}

    streams = {o.label for o in operations if o.path.endswith("/events")}
    answered: dict[str, set[int]] = {o.label: set() for o in operations}
    for operation in operations:
        streaming = operation.label in streams

        @seed(SEED)
        @settings(
            max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck)
        )
        @given(case=operation.as_strategy(generation_mode=GenerationMode.POSITIVE), aim=st.integers(0, 3))
        def run(case, aim):
            headers = {k: v for k, v in (case.headers or {}).items() if k.lower() != "authorization"}
            if aim:  # three cases in four aimed at the real table, with the key
                target.aim(case)
                headers["Authorization"] = live.headers["Authorization"]
            elif case.headers and "Authorization" in case.headers:
                headers["Authorization"] = case.headers["Authorization"]
            # A stream's first event comes at once; one with nothing to send yet is cut short.
            response = case.call(
                base_url=live.url, session=session, headers=headers, timeout=2 if streaming else 10
            )
            sent["n"] += 1
            answered[operation.label].add(response.status_code)
            try:
                case.validate_response(response, checks=checks, headers=headers)
            except FailureGroup as group:  # one report per operation, status and failure
                for failure in group.exceptions:
                    where = f"{case.method} {case.path} -> {response.status_code}: {failure.title}"
                    failures.setdefault(where, f"{where}\n{str(failure)[:1200]}")
            except Failure as failure:
                where = f"{case.method} {case.path} -> {response.status_code}: {failure.title}"
                failures.setdefault(where, f"{where}\n{str(failure)[:1200]}")
            if case.method != "GET":
                target.refresh()

        run()

    print(
        f"\nschemathesis conformance: {sent['n']} requests over {len(operations)} operations, {len(failures)} failing"
    )
    for label, statuses in answered.items():
        print(f"  {label}: {sorted(statuses)}")
    assert not failures, "\n\n".join(failures.values())
    assert sent["n"] >= len(operations) * 2


def test_the_links_429_conforms_to_the_served_schema(servers, fresh_db):
    """With a budget of one request per address, every share and scorer link route answers
    429 (the links are counted by address before anything else): each such answer is one the
    document declares, with its Retry-After."""
    from schemathesis import GenerationMode
    from schemathesis.specs.openapi.checks import (
        content_type_conformance,
        response_headers_conformance,
        response_schema_conformance,
        status_code_conformance,
    )

    checks = [
        status_code_conformance,
        content_type_conformance,
        response_headers_conformance,
        response_schema_conformance,
    ]
    env = {"PREFSCORE_ANONYMOUS_RATE_LIMIT": "1", "PREFSCORE_RATE_LIMIT_WINDOW": "3600"}
    server = servers.start(fresh_db, env=env)
    headers = {"Authorization": f"Bearer {HARD_ADMIN_KEY}"}
    target = Aim(server.url, headers)
    schema = schemathesis.openapi.from_url(f"{server.url}/openapi.json")
    schema.config.max_stream_events = 1
    linked = [
        o
        for o in (r.ok() for r in schema.get_all_operations())
        if o.path.startswith(("/v1/shared/", "/v1/score/"))
    ]
    assert (
        len(linked) == 14
    )  # the tables' share and scorer links, and a tournament's share link and its stream
    session = requests.Session()
    refused = []
    for operation in linked:

        @seed(SEED)
        @settings(max_examples=1, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        @given(case=operation.as_strategy(generation_mode=GenerationMode.POSITIVE))
        def run(case):
            target.aim(case)
            for _ in range(2):  # the budget's one request may be this one
                response = case.call(base_url=server.url, session=session, timeout=2)
                if response.status_code == 429:
                    break
            assert response.status_code == 429, (
                case.operation.label,
                response.status_code,
                response.text[:300],
            )
            retry = {k.lower(): v for k, v in response.headers.items()}["retry-after"]
            assert (retry[0] if isinstance(retry, list) else retry).isdigit()
            case.validate_response(response, checks=checks)
            refused.append(case.operation.label)

        run()
    assert sorted(set(refused)) == sorted(o.label for o in linked)
