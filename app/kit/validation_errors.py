"""Validation refusals as people read them: each refused field named, with a sentence of our
own in the game's terms ("declarer must be a seat number from 0 to 3"), never the library's
message ("Input should be less than or equal to 3").

``field_errors`` turns pydantic's errors (of a body, a query parameter, a header) into the
``errors`` list of a 422 problem: ``{"field": "tricks.1", "reason": "..."}``, at most
``MAX_LISTED_ERRORS`` of them (app.kit.limits; app/kit/problems.py adds how many there were).
"""

from __future__ import annotations

from typing import Any

from app.rules import CONVENTION_NAMES
from app.rules.vocabulary import CONTRACT_HELP, DEAL_TYPES, DEFENCE, TALON_BONUSES, one_of

# What a field holds, by its last name in the path: for sentences that say what was expected.
_WHAT = {
    "declarer": "a seat number",
    "dealer": "a seat number",
    "help": "a seat number",
    "writeoff": "a list of seat numbers",
    "first_dealer": "a seat number",
    "tricks": "a number of tricks",
    "players": "the players' names",
    "pool_target": "the pool to reach",
    "contract": "a contract",
    "note": "a note",
    "owner": "an owner's name",
    "after": "a deal number",
    "limit": "a number of deals",
    "number": "a deal number",
    "player": "a registered player's id",
    "external_id": "the client's own id for the person",
    "from": "a date such as 2026-12-01",
    "to": "a date such as 2026-12-01",
}
# Fields whose accepted words are known: the sentence lists them.
_WORDS = {
    "type": "a deal is " + one_of(DEAL_TYPES),
    "defenders": "each defender answers " + one_of(DEFENCE),
    "bonus": "the talon bonus is " + one_of(tuple(TALON_BONUSES)),
    "convention": "the convention is " + one_of(tuple(CONVENTION_NAMES)),
}
# The ranges of the game's numbers: a sentence names both ends.
_RANGES = {"a seat number": "from 0 to 3", "a number of tricks": "from 0 to 10"}
_NOT_JSON = "the body is not valid JSON"


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


def _subject(field: str) -> tuple[str, str]:
    """The field as named in a sentence, and what it holds ("" when nothing is known)."""
    parts = field.split(".")
    last = parts[-1]
    # "tricks.1", "defenders.2", "choices.writeoff.0": the map or list the value is in.
    if last.isdigit() and len(parts) > 1:
        owner = parts[-2]
        if owner == "tricks":
            return f"the tricks of seat {last}", "a number of tricks"
        if owner == "defenders":
            return f"the answer of seat {last}", ""
        if owner == "writeoff":
            return f"each seat in {'.'.join(parts[:-1])}", "a seat number"
        if owner == "players":
            return f"player {int(last) + 1}'s name", "a name"
        return field, _WHAT.get(owner, "")
    return field, _WHAT.get(last, "")


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
        return f'{where}: {parts[-1]!r} is not a seat; the keys are seat numbers "0" to "3"'
    name, what = _subject(field)
    last = field.split(".")[-1]
    if kind == "json_invalid":
        return _NOT_JSON
    if kind == "missing":
        return f"{name} is required" + (f": {what}" if what else "")
    if kind == "extra_forbidden":
        return f"{name} is not a field of this request"
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        return _WORDS["type"] + (" (type is missing)" if kind == "union_tag_not_found" else f", not {ctx.get('tag')!r}")
    if kind == "literal_error" or kind == "enum":
        if last in _WORDS or (len(field.split(".")) > 1 and field.split(".")[-2] in _WORDS):
            key = last if last in _WORDS else field.split(".")[-2]
            return _WORDS[key]
        return f"{name} must be {ctx.get('expected', 'one of the listed words')}"
    if kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
        if what in _RANGES:
            return f"{name} must be {what} {_RANGES[what]}"
        if "ge" in ctx and kind == "greater_than_equal":
            return f"{name} must be at least {_bound(ctx, 'ge')}" + (f" ({what})" if what else "")
        if kind == "less_than_equal":
            return f"{name} must be at most {_bound(ctx, 'le')}" + (f" ({what})" if what else "")
        if kind == "greater_than":
            return f"{name} must be above {_bound(ctx, 'gt')}"
        return f"{name} must be below {_bound(ctx, 'lt')}"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return f"{name} must be a whole number" + (f" ({what})" if what else "")
    if kind in ("bool_type", "bool_parsing"):
        return f"{name} must be true or false"
    if kind in ("string_type", "string_unicode"):
        return f"{name} must be text"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return f"{name} must be a JSON object"
    if kind in ("list_type", "tuple_type", "set_type"):
        return f"{name} must be a JSON list"
    if kind.startswith("date_"):
        return f"{name} must be a date such as 2026-12-01"
    if kind in ("float_type", "float_parsing", "decimal_type", "decimal_parsing"):
        return f"{name} must be a number"
    if kind == "string_too_long":
        return f"{name} must be at most {ctx.get('max_length')} characters long"
    if kind == "string_too_short":
        return f"{name} must not be empty" if ctx.get("min_length") == 1 else f"{name} must be at least {ctx.get('min_length')} characters long"
    if kind == "too_long":
        return f"{name} must have at most {ctx.get('max_length')} items" if last != "players" else "a table has 3 or 4 players"
    if kind == "too_short":
        return f"{name} must have at least {ctx.get('min_length')} items" if last != "players" else "a table has 3 or 4 players"
    if kind == "string_pattern_mismatch":
        if last == "contract":
            return f"contract must be {CONTRACT_HELP}"
        if last == "owner":
            return "owner must be 1-64 letters, digits or _ . @ -, starting with a letter or digit"
        return f"{name} is not written as expected"
    if kind == "value_error":
        # our own validators' messages are sentences already ("text must be valid Unicode ...")
        message = str(error.get("msg", ""))
        return message.removeprefix("Value error, ") or f"{name} is not valid"
    return f"{name} is not valid" + (f": it must be {what}" if what else "")


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

