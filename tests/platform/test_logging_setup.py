"""What ``redact`` removes from log text: every credential that can appear in a URL."""

from __future__ import annotations

from app.platform.logging_setup import redact


def test_every_credential_in_a_request_line_is_redacted():
    share_id = "sl_" + "A1b2" * 8
    line = (
        f'"GET /share/{share_id}/sign-in/link/tok_SECRET123 HTTP/1.1" '
        f'"GET /compute/v1/share-links/{share_id}/archive" '
        '"GET /compute/v1/artifacts/art_1?expires=99&signature=deadbeef01" '
        '"GET /sign-in/oidc/google/callback?state=STATE42&code=CODE42" '
        "x-api-key bz_live_KEYKEYKEY Authorization: Bearer eyJhbGc.eyJzdWI.c2ln"
    )
    cleaned = redact(line)
    for secret in (share_id, "tok_SECRET123", "deadbeef01", "STATE42", "CODE42",
                   "bz_live_KEYKEYKEY", "eyJhbGc.eyJzdWI.c2ln"):
        assert secret not in cleaned, secret
    # What operators need stays: the route shape and the non-secret parameters.
    assert "/share/[redacted]/sign-in/link/[redacted]" in cleaned
    assert "expires=99" in cleaned
