"""Structured logs: one JSON object a line, `event` plus named fields, on the `floe` logger tree.

    log_event(logger, logging.INFO, "match.start", match=match_id, seats=["ann", "bot"])

prints `{"ts": 1700000000.123, "level": "info", "logger": "floe.match", "event": "match.start",
"match": "…", "seats": ["ann", "bot"]}`.
"""

from __future__ import annotations

import json
import logging
import sys
from typing import Any

#: The attribute of a LogRecord carrying the structured fields.
FIELDS = "floe_fields"


def log_event(
    logger: logging.Logger, level: int, event: str, *, exc_info: bool = False, **fields: Any
) -> None:
    """Log `event` with structured fields (rendered by JsonFormatter; plain text elsewhere)."""
    if logger.isEnabledFor(level):
        logger.log(level, event, exc_info=exc_info, extra={FIELDS: fields})


class JsonFormatter(logging.Formatter):
    """Renders each record as one JSON line."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
        }
        fields = getattr(record, FIELDS, None)
        if isinstance(fields, dict):
            data.update(fields)
        if record.exc_info:
            data["exception"] = self.formatException(record.exc_info)
        return json.dumps(data, default=str, separators=(",", ":"))


def setup_logging(level: int = logging.INFO) -> None:
    """JSON lines on stderr for floe's loggers and uvicorn's."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    for name in ("floe", "uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.setLevel(level)
        logger.propagate = False
