"""Mail over TLS: STARTTLS with login, and implicit TLS, against aiosmtpd with a test CA."""

from __future__ import annotations

import datetime
import ipaddress
import ssl

import pytest
from aiosmtpd.smtp import AuthResult
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.support.signin import LISTED, ask_for_message, parse_mail, smtp_server


@pytest.fixture
def certificate(tmp_path, monkeypatch):
    """A self-signed certificate for 127.0.0.1, trusted through SSL_CERT_FILE."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName(
            [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    # ssl.create_default_context() (what the mailer uses) reads this variable.
    monkeypatch.setenv("SSL_CERT_FILE", str(cert_path))
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_context.load_cert_chain(cert_path, key_path)
    return server_context


def _login_checker(seen):
    def authenticator(server, session, envelope, mechanism, auth_data):
        seen.append(auth_data.login)
        return AuthResult(success=(auth_data.login, auth_data.password)
                          == (b"mailer", b"s3cret"))
    return authenticator


def test_starttls_then_login(app, client, email_link, certificate):
    seen = []
    with smtp_server(tls_context=certificate, require_starttls=True,
                     authenticator=_login_checker(seen)) as inbox:
        app.config.update(MAIL_SERVER="127.0.0.1", MAIL_PORT=inbox.port, MAIL_USE_TLS=True,
                          MAIL_USERNAME="mailer", MAIL_PASSWORD="s3cret")
        assert ask_for_message(client, email_link, LISTED).status_code == 302
        assert seen == [b"mailer"]
        assert parse_mail(inbox.wait_for(LISTED)).code


def test_implicit_tls(app, client, email_link, certificate):
    with smtp_server(ssl_context=certificate) as inbox:
        app.config.update(MAIL_SERVER="127.0.0.1", MAIL_PORT=inbox.port, MAIL_USE_SSL=True)
        assert ask_for_message(client, email_link, LISTED).status_code == 302
        assert parse_mail(inbox.wait_for(LISTED)).code


def test_an_untrusted_certificate_is_a_failed_send_not_a_500(app, client, email_link,
                                                             certificate, monkeypatch):
    monkeypatch.delenv("SSL_CERT_FILE")
    with smtp_server(tls_context=certificate, require_starttls=True) as inbox:
        app.config.update(MAIL_SERVER="127.0.0.1", MAIL_PORT=inbox.port, MAIL_USE_TLS=True)
        response = ask_for_message(client, email_link, LISTED)
        assert response.status_code == 503
        assert inbox.messages == []
