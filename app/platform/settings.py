"""Every setting of Share Viewer, declared once: its name, default, type and meaning.

A setting ``NAME`` is set with the environment variable ``FLASK_NAME``, read by Flask's
``from_prefixed_env`` (a value that parses as JSON is that JSON: ``25`` is a number,
``true`` a boolean, ``["a"]`` a list; anything else stays text), or by the ``test_config``
mapping a factory is given. ``defaults()`` is applied once to each configuration when its
app object is made (``app.platform.base_app.load_config``); the environment and ``test_config``
override it. README.md's settings table documents exactly the settings of ``SETTINGS``
(tests/platform/test_settings.py holds the two to each other).

``setting(app_or_config, NAME)`` is how the code reads a setting: the value in the declared
type (a mapping without the key reads as the default). A value that cannot be read in its
type raises ``ValueError`` naming the variable; an undeclared name raises ``KeyError``
naming it, so a typo never reads ``None``. A setting marked ``empty_is_default`` reads an
empty value (unset, ``""``, ``0``, an empty list) as its default.

Flask's and its extensions' own keys (``TESTING``, ``DEBUG``, ``SERVER_NAME``,
``SESSION_COOKIE_*``, ``PERMANENT_SESSION_LIFETIME``...) are not declared: Flask reads them,
and the app reads or sets them on ``app.config`` directly. Three of Flask's keys are
declared because the app gives them a default or syntax of its own and documents them:
``SECRET_KEY``, ``TRUSTED_HOSTS`` and ``MAX_CONTENT_LENGTH``. ``FRAMEWORK_DEFAULTS`` holds
the extensions' keys whose default the app changes; ``RETIRED`` the settings no longer
read, with what replaced them.

This module imports nothing of the app: every layer may read settings.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PREFIX = "FLASK_"


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _json_list(value: Any) -> list:
    return json.loads(value) if isinstance(value, str) else list(value)


def _host_names(value: Any) -> list[str] | None:
    """A JSON list of host names, or names separated by commas (``a.org,.b.net``)."""
    if isinstance(value, str):
        # A plain FLASK_TRUSTED_HOSTS=a,b (not JSON): Werkzeug would iterate its letters.
        return [h.strip() for h in value.split(",") if h.strip()]
    return value


def _as_is(value: Any) -> Any:
    return value


_READERS: dict[type, Callable[[Any], Any]] = {
    str: _text, int: int, float: float, bool: bool, list: _json_list, object: _as_is,
}


@dataclass(frozen=True)
class Setting:
    """One setting: ``name`` (``FLASK_`` + name in the environment), ``default``, the
    ``type`` its value is read as, and ``help``, what it means.

    ``empty_is_default``: an empty value (None, ``""``, ``0``, ``[]``) reads as ``default``.
    ``instance_default``: for a folder, where in the app's instance folder a None value
    points (``instance_folder``). ``read``: a reader replacing ``type``'s.
    """

    name: str
    default: Any
    type: type
    help: str
    empty_is_default: bool = False
    instance_default: str | None = None
    read: Callable[[Any], Any] | None = None

    @property
    def variable(self) -> str:
        """The environment variable that sets it."""
        return PREFIX + self.name

    def value(self, raw: Any) -> Any:
        """Return ``raw`` read as this setting's type; ValueError naming the variable."""
        if self.empty_is_default and not raw:
            raw = self.default
        reader = self.read or _READERS[self.type]
        try:
            return reader(raw)
        except (TypeError, ValueError) as error:
            raise ValueError(f"{self.variable}={raw!r} is not a valid {self.type.__name__}: "
                             f"{error}") from None


