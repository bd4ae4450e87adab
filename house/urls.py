from django.urls import path

from house import views

app_name = "house"
urlpatterns = [
    path("", views.events, name="events"),
]
