"""Where a phone at the table opens its scoring page: the address the link is printed with,
and the QR code printed in the terminal for the phone to scan (segno).

A server reached at 127.0.0.1 from this machine is not reached so from a phone: the link is
made with ``--public-url`` / ``PREFSCORE_PUBLIC_URL`` when given (the address people use:
a name behind a proxy, the machine's address on the Wi-Fi), else with ``--url`` whose
loopback host is replaced by this machine's address on its network (said so on stderr)."""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
from urllib.parse import urlsplit, urlunsplit

import segno

PUBLIC_URL_ENV = "PREFSCORE_PUBLIC_URL"
_LOOPBACK_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost")


def is_loopback(host: str) -> bool:
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def lan_address() -> str | None:
    """This machine's address on its network: the source address of a route outwards (a UDP
    socket connected to a documentation address sends nothing), None without a network."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))
            address = probe.getsockname()[0]
    except OSError:
        return None
    return None if is_loopback(address) else address


def public_base(public_url: str | None, url: str) -> tuple[str, bool]:
    """The base URL of the link, and whether it was guessed (a loopback host replaced)."""
    given = public_url or os.environ.get(PUBLIC_URL_ENV)
    if given:
        return given.rstrip("/"), False
    parts = urlsplit(url.rstrip("/"))
    host = parts.hostname or ""
    if not is_loopback(host):
        return url.rstrip("/"), False
    lan = lan_address()
    if lan is None:
        return url.rstrip("/"), False
    netloc = lan if parts.port is None else f"{lan}:{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", "")), True


def print_qr(address: str) -> None:
    """The link as a QR code in the terminal, on stderr (stdout keeps the link alone): half
    blocks, two rows of modules a line, with the quiet zone a scanner needs."""
    segno.make(address, error="m").terminal(out=sys.stderr, compact=True)
