"""Rate limits crossed: per address, per client, new clients per link, code attempts,
in the viewer store and in Redis, and what happens when the counts cannot be kept."""

from __future__ import annotations

import secrets

import pytest
import redis
import sqlalchemy as sa

from app import create_app
from app.platform.db import get_engine
from app.viewer.store import rate_limits
from app.viewer.web import retry
from tests.support.databases import dispose_engines
from tests.support.signin import (
    ALSO_LISTED,
    LISTED,
    UNLISTED,
    ask_for_message,
    csrf_token,
    make_email_link,
    submit_code,
)

REDIS_URL = "redis://127.0.0.1:6379"


def _visitor(app, address: str):
    """Return a new browser of ``app`` coming from ``address``."""
    visitor = app.test_client()
    visitor.environ_base["REMOTE_ADDR"] = address
    return visitor


def test_messages_per_address_are_limited_on_each_link(mail_app, client, smtp, email_link,
                                                       org):
    mail_app.config["SIGNIN_LIMIT_REQUESTS_PER_ADDRESS"] = "2 per 15 minutes"
    for _ in range(2):
        assert ask_for_message(client, email_link, LISTED).status_code == 302
    refused = ask_for_message(client, email_link, LISTED)
    assert refused.status_code == 429
    assert int(refused.headers["Retry-After"]) > 0
    # The page points to the messages already sent: they work for the mailbox's owner.
    assert "Open the newest one" in refused.get_data(as_text=True)
    # The address is counted however it is spelled; other addresses still get through.
    assert ask_for_message(client, email_link, LISTED.upper()).status_code == 429
    assert ask_for_message(client, email_link, ALSO_LISTED).status_code == 302
    assert len(smtp.to(LISTED)) == 2
    # Counted per link: messages asked for through another link cannot use these up.
    other_link = make_email_link(mail_app, org)
    assert ask_for_message(client, other_link, LISTED).status_code == 302


def test_messages_per_client_are_limited(mail_app, client, smtp, email_link):
    mail_app.config["SIGNIN_LIMIT_REQUESTS_PER_CLIENT"] = "3 per hour"
    for address in ("a1@example.org", "a2@example.org", "a3@example.org"):
        assert ask_for_message(client, email_link, address).status_code == 302
    refused = ask_for_message(client, email_link, "a4@example.org")
    assert refused.status_code == 429
    assert "Too many sign-in attempts" in refused.get_data(as_text=True)
    other_client = mail_app.test_client()
    other_client.environ_base["REMOTE_ADDR"] = "192.0.2.7"
    assert ask_for_message(other_client, email_link, "b1@example.org").status_code == 302
    assert len(smtp.messages) == 4


def test_a_link_counts_new_clients_once_each(mail_app, smtp, email_link):
    mail_app.config["SIGNIN_LIMIT_CLIENTS_PER_LINK"] = "2 per hour"
    first, second, third = (_visitor(mail_app, f"192.0.2.{n}") for n in (1, 2, 3))
    # One client asking often is one client for the link.
    for n in range(4):
        assert ask_for_message(first, email_link, f"a{n}@example.org").status_code == 302
    assert ask_for_message(second, email_link, "b@example.org").status_code == 302
    # A third new client is over the link's allowance; the two known ones are not.
    assert ask_for_message(third, email_link, "c@example.org").status_code == 429
    assert ask_for_message(third, email_link, "c@example.org").status_code == 429
    assert ask_for_message(first, email_link, "a9@example.org").status_code == 302
    assert ask_for_message(second, email_link, "b2@example.org").status_code == 302


def test_ipv6_clients_are_counted_by_their_64(mail_app, smtp, email_link):
    mail_app.config["SIGNIN_LIMIT_REQUESTS_PER_CLIENT"] = "2 per hour"
    for n, host in enumerate(("2001:db8:1:1::1", "2001:db8:1:1::2", "2001:db8:1:1:ffff::9")):
        visitor = _visitor(mail_app, host)
        expected = 302 if n < 2 else 429
        assert ask_for_message(visitor, email_link, f"v{n}@example.org").status_code == expected
    assert ask_for_message(_visitor(mail_app, "2001:db8:1:2::1"), email_link,
                           "w@example.org").status_code == 302


def test_code_attempts_per_client_are_limited_across_messages(mail_app, client, smtp,
                                                              email_link):
    mail_app.config["SIGNIN_LIMIT_CODES_PER_CLIENT"] = "3 per 15 minutes"
    ask_for_message(client, email_link, LISTED)
    for _ in range(3):
        assert submit_code(client, email_link, "AAAA-AAAA").status_code == 400
    # A fresh message does not reset the count for this client.
    ask_for_message(client, email_link, UNLISTED)
    assert submit_code(client, email_link, "AAAA-AAAA").status_code == 429


@pytest.fixture
def redis_prefix():
    """A key prefix unique to this test; its keys are deleted afterwards."""
    prefix = f"test-signin-{secrets.token_hex(6)}"
    yield prefix
    connection = redis.Redis.from_url(REDIS_URL)
    for key in connection.scan_iter(f"*{prefix}*"):
        connection.delete(key)
    connection.close()


