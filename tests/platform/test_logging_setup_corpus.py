"""``redact`` and the app's log over a corpus of encodings: no spelling of an id survives.

The live half (a real gunicorn's access and error logs) is in
``tests/viewer/web/test_log_corpus_live.py``; the corpus and the judge are in
``tests/support/log_corpus.py``.
"""

from __future__ import annotations

import logging
import secrets

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.platform.logging_setup import redact
from tests.support.log_corpus import encodings, offending_lines, request_targets

SHARE_ID = "sl_" + secrets.token_urlsafe(24)
API_KEY = "bz_live_" + secrets.token_urlsafe(32)
SECRETS = [SHARE_ID, API_KEY]


def access_line(target: str) -> str:
    """Return ``target`` the way our gunicorn access format writes it."""
    return f'127.0.0.1 "GET {target} HTTP/1.1" 404 207 0.004s "python-httpx/0.28.1"'


def test_no_spelling_of_an_id_survives_redaction():
    targets = request_targets(SHARE_ID, API_KEY)
    lines = [access_line(target) for _name, target in targets]
    lines += [f"ref={form} ua" for form in encodings(SHARE_ID).values()]
    leaked = offending_lines("\n".join(redact(line) for line in lines), SECRETS)
    assert len(targets) > 300
    assert leaked == [], f"{len(leaked)} of {len(lines)} lines leak, e.g. {leaked[:3]}"


def test_the_route_shape_stays_readable():
    target = f"/share/{SHARE_ID}/sign-in?next=%2Fshare%2F{SHARE_ID}%2Fpipelines&embed=1"
    assert redact(access_line(target)) == access_line(
        "/share/[redacted]/sign-in?next=%2Fshare%2F[redacted]%2Fpipelines&embed=1")
    assert redact(f"/share/{SHARE_ID}/pipelines/%20{SHARE_ID}") == (
        "/share/[redacted]/pipelines/%20[redacted]")
    assert redact(f"?ref=%2522{SHARE_ID}&b=2") == "?ref=%2522[redacted]&b=2"
    # An encoded `s` is redacted with the rest of the id, not left dangling.
    assert redact(f"/share/%2573{SHARE_ID[1:]}/x") == "/share/[redacted]/x"


def test_lines_without_secrets_are_left_alone():
    for line in ("GET /healthz?x=%41%42 HTTP/1.1", "100% done, 50%2 left",
                 '"GET /share/[redacted]/pipelines?sort=-iptm&q=a+b HTTP/1.1" 200',
                 "pl_0192f0e5c2a87b3e9d1f0c4a5b6e7d8f", "%zz%4", ""):
        assert redact(line) == line
    assert redact(redact(f"/share/{SHARE_ID}%2Fx")) == redact(f"/share/{SHARE_ID}%2Fx")


def test_beyond_the_decoding_depth_the_whole_word_goes():
    deep = "%" + "25" * 60 + "73" + SHARE_ID[1:]
    assert redact(f"GET /x?ref={deep} HTTP/1.1") == "GET [redacted] HTTP/1.1"


_CONTEXT = st.sampled_from(["", "/share/", "?next=%2Fshare%2F", "%22", "x", "%6", "=",
                            "/compute/v1/share-links/", "%2F", "+", "a%20"])


@st.composite
def spelled(draw, secret: str) -> str:
    """Spell ``secret`` with each character encoded to its own depth and hex case."""
    out = []
    for char in secret:
        depth = draw(st.integers(0, 3))
        if depth:
            hexed = f"{ord(char):02x}" if draw(st.booleans()) else f"{ord(char):02X}"
            out.append("%" + "25" * (depth - 1) + hexed)
        else:
            out.append(char)
    return draw(_CONTEXT) + "".join(out) + draw(_CONTEXT)


@settings(max_examples=300, deadline=None)
@given(share=spelled(SHARE_ID), key=spelled(API_KEY), glue=_CONTEXT)
@pytest.mark.slow
def test_random_spellings_never_survive(share, key, glue):
    line = access_line(f"/share/{share}{glue}?api_key={key}")
    assert offending_lines(redact(line), SECRETS) == []


class _Capture(logging.Handler):
    """Keep every formatted line (tracebacks included) that reaches the root logger."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
        self.lines: list[str] = []

    def emit(self, record):
        """Keep the formatted record."""
        self.lines.append(self.format(record))


def test_the_app_log_holds_no_spelling_of_an_id(app):
    capture = _Capture()
    root = logging.getLogger()
    root.addHandler(capture)
    forms = list(encodings(SHARE_ID).values()) + list(encodings(API_KEY).values())
    try:
        for form in forms:
            logging.getLogger("app.viewer.error_pages").warning(
                "compute API failure (502): GET /compute/v1/share/%s", form)
            app.logger.error("next=%s", f"%2Fshare%2F{form}")
            logging.getLogger("werkzeug").warning('"GET /share/x?ref=%s HTTP/1.1" 404', form)
            try:
                raise ValueError(f"no link {form!r} in ?ref=%22{form}")
            except ValueError:
                logging.getLogger("app.service.errors").exception("unhandled error")
    finally:
        root.removeHandler(capture)
    text = "\n".join(capture.lines)
    assert text.count("unhandled error") == len(forms)
    assert "ValueError: no link" in text  # the traceback is there, redacted
    leaked = offending_lines(text, SECRETS)
    assert leaked == [], f"{len(leaked)} of {len(text.splitlines())} lines leak: {leaked[:3]}"
