"""What every schema shares: the request base (unknown fields refused, strict types, valid
Unicode), the field types of the game (seats, tricks, names) and of answers (amounts as JSON
numbers, timestamps)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    model_validator,
)
from pydantic_core import PydanticKnownError

from app.kit import amounts
from app.kit.limits import NAME_MAX, SEATS_MAX
from app.rules import CONVENTION_NAMES, Sentence

# A convention by its name (a table's, a record's, a filter of the statistics). A closed set
# made at run time, as pydantic reads it; to the type checker, which cannot read such a
# Literal, a string (so the other Literals of the schemas below).
if TYPE_CHECKING:
    ConventionName = str
else:
    ConventionName = Literal[tuple(CONVENTION_NAMES)]

Seat = Annotated[int, Field(ge=0, le=3, description="a seat number 0..n-1")]
SeatKey = Annotated[str, StringConstraints(pattern=r"^[0-3]$")]
Tricks = Annotated[int, Field(ge=0, le=10)]
# Unicode's Bidi_Control characters (the embeddings, overrides and isolates U+202A-U+202E
# and U+2066-U+2069, and the marks U+200E, U+200F, U+061C): a right-to-left override in a
# name, a title or an id makes the text read otherwise than it is written.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _no_bidi_controls(value: str) -> str:
    if not BIDI_CONTROLS.isdisjoint(value):
        raise ValueError(
            Sentence(
                "text must not contain bidirectional control characters (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C)"
            )
        )
    return value


# Every free text of a request (names, titles, notes, external ids) is annotated with it.
PlainText = AfterValidator(_no_bidi_controls)
Name = Annotated[str, StringConstraints(min_length=1, max_length=NAME_MAX), PlainText]
# An amount as a JSON number: an int when whole, else rounded to 0.01 (app/rules/amounts.py).
Amount = Annotated[int | float, BeforeValidator(lambda v: amounts.number(v) if not isinstance(v, str) else v)]


def at_most(limit: int) -> Any:
    """A list's or a map's bound, checked before its items: pydantic stops a list at its
    ``max_length`` but validates every item of a map first (10,000 refused keys, 10,000
    errors). Used with ``Field(max_length=limit)``, which puts the bound in the schema."""

    def check(value: Any) -> Any:
        if isinstance(value, (dict, list)) and len(value) > limit:
            kind = "Dictionary" if isinstance(value, dict) else "List"
            raise PydanticKnownError(
                "too_long", {"field_type": kind, "max_length": limit, "actual_length": len(value)}
            )
        return value

    return BeforeValidator(check)


_Value = TypeVar("_Value")
# A map by seat ("0".."3") of a value: at most one key per seat (``SeatMap[Tricks]``).
SeatMap = Annotated[dict[SeatKey, _Value], Field(max_length=SEATS_MAX), at_most(SEATS_MAX)]


def _none(value: Any) -> bool:
    return value is None


def absent_when_none(**kw: Any) -> Any:
    """A field left out of the answer when it has no value (rather than sent as null)."""
    return Field(default=None, exclude_if=_none, **kw)


def _utc(value: datetime) -> datetime:
    if value.tzinfo is None:  # SQLite hands back naive UTC datetimes
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC)  # PostgreSQL's are in the session's time zone


def timestamp(value: datetime | None) -> str | None:
    """An ISO 8601 UTC time, "2026-12-01T08:00:00.123456Z"."""
    if value is None:
        return None
    return _utc(value).isoformat().replace("+00:00", "Z")


# A moment of an answer declared ``format: date-time``: an RFC 3339 time in UTC, sent as
# timestamp() writes it ("2026-12-01T08:00:00.123456Z") whichever database it comes from.
UtcTime = Annotated[datetime, AfterValidator(_utc)]


def _valid_text(value: Any) -> bool:
    """False when a string holds a lone surrogate (JSON "\\ud800"), which cannot be stored as
    UTF-8, or a NUL, which PostgreSQL text cannot hold and no name or note needs."""
    if isinstance(value, str):
        if "\x00" in value:
            return False
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True
    if isinstance(value, dict):
        return all(_valid_text(k) and _valid_text(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_valid_text(v) for v in value)
    return True


def _request_schema(schema: dict[str, Any], cls: type) -> None:
    """A request field with a default is optional: its default is said in its description,
    not as ``default`` (openapi-typescript makes a property with a default required). The
    tag of a deal (``type``) keeps its default: generators then fill it in themselves."""
    for name, prop in schema.get("properties", {}).items():
        if name == "type" or "default" not in prop:
            continue
        default = prop.pop("default")
        if default is not None and default != {}:
            text = prop.get("description", "")
            prop["description"] = (text + "; " if text else "") + f"default {_json_text(default)}"
    example = getattr(cls, "example", None)
    if example is not None:
        schema["examples"] = [example]


def _json_text(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra=_request_schema)
    example: ClassVar[dict[str, Any] | None] = None  # shown in the OpenAPI document

    @model_validator(mode="before")
    @classmethod
    def _unicode(cls, data: Any) -> Any:
        if not _valid_text(data):
            raise ValueError(
                Sentence("text must be valid Unicode without NUL characters (no lone surrogate escapes)")
            )
        return data


class Answer(BaseModel):
    """The base of every response model: what it declares is what is sent."""

    model_config = ConfigDict(extra="ignore")
