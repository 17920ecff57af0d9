"""One attempt of a delivery: its body (the catalogue's payload of its kind, made from its
outbox row alone: the same bytes on every attempt), its signature, the POST to the checked
address (no redirect followed, the answer read up to a bound), and when to try again."""

from __future__ import annotations

import asyncio
import email.utils
import functools
import json
import random
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import aiohttp
from standardwebhooks.webhooks import Webhook

from app.events.catalogue import KINDS, ByWebhooks
from app.events.payloads import utc
from app.kit.settings import Settings
from app.rules import Sentence
from app.webhooks import addresses
from app.webhooks.limits import WEBHOOK_RETRY_AFTER_MAX
from app.webhooks.model import message_id

TIMED_OUT = "no answer within"
# (status, error, Retry-After seconds, duration in seconds); no status when no answer came.
Outcome = tuple[int | None, str | None, float | None, float]


def payload(row: Any, base: str) -> str:
    """The delivery's body: its kind's payload (app/events/catalogue.py) made from its outbox row."""
    how = KINDS[row.type].webhooks
    assert isinstance(how, ByWebhooks), row.type
    at = utc(row.occurred_at)
    assert at is not None
    data = how.payload.of_row(row, base).wire()
    timestamp = at.isoformat().replace("+00:00", "Z")
    return json.dumps({"type": row.type, "timestamp": timestamp, "data": data}, separators=(",", ":"))


@functools.lru_cache(maxsize=1024)
def _signer(secret: str) -> Webhook:
    return Webhook(secret)


def signature(row: Any, msg_id: str, at: datetime, body: str) -> str:
    """``v1,<base64>``, and the previous secret's beside it (space-separated) during a rotation's overlap."""
    signed = _signer(row.secret).sign(msg_id, at, body)
    until = utc(row.previous_until)
    if row.previous_secret and until is not None and until > at:
        signed += " " + _signer(row.previous_secret).sign(msg_id, at, body)
    return signed


def retry_after(value: str | None, now: datetime) -> float | None:
    """Seconds of a Retry-After (seconds or an HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - now).total_seconds())


def wait_before_retry(
    attempts: int,
    schedule: tuple[float, ...],
    jitter: float,
    asked: float | None,
    rand: Callable[[], float] = random.random,
) -> float:
    """Seconds before the next attempt after ``attempts`` failed ones: the schedule's step
    (its last repeats), moved by up to ``jitter`` of it either way; a receiver's Retry-After
    instead when it gave one, at most ``WEBHOOK_RETRY_AFTER_MAX``."""
    if asked is not None:
        return min(asked, WEBHOOK_RETRY_AFTER_MAX)
    step = schedule[min(attempts, len(schedule)) - 1]
    return step * (1 + jitter * (2 * rand() - 1))


def session(concurrency: int) -> aiohttp.ClientSession:
    """The process's one HTTP client: keep-alive connections (``concurrency`` at most, to every
    receiver together), no cookie kept, no proxy from the environment (the checked address is
    the one connected to), no compression asked for (the answer's bytes are kept as they come),
    no timer of its own (``post`` bounds each attempt)."""
    return aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=concurrency, limit_per_host=0),
        cookie_jar=aiohttp.DummyCookieJar(),
        trust_env=False,
        timeout=aiohttp.ClientTimeout(),
        auto_decompress=False,
        skip_auto_headers=("Accept-Encoding",),
    )


async def post(
    client: aiohttp.ClientSession, row: Any, base: str, allowed: Any, settings: Settings, at: datetime
) -> Outcome:
    """POST the delivery at ``at``: (status, error, Retry-After seconds, duration in seconds)."""
    msg_id = message_id(row.id)
    body = payload(row, base)
    headers = {
        "content-type": "application/json",
        "user-agent": "prefscore-webhooks",
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": signature(row, msg_id, at, body),
    }
    started = time.monotonic()
    try:
        async with asyncio.timeout(settings.webhooks_timeout):
            target, server_name, host = await connect_to(row.url, allowed)
            headers["host"] = host
            async with client.post(
                target,
                data=body.encode(),
                headers=headers,
                allow_redirects=False,
                server_hostname=server_name,
            ) as answer:
                kept = await _read_up_to(answer.content, settings.webhooks_response_bytes)
                status = answer.status
                wait = (
                    retry_after(answer.headers.get("retry-after"), at)
                    if status in (429, 503) or status >= 500
                    else None
                )
    except addresses.AddressRefused as exc:
        return None, f"url refused: {exc}", None, time.monotonic() - started
    except TimeoutError:
        return (
            None,
            f"{TIMED_OUT} {settings.webhooks_timeout:g} s",
            None,
            time.monotonic() - started,
        )
    except (aiohttp.ClientError, OSError) as exc:
        return None, f"{type(exc).__name__}: {exc}"[:500], None, time.monotonic() - started
    duration = time.monotonic() - started
    if 200 <= status < 300:
        return status, None, None, duration
    if 300 <= status < 400:
        return status, f"answered {status}: redirects are not followed", None, duration
    text = kept.decode("utf-8", "replace").strip()
    return status, f"answered {status}" + (f": {text[:200]}" if text else ""), wait, duration


async def _read_up_to(content: aiohttp.StreamReader, most: int) -> bytes:
    """The answer's first ``most`` bytes; the rest is left unread (its connection is then closed)."""
    kept = bytearray()
    while len(kept) < most:
        chunk = await content.read(most - len(kept))
        if not chunk:
            break
        kept += chunk
    return bytes(kept)


async def connect_to(url: str, allowed: Any) -> tuple[str, str | None, str]:
    """The URL with its host replaced by the checked address, the TLS server name (none for
    plain HTTP or an address), the Host header."""
    at_address = _at_address(url, allowed)
    if at_address is not None:
        return at_address
    scheme, host, port = addresses.split(url)
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=1)  # SOCK_STREAM
    except OSError as exc:
        raise addresses.AddressRefused(
            Sentence("host {host!r} does not resolve ({exc})", host=host, exc=exc)
        ) from None
    return _target(url, scheme, host, port, addresses.checked(infos, allowed))


@functools.lru_cache(maxsize=1024)
def _at_address(url: str, allowed: Any) -> tuple[str, str | None, str] | None:
    """``connect_to`` of a URL naming an address (None for a host name): no resolution, so its
    check holds as long as the URL and the allowed networks do, and is made once per both
    (a stream of deliveries to one endpoint parsed and checked its URL on every attempt). A
    refusal is raised, not kept."""
    scheme, host, port = addresses.split(url)
    ip = addresses.literal(host)
    if ip is None:
        return None
    addresses.check(ip, allowed)
    return _target(url, scheme, host, port, ip)


def _target(url: str, scheme: str, host: str, port: int, ip: Any) -> tuple[str, str | None, str]:
    parts = urlsplit(url)
    shown = f"[{ip}]" if ip.version == 6 else str(ip)
    target = urlunsplit((scheme, f"{shown}:{port}", parts.path or "/", parts.query, ""))
    default = port == (443 if scheme == "https" else 80)
    host_header = (f"[{host}]" if ":" in host else host) + ("" if default else f":{port}")
    server_name = host if scheme == "https" and addresses.literal(host) is None else None
    return target, server_name, host_header
