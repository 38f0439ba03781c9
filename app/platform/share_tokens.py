"""Signed JWTs that let a verified visitor read an email-mode share link.

The viewer signs (private key), the compute service verifies (public key): neither side
shares a secret, and the service can run elsewhere with only the public key or a JWKS URL.

Claims: ``email`` (the verified address), ``share_link_id`` (the only link the token is
good for), ``aud``, ``iss``, ``iat``, ``nbf``, ``exp`` (minutes), ``jti``.
Verification pins the algorithm (``FLASK_JWT_ALGORITHM``, EdDSA by default, or ES256), so
``alg: none`` and HMAC-with-the-public-key confusions are refused.

Keys: ``FLASK_JWT_PRIVATE_KEY`` / ``FLASK_JWT_PUBLIC_KEY`` (PEM text) or
``FLASK_JWT_JWKS_URL``; when unset, a key pair is generated once into the instance folder.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from pathlib import Path

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from flask import Flask, current_app

from app.platform.instance_secrets import write_once
from app.platform.settings import setting

SUPPORTED_ALGORITHMS = ("EdDSA", "ES256")
PRIVATE_KEY_FILE = "jwt_private_key.pem"


class InvalidShareToken(Exception):
    """The bearer token is missing, malformed, forged, expired or for another link."""


def _generate_private_pem(algorithm: str) -> bytes:
    key = ed25519.Ed25519PrivateKey.generate() if algorithm == "EdDSA" else (
        ec.generate_private_key(ec.SECP256R1())
    )
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _instance_private_pem(app: Flask) -> bytes:
    """Read the instance folder's private key, generating it once (race-safe)."""
    return write_once(Path(app.instance_path) / PRIVATE_KEY_FILE,
                      lambda: _generate_private_pem(setting(app, "JWT_ALGORITHM")))


def _algorithm(app: Flask) -> str:
    algorithm = setting(app, "JWT_ALGORITHM")
    if algorithm not in SUPPORTED_ALGORITHMS:
        raise RuntimeError(f"FLASK_JWT_ALGORITHM must be one of {SUPPORTED_ALGORITHMS}")
    return algorithm


def private_key(app: Flask | None = None):
    """Return the viewer's signing key (cached on the app)."""
    app = app or current_app
    cached = app.extensions.get("jwt_private_key")
    if cached is None:
        pem = setting(app, "JWT_PRIVATE_KEY")
        pem_bytes = pem.encode() if isinstance(pem, str) else pem or _instance_private_pem(app)
        cached = serialization.load_pem_private_key(pem_bytes, password=None)
        app.extensions["jwt_private_key"] = cached
    return cached


def _verification_key(app: Flask, token: str):
    """Return the key that verifies ``token``: PEM, JWKS URL, or the instance pair."""
    jwks_url = setting(app, "JWT_JWKS_URL")
    if jwks_url:
        client = app.extensions.get("jwks_client")
        if client is None:
            client = jwt.PyJWKClient(jwks_url, cache_keys=True, timeout=5)
            app.extensions["jwks_client"] = client
        try:
            return client.get_signing_key_from_jwt(token).key
        except jwt.PyJWKClientError as error:
            raise InvalidShareToken(f"cannot find the signing key: {error}") from None
    cached = app.extensions.get("jwt_public_key")
    if cached is None:
        pem = setting(app, "JWT_PUBLIC_KEY")
        if pem:
            raw = pem.encode() if isinstance(pem, str) else pem
            cached = serialization.load_pem_public_key(raw)
        else:
            cached = private_key(app).public_key()
        app.extensions["jwt_public_key"] = cached
    return cached


def public_jwk(app: Flask | None = None) -> dict:
    """Return the viewer's public key as a JWK (served for services that use a JWKS URL)."""
    app = app or current_app
    algorithm = _algorithm(app)
    key = private_key(app).public_key()
    codec = jwt.algorithms.OKPAlgorithm if algorithm == "EdDSA" else jwt.algorithms.ECAlgorithm
    fields = codec.to_jwk(key, as_dict=True)
    # kid = RFC 7638 thumbprint; PyJWKClient (JWKS-URL verification) needs one on both sides.
    required = {k: fields[k] for k in ("crv", "kty", "x", "y") if k in fields}
    digest = hashlib.sha256(json.dumps(required, sort_keys=True, separators=(",", ":")).encode())
    kid = base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode()
    return {**fields, "kid": kid, "use": "sig", "alg": algorithm}


def mint(share_link_id: str, email: str, app: Flask | None = None) -> str:
    """Sign a short-lived token for ``email`` to read ``share_link_id``."""
    app = app or current_app
    now = int(time.time())
    claims = {
        "email": email,
        "share_link_id": share_link_id,
        "aud": setting(app, "JWT_AUDIENCE"),
        "iss": setting(app, "JWT_ISSUER"),
        "iat": now,
        "nbf": now,
        "exp": now + setting(app, "JWT_TTL_SECONDS"),
        "jti": secrets.token_urlsafe(12),
    }
    kid = app.extensions.get("jwt_kid")
    if kid is None:
        kid = app.extensions["jwt_kid"] = public_jwk(app)["kid"]
    return jwt.encode(claims, private_key(app), algorithm=_algorithm(app), headers={"kid": kid})


def verify(token: str, share_link_id: str, app: Flask | None = None) -> str:
    """Return the verified e-mail address in ``token`` for ``share_link_id``.

    Raises InvalidShareToken for any defect: bad signature, other algorithm, expired or
    not yet valid, wrong audience or issuer, missing claims, or a token for another link.
    """
    app = app or current_app
    try:
        claims = jwt.decode(
            token,
            _verification_key(app, token),
            algorithms=[_algorithm(app)],
            audience=setting(app, "JWT_AUDIENCE"),
            issuer=setting(app, "JWT_ISSUER"),
            leeway=5,
            options={"require": ["exp", "nbf", "aud", "iss", "email", "share_link_id"]},
        )
    except jwt.PyJWTError as error:
        raise InvalidShareToken(str(error)) from None
    if not secrets.compare_digest(str(claims["share_link_id"]), share_link_id):
        raise InvalidShareToken("the token is for another share link")
    email = claims["email"]
    if not isinstance(email, str) or "@" not in email:
        raise InvalidShareToken("the token carries no e-mail address")
    return email
