"""HTTPS for the live page on a phone: a self-signed certificate and a TLS front for waitress.

Browsers give a page the camera only over HTTPS (or on localhost). A phone on the same
network reaches the server by its address, so ``cribcam serve --https`` makes a certificate
for this machine's names and addresses (nothing is downloaded) and accepts TLS connections
in front of the usual waitress server, which listens on loopback only. The certificate is
signed by itself, not by an authority the phone knows: the browser warns once, and the
SHA-256 fingerprint printed at start-up is the one its certificate details should show. It
is kept in the data folder and used again at the next start while it is valid for the same
names (``kept_certificate``): a phone that trusted it once need not be asked again after a
restart.
"""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import socket
import ssl
import tempfile
import threading
from pathlib import Path

VALID_DAYS = 365
RENEW_DAYS = 7  # a kept certificate this close to its end is made anew
HANDSHAKE_SECONDS = 10
MAX_CONNECTIONS = 100  # as many as waitress serves (its connection_limit)
WILDCARDS = ("", "0.0.0.0", "::")  # listen on every interface
_CHUNK = 1 << 16


def network_address() -> str | None:
    """This machine's IPv4 address on its network (the one a phone would use), if any."""
    try:  # no packet is sent: connecting a UDP socket only picks the outgoing interface
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1, never routed anywhere
            return probe.getsockname()[0]
    except OSError:
        return None  # no network: loopback only


def local_names(host: str = "0.0.0.0") -> list[str]:
    """The names and addresses a browser may use for this machine: localhost, the host
    name, the loopback addresses, the network address, and ``host`` when it is a specific
    address."""
    hostname = socket.gethostname()
    names = ["localhost", "127.0.0.1", "::1", hostname, f"{hostname}.local",
             network_address() or ""]
    if host not in WILDCARDS:
        names.append(host)
    return list(dict.fromkeys(n for n in names if n))


def self_signed_certificate(names: list[str], days: int = VALID_DAYS) -> tuple[bytes, bytes]:
    """A certificate valid for ``names`` (host names and IP addresses), and its key, as PEM."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "cribcam on " + names[0]),
                         x509.NameAttribute(NameOID.ORGANIZATION_NAME, "cribcam (self-signed)")])
    alternatives = []
    for name in names:
        try:
            alternatives.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            alternatives.append(x509.DNSName(name))
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(subject).issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))  # a phone's clock a little behind
        .not_valid_after(now + datetime.timedelta(days=days))
        .add_extension(x509.SubjectAlternativeName(alternatives), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]),
                       critical=False)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    return certificate.public_bytes(serialization.Encoding.PEM), key_pem


def kept_certificate(folder: Path, names: list[str]) -> tuple[bytes, bytes, bool]:
    """The certificate and key kept in ``folder`` when they are valid for ``names`` for
    ``RENEW_DAYS`` more; else new ones, kept there (the key readable by its owner only).
    Returns them as PEM, and whether they are new."""
    from cryptography import x509

    cert_path, key_path = folder / "certificate.pem", folder / "key.pem"
    try:
        cert_pem, key_pem = cert_path.read_bytes(), key_path.read_bytes()
        certificate = x509.load_pem_x509_certificate(cert_pem)
        covered = {str(name.value) for name in certificate.extensions.get_extension_for_class(
            x509.SubjectAlternativeName).value}
        ends = certificate.not_valid_after_utc - datetime.datetime.now(datetime.timezone.utc)
        if set(names) <= covered and ends > datetime.timedelta(days=RENEW_DAYS):
            return cert_pem, key_pem, False
    except (OSError, ValueError, x509.ExtensionNotFound):  # none kept, or one unreadable
        pass
    cert_pem, key_pem = self_signed_certificate(names)
    folder.mkdir(parents=True, exist_ok=True)
    key_path.touch(mode=0o600)
    key_path.chmod(0o600)
    key_path.write_bytes(key_pem)
    cert_path.write_bytes(cert_pem)
    return cert_pem, key_pem, True


def fingerprint(cert_pem: bytes) -> str:
    """The certificate's SHA-256 fingerprint as browsers show it (``AB:CD:...``)."""
    import hashlib

    digest = hashlib.sha256(ssl.PEM_cert_to_DER_cert(cert_pem.decode())).hexdigest().upper()
    return ":".join(digest[i:i + 2] for i in range(0, len(digest), 2))


