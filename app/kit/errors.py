"""What a use case can refuse, independent of HTTP (the routers map these to problem+json)."""

from __future__ import annotations

from app.rules import FieldError


class ServiceError(Exception):
    status = 400
    title = "Bad request"

    def __init__(self, detail: str, errors: list[FieldError] | None = None, **extra: object):
        super().__init__(detail)
        self.detail = detail
        self.errors = list(errors or [])
        self.extra = extra


class NotFound(ServiceError):
    status = 404
    title = "Not found"


class Unauthorized(ServiceError):
    status = 401
    title = "Unauthorized"


class Forbidden(ServiceError):
    status = 403
    title = "Forbidden"


class Conflict(ServiceError):
    status = 409
    title = "Conflict"


class PreconditionFailed(ServiceError):
    status = 412
    title = "Precondition failed"


class Unprocessable(ServiceError):
    status = 422
    title = "Invalid request"
