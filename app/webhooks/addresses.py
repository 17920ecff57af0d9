"""Where a webhook may be sent: an http(s) URL whose host resolves only to public addresses,
unless the operator allows some networks (``PREFSCORE_WEBHOOKS_ALLOWED_NETWORKS``). Loopback,
private, link-local (the cloud metadata address among them), shared, reserved, multicast and
unspecified addresses are refused: a webhook must not make the server reach inside its own
network. An IPv6 address that carries an IPv4 one (IPv4-mapped, IPv4-compatible, NAT64's
``64:ff9b::/96``, 6to4's ``2002::/16``, Teredo) is judged by the IPv4 address too: a
translator on the way would deliver to it. Port 0 is refused. Checked at registration and again at each delivery, which then connects to the
address it checked (a name that resolves elsewhere the second time gains nothing)."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from urllib.parse import urlsplit

from app.rules import Sentence

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class AddressRefused(ValueError):
    """Why a URL may not be a webhook's (the message names what is wrong with it)."""


def split(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of a webhook URL, or AddressRefused."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise AddressRefused(Sentence("not a URL: {exc}", exc=exc)) from None
    if parts.scheme not in ("http", "https"):
        raise AddressRefused(Sentence("must be an http or https URL"))
    if not parts.hostname:
        raise AddressRefused(Sentence("must name a host"))
    if parts.username is not None or parts.password is not None:
        raise AddressRefused(Sentence("must not carry a user name or password"))
    if parts.fragment:
        raise AddressRefused(Sentence("must not carry a fragment"))
    if port == 0:
        raise AddressRefused(Sentence("must not name port 0"))
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80)


def networks(allowed: Iterable[str]) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(n, strict=False) for n in allowed)


_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_COMPATIBLE = ipaddress.ip_network("::/96")


def embedded(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries, by the standard library's reading where it
    has one (mapped, 6to4, Teredo's server and client) and by the prefix's for NAT64 and the
    IPv4-compatible form (``::a.b.c.d``, ``::`` and ``::1`` aside: judged as IPv6)."""
    found = [a for a in (address.ipv4_mapped, address.sixtofour) if a is not None]
    if address.teredo is not None:
        found.extend(address.teredo)
    if address in _NAT64 or (address in _COMPATIBLE and int(address) > 1):
        found.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return found


def public(address: IPAddress) -> bool:
    if isinstance(address, ipaddress.IPv6Address):
        carried = embedded(address)
        if address.ipv4_mapped is not None:  # the mapped form is the IPv4 address itself
            return public(address.ipv4_mapped)
        if carried:
            return all(public(a) for a in carried) and not address.is_multicast
    return address.is_global and not address.is_multicast


def _allowed(address: IPAddress, allowed: tuple) -> bool:  # noqa: ANN001
    if any(address in net for net in allowed if net.version == address.version):
        return True
    # An IPv6 form of an allowed IPv4 address (a NAT64 prefix in front of an allowed network).
    return isinstance(address, ipaddress.IPv6Address) and any(_allowed(a, allowed) for a in embedded(address))


def check(address: IPAddress, allowed: tuple) -> None:  # noqa: ANN001
    if public(address) or _allowed(address, allowed):
        return
    raise AddressRefused(
        Sentence(
            "resolves to {address}, a loopback, private, link-local or reserved address", address=address
        )
    )


def literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def checked(infos: list[tuple], allowed: tuple) -> IPAddress:  # noqa: ANN001
    """The first address of a resolution, once every one is checked (a name with one private
    address among public ones is refused: which one a connection gets is not ours to choose)."""
    addresses = [ipaddress.ip_address(info[4][0].split("%")[0]) for info in infos]
    if not addresses:
        raise AddressRefused(Sentence("does not resolve"))
    for address in addresses:
        check(address, allowed)
    return addresses[0]


def resolve(url: str, allowed: tuple) -> IPAddress:
    """Blocking: the checked address a webhook URL is sent to, or AddressRefused."""
    _scheme, host, port = split(url)
    ip = literal(host)
    if ip is not None:
        check(ip, allowed)
        return ip
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise AddressRefused(Sentence("host {host!r} does not resolve ({exc})", host=host, exc=exc)) from None
    return checked(infos, allowed)
