"""Runtime configuration: every setting of the service and every tuning constant, read from
the environment by pydantic-settings (docs/configuration.md lists them all).

Environment names: ``DATABASE_URL``, and ``PREFSCORE_`` + the field's name in capitals
(``PREFSCORE_THREADS`` for ``threads``), except ``PREFSCORE_METRICS`` (``metrics_enabled``)
and ``PREFSCORE_CSP`` (``content_security_policy``). An empty variable means the default,
except ``PREFSCORE_CSP`` where empty means "no policy". Lists are comma-separated.

``Settings(...)`` with keyword arguments (the tests) takes the environment for the fields it
does not name; ``Settings.from_env()`` is the environment alone. A changed copy:
``settings.model_copy(update={...})``.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AliasChoices, Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

DEFAULT_DATABASE_URL = "sqlite:///prefscore.db"
DEFAULT_CSP = "default-src 'none'; frame-ancestors 'none'"

# Fields whose environment variable is not PREFSCORE_<NAME>.
_ALIASES = {
    "database_url": "DATABASE_URL",
    "metrics_enabled": "PREFSCORE_METRICS",
    "content_security_policy": "PREFSCORE_CSP",
}
_EMPTY_MEANS_EMPTY = {"content_security_policy", "PREFSCORE_CSP", "prefscore_csp"}


def _env(field: str) -> AliasChoices:
    return AliasChoices(field, _ALIASES[field])


Origins = Annotated[tuple[str, ...], NoDecode]


class Settings(BaseSettings):
    """Everything the service needs to run (see the module docstring for the names)."""

    model_config = SettingsConfigDict(
        env_prefix="PREFSCORE_", frozen=True, extra="ignore", populate_by_name=True
    )

    # --- the service
    database_url: str = Field(DEFAULT_DATABASE_URL, validation_alias=_env("database_url"))
    """A SQLAlchemy URL; the default is a SQLite file ``prefscore.db`` in the working directory."""
    admin_key: str | None = None
    """Accepted as an admin key of owner ``admin`` while set."""
    threads: int = 40
    """Worker threads for sync endpoints; the database pool is sized to match."""

    # --- database tuning (app/kit/db/engine.py)
    sqlite_busy_timeout_ms: int = 10_000
    """How long a SQLite writer waits for another one."""
    db_pool_size: int = 10
    """Connections kept open (at most ``threads``; the rest of ``threads`` is overflow)."""
    db_pool_timeout: int = 60
    """Seconds a thread waits for a pooled connection."""
    db_connect_timeout: int = 10
    """Seconds to connect to PostgreSQL."""
    sqlite_loop_busy_timeout_ms: int = 200
    """Busy timeout of the SQLite reads made on the event loop (a 304's ETag)."""
    pg_loop_connections: int = 8
    """psycopg async connections per event loop for reads made on the loop."""
    loop_connection_wait: float = 0.1
    """Seconds a read on the event loop waits for one of those connections before it goes to
    the thread pool instead (all busy under load; none to be had in an outage)."""
    loop_reconnect_timeout: float = 5.0
    """Seconds the event loop's connections retry a failed connection before giving up (the
    next read then starts a new attempt)."""
    write_probe_interval: float = 5.0
    """Seconds the answer of /health's write probe is reused: at most one probe write per
    interval and process, however often /health is asked."""
    write_probe_busy_ms: int = 100
    """SQLite: milliseconds the write probe waits for another process's writer (the database
    is being written then: the last answer stands)."""
    db_prepared_statements: bool = True
    """0: psycopg never prepares statements (needed behind PgBouncer < 1.21 in transaction mode)."""
    read_database_url: str = ""
    """PostgreSQL: a URL whose server is a streaming replica of ``database_url`` (HAProxy's
    replicas port): the reads that may come from a replica (sheets, listings, share and
    tournament pages, standings, pictures) go there, the writes and every other read to
    ``database_url``; a client's read after its own write waits for nothing and never sees
    older data (the ``Prefscore-Position`` header and cookie). Empty: every read goes to
    ``database_url``. Ignored with SQLite."""
    read_after_seconds: float = 5.0
    """Seconds a write's ``Prefscore-Position`` cookie lasts: within them a read by the same
    browser is served by the replica only once the replica has replayed the write, else by
    ``database_url``."""

    # --- requests
    max_body_bytes: int = 64 * 1024
    """Larger request bodies: 413."""
    max_record_bytes: int = 4 * 1024 * 1024
    """The body of POST /v1/tables/import (a game record) alone; larger: 413."""
    max_json_depth: int = 32
    """Deeper JSON bodies: 422."""
    loop_parse_bytes: int = 4 * 1024
    """Larger JSON bodies are parsed and validated in the thread pool, never on the event loop."""
    max_header_bytes: int = 16 * 1024
    """The request line and headers together; larger: 431 (app/kit/http_limits.py)."""
    header_timeout: int = 10
    """Seconds to receive a request's line and headers; later: 408."""
    body_timeout: int = 10
    """Seconds to receive a request's body after its headers; later: 408."""
    max_pipelined_requests: int = 8
    """Requests of one connection read and not yet answered; the rest waits unread in one read buffer."""
    linger_bytes: int = 4 * 1024 * 1024
    """After answering a request whose body is still arriving: bytes read and dropped before closing (so the client sees the answer)."""
    linger_timeout: int = 5
    """Seconds, the same; then the connection is closed."""

    # --- what one key may store (app/tables/service.py Limits)
    max_deals_per_table: int = 2000
    """Deals a table may hold; a post beyond is 409."""
    max_tables_per_owner: int = 1000
    """Tables one owner may hold; a new table beyond is 409."""
    idempotency_days: int = 7
    """Days an Idempotency-Key's answer is kept; 0 keeps them for ever."""

    # --- rate limits (app/kit/limiter.py, app/kit/middleware/rate_limit.py)
    rate_limit: int = 100_000
    """Requests per valid key per window (in the database); 0: off."""
    rate_limit_window: int = 60
    """Seconds, for every rate limit."""
    rate_limit_lease_max: int = 64
    """Hits a process reserves in the database at once, at most."""
    rate_limit_lease_share: int = 16
    """A reservation is at most 1/this of what is left of a key's budget."""
    rate_limit_max_leases: int = 10_000
    """Keys with a reservation remembered per process."""
    anonymous_rate_limit: int = 1200
    """Requests per client address per window without a valid key (memory); 0: off."""
    share_rate_limit: int = 1200
    """Requests per share token per window (memory); 0: off."""
    rate_limit_max_names: int = 100_000
    """Addresses and share tokens counted per process and window (least recent forgotten)."""
    max_requests_in_progress: int = 8
    """Requests of one key, scorer link or share link in progress at once per process; the
    next wait their turn (their bodies unread); 0: no such limit."""
    request_queue: int = 64
    """Requests of one holder waiting for their turn at once; one more: 429."""
    request_queue_wait: float = 5
    """Seconds a request waits for its holder's turn; then 429."""

    # --- keys (app/keys/service.py)
    key_cache_size: int = 4096
    """Key lookups remembered per process (least recently used forgotten first)."""
    key_cache_ttl: int = 60
    """Seconds a key lookup is remembered: how long a revoked key may still work elsewhere."""

    # --- live updates (app/live)
    events_heartbeat: float = 15
    """Seconds between the comments that keep an idle event stream open through proxies; also
    between the checks that end the streams of a key revoked elsewhere."""
    events_poll_interval: float = 0.25
    """SQLite: seconds between the reads of the watched tables' revisions (one query per process)."""
    events_recheck_interval: float = 30
    """PostgreSQL: seconds between the same reads under LISTEN/NOTIFY (a safety net)."""
    events_max_subscriptions: int = 10_000
    """Open event streams per process; one more: 503."""
    events_max_per_share_token: int = Field(50, ge=0)
    """Open event streams per share token per process; one more: 429 (0: no cap)."""
    events_max_per_scorer_link: int = Field(50, ge=0)
    """Open event streams per scorer link per process; one more: 429 (0: no cap)."""
    events_max_per_key: int = Field(500, ge=0)
    """Open event streams per key per process (the admin key's: per owner); one more: 429 (0: no cap)."""
    events_max_per_address: int = Field(100, ge=0)
    """Open event streams without a key (share and scorer links) per client address per process; one more: 429 (0: no cap)."""
    events_database_url: str | None = None
    """PostgreSQL: where the LISTEN connection goes (past a transaction-mode pooler); unset: ``database_url``."""

    # --- pictures (app/sharing/drawing.py, app/sharing/router.py)
    picture_workers: int = 2
    """Worker processes that draw pictures, and pictures drawn at once (one per worker)."""
    picture_wait: float = 30
    """Seconds a picture waits for a free worker; then 503 with Retry-After."""
    picture_queue: int = 8
    """Pictures waiting for a worker at once; one more: 503 at once."""
    picture_timeout: float = 30
    """Seconds one picture may take in its worker; then the worker is replaced and the answer is 503."""
    picture_max_deals: int = 2000
    """Tables with more deals are not drawn (409)."""
    picture_max_pixels: int = 12_000_000
    """A PNG is scaled down to at most this many pixels."""
    picture_inline_deals: int = 50
    """SVGs of tables of at most this many deals are drawn in the serving process (a few ms); the others and every PNG in a worker."""
    picture_cache_bytes: int = 64 * 1024 * 1024
    """Bytes of drawn pictures (SVG and PNG) kept per process, least recently used dropped first."""

    # --- webhooks (app/webhooks)
    webhooks_deliver: bool = True
    """0: this process delivers no webhook (the outbox is still written; another process delivers)."""
    webhooks_allowed_networks: Origins = ()
    """Comma-separated networks (``127.0.0.0/8``) a webhook URL may resolve to although they are
    loopback, private, link-local or metadata addresses, which are refused otherwise."""
    webhooks_public_url: str = ""
    """The server's address as receivers reach it (``https://score.example.org``), for the links of
    a delivery; empty: the links are paths."""
    webhooks_timeout: float = 15
    """Seconds one delivery may take (connect, send, answer); then it failed."""
    webhooks_in_flight_per_endpoint: int = Field(4, ge=1)
    """Deliveries to one endpoint at once, per process."""
    webhooks_concurrency: int = Field(64, ge=1)
    """Deliveries at once, per process."""
    webhooks_in_flight_per_owner: int = Field(16, ge=1)
    """Deliveries of one owner at once, per process: one owner's slow receivers leave the other
    places to the other owners."""
    webhooks_rate_limit: int = Field(3000, ge=0)
    """Deliveries a minute per owner, per delivering process (its budget for webhooks: those
    beyond it wait their turn, none is dropped); 0: no limit."""
    webhooks_retry_schedule: Origins = ("5", "300", "1800", "7200", "18000", "36000")
    """Comma-separated seconds before each retry (the last repeats), each with jitter."""
    webhooks_retry_jitter: float = Field(0.1, ge=0, le=1)
    """Each retry's wait is moved by up to this fraction either way."""
    webhooks_disable_after: float = 5 * 86400
    """Seconds an endpoint may fail every delivery before it is disabled (its reason kept)."""
    webhooks_secret_overlap: float = 86400
    """Seconds a rotated secret still signs beside the new one."""
    webhooks_response_bytes: int = Field(1024, ge=0)
    """Bytes of a receiver's answer read (kept for its attempt's error); the rest is dropped."""
    webhooks_poll_interval: float = 1.0
    """Seconds between the looks of a process into the outbox for deliveries written by another
    process or due for a retry (this process's own writes wake it at once)."""
    webhooks_lease: float = 60
    """Seconds a claimed delivery is its process's: if that process dies, it is tried again after them."""
    webhooks_batch: int = Field(100, ge=1)
    """Deliveries claimed at once."""
    webhooks_retention: float = 7 * 86400
    """Seconds a delivered or failed delivery (and its attempts) is kept for the delivery log."""

    # --- operations and hardening
    log_format: str = "json"
    """``json`` (one object per line) or ``text``."""
    log_level: str = "INFO"
    """``DEBUG``, ``INFO``, ``WARNING`` or ``ERROR``."""
    metrics_enabled: bool = Field(True, validation_alias=_env("metrics_enabled"))
    """``/metrics``; PREFSCORE_METRICS=0 hides it."""
    cors_origins: Origins = ()
    """Comma-separated origins (``*`` for any); empty: no CORS."""
    trusted_proxies: Origins = ()
    """Comma-separated addresses whose X-Forwarded-For is believed; empty: none."""
    security_headers: bool = True
    """0 drops nosniff, frame and referrer headers."""
    hsts_seconds: int = 0
    """Strict-Transport-Security max-age (serve behind TLS only)."""
    content_security_policy: str = Field(DEFAULT_CSP, validation_alias=_env("content_security_policy"))
    """On JSON responses; empty: none."""

    @model_validator(mode="before")
    @classmethod
    def _empty_is_default(cls, data: Any) -> Any:
        if isinstance(data, dict):
            return {
                k: v
                for k, v in data.items()
                if not (isinstance(v, str) and v.strip() == "" and k not in _EMPTY_MEANS_EMPTY)
            }
        return data

    @field_validator(
        "cors_origins",
        "trusted_proxies",
        "webhooks_allowed_networks",
        "webhooks_retry_schedule",
        mode="before",
    )
    @classmethod
    def _comma_separated(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @field_validator("webhooks_retry_schedule")
    @classmethod
    def _seconds(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value or any(not _positive(v) for v in value):
            raise ValueError("a comma-separated list of positive seconds")
        return value

    @field_validator("webhooks_allowed_networks")
    @classmethod
    def _networks(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        import ipaddress

        for v in value:
            ipaddress.ip_network(v, strict=False)  # a ValueError names the bad one
        return value

    @field_validator("log_format", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.strip().upper() if isinstance(value, str) else value

    @classmethod
    def from_env(cls) -> Settings:
        try:
            return cls()
        except ValidationError as exc:
            problems = "; ".join(
                f"{_env_name(e['loc'])}: {e['msg']}, not {e.get('input')!r}" for e in exc.errors()
            )
            raise ValueError(f"invalid configuration: {problems}") from None


def _positive(text: str) -> bool:
    try:
        return float(text) > 0
    except ValueError:
        return False


def _env_name(loc: tuple[Any, ...]) -> str:
    field = str(loc[0]) if loc else "?"
    if field in _ALIASES:
        return _ALIASES[field]
    if field.isupper():
        return field
    return "PREFSCORE_" + field.upper()


def default_of(name: str) -> Any:
    """A setting's default: the one value the classes that take it as an argument fall back to."""
    return Settings.model_fields[name].default
