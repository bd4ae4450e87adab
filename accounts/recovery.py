"""Password reset email sent on House's behalf (an access reset), outside any web request."""

from __future__ import annotations

from urllib.parse import urlsplit

from allauth.account.forms import default_token_generator
from allauth.account.internal.flows.password_reset import request_password_reset
from allauth.core.context import request_context
from django.conf import settings
from django.http import HttpRequest

from accounts.models import User


def site_request() -> HttpRequest:
    """A request that stands for the public site address (`SITE_URL`), for building links."""
    site = urlsplit(settings.SITE_URL)
    request = HttpRequest()
    request.META["HTTP_HOST"] = site.netloc
    request.META["SERVER_NAME"] = site.hostname or "localhost"
    request.META["SERVER_PORT"] = str(site.port or (443 if site.scheme == "https" else 80))
    if site.scheme == "https":
        request.META["wsgi.url_scheme"] = "https"
        request.META["HTTP_X_FORWARDED_PROTO"] = "https"
    return request


def send_password_reset(user: User) -> None:
    """Email the user allauth's "Forgot password" link."""
    request = site_request()
    with request_context(request):
        request_password_reset(request, user.email, [user], default_token_generator)
