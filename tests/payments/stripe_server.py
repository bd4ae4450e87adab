"""A local server that speaks the part of Stripe's API the project uses, for the tests: Checkout
Sessions (create, read), Refunds (create), and webhook deliveries signed as Stripe signs them
(`Stripe-Signature: t=<ts>,v1=<hex HMAC-SHA256 of "<ts>.<payload>">`). A real HTTP server in a
thread: the official `stripe` library talks to it through STRIPE_API_BASE, and it posts its
events to the app's webhook over HTTP. It records every charge and refund, so a test can count
them (no double charge, no payment lost)."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import re
import secrets
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl

_KEY = re.compile(r"([^\[\]]+)|\[([^\[\]]*)\]")


def _form(body: str) -> dict[str, Any]:
    """Stripe's form encoding (`a[b][0][c]=v`) as nested dicts and lists."""
    root: dict[str, Any] = {}
    for key, value in parse_qsl(body, keep_blank_values=True):
        parts = [a or b for a, b in _KEY.findall(key)]
        node: Any = root
        for here, after in itertools.pairwise(parts):
            container: Any = [] if after.isdigit() else {}
            if isinstance(node, list):
                index = int(here)
                while len(node) <= index:
                    node.append(None)
                if node[index] is None:
                    node[index] = container
                node = node[index]
            else:
                node = node.setdefault(here, container)
        last = parts[-1]
        if isinstance(node, list):
            index = int(last)
            while len(node) <= index:
                node.append(None)
            node[index] = value
        else:
            node[last] = value
    return root


def sign(payload: bytes, secret: str, timestamp: int | None = None) -> str:
    """The `Stripe-Signature` header Stripe sends with `payload`."""
    at = int(time.time()) if timestamp is None else timestamp
    digest = hmac.new(secret.encode(), f"{at}.".encode() + payload, hashlib.sha256).hexdigest()
    return f"t={at},v1={digest}"


def _id(prefix: str) -> str:
    return f"{prefix}_test_{secrets.token_hex(12)}"


@dataclass
class Delivery:
    event: dict[str, Any]
    status: int


