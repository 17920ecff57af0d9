"""The JSON log line's timestamp: the second's text is kept while the second lasts
(app/kit/observability.py), and every line still carries its own second and milliseconds."""

from __future__ import annotations

import json
import logging

from app.kit.observability import JsonFormatter


def _line(formatter: JsonFormatter, created: float) -> dict:
    record = logging.LogRecord("prefscore.access", logging.INFO, __file__, 1, "POST %s", ("/x",), None)
    record.created, record.msecs = created, (created - int(created)) * 1000
    record.status = 201  # an extra field, as the access line's
    return json.loads(formatter.format(record))


def test_each_line_has_its_own_second_and_milliseconds():
    formatter = JsonFormatter()
    # 1,764,892,800 s after the epoch is 2025-12-05T00:00:00 UTC.
    seen = [
        _line(formatter, t)["ts"]
        for t in (1764892799.999, 1764892800.0, 1764892800.5, 1764892801.25, 1764892800.75)
    ]
    assert seen == [
        "2025-12-04T23:59:59.999Z",
        "2025-12-05T00:00:00.000Z",
        "2025-12-05T00:00:00.500Z",
        "2025-12-05T00:00:01.250Z",
        "2025-12-05T00:00:00.750Z",  # a line of an earlier second, written late
    ]
    line = _line(formatter, 1764892800.0)
    assert (line["message"], line["status"], line["level"]) == ("POST /x", 201, "info")
