"""Schemathesis against the served /openapi.json of a live server: positive and negative
cases for every operation, some aimed at a real table. No 5xx, and every error is
problem+json. At least 1,000 requests in all; bounded in time (PREFSCORE_FUZZ_EXAMPLES per
operation and mode, default 40; PREFSCORE_FUZZ_SEED for another run)."""

from __future__ import annotations

import os
import random

import httpx
import pytest
import requests
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable

from .harness import create_table

schemathesis = pytest.importorskip("schemathesis")

EXAMPLES = int(os.environ.get("PREFSCORE_FUZZ_EXAMPLES", "40"))
SEED = int(os.environ.get("PREFSCORE_FUZZ_SEED", "20261130"))
MIN_REQUESTS = 1000


def test_fuzz_the_served_schema(live):
    from schemathesis import GenerationMode

    table = create_table(live.url, live.key)
    deal = {"type": "contract", "declarer": 1, "contract": "6S", "defenders": {"0": "pass", "2": "pass"}}
    assert (
        httpx.post(f"{live.url}/v1/tables/{table['id']}/deals", json=deal, headers=live.headers).status_code
        == 201
    )
    schema = schemathesis.openapi.from_url(f"{live.url}/openapi.json")
    session = requests.Session()
    rng = random.Random(SEED)
    sent = {"n": 0}
    failures: list[str] = []
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 10

    streams = {
        path
        for path, item in httpx.get(f"{live.url}/openapi.json").json()["paths"].items()
        if "text/event-stream" in item.get("get", {}).get("responses", {}).get("200", {}).get("content", {})
    }
    assert streams  # the event streams (app/live/router.py)
    for operation in operations:
        streaming = operation.path in streams
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            strategy = operation.as_strategy(generation_mode=mode)

            @seed(SEED)
            @settings(
                max_examples=EXAMPLES,
                deadline=None,
                database=None,
                suppress_health_check=list(HealthCheck),
                derandomize=False,
            )
            @given(case=strategy, aim=st.booleans())
            def run(case, aim):
                if aim and case.path_parameters:
                    if "table_id" in case.path_parameters:
                        case.path_parameters["table_id"] = table["id"]
                    if "token" in case.path_parameters:
                        case.path_parameters["token"] = table["share_token"]
                headers = dict(case.headers or {})
                if rng.random() < 0.9 and "authorization" not in {k.lower() for k in headers}:
                    headers["Authorization"] = f"Bearer {live.key}"
                if streaming:
                    # An event stream never ends: case.call would read it for ever. The same
                    # request is sent with stream=True; its status and headers are checked, a
                    # 200's body is not read (an error's is, as everywhere).
                    try:
                        raw = session.request(
                            case.method,
                            live.url + case.formatted_path,
                            params=case.query,
                            headers={k: str(v) for k, v in headers.items()},
                            stream=True,
                            timeout=30,
                        )
                    except (requests.exceptions.InvalidHeader, UnicodeError, ValueError):
                        return  # a header requests itself refuses to send
                    if raw.status_code < 400:
                        raw.close()
                    response = raw
                else:
                    response = case.call(base_url=live.url, session=session, headers=headers, timeout=30)
                sent["n"] += 1
                where = f"{case.method} {case.formatted_path} [{mode.value}]"
                if response.status_code >= 500:
                    failures.append(
                        f"{where}: {response.status_code} {response.text[:300]} body={str(case.body)[:300]}"
                    )
                elif response.status_code >= 400:
                    ctype = {k.lower(): v for k, v in response.headers.items()}.get("content-type", "")
                    ctype = ctype[0] if isinstance(ctype, list) else ctype
                    ok = ctype.startswith("application/problem+json")
                    if ok:
                        body = response.json()
                        ok = (
                            all(k in body for k in ("type", "title", "status", "detail"))
                            and body["status"] == response.status_code
                        )
                    if not ok:
                        failures.append(
                            f"{where}: {response.status_code} not problem+json: {ctype} {response.text[:200]}"
                        )

            try:
                run()
            except Unsatisfiable:
                pass  # nothing negative to generate for this operation (e.g. no parameters)

    print(f"\nschemathesis: {sent['n']} requests over {len(operations)} operations, {len(failures)} failures")
    assert failures == [], "\n".join(failures[:40])
    assert sent["n"] >= MIN_REQUESTS
    assert httpx.get(f"{live.url}/health").status_code == 200