@dataclass
class StripeServer:
    """Stripe, as far as the project uses it. `webhook_url` is where events go (the app's
    `/payments/stripe/webhook`), signed with `webhook_secret`."""

    api_key: str
    webhook_secret: str
    webhook_url: str = ""
    sessions: dict[str, dict[str, Any]] = field(default_factory=dict)
    refunds: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Every payment taken (a payment intent per charge), and every request Stripe was sent.
    charges: list[dict[str, Any]] = field(default_factory=list)
    requests: list[tuple[str, str]] = field(default_factory=list)
    deliveries: list[Delivery] = field(default_factory=list)
    # Refunds are confirmed by webhook (charge.refunded, then refund.updated) unless told not to.
    confirm_refunds: bool = True
    _idempotent: dict[str, tuple[int, dict[str, Any]]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None
    _senders: list[threading.Thread] = field(default_factory=list)

    # --- running -----------------------------------------------------------------------------

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> StripeServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                server._answer(self, "GET", "")

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                server._answer(self, "POST", self.rfile.read(length).decode())

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        for sender in self._senders:
            sender.join(timeout=30)
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    # --- the API -----------------------------------------------------------------------------

    def _answer(self, handler: BaseHTTPRequestHandler, method: str, body: str) -> None:
        path = handler.path.split("?", 1)[0]
        with self._lock:
            self.requests.append((method, path))
        if handler.headers.get("Authorization") != f"Bearer {self.api_key}":
            self._send(handler, 401, _error("Invalid API Key provided.", "authentication_error"))
            return
        key = handler.headers.get("Idempotency-Key")
        if method == "POST" and key:
            with self._lock:
                seen = self._idempotent.get(f"{path}:{key}")
            if seen is not None:
                self._send(handler, *seen)
                return
        params = _form(body)
        if method == "POST" and path == "/v1/checkout/sessions":
            status, answer = self._create_session(params)
        elif method == "GET" and path.startswith("/v1/checkout/sessions/"):
            found = self.sessions.get(path.rsplit("/", 1)[-1])
            status, answer = (200, found) if found else (404, _error("No such checkout session"))
        elif method == "POST" and path == "/v1/refunds":
            status, answer = self._create_refund(params)
        else:
            status, answer = 404, _error(f"Unrecognized request URL ({method}: {path}).")
        if method == "POST" and key and status < 500:
            with self._lock:
                self._idempotent[f"{path}:{key}"] = (status, answer)
        self._send(handler, status, answer)

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, status: int, answer: dict[str, Any]) -> None:
        data = json.dumps(answer).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.send_header("Request-Id", _id("req"))
        handler.end_headers()
        handler.wfile.write(data)

    def _create_session(self, params: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if params.get("mode") != "payment":
            return 400, _error("This server takes mode=payment only.")
        expires_at = int(params.get("expires_at") or time.time() + 86400)
        if not time.time() + 1800 - 5 <= expires_at <= time.time() + 86400:
            return 400, _error("expires_at must be between 30 minutes and 24 hours from now.")
        total, currency = 0, ""
        for item in params.get("line_items") or []:
            price = item["price_data"]
            total += int(price["unit_amount"]) * int(item.get("quantity", 1))
            currency = price["currency"]
        session_id = _id("cs")
        session = {
            "id": session_id,
            "object": "checkout.session",
            "mode": "payment",
            "status": "open",
            "payment_status": "unpaid",
            "amount_total": total,
            "currency": currency,
            "metadata": params.get("metadata") or {},
            "client_reference_id": params.get("client_reference_id"),
            "payment_intent": None,
            "expires_at": expires_at,
            "success_url": params.get("success_url"),
            "cancel_url": params.get("cancel_url"),
            "url": f"{self.url}/c/pay/{session_id}",
            "livemode": False,
        }
        with self._lock:
            self.sessions[session_id] = session
        return 200, session

    def _create_refund(self, params: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        intent = params.get("payment_intent", "")
        with self._lock:
            charge = next((c for c in self.charges if c["payment_intent"] == intent), None)
            if charge is None:
                return 400, _error(f"No such payment_intent: '{intent}'")
            if charge["refunded"]:
                return 400, _error(f"Charge {charge['id']} has already been refunded.")
            charge["refunded"] = True
            refund = {
                "id": _id("re"),
                "object": "refund",
                "amount": charge["amount"],
                "currency": charge["currency"],
                "charge": charge["id"],
                "payment_intent": intent,
                "status": "succeeded",
            }
            self.refunds[refund["id"]] = refund
        if self.confirm_refunds:
            self.later(self.refund_events(refund))
        return 200, refund

    # --- what a test does as the player, or as Stripe ----------------------------------------

    def pay(
        self,
        session_id: str,
        *,
        amount: int | None = None,
        currency: str | None = None,
        deliver: bool = True,
    ) -> dict[str, Any]:
        """The player pays the session on Stripe's page: it is paid with a new payment intent,
        the charge recorded, and (unless `deliver` is False) `checkout.session.completed` posted
        to the webhook. The event, for a test to deliver again."""
        with self._lock:
            session = self.sessions[session_id]
            if session["payment_status"] == "paid":
                raise AssertionError(f"{session_id} is already paid")
            session["amount_total"] = session["amount_total"] if amount is None else amount
            session["currency"] = session["currency"] if currency is None else currency
            session.update(status="complete", payment_status="paid", payment_intent=_id("pi"))
            self.charges.append(
                {
                    "id": _id("ch"),
                    "payment_intent": session["payment_intent"],
                    "amount": session["amount_total"],
                    "currency": session["currency"],
                    "session": session_id,
                    "refunded": False,
                }
            )
            event = self.event("checkout.session.completed", dict(session))
        if deliver:
            self.deliver(event)
        return event

    def event(self, kind: str, found: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": _id("evt"),
            "object": "event",
            "api_version": "2025-01-01",
            "created": int(time.time()),
            "type": kind,
            "livemode": False,
            "pending_webhooks": 1,
            "data": {"object": found},
        }

    def refund_events(self, refund: dict[str, Any]) -> list[dict[str, Any]]:
        """What Stripe sends when a refund succeeds: `charge.refunded`, then `refund.updated`."""
        charge = next(c for c in self.charges if c["id"] == refund["charge"])
        return [
            self.event(
                "charge.refunded",
                {
                    "id": charge["id"],
                    "object": "charge",
                    "payment_intent": charge["payment_intent"],
                    "amount": charge["amount"],
                    "amount_refunded": charge["amount"],
                    "refunded": True,
                    "refunds": {"object": "list", "data": [refund]},
                },
            ),
            self.event("refund.updated", dict(refund)),
        ]

    def deliver(
        self,
        event: dict[str, Any],
        *,
        secret: str | None = None,
        timestamp: int | None = None,
        signature: str | None = None,
    ) -> int:
        """POST one event to the webhook, signed as Stripe signs it (or as told): the status."""
        payload = json.dumps(event).encode()
        header = (
            signature
            if signature is not None
            else sign(payload, secret or self.webhook_secret, timestamp)
        )
        request = urllib.request.Request(
            self.webhook_url,
            data=payload,
            method="POST",
            headers={"Content-Type": "application/json", "Stripe-Signature": header},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                status = int(answer.status)
        except urllib.error.HTTPError as refused:
            status = refused.code
        with self._lock:
            self.deliveries.append(Delivery(event, status))
        return status

    def later(self, events: list[dict[str, Any]]) -> None:
        """Deliver `events` in order from a thread of their own, as Stripe does after answering."""
        sender = threading.Thread(target=lambda: [self.deliver(e) for e in events], daemon=True)
        with self._lock:
            self._senders.append(sender)
        sender.start()

    def charged(self, intent: str) -> dict[str, Any]:
        return next(c for c in self.charges if c["payment_intent"] == intent)


@contextmanager
def stripe_running(settings: Any, webhook_url: str = "") -> Iterator[StripeServer]:
    """A local Stripe server, the app's settings (pytest-django's `settings`) pointed at it, and
    its webhook deliveries posted to `webhook_url` (the app's live server, when a test needs
    Stripe's events; a test that only starts Checkout needs none)."""
    server = StripeServer(api_key="sk_test_local", webhook_secret="whsec_test_local").start()
    server.webhook_url = webhook_url
    settings.STRIPE_SECRET_KEY = server.api_key
    settings.STRIPE_WEBHOOK_SECRET = server.webhook_secret
    settings.STRIPE_API_BASE = server.url
    settings.STRIPE_CURRENCY = "usd"
    try:
        yield server
    finally:
        server.stop()


def _error(message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
    return {"error": {"type": kind, "message": message}}
