"""A suspended organization's House pages (docs/decisions.md, "Organizations"): each page's
access check (`events.runner.refuse_if_suspended`) tells the organization's own staff that it
is suspended, and this middleware answers them the suspension's page (403), whichever House
page of its events, series or seasons they opened. The API answers the same refusal as JSON
(403 `organization_suspended`) through its one error mapping."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from events.errors import OrganizationSuspended
from house.organizations import suspended_page


class SuspendedOrganizationMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, OrganizationSuspended) and not request.path.startswith("/api/"):
            return suspended_page(request, exception)
        return None
