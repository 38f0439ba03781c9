"""Logging with secrets redacted: share ids and API keys never reach a log line.

A share id is a bearer credential and sits in URL paths (``/share/<id>``,
``/compute/v1/share-links/<id>``), in other links' query strings (``next=``) and in
headers; API keys can appear in error text. ``redact`` is used by the app's log filter, by
a log-record factory (so records of *any* logger, whatever handlers it has, are redacted
at creation, tracebacks included) and by ``gunicorn.conf.py`` for access and error lines.

Clients percent-encode freely (httpx writes ``next=%2Fshare%2F<id>%2Fpipelines``), so a
pattern over the raw text is not enough. Each word that holds an escape is decoded to its
fixed point (``%2573`` is ``%73`` is ``s``; at most ``MAX_DEPTH`` levels), remembering which
raw characters each decoded one came from; the secrets found in the decoded word blank
exactly those raw characters. The line keeps its shape
(``next=%2Fshare%2F[redacted]%2Fpipelines``); a word still encoded after ``MAX_DEPTH``
levels is redacted whole.
"""

from __future__ import annotations

import logging
import re

from flask import Flask

from app.platform import request_ids

REDACTED = "[redacted]"
# Deeper than any client encodes by accident (double encoding is the most seen in the
# wild); beyond it a word is blanked whole, so an attacker gains nothing by nesting more.
MAX_DEPTH = 8

# Each rule's group ``s`` is the secret. No rule requires a word boundary before it: after
# decoding, an id may follow any character (``%22sl_…`` is ``"sl_…``, ``%20sl_…`` a space).
# No rule starts with a hex digit either (hence ``b?z_`` and ``e?yJ``): in ``%6bz_live_…``
# the ``b`` decodes away with ``%6``, and the secret must still be found in what is left.
# ASCII only, so case folding cannot match look-alike letters.
_FLAGS = re.ASCII | re.IGNORECASE
# A path segment after /share/ or /share-links/ is a link id, whatever its shape; one
# that starts with ``[`` is already ``[redacted]``, which keeps ``redact`` idempotent.
_SEGMENT = r"(?P<s>[^/?#\s\"'\[][^/?#\s\"']*)"
_RULES = (  # (a lower-case literal the text must contain, the pattern)
    ("/share", re.compile(r"/share(?:-links)?/" + _SEGMENT, _FLAGS)),
    ("sl_", re.compile(r"(?P<s>sl_[A-Za-z0-9_\-]{20,})", _FLAGS)),
    ("z_", re.compile(r"(?P<s>b?z_(?:live|test)_[A-Za-z0-9_\-]+)", _FLAGS)),
    # A bearer JWT (header.payload.signature, base64url) names the link id in its claims.
    ("yj", re.compile(r"(?P<s>e?yJ[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]*)",
                      re.ASCII)),
    # Presigned artifact URLs are capabilities too.
    ("signature=", re.compile(r"signature=(?P<s>[^&#\s\"']+)", _FLAGS)),
    # S3 presigned URLs: X-Amz-Signature is caught above; the credential names the access
    # key id and a session token is a secret of its own.
    ("x-amz-credential=", re.compile(r"x-amz-credential=(?P<s>[^&#\s\"']+)", _FLAGS)),
    ("x-amz-security-token=",
     re.compile(r"x-amz-security-token=(?P<s>[^&#\s\"']+)", _FLAGS)),
    # One-time sign-in tokens (in the mailed link's path), OpenID Connect callback values.
    ("/sign-in/link/", re.compile(r"/sign-in/link/" + _SEGMENT, _FLAGS)),
    ("code=", re.compile(r"[?&]code=(?P<s>[^&#\s\"']+)", _FLAGS)),
    ("state=", re.compile(r"[?&]state=(?P<s>[^&#\s\"']+)", _FLAGS)),
)
_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
# Words are split at ASCII whitespace. No secret holds whitespace and decoding never
# removes any (``%20`` adds one, which only splits), so each word is decoded on its own.
_WHITESPACE = " \t\n\r\f\v"
_SPACE = re.compile(r"\s", re.ASCII)
# ``+`` is not decoded to a space: neither is a character of any secret, so decoding it
# could only shorten what the segment rules blank, never reveal a secret.


