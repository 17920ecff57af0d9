"""How the event streams are declared in the API document: each stream's events, their names
and their JSON ``data``, all made from the events' catalogue (app/events/catalogue.py): a kind
the catalogue puts on a stream is in its schema, with its payload's component."""

from __future__ import annotations

from typing import Any

from app.events.catalogue import STREAM_NOTICES, Stream, of_payload, on_stream
from app.events.payloads import Payload, StreamChange, TableChange, TournamentChange
from app.kit.openapi import EVENT_STREAM, name_schema
from app.kit.problem_schemas import problem_responses


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _component(payload: type[Payload], kinds: tuple[str, ...], **properties: Any) -> None:
    """The payload's schema, named after it, its ``kind`` one of ``kinds``."""
    schema = payload.model_json_schema(ref_template="#/components/schemas/{model}")
    schema["properties"]["kind"] = {"type": "string", "enum": list(kinds), "title": "Kind"}
    schema["properties"].update(properties)
    name_schema(payload.__name__, schema)


_TABLE_KINDS = of_payload(Stream.TABLE, TableChange)
_TOURNAMENT_KINDS = of_payload(Stream.TOURNAMENT, TournamentChange)
# The sheet as the tables' answers give it (app/tables' Sheet schema); both absent, never null,
# from a table.deleted.
_component(TableChange, _TABLE_KINDS, etag={"type": "string"}, sheet=_ref("Sheet"))
_component(StreamChange, STREAM_NOTICES)
_component(TournamentChange, _TOURNAMENT_KINDS)

# What each payload's events are said to be, in the data's description.
_SAID: dict[type[Payload], str] = {
    TableChange: "a TableChange",
    TournamentChange: "a TournamentChange for tournament.standings",
    StreamChange: "a StreamChange for stream.interrupted and stream.resumed",
}


def _event(stream: Stream, id_says: str) -> dict[str, Any]:
    """One event of ``stream`` as an EventSource reads it (the schema of an event stream's media
    type describes each event, as OpenAPI 3.2's itemSchema does); ": ping" comments are not events."""
    kinds = on_stream(stream)
    payloads = [p for p in _SAID if of_payload(stream, p)]
    said = [_SAID[p] for p in payloads]
    return {
        "type": "object",
        "required": ["event", "data"],
        "properties": {
            "event": {
                "type": "string",
                "enum": list(kinds),
                "description": "the kind of change (the data's kind)",
            },
            "id": {"type": "string", "description": id_says},
            "data": {
                "type": "string",
                "description": "JSON: "
                + ", or ".join([", ".join(said[:-1]), said[-1]] if len(said) > 2 else said),
                "contentMediaType": "application/json",
                "contentSchema": {"oneOf": [_ref(p.__name__) for p in payloads]},
            },
            "retry": {"type": "integer", "minimum": 0},
        },
    }


_TABLE_EVENT = _event(
    Stream.TABLE,
    "the table's revision, {table}:{revision} on the owner-wide stream (stream.* events set none)",
)
_OWNER_EVENT = _event(
    Stream.OWNER,
    "the table's revision, {table}:{revision} on the owner-wide stream (stream.* events set none)",
)
_TOURNAMENT_EVENT = _event(Stream.TOURNAMENT, "the tournament's revision (stream.* events set none)")

_EXAMPLE = (
    "id: 7\nevent: deal.posted\n"
    'data: {"kind":"deal.posted","table":"9f0c...","revision":7,"etag":"\\"5d1e...\\"","sheet":{"deal_count":7,...}}\n\n'
    ": ping\n\n"
)
_TOURNAMENT_EXAMPLE = (
    "id: 12\nevent: tournament.standings\n"
    'data: {"kind":"tournament.standings","tournament":"3b7a...","revision":12}\n\n'
    ": ping\n\n"
)
_STREAM_DESCRIPTION = (
    f"an event stream: `event` is the kind ({', '.join(_TABLE_KINDS)}; "
    f"{' and '.join(STREAM_NOTICES)} about the stream itself), `id` the revision, `data` JSON: "
    "kind, table, revision, etag and sheet (the Sheet schema) for sheet changes (the TableChange "
    "schema), kind and detail about the stream (the StreamChange schema). The schema describes one event."
)


def stream_responses(*errors: int, owner_wide: bool = False) -> dict[int | str, dict[str, Any]]:
    """A table's stream (or, ``owner_wide``, the owner's) and the problems it may answer."""
    description = _STREAM_DESCRIPTION
    if owner_wide:
        description += (
            f" The owner-wide stream also carries {', '.join(_TOURNAMENT_KINDS)}: kind, tournament "
            "and revision (the TournamentChange schema)."
        )
    schema = _OWNER_EVENT if owner_wide else _TABLE_EVENT
    return {
        200: {"description": description, "content": {EVENT_STREAM: {"schema": schema, "example": _EXAMPLE}}},
        **problem_responses(*errors),
    }


def tournament_stream_responses(*errors: int) -> dict[int | str, dict[str, Any]]:
    """A tournament's share link's stream and the problems it may answer."""
    return {
        200: {
            "description": (
                f"an event stream: `event` is {', '.join(_TOURNAMENT_KINDS)} "
                f"({' and '.join(STREAM_NOTICES)} about the stream itself), `id` the tournament's "
                "revision, `data` JSON: kind, tournament and revision (the TournamentChange schema), "
                "or kind and detail about the stream (the StreamChange schema). The schema describes one event."
            ),
            "content": {EVENT_STREAM: {"schema": _TOURNAMENT_EVENT, "example": _TOURNAMENT_EXAMPLE}},
        },
        **problem_responses(*errors),
    }