_S = Setting
SETTINGS: dict[str, Setting] = {s.name: s for s in (
    # Storage and secrets.
    _S("SECRET_KEY", None, object, "session and URL signing; unset: generated once into the "
       "instance folder (app.config.ensure_instance_secret)"),
    _S("INSTANCE_PATH", str(Path(__file__).resolve().parents[2] / "instance"), str,
       "folder for generated secrets, the SQLite file and artifacts; read from the "
       "environment before the configuration exists (app.platform.base_app)",
       empty_is_default=True),
    _S("DATABASE_URL", None, str, "SQLAlchemy URL of the API's database; unset: a SQLite "
       "file in the instance folder"),
    _S("VIEWER_DATABASE_URL", None, str, "SQLAlchemy URL of the viewer's own store "
       "(app.viewer.store); unset: the same database as DATABASE_URL"),
    _S("ARTIFACT_DIR", None, str, "where the embedded service keeps artifact files",
       empty_is_default=True, instance_default="artifacts"),
    _S("ARTIFACT_URL_TTL", 900, int, "lifetime of a presigned artifact URL, seconds"),
    _S("ARTIFACT_STORE", "file", str, '"file" (ARTIFACT_DIR) or "s3://bucket/prefix" '
       "(app.artifact_storage; credentials and region from the usual AWS_* variables)",
       empty_is_default=True),
    _S("S3_ENDPOINT_URL", None, str, "an S3-compatible endpoint (MinIO, moto...); unset: "
       "AWS S3 itself"),
    # The viewer and the API it reads.
    _S("PUBLIC_URL", None, str, "public base URL of the viewer: share url, e-mail links, "
       "OIDC redirects (app.platform.public_url)"),
    _S("COMPUTE_API_URL", None, str, "API the viewer reads from; unset: the embedded "
       "service, in-process"),
    _S("COMPUTE_API_TIMEOUT", 10.0, float, "seconds a viewer page may wait on the API in "
       "all before answering 503/504", empty_is_default=True),
    _S("EMBED_FRAME_ANCESTORS", "*", str, "origins allowed to frame ?embed=1 pages (CSP "
       "frame-ancestors syntax); empty or null: nobody"),
    _S("PRODUCT_NAME", "Share Viewer", str, "name in pages and mail",
       empty_is_default=True),
    _S("STATIC_CACHE_DIR", None, str, "where the gzip and brotli copies of the static files "
       "go", empty_is_default=True, instance_default="static-cache"),
    _S("EXPENSIVE_WORK_SLOTS", 2, int, "expensive requests (exports, new substructure "
       "searches, 3D pages of structure files not read yet) one process runs at once "
       "(app.viewer.runtime.work_gate)",
       empty_is_default=True),
    _S("EXPENSIVE_WORK_PER_CLIENT", 2, int, "expensive requests one client address may hold "
       "at once in one process", empty_is_default=True),
    _S("CLIENT_STALL_SECONDS", 30.0, float, "a download or export whose visitor takes no "
       "64 KiB piece of it for this many seconds is dropped (app.viewer.web.stalls)",
       empty_is_default=True),
    # Exploration index, chemistry and epitopes.
    _S("EXPLORE_INDEX_IDLE_HOURS", 24, float, "an exploration index nobody used for this "
       "many hours is deleted (app.viewer.explore.index.indexer)", empty_is_default=True),
    _S("EXPLORE_SYNC_LIMIT", 2000, int, "pipelines with at most this many results missing "
       "from their index are indexed inside the request; larger ones in the background"),
    _S("FRAME_CACHE_DIR", None, str, "where a machine's workers share exploration frames as "
       'mapped files (app.viewer.explore.index.frame_files); "" turns sharing off',
       instance_default="frame-cache"),
    _S("EPITOPE_SCAN", True, bool, "read protein designs' structures in the background for "
       "their epitopes and exposed M/W (app.viewer.epitope.scan)"),
    # Share-link tokens.
    _S("JWT_PRIVATE_KEY", None, object, "PEM private key the viewer signs share-link tokens "
       "with; unset: an Ed25519 pair generated once into the instance folder"),
    _S("JWT_PUBLIC_KEY", None, object, "PEM public key the service verifies them with"),
    _S("JWT_JWKS_URL", None, str, "JWKS URL the service verifies them with"),
    _S("JWT_ALGORITHM", "EdDSA", str, "EdDSA or ES256, pinned at verification"),
    _S("JWT_ISSUER", "share-viewer", str, "the tokens' iss claim"),
    _S("JWT_AUDIENCE", "compute-api", str, "the tokens' aud claim"),
    _S("JWT_TTL_SECONDS", 300, int, "lifetime of a token, seconds"),
    # The network in front of the app.
    _S("TRUSTED_HOSTS", None, list, "host names the app answers to (Flask's key): a JSON list "
       "or names separated by commas; a leading dot admits subdomains; unset: every host",
       read=_host_names),
    _S("TRUSTED_PROXY_COUNT", 0, int, "proxies in front of the app whose X-Forwarded-For is "
       "trusted", empty_is_default=True),
    _S("METRICS_NETWORKS", None, str, "networks (CIDR, comma-separated) that may read "
       "/metrics (app.platform.metrics.endpoint); unset: loopback only"),
    _S("MAX_CONTENT_LENGTH", 1024 * 1024, int, "largest request body, bytes (Flask's key)"),
    # Sign-in mail.
    _S("MAIL_SERVER", None, str, "SMTP host for sign-in mail; unset: the message is written "
       "to the log instead"),
    _S("MAIL_PORT", 25, int, "SMTP port", empty_is_default=True),
    _S("MAIL_USE_TLS", False, bool, "STARTTLS after connecting"),
    _S("MAIL_USE_SSL", False, bool, "implicit TLS (SMTPS)"),
    _S("MAIL_USERNAME", None, str, "SMTP login (used only with MAIL_PASSWORD)"),
    _S("MAIL_PASSWORD", None, str, "SMTP password (used only with MAIL_USERNAME)"),
    _S("MAIL_SENDER", "Share Viewer <no-reply@localhost>", str, "From: of the message"),
    _S("MAIL_TIMEOUT", 10, float, "seconds to wait on the SMTP server before telling the "
       "visitor to try later", empty_is_default=True),
    # Sign-in (app.viewer.signin).
    _S("SIGNIN_CODE_TTL_SECONDS", 600, int, "a sign-in message (link and code) works for "
       "this long, once"),
    _S("SIGNIN_MAX_CODE_ATTEMPTS", 5, int, "wrong codes typed for one message before it "
       "stops working"),
    _S("SIGNIN_SESSION_HOURS", 12, float, "how long a browser stays signed in after "
       "proving its address"),
    _S("SIGNIN_LIMIT_REQUESTS_PER_CLIENT", "20 per hour", str, "messages per client (IPv4 "
       "address or IPv6 /64); syntax of the limits library"),
    _S("SIGNIN_LIMIT_REQUESTS_PER_ADDRESS", "5 per 15 minutes", str, "messages per address "
       "on one share link"),
    _S("SIGNIN_LIMIT_CLIENTS_PER_LINK", "100 per hour", str, "new clients that may ask for "
       "messages on one share link (a client counts once per window)"),
    _S("SIGNIN_LIMIT_CODES_PER_CLIENT", "30 per 15 minutes", str, "codes and links tried per "
       "client, on top of SIGNIN_MAX_CODE_ATTEMPTS per message"),
    _S("RATELIMIT_STORAGE_URI", None, str, "where sign-in rate limits count: unset, "
       '"memory://" or "database": the viewer store; redis://host:port: Redis'),
    _S("RATELIMIT_KEY_PREFIX", "share-viewer", str, "prefix of the rate-limit and session "
       "keys in Redis", empty_is_default=True),
    _S("SESSION_STORE_URI", None, str, 'where sessions live: unset or "database": the viewer '
       "store; redis://host:port: Redis"),
    _S("OIDC_PROVIDERS", [], list, "OpenID Connect providers for sign-in, a JSON list "
       "(app.viewer.signin.oidc_providers)", empty_is_default=True),
)}
del _S

