"""A token in a path is a capability (a share link reads, a scorer link writes): the access
log and the error log mask it. The kit names no link; the domains declare their paths and
app/main.py hands them in (``LINKS``), so every public route with a token is checked here."""

from __future__ import annotations

import re

from app.kit import observability as obs


def test_every_token_of_a_public_route_is_masked_in_the_logs(app):
    from app.main import PUBLIC_ROUTES

    with_token = [path for path in PUBLIC_ROUTES if "{token}" in path]
    assert len(with_token) >= 10
    for template in with_token:
        path = re.sub(r"\{[a-z_]+\}", "1", template.replace("{token}", "sh_SECRET-token"))
        logged = obs.loggable_path(path)
        assert "SECRET" not in logged and "***" in logged, (template, logged)
        assert logged == template.replace("{token}", "***").replace("{number}", "1")


def test_a_path_without_a_token_is_logged_as_it_is(app):
    for path in ("/v1/tables/t_1/deals", "/v1/tournaments", "/health", "/shared", "/v1/score/"):
        assert obs.loggable_path(path) == path
