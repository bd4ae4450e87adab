"""Routes for tests/security/test_error_pages.py: the site's URLs, and views that fail."""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from syndicate.urls import handler400, handler403, handler404, handler500, urlpatterns

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]


def failing_view(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a secret detail of the failure that no phone may see")


urlpatterns = [
    path("failing-page/", failing_view),
    path("api/failing-endpoint/", failing_view),
    *urlpatterns,
]
