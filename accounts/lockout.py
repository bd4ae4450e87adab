"""Failed sign-ins: a slower and slower account for guessers, never a locked door for its owner.

Two limits. Per address (allauth's `login_failed` rate, 10 a minute): one table's phone cannot try
passwords quickly. Per account, with backoff: five failures in a row from devices that never
signed in to that account, then each next try waits 30 s, 60 s, 120 s ... up to 15 minutes after
the last failure. A device that signed in to the account before carries a signed cookie saying so,
and the account's backoff does not apply to it: someone at the next table who types the owner's
email five times slows only themselves, while the owner's phone signs in as usual. A successful
sign-in or a password reset clears the account's failures.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from django.conf import settings
from django.core import signing
from django.core.cache import cache
from django.http import HttpRequest, HttpResponseBase

from accounts.models import User

DEVICE_COOKIE = "syndicate_device"
DEVICE_SALT = "accounts.lockout.device"
DEVICE_MAX_AGE = 60 * 60 * 24 * 365
DEVICE_ACCOUNTS = 5  # accounts one device remembers signing in to
FREE_FAILURES = 5
FIRST_WAIT = 30.0
LONGEST_WAIT = 15 * 60.0
FORGET_AFTER = 60 * 60  # seconds without a failure before the count starts over


@dataclass(frozen=True, slots=True)
class Failures:
    count: int
    last: float

    def wait(self, now: float) -> float:
        """Seconds until the next try from an unknown device is allowed (0: now)."""
        if self.count < FREE_FAILURES:
            return 0.0
        backoff = min(FIRST_WAIT * 2 ** (self.count - FREE_FAILURES), LONGEST_WAIT)
        return max(0.0, self.last + backoff - now)


def _key(login: str) -> str:
    digest = hashlib.sha256(login.strip().lower().encode()).hexdigest()
    return f"accounts:signin-failures:{digest}"


@contextmanager
def _locked(key: str) -> Iterator[bool]:
    """Check-and-count under a short cache lock, so parallel guesses cannot all slip through."""
    lock = f"{key}:lock"
    deadline = time.monotonic() + 2
    while not cache.add(lock, 1, timeout=5):
        if time.monotonic() > deadline:
            yield False
            return
        time.sleep(0.01)
    try:
        yield True
    finally:
        cache.delete(lock)


def known_accounts(request: HttpRequest) -> list[int]:
    """The accounts this device signed in to before (from its signed cookie)."""
    value = request.COOKIES.get(DEVICE_COOKIE)
    if not value:
        return []
    try:
        accounts = signing.loads(value, salt=DEVICE_SALT, max_age=DEVICE_MAX_AGE)
    except signing.BadSignature:
        return []
    return [int(pk) for pk in accounts if isinstance(pk, int)] if isinstance(accounts, list) else []


def _account_of(login: str) -> int | None:
    return User.objects.filter(email__iexact=login.strip()).values_list("pk", flat=True).first()


def attempt_allowed(request: HttpRequest, login: str) -> bool:
    """Whether this sign-in may check its password; if so, it is counted as a failure until
    `succeeded` says otherwise. A device the account signed in from before is always allowed."""
    if not login:
        return True
    account = _account_of(login)
    if account is not None and account in known_accounts(request):
        return True
    key = _key(login)
    with _locked(key) as locked:
        if not locked:
            return False
        now = time.time()
        stored = cache.get(key)
        failures = stored if isinstance(stored, Failures) else Failures(0, 0.0)
        if failures.wait(now) > 0:
            return False
        cache.set(key, Failures(failures.count + 1, now), FORGET_AFTER)
    return True


def clear(login: str) -> None:
    """The owner proved themselves (a right password, a password reset): start over."""
    if login:
        cache.delete(_key(login))


def remember_device(response: HttpResponseBase, request: HttpRequest, user: User) -> None:
    """After a sign-in: this device now knows this account (newest first, a few at most)."""
    accounts = [user.pk, *(pk for pk in known_accounts(request) if pk != user.pk)]
    response.set_cookie(
        DEVICE_COOKIE,
        signing.dumps(accounts[:DEVICE_ACCOUNTS], salt=DEVICE_SALT),
        max_age=DEVICE_MAX_AGE,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )
