"""HTTPS for phones: the self-signed certificate, the TLS front, and `cribcam serve --https`."""

from __future__ import annotations

import datetime
import http.client
import json
import socket
import ssl

import numpy as np
import pytest
from cryptography import x509

from cribcam.live.https import VALID_DAYS, TLSFront, fingerprint, local_names, self_signed_certificate, server_context
from cribcam.web import create_app
from webtools import StubReader, encode, serving


def trusting(cert_pem: bytes) -> ssl.SSLContext:
    """A client context that trusts this one certificate, and checks the host name."""
    context = ssl.create_default_context(cadata=cert_pem.decode())
    assert context.check_hostname and context.verify_mode == ssl.CERT_REQUIRED
    return context


def get(port: int, path: str, context: ssl.SSLContext, host: str = "127.0.0.1",
        method: str = "GET", body=None, headers=None) -> tuple[int, bytes]:
    connection = http.client.HTTPSConnection(host, port, context=context, timeout=30)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


@pytest.fixture(scope="module")
def certificate():
    return self_signed_certificate(local_names("127.0.0.1"))


@pytest.fixture
def front(certificate, live_server_factory):
    """The app with a stand-in reader behind a TLS front on a free loopback port."""
    backend = live_server_factory(create_app({"TESTING": True}, reader=StubReader(starter="QS")))
    tls = TLSFront(server_context(*certificate), "127.0.0.1", 0, backend.port)
    yield tls
    tls.close()


def test_the_certificate_is_self_signed_for_this_machines_names(certificate):
    cert_pem, key_pem = certificate
    cert = x509.load_pem_x509_certificate(cert_pem)
    assert cert.issuer == cert.subject
    names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert "localhost" in names.get_values_for_type(x509.DNSName)
    assert {"127.0.0.1", "::1"} <= {str(ip) for ip in names.get_values_for_type(x509.IPAddress)}
    days = (cert.not_valid_after_utc - datetime.datetime.now(datetime.timezone.utc)).days
    assert VALID_DAYS - 2 <= days <= VALID_DAYS  # a year: kept, and used again at each start
    assert b"PRIVATE KEY" in key_pem and b"ENCRYPTED" not in key_pem
    assert len(fingerprint(cert_pem).split(":")) == 32


