"""Validation refusals as people read them: each refused field named, with a sentence of our
own in the game's terms ("declarer must be a seat number from 0 to 3"), never the library's
message ("Input should be less than or equal to 3").

``field_errors`` turns pydantic's errors (of a body, a query parameter, a header) into the
``errors`` list of a 422 problem: ``{"field": "tricks.1", "reason": "..."}``, at most
``MAX_LISTED_ERRORS`` of them (app.kit.limits; app/kit/problems.py adds how many there were).
"""

from __future__ import annotations

from typing import Any

from app.rules import CONVENTION_NAMES, Sentence, said
from app.rules.vocabulary import CONTRACT_HELP, DEAL_TYPES, DEFENCE, TALON_BONUSES, one_of

# What a field holds, by its last name in the path: for sentences that say what was expected.
_WHAT = {
    "declarer": Sentence("a seat number"),
    "dealer": Sentence("a seat number"),
    "help": Sentence("a seat number"),
    "writeoff": Sentence("a list of seat numbers"),
    "first_dealer": Sentence("a seat number"),
    "tricks": Sentence("a number of tricks"),
    "players": Sentence("the players' names"),
    "pool_target": Sentence("the pool to reach"),
    "contract": Sentence("a contract"),
    "note": Sentence("a note"),
    "owner": Sentence("an owner's name"),
    "after": Sentence("a deal number"),
    "limit": Sentence("how many items a page lists"),
    "number": Sentence("a deal number"),
    "player": Sentence("a registered player's id"),
    "external_id": Sentence("the client's own id for the person"),
    "from": Sentence("a date such as 2026-12-01"),
    "to": Sentence("a date such as 2026-12-01"),
}
# Fields whose accepted words are known: the sentence lists them.
_WORDS = {
    "type": Sentence("a deal is {words}", words=one_of(DEAL_TYPES)),
    "defenders": Sentence("each defender answers {words}", words=one_of(DEFENCE)),
    "bonus": Sentence("the talon bonus is {words}", words=one_of(tuple(TALON_BONUSES))),
    "convention": Sentence("the convention is {words}", words=one_of(tuple(CONVENTION_NAMES))),
}
# The ranges of the game's numbers: a sentence names both ends.
_RANGES = {"a seat number": (0, 3), "a number of tricks": (0, 10)}
_NOT_JSON = Sentence("the body is not valid JSON")


def _field(error: dict[str, Any]) -> str:
    loc = [str(p) for p in error.get("loc", ())]
    if error.get("type") in ("union_tag_invalid", "union_tag_not_found"):
        return "type"
    if loc and loc[0] in ("body", "query", "path", "header", "cookie"):
        where, loc = loc[0], loc[1:]
        if where == "body" and error.get("type") == "json_invalid":
            return "body"
        # A deal body is a union tagged by "type": pydantic puts the tag in the location.
        if where == "body" and len(loc) >= 2 and loc[0] in DEAL_TYPES:
            loc = loc[1:]
        # A table's seat is a name or a seat object, tagged the same way.
        if where == "body" and len(loc) >= 3 and loc[0] == "players" and loc[2] in ("name", "seat"):
            loc = loc[:2] + loc[3:]
        if where == "header" and loc:
            return loc[0].replace("_", "-").title()
    loc = [p for p in loc if p != "[key]"]
    return ".".join(loc) if loc else "body"


def _subject(field: str) -> tuple[str, Sentence | None]:
    """The field as named in a sentence, and what it holds ("" when nothing is known)."""
    parts = field.split(".")
    last = parts[-1]
    # "tricks.1", "defenders.2", "choices.writeoff.0": the map or list the value is in.
    if last.isdigit() and len(parts) > 1:
        owner = parts[-2]
        if owner == "tricks":
            return Sentence("the tricks of seat {seat}", seat=last), _WHAT["tricks"]
        if owner == "defenders":
            return Sentence("the answer of seat {seat}", seat=last), None
        if owner == "writeoff":
            return Sentence("each seat in {field}", field=".".join(parts[:-1])), _WHAT["declarer"]
        if owner == "players":
            return Sentence("player {n}'s name", n=int(last) + 1), Sentence("a name")
        return field, _WHAT.get(owner)
    return field, _WHAT.get(last)


