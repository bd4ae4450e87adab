"""Settings, read from the environment (12-factor).

The app always runs on PostgreSQL and Redis. With `DATABASE_URL` or `REDIS_URL` unset (outside
production) it uses the embedded servers of `make run`: a PostgreSQL and a Valkey (Redis protocol)
from wheels, with their data under `var/`, found running or started by `syndicate/embedded.py`.
`SYNDICATE_PRODUCTION=1` turns on production mode, which refuses to start without
`DJANGO_SECRET_KEY`, `DJANGO_ALLOWED_HOSTS`, `DATABASE_URL` and `REDIS_URL`.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("SYNDICATE_VAR_DIR", BASE_DIR / "var"))


def env_flag(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


PRODUCTION = env_flag("SYNDICATE_PRODUCTION")
# Off unless asked for (`DEBUG=1` or `DJANGO_DEBUG=1`): `make run` is the venue's server, and a
# debug page shows a phone the site's address list or a traceback (syndicate/error_pages.py).
DEBUG = env_flag("DJANGO_DEBUG", default=not PRODUCTION and env_flag("DEBUG"))

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if PRODUCTION:
        raise ImproperlyConfigured("Production mode needs DJANGO_SECRET_KEY in the environment.")
    # The key a restored standby copy brought (standby/secrets.py), else the development one.
    _kept_key = VAR_DIR / "secret_key"
    SECRET_KEY = (
        _kept_key.read_text().strip()
        if _kept_key.exists()
        else "insecure-development-key-only-for-make-run-and-tests"
    )

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "" if PRODUCTION else "127.0.0.1,localhost")
if PRODUCTION and not ALLOWED_HOSTS:
    raise ImproperlyConfigured("Production mode needs DJANGO_ALLOWED_HOSTS in the environment.")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")
# The public address, for links in emails sent outside a request (access resets) and for the
# board's QR (events.venue.phone_url, which never uses a loopback address).
SITE_URL = os.environ.get(
    "SITE_URL", f"https://{ALLOWED_HOSTS[0]}" if PRODUCTION else "http://127.0.0.1:8000"
)

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "channels",
    "django_htmx",
    "allauth",
    "allauth.account",
    "accounts",
    "staff",
    "organizations",
    "events",
    "cards",
    "audit",
    "web",
    "house",
    "ledger",
    "privacy",
    "api",
    "live",
    "push",
    "standby",
    "seasons",
    "payments",
    "syndicate",  # the refused-authorization log (syndicate/security.py)
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Cross-Origin-Opener-Policy, only where browsers honour it (SECURE_CROSS_ORIGIN_OPENER_POLICY
    # is None for it).
    "syndicate.security.OpenerPolicyMiddleware",
    # Before anything may wait (a database connection): the body may be closed by then.
    "syndicate.bodies.ReadBodyFirst",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "syndicate.security.RefusalLogMiddleware",
    "syndicate.error_pages.ControlCharactersMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # After the session, before CommonMiddleware: the browser's Accept-Language (or the language
    # cookie) picks among LANGUAGES, English when none fits (docs/decisions.md, "Languages").
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A signed-in account's own choice of language wins over the browser's (accounts/language.py).
    "accounts.language.AccountLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    # A suspended organization's House page, asked by its staff: the suspension's page.
    "house.suspension.SuspendedOrganizationMiddleware",
    # Last, so its process_exception is the first to see a view's exception.
    "helpers.busy.BusyMiddleware",
]

ROOT_URLCONF = "syndicate.urls"
ASGI_APPLICATION = "syndicate.asgi.application"
WSGI_APPLICATION = "syndicate.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASE_URL = os.environ.get("DATABASE_URL", "")
REDIS_URL = os.environ.get("REDIS_URL", "")
if PRODUCTION and not DATABASE_URL:
    raise ImproperlyConfigured("Production mode needs DATABASE_URL in the environment.")
if PRODUCTION and not REDIS_URL:
    raise ImproperlyConfigured("Production mode needs REDIS_URL in the environment.")
if not DATABASE_URL or not REDIS_URL:
    # The embedded servers under var/, shared by `make run` and every command in the checkout.
    from syndicate import embedded

    _embedded = embedded.ensure(VAR_DIR, database=not DATABASE_URL, redis=not REDIS_URL)
    DATABASE_URL = DATABASE_URL or _embedded.database_url
    REDIS_URL = REDIS_URL or _embedded.redis_url
DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL,
        # Persistent connections stay off by default: daphne serves requests from many threads.
        conn_max_age=int(os.environ.get("DATABASE_CONN_MAX_AGE", "0")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
    raise ImproperlyConfigured("DATABASE_URL must name a PostgreSQL database (postgres://...).")
# HTTP requests one server process runs at once (each in a thread with a database connection);
# the others wait their turn. 0 means no limit.
HTTP_CONCURRENCY = int(os.environ.get("HTTP_CONCURRENCY", "8"))
# At most this many of them from one browser session (its session cookie): one account sending as
# fast as it can waits in a line of its own (syndicate/limits.py). 0 means no such limit.
HTTP_CONCURRENCY_PER_CLIENT = int(os.environ.get("HTTP_CONCURRENCY_PER_CLIENT", "2"))
# Django's PostgreSQL connection pool (psycopg_pool), the way to reuse connections under ASGI,
# where each request runs in a thread of its own: at most this many connections per process,
# 0 for none (a connection per request, or per DATABASE_CONN_MAX_AGE).
DATABASE_POOL_SIZE = int(os.environ.get("DATABASE_POOL_SIZE", "0"))
if DATABASE_POOL_SIZE > 0:
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # the pool keeps the connections
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": min(2, DATABASE_POOL_SIZE),
        "max_size": DATABASE_POOL_SIZE,
        # Seconds a request waits for a free connection before it is answered 503 (helpers.busy).
        "timeout": float(os.environ.get("DATABASE_POOL_TIMEOUT", "30")),
    }
if os.environ.get("TEST_DATABASE_NAME"):
    # Separate test runs (unit, browser) each create their own test database.
    DATABASES["default"]["TEST"] = {"NAME": os.environ["TEST_DATABASE_NAME"]}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Redis carries the channel layer, the cache and the Celery broker. The channel layer may be spread
# over several servers (CHANNEL_REDIS_URLS, comma-separated): channels-redis hashes each channel and
# group name to one of them, and every process lists them in the same order. The live updates' own
# bookkeeping (the changes list, the publisher's heartbeat and leases) stays on REDIS_URL, one
# server, with the cache and the broker (docs/deploy.md, "Many venues on one deployment").
CHANNEL_REDIS_URLS = env_list("CHANNEL_REDIS_URLS") or [REDIS_URL]
for _url in CHANNEL_REDIS_URLS:
    if not _url.startswith(("redis://", "rediss://", "unix://")):
        raise ImproperlyConfigured(
            f"CHANNEL_REDIS_URLS holds {_url!r}: each entry must be a redis://, rediss:// "
            "or unix:// address."
        )
CHANNEL_LAYERS = {
    "default": {
        # Redis pub/sub: a group message is published once and each server process hands it
        # to its own sockets, instead of one copy per socket through Redis; a process that
        # dies leaves nothing behind. Live messages need no persistence: a socket that misses
        # one sees the version gap and reloads (docs/rules.md section 12.1). The process decodes a
        # group message once for all its sockets (live.channel_layer).
        "BACKEND": "live.channel_layer.PubSubChannelLayer",
        # redis-py reads time out after 5 s by default, which would drop idle sockets
        # (django/channels_redis#422): give the channel layer a longer read timeout.
        "CONFIG": {
            "hosts": [{"address": url, "socket_timeout": 30} for url in CHANNEL_REDIS_URLS],
            "prefix": os.environ.get("CHANNELS_PREFIX", "asgi"),
        },
    }
}
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": os.environ.get("CACHE_PREFIX", "syndicate"),
    }
}
CELERY_BROKER_URL = REDIS_URL
# A task a dead worker held comes back after this long; reminder countdowns (180 s) and the
# sweep's five-minute rescue of stranded deliveries stay well inside it.
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {"visibility_timeout": 900}
CELERY_TASK_ALWAYS_EAGER = env_flag("CELERY_TASK_ALWAYS_EAGER")
# How committed changes reach live views: "process" (the publisher, `manage.py publish_live`),
# "background" (a worker thread in each server process), "inline" or "off".
LIVE_UPDATES = os.environ.get("LIVE_UPDATES", "background")
# The publisher (or worker thread) sends at most one snapshot set per event this often (seconds).
LIVE_UPDATES_INTERVAL = float(os.environ.get("LIVE_UPDATES_INTERVAL", "0.25"))
# After a delivery that took T seconds, the event's next one waits this many times T (when longer
# than the interval), so live updates never crowd out the requests that make the changes.
LIVE_UPDATES_REST_PER_WORK = float(os.environ.get("LIVE_UPDATES_REST_PER_WORK", "4"))
# The events are split into this many shards by a stable hash of their id: the servers hand each
# change to its event's shard, and the publishers (`publish_live --shards`, by default this) share
# the shards under leases (live/delivery.py). Servers and publishers must agree: 1 on a laptop.
_live_shards = os.environ.get("LIVE_SHARDS", "1").strip()
if not _live_shards.isdigit() or int(_live_shards) < 1:
    raise ImproperlyConfigured(f"LIVE_SHARDS is {_live_shards!r}: a whole number, 1 or more.")
LIVE_SHARDS = int(_live_shards)
# The standby copy's folder (a USB stick, a second disk, a synced folder; "" = none): `make run`
# keeps a live copy of the database there, and a snapshot of it is taken into its `snapshots/`
# when an event starts and when it is finalized (docs/reliability.md, "Snapshots").
STANDBY_DIR = os.environ.get("STANDBY_DIR", "")
# Two queues, every worker consuming both (`--queues=celery,announcements`: syndicate/launcher.py,
# docker-compose.yml): "celery" for reminders and the beat's tasks, "announcements" for House's
# announcements by Poker push, at the lowest priority. Redis lists each priority apart and a worker
# takes every higher one first, so a burst of announcement deliveries never delays a reminder by
# more than the deliveries already running (docs/decisions.md, "Announcements").
CELERY_TASK_DEFAULT_QUEUE = "celery"
ANNOUNCEMENT_QUEUE = "announcements"
WORKER_QUEUES = [CELERY_TASK_DEFAULT_QUEUE, ANNOUNCEMENT_QUEUE]
# Redis: 0 is the highest priority (every task's default), 9 the lowest.
ANNOUNCEMENT_PRIORITY = 9
CELERY_TASK_ROUTES = {
    f"push.tasks.{name}": {"queue": ANNOUNCEMENT_QUEUE, "priority": ANNOUNCEMENT_PRIORITY}
    for name in ("send_announcement", "deliver_announcement")
}
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TIMEZONE = "UTC"

AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
# Argon2id at OWASP's minimum (accounts/hashers.py); passwords stored before with PBKDF2 still
# sign in, and are stored again with Argon2id as they do.
PASSWORD_HASHERS = [
    "accounts.hashers.OwaspArgon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*", "password2*"]
ACCOUNT_SIGNUP_FORM_CLASS = "accounts.forms.SignupForm"
ACCOUNT_SESSION_REMEMBER = True
ACCOUNT_PASSWORD_RESET_BY_CODE_ENABLED = False
# Sign-up ends on a page asking for the code emailed to the address, whether or not the address
# already has an account (its owner gets an "account exists" email instead): nobody learns from
# sign-up which emails are registered. Accounts made by staff or commands count as verified.
# A new account confirms its email with an emailed code before it signs in, which is what lets
# sign-up answer alike for a taken email. `make run` with no EMAIL_HOST turns it off
# (SIGNUP_EMAIL_CODE=0): with no mail to carry the codes, nobody could sign up at the venue.
SIGNUP_EMAIL_CODE = PRODUCTION or env_flag("SIGNUP_EMAIL_CODE", default=True)
ACCOUNT_EMAIL_VERIFICATION = "mandatory" if SIGNUP_EMAIL_CODE else "none"
# allauth refuses codes without mandatory verification (a system check).
ACCOUNT_EMAIL_VERIFICATION_BY_CODE_ENABLED = SIGNUP_EMAIL_CODE
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_USER_MODEL_USERNAME_FIELD = None
# allauth counts attempts in the default cache, Redis: every web process shares the counts.
# Failed sign-ins: allauth limits each address; each account gets a backoff of our own that spares
# devices that signed in to it before (accounts/lockout.py), instead of allauth's per-email lock,
# which locked the owner out too.
ACCOUNT_RATE_LIMITS = {"login_failed": "10/m/ip"}
# Sign-up, sign-in and password reset answer alike whether or not an email has an account.
ACCOUNT_PREVENT_ENUMERATION = True
ACCOUNT_FORMS = {"add_email": "accounts.emails.AddEmailForm"}
# Logs sign-ins refused by the failed-attempts limit (syndicate/security.py).
ACCOUNT_ADAPTER = "syndicate.security.AccountAdapter"
# Behind a TLS proxy the client IP is in X-Forwarded-For: set this to the number of proxies, or
# every client shares the proxy's address and the per-IP limits lock out the whole room at once.
ALLAUTH_TRUSTED_PROXY_COUNT = int(os.environ.get("DJANGO_TRUSTED_PROXY_COUNT", "0"))
LOGIN_REDIRECT_URL = "/"
ACCOUNT_LOGOUT_REDIRECT_URL = "/"

# Email: SMTP in production or when EMAIL_HOST is set; else printed to the console (development).
if PRODUCTION or os.environ.get("EMAIL_HOST"):
    MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {
                "host": os.environ.get("EMAIL_HOST", "localhost"),
                "port": int(os.environ.get("EMAIL_PORT", "587")),
                "username": os.environ.get("EMAIL_HOST_USER", ""),
                "password": os.environ.get("EMAIL_HOST_PASSWORD", ""),
                "use_tls": env_flag("EMAIL_USE_TLS", default=True),
            },
        }
    }
else:
    # Printed, readable and with no secret link (helpers/console_mail.py).
    MAILERS = {"default": {"BACKEND": "helpers.console_mail.ConsoleBackend"}}
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Syndicate <noreply@localhost>")

# Web push (Poker push). Production reads both keys from the environment.
VAPID_PUBLIC_KEY = os.environ.get("VAPID_PUBLIC_KEY", "")
VAPID_PRIVATE_KEY = os.environ.get("VAPID_PRIVATE_KEY", "")
VAPID_SUBJECT = os.environ.get("VAPID_SUBJECT", "mailto:house@localhost")
# The Ed25519 key that signs each audit chain's head (audit/signing.py): base64 or PEM.
AUDIT_SIGNING_KEY = os.environ.get("AUDIT_SIGNING_KEY", "")
# Seconds a selection waits before its one reminder; well under the broker's visibility timeout.
PUSH_REMINDER_DELAY = int(os.environ.get("PUSH_REMINDER_DELAY", "180"))
# A claimed delivery still pending after this long lost its task message: the sweep resends it.
# Longer than every retry of one delivery.
PUSH_STRANDED_AFTER = int(os.environ.get("PUSH_STRANDED_AFTER", "300"))
# The only hosts reminders are sent to (https, port 443): the push services of Chrome, Edge,
# Firefox and Safari. `*.` allows any host under a domain. PUSH_SERVICE_HOSTS in the environment
# adds more (comma-separated), e.g. another browser's service.
PUSH_SERVICE_HOSTS = [
    "fcm.googleapis.com",
    "android.googleapis.com",
    "updates.push.services.mozilla.com",
    "*.push.services.mozilla.com",
    "web.push.apple.com",
    "*.push.apple.com",
    "*.notify.windows.com",
    *env_list("PUSH_SERVICE_HOSTS"),
]
# Devices per account; a new one replaces the account's oldest.
PUSH_SUBSCRIPTIONS_PER_ACCOUNT = 5
# Seconds to connect to a push service, and to wait for its answer: a slow or dead service holds
# one worker thread this long at most.
PUSH_CONNECT_TIMEOUT = 3.0
PUSH_READ_TIMEOUT = 5.0
# Hours an Idempotency-Key's stored answer is kept for a retry (docs/rules.md section 11.1).
IDEMPOTENCY_RECORD_HOURS = 24
# Winnings net of the entry above this many dollars are flagged on a payout for tax paperwork.
PAYOUT_REPORTING_THRESHOLD = int(os.environ.get("PAYOUT_REPORTING_THRESHOLD", "5000"))
# Organizations (docs/decisions.md, "Organizations"): the events one may create in a calendar
# month unless the operator sets its own cap (0: no cap), and how many a user may create a day.
ORGANIZATION_EVENTS_PER_MONTH = int(os.environ.get("ORGANIZATION_EVENTS_PER_MONTH", "0"))
ORGANIZATIONS_PER_USER_PER_DAY = int(os.environ.get("ORGANIZATIONS_PER_USER_PER_DAY", "3"))
# Entries paid ahead online (payments/, docs/decisions.md "Paying online"): Stripe Checkout where
# both secrets are set, else pay at the door as always. STRIPE_API_BASE points the library at
# another server (the tests' local one); STRIPE_CURRENCY is the entries' currency.
STRIPE_SECRET_KEY = os.environ.get("STRIPE_SECRET_KEY", "")
STRIPE_WEBHOOK_SECRET = os.environ.get("STRIPE_WEBHOOK_SECRET", "")
STRIPE_API_BASE = os.environ.get("STRIPE_API_BASE", "")
STRIPE_CURRENCY = os.environ.get("STRIPE_CURRENCY", "usd").strip().lower() or "usd"
CELERY_BEAT_SCHEDULE = {
    "sweep-reminders": {"task": "push.tasks.sweep_reminders", "schedule": 30.0},
    "send-online-refunds": {"task": "payments.tasks.send_refunds", "schedule": 300.0},
    "expire-idempotency-records": {
        "task": "events.tasks.expire_idempotency_records",
        "schedule": 3600.0,
    },
    # Holds on offered and unpaid places whose scheduled end was lost (events/waitlist.py).
    "sweep-holds": {"task": "events.tasks.sweep_holds", "schedule": 60.0},
}

LANGUAGE_CODE = "en"
# The languages a person may read the pages in, each translated completely (locale/, checked by
# tests/test_translations.py); anything else reads English.
LANGUAGES = [("en", "English"), ("es", "Español"), ("fr", "Français")]
LOCALE_PATHS = [BASE_DIR / "locale"]
# Dates and times read the same on every page (syndicate/formats/en/formats.py).
FORMAT_MODULE_PATH = ["syndicate.formats"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if PRODUCTION
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}

# Outside production (`make run`, tests) the files are served from the apps and static/ as found,
# with DEBUG off as with it on; production serves the collected, hashed ones.
WHITENOISE_USE_FINDERS = not PRODUCTION
WHITENOISE_AUTOREFRESH = DEBUG
if not PRODUCTION:
    # Nothing is collected outside production: whitenoise need not say STATIC_ROOT is missing.
    warnings.filterwarnings("ignore", message="No directory at: ", category=UserWarning)

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_THROTTLE_CLASSES": [
        "api.throttles.AddressThrottle",
        "api.throttles.AccountReadThrottle",
        "api.throttles.AccountWriteThrottle",
    ],
    "EXCEPTION_HANDLER": "api.errors.exception_handler",
}


def throttle_rates(defaults: Mapping[str, str | None], overrides: str) -> dict[str, str | None]:
    """`address=6000/min,account_write=off`: each named rate replaced, `off` for none."""
    rates = dict(defaults)
    for item in overrides.split(","):
        scope, _, rate = item.strip().partition("=")
        if not scope:
            continue
        if scope not in rates or not rate:
            raise ImproperlyConfigured(f"API_THROTTLE_RATES: no rate {scope!r}; use {list(rates)}.")
        rates[scope] = None if rate.strip().lower() == "off" else rate.strip()
    return rates


# API requests per client address (generous: 60 players behind one venue's NAT address) and per
# account, reads and writes apart, House's writes (checking in a whole venue) apart again
# (api/throttles.py). API_THROTTLE_RATES in the environment
# replaces any of them, e.g. `address=off,account_read=off,account_write=off` for the load
# benchmarks.
API_THROTTLE_RATES = throttle_rates(
    {
        "address": "3000/min",
        "account_read": "300/min",
        "account_write": "60/min",
        "house_write": "1200/min",
    },
    os.environ.get("API_THROTTLE_RATES", ""),
)
SPECTACULAR_SETTINGS = {
    "TITLE": "Syndicate Seven-card Poker API",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "OAS_VERSION": "3.1.0",
    "DESCRIPTION": (
        "Every player and House action and read of Seven-card Poker events. Sign in with a "
        "session (writes need the CSRF token). Every write carries an `Idempotency-Key` header. "
        'Refusals are JSON `{"error": {"code": ..., "message": ...}}` with 400, 403, 404, 409, '
        "422 or 429 (`throttled`, with Retry-After); the codes are listed in docs/errors.md."
    ),
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "api.schema.strict_request_bodies",
    ],
    "ENUM_NAME_OVERRIDES": {
        "FormatEnum": "events.request_bodies.FORMATS",
        "OutcomeEnum": "events.request_bodies.OUTCOMES",
        "HeadPhaseEnum": "audit.anchor.PHASES",
        "PhaseEnum": "events.models.Phase.values",
        # A payout and a sponsor's money both move by cash or transfer.
        "PayoutMethodEnum": "ledger.lines.PAYOUT_METHODS",
    },
}

SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.NONCE],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
}
X_FRAME_OPTIONS = "DENY"
CSRF_FAILURE_VIEW = "syndicate.security.csrf_failure"
SECURE_CONTENT_TYPE_NOSNIFF = True
# Sent by syndicate.security.OpenerPolicyMiddleware on HTTPS and loopback hosts only: over plain
# http on a LAN address browsers ignore it and log an error on every page.
SECURE_CROSS_ORIGIN_OPENER_POLICY = None
SECURE_REFERRER_POLICY = "same-origin"
if PRODUCTION:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_flag("DJANGO_SECURE_SSL_REDIRECT", default=True)
    SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", str(60 * 60 * 24 * 365)))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    # Password-reset keys and session ids are replaced in every line (helpers/redaction.py).
    "filters": {"redact_secrets": {"()": "helpers.redaction.RedactSecrets"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["redact_secrets"],
        }
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        # Refused authorization (403, hiding 404, 429, failed sign-ins): kept whatever LOG_LEVEL.
        "syndicate.security": {"level": "INFO"},
    },
}