def test_the_app_is_served_over_tls_and_verified_by_its_own_certificate(front, certificate):
    context = trusting(certificate[0])
    status, body = get(front.port, "/live", context)
    assert status == 200 and b'id="video"' in body
    status, body = get(front.port, "/api/count", context, method="POST",
                       body=json.dumps({"hand": ["5H", "5C", "5S", "JD"], "starter": "5D"}),
                       headers={"Content-Type": "application/json"})
    assert status == 200 and json.loads(body)["total"] == 29
    # A frame, as the live page sends it from a phone.
    boundary = "cribcamframe"
    frame = encode(np.full((480, 640, 3), 90, np.uint8))
    form = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; filename=\"f.jpg\"\r\n"
            f"Content-Type: image/jpeg\r\n\r\n").encode() + frame + f"\r\n--{boundary}--\r\n".encode()
    status, body = get(front.port, "/api/live/frame", context, method="POST", body=form,
                       headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    assert status == 200 and json.loads(body)["frame"] == 1


def test_keep_alive_requests_share_one_tls_connection(front, certificate):
    connection = http.client.HTTPSConnection("127.0.0.1", front.port, context=trusting(certificate[0]),
                                             timeout=30)
    try:
        for _ in range(3):
            connection.request("GET", "/api/status")
            response = connection.getresponse()
            assert response.status == 200 and "model" in json.loads(response.read())
        assert connection.sock is not None
    finally:
        connection.close()


def test_a_client_trusting_only_real_authorities_refuses_it_as_a_browser_warns(front):
    with pytest.raises(ssl.SSLCertVerificationError, match="self-signed|self signed"):
        get(front.port, "/live", ssl.create_default_context())


def test_plain_http_to_the_tls_port_gets_no_page(front):
    connection = http.client.HTTPConnection("127.0.0.1", front.port, timeout=30)
    try:
        with pytest.raises((http.client.HTTPException, ConnectionError)):
            connection.request("GET", "/live")
            connection.getresponse()
    finally:
        connection.close()


def test_connections_over_the_limit_are_closed(certificate, live_server_factory):
    backend = live_server_factory(create_app({"TESTING": True}, reader=StubReader()))
    tls = TLSFront(server_context(*certificate), "127.0.0.1", 0, backend.port, max_connections=1)
    context = trusting(certificate[0])
    try:
        first = http.client.HTTPSConnection("127.0.0.1", tls.port, context=context, timeout=30)
        first.request("GET", "/api/status")
        assert first.getresponse().read()  # held open: keep-alive
        with pytest.raises((http.client.HTTPException, ConnectionError, ssl.SSLError)):
            get(tls.port, "/api/status", context)
        first.close()
    finally:
        tls.close()


def test_closing_with_a_phone_connected_says_nothing(certificate, live_server_factory, caplog):
    # It printed a CancelledError traceback for each connection still open (issue 46).
    backend = live_server_factory(create_app({"TESTING": True}))
    tls = TLSFront(server_context(*certificate), "127.0.0.1", 0, backend.port)
    phone = trusting(certificate[0]).wrap_socket(socket.create_connection(("127.0.0.1", tls.port)),
                                                 server_hostname="127.0.0.1")
    with phone:
        phone.sendall(b"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        # Read to the end of its body: TLS may bring its head and body in records apart.
        response = http.client.HTTPResponse(phone)
        response.begin()
        assert response.status == 200 and response.read() and not response.will_close  # kept alive, as a phone's is
        tls.close()
        assert phone.recv(65536) == b""  # dropped
    assert [record.getMessage() for record in caplog.records if record.name == "asyncio"] == []


def test_a_taken_port_is_an_os_error(certificate):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(OSError):
            TLSFront(server_context(*certificate), "127.0.0.1", taken.getsockname()[1], 1)


# --- `cribcam serve --https` ---------------------------------------------------------------


def test_cribcam_serve_https_prints_its_address_and_fingerprint_and_keeps_its_certificate(
        tmp_path, monkeypatch):
    monkeypatch.setenv("CRIBCAM_DATA", str(tmp_path))  # the certificate is kept in the data folder
    with serving("--https", "--port", "0", "--threads", "2") as process:
        line = process.stdout.readline()
        assert line.startswith("cribcam serve: https://127.0.0.1:"), line + process.stderr.read()
        port = int(line.split()[2].rstrip("/").rsplit(":", 1)[1])
        note = process.stdout.readline()
        assert "self-signed certificate for localhost, 127.0.0.1" in note
        assert f"(made now and kept in {tmp_path / 'https'})" in note
        cert_pem = ssl.get_server_certificate(("127.0.0.1", port)).encode()
        assert note.rstrip().endswith(f"SHA-256 {fingerprint(cert_pem)}")
        status, body = get(port, "/live", trusting(cert_pem))
        assert status == 200 and b"cribcam live" in body
    # Restarted, it serves the same certificate: a phone that trusted it is not asked again.
    with serving("--https", "--port", "0", "--threads", "2") as process:
        process.stdout.readline()
        note = process.stdout.readline()
        assert f"(kept in {tmp_path / 'https'}, as a phone trusted it before)" in note
        assert note.rstrip().endswith(f"SHA-256 {fingerprint(cert_pem)}")
    assert (tmp_path / "https" / "key.pem").stat().st_mode & 0o077 == 0  # the owner's alone


def test_a_kept_certificate_is_made_anew_for_other_names_or_near_its_end(tmp_path):
    from cribcam.live.https import RENEW_DAYS, kept_certificate

    first, _, new = kept_certificate(tmp_path, ["localhost", "127.0.0.1"])
    assert new and kept_certificate(tmp_path, ["localhost"]) == (first, (tmp_path / "key.pem").read_bytes(), False)
    other, _, new = kept_certificate(tmp_path, ["localhost", "192.0.2.7"])  # an address it lacks
    assert new and other != first
    ending = self_signed_certificate(["localhost"], days=RENEW_DAYS - 1)
    (tmp_path / "certificate.pem").write_bytes(ending[0])
    (tmp_path / "key.pem").write_bytes(ending[1])
    assert kept_certificate(tmp_path, ["localhost"])[2]  # too near its end: made anew
    (tmp_path / "certificate.pem").write_text("not a certificate")
    assert kept_certificate(tmp_path, ["localhost"])[2]
