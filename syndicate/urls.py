from django.contrib import admin
from django.urls import include, path

from syndicate import security

urlpatterns = [
    path("admin/login/", security.admin_login, name="admin-login"),  # allauth's, staff only
    path("admin/", admin.site.urls),
    path("accounts/", include("allauth.urls")),
    path("api/", include("api.urls")),
    path("audit/", include("audit.urls")),
    path("house/", include("house.urls")),
    path("", include("push.urls")),
    path("", include("web.urls")),
]
