"""The process's TLS context for the API's HTTP clients."""

from __future__ import annotations

import functools
import ssl

import httpx


@functools.cache
def tls_context() -> ssl.SSLContext:
    """Return httpx's default TLS context (its CA bundle, or ``SSL_CERT_FILE`` and
    ``SSL_CERT_DIR`` from the environment), made once per process.

    Loading the CA bundle is slow enough that every client (two per app) should not pay
    it again. A context is safe to share between connections and threads.
    """
    return httpx.create_ssl_context()