def _secrets(text: str, offset: int = 0) -> list[tuple[int, int]]:
    """Return the spans (shifted by ``offset``) of ``text`` that the rules call secret."""
    lowered = text.lower()
    return [(match.start("s") + offset, match.end("s") + offset)
            for trigger, pattern in _RULES if trigger in lowered
            for match in pattern.finditer(text)]


def _encoded_words(text: str):
    """Yield ``(start, end)`` of each word of ``text`` that holds an escape.

    ``str.rfind`` rather than a pattern like ``\\S*%..\\S*``, which would rescan a word
    from each of its characters: this runs on every log line that holds a ``%``.
    """
    position = 0
    while match := _ESCAPE.search(text, position):
        start = max([text.rfind(space, 0, match.start()) for space in _WHITESPACE]) + 1
        space = _SPACE.search(text, match.end())
        position = space.start() if space else len(text)
        yield start, position


def _unescape(match: re.Match) -> str:
    """Return the character an escape stands for (Latin-1: one byte, one character).

    A secret is ASCII and no UTF-8 sequence decodes to ASCII, so bytes need no joining.
    """
    return chr(int(match.group()[1:], 16))


def _decode_once(text: str, starts: list[int]) -> tuple[str, list[int]]:
    """Percent-decode ``text`` one level, carrying where each character starts in the raw
    text (a character ends where the next one starts: decoding keeps them contiguous)."""
    parts, carried, position = [], [], 0
    for match in _ESCAPE.finditer(text):
        start = match.start()
        parts += [text[position:start], _unescape(match)]
        carried += starts[position:start]
        carried.append(starts[start])
        position = start + 3
    parts.append(text[position:])
    carried += starts[position:]
    return "".join(parts), carried


def _encoded_secrets(word: str, offset: int) -> list[tuple[int, int]]:
    """Return the raw spans of ``word`` (at ``offset`` in the text) that decode into a
    secret.

    Looking at the fixed point is enough: a character, once decoded, stays itself unless
    an escape before it swallows it, and no rule starts with a character that can be
    swallowed (a hex digit), so every secret that appears at any level is whole there.
    """
    decoded = word
    for _level in range(MAX_DEPTH):
        decoded = _ESCAPE.sub(_unescape, decoded)
        if not _ESCAPE.search(decoded):
            break
    else:
        return [(offset, offset + len(word))]  # still encoded: the whole word goes
    found = _secrets(decoded)
    if not found:  # the usual case, so positions are only tracked when needed
        return []
    text, starts = word, list(range(offset, offset + len(word)))
    while text != decoded:
        text, starts = _decode_once(text, starts)
    starts.append(offset + len(word))
    return [(starts[start], starts[end]) for start, end in found]


def redact(text: str) -> str:
    """Replace share ids, API keys, bearer tokens, URL signatures, sign-in tokens and
    OpenID Connect callback codes with ``[redacted]``, in plain or percent-encoded form
    (any depth, any position, query included)."""
    if not text:
        return text
    if "%" not in text:
        spans = _secrets(text)
    else:  # words with escapes are read decoded, the text between them as it is
        spans, position = [], 0
        for start, end in _encoded_words(text):
            spans += _secrets(text[position:start], position)
            spans += _encoded_secrets(text[start:end], start)
            position = end
        spans += _secrets(text[position:], position)
    if not spans:
        return text
    parts, position = [], 0
    for start, end in sorted(spans):
        if end <= position:
            continue  # inside a span already blanked
        if start > position:
            parts += [text[position:start], REDACTED]
        elif not parts:
            parts.append(REDACTED)  # a span at the very start of the text
        position = end
    parts.append(text[position:])
    return "".join(parts)


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
        # Redacted first, so the request id prefix is never mistaken for part of a secret.
        return request_ids.tag(_redact_record(current(*args, **kwargs)))

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
