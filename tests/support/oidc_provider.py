"""A minimal OpenID Connect provider served over real HTTP on loopback, for tests.

Discovery document, an authorization endpoint that approves at once (as a provider does
for a user who is already signed in there), a token endpoint checking the client secret,
the code and the redirect URI, and a JWKS. id_tokens are RS256 (pyjwt with an RSA key
from cryptography; authlib's own jose module is deprecated). ``email_verified`` is
whatever the test says this provider reports.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from urllib.parse import urlencode

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from werkzeug.serving import make_server
from werkzeug.wrappers import Request, Response


class Provider:
    """An OpenID provider for one client, with one user, running in a thread."""

    def __init__(self, *, email: str, email_verified, client_id: str = "viewer",
                 client_secret: str = "viewer-secret"):
        self.email = email
        self.email_verified = email_verified
        self.client_id = client_id
        self.client_secret = client_secret
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.codes: dict[str, dict] = {}
        self.token_requests = 0
        self._server = make_server("127.0.0.1", 0, self.wsgi, threaded=True)
        self.issuer = f"http://127.0.0.1:{self._server.server_port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def metadata_url(self) -> str:
        """Return the discovery URL."""
        return f"{self.issuer}/.well-known/openid-configuration"

    def start(self) -> Provider:
        """Start serving."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving."""
        self._server.shutdown()

    def wsgi(self, environ, start_response):
        """Route a request to one of the four endpoints."""
        request = Request(environ)
        handler = {
            "/.well-known/openid-configuration": self._discovery,
            "/authorize": self._authorize,
            "/token": self._token,
            "/jwks": self._jwks,
        }.get(request.path)
        response = handler(request) if handler else Response("not found", 404)
        return response(environ, start_response)

    def _discovery(self, _request: Request) -> Response:
        return _json({
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token",
            "jwks_uri": f"{self.issuer}/jwks",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic",
                                                      "client_secret_post"],
            "scopes_supported": ["openid", "email", "profile"],
        })

    def _authorize(self, request: Request) -> Response:
        args = request.args
        if args.get("client_id") != self.client_id or args.get("response_type") != "code":
            return Response("bad authorization request", 400)
        code = secrets.token_urlsafe(16)
        self.codes[code] = {"nonce": args.get("nonce"), "redirect_uri": args["redirect_uri"]}
        query = urlencode({"code": code, "state": args.get("state", "")})
        return Response(status=302, headers={"Location": f"{args['redirect_uri']}?{query}"})

    def _client_ok(self, request: Request) -> bool:
        auth = request.authorization
        if auth is not None:
            return (auth.username, auth.password) == (self.client_id, self.client_secret)
        return (request.form.get("client_id"), request.form.get("client_secret")) == (
            self.client_id, self.client_secret)

    def _token(self, request: Request) -> Response:
        self.token_requests += 1
        grant = self.codes.pop(request.form.get("code", ""), None)
        if (not self._client_ok(request) or grant is None
                or request.form.get("redirect_uri") != grant["redirect_uri"]):
            return _json({"error": "invalid_grant"}, 400)
        now = int(time.time())
        claims = {"iss": self.issuer, "sub": "user-1", "aud": self.client_id, "iat": now,
                  "exp": now + 300, "email": self.email,
                  "email_verified": self.email_verified}
        if grant["nonce"]:
            claims["nonce"] = grant["nonce"]
        id_token = jwt.encode(claims, self.key, algorithm="RS256", headers={"kid": "test-key"})
        return _json({"access_token": secrets.token_urlsafe(16), "token_type": "Bearer",
                      "expires_in": 300, "id_token": id_token})

    def _jwks(self, _request: Request) -> Response:
        public = jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key(), as_dict=True)
        return _json({"keys": [{**public, "kid": "test-key", "use": "sig", "alg": "RS256"}]})


def _json(data: dict, status: int = 200) -> Response:
    return Response(json.dumps(data), status, content_type="application/json")
