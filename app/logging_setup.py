"""Logging with secrets redacted: share ids and API keys never reach a log line.

A share id is a bearer credential and sits in URL paths (``/share/<id>``,
``/compute/v1/share-links/<id>``); API keys can appear in error text. ``redact`` is used
by the app's log filter, by a log-record factory (so records of *any* logger, whatever
handlers it has, are redacted at creation, tracebacks included) and by
``gunicorn.conf.py`` for access and error logs.
"""

from __future__ import annotations

import logging
import re

from flask import Flask

_SHARE_PATH = re.compile(r"(/share(?:-links)?/)([^/?#\s\"']+)")
_API_KEY = re.compile(r"\bbz_(?:live|test)_[A-Za-z0-9_\-]+")
_SHARE_ID = re.compile(r"\bsl_[A-Za-z0-9_\-]{20,}")
# A bearer JWT (header.payload.signature, base64url) names the link id in its claims.
_JWT = re.compile(r"\beyJ[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]*")
# Presigned artifact URLs are capabilities too.
_SIGNATURE = re.compile(r"([?&]signature=)[0-9a-fA-F]+")
# One-time sign-in tokens (in the mailed link's path) and OpenID Connect callback values.
_SIGNIN_TOKEN = re.compile(r"(/sign-in/link/)([^/?#\s\"']+)")
_OIDC_PARAMS = re.compile(r"([?&](?:code|state)=)[^&#\s\"']+")
REDACTED = "[redacted]"


def redact(text: str) -> str:
    """Replace share ids, API keys, bearer tokens, URL signatures, sign-in tokens and
    OpenID Connect callback codes with ``[redacted]``."""
    text = _SHARE_PATH.sub(lambda m: m.group(1) + REDACTED, text)
    text = _SHARE_ID.sub(REDACTED, text)
    text = _JWT.sub(REDACTED, text)
    text = _SIGNATURE.sub(lambda m: m.group(1) + REDACTED, text)
    text = _SIGNIN_TOKEN.sub(lambda m: m.group(1) + REDACTED, text)
    text = _OIDC_PARAMS.sub(lambda m: m.group(1) + REDACTED, text)
    return _API_KEY.sub(REDACTED, text)


def _redact_record(record: logging.LogRecord) -> logging.LogRecord:
    """Rewrite a record's message, arguments and traceback through ``redact``."""
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
    if record.stack_info:
        record.stack_info = redact(record.stack_info)
    return record


class RedactingFilter(logging.Filter):
    """Rewrite each record's message (arguments included) through ``redact``."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Redact the formatted message in place; never drops a record."""
        _redact_record(record)
        return True


def install_filter(logger: logging.Logger) -> None:
    """Attach the redacting filter to ``logger`` and to each of its handlers."""
    if not any(isinstance(f, RedactingFilter) for f in logger.filters):
        logger.addFilter(RedactingFilter())
    for handler in logger.handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())


def install_record_factory() -> None:
    """Redact every log record when it is created, whichever logger or handler it meets.

    Filters only apply to the logger they sit on (not to records propagated from child
    loggers) and to handlers that existed when they were installed; the record factory
    has neither gap. Installed once per process.
    """
    current = logging.getLogRecordFactory()
    if getattr(current, "redacting", False):
        return

    def factory(*args, **kwargs) -> logging.LogRecord:
        return _redact_record(current(*args, **kwargs))

    factory.redacting = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)


def init_app(app: Flask) -> None:
    """Redact the app's own logger, werkzeug's request log, the root handlers and httpx.

    httpx logs every request URL at INFO (the viewer's API calls carry share ids), so it
    is kept at WARNING as well as redacted.
    """
    install_record_factory()
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("httpcore").setLevel(logging.WARNING)
    for logger in (app.logger, logging.getLogger("werkzeug"), logging.getLogger(),
                   logging.getLogger("httpx")):
        install_filter(logger)
