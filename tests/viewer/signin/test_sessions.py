"""Sessions are kept on the server and sign-out revokes them (issue 7, fault 3).

The cookie holds an opaque id; the session lives in the viewer store (or Redis). A copy of
the cookie taken before sign-out stops reading the link at once; signing in gives a new
id; expiry is the server's; expired rows are purged.
"""

from __future__ import annotations

import base64
import re
import secrets
from datetime import timedelta

import pytest
import redis
import sqlalchemy as sa

from app import create_app
from app.platform.timeutil import utcnow
from app.viewer.access import purge
from app.viewer.store import get_engine
from app.viewer.store import sessions as session_rows
from app.viewer.store.schema import sessions as sessions_table
from app.viewer.web import retry
from tests.support.databases import dispose_engines
from tests.support.signin import LISTED, csrf_token, make_email_link, sign_in

REDIS_URL = "redis://127.0.0.1:6379"
OPAQUE = re.compile(r"[A-Za-z0-9_\-]{43}")


def _cookie(client) -> str:
    cookie = client.get_cookie("session")
    return cookie.value if cookie is not None else ""


def _copy(app, value: str):
    """Return another browser holding a copy of the session cookie ``value``."""
    thief = app.test_client()
    thief.set_cookie("session", value)
    return thief


def _sign_out(client, link) -> None:
    page = client.get(link.path()).get_data(as_text=True)
    assert client.post(link.path("/sign-out"),
                       data={"csrf_token": csrf_token(page)}).status_code == 302


def _rows(app) -> list:
    with get_engine(app).connect() as conn:
        return conn.execute(sa.select(sessions_table)).all()


def test_the_cookie_holds_only_an_opaque_id(mail_app, client, smtp, email_link):
    sign_in(client, smtp, email_link, LISTED)
    value = _cookie(client)
    assert OPAQUE.fullmatch(value), value
    decoded = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    assert b"example" not in decoded and LISTED not in value
    rows = _rows(mail_app)
    assert [row.email for row in rows] == [LISTED]
    # Only a keyed hash of the id is stored.
    assert value not in " ".join(str(v) for row in rows for v in row)


def test_sign_out_revokes_a_copied_cookie_at_once(mail_app, client, smtp, email_link):
    sign_in(client, smtp, email_link, LISTED)
    copied = _cookie(client)
    assert _copy(mail_app, copied).get(email_link.path()).status_code == 200
    _sign_out(client, email_link)
    response = _copy(mail_app, copied).get(email_link.path())
    assert response.status_code == 302 and "/sign-in" in response.headers["Location"]
    assert not [row for row in _rows(mail_app) if row.email]


def test_signing_in_gives_a_new_id(mail_app, client, smtp, email_link):
    client.get(email_link.path("/sign-in"))
    before = _cookie(client)
    assert OPAQUE.fullmatch(before)
    sign_in(client, smtp, email_link, LISTED)
    after = _cookie(client)
    assert after != before
    # The id seen (or planted) before sign-in is worth nothing after it.
    assert _copy(mail_app, before).get(email_link.path()).status_code == 302
    assert _copy(mail_app, after).get(email_link.path()).status_code == 200


@pytest.mark.dialect  # expires_at compared in SQL
def test_expiry_is_enforced_by_the_server(mail_app, client, smtp, email_link):
    sign_in(client, smtp, email_link, LISTED)
    with get_engine(mail_app).begin() as conn:
        conn.execute(sessions_table.update().values(expires_at=utcnow() - timedelta(seconds=1)))
    # The cookie is still sent; the server no longer honours it.
    assert _cookie(client)
    assert client.get(email_link.path()).status_code == 302


def test_a_signed_in_session_ends_after_the_configured_hours(mail_app, client, smtp,
                                                             email_link):
    sign_in(client, smtp, email_link, LISTED)
    (row,) = [row for row in _rows(mail_app) if row.email]
    hours = (row.expires_at - row.created_at) / timedelta(hours=1)
    assert hours == pytest.approx(12, abs=0.01)


@pytest.mark.dialect  # expires_at compared in SQL
def test_expired_sessions_are_purged(mail_app, client, smtp, email_link):
    with get_engine(mail_app).begin() as conn:
        for n in range(3):
            session_rows.save_session(conn, session_rows.SessionRecord(
                id_hash=f"{n:064d}", email=None, data="{}", created_at=utcnow(),
                expires_at=utcnow() - timedelta(minutes=n + 1)))
    mail_app.extensions.pop("signin_purged_at", None)  # due now
    client.get(email_link.path("/sign-in"))  # a new session: the purge runs
    rows = _rows(mail_app)
    assert len(rows) == 1 and rows[0].expires_at > utcnow()
    # At most once a minute per process.
    with mail_app.app_context():
        assert purge.due("sessions") is False


def test_an_unreadable_store_means_signed_out_and_a_failed_write_a_503(
    mail_app, client, smtp, email_link, monkeypatch, caplog
):
    sign_in(client, smtp, email_link, LISTED)
    stores = mail_app.extensions["signin_sessions"]

    def down(*_args):
        raise sa.exc.OperationalError("SELECT", {}, Exception("server closed the connection"))

    monkeypatch.setattr(stores, "load", down)
    assert client.get(email_link.path()).status_code == 302  # never more access
    monkeypatch.setattr(stores, "save", down)
    page = client.get(email_link.path("/sign-in"))
    assert page.status_code == 503
    assert page.headers["Retry-After"] == str(retry.UNAVAILABLE_SECONDS)
    assert "session store unreachable" in caplog.text


@pytest.fixture
def redis_app(db_url, tmp_path, smtp):
    """The app with its sessions in Redis under a prefix of its own (cleaned up after)."""
    prefix = f"test-session-{secrets.token_hex(6)}"
    app = create_app({
        "TESTING": True, "DATABASE_URL": db_url, "SECRET_KEY": "k",
        "PUBLIC_URL": "http://viewer.test", "MAIL_SERVER": "127.0.0.1",
        "MAIL_PORT": smtp.port, "SESSION_STORE_URI": REDIS_URL,
        "RATELIMIT_KEY_PREFIX": prefix,
    }, instance_path=str(tmp_path / "instance"))
    connection = redis.Redis.from_url(REDIS_URL)
    app.redis_keys = lambda: [k.decode() for k in connection.scan_iter(f"{prefix}:session:*")]
    yield app
    for key in connection.scan_iter(f"{prefix}*"):
        connection.delete(key)
    connection.close()
    dispose_engines(app)


def test_sessions_live_in_redis_when_configured(redis_app, org, smtp):
    link = make_email_link(redis_app, org)
    client = redis_app.test_client()
    sign_in(client, smtp, link, LISTED)
    assert client.get(link.path()).status_code == 200
    keys = redis_app.redis_keys()
    assert len(keys) == 1 and _cookie(client) not in keys[0]
    ttl = redis.Redis.from_url(REDIS_URL).ttl(keys[0])
    assert 11 * 3600 < ttl <= 12 * 3600
    assert _rows(redis_app) == []
    copied = _cookie(client)
    _sign_out(client, link)
    assert _copy(redis_app, copied).get(link.path()).status_code == 302
    assert all(key != keys[0] for key in redis_app.redis_keys())
