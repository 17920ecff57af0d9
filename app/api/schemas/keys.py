"""API keys and the health check."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from .common import Answer, Request


class KeyCreate(Request):
    owner: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")] = Field(
        description="the owner's name: letters, digits and _ . @ -, at most 64 characters"
    )

    example = {"owner": "anna"}


class KeyOut(Answer):
    owner: str
    key: str = Field(description="the key, shown this once: Authorization: Bearer <key>")


class HealthOut(Answer):
    status: Literal["ok"]
    database: Literal["ok"]
