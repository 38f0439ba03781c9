"""The process's TLS context for the API's HTTP clients."""

from __future__ import annotations

import functools
import ssl

import httpx


@functools.cache
def tls_context() -> ssl.SSLContext:
    """Return httpx's default TLS context (its CA bundle, or ``SSL_CERT_FILE`` and
    ``SSL_CERT_DIR`` from the environment), made once per process.

    Loading the CA bundle costs about 25 ms, which every client would otherwise pay again
    (two per app). A context is safe to share between connections and threads.
    """
    return httpx.create_ssl_context()
