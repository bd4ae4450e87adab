"""Poker push subscriptions: only real push services, real keys, a few devices per account.

The worker POSTs to whatever endpoint a subscription names, so an endpoint is accepted only on
the browsers' push services (`PUSH_SERVICE_HOSTS`): never a loopback, private or cloud metadata
address, nor any host of the subscriber's choosing. The keys must be what a browser sends (a
P-256 public key and a 16-byte secret). An account keeps at most
`PUSH_SUBSCRIPTIONS_PER_ACCOUNT` devices, the newest; and a device another account subscribed
stays that account's until it turns reminders off.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _

from accounts.models import User
from events.errors import Invalid, WrongState
from push.models import PushSubscription

MAX_ENDPOINT = 1000
P256DH_BYTES = 65  # an uncompressed P-256 point
AUTH_BYTES = 16
_BASE64URL = re.compile(r"[A-Za-z0-9_-]+={0,2}")
# Visible ASCII without `\` or `@`: what push services use, and no room for URL parsers to differ
# (about which host a request goes to) between this check and the HTTP client.
_ENDPOINT_CHARACTERS = re.compile(r"[!#-?A-\[\]-~]+")


def endpoint_allowed(endpoint: str) -> bool:
    """Whether an endpoint is on one of the push services of `PUSH_SERVICE_HOSTS`.

    An entry is a host name (`fcm.googleapis.com`), or `*.` and a domain for any host under it
    (`*.push.apple.com`); both mean https on port 443. An entry may instead be one exact origin
    (`http://127.0.0.1:8123`): a local stand-in push service, refused in production (push.E002).
    """
    if len(endpoint) > MAX_ENDPOINT or not _ENDPOINT_CHARACTERS.fullmatch(endpoint):
        return False
    try:
        parts = urlsplit(endpoint)
        port = parts.port
    except ValueError:
        return False
    host = (parts.hostname or "").lower()
    if not host or parts.username is not None or parts.password is not None:
        return False
    for entry in settings.PUSH_SERVICE_HOSTS:
        entry = entry.strip().lower()
        if "://" in entry:
            origin = urlsplit(entry.rstrip("/"))
            if (parts.scheme, host) == (origin.scheme, origin.hostname) and origin.port in (
                None,
                port,
            ):
                return True
            continue
        if parts.scheme != "https" or port not in (None, 443):
            continue
        if host == entry or (entry.startswith("*.") and host.endswith(entry[1:])):
            return True
    return False


def _decoded(value: str, name: str, size: int) -> bytes:
    if len(value) > 2 * size or not _BASE64URL.fullmatch(value):
        raise Invalid(_("The subscription's %(name)s key is not a browser's key.") % {"name": name})
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        raise Invalid(
            _("The subscription's %(name)s key is not a browser's key.") % {"name": name}
        ) from None
    if len(raw) != size:
        raise Invalid(
            _("The subscription's %(name)s key must be %(size)s bytes, not %(length)s.")
            % {"name": name, "size": size, "length": len(raw)}
        )
    return raw


def check_subscription(*, endpoint: str, p256dh: str, auth: str) -> None:
    """Refuse, with a plain message, anything that is not a browser's push subscription."""
    if not endpoint.startswith("https://") and not endpoint_allowed(endpoint):
        raise Invalid(_("A push endpoint must be an https address."))
    if not endpoint_allowed(endpoint):
        raise Invalid(_("That push endpoint is not on a browser's push service."))
    point = _decoded(p256dh, "p256dh", P256DH_BYTES)
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise Invalid(_("The subscription's p256dh key is not a P-256 public key.")) from None
    _decoded(auth, "auth", AUTH_BYTES)


def subscription_save(
    *, user: User, endpoint: str, p256dh: str, auth: str, user_agent: str
) -> None:
    """Store this device's subscription for `user`, dropping their oldest beyond the cap."""
    check_subscription(endpoint=endpoint, p256dh=p256dh, auth=auth)
    with transaction.atomic():
        # One account's subscriptions change one at a time, so the cap holds under races.
        User.objects.select_for_update().filter(pk=user.pk).first()
        existing = PushSubscription.objects.select_for_update().filter(endpoint=endpoint).first()
        if existing is not None and existing.user_id != user.pk:
            raise WrongState(
                _(
                    "This device already sends Poker push reminders to another account. Turn them "
                    "off there first."
                )
            )
        PushSubscription.objects.update_or_create(
            endpoint=endpoint,
            defaults={"user": user, "p256dh": p256dh, "auth": auth, "user_agent": user_agent[:300]},
        )
        keep = settings.PUSH_SUBSCRIPTIONS_PER_ACCOUNT
        newest = PushSubscription.objects.filter(user=user).order_by("-created_at", "-pk")
        stale = list(newest.values_list("pk", flat=True)[keep:])
        if stale:
            PushSubscription.objects.filter(pk__in=stale).delete()


def subscription_delete(*, user: Any, endpoint: str) -> int:
    """Remove this device's subscription, if it is `user`'s (someone else's stays)."""
    deleted, _ = PushSubscription.objects.filter(user=user, endpoint=endpoint).delete()
    return deleted
