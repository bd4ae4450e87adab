from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("allauth.urls")),
    path("api/", include("api.urls")),
    path("house/", include("house.urls")),
    path("", include("push.urls")),
    path("", include("web.urls")),
]
