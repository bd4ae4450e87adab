"""API rate limits (DRF throttles), counted in the cache: Redis whenever REDIS_URL is set.

Per address, generous: a venue's players may all share one NAT address. Per account, tighter,
reads and writes apart; House (site staff, and every House member of an event) writes for up to a
thousand players, so its writes have a limit of their own. The rates are read from
`settings.API_THROTTLE_RATES` at each request, so tests and benchmarks change them with the
settings; a rate of None turns that limit off.
A refused request answers 429 `throttled` (api/errors.py) and changes nothing. An account limit
that refuses also tells the server process (`syndicate.limits.refusals`), which answers that
session's next requests of the same kind itself, before any database work, until the window's
oldest counted request leaves it.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

from helpers.refusals import client_ip, refusals


class SettingsRateThrottle(SimpleRateThrottle):
    duration: int | None  # seconds of the window (DRF's parse_rate), None when off

    def get_rate(self) -> str | None:
        rate: str | None = settings.API_THROTTLE_RATES.get(str(self.scope))
        return rate


class AddressThrottle(SettingsRateThrottle):
    """Every API request from one client address (as the sign-in limits see it)."""

    scope = "address"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": client_ip(request)}


class _AccountThrottle(SettingsRateThrottle):
    writes: bool

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if not request.user or not request.user.is_authenticated:
            return None  # the address limit covers requests without an account
        if (request.method in SAFE_METHODS) == self.writes:
            return None  # counted by the other one of the pair
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}

    def allow_request(self, request: Request, view: Any) -> bool:
        if super().allow_request(request, view):
            return True
        session_key = getattr(getattr(request, "session", None), "session_key", None)
        if session_key and self.history and self.duration and request.user.pk is not None:
            # Nothing passes before the oldest counted request leaves the window.
            refusals.refuse(
                session_key,
                writes=self.writes,
                until=self.history[-1] + self.duration,
                user_id=int(request.user.pk),
            )
        return False


class AccountReadThrottle(_AccountThrottle):
    scope = "account_read"
    writes = False


class AccountWriteThrottle(_AccountThrottle):
    scope = "account_write"
    writes = True

    def allow_request(self, request: Request, view: Any) -> bool:
        # The scope decides the rate, so it is chosen before the base class reads it.
        self.scope = "house_write" if _acts_as_house(request) else "account_write"
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)


def _acts_as_house(request: Request) -> bool:
    user = request.user
    if not user or not user.is_authenticated or request.method in SAFE_METHODS:
        return False
    return bool(user.is_staff or user.is_superuser or user.staff_roles.exists())
