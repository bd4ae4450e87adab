"""Refused authorization, written down: one line on the `syndicate.security` logger per refusal.

Logged: every 403 (a domain `NotAllowed`, DRF's permission and sign-in refusals, a CSRF failure),
every 404 under the paths that hide other people's objects (the API, House pages, player pages,
the board, the admin), every 429 (allauth's rate limits, the API's throttles; those a server
answers before Django, syndicate/limits.py, one line a second per session, `repeated=` their
count), every failed sign-in and every sign-in refused by the failed-attempts limit. Each line
says who (user id or `anonymous`), what (status, code, action, method, path) and from where (the
client IP as allauth's rate limits see it).
Never a password, an email address, a session key, a query string or a card.

Also here: the admin's sign-in, which is allauth's (rate-limited) sign-in, open to site staff only.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlencode

from allauth.account.adapter import DefaultAccountAdapter
from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_login_failed
from django.core.exceptions import DisallowedHost, PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseRedirect
from django.http.request import split_domain_port
from django.urls import reverse
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.csrf import csrf_failure as django_csrf_failure

from accounts import lockout
from accounts.language import account_language, browser_asked, remember_browser_language
from events.query import query_text
from helpers import refusals
from helpers.refusals import _clean, _safe_path, client_ip, log_refusal, who

logger = logging.getLogger(refusals.LOGGER)

# A 404 under these paths may hide an object that exists but is someone else's (or a draft).
HIDING_PREFIXES = ("/api/", "/house/", "/events/", "/board/", "/admin/")
REFUSED_STATUSES = frozenset({403, 404, 429})
_DEFAULT_CODES = {403: "forbidden", 404: "not_found", 429: "rate_limited"}
_REASON_ATTRIBUTE = "_security_refusal_reason"
_MAX_JSON_BODY = 64 * 1024


class RefusalLogMiddleware:
    """Logs each 403 and 429, and each 404 under `HIDING_PREFIXES`, with who, what and where."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        status = response.status_code
        if status in REFUSED_STATUSES and (
            status != 404 or request.path.startswith(HIDING_PREFIXES)
        ):
            code, reason = _error_of(response)
            reason = getattr(request, _REASON_ATTRIBUTE, "") or reason
            log_refusal(
                request,
                status=status,
                code=code or _DEFAULT_CODES[status],
                reason=reason,
                level=logging.INFO if status == 404 else logging.WARNING,
            )
        return response


LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "[::1]", "::1"})
OPENER_POLICY = "Cross-Origin-Opener-Policy"


def potentially_trustworthy(request: HttpRequest) -> bool:
    """HTTPS, or a loopback host: where browsers honour Cross-Origin-Opener-Policy (a LAN
    address over plain http gets a console error for it on every page)."""
    if request.is_secure():
        return True
    try:
        host, _ = split_domain_port(request.get_host())
    except DisallowedHost:
        return False
    return host in LOOPBACK_HOSTS or host.endswith(".localhost")


class OpenerPolicyMiddleware:
    """Cross-Origin-Opener-Policy: same-origin, on a potentially trustworthy origin only (in
    place of SecurityMiddleware's, which would send it everywhere)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if potentially_trustworthy(request):
            response.headers.setdefault(OPENER_POLICY, "same-origin")
        return response


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: Django's own 403 page, with the reason kept for the refusal log."""
    setattr(request, _REASON_ATTRIBUTE, f"csrf: {reason}")
    return django_csrf_failure(request, reason=reason)


def log_failed_login(
    sender: Any, credentials: Mapping[str, Any], request: HttpRequest | None = None, **_: Any
) -> None:
    """`user_login_failed`: the account tried (by id, never the email) and where from."""
    login = str(credentials.get("email") or credentials.get("username") or "")
    accounts = get_user_model()._default_manager.filter(email__iexact=login)
    target = accounts.values_list("pk", flat=True).first() if login else None
    fields: dict[str, Any] = {"account": target if target is not None else "unknown"}
    if request is not None:
        fields |= {"path": _safe_path(request), "ip": client_ip(request), "user": who(request)}
    logger.warning(
        "login_failed %s",
        " ".join(f"{name}={_clean(value)}" for name, value in fields.items()),
        extra={"security": {"event": "login_failed", **fields}},
    )