def _bound(ctx: dict[str, Any], key: str) -> str:
    value = ctx.get(key)
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def reason(error: dict[str, Any], field: str) -> str:
    """The sentence for one pydantic error of ``field``."""
    kind = error.get("type", "")
    ctx = error.get("ctx") or {}
    if "[key]" in [str(p) for p in error.get("loc", ())]:
        parts = field.split(".")
        where = ".".join(parts[:-1]) or field
        return Sentence(
            '{where}: {key!r} is not a seat; the keys are seat numbers "0" to "3"', where=where, key=parts[-1]
        )
    name, what = _subject(field)
    last = field.split(".")[-1]
    if kind == "json_invalid":
        return _NOT_JSON
    if kind == "missing":
        return (
            Sentence("{name} is required: {what}", name=name, what=what)
            if what
            else Sentence("{name} is required", name=name)
        )
    if kind == "extra_forbidden":
        return Sentence("{name} is not a field of this request", name=name)
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        if kind == "union_tag_not_found":
            return Sentence("{words} (type is missing)", words=_WORDS["type"])
        return Sentence("{words}, not {tag!r}", words=_WORDS["type"], tag=ctx.get("tag"))
    if kind == "literal_error" or kind == "enum":
        return _word_reason(field, last, ctx, name)
    if kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
        return _range_reason(kind, ctx, name, what)
    found = _type_reason(kind, name, what) or _length_reason(kind, ctx, name, last)
    if found is not None:
        return found
    if kind == "string_pattern_mismatch":
        if last == "contract":
            return Sentence("contract must be {words}", words=CONTRACT_HELP)
        if last == "owner":
            return Sentence("owner must be 1-64 letters, digits or _ . @ -, starting with a letter or digit")
        return Sentence("{name} is not written as expected", name=name)
    if kind == "value_error":
        # our own validators' messages are sentences already ("text must be valid Unicode ...")
        raised = ctx.get("error")
        if isinstance(raised, ValueError) and str(raised):
            return said(raised)
        message = str(error.get("msg", ""))
        return message.removeprefix("Value error, ") or Sentence("{name} is not valid", name=name)
    if what:
        return Sentence("{name} is not valid: it must be {what}", name=name, what=what)
    return Sentence("{name} is not valid", name=name)


def _word_reason(field: str, last: str, ctx: dict[str, Any], name: str) -> str:
    """A word not among the listed ones (a literal or an enum's)."""
    if last in _WORDS or (len(field.split(".")) > 1 and field.split(".")[-2] in _WORDS):
        key = last if last in _WORDS else field.split(".")[-2]
        return _WORDS[key]
    if "expected" in ctx:
        return Sentence("{name} must be {expected}", name=name, expected=ctx["expected"])
    return Sentence("{name} must be one of the listed words", name=name)


def _range_reason(kind: str, ctx: dict[str, Any], name: str, what: str | None) -> str:
    """A number out of its range."""
    if what in _RANGES:
        least, most = _RANGES[what]
        return Sentence(
            "{name} must be {what} from {low} to {high}", name=name, what=what, low=least, high=most
        )
    if "ge" in ctx and kind == "greater_than_equal":
        low = _bound(ctx, "ge")
        return (
            Sentence("{name} must be at least {low} ({what})", name=name, low=low, what=what)
            if what
            else Sentence("{name} must be at least {low}", name=name, low=low)
        )
    if kind == "less_than_equal":
        high = _bound(ctx, "le")
        return (
            Sentence("{name} must be at most {high} ({what})", name=name, high=high, what=what)
            if what
            else Sentence("{name} must be at most {high}", name=name, high=high)
        )
    if kind == "greater_than":
        return Sentence("{name} must be above {low}", name=name, low=_bound(ctx, "gt"))
    return Sentence("{name} must be below {high}", name=name, high=_bound(ctx, "lt"))


def _type_reason(kind: str, name: str, what: str | None) -> str | None:
    """A value of the wrong JSON type, or None when ``kind`` is no such refusal."""
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return (
            Sentence("{name} must be a whole number ({what})", name=name, what=what)
            if what
            else Sentence("{name} must be a whole number", name=name)
        )
    if kind in ("bool_type", "bool_parsing"):
        return Sentence("{name} must be true or false", name=name)
    if kind in ("string_type", "string_unicode"):
        return Sentence("{name} must be text", name=name)
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return Sentence("{name} must be a JSON object", name=name)
    if kind in ("list_type", "tuple_type", "set_type"):
        return Sentence("{name} must be a JSON list", name=name)
    if kind.startswith("date_"):
        return Sentence("{name} must be a date such as 2026-12-01", name=name)
    if kind in ("float_type", "float_parsing", "decimal_type", "decimal_parsing"):
        return Sentence("{name} must be a number", name=name)
    return None


def _length_reason(kind: str, ctx: dict[str, Any], name: str, last: str) -> str | None:
    """A text or a list too long or too short, or None when ``kind`` is no such refusal."""
    if kind == "string_too_long":
        return Sentence("{name} must be at most {n} characters long", name=name, n=ctx.get("max_length"))
    if kind == "string_too_short":
        if ctx.get("min_length") == 1:
            return Sentence("{name} must not be empty", name=name)
        return Sentence("{name} must be at least {n} characters long", name=name, n=ctx.get("min_length"))
    if kind in ("too_long", "too_short") and last == "players":
        return Sentence("a table has 3 or 4 players")
    if kind == "too_long":
        return Sentence("{name} must have at most {n} items", name=name, n=ctx.get("max_length"))
    if kind == "too_short":
        return Sentence("{name} must have at least {n} items", name=name, n=ctx.get("min_length"))
    return None


def field_errors(errors: list[dict[str, Any]], limit: int | None = None) -> list[dict[str, str]]:
    """Pydantic's errors as the problem's ``errors``: one entry per field and sentence, the
    first ``limit`` of them (the rest are not even read: each costs a sentence)."""
    seen: set[tuple[str, str]] = set()
    out: list[dict[str, str]] = []
    for error in errors:
        if limit is not None and len(out) >= limit:
            break
        field = _field(error)
        item = (field, reason(error, field))
        if item not in seen:
            seen.add(item)
            out.append({"field": item[0], "reason": item[1]})
    return out
