"""House pages: thin views over the event services and snapshots."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from events.models import Event


@login_required
def events(request: HttpRequest) -> HttpResponse:
    """The events this user runs as House (site staff see every event)."""
    user = request.user
    listed = Event.objects.all() if user.is_superuser else Event.objects.filter(
        Q(house=user)
    ).distinct()
    return render(request, "house/events.html", {"events": listed.order_by("-date", "-id")})
