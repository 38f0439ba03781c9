"""The API clients' TLS context: made once per process, and it verifies certificates."""

from __future__ import annotations

import ssl

from app.viewer.core import api_client
from app.viewer.core.tls import tls_context


def _context(client) -> ssl.SSLContext:
    return client._transport._pool._ssl_context


def test_every_client_verifies_the_server_with_one_shared_context():
    first, second = api_client.remote("https://api.example"), api_client.remote("https://b.example")
    contexts = {id(_context(c)) for api in (first, second)
                for c in (api._client, api._download_client)}
    assert contexts == {id(tls_context())}
    assert tls_context().verify_mode == ssl.CERT_REQUIRED
    assert tls_context().check_hostname is True
