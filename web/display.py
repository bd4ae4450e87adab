"""The display link's pages (events/display.py): the board for a projector's laptop that is not
signed in, and the small check its page makes to follow a series and notice a revocation."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_safe
from django_stubs_ext import StrOrPromise

from events import display
from events.event_language import render_in_event_language
from events.models import Event, Phase
from web.views import _board_page

REVOKED = gettext_lazy("This display link was revoked by House.")
UNKNOWN = gettext_lazy("No such display link: ask House for a new one.")
NO_EVENT = gettext_lazy("No event tonight.")
NOT_OPEN = gettext_lazy("The board opens when the event does.")


def _showing(event: Event | None) -> str:
    """What a display page shows, as its check compares it: another answer reloads the page."""
    if event is None:
        return "none"
    return f"{'draft' if event.phase == Phase.DRAFT else 'event'}:{event.pk}"


def _message(
    request: HttpRequest,
    text: StrOrPromise,
    *,
    status: int,
    watch: str = "",
    showing: str = "",
    event: Event | None = None,
) -> HttpResponse:
    """The screen's one message: in the event's language where the link shows one, else in the
    browser's (a link unknown or revoked names no event)."""
    context = {"text": text, "watch": watch, "showing": showing}
    if event is not None:
        return render_in_event_language(
            request, event, "web/display_message.html", context, status=status
        )
    return render(request, "web/display_message.html", context, status=status)


@require_safe
def display_page(request: HttpRequest, token: str) -> HttpResponse:
    """The display: the board of the link's event (or its series' current event) in kiosk mode,
    with the check-in code while self check-in is on. Revoked: 410 and a plain page, no board."""
    link = display.find(token)
    if link is None:
        return _message(request, UNKNOWN, status=404)
    if link.revoked_at is not None:
        return _message(request, REVOKED, status=410)
    display.seen(link)
    event = display.shown_event(link)
    watch = reverse("web:display_now", kwargs={"token": token})
    showing = _showing(event)
    if event is None or event.phase == Phase.DRAFT:
        text = NOT_OPEN if link.scope_type.model_class() is Event else NO_EVENT
        return _message(request, text, status=200, watch=watch, showing=showing, event=event)
    return _board_page(
        request, event, venue=True, display=token, kiosk=True, watch=watch, showing=showing
    )


@require_safe
def display_now(request: HttpRequest, token: str) -> JsonResponse:
    """What the display should show now (`static/js/display.js` asks every half minute): the
    page reloads when it changed, or when the link was revoked (410)."""
    link = display.find(token)
    if link is None:
        return JsonResponse({"showing": "unknown"}, status=404)
    if link.revoked_at is not None:
        return JsonResponse({"showing": "revoked"}, status=410)
    display.seen(link)
    return JsonResponse({"showing": _showing(display.shown_event(link))})
