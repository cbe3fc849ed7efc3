"""Where repolens logs and how much: ``log_level`` and ``log_file`` from the settings.

People read stderr; a log file is for machines and later reading, so each record there is
one JSON object a line (time, level, logger, message, and the exception if any), rotated
at 5 MB with three old files kept. A process logs by the settings of the first project it
opens (for a server, the project it serves): linked projects do not re-route its log.
Nothing is ever written inside the project unless ``log_file`` names a path there.
"""

from __future__ import annotations

import json
import logging
import logging.handlers
import sys
from pathlib import Path

from repolens.config import ConfigError, Settings

ROTATE_BYTES = 5 * 1024 * 1024
ROTATE_KEEP = 3
_configured = False


class JsonLines(logging.Formatter):
    """One JSON object per record, so a log file can be filtered with ``jq``."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "pid": record.process,
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


def configure_logging(settings: Settings, root: Path) -> None:
    """Set the ``repolens`` logger's level and handlers, once per process."""
    global _configured
    if _configured:
        return
    _configured = True
    logger = logging.getLogger("repolens")
    logger.setLevel(settings.log_level.upper())
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setFormatter(logging.Formatter("repolens %(levelname)s %(name)s: %(message)s"))
    logger.addHandler(stderr)
    logger.propagate = False
    if settings.log_file is None:
        return
    path = settings.log_file if settings.log_file.is_absolute() else root / settings.log_file
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.handlers.RotatingFileHandler(
            path, maxBytes=ROTATE_BYTES, backupCount=ROTATE_KEEP, encoding="utf-8"
        )
    except OSError as exc:
        raise ConfigError(f"cannot open log_file {path}: {exc.strerror or exc}") from None
    handler.setFormatter(JsonLines())
    logger.addHandler(handler)
