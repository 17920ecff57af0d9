"""API keys and the health check."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints

from app.kit.schemas import Answer, Request, UtcTime


class KeyCreate(Request):
    owner: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")] = Field(
        description="the owner's name: letters, digits and _ . @ -, at most 64 characters"
    )

    example = {"owner": "anna"}


class KeyOut(Answer):
    owner: str
    key: str = Field(description="the key, shown this once: Authorization: Bearer <key>")


class KeyListed(Answer):
    """A stored key as the admin listing shows it: never a hash nor a secret."""

    id: int
    owner: str
    prefix: str = Field(description="the key's first characters, to tell keys apart")
    admin: bool = Field(description="whether the key may manage keys")
    created_at: UtcTime
    revoked_at: UtcTime | None = Field(description="when the key was revoked; null while it works")


class KeyList(Answer):
    items: list[KeyListed]
    next: str | None = Field(description="the URL of the next page; null on the last")
