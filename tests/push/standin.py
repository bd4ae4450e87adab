"""A push service stand-in on loopback: checks VAPID and decrypts what a phone would receive."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from tests.waiting import PATIENCE, wait_until


def b64decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


# The stand-in answers on loopback over http, on a port of its own: the push allow-list
# (settings.PUSH_SERVICE_HOSTS) lets tests reach it with this entry.
STANDIN_HOSTS = "http://127.0.0.1"


@dataclass
class Device:
    """A browser's side of a subscription: its key pair and auth secret."""

    endpoint: str
    private_key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth_secret: bytes = field(default_factory=lambda: os.urandom(16))

    @property
    def p256dh(self) -> str:
        return b64encode(
            self.private_key.public_key().public_bytes(
                serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
            )
        )

    @property
    def auth(self) -> str:
        return b64encode(self.auth_secret)


@dataclass
class Received:
    device: str
    payload: dict[str, Any]
    claims: dict[str, Any]


class PushService:
    """Answers each POST with the next queued status (default 201) after checking it fully."""

    def __init__(self, server_public_key: str) -> None:
        self.server_public_key = server_public_key
        self.devices: dict[str, Device] = {}
        self.received: list[Received] = []
        self.refused: list[str] = []
        self.statuses: dict[str, list[int]] = {}
        self.silent: set[str] = set()  # devices whose POSTs are never answered
        self.unanswered = 0
        self.closing = threading.Event()
        self.lock = threading.Lock()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.path in service.silent:
                    with service.lock:
                        service.unanswered += 1
                    service.closing.wait(timeout=60)
                    return
                status, problem = service.accept(
                    self.path, {k.lower(): v for k, v in self.headers.items()}, body
                )
                self.send_response(status)
                self.end_headers()
                self.wfile.write(problem.encode())

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> PushService:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.closing.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def device(self, name: str) -> Device:
        device = Device(endpoint=f"{self.origin}/push/{name}")
        self.devices[f"/push/{name}"] = device
        return device

    def never_answer(self, name: str) -> None:
        """POSTs to this device are read and then left hanging, like a dead push service."""
        self.silent.add(f"/push/{name}")

    def answer(self, name: str, *statuses: int) -> None:
        self.statuses[f"/push/{name}"] = list(statuses)

    def wait_for(self, count: int, *, timeout: float = PATIENCE) -> list[Received]:
        """What the service has received, once it is at least `count` notifications."""
        wait_until(lambda: len(self.received) >= count, f"{count} notification(s)", timeout=timeout)
        return self.received

    def accept(self, path: str, headers: dict[str, str], body: bytes) -> tuple[int, str]:
        device = self.devices.get(path)
        if device is None:
            return 404, "no such subscription"
        try:
            claims = self._check_vapid(headers)
            plain = http_ece.decrypt(
                body,
                private_key=device.private_key,
                auth_secret=device.auth_secret,
                version=headers.get("content-encoding", "aes128gcm"),
            )
        except (ValueError, KeyError, InvalidSignature, http_ece.ECEException) as error:
            with self.lock:
                self.refused.append(f"{path}: {error!r}")
            return 401, f"refused: {error}"
        with self.lock:
            queued = self.statuses.get(path, [])
            status = queued.pop(0) if queued else 201
            if status < 300:
                self.received.append(Received(path, json.loads(plain), claims))
        return status, ""

    def _check_vapid(self, headers: dict[str, str]) -> dict[str, Any]:
        authorization = headers.get("authorization", "")
        if not authorization.startswith("vapid "):
            raise ValueError("no VAPID authorization")
        parts = dict(item.strip().split("=", 1) for item in authorization[6:].split(","))
        if parts["k"] != self.server_public_key:
            raise ValueError("not the server's VAPID key")
        header, payload, signature = parts["t"].split(".")
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64decode(parts["k"]))
        raw = b64decode(signature)
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        public.verify(der, f"{header}.{payload}".encode(), ec.ECDSA(hashes.SHA256()))
        claims: dict[str, Any] = json.loads(b64decode(payload))
        if claims.get("aud") != self.origin:
            raise ValueError(f"audience {claims.get('aud')!r} is not this push service")
        if int(claims.get("exp", 0)) <= time.time():
            raise ValueError("expired VAPID token")
        if not str(claims.get("sub", "")).startswith(("mailto:", "https:")):
            raise ValueError("VAPID subject missing")
        return claims