class AccountAdapter(DefaultAccountAdapter):
    """allauth's adapter: its per-address limit on failed sign-ins, our per-account backoff that
    spares the owner's own devices (accounts/lockout.py), and a log line for each refusal; the
    language the account's browser asks for, and its emails in the account's language."""

    def pre_authenticate(self, request: HttpRequest, **credentials: Any) -> None:
        try:
            super().pre_authenticate(request, **credentials)
            if not lockout.attempt_allowed(request, _login_of(credentials)):
                raise self.validation_error("too_many_login_attempts")
        except ValidationError:
            log_refusal(request, code="too_many_login_attempts")
            raise

    def authenticate(self, request: HttpRequest, **credentials: Any) -> Any:
        user = super().authenticate(request, **credentials)
        if user is not None:
            lockout.clear(_login_of(credentials))
        return user

    def save_user(self, request: HttpRequest, user: Any, form: Any, commit: bool = True) -> Any:
        # A new account: what its later emails and pushes are written in until it chooses.
        user.browser_language = browser_asked(request)
        return super().save_user(request, user, form, commit)

    def post_login(self, request: HttpRequest, user: Any, **kwargs: Any) -> HttpResponse:
        remember_browser_language(user, request)
        response = super().post_login(request, user, **kwargs)
        lockout.remember_device(response, request, user)
        return response

    def send_mail(self, template_prefix: str, email: str, context: dict[str, Any]) -> None:
        # allauth writes in the active language, the browser's asking now; an account's own
        # choice wins (a password reset asked for from another's phone).
        user = (
            context.get("user")
            or get_user_model()._default_manager.filter(email__iexact=email).first()
        )
        with translation.override(account_language(user) or translation.get_language()):
            super().send_mail(template_prefix, email, context)

    def _delete_login_attempts_cached_email(self, request: HttpRequest, **credentials: Any) -> None:
        # allauth calls this after a password reset: the account's backoff ends too.
        super()._delete_login_attempts_cached_email(request, **credentials)
        lockout.clear(_login_of(credentials))


def _login_of(credentials: Mapping[str, Any]) -> str:
    return str(credentials.get("email") or credentials.get("username") or "")


def admin_login(request: HttpRequest) -> HttpResponseBase:
    """/admin/login/: site staff go on; anyone else signs in through allauth (rate-limited)."""
    user = request.user
    target = query_text(request, "next", 2000)
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = reverse("admin:index")
    if user.is_authenticated:
        if user.is_active and user.is_staff:
            return HttpResponseRedirect(target)
        # Signed in but not site staff (a House member, a player): no admin, and no loop back
        # through the sign-in page, which would send them straight here again.
        raise PermissionDenied("The admin is for site staff.")
    return HttpResponseRedirect(f"{reverse('account_login')}?{urlencode({'next': target})}")


def connect() -> None:
    """Called once from SyndicateConfig.ready()."""
    user_login_failed.connect(log_failed_login, dispatch_uid="syndicate.security.login_failed")


def _error_of(response: HttpResponseBase) -> tuple[str, str]:
    """The `{"error": {"code", "message"}}` code of a JSON refusal, and whether it was CSRF."""
    if not response.get("Content-Type", "").startswith("application/json"):
        return "", ""
    content = getattr(response, "content", b"")
    if not content or len(content) > _MAX_JSON_BODY:
        return "", ""
    try:
        error = json.loads(content).get("error", {})
    except (ValueError, AttributeError):
        return "", ""
    if not isinstance(error, dict):
        return "", ""
    message = str(error.get("message", ""))
    # DRF's SessionAuthentication refuses with "CSRF Failed: <reason>".
    reason = f"csrf: {message.removeprefix('CSRF Failed: ')}" if "CSRF Failed" in message else ""
    return str(error.get("code", "")), reason