def test_two_servers_share_counts_in_redis(db_url, tmp_path, org, smtp, redis_prefix):
    """Two app objects (as two servers would be) count against the same Redis windows."""
    config = {
        "TESTING": True, "DATABASE_URL": db_url, "SECRET_KEY": "shared-secret",
        "PUBLIC_URL": "http://viewer.test", "MAIL_SERVER": "127.0.0.1",
        "MAIL_PORT": smtp.port, "RATELIMIT_STORAGE_URI": REDIS_URL,
        "RATELIMIT_KEY_PREFIX": redis_prefix,
        "SIGNIN_LIMIT_REQUESTS_PER_ADDRESS": "3 per 15 minutes",
    }
    servers = []
    for name in ("one", "two"):
        server = create_app(config, instance_path=str(tmp_path / "instance"))
        servers.append(server)
    link = make_email_link(servers[0], org)
    clients = [server.test_client() for server in servers]
    assert ask_for_message(clients[0], link, LISTED).status_code == 302
    assert ask_for_message(clients[1], link, LISTED).status_code == 302
    assert ask_for_message(clients[0], link, LISTED).status_code == 302
    assert ask_for_message(clients[1], link, LISTED).status_code == 429

    connection = redis.Redis.from_url(REDIS_URL)
    keys = [key.decode() for key in connection.scan_iter(f"*{redis_prefix}*")]
    connection.close()
    assert keys, "the counts live in Redis"
    # Keys carry hashes, never the link id or the address.
    assert not any(link.id in key or "example.org" in key for key in keys)
    for server in servers:
        get_engine(server).dispose()


def test_an_unreachable_redis_counts_in_the_viewer_store_and_is_logged(
    db_url, tmp_path, org, smtp, caplog
):
    from tests.support.servers import free_port

    app = create_app({
        "TESTING": True, "DATABASE_URL": db_url, "SECRET_KEY": "k",
        "PUBLIC_URL": "http://viewer.test", "MAIL_SERVER": "127.0.0.1",
        "MAIL_PORT": smtp.port, "RATELIMIT_STORAGE_URI": f"redis://127.0.0.1:{free_port()}",
        "SIGNIN_LIMIT_REQUESTS_PER_ADDRESS": "2 per 15 minutes",
    }, instance_path=str(tmp_path / "instance"))
    link = make_email_link(app, org)
    client = app.test_client()
    # Sign-in keeps working while Redis is down, and the limits still hold (fail-safe).
    assert ask_for_message(client, link, LISTED).status_code == 302
    assert ask_for_message(client, link, LISTED).status_code == 302
    assert ask_for_message(client, link, LISTED).status_code == 429
    assert len(smtp.to(LISTED)) == 2
    assert any("rate-limit storage failed" in r.getMessage() for r in caplog.records)
    dispose_engines(app)


def test_counts_that_cannot_be_stored_refuse_sign_in(mail_app, client, smtp, email_link,
                                                    monkeypatch, caplog):
    page = client.get(email_link.path("/sign-in"))

    def down(*_args, **_kwargs):
        raise sa.exc.OperationalError("INSERT", {}, Exception("database is restarting"))

    monkeypatch.setattr(rate_limits, "hit", down)
    refused = client.post(email_link.path("/sign-in"), data={
        "csrf_token": csrf_token(page.get_data(as_text=True)), "email": LISTED})
    # Fail closed: no message goes out uncounted; the visitor is asked to come back.
    assert refused.status_code == 503
    assert refused.headers["Retry-After"] == str(retry.UNAVAILABLE_SECONDS)
    assert "not available just now" in refused.get_data(as_text=True)
    assert smtp.messages == []
    assert any("rate-limit counts unavailable" in r.getMessage() for r in caplog.records)


def test_retired_per_link_settings_are_named_in_the_log(db_url, tmp_path, caplog):
    app = create_app({"TESTING": True, "DATABASE_URL": db_url, "SECRET_KEY": "k",
                      "SIGNIN_LIMIT_CODES_PER_LINK": "100 per 15 minutes"},
                     instance_path=str(tmp_path / "instance"))
    assert any("SIGNIN_LIMIT_CODES_PER_LINK is no longer used" in r.getMessage()
               for r in caplog.records)
    dispose_engines(app)


def test_an_encoded_question_mark_in_the_link_id_is_not_the_same_link(mail_app, smtp,
                                                                     email_link):
    # Route values arrive decoded: /share/<id>%3Fx/sign-in names the id "<id>?x". It must
    # not read link <id> (and so send mail past the per-link limit, counted per id).
    mail_app.config["SIGNIN_LIMIT_CLIENTS_PER_LINK"] = "1 per hour"
    for i in range(2):
        visitor = mail_app.test_client()
        visitor.environ_base["REMOTE_ADDR"] = f"192.0.2.{i + 1}"
        assert visitor.get(f"/share/{email_link.id}%3Fx{i}/sign-in").status_code == 404
        assert visitor.get(f"/share/{email_link.id}%3Fx{i}").status_code == 404
    assert smtp.messages == []
