"""Poker push endpoints: the device's subscription, the web app manifest and the service worker."""

from __future__ import annotations

import json

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.templatetags.static import static
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext as _
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET, require_POST

from accounts.models import User
from events.errors import DomainError
from push.keys import vapid_keys
from push.subscriptions import subscription_delete, subscription_save


def _bad(message: str) -> JsonResponse:
    return JsonResponse({"error": {"code": "invalid", "message": message}}, status=400)


@login_required
@require_POST
def subscribe(request: HttpRequest) -> JsonResponse:
    """Store this device's PushSubscription (the JSON of `subscription.toJSON()`)."""
    try:
        body = json.loads(request.body or b"{}")
        endpoint = str(body["endpoint"])
        keys = body["keys"]
        p256dh, auth = str(keys["p256dh"]), str(keys["auth"])
    except (ValueError, KeyError, TypeError):
        return _bad("Send the browser's subscription: endpoint and keys (p256dh, auth).")
    assert isinstance(request.user, User)
    try:
        subscription_save(
            user=request.user,
            endpoint=endpoint,
            p256dh=p256dh,
            auth=auth,
            user_agent=request.headers.get("User-Agent", ""),
        )
    except DomainError as error:
        return JsonResponse(error.as_json(), status=error.status)
    return JsonResponse({"subscribed": True})


@login_required
@require_POST
def unsubscribe(request: HttpRequest) -> JsonResponse:
    try:
        endpoint = str(json.loads(request.body or b"{}")["endpoint"])
    except (ValueError, KeyError, TypeError):
        return _bad("Send the endpoint to remove.")
    assert isinstance(request.user, User)
    removed = subscription_delete(user=request.user, endpoint=endpoint)
    return JsonResponse({"subscribed": False, "removed": removed})


@require_GET
def public_key(request: HttpRequest) -> JsonResponse:
    """The VAPID public key: the browser's applicationServerKey."""
    return JsonResponse({"public_key": vapid_keys().public_key})


@require_GET
@cache_control(max_age=3600)
def manifest(request: HttpRequest) -> JsonResponse:
    """The installed app's name and description in the request's language (the account's choice,
    else the browser's), which it says in `lang`."""
    response = JsonResponse(
        {
            "name": _("Syndicate Seven-card Poker"),
            "short_name": _("Poker"),
            "description": _("Seven-card Poker at Syndicate cornhole events."),
            "lang": translation.get_language(),
            "start_url": "/?source=app",
            "scope": "/",
            "display": "standalone",
            "background_color": "#101216",
            "theme_color": "#0b6e4f",
            "icons": [
                {"src": static("icons/icon-192.png"), "sizes": "192x192", "type": "image/png"},
                {"src": static("icons/icon-512.png"), "sizes": "512x512", "type": "image/png"},
                {
                    "src": static("icons/icon-512.png"),
                    "sizes": "512x512",
                    "type": "image/png",
                    "purpose": "maskable",
                },
            ],
        },
        content_type="application/manifest+json",
    )
    # A browser asking in another language (or another account's) gets its own copy.
    patch_vary_headers(response, ("Accept-Language", "Cookie"))
    return response


@require_GET
@cache_control(no_cache=True)
def service_worker(request: HttpRequest) -> HttpResponse:
    """Served from the site root so that it controls every page. A worker has no page and so no
    catalog: the page registers it with its language (`/sw.js?lang=es`), and the words it may
    show by itself (a notification whose push carries none) are written at its top."""
    path = finders.find("js/sw.js")
    assert isinstance(path, str)
    asked = request.GET.get("lang", "")
    shipped = {code for code, _name in settings.LANGUAGES}
    with translation.override(asked if asked in shipped else translation.get_language()):
        words = {
            "title": _("Your card choice is waiting"),
            "body": _("Open Seven-card Poker to choose your card."),
        }
    with open(path, encoding="utf-8") as source:
        script = f"const WORDS = {json.dumps(words)};\n{source.read()}"
        response = HttpResponse(script, content_type="text/javascript")
    response["Service-Worker-Allowed"] = "/"
    return response
