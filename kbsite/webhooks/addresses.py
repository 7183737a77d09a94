"""Where a webhook may be posted: no request reaches a loopback, private or link-local address on a bot's say-so.

A URL's host is resolved and every address it resolves to must be global, unless the host (or that address) is
listed in ``WEBHOOK_ALLOW_PRIVATE_HOSTS``. It is checked when the endpoint is registered, and again at each attempt,
which then connects to the very address it checked: a name that resolved to a public address at registration
and to 127.0.0.1 since (DNS rebinding) is refused then, not posted to.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings


class UnsafeAddress(ValueError):
    """A webhook URL that may not be posted to; the message says why, for the bot or operator to fix."""


@dataclass(frozen=True)
class Target:
    """A checked webhook URL: its scheme, host and port as written, the address to connect to, and the path."""

    scheme: str
    host: str
    port: int
    address: str
    path: str

    @property
    def host_header(self) -> str:
        default = 443 if self.scheme == "https" else 80
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == default else f"{host}:{self.port}"


def target_resolve(url: str) -> Target:
    """The address ``url`` is posted to, checked; raises :class:`UnsafeAddress` with the reason."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise UnsafeAddress("Use an http:// or https:// URL.")
    if parts.username or parts.password:
        raise UnsafeAddress("A webhook URL may not hold a user name or password.")
    host = (parts.hostname or "").rstrip(".").lower()
    if not host:
        raise UnsafeAddress("The URL names no host.")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise UnsafeAddress(f"The URL's port is not valid: {exc}.") from None
    address = _address_checked(host, port)
    path = parts.path or "/"
    return Target(parts.scheme, host, port, address, f"{path}?{parts.query}" if parts.query else path)


def url_check(url: str) -> None:
    """Refuse (:class:`UnsafeAddress`) a URL that may not be posted to."""
    target_resolve(url)


def _address_checked(host: str, port: int) -> str:
    """The first address ``host`` resolves to, once every one of them is found allowed."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise UnsafeAddress(f"The host {host!r} does not resolve ({exc}).") from None
    addresses = list(dict.fromkeys(info[4][0] for info in found))
    for address in addresses:
        if not _allowed(host, address):
            raise UnsafeAddress(
                f"The host {host!r} resolves to {address}, a loopback, private, link-local or otherwise non-public "
                "address: webhooks are not posted there (an operator may allow it with WEBHOOK_ALLOW_PRIVATE_HOSTS)."
            )
    return addresses[0]


def _allowed(host: str, address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 scope (fe80::1%eth0) is not part of the address
    mapped = getattr(ip, "ipv4_mapped", None)
    if (mapped or ip).is_global and not ip.is_multicast:
        return True
    allowed = {name.lower() for name in settings.WEBHOOK_ALLOW_PRIVATE_HOSTS}
    return host in allowed or str(ip) in allowed
