from django.urls import path

from audit import views

app_name = "audit"

urlpatterns = [
    path("public-key", views.public_key, name="public_key"),
    path("public-key.pem", views.public_key_pem_file, name="public_key_pem"),
]
