"""Gunicorn settings for production, with share ids and API keys kept out of the logs.

Share ids are bearer credentials that travel in URL paths and queries, often
percent-encoded; the access log would otherwise record them. ``RedactingLogger`` runs every
access and error line through ``app.logging_setup.redact``, which decodes before it looks.
The Referer header is left out of the access log format for the same reason (it can carry
a share URL from another page of ours).
"""

import glob
import json
import logging
import multiprocessing
import os
import tempfile
import traceback

# Prometheus samples of every worker (app.metrics) go to a directory of this server's own,
# named before anything imports prometheus_client (it reads the variable at import, and
# importing the app below imports it; workers inherit the module as forked). An operator
# may name one (PROMETHEUS_MULTIPROC_DIR); it is emptied when the server starts.
os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR",
                      tempfile.mkdtemp(prefix="share-viewer-metrics-"))

from gunicorn.glogging import Logger

from app.logging_setup import redact

bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("GUNICORN_WORKERS", min(4, multiprocessing.cpu_count() * 2)))
threads = int(os.environ.get("GUNICORN_THREADS", 4))
worker_class = "gthread"
timeout = 60
graceful_timeout = 20
keepalive = 5
# The spec allows 200 result ids in one `ids` filter (about 6 KB of query string), and the
# viewer's own pages carry the same filter; gunicorn's default request line of 4094 bytes
# would answer those with a 414. 8190 is gunicorn's maximum.
limit_request_line = 8190
accesslog = "-"
errorlog = "-"
# Ends with the request id (app.request_ids), which the error pages show to visitors.
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(L)ss "%(a)s" req=%({x-request-id}o)s'
# Forwarded headers are trusted only as far as FLASK_TRUSTED_PROXY_COUNT says (app side).
forwarded_allow_ips = os.environ.get("GUNICORN_FORWARDED_ALLOW_IPS", "127.0.0.1")
# gunicorn's control socket (gunicornc) defaults to one fixed path per user
# ($XDG_RUNTIME_DIR or ~/.gunicorn/gunicorn.ctl): a second server on the host would take it
# over, and its commands would reach the wrong server. Off, unless GUNICORN_CONTROL_SOCKET
# names a path of this instance's own.
_control_socket = os.environ.get("GUNICORN_CONTROL_SOCKET", "")
control_socket_disable = not _control_socket
if _control_socket:
    control_socket = _control_socket


class RedactingLogger(Logger):
    """Gunicorn logger whose access and error lines never contain a share id."""

    def setup(self, cfg):
        """Set up gunicorn's logs, and send the app's own log records to the error log.

        Without this, records of the app's loggers (``app.*``, e.g. the viewer's "compute
        API failure" warnings) reach no handler under gunicorn. They are redacted when
        created (``app.logging_setup.install_record_factory``) and again by the filter.
        """
        super().setup(cfg)
        from app.logging_setup import RedactingFilter, install_record_factory

        install_record_factory()
        root = logging.getLogger()
        for handler in self.error_log.handlers:
            if not any(isinstance(f, RedactingFilter) for f in handler.filters):
                handler.addFilter(RedactingFilter())
            if handler not in root.handlers:
                root.addHandler(handler)
        if root.level == logging.NOTSET or root.level > logging.INFO:
            root.setLevel(logging.INFO)

    def access(self, resp, req, environ, request_time):
        """Log the access line with every secret in it redacted, encoded or not.

        The whole formatted line is redacted, not chosen fields: the format holds the
        User-Agent, and an operator may add others (``%({referer}i)s``).
        """
        if not self.access_log_enabled:
            return
        atoms = self.atoms_wrapper_class(self.atoms(resp, req, environ, request_time))
        try:
            line = self.cfg.access_log_format % atoms
        except Exception:  # a broken custom format: say so, as gunicorn's own access() does
            self.error(traceback.format_exc())
            return
        self.access_log.info("%s", redact(line))

    def error(self, msg, *args, **kwargs):
        """Log an error line, redacted."""
        super().error(redact(str(msg) % args if args else str(msg)), **kwargs)

    def warning(self, msg, *args, **kwargs):
        """Log a warning line, redacted."""
        super().warning(redact(str(msg) % args if args else str(msg)), **kwargs)

    def info(self, msg, *args, **kwargs):
        """Log an info line, redacted."""
        super().info(redact(str(msg) % args if args else str(msg)), **kwargs)

    def exception(self, msg, *args, **kwargs):
        """Log an exception line, redacted (the traceback is redacted by the app filter)."""
        super().exception(redact(str(msg) % args if args else str(msg)), **kwargs)


logger_class = RedactingLogger

# Gunicorn drains at most this much of a request body the app did not read before it
# reuses the connection (gunicorn.http.parser._DRAIN_MAX_BYTES), and closes it otherwise.
KEEPALIVE_DRAIN_BYTES = 64 * 1024


def pre_request(worker, req):
    """Say ``Connection: close`` up front when the body may be left unread.

    The app refuses a body over ``MAX_CONTENT_LENGTH`` (413), or answers 401/404 before
    reading one, without reading it. Gunicorn would then announce keep-alive and close the
    connection anyway, having drained only ``KEEPALIVE_DRAIN_BYTES`` of it; a client that
    believed the announcement loses its next request. Announce the close instead.
    """
    headers = dict(req.headers)
    length = headers.get("CONTENT-LENGTH", "0")
    if "TRANSFER-ENCODING" in headers or (length.isdigit() and int(length) > KEEPALIVE_DRAIN_BYTES):
        req.force_close()


def post_worker_init(worker):
    """Start the chemistry children (``app.viewer.chem.budget``); print the demo links once
    the first worker can answer (``make run`` asks for it).

    ``SHARE_VIEWER_ANNOUNCE`` names the JSON that ``flask seed-demo --json`` wrote. Printed
    here rather than before gunicorn starts, so the link works the moment it appears.
    """
    from app.viewer.chem import budget

    budget.warm_up()  # the chemistry children, before the first drawing needs one
    announce = os.environ.get("SHARE_VIEWER_ANNOUNCE")
    if not announce or worker.age != 1:
        return
    with open(announce) as handle:
        demo = json.load(handle)
    email = demo["share_links"]["email"]
    print(f"\nOpen the demo share link: {demo['share_links']['public']['url']}\n"
          f"Email-mode link (sign in as {email['allowed_emails'][0]}): {email['url']}\n"
          f"Admin API key: {demo['admin_key']}\n", flush=True)


def on_starting(server):
    """Empty the metrics directory: samples of an earlier run would be added to this one's."""
    for stale in glob.glob(os.path.join(os.environ["PROMETHEUS_MULTIPROC_DIR"], "*.db")):
        os.remove(stale)


def child_exit(server, worker):
    """Fold a dead worker's samples into the totals (its gauges would otherwise linger)."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid, os.environ["PROMETHEUS_MULTIPROC_DIR"])
