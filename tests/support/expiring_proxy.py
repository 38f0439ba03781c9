"""A reverse proxy in front of moto that refuses expired presigned URLs, as S3 does.

moto accepts a presigned URL whatever its age; real S3 answers 403 ``Request has
expired`` once ``X-Amz-Date`` + ``X-Amz-Expires`` has passed. Tests of the viewer's
"refresh an expired URL once" path point presigned URLs at this proxy, which checks the
expiry and otherwise relays the GET (Range included) to moto. ``statuses`` records what
it answered, in order.
"""

from __future__ import annotations

import http.client
import threading
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

EXPIRED = (b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code>'
           b"<Message>Request has expired</Message></Error>")


def expired(query: str) -> bool:
    """Tell whether a presigned URL's query says it has expired."""
    values = parse_qs(query)
    signed = datetime.strptime(values["X-Amz-Date"][0], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    return datetime.now(UTC) > signed + timedelta(seconds=int(values["X-Amz-Expires"][0]))


class ExpiringProxy:
    """The proxy, serving on a free loopback port until ``stop()``."""

    def __init__(self, upstream: str):
        target = urlsplit(upstream)
        self.statuses: list[int] = []
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                query = urlsplit(self.path).query
                if expired(query):
                    proxy.statuses.append(403)
                    self.send_response(403)
                    self.send_header("Content-Type", "application/xml")
                    self.send_header("Content-Length", str(len(EXPIRED)))
                    self.end_headers()
                    self.wfile.write(EXPIRED)
                    return
                conn = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
                headers = {k: v for k, v in self.headers.items() if k.lower() == "range"}
                conn.request("GET", self.path, headers=headers)
                answer = conn.getresponse()
                proxy.statuses.append(answer.status)
                self.send_response(answer.status)
                for name, value in answer.getheaders():
                    if name.lower() not in ("connection", "transfer-encoding", "server",
                                            "date"):
                        self.send_header(name, value)
                self.end_headers()
                while chunk := answer.read(64 * 1024):
                    self.wfile.write(chunk)
                conn.close()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        """Stop serving."""
        self.server.shutdown()
        self.server.server_close()
