from django.urls import path

from push import views

app_name = "push"
urlpatterns = [
    path("push/subscribe", views.subscribe, name="subscribe"),
    path("push/unsubscribe", views.unsubscribe, name="unsubscribe"),
    path("push/key", views.public_key, name="key"),
    path("manifest.webmanifest", views.manifest, name="manifest"),
    path("sw.js", views.service_worker, name="service_worker"),
]