def server_context(cert_pem: bytes, key_pem: bytes) -> ssl.SSLContext:
    """A TLS server context for the certificate and key."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    # The ssl module loads certificates from files only: they live a moment in a private
    # temporary folder, removed as soon as they are loaded.
    with tempfile.TemporaryDirectory(prefix="cribcam-tls-") as folder:
        cert, key = Path(folder) / "cert.pem", Path(folder) / "key.pem"
        cert.write_bytes(cert_pem)
        key.touch(mode=0o600)
        key.write_bytes(key_pem)
        context.load_cert_chain(cert, key)
    return context


class TLSFront:
    """Accepts TLS connections and relays each, as it is, to a plain server on loopback.

    Listens as soon as it is made, on its own event loop in a thread of its own (so it
    works beside any other loop of the caller's). Each connection gets its own connection to
    the backend, so keep-alive, request limits and timeouts stay waitress's.

    Args:
        context: the server TLS context.
        host, port: where to listen (port 0: any free one; ``port`` tells which).
        backend_port: the plain server's port on 127.0.0.1.
        max_connections: connections relayed at once; more are closed at once.

    Raises:
        OSError: the address cannot be listened on.
    """

    def __init__(self, context: ssl.SSLContext, host: str, port: int, backend_port: int,
                 max_connections: int = MAX_CONNECTIONS):
        self.host = host
        self.backend_port = backend_port
        self.max_connections = max_connections
        self._open = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="tls-front",
                                        daemon=True)
        self._thread.start()
        listening = asyncio.run_coroutine_threadsafe(asyncio.start_server(
            self._relay, host, port, ssl=context, ssl_handshake_timeout=HANDSHAKE_SECONDS),
            self._loop)
        try:
            self._server = listening.result()
        except BaseException:
            self._stop()
            raise
        self.port = self._server.sockets[0].getsockname()[1]

    def close(self) -> None:
        """Stops listening, drops the relayed connections and ends the loop's thread."""
        try:
            asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(timeout=5)
        finally:
            self._stop()

    async def _shutdown(self) -> None:
        self._server.close()
        relays = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in relays:
            task.cancel()
        await asyncio.gather(*relays, return_exceptions=True)

    def _stop(self) -> None:
        # Stopped from the loop's own thread, after what was asked of it before.
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        self._loop.close()

    async def _relay(self, client_reader, client_writer) -> None:
        try:
            await self._relay_to_backend(client_reader, client_writer)
        except asyncio.CancelledError:
            # close() drops the connection. Ended here, as a finished task: Python 3.11's
            # streams log a cancelled connection task as an unhandled error, a traceback
            # when the server stops with a phone connected (3.12 does not).
            client_writer.close()

    async def _relay_to_backend(self, client_reader, client_writer) -> None:
        if self._open >= self.max_connections:
            client_writer.close()
            return
        self._open += 1
        try:
            backend_reader, backend_writer = await asyncio.open_connection(
                "127.0.0.1", self.backend_port)
        except OSError:
            self._open -= 1
            client_writer.close()
            return
        try:
            await asyncio.gather(_pipe(client_reader, backend_writer),
                                 _pipe(backend_reader, client_writer))
        finally:
            self._open -= 1
            backend_writer.close()
            client_writer.close()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copies ``reader`` to ``writer`` until either ends; then ends ``writer`` too."""
    try:
        while data := await reader.read(_CHUNK):
            writer.write(data)
            await writer.drain()
    except (OSError, ssl.SSLError, asyncio.IncompleteReadError):
        pass  # the other side went away: nothing to tell it
    finally:
        # A client that only ends its half still gets its answer: pass the end on where the
        # transport can (plain TCP to the backend); otherwise close.
        try:
            if writer.can_write_eof() and not writer.is_closing():
                writer.write_eof()
            else:
                writer.close()
        except (OSError, RuntimeError):
            writer.close()
