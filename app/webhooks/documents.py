"""How the webhooks' deliveries are declared in the API document: one entry of OpenAPI 3.1's
``webhooks`` per kind the catalogue delivers by webhooks (app/events/catalogue.py), its body
the Standard Webhooks envelope around the kind's payload, named in the components."""

from __future__ import annotations

from typing import Any

from app.events.catalogue import EventKind, hooked
from app.kit.openapi import declare_webhooks, name_schemas

_HEADERS = {
    "webhook-id": "msg_…: the delivery's id, the same on every attempt (a repeat is the same event)",
    "webhook-timestamp": "the attempt's time, in seconds since the epoch",
    "webhook-signature": "v1,<base64 HMAC-SHA256 of id.timestamp.body>; two, space-separated, during a rotation",
}


def _operation(kind: EventKind, payload: str) -> dict[str, Any]:
    words = [part.capitalize() for part in kind.name.replace(".", " ").split()]
    body = {
        "type": "object",
        "required": ["type", "timestamp", "data"],
        "properties": {
            "type": {"type": "string", "const": kind.name},
            "timestamp": {"type": "string", "format": "date-time", "description": "when the change was made"},
            "data": {"$ref": f"#/components/schemas/{payload}"},
        },
    }
    return {
        "post": {
            "operationId": "on" + "".join(words),
            "summary": kind.when,
            "tags": ["webhooks"],
            "parameters": [
                {
                    "name": name,
                    "in": "header",
                    "required": True,
                    "schema": {"type": "string"},
                    "description": said,
                }
                for name, said in _HEADERS.items()
            ],
            "requestBody": {"required": True, "content": {"application/json": {"schema": body}}},
            "responses": {
                "2XX": {"description": "received (answer at once, then do the work)"},
                "410": {"description": "gone: the endpoint is disabled at once"},
            },
        }
    }


_HOOKED = list(hooked())
name_schemas(*dict.fromkeys(how.payload for _, how in _HOOKED))
declare_webhooks({kind.name: _operation(kind, how.payload.__name__) for kind, how in _HOOKED})
