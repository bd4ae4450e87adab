from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from events.selectors import event_list_public


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "events/home.html", {"events": event_list_public()})


def health(request: HttpRequest) -> JsonResponse:
    """Liveness and database reachability, for load balancers and compose health checks."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})