# Extensions' keys whose default the app changes (not settings of its own).
FRAMEWORK_DEFAULTS: dict[str, Any] = {
    # Referrer-Policy is no-referrer on every page, so the HTTPS Referer check of
    # Flask-WTF would refuse every form: the token in the session does the work.
    "WTF_CSRF_SSL_STRICT": False,
}

# Settings no longer read, and the setting that took over their role.
RETIRED: dict[str, str] = {
    # Their per-link counts let one client lock a link's readers out.
    "SIGNIN_LIMIT_REQUESTS_PER_LINK": "SIGNIN_LIMIT_CLIENTS_PER_LINK",
    "SIGNIN_LIMIT_CODES_PER_LINK": "SIGNIN_LIMIT_CODES_PER_CLIENT",
}


def declared(name: str) -> Setting:
    """Return the declaration of setting ``name``; KeyError naming it if there is none."""
    try:
        return SETTINGS[name]
    except KeyError:
        raise KeyError(f"{name} is not a setting of Share Viewer "
                       "(app.platform.settings.SETTINGS)") from None


def setting(source: Any, name: str) -> Any:
    """Return setting ``name`` of ``source`` (a Flask app or a configuration mapping),
    read as its declared type; KeyError at once if ``name`` is not declared."""
    spec = declared(name)
    config: Mapping[str, Any] = getattr(source, "config", source)
    return spec.value(config.get(name, spec.default))


def instance_folder(app: Any, name: str) -> Path | None:
    """Return folder setting ``name`` of ``app``: its ``instance_default`` inside the app's
    instance folder when the value is None, None when it is ``""`` (the folder is off)."""
    value = setting(app, name)
    if value is None:
        return Path(app.instance_path, declared(name).instance_default)
    return Path(value) if value else None


def from_environment(name: str) -> Any:
    """Return setting ``name`` as its ``FLASK_`` variable sets it, for what is read before
    a configuration exists; the default when the variable is unset."""
    spec = declared(name)
    return spec.value(os.environ.get(spec.variable, spec.default))


def defaults() -> dict[str, Any]:
    """Return every declared default, and the extensions' keys the app changes."""
    return copy.deepcopy({**{s.name: s.default for s in SETTINGS.values()},
                          **FRAMEWORK_DEFAULTS})


def retired_in(config: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Return ``(retired, replacement)`` for each retired setting ``config`` still sets."""
    return [(old, new) for old, new in RETIRED.items() if config.get(old)]
