"""ASGI entry point: HTTP through Django, websockets through Channels."""

import os

from syndicate.abandoned import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "syndicate.settings")
# Django's handler, which finishes a request the server gave up on, so its thread gives its
# database connection back (syndicate.abandoned).
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402

from syndicate.limits import ConcurrencyLimit  # noqa: E402
from syndicate.routing import websocket_urlpatterns  # noqa: E402
from syndicate.socket_sessions import socket_auth_stack  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": ConcurrencyLimit(
            django_asgi_app, settings.HTTP_CONCURRENCY, settings.HTTP_CONCURRENCY_PER_CLIENT
        ),
        "websocket": AllowedHostsOriginValidator(
            socket_auth_stack(URLRouter(websocket_urlpatterns))
        ),
    }
)
