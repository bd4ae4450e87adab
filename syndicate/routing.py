"""Websocket routes (live updates, SPEC section 9); asgi.py checks the Origin and the session."""

from django.urls import URLPattern, path

from live.consumers import BoardConsumer, HouseConsumer, PlayerConsumer

websocket_urlpatterns: list[URLPattern] = [
    path("ws/events/<int:event_id>/board/", BoardConsumer.as_asgi()),
    path("ws/events/<int:event_id>/player/", PlayerConsumer.as_asgi()),
    path("ws/events/<int:event_id>/house/", HouseConsumer.as_asgi()),
]
