"""What a use case can refuse, independent of HTTP: each class is a kind of refusal. The one
mapping from a kind to an HTTP status is at the HTTP edge (``app/kit/problems.py``)."""

from __future__ import annotations

from typing import Any

from app.rules import FieldError


class ServiceError(Exception):
    """A refusal: the request as asked cannot be done (a kind of its own: a bad request)."""

    def __init__(self, detail: str, errors: list[FieldError] | None = None, **extra: Any):
        super().__init__(detail)
        self.detail = detail
        self.errors = list(errors or [])
        self.extra: dict[str, Any] = extra


class NotFound(ServiceError):
    """What the request names does not exist (or is not the caller's to know of)."""


class Unauthorized(ServiceError):
    """The caller has not said who they are, or not with a valid key."""


class Forbidden(ServiceError):
    """The caller is known and may not do this."""


class Conflict(ServiceError):
    """The request contradicts the state it would change."""


class PreconditionFailed(ServiceError):
    """The caller's version of what it changes is not the current one."""


class Unprocessable(ServiceError):
    """The request is well formed and its content is refused (the fields are named)."""


class Unavailable(ServiceError):
    """The service cannot do it now; the same request may be sent again after ``retry_after``
    seconds."""

    def __init__(self, detail: str, retry_after: int):
        super().__init__(detail)
        self.retry_after = retry_after
