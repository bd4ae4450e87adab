"""Websocket routes (live updates, docs/rules.md section 12.1); asgi.py checks the Origin and the
session."""

from django.urls import URLPattern, path, re_path

from helpers import redaction
from live.consumers import (
    BoardConsumer,
    HouseConsumer,
    NoRouteConsumer,
    PlayerConsumer,
    StandbyConsumer,
)

websocket_urlpatterns: list[URLPattern] = [
    path("ws/events/<int:event_id>/board/", BoardConsumer.as_asgi()),
    path("ws/events/<int:event_id>/board/<str:display>/", BoardConsumer.as_asgi()),
    path("ws/events/<int:event_id>/player/", PlayerConsumer.as_asgi()),
    path("ws/events/<int:event_id>/house/", HouseConsumer.as_asgi()),
    # House's view of the standby copies for Tonight, which has no event socket (house.copies).
    path("ws/house/standby/", StandbyConsumer.as_asgi()),
    # Last: any other path closes cleanly with 4404 rather than raising "No route found".
    re_path(r"", NoRouteConsumer.as_asgi()),
]

# The access log keeps the secrets of these routes out too (display links' tokens).
redaction.watch_websocket_routes(websocket_urlpatterns)
