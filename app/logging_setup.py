"""Logging with secrets redacted: share ids and API keys never reach a log line.

A share id is a bearer credential and sits in URL paths (``/share/<id>``,
``/compute/v1/share-links/<id>``); API keys can appear in error text. ``redact`` is used
by the app's log filter and by ``gunicorn.conf.py`` for access and error logs.
"""

from __future__ import annotations

import logging
import re

from flask import Flask

_SHARE_PATH = re.compile(r"(/share(?:-links)?/)([^/?#\s\"']+)")
_API_KEY = re.compile(r"\bbz_(?:live|test)_[A-Za-z0-9_\-]+")
_SHARE_ID = re.compile(r"\bsl_[A-Za-z0-9_\-]{20,}")
REDACTED = "[redacted]"


def redact(text: str) -> str:
    """Replace share ids and API keys in ``text`` with ``[redacted]``."""
    text = _SHARE_PATH.sub(lambda m: m.group(1) + REDACTED, text)
    text = _SHARE_ID.sub(REDACTED, text)
    return _API_KEY.sub(REDACTED, text)


class RedactingFilter(logging.Filter):
    """Rewrite each record's message (arguments included) through ``redact``."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Redact the formatted message in place; never drops a record."""
        try:
            message = record.getMessage()
        except Exception:  # a broken format string still deserves a (redacted) line
            message = str(record.msg)
        record.msg = redact(message)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


def install_filter(logger: logging.Logger) -> None:
    """Attach the redacting filter to ``logger`` and to each of its handlers."""
    if not any(isinstance(f, RedactingFilter) for f in logger.filters):
        logger.addFilter(RedactingFilter())
    for handler in logger.handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())


def init_app(app: Flask) -> None:
    """Redact the app's own logger, werkzeug's request log and the root handlers."""
    for logger in (app.logger, logging.getLogger("werkzeug"), logging.getLogger()):
        install_filter(logger)
