"""https: the socket goes to the checked address, the certificate is checked for the name."""

from __future__ import annotations

import datetime as dt
import ssl
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from layoutkit.net import Fetcher, FetchError
from tests.loopback import QuietHandler
from tests.net.conftest import PUBLIC, SITE, StubResolver


def _cert(tmp: Path, name: str) -> tuple[Path, Path, Path]:
    """A CA and a leaf certificate for ``name`` signed by it: (ca, cert, key) files."""
    now = dt.datetime.now(dt.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(1)
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(2)
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    paths = (tmp / "ca.pem", tmp / "leaf.pem", tmp / "leaf.key")
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return paths


class _Hello(QuietHandler):
    names: list[str | None] = []  # noqa: RUF012

    def do_GET(self) -> None:
        body = b"<title>Over TLS</title>"
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def tls_site(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    ca, cert, key = _cert(tmp_path, SITE)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    # Record the SNI each handshake carries.
    context.sni_callback = lambda sock, name, ctx: _Hello.names.append(name)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    try:
        yield server.server_address[1], ca
    finally:
        server.shutdown()
        server.server_close()


def _fetcher(port: int, ca: Path, table: dict[str, list[str]]) -> Fetcher:
    trust = ssl.create_default_context(cafile=str(ca))
    return Fetcher(resolver=StubResolver(table), dial=lambda ip, p: ("127.0.0.1", port), tls=trust)


def test_https_sends_the_name_as_sni_and_verifies_the_certificate_for_it(
    tls_site: tuple[int, Path],
) -> None:
    port, ca = tls_site
    page = _fetcher(port, ca, {SITE: [PUBLIC]}).get(f"https://{SITE}/")
    assert page.status == 200 and page.body == b"<title>Over TLS</title>"
    assert _Hello.names[-1] == SITE


def test_a_certificate_for_another_name_is_refused(tls_site: tuple[int, Path]) -> None:
    port, ca = tls_site
    with pytest.raises(FetchError) as caught:
        _fetcher(port, ca, {"other.example.net": [PUBLIC]}).get("https://other.example.net/")
    assert caught.value.code == "unreachable"
    assert "certificate" in caught.value.message.lower()
