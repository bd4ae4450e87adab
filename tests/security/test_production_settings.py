"""Production mode (SYNDICATE_PRODUCTION=1): what the browser gets. HTTP is redirected, HTTPS
carries HSTS (with preload), cookies are HTTPS-only and out of scripts' reach, the CSP keeps its
nonce, and allauth's rate limits count in Redis. Read in a fresh interpreter, as a production
process would. (tests/deploy runs `check --deploy` and checks the deployment settings.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.deploy.test_production_settings import database_url

ROOT = Path(__file__).resolve().parents[2]

READ_SETTINGS = """
import json
import django
from django.conf import settings
from django.http import HttpResponse
from django.middleware.security import SecurityMiddleware
from django.test import RequestFactory
from django.utils.csp import CSP

django.setup()
factory = RequestFactory(headers={"host": "poker.example.com"})
middleware = SecurityMiddleware(lambda request: HttpResponse("ok"))
plain = middleware(factory.get("/events/1/"))
proxied = middleware(factory.get("/events/1/", headers={"x-forwarded-proto": "https"}))
script_src = settings.SECURE_CSP["script-src"]
print(json.dumps({
    "DEBUG": settings.DEBUG,
    "SECURE_HSTS_SECONDS": settings.SECURE_HSTS_SECONDS,
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": settings.SECURE_HSTS_INCLUDE_SUBDOMAINS,
    "SECURE_HSTS_PRELOAD": settings.SECURE_HSTS_PRELOAD,
    "SECURE_SSL_REDIRECT": settings.SECURE_SSL_REDIRECT,
    "SECURE_PROXY_SSL_HEADER": settings.SECURE_PROXY_SSL_HEADER,
    "SESSION_COOKIE_SECURE": settings.SESSION_COOKIE_SECURE,
    "SESSION_COOKIE_HTTPONLY": settings.SESSION_COOKIE_HTTPONLY,
    "CSRF_COOKIE_SECURE": settings.CSRF_COOKIE_SECURE,
    "SECURE_CONTENT_TYPE_NOSNIFF": settings.SECURE_CONTENT_TYPE_NOSNIFF,
    "X_FRAME_OPTIONS": settings.X_FRAME_OPTIONS,
    "CACHE_BACKEND": settings.CACHES["default"]["BACKEND"],
    "script_src_nonce": CSP.NONCE in script_src,
    "script_src_unsafe_inline": CSP.UNSAFE_INLINE in script_src,
    "plain_http": [plain.status_code, plain.get("Location")],
    "hsts_header": proxied.get("Strict-Transport-Security"),
}))
"""


def production_settings(**extra: str) -> dict[str, Any]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "SYNDICATE_", "SECURE_"))
    }
    env |= {
        "DJANGO_SETTINGS_MODULE": "syndicate.settings",
        "SYNDICATE_PRODUCTION": "1",
        "DJANGO_SECRET_KEY": "a-production-secret-for-this-test-only-0123456789abcdef",
        "DJANGO_ALLOWED_HOSTS": "poker.example.com",
        "REDIS_URL": "redis://127.0.0.1:6379/0",
        # The suite's own database, named even when the environment leaves it to the settings.
        "DATABASE_URL": database_url(),
        **extra,
    }
    result = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", READ_SETTINGS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_production_mode_is_https_only() -> None:
    found = production_settings()
    assert found["DEBUG"] is False
    assert found["SECURE_HSTS_SECONDS"] >= 365 * 24 * 3600
    assert found["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is True
    assert found["SECURE_HSTS_PRELOAD"] is True
    assert found["SECURE_SSL_REDIRECT"] is True
    assert found["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert found["SESSION_COOKIE_SECURE"] is True
    assert found["SESSION_COOKIE_HTTPONLY"] is True
    assert found["CSRF_COOKIE_SECURE"] is True
    assert found["SECURE_CONTENT_TYPE_NOSNIFF"] is True
    assert found["X_FRAME_OPTIONS"] == "DENY"


def test_production_mode_redirects_to_https_and_sends_hsts() -> None:
    found = production_settings()
    assert found["plain_http"] == [301, "https://poker.example.com/events/1/"]
    assert found["hsts_header"] == "max-age=31536000; includeSubDomains; preload"


def test_production_mode_keeps_the_nonce_policy_and_the_redis_cache() -> None:
    found = production_settings()
    assert found["script_src_nonce"] is True
    assert found["script_src_unsafe_inline"] is False
    # allauth's rate limits count in the default cache: Redis, shared by every web process.
    assert found["CACHE_BACKEND"] == "django.core.cache.backends.redis.RedisCache"


def test_the_debug_flag_cannot_slip_into_production_unnoticed() -> None:
    # DJANGO_DEBUG is an explicit opt-in; production mode alone never turns it on.
    assert production_settings(DJANGO_DEBUG="")["DEBUG"] is False
