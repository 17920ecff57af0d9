"""Security headers on every response: nosniff, no framing, no referrer, same-origin opener,
HSTS when configured, and a Content-Security-Policy fitting what the response is.

- JSON and problem+json: ``content_security_policy`` (default ``default-src 'none'``):
  nothing in an API answer may load or run anything.
- The SVG sheet: no script at all, inline styles only (the picture has ``style``
  attributes), nothing loaded.
- The pages (HTML): the route sets its own policy (app/kit/pages.py: scripts and styles
  from this server's static files only); a response that already has a policy keeps it.
"""

from __future__ import annotations

from starlette.types import ASGIApp

from app.kit.settings import Settings

SVG_POLICY = b"default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"


class SecurityHeaders:
    def __init__(self, app: ASGIApp, settings: Settings):
        self.app = app
        self.headers = _fixed_headers(settings)
        self.json_policy = (
            settings.content_security_policy.encode() if settings.content_security_policy else None
        )
        self.enabled = settings.security_headers

    def add(self, headers: list[tuple[bytes, bytes]]) -> None:
        """Add the headers to a response's (a list, changed in place)."""
        content_type = b""
        has_policy = False
        for key, value in headers:
            if key == b"content-type":
                content_type = value
            elif key == b"content-security-policy":
                has_policy = True
        headers.extend(self.headers)
        if not has_policy:
            policy = self._policy(content_type)
            if policy is not None:
                headers.append((b"content-security-policy", policy))

    def _policy(self, content_type: bytes) -> bytes | None:
        if b"json" in content_type:
            return self.json_policy
        if self.enabled and content_type.startswith(b"image/svg+xml"):
            return SVG_POLICY
        return None


def _fixed_headers(settings: Settings) -> list[tuple[bytes, bytes]]:
    if not settings.security_headers:
        return []
    headers = [
        (b"x-content-type-options", b"nosniff"),
        (b"x-frame-options", b"DENY"),
        (b"referrer-policy", b"no-referrer"),
        (b"cross-origin-opener-policy", b"same-origin"),
    ]
    if settings.hsts_seconds > 0:
        headers.append(
            (b"strict-transport-security", f"max-age={settings.hsts_seconds}; includeSubDomains".encode())
        )
    return headers
