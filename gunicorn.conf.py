"""Gunicorn settings for production, with share ids and API keys kept out of the logs.

Stopping takes under 2 s (SIGINT, SIGTERM), also right after serving a browser that keeps
its connection open: a stopping worker closes idle kept-alive connections within
``STOP_KEEPALIVE_LINGER`` and leaves without a final garbage collection of the whole app
(``gc.freeze`` in ``worker_exit``; that collection alone took 1.5 s), and so does the
master (``on_exit``). Nothing then waits for ``graceful_timeout``, which is for requests
still running, and no worker is SIGKILLed.

Share ids are bearer credentials that travel in URL paths and queries, often
percent-encoded; the access log would otherwise record them. ``RedactingLogger`` runs every
access and error line through ``app.platform.logging_setup.redact``, which decodes before it looks.
The Referer header is left out of the access log format for the same reason (it can carry
a share URL from another page of ours).
"""

import contextlib
import gc
import glob
import json
import logging
import multiprocessing
import os
import selectors
import tempfile
import traceback

# Prometheus samples of every worker (app.platform.metrics) go to a directory of this server's own,
# named before anything imports prometheus_client (it reads the variable at import, and
# importing the app below imports it; workers inherit the module as forked). An operator
# may name one (PROMETHEUS_MULTIPROC_DIR); it is emptied when the server starts.
os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR",
                      tempfile.mkdtemp(prefix="share-viewer-metrics-"))

from gunicorn.glogging import Logger
from gunicorn.http import message as gunicorn_message
from gunicorn.workers import gthread

from app.platform.logging_setup import redact

bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("GUNICORN_WORKERS", min(4, multiprocessing.cpu_count() * 2)))
threads = int(os.environ.get("GUNICORN_THREADS", 4))
worker_class = "gthread"
timeout = 60
graceful_timeout = 20
keepalive = 5
# A stopping worker keeps an idle kept-alive connection open this long (gunicorn's own is 2 s),
# answering a request already on its way with "Connection: close" rather than dropping it.
STOP_KEEPALIVE_LINGER = 0.25
if hasattr(gthread, "STOP_KEEPALIVE_LINGER"):
    gthread.STOP_KEEPALIVE_LINGER = STOP_KEEPALIVE_LINGER
# The longest request line served (method, target and version), answered 414 past it. The
# spec allows 200 result ids of up to 64 characters in one `ids` filter: 13.4 KB of query
# once its commas are percent-encoded, which the SDK sends, the viewer's own pages carry
# (with the view's other parameters) and the viewer sends the API. gunicorn caps
# `limit_request_line` at its MAX_REQUEST_LINE, 8190 (and 0 would be no bound at all: a
# client could make a worker buffer one line for ever), so the cap is raised to this
# bound. deploy/haproxy.cfg's buffers hold such a line with its headers (docs/deploy.md);
# tests/test_wsgi.py proves both sides of the bound through a running server.
REQUEST_LINE_LIMIT = 32 * 1024
gunicorn_message.MAX_REQUEST_LINE = REQUEST_LINE_LIMIT
limit_request_line = REQUEST_LINE_LIMIT
accesslog = "-"
errorlog = "-"
# Ends with the request id (app.platform.request_ids), which the error pages show to visitors.
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
        created (``app.platform.logging_setup.install_record_factory``) and again by the filter.
        """
        super().setup(cfg)
        from app.platform.logging_setup import RedactingFilter, install_record_factory

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
    """Start the chemistry children (``app.viewer.runtime.budget``), freeze what exists then
    out of the garbage collector's walks; print the demo links once the first worker can
    answer (``make run`` asks for it).

    ``SHARE_VIEWER_ANNOUNCE`` names the demo file ``flask refresh-demo`` keeps. Printed here
    rather than before gunicorn starts, so the link works the moment it appears, and for
    the address served (``FLASK_PUBLIC_URL``, else this worker's socket), not the one the
    demo was seeded for.
    """
    from app.viewer.runtime import budget

    _wake_on_signals(worker)
    budget.warm_up()  # the chemistry children, before the first drawing needs one
    # The app's own objects (modules, routes, templates, caches made at start) live as long
    # as the worker: out of the collector's sight, a full collection no longer walks them
    # while a request parses a page of 1,000 records (30-50 ms a page parse in the app,
    # against 7 ms alone, was mostly those collections).
    gc.freeze()
    announce = os.environ.get("SHARE_VIEWER_ANNOUNCE")
    if not announce or worker.age != 1:
        return
    from app.demo.upkeep import banner

    with open(announce) as handle:
        demo = json.load(handle)
    print(banner(demo, served_url(worker.sockets),
                 mail_server=os.environ.get("FLASK_MAIL_SERVER")), flush=True)


def _wake_on_signals(worker) -> None:
    """Let a signal wake a gthread worker's event loop at once.

    gunicorn writes each signal's number to the worker's ``PIPE`` (``signal.set_wakeup_fd``),
    but the gthread loop does not watch it: a SIGTERM waited for the loop's next turn (up to
    1 s) before the worker began to stop.
    """
    poller, pipe = getattr(worker, "poller", None), getattr(worker, "PIPE", None)
    if poller is None or not pipe:
        return

    def drain(fileobj) -> None:
        with contextlib.suppress(BlockingIOError):
            os.read(fileobj, 512)

    poller.register(pipe[0], selectors.EVENT_READ, drain)


def served_url(sockets) -> str:
    """Return the base URL visitors use: ``FLASK_PUBLIC_URL``, else the first bound socket's
    address (a wildcard address as 127.0.0.1)."""
    public = os.environ.get("FLASK_PUBLIC_URL")
    if public:
        return public.rstrip("/")
    address = sockets[0].getsockname() if sockets else ("127.0.0.1", 8000)
    # A wildcard bind is reached through the loopback address (a comparison, not a bind).
    host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(address[0], address[0])  # noqa: S104
    return f"http://{f'[{host}]' if ':' in host else host}:{address[1]}"


def worker_exit(server, worker):
    """Leave the final garbage collection out: nothing needs it, and it took 1.5 s."""
    gc.freeze()


def on_exit(server):
    """The master, too, leaves without its final garbage collection."""
    gc.freeze()


def on_starting(server):
    """Empty the metrics directory: samples of an earlier run would be added to this one's.

    Under ``make run`` (``SHARE_VIEWER_OWN_PROCESS_GROUP``), take a process group of our
    own: a terminal's Ctrl-C then reaches only make's shell, which hands it to this master,
    instead of every worker and chemistry child at once (tracebacks, a race to exit).
    """
    if os.environ.get("SHARE_VIEWER_OWN_PROCESS_GROUP") and os.getpgrp() != os.getpid():
        os.setpgid(0, 0)
    for stale in glob.glob(os.path.join(os.environ["PROMETHEUS_MULTIPROC_DIR"], "*.db")):
        os.remove(stale)


def child_exit(server, worker):
    """Fold a dead worker's samples into the totals (its gauges would otherwise linger)."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid, os.environ["PROMETHEUS_MULTIPROC_DIR"])
