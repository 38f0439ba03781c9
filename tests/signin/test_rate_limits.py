"""Rate limits crossed: per address, per client, per link, code attempts, and in Redis."""

from __future__ import annotations

import secrets

import pytest
import redis

from app import create_app
from app.db import get_engine
from tests.signin.conftest import (
    ALSO_LISTED,
    LISTED,
    UNLISTED,
    ask_for_message,
    make_email_link,
    submit_code,
)

REDIS_URL = "redis://127.0.0.1:6379"


def test_messages_per_address_are_limited(mail_app, client, smtp, email_link):
    mail_app.config["SIGNIN_LIMIT_REQUESTS_PER_ADDRESS"] = "2 per 15 minutes"
    for _ in range(2):
        assert ask_for_message(client, email_link, LISTED).status_code == 302
    refused = ask_for_message(client, email_link, LISTED)
    assert refused.status_code == 429
    assert int(refused.headers["Retry-After"]) > 0
    assert "Too many sign-in attempts" in refused.get_data(as_text=True)
    # The address is counted however it is spelled; other addresses still get through.
    assert ask_for_message(client, email_link, LISTED.upper()).status_code == 429
    assert ask_for_message(client, email_link, ALSO_LISTED).status_code == 302
    assert len(smtp.to(LISTED)) == 2


def test_messages_per_client_and_per_link_are_limited(mail_app, client, smtp, email_link):
    mail_app.config["SIGNIN_LIMIT_REQUESTS_PER_CLIENT"] = "3 per hour"
    mail_app.config["SIGNIN_LIMIT_REQUESTS_PER_LINK"] = "5 per hour"
    for address in ("a1@example.org", "a2@example.org", "a3@example.org"):
        assert ask_for_message(client, email_link, address).status_code == 302
    assert ask_for_message(client, email_link, "a4@example.org").status_code == 429

    other_client = mail_app.test_client()
    other_client.environ_base["REMOTE_ADDR"] = "192.0.2.7"
    # Another client may still ask, until the link itself is full (refusals count too).
    assert ask_for_message(other_client, email_link, "b1@example.org").status_code == 302
    assert ask_for_message(other_client, email_link, "b2@example.org").status_code == 429
    assert len(smtp.messages) == 4


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


def test_an_unreachable_redis_lets_sign_in_through_and_is_logged(db_url, tmp_path, org, smtp,
                                                                 caplog):
    from tests.conftest import free_port

    app = create_app({
        "TESTING": True, "DATABASE_URL": db_url, "SECRET_KEY": "k",
        "PUBLIC_URL": "http://viewer.test", "MAIL_SERVER": "127.0.0.1",
        "MAIL_PORT": smtp.port, "RATELIMIT_STORAGE_URI": f"redis://127.0.0.1:{free_port()}",
    }, instance_path=str(tmp_path / "instance"))
    link = make_email_link(app, org)
    assert ask_for_message(app.test_client(), link, LISTED).status_code == 302
    assert any("rate-limit storage failed" in r.getMessage() for r in caplog.records)
    get_engine(app).dispose()


def test_an_encoded_question_mark_in_the_link_id_is_not_the_same_link(mail_app, smtp,
                                                                     email_link):
    # Route values arrive decoded: /share/<id>%3Fx/sign-in names the id "<id>?x". It must
    # not read link <id> (and so send mail past the per-link limit, counted per id).
    mail_app.config["SIGNIN_LIMIT_REQUESTS_PER_LINK"] = "1 per hour"
    for i in range(2):
        visitor = mail_app.test_client()
        visitor.environ_base["REMOTE_ADDR"] = f"192.0.2.{i + 1}"
        assert visitor.get(f"/share/{email_link.id}%3Fx{i}/sign-in").status_code == 404
        assert visitor.get(f"/share/{email_link.id}%3Fx{i}").status_code == 404
    assert smtp.messages == []
