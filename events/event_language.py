"""The event's language (docs/decisions.md, "Languages"): what the projector board, the final
page shown on it, the display link's pages and the printed sheets are written in, whatever
language the browser showing them asks for. House sets it on the event; blank is the venue's."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Protocol

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation

from events.models import Event


class Shown(Protocol):
    """What a room's screen shows: an event (its board, its sheets), or a layer above that names
    its own language the same way (a series' season view)."""

    @property
    def board_language(self) -> str: ...


@contextmanager
def in_event_language(event: Shown) -> Iterator[str]:
    """Write in the event's language inside the block (the deployment's when House chose none)."""
    with translation.override(event.board_language):
        yield event.board_language


def rendered_in_event_language(event: Event, render_it: Callable[[], str]) -> Callable[[], str]:
    """A deferred render (a pushed piece's) that renders in the event's language when called."""

    def render_now() -> str:
        with in_event_language(event):
            return render_it()

    return render_now


def render_in_event_language(
    request: HttpRequest,
    event: Shown,
    template: str,
    context: Mapping[str, Any],
    *,
    status: int = 200,
) -> HttpResponse:
    """A page of the event's shown to a room (the board, a sheet): in the event's language,
    and saying so (`Content-Language`, which the locale middleware leaves as set)."""
    with in_event_language(event) as language:
        response = render(request, template, dict(context), status=status)
    response.headers["Content-Language"] = language
    return response
