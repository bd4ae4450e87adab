from django.urls import path

from privacy import views

app_name = "privacy"

urlpatterns = [
    path("settings/my-data.json", views.data_download, name="data_download"),
    path("settings/delete-account", views.account_delete, name="account_delete"),
]
