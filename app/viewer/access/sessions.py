"""Server-side sessions: the cookie holds an opaque id, the session lives in a store.

The cookie value is 256 random bits and nothing else; the record is keyed by its keyed
hash (HMAC with the app secret) in the viewer store (``viewer_sessions``), or in Redis when
``FLASK_SESSION_STORE_URI`` is ``redis://...``. The record holds the session dict: the
proved address and when (``state``), this browser's nonce that sign-in links are bound
to, pending sign-ins, Flask-WTF's CSRF token, authlib's OIDC state. So:

- sign-out deletes the record: a copy of the cookie taken earlier stops working at once;
- signing in gives a new id (the old record is deleted), so an id planted or seen before
  sign-in is worth nothing after it;
- expiry is enforced on the server: a signed-in record ends ``SIGNIN_SESSION_HOURS``
  after the proof, an anonymous one ``ANONYMOUS_HOURS`` after its last change (no longer
  than Flask-WTF's CSRF token), whatever the cookie says; expired rows are purged.

Reading happens on every request that sends the cookie. If the store cannot be read, the
visitor is treated as signed out (logged): never more access, and public links still
read. A session that cannot be written makes the request a 503 (its writes undone).
The cookie keeps the attributes of ``cookies.py`` (partitioned inside iframes).
"""

from __future__ import annotations

import logging
import re
import secrets
from datetime import UTC, datetime, timedelta

from flask import Flask, Request, Response, current_app, render_template, request
from flask.sessions import SecureCookieSession, session_json_serializer

from app.platform.db_schema import is_missing_table
from app.platform.settings import setting
from app.platform.timeutil import utcnow
from app.viewer import store
from app.viewer.access import codes, cookies, purge, session_stores
from app.viewer.web import retry

log = logging.getLogger(__name__)

# The proved address and when it was proved (epoch seconds); set by ``state.sign_in``.
EMAIL_KEY = "verified_email"
VERIFIED_AT_KEY = "verified_at"
ANONYMOUS_HOURS = 1
_ID = re.compile(r"[A-Za-z0-9_\-]{43}")


class ServerSession(SecureCookieSession):
    """The session dict of one request, with the id of its stored record (if any)."""

    def __init__(self, initial: dict | None = None, sid: str | None = None,
                 created_at: datetime | None = None) -> None:
        super().__init__(initial or {})
        self.sid = sid
        self.created_at = created_at
        # Set by ``new_id``: store it under a fresh id and drop the old record.
        self.renew = False
        # Set once a write failed, so that the error page's own save does not retry it.
        self.failed = False


def new_id(session) -> None:
    """Give the session a fresh id when it is saved (sign-in: no fixation)."""
    session.renew = True
    session.modified = True


def _id_hash(sid: str) -> str:
    return codes.keyed_hash("session", sid)


def session_hours() -> float:
    """Return how long a proof of address lasts, in hours (``SIGNIN_SESSION_HOURS``)."""
    return setting(current_app, "SIGNIN_SESSION_HOURS")


def _expires_at(session: ServerSession, now: datetime) -> datetime:
    proved_at = session.get(VERIFIED_AT_KEY)
    if session.get(EMAIL_KEY) and proved_at:
        proved = datetime.fromtimestamp(float(proved_at), UTC).replace(tzinfo=None)
        return proved + timedelta(hours=session_hours())
    return now + timedelta(hours=ANONYMOUS_HOURS)


class ServerSessionInterface(cookies.FrameAwareCookies):
    """Flask's session interface over ``session_stores`` (viewer store or Redis)."""

    serializer = session_json_serializer

    def open_session(self, app: Flask, request: Request) -> ServerSession:
        """Load the session named by the cookie; a new, empty one if there is none."""
        sid = request.cookies.get(self.get_cookie_name(app)) or ""
        # Static files never read the session: no store read for each stylesheet.
        static = f"{app.static_url_path}/" if app.static_url_path else None
        if not _ID.fullmatch(sid) or (static and request.path.startswith(static)):
            return ServerSession()
        try:
            record = session_stores.current(app).load(_id_hash(sid))
        except Exception as error:  # store down: signed out, see the module docstring
            log.error("session store unreachable, visitor treated as signed out: %s",
                      type(error).__name__)
            return ServerSession()
        if record is None:
            return ServerSession()
        return ServerSession(self.serializer.loads(record.data), sid, record.created_at)

    def save_session(self, app: Flask, session: ServerSession, response: Response) -> None:
        """Write a changed session (or delete an emptied one) and set or drop the cookie."""
        if session.accessed:
            response.vary.add("Cookie")
        if session.failed or not (session.modified or session.renew):
            return
        try:
            self._write(app, session, response)
        except Exception as error:  # store down: this answer becomes a 503
            session.failed = True
            store.rollback_conn()
            missing = is_missing_table(error)
            log.error("session store %s, request refused: %s",
                      "has no schema (run init-db)" if missing else "unreachable",
                      type(error).__name__)
            _unavailable(response, store_missing=missing)

    def _write(self, app: Flask, session: ServerSession, response: Response) -> None:
        backend = session_stores.current(app)
        name = self.get_cookie_name(app)
        attributes = self.cookie_attributes(app)
        if not session:
            if session.sid:
                backend.delete(_id_hash(session.sid))
                backend.commit()
                response.delete_cookie(name, **attributes)
            return
        if session.sid and session.renew:
            backend.delete(_id_hash(session.sid))
        now = utcnow()
        if session.renew or not session.sid:
            session.sid, session.created_at = secrets.token_urlsafe(32), now
            if purge.due("sessions"):
                backend.purge()
        expires_at = _expires_at(session, now)
        backend.save(session_stores.Stored(
            id_hash=_id_hash(session.sid), email=session.get(EMAIL_KEY),
            data=self.serializer.dumps(dict(session)),
            created_at=session.created_at or now, expires_at=expires_at,
        ))
        backend.commit()
        response.set_cookie(name, session.sid, expires=expires_at.replace(tzinfo=UTC),
                            **attributes)
        response.vary.add("Cookie")


def _unavailable(response: Response, *, store_missing: bool = False) -> None:
    """Turn ``response`` into the viewer's 503 page, in place (``store_missing``: the
    page says the viewer store has no tables, see ``error_pages.html_error_page``), with
    ``Retry-After: web.retry.UNAVAILABLE_SECONDS``.

    ``save_session`` runs after the error handlers, so it cannot hand the failure to them;
    what the view answered (a redirect into a session that was not kept) must not go out.
    """
    response.status_code = 503
    response.headers.pop("Location", None)
    retry.ask_later(response)
    response.set_data(render_template("errors/503.html", status=503, message=None,
                                      retry_url=request.path, store_missing=store_missing))
    response.mimetype = "text/html"


def init_app(app: Flask) -> None:
    """Install the server-side session interface and choose its store."""
    session_stores.init_app(app)
    app.session_interface = ServerSessionInterface()
