from django.contrib import admin
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.templatetags.static import static
from django.urls import include, path

from accounts import views as account_views
from house import staff_pages
from syndicate import security


def favicon(request: HttpRequest) -> HttpResponse:
    """`/favicon.ico`, which browsers ask for on pages that name no icon (JSON, CSV, errors)."""
    return HttpResponseRedirect(static("icons/favicon.ico"))


# With DEBUG off (the default): the site's own pages, or the API's error shape under /api/.
handler400 = "syndicate.error_pages.bad_request"
handler403 = "syndicate.error_pages.permission_denied"
handler404 = "syndicate.error_pages.page_not_found"
handler500 = "syndicate.error_pages.server_error"

urlpatterns = [
    path("favicon.ico", favicon),
    path("admin/login/", security.admin_login, name="admin-login"),  # allauth's, staff only
    path("admin/", admin.site.urls),
    # allauth's sign-up, rolled back when refused, and its email page, with "make primary"
    # guarded (accounts/views.py); then the rest of it.
    path("accounts/signup/", account_views.signup, name="account_signup"),
    path("accounts/email/", account_views.email, name="account_email"),
    path("accounts/", include("allauth.urls")),
    path("api/", include("api.urls")),
    path("audit/", include("audit.urls")),
    # The one page an invitation to any staff (an event's, a series') is accepted at: its link
    # names it (staff/invitations.py).
    path("house/invitations/<str:token>", staff_pages.invitation, name="staff_invitation"),
    path("house/organizations/", include("house.organization_urls")),
    path("house/", include("house.urls")),
    path("house/", include("ledger.urls")),
    path("payments/", include("payments.urls")),
    path("", include("seasons.urls")),
    path("", include("privacy.urls")),
    path("", include("push.urls")),
    path("", include("web.urls")),
]
